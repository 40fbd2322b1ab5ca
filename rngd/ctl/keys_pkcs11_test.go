//go:build cgo

package ctl

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

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
	checkPins(t, "pkcs11 init", out, fps, true)

	code, out, errOut = k.run(string(tok.PIN)+"\n", append([]string{"show"}, tokenFlags...)...)
	if code != ExitOK || !strings.Contains(out, `pkcs11 token "tirage-ceremony", 3 keys`) || strings.Contains(errOut, "PIN: ") {
		t.Errorf("keys show: exit %d\n%s%s", code, out, errOut)
	}
	checkPins(t, "pkcs11 show", out, fps, false)
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
		{"small RSA", string(tok.PIN), []string{"init", "--vrf-label", "v3", "--rsa-bits", "1024", "--announcement", filepath.Join(dir, "z")}, ExitUsage, "--rsa-bits 1024: want a multiple of 8 from 2048 to 8192"},
		{"kdf for pkcs11", string(tok.PIN), []string{"init", "--vrf-label", "v3", "--kdf-time", "1", "--announcement", filepath.Join(dir, "z")}, ExitUsage, "are for --backend software"},
		{"ECVRF on a token", string(tok.PIN), []string{"init", "--vrf-label", "v2", "--log-label", "l2", "--attestation-label", "a2", "--vrf-suite", string(vrf.SuiteP256SSWU), "--announcement", filepath.Join(dir, "y")}, ExitFail, "unsupported"},
	} {
		code, _, errOut := k.run(c.stdin, append(c.args, tokenFlags...)...)
		if code != c.code || !strings.Contains(errOut, c.stderr) {
			t.Errorf("%s: exit %d, stderr %q; want exit %d and %q", c.name, code, errOut, c.code, c.stderr)
		}
	}
	if code, out, _ := k.run(string(tok.PIN), append([]string{"show"}, tokenFlags...)...); code != ExitOK || !strings.Contains(out, ", 3 keys") {
		t.Errorf("the failed inits left keys on the token: exit %d\n%s", code, out)
	}

	// A failure once keys are made (here the announcement: no time) cannot
	// delete them from the token: it says which are left and how to go on.
	keysNow = func() time.Time { return time.Time{} }
	labels := []string{"--vrf-label", "v4", "--log-label", "l4", "--attestation-label", "a4"}
	ann4 := filepath.Join(dir, "ann4.json")
	code, _, errOut = k.run(string(tok.PIN), append(append([]string{"init", "--announcement", ann4}, labels...), tokenFlags...)...)
	if code != ExitFail || !strings.Contains(errOut, `this run made keys "v4", "l4", "a4", which stay on the pkcs11 token "tirage-ceremony"`) ||
		!strings.Contains(errOut, "rngctl keys announce") || strings.Count(errOut, "\n") != 1 {
		t.Errorf("failed announcement: exit %d, stderr %q", code, errOut)
	}
	if _, err := os.Lstat(ann4); err == nil {
		t.Error("failed announcement left a file")
	}
	// As it says: announce them.
	fixClock(t)
	if code, _, errOut := k.run(string(tok.PIN), append(append([]string{"announce", "--announcement", ann4}, labels...), tokenFlags...)...); code != ExitOK {
		t.Fatalf("announce after the failed init: exit %d %s", code, errOut)
	}
	checkAnnouncementFile(t, ann4)
	hsmtest.AssertNoSecrets(t, k.all.Bytes(), tok.PIN, tok.SOPIN, []byte("12345678"))
}
