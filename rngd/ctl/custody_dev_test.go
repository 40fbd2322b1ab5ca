//go:build tirage_dev

package ctl

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tirage.fr/tirage/hsm"
	"tirage.fr/tirage/hsm/pkcs11"
)

// TestCustodyDevDefaults: a dev build keeps its conveniences, software
// keys by default (still announced loudly) and SoftHSM2's module.
func TestCustodyDevDefaults(t *testing.T) {
	fixClock(t)
	dir := t.TempDir()
	ks := filepath.Join(dir, "keys")
	pass := filepath.Join(dir, "pass")
	if err := os.WriteFile(pass, []byte("operator passphrase 42\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := rngctl("keys", "init", "--dir", ks, "--passphrase-file", pass, "--announcement", filepath.Join(dir, "ann.json"),
		"--kdf-time", "1", "--kdf-memory-mib", "8", "--kdf-threads", "1")
	if code != ExitOK || !strings.HasPrefix(errOut, softWarning) {
		t.Errorf("keys init without --backend: exit %d\n%s%s", code, out, errOut)
	}

	var module string
	old := openPKCS11
	openPKCS11 = func(cfg pkcs11.Config) (hsm.Backend, error) { module = cfg.Module; return nil, hsm.ErrUnavailable }
	t.Cleanup(func() { openPKCS11 = old })
	if code, _, errOut := rngctl("keys", "show", "--backend", "pkcs11", "--token-label", "t", "--pin-file", pass); code != ExitFail || module != pkcs11.DefaultModule {
		t.Errorf("keys show --backend pkcs11: exit %d, module %q, stderr %q; want SoftHSM2's module", code, module, errOut)
	}
}
