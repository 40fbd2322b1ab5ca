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

// softHSMToken initialises a SoftHSM2 token labelled label for t and
// returns it, a directory for the test's files, the file (mode 0600) in it
// holding the token's PIN, and the flags that select the token.
func softHSMToken(t *testing.T, label string) (sh *hsmtest.SoftHSM, tok hsmtest.SoftHSMToken, dir, pinFile string, tokenFlags []string) {
	t.Helper()
	sh = hsmtest.NewSoftHSM(t)
	tok = sh.InitToken(t, label)
	dir = t.TempDir()
	pinFile = filepath.Join(dir, "pin")
	if err := os.WriteFile(pinFile, append(tok.PIN, '\n'), 0o600); err != nil {
		t.Fatal(err)
	}
	return sh, tok, dir, pinFile, []string{"--backend", "pkcs11", "--allow-software", "--module", sh.Module, "--token-label", tok.Label}
}

// TestKeysPKCS11 runs the ceremony on a SoftHSM2 token: an RSA-FDH-VRF key
// and Ed25519 signing keys made on the token, the PIN read from a file.
func TestKeysPKCS11(t *testing.T) {
	fixClock(t)
	_, tok, dir, pinFile, tokenFlags := softHSMToken(t, "tirage-ceremony")
	k := &keysRun{t: t}
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

	code, out, errOut = k.run("", append([]string{"show", "--pin-file", pinFile}, tokenFlags...)...)
	if code != ExitOK || !strings.Contains(out, `pkcs11 token "tirage-ceremony", 3 keys`) || strings.Contains(errOut, "PIN: ") {
		t.Errorf("keys show: exit %d\n%s%s", code, out, errOut)
	}
	checkPins(t, "pkcs11 show", out, fps, false)
	code, out, _ = k.run("", append([]string{"export-public", "--pin-file", pinFile, "--label", "vrf", "--format", "pem"}, tokenFlags...)...)
	if code != ExitOK || !strings.Contains(out, "Algorithm: RSA-FDH-VRF-SHA256") {
		t.Errorf("export-public pem: exit %d %q", code, out)
	}

	wrongPIN, soPIN := filepath.Join(dir, "wrong-pin"), filepath.Join(dir, "so-pin")
	for name, pin := range map[string][]byte{wrongPIN: []byte("12345678"), soPIN: tok.SOPIN} {
		if err := os.WriteFile(name, pin, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		name, stdin string
		args        []string
		code        int
		stderr      string
	}{
		{"wrong PIN", "", []string{"show", "--pin-file", wrongPIN}, ExitFail, "refused the PIN"},
		{"SO PIN", "", []string{"show", "--pin-file", soPIN}, ExitFail, "refused the PIN"},
		{"wrong PIN on stdin", "12345678\n", []string{"announce", "--announcement", filepath.Join(dir, "w")}, ExitFail, "refused the PIN"},
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
	if code, out, _ := k.run("", append([]string{"show", "--pin-file", pinFile}, tokenFlags...)...); code != ExitOK || !strings.Contains(out, ", 3 keys") {
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

// TestKeysPKCS11WithoutPIN: without --pin-file or --pin-fd, show and
// export-public read a token's public key objects without logging in (a
// PIN on standard input is not read): the same keys, fingerprints and
// pins as with the PIN, marked unchecked as keys read from a software
// keystore's headers are. A ceremony key whose public key object is
// marked private (hidden until login) or missing is one line naming its
// label, exit 1, not a shorter list; with the PIN the token is listed as
// before.
func TestKeysPKCS11WithoutPIN(t *testing.T) {
	fixClock(t)
	sh, tok, dir, pinFile, tokenFlags := softHSMToken(t, "tirage-nopin")
	k := &keysRun{t: t}
	run := func(stdin string, args ...string) (int, string, string) {
		t.Helper()
		return k.run(stdin, append(args, tokenFlags...)...)
	}
	ann := filepath.Join(dir, "announcement.json")
	if code, out, errOut := run("", "init", "--pin-file", pinFile, "--announcement", ann); code != ExitOK {
		t.Fatalf("keys init: exit %d\n%s%s", code, out, errOut)
	}
	fps := checkAnnouncementFile(t, ann)

	code, checked, errOut := run("", "show", "--pin-file", pinFile)
	if code != ExitOK || errOut != "" {
		t.Fatalf("show with the PIN: exit %d %q", code, errOut)
	}
	checkPinLines(t, "show with the PIN", checked, fps, false, "")
	code, out, errOut := run(string(tok.PIN)+"\n", "show")
	if code != ExitOK || errOut != "" || !strings.Contains(out, `pkcs11 token "tirage-nopin", 3 keys`) {
		t.Fatalf("show without the PIN: exit %d\n%s%s", code, out, errOut)
	}
	checkPinLines(t, "show without the PIN", out, fps, false, tokenMark)
	const note = "public keys read from the token's public key objects without the PIN, not matched to its private keys: give --pin-file or --pin-fd to check them before publishing them"
	unmarked := strings.Replace(out, note+"\n", "", 1)
	unmarked = strings.ReplaceAll(unmarked, " (from the public key object, unchecked)", "")
	unmarked = strings.ReplaceAll(unmarked, "; "+tokenMark, "")
	if unmarked != checked {
		t.Errorf("show without the PIN, marks and note taken out:\n%s\nwant show with the PIN:\n%s", unmarked, checked)
	}

	// export-public: the same standard output, and one note on stderr.
	for _, args := range [][]string{{"export-public"}, {"export-public", "--label", "vrf", "--format", "pem"}, {"export-public", "--label", "log"}} {
		_, want, _ := run("", append(args, "--pin-file", pinFile)...)
		code, got, errOut := run("", args...)
		if code != ExitOK || got != want || want == "" || errOut != "rngctl keys export-public: note: "+note+"\n" {
			t.Errorf("%v without the PIN: exit %d, stdout %q, stderr %q; want stdout %q (as with the PIN) and the note", args, code, got, errOut, want)
		}
	}

	// failed runs a check that the error is one line naming the label,
	// with nothing on standard output.
	failed := func(what string, wantCode int, says []string, args ...string) {
		t.Helper()
		code, out, errOut := run("", args...)
		if code != wantCode || out != "" || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit %d and one line", what, code, out, errOut, wantCode)
		}
		for _, s := range says {
			if !strings.Contains(errOut, s) {
				t.Errorf("%s: stderr %q, want it to say %q", what, errOut, s)
			}
		}
	}
	failed("labels the token lacks", ExitFail, []string{`"v2"`, "missing", "--vrf-label"}, "show", "--vrf-label", "v2")
	failed("labels with the PIN", ExitUsage, []string{"--vrf-label"}, "show", "--vrf-label", "v2", "--pin-file", pinFile)
	failed("labels and --label", ExitUsage, []string{"--label"}, "export-public", "--label", "vrf", "--log-label", "l2")
	failed("bad label", ExitUsage, []string{"--log-label"}, "show", "--log-label", "no/slash")

	// The VRF key's public key object marked private: shown only after
	// login. Without the PIN it is named, not left out; with the PIN the
	// token lists its keys as before.
	sh.MakePublicKeyPrivate(t, tok, "vrf")
	failed("private public key, show", ExitFail, []string{`"vrf"`, "CKA_PRIVATE true", `token "tirage-nopin"`}, "show")
	failed("private public key, export-public", ExitFail, []string{`"vrf"`, "CKA_PRIVATE true"}, "export-public", "--label", "vrf")
	if code, _, errOut := run("", "export-public", "--label", "log"); code != ExitOK || strings.Count(errOut, "\n") != 1 {
		t.Errorf("export-public of another key: exit %d %q", code, errOut)
	}
	if code, out, errOut := run("", "show", "--pin-file", pinFile); code != ExitOK || out != checked {
		t.Errorf("show with the PIN after the VRF public key was made private: exit %d %s\n%s\nwant\n%s", code, errOut, out, checked)
	}

	// The attestation key's public key object deleted.
	sh.DeletePublicKey(t, tok, "attestation")
	failed("missing public key", ExitFail, []string{`"attestation"`, "missing"}, "export-public", "--label", "attestation")
	failed("missing and private public keys", ExitFail, []string{`"vrf"`}, "show")
	hsmtest.AssertNoSecrets(t, k.all.Bytes(), tok.PIN, tok.SOPIN)
}
