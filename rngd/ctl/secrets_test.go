package ctl

import (
	"bytes"
	"io"
	"strings"
	"testing"
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

// recordingReader hands out src a few bytes per Read and keeps every
// region of the caller's buffers it wrote into, so that a test can see
// whether the caller left a copy of the secret anywhere but in the slice
// it returned.
type recordingReader struct {
	src     []byte
	chunk   int
	written [][]byte
}

func (r *recordingReader) Read(p []byte) (int, error) {
	if len(r.src) == 0 {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), r.chunk)], r.src)
	r.src = r.src[n:]
	r.written = append(r.written, p[:n])
	return n, nil
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
		r := &recordingReader{src: []byte(tc.in), chunk: 1 << 20}
		c := &keysCmd{env: Env{Stdin: r, Stderr: io.Discard}}
		b, err := c.prompt("passphrase")
		if err != nil || string(b) != secret {
			t.Fatalf("%s: read %d bytes, %v; want the %d of the secret", tc.name, len(b), err, len(secret))
		}
		if string(r.src) != tc.rest {
			t.Errorf("%s: %q left unread, want %q", tc.name, r.src, tc.rest)
		}
		clear(b)
		checkWiped(t, tc.name, r.written)
	}

	r := &recordingReader{src: bytes.Repeat([]byte("x"), maxSecret+10), chunk: 1 << 20}
	c := &keysCmd{env: Env{Stdin: r, Stderr: io.Discard}}
	if b, err := c.prompt("passphrase"); err == nil || !strings.Contains(err.Error(), "longer than") {
		t.Errorf("too long: read %d bytes, %v; want an error", len(b), err)
	}
	checkWiped(t, "too long", r.written)
}

func checkWiped(t *testing.T, when string, written [][]byte) {
	t.Helper()
	for i, w := range written {
		if bytes.ContainsFunc(w, func(r rune) bool { return r != 0 }) {
			t.Errorf("%s: read %d (%d bytes) left unwiped on the heap", when, i, len(w))
			return
		}
	}
}
