//go:build !tirage_dev

package ctl

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tirage.fr/tirage/hsm"
	"tirage.fr/tirage/hsm/pkcs11"
)

// TestCustodyExplicitOutsideDev: a production rngctl has no default key
// custody. Software keys need --backend software and --allow-software (as
// rngd needs keys.allow_software), and a token needs --module: SoftHSM2's
// module, a software token, is no default. Each is refused with exit 2
// and one line naming the flag, before any secret is read or anything
// made, by every command that opens the custody (keys, promo, attest). It
// used to open a software keystore by default, with a warning only, and
// SoftHSM2's module.
func TestCustodyExplicitOutsideDev(t *testing.T) {
	dir := t.TempDir()
	ks := filepath.Join(dir, "keys")
	pass := filepath.Join(dir, "pass")
	if err := os.WriteFile(pass, []byte("operator passphrase 42\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ann := filepath.Join(dir, "ann.json")
	const (
		noBackend = "usage: --backend is required: pkcs11 (an HSM: --module, --token-label), or software with --allow-software (keys in files on this host: development only)\n"
		noOptIn   = "usage: --backend software needs --allow-software: a software keystore keeps the keys in files on this host, for development only (use --backend pkcs11 in production)\n"
		noModule  = "usage: --module PATH (the HSM's PKCS#11 library) is required with --backend pkcs11\n"
	)
	promo := []string{"--draw", "x/1", "--out", filepath.Join(dir, "out"), "--data", filepath.Join(dir, "data"), "--origin", "o"}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"keys", "init", "--dir", ks, "--passphrase-file", pass, "--announcement", ann}, "rngctl keys init: " + noBackend},
		{[]string{"keys", "init", "--backend", "software", "--dir", ks, "--passphrase-file", pass, "--announcement", ann}, "rngctl keys init: " + noOptIn},
		{[]string{"keys", "show", "--dir", ks}, "rngctl keys show: " + noBackend},
		{[]string{"keys", "export-public", "--backend", "software", "--dir", ks}, "rngctl keys export-public: " + noOptIn},
		{[]string{"keys", "announce", "--backend", "software", "--dir", ks, "--announcement", ann}, "rngctl keys announce: " + noOptIn},
		{[]string{"keys", "init", "--backend", "pkcs11", "--token-label", "t", "--announcement", ann}, "rngctl keys init: " + noModule},
		{[]string{"keys", "show", "--backend", "pkcs11", "--token-label", "t"}, "rngctl keys show: " + noModule},
		{append([]string{"promo", "certificate", "--keys", ks, "--passphrase-file", pass}, promo...), "rngctl promo certificate: " + noBackend},
		{append([]string{"promo", "draw", "--backend", "software", "--keys", ks, "--passphrase-file", pass}, promo...), "rngctl promo draw: " + noOptIn},
		{append([]string{"promo", "draw", "--backend", "pkcs11", "--token-label", "t"}, promo...), "rngctl promo draw: " + noModule},
		{[]string{"attest", "paytable", "--dir", ks, "--passphrase-file", pass, "--out", filepath.Join(dir, "p.json")}, "rngctl attest paytable: " + noBackend},
		{[]string{"attest", "paytable", "--backend", "software", "--dir", ks, "--passphrase-file", pass, "--out", filepath.Join(dir, "p.json")}, "rngctl attest paytable: " + noOptIn},
		{[]string{"attest", "paytable", "--backend", "pkcs11", "--token-label", "t", "--out", filepath.Join(dir, "p.json")}, "rngctl attest paytable: " + noModule},
	} {
		code, out, errOut := rngctl(tc.args...)
		if code != ExitUsage || out != "" || errOut != tc.want {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit %d and %q", tc.args, code, out, errOut, ExitUsage, tc.want)
		}
	}
	if entries, err := os.ReadDir(dir); err != nil || len(entries) != 1 {
		t.Errorf("the directory has %v (%v), want the passphrase file alone", entries, err)
	}

	// Asked for explicitly, software keys are still announced loudly.
	code, out, errOut := rngctl("keys", "init", "--backend", "software", "--allow-software", "--dir", ks, "--passphrase-file", pass, "--announcement", ann,
		"--kdf-time", "1", "--kdf-memory-mib", "8", "--kdf-threads", "1")
	if code != ExitOK || !strings.HasPrefix(errOut, softWarning) || !strings.Contains(out, "(development only)") {
		t.Errorf("keys init --backend software --allow-software: exit %d\n%s%s", code, out, errOut)
	}
}

// softToken is a token that is software keys (SoftHSM2).
type softToken struct{ fakeToken }

func (softToken) Software() bool { return true }

// TestSoftwareTokenNeedsOptIn: a token that is software keys (SoftHSM2)
// needs --allow-software outside a dev build, as rngd needs
// keys.allow_software for it.
func TestSoftwareTokenNeedsOptIn(t *testing.T) {
	_, flags := useFakeToken(t, true, false)
	inner := openPKCS11
	openPKCS11 = func(cfg pkcs11.Config) (hsm.Backend, error) {
		b, err := inner(cfg)
		if err != nil {
			return nil, err
		}
		return softToken{b.(fakeToken)}, nil
	}
	args := append([]string{"keys", "show"}, flags[:len(flags)-2]...) // without --vrf-suite
	want := `rngctl keys show: usage: --token-label "t" is a software token (--module /opt/hsm/libvendor.so): its keys are files on this host, not in an HSM: use an HSM's module, or give --allow-software (development only)` + "\n"
	if code, out, errOut := rngctl(args...); code != ExitUsage || out != "" || errOut != want {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit %d and %q", code, out, errOut, ExitUsage, want)
	}
	if code, out, errOut := rngctl(append(args, "--allow-software")...); code != ExitOK || !strings.Contains(out, `backend: pkcs11 token "t"`) {
		t.Errorf("with --allow-software: exit %d\n%s%s", code, out, errOut)
	}
}
