package ctl

import (
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
