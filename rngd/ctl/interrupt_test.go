package ctl

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An interrupt (Ctrl-C) while a passphrase is typed at rngctl keys' or
// attest's prompt stops the command: the terminal's Ctrl-C cancels the
// command's context but not the reading, and what was typed after it was
// used — keys init made a keystore sealed by it, attest signed with it.
// (Review: promo alone checked.) Now nothing is made or signed, exit 1 and
// one line; the same commands run without the interrupt do their work.
func TestKeysPromptInterrupted(t *testing.T) {
	fixClock(t)
	dir := t.TempDir()
	ks, ann := filepath.Join(dir, "keys"), filepath.Join(dir, "announcement.json")
	fast := []string{"--kdf-time", "1", "--kdf-memory-mib", "8", "--kdf-threads", "1"}
	initArgs := append([]string{"keys", "init", "--backend", "software", "--allow-software", "--dir", ks, "--announcement", ann}, fast...)
	out := filepath.Join(dir, "paytable.dsse.json")
	attestArgs := []string{"attest", "paytable", "--out", out, "--backend", "software", "--allow-software", "--dir", ks}

	interrupted := func(args []string, made string) {
		t.Helper()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		var o, e bytes.Buffer
		code := Run(ctx, Env{Args: args, Stdin: &cancelReader{cancel, strings.NewReader("typed after Ctrl-C\n")}, Stdout: &o, Stderr: &e})
		want := "rngctl " + args[0] + " " + args[1] + ": interrupted at the passphrase prompt: what was typed is not used, nothing was done\n"
		if code != ExitFail || o.String() != "" || e.String() != want {
			t.Fatalf("%v interrupted: exit %d, %q %q; want %d and %q", args[:2], code, o.String(), e.String(), ExitFail, want)
		}
		if _, err := os.Lstat(made); err == nil {
			t.Fatalf("%v interrupted made %s", args[:2], made)
		}
	}
	interrupted(initArgs, ks)

	var o, e bytes.Buffer
	if code := Run(context.Background(), Env{Args: initArgs, Stdin: strings.NewReader("operator passphrase\n"), Stdout: &o, Stderr: &e}); code != ExitOK {
		t.Fatalf("keys init: exit %d %s", code, e.String())
	}
	interrupted(attestArgs, out)
	o.Reset()
	e.Reset()
	if code := Run(context.Background(), Env{Args: attestArgs, Stdin: strings.NewReader("operator passphrase\n"), Stdout: &o, Stderr: &e}); code != ExitOK {
		t.Fatalf("attest paytable: exit %d %s", code, e.String())
	}
	if _, err := os.Stat(out); err != nil {
		t.Fatalf("attest paytable made no envelope: %v", err)
	}
}
