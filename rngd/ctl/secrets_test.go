package ctl

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"tirage.fr/tirage/rngd/internal/testio"
)

// A stray argument of a command that reads a PIN or passphrase is not
// quoted back: it may be the secret, typed where its file belongs. The
// message is still one line, exit 2.
func TestStrayArgumentNotEchoed(t *testing.T) {
	for _, args := range [][]string{
		{"keys", "show", "--dir", t.TempDir(), "hunter2secret"},
		{"keys", "init", "--backend", "pkcs11", "--token-label", "t", "hunter2secret"},
		{"promo", "draw", "hunter2secret"},
	} {
		code, out, errOut := rngctl(args...)
		if code != ExitUsage || out != "" || strings.Contains(errOut, "hunter") || !strings.Contains(errOut, "unexpected argument") || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args[:2], code, out, errOut)
		}
	}
}

// TestPromptOneBuffer: a secret piped to standard input is read into one
// buffer, of which the secret is a slice, and nothing after its line is
// consumed: wiping the secret wipes every byte read (the newline is wiped
// by prompt). A buffer grown by append left outgrown copies of the start
// of the secret on the heap, and the byte buffer it read into kept the
// last byte. A secret too long is wiped before the error.
func TestPromptOneBuffer(t *testing.T) {
	secret := strings.Repeat("pass phrase ", 100)
	for _, tc := range []struct{ name, in, rest string }{
		{"line", secret + "\nnext line\n", "next line\n"},
		{"end of input", secret, ""},
	} {
		r := &testio.RecordingReader{Src: []byte(tc.in), Chunk: 1 << 20}
		c := &keysCmd{env: Env{Stdin: r, Stderr: io.Discard}}
		b, err := c.prompt("passphrase")
		if err != nil || string(b) != secret {
			t.Fatalf("%s: read %d bytes, %v; want the %d of the secret", tc.name, len(b), err, len(secret))
		}
		if string(r.Src) != tc.rest {
			t.Errorf("%s: %q left unread, want %q", tc.name, r.Src, tc.rest)
		}
		clear(b)
		r.CheckWiped(t, tc.name)
	}

	r := &testio.RecordingReader{Src: bytes.Repeat([]byte("x"), maxSecret+10), Chunk: 1 << 20}
	c := &keysCmd{env: Env{Stdin: r, Stderr: io.Discard}}
	if b, err := c.prompt("passphrase"); err == nil || !strings.Contains(err.Error(), "longer than") {
		t.Errorf("too long: read %d bytes, %v; want an error", len(b), err)
	}
	r.CheckWiped(t, "too long")
}

// A passphrase or PIN FIFO others may read or write is refused, as a file
// is and as rngd refuses it (rngd.SecretFileOpen): another user could read
// what its writer sends, or send a wrong PIN that locks the token. (Review:
// rngctl checked regular files only.) A FIFO of mode 0600 is read.
func TestSecretFIFOMode(t *testing.T) {
	dir := t.TempDir()
	for _, mode := range []os.FileMode{0o644, 0o622, 0o600} {
		p := filepath.Join(dir, fmt.Sprintf("%04o", mode))
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		go func() { // the writer: its open returns once a reader opens the FIFO
			if f, err := os.OpenFile(p, os.O_WRONLY, 0); err == nil {
				f.WriteString("fifo passphrase\n")
				f.Close()
			}
		}()
		c := &keysCmd{env: Env{Stdin: strings.NewReader(""), Stderr: io.Discard}}
		b, err := c.secret("passphrase", "--passphrase-file", p, "--passphrase-fd", "", false)
		// A writer still waiting (refused before it opened) is let through.
		if f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
		switch {
		case mode == 0o600 && (err != nil || string(b) != "fifo passphrase"):
			t.Errorf("FIFO %04o: %q, %v; want the passphrase", mode, b, err)
		case mode != 0o600 && (err == nil || !strings.Contains(err.Error(), "chmod 600")):
			t.Errorf("FIFO %04o: %q, %v; want it refused (chmod 600)", mode, b, err)
		}
	}
}
