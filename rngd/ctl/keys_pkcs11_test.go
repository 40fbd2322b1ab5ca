//go:build cgo

package ctl

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tirage.fr/tirage/hsm/hsmtest"
	"tirage.fr/tirage/verifier/vrf"
)

// TestKeysPKCS11 runs the ceremony on a SoftHSM2 token: an RSA-FDH-VRF key
// and Ed25519 signing keys made on the token, the PIN read from a file.
func TestKeysPKCS11(t *testing.T) {
	fixClock(t)
	sh := hsmtest.NewSoftHSM(t)
	tok := sh.InitToken(t, "tirage-ceremony")
	dir := t.TempDir()
	pinFile := filepath.Join(dir, "pin")
	if err := os.WriteFile(pinFile, append(tok.PIN, '\n'), 0o600); err != nil {
		t.Fatal(err)
	}
	k := &keysRun{t: t}
	tokenFlags := []string{"--backend", "pkcs11", "--module", sh.Module, "--token-label", tok.Label}
	ann := filepath.Join(dir, "announcement.json")

	code, out, errOut := k.run("", append([]string{"init", "--pin-file", pinFile, "--announcement", ann}, tokenFlags...)...)
	if code != ExitOK {
		t.Fatalf("keys init: exit %d\n%s%s", code, out, errOut)
	}
	if strings.Contains(errOut, "WARNING") {
		t.Errorf("unexpected warning for an HSM: %q", errOut)
	}
	fps := checkAnnouncementFile(t, ann)
	if !strings.HasPrefix(fps["vrf"], "vrf "+string(vrf.SuiteRSAFDH256)+" ") || !strings.HasPrefix(fps["log"], "log Ed25519 ") {
		t.Errorf("announced %v", fps)
	}

	code, out, errOut = k.run(string(tok.PIN)+"\n", append([]string{"show"}, tokenFlags...)...)
	if code != ExitOK || !strings.Contains(out, `pkcs11 token "tirage-ceremony", 3 keys`) || !strings.Contains(errOut, "PIN: ") {
		t.Errorf("keys show: exit %d\n%s%s", code, out, errOut)
	}
	code, out, _ = k.run(string(tok.PIN), append([]string{"export-public", "--label", "vrf", "--format", "pem"}, tokenFlags...)...)
	if code != ExitOK || !strings.Contains(out, "Algorithm: RSA-FDH-VRF-SHA256") {
		t.Errorf("export-public pem: exit %d %q", code, out)
	}

	for _, c := range []struct {
		name, stdin string
		args        []string
		code        int
		stderr      string
	}{
		{"wrong PIN", "12345678\n", []string{"show"}, ExitFail, "refused the PIN"},
		{"SO PIN", string(tok.SOPIN) + "\n", []string{"show"}, ExitFail, "refused the PIN"},
		{"passphrase for pkcs11", "", []string{"show", "--passphrase-file", pinFile}, ExitUsage, "--backend software"},
		{"init over existing keys", string(tok.PIN), []string{"init", "--announcement", filepath.Join(dir, "x")}, ExitFail, "already exists"},
		{"small RSA", string(tok.PIN), []string{"init", "--vrf-label", "v3", "--rsa-bits", "1024", "--announcement", filepath.Join(dir, "z")}, ExitFail, "RSA modulus size 1024"},
		{"ECVRF on a token", string(tok.PIN), []string{"init", "--vrf-label", "v2", "--vrf-suite", string(vrf.SuiteP256SSWU), "--announcement", filepath.Join(dir, "y")}, ExitFail, "unsupported"},
	} {
		code, _, errOut := k.run(c.stdin, append(c.args, tokenFlags...)...)
		if code != c.code || !strings.Contains(errOut, c.stderr) {
			t.Errorf("%s: exit %d, stderr %q; want exit %d and %q", c.name, code, errOut, c.code, c.stderr)
		}
	}
	hsmtest.AssertNoSecrets(t, k.all.Bytes(), tok.PIN, tok.SOPIN, []byte("12345678"))
}
