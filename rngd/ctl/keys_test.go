package ctl

import (
	"bytes"
	"context"
	"encoding/hex"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"tirage.fr/tirage/hsm"
	"tirage.fr/tirage/hsm/hsmtest"
	"tirage.fr/tirage/verifier/receipt"
	"tirage.fr/tirage/verifier/record"
	"tirage.fr/tirage/verifier/vrf"
)

// keysRun runs `rngctl keys ARGS` in process with stdin, collecting every
// byte written to stdout and stderr into all (for the leak check).
type keysRun struct {
	t   *testing.T
	all bytes.Buffer
}

func (k *keysRun) run(stdin string, args ...string) (code int, stdout, stderr string) {
	k.t.Helper()
	var out, errb bytes.Buffer
	code = Run(context.Background(), Env{Args: append([]string{"keys"}, args...), Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errb})
	k.all.Write(out.Bytes())
	k.all.Write(errb.Bytes())
	return code, out.String(), errb.String()
}

func fixClock(t *testing.T) {
	old := keysNow
	keysNow = func() time.Time { return time.Date(2026, 11, 30, 3, 0, 0, 0, time.UTC) }
	t.Cleanup(func() { keysNow = old })
}

// checkAnnouncementFile parses and checks the announcement and returns the
// fingerprints it announces, by label.
func checkAnnouncementFile(t *testing.T, name string) map[string]string {
	t.Helper()
	leaf, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	ann, err := hsm.CheckAnnouncement(leaf)
	if err != nil {
		t.Fatalf("announcement does not check: %v", err)
	}
	if !ann.Time.Equal(keysNow()) {
		t.Errorf("announcement time %v, want the ceremony clock %v", ann.Time, keysNow())
	}
	fps := map[string]string{}
	for _, k := range ann.Keys {
		fps[k.ID] = k.Use + " " + k.Suite + " " + record.Hex(k.Fingerprint)
	}
	return fps
}

func TestKeysSoftware(t *testing.T) {
	fixClock(t)
	dir := t.TempDir()
	ks := filepath.Join(dir, "keys")
	pass := "operator passphrase 42"
	passFile := filepath.Join(dir, "pass")
	if err := os.WriteFile(passFile, []byte(pass+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	k := &keysRun{t: t}
	fast := []string{"--kdf-time", "1", "--kdf-memory-mib", "8", "--kdf-threads", "1"}
	ann := filepath.Join(dir, "announcement.json")

	code, out, errOut := k.run("", append([]string{"init", "--backend", "software", "--allow-software", "--dir", ks, "--passphrase-file", passFile, "--announcement", ann}, fast...)...)
	if code != ExitOK {
		t.Fatalf("keys init: exit %d\n%s%s", code, out, errOut)
	}
	if !strings.Contains(errOut, "WARNING: software keystore") {
		t.Errorf("software keys are not announced loudly: stderr %q", errOut)
	}
	fps := checkAnnouncementFile(t, ann)
	want := map[string]string{"vrf": "vrf " + string(vrf.SuiteP256SSWU), "log": "log Ed25519", "attestation": "attestation Ed25519"}
	for label, w := range want {
		if !strings.HasPrefix(fps[label], w+" ") {
			t.Errorf("announced %s = %q, want %q + fingerprint", label, fps[label], w)
		}
		fp := fps[label][strings.LastIndex(fps[label], " ")+1:]
		if !strings.Contains(out, "SHA256:"+fp) {
			t.Errorf("init output lacks the fingerprint of %s", label)
		}
	}

	// init prints the pins auditors give rngverify: SUITE:FINGERPRINT for
	// the VRF key, the bare fingerprint for the log key.
	checkPins(t, "init", out, fps, true)

	// show, with the passphrase through a descriptor: the keys are
	// unsealed, which checks them.
	r0, w0, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	w0.WriteString(pass)
	w0.Close()
	code, out, errOut = k.run("", "show", "--backend", "software", "--allow-software", "--dir", ks, "--passphrase-fd", strconv.Itoa(int(r0.Fd())))
	if code != ExitOK || !strings.Contains(out, "3 keys") || strings.Contains(out, "clear headers") || strings.Contains(errOut, "passphrase: ") {
		t.Errorf("keys show --passphrase-fd: exit %d\n%s%s", code, out, errOut)
	}
	checkPins(t, "show --passphrase-fd", out, fps, false)
	for label := range want {
		fp := fps[label][strings.LastIndex(fps[label], " ")+1:]
		if !strings.Contains(out, "key "+label+"\n") || !strings.Contains(out, fp) {
			t.Errorf("keys show lacks %s with fingerprint %s:\n%s", label, fp, out)
		}
	}

	// export-public, with the passphrase through a descriptor.
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	w.WriteString(pass)
	w.Close()
	code, out, errOut = k.run("", "export-public", "--backend", "software", "--allow-software", "--dir", ks, "--passphrase-fd", strconv.Itoa(int(r.Fd())), "--label", "vrf")
	if code != ExitOK {
		t.Fatalf("export-public: exit %d %s", code, errOut)
	}
	pub := strings.TrimSpace(out)
	if len(pub) != 66 || !strings.HasSuffix(fps["vrf"], hsm.Fingerprint(mustHex(t, pub))) {
		t.Errorf("export-public --label vrf = %q, does not match the announced fingerprint", pub)
	}
	code, out, _ = k.run(pass, "export-public", "--backend", "software", "--allow-software", "--dir", ks, "--label", "log", "--format", "pem")
	if code != ExitOK || !strings.Contains(out, "-----BEGIN PUBLIC KEY-----") {
		t.Errorf("export-public --format pem: exit %d %q", code, out)
	}

	// announce again from the existing keys: same keys, same fingerprints.
	ann2 := filepath.Join(dir, "again.json")
	if code, _, errOut = k.run(pass, "announce", "--backend", "software", "--allow-software", "--dir", ks, "--announcement", ann2); code != ExitOK {
		t.Fatalf("announce: exit %d %s", code, errOut)
	}
	if again := checkAnnouncementFile(t, ann2); !equalMaps(again, fps) {
		t.Errorf("announce gave %v, init gave %v", again, fps)
	}

	// Failures: exit 1 with one line, nothing changed.
	before := snapshot(t, ks)
	for _, c := range []struct {
		name, stdin string
		args        []string
		code        int
		stderr      string
	}{
		{"init over existing keys", pass, append([]string{"init", "--backend", "software", "--allow-software", "--dir", ks, "--announcement", filepath.Join(dir, "x")}, fast...), ExitFail, "already exists"},
		{"announcement exists", pass, []string{"announce", "--backend", "software", "--allow-software", "--dir", ks, "--announcement", ann}, ExitUsage, "never overwritten"},
		{"init, announcement exists", pass, append([]string{"init", "--backend", "software", "--allow-software", "--dir", filepath.Join(dir, "new-keystore"), "--announcement", ann}, fast...), ExitUsage,
			"rngctl keys init: usage: --announcement " + ann + " exists: the announcement is never overwritten\n"},
		{"wrong passphrase", "not the passphrase\n", []string{"announce", "--backend", "software", "--allow-software", "--dir", ks, "--announcement", filepath.Join(dir, "w.json")}, ExitFail, "wrong PIN or passphrase"},
		{"no passphrase on a pipe", "\n", []string{"announce", "--backend", "software", "--allow-software", "--dir", ks, "--announcement", filepath.Join(dir, "w.json")}, ExitUsage,
			"rngctl keys announce: usage: no passphrase: standard input is not a terminal and gave none: give it with --passphrase-file FILE (mode 0600) or --passphrase-fd N\n"},
		{"missing label", "", []string{"export-public", "--backend", "software", "--allow-software", "--dir", ks, "--label", "nope"}, ExitFail, "key not found"},
		{"secret as a flag", "", []string{"show", "--backend", "software", "--allow-software", "--dir", ks, "--passphrase=" + pass}, ExitUsage, "flag provided but not defined"},
		{"secret as a descriptor", "", []string{"show", "--backend", "software", "--allow-software", "--dir", ks, "--passphrase-fd", pass}, ExitUsage, "file descriptor number"},
		{"secret as a file name", "", []string{"show", "--backend", "software", "--allow-software", "--dir", ks, "--passphrase-file", pass}, ExitFail, "no such file"},
		{"pin for software", "", []string{"show", "--backend", "software", "--allow-software", "--dir", ks, "--pin-file", passFile}, ExitUsage, "--backend pkcs11"},
		{"no dir", pass, []string{"show", "--backend", "software", "--allow-software"}, ExitUsage, "--dir is required"},
		{"no dir, with a passphrase", "", []string{"show", "--backend", "software", "--allow-software", "--passphrase-file", passFile}, ExitUsage, "--dir is required"},
		{"bad backend", "", []string{"show", "--backend", "tpm"}, ExitUsage, `--backend "tpm"`},
		{"bad suite", pass, []string{"init", "--backend", "software", "--allow-software", "--dir", ks, "--announcement", filepath.Join(dir, "y"), "--vrf-suite", "ECVRF-EDWARDS25519-SHA512-TAI"}, ExitUsage, "--vrf-suite"},
		{"no announcement", pass, []string{"init", "--backend", "software", "--allow-software", "--dir", ks}, ExitUsage, "--announcement FILE is required"},
		{"unknown subcommand", "", []string{"rotate"}, ExitUsage, `unknown subcommand "rotate"`},
		{"pem of a point", pass, []string{"export-public", "--backend", "software", "--allow-software", "--dir", ks, "--label", "vrf", "--format", "pem"}, ExitFail, "export it as hex"},
	} {
		code, _, errOut := k.run(c.stdin, c.args...)
		if code != c.code || !strings.Contains(errOut, c.stderr) {
			t.Errorf("%s: exit %d, stderr %q; want exit %d and %q", c.name, code, errOut, c.code, c.stderr)
		}
		if lines := strings.Count(strings.TrimPrefix(strings.TrimPrefix(errOut, "passphrase: "), "WARNING: software keystore: the keys are held in files and in this process's memory; for development only, use --backend pkcs11 in production\n"), "\n"); lines != 1 {
			t.Errorf("%s: stderr has %d lines, want one: %q", c.name, lines, errOut)
		}
	}
	if after := snapshot(t, ks); !equalMaps(before, after) {
		t.Error("a failed command changed the keystore")
	}
	if _, err := os.Lstat(filepath.Join(dir, "new-keystore")); err == nil {
		t.Error("init over an existing announcement made a keystore")
	}
	hsmtest.AssertNoSecrets(t, k.all.Bytes(), []byte(pass), []byte("not the passphrase"))
}

// checkPins checks the pin lines of show's or init's output against the
// announced fingerprints fps (by label: "use suite fingerprint"): the VRF
// key's is SUITE:FINGERPRINT, which rngverify --pin takes; the log key's,
// printed only where rngctl knows which key it is (init, announce), is its
// bare fingerprint. The keys were checked (unsealed, or on a token):
// nothing is marked unchecked.
func checkPins(t *testing.T, what, out string, fps map[string]string, logPin bool) {
	t.Helper()
	checkPinLines(t, what, out, fps, logPin, "")
}

// headerMark ends the fingerprint and pin lines of keys read from a
// software keystore's clear headers (show without a passphrase);
// tokenMark, those of keys read from a token's public key objects (show
// without a PIN).
const (
	headerMark = "from the header, unchecked: give --passphrase-file or --passphrase-fd to check it"
	tokenMark  = "from the public key object, unchecked: give --pin-file or --pin-fd to check it"
)

// checkPinLines is checkPins for keys read as mark says: "" for checked
// keys, headerMark or tokenMark for keys read without the secret, when
// every fingerprint line ends with the part of mark before its colon in
// brackets, "(from the header, unchecked)", and every pin line names mark
// after its rngverify hint.
func checkPinLines(t *testing.T, what, out string, fps map[string]string, logPin bool, mark string) {
	t.Helper()
	pinMark, fpMark := "", ""
	if mark != "" {
		pinMark, fpMark = "; "+mark, " ("+strings.SplitN(mark, ":", 2)[0]+")"
	} else if strings.Contains(out, "unchecked") || strings.Contains(out, "clear headers") {
		t.Errorf("%s: checked keys said unchecked:\n%s", what, out)
	}
	f := strings.Fields(fps["vrf"])
	vrfPin := f[1] + ":" + f[2]
	if !strings.Contains(out, "\n  pin:         "+vrfPin+" (rngverify --pin"+pinMark+")\n") {
		t.Errorf("%s: no pin %s for the VRF key (mark %q):\n%s", what, vrfPin, mark, out)
	}
	if suite, fp, err := receipt.ParsePin(vrfPin); err != nil || string(suite) != f[1] || fp != f[2] {
		t.Errorf("%s: rngverify does not take the pin %s: %v", what, vrfPin, err)
	}
	logFP := strings.Fields(fps["log"])[2]
	if has := strings.Contains(out, "\n  pin:         "+logFP+" (rngverify --pin: the log key"+pinMark+")\n"); has != logPin {
		t.Errorf("%s: log key pin printed %v, want %v:\n%s", what, has, logPin, out)
	}
	if n := strings.Count(out, "  pin: "); n != 1+map[bool]int{true: 1}[logPin] {
		t.Errorf("%s: %d pins:\n%s", what, n, out)
	}
	// Every fingerprint and pin line, the lines operators copy, is marked
	// as the keys were read.
	for _, line := range strings.Split(out, "\n") {
		switch {
		case strings.HasPrefix(line, "  fingerprint: ") && !strings.HasSuffix(line, fpMark) && fpMark != "":
			t.Errorf("%s: fingerprint line not marked %q: %q", what, fpMark, line)
		case strings.HasPrefix(line, "  pin: ") && !strings.HasSuffix(line, pinMark+")"):
			t.Errorf("%s: pin line not marked %q: %q", what, pinMark, line)
		}
	}
}

func mustHex(t *testing.T, s string) []byte {
	t.Helper()
	b := make([]byte, len(s)/2)
	for i := range b {
		v, err := strconv.ParseUint(s[2*i:2*i+2], 16, 8)
		if err != nil {
			t.Fatalf("not hex: %q", s)
		}
		b[i] = byte(v)
	}
	return b
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = string(b)
	}
	return out
}

// keys init checks every flag and the announcement's directory before it
// makes anything, and a failure after a key was made removes the keys this
// run made: every failed init leaves the keystore as it was, and init can
// be run again.
func TestKeysInitAtomic(t *testing.T) {
	fixClock(t)
	dir := t.TempDir()
	ks := filepath.Join(dir, "keys")
	pass := "operator passphrase 42"
	passFile := filepath.Join(dir, "pass")
	if err := os.WriteFile(passFile, []byte(pass+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	k := &keysRun{t: t}
	ann := filepath.Join(dir, "announcement.json")
	base := []string{"init", "--backend", "software", "--allow-software", "--dir", ks, "--passphrase-file", passFile, "--kdf-time", "1", "--kdf-memory-mib", "8", "--kdf-threads", "1"}
	for _, c := range []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"bad sign-alg", []string{"--announcement", ann, "--sign-alg", "bogus"}, ExitUsage, `--sign-alg "bogus": want Ed25519 or ECDSA-P256-SHA256`},
		{"same label twice", []string{"--announcement", ann, "--vrf-label", "log"}, ExitUsage, `--vrf-label and --log-label are both "log"`},
		{"bad label", []string{"--announcement", ann, "--attestation-label", "a b"}, ExitUsage, "--attestation-label: bad key label"},
		{"announcement in a missing directory", []string{"--announcement", filepath.Join(dir, "none", "a.json")}, ExitFail, "--announcement " + filepath.Join(dir, "none", "a.json") + ": directory"},
		{"huge kdf memory", []string{"--announcement", ann, "--kdf-memory-mib", "4194304"}, ExitUsage, "--kdf-memory-mib 4194304: want 8 to 4096"},
		{"kdf time 0", []string{"--announcement", ann, "--kdf-time", "0"}, ExitUsage, "--kdf-time 0: want 1 to 16"},
		{"kdf threads 256", []string{"--announcement", ann, "--kdf-threads", "256"}, ExitUsage, "--kdf-threads 256: want 1 to 255"},
		{"rsa-bits for software", []string{"--announcement", ann, "--rsa-bits", "4096"}, ExitUsage, "--rsa-bits is for --backend pkcs11"},
		{"keystore in a missing directory", []string{"--announcement", ann, "--dir", filepath.Join(dir, "none", "keys")}, ExitFail, "--dir " + filepath.Join(dir, "none", "keys") + ": its parent directory"},
	} {
		code, _, errOut := k.run("", append(append([]string{}, base...), c.args...)...)
		if code != c.code || !strings.Contains(errOut, c.stderr) || strings.Count(strings.TrimPrefix(errOut, softWarning), "\n") != 1 {
			t.Errorf("%s: exit %d, stderr %q; want exit %d and one line with %q", c.name, code, errOut, c.code, c.stderr)
		}
		for _, p := range []string{ks, ann, filepath.Join(dir, "none")} {
			if _, err := os.Lstat(p); err == nil {
				t.Fatalf("%s: %s was created", c.name, p)
			}
		}
	}

	// A failure once keys are made (here the announcement: no time) removes them.
	keysNow = func() time.Time { return time.Time{} }
	code, _, errOut := k.run("", append(append([]string{}, base...), "--announcement", ann)...)
	if code != ExitFail || !strings.Contains(errOut, `the keys this run made ("vrf", "log", "attestation") were removed: nothing changed`) {
		t.Errorf("failed announcement: exit %d, stderr %q", code, errOut)
	}
	for _, p := range []string{ks, ann} {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("failed announcement: %s is left", p)
		}
	}
	// In an existing keystore, only this run's keys go.
	if err := os.Mkdir(ks, 0o700); err != nil {
		t.Fatal(err)
	}
	code, _, errOut = k.run("", append(append([]string{}, base...), "--announcement", ann, "--vrf-label", "v1")...)
	if code != ExitFail || !strings.Contains(errOut, "were removed") {
		t.Errorf("failed announcement: exit %d, stderr %q", code, errOut)
	}
	if entries, err := os.ReadDir(ks); err != nil || len(entries) != 0 {
		t.Errorf("failed announcement left %v (%v) in the keystore", entries, err)
	}

	// So init can run again, and then succeeds.
	fixClock(t)
	if code, out, errOut := k.run("", append(append([]string{}, base...), "--announcement", ann)...); code != ExitOK {
		t.Fatalf("init after the failures: exit %d %s%s", code, out, errOut)
	}
	checkAnnouncementFile(t, ann)
	// Again over the same keys: refused, saying what to do instead.
	code, _, errOut = k.run("", append(append([]string{}, base...), "--announcement", filepath.Join(dir, "again.json"))...)
	if code != ExitFail || !strings.Contains(errOut, `key already exists: "vrf"`) || !strings.Contains(errOut, "rngctl keys announce") || !strings.Contains(errOut, "rngctl keys show") {
		t.Errorf("init over existing keys: exit %d, stderr %q", code, errOut)
	}
	hsmtest.AssertNoSecrets(t, k.all.Bytes(), []byte(pass))
}

const softWarning = "WARNING: software keystore: the keys are held in files and in this process's memory; for development only, use --backend pkcs11 in production\n"

// Read-only commands create nothing and print nothing before they fail.
func TestKeysReadOnly(t *testing.T) {
	fixClock(t)
	dir := t.TempDir()
	ks := filepath.Join(dir, "keys")
	pass := "operator passphrase 42"
	k := &keysRun{t: t}
	missing := filepath.Join(dir, "nonexist")
	for _, sub := range []string{"show", "export-public", "announce"} {
		args := []string{sub, "--backend", "software", "--allow-software", "--dir", missing}
		if sub == "announce" {
			args = append(args, "--announcement", filepath.Join(dir, "a.json"))
		}
		code, out, errOut := k.run(pass, args...)
		if code != ExitFail || out != "" || !strings.Contains(errOut, "--dir "+missing+": no such directory") || strings.Count(errOut, "\n") != 1 {
			t.Errorf("keys %s --dir missing: exit %d, stdout %q, stderr %q", sub, code, out, errOut)
		}
		if _, err := os.Lstat(missing); err == nil {
			t.Fatalf("keys %s created --dir", sub)
		}
	}
	// promo names its keystore flag --keys.
	code, out, errOut := rngctl("promo", "certificate", "--draw", "x/1", "--out", filepath.Join(dir, "out"), "--data", filepath.Join(dir, "data"),
		"--origin", "o", "--backend", "software", "--allow-software", "--keys", missing, "--passphrase-file", filepath.Join(dir, "p"))
	if code != ExitFail || out != "" || !strings.Contains(errOut, "--keys "+missing+": no such directory") {
		t.Errorf("promo certificate --keys missing: exit %d, stderr %q", code, errOut)
	}
	if entries, err := os.ReadDir(dir); err != nil || len(entries) != 0 {
		t.Fatalf("promo certificate created %v (%v)", entries, err)
	}

	if code, out, errOut := k.run(pass, "init", "--backend", "software", "--allow-software", "--dir", ks, "--announcement", filepath.Join(dir, "ann.json"), "--kdf-time", "1", "--kdf-memory-mib", "8", "--kdf-threads", "1"); code != ExitOK {
		t.Fatalf("init: exit %d %s%s", code, out, errOut)
	}
	// pem of every key: the VRF key has no PEM form, so nothing is printed.
	code, out, errOut = k.run(pass, "export-public", "--backend", "software", "--allow-software", "--dir", ks, "--format", "pem")
	if code != ExitFail || out != "" || !strings.Contains(errOut, `key "vrf" is a compressed P-256 point`) {
		t.Errorf("export-public --format pem: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	hsmtest.AssertNoSecrets(t, k.all.Bytes(), []byte(pass))
}

// keys show and export-public need no passphrase for a software keystore:
// its public keys are in clear in the key files (docs/keys.md, as in the
// ceremony's examples). Nothing is read from standard input, nothing is
// prompted, and the keys are those the announcement names.
func TestKeysPublicWithoutPassphrase(t *testing.T) {
	fixClock(t)
	dir := t.TempDir()
	ks := filepath.Join(dir, "keys")
	passFile := filepath.Join(dir, "pass")
	if err := os.WriteFile(passFile, []byte("operator passphrase 42\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ann := filepath.Join(dir, "ann.json")
	k := &keysRun{t: t}
	if code, out, errOut := k.run("", "init", "--backend", "software", "--allow-software", "--dir", ks, "--passphrase-file", passFile, "--announcement", ann,
		"--kdf-time", "1", "--kdf-memory-mib", "8", "--kdf-threads", "1"); code != ExitOK {
		t.Fatalf("init: exit %d %s%s", code, out, errOut)
	}
	fps := checkAnnouncementFile(t, ann)

	// What stdin holds is not read: no prompt, no passphrase asked for.
	code, out, errOut := k.run("unread\n", "show", "--backend", "software", "--allow-software", "--dir", ks)
	if code != ExitOK || errOut != "" || !strings.Contains(out, "3 keys\npublic keys read from the key files' clear headers without the passphrase") {
		t.Fatalf("show without a passphrase: exit %d\n%s%s", code, out, errOut)
	}
	checkPinLines(t, "show", out, fps, false, headerMark)
	for label, v := range fps {
		if !strings.Contains(out, "key "+label+"\n") || !strings.Contains(out, "SHA256:"+strings.Fields(v)[2]) {
			t.Errorf("show lacks %s (%s):\n%s", label, v, out)
		}
	}
	code, out, errOut = k.run("", "export-public", "--backend", "software", "--allow-software", "--dir", ks)
	if code != ExitOK || errOut != exportNote || strings.Count(out, "\n") != 3 {
		t.Fatalf("export-public: exit %d\n%s%s", code, out, errOut)
	}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Fields(line) // label algorithm hex
		pub, err := hex.DecodeString(f[2])
		if err != nil || !strings.HasSuffix(fps[f[0]], " "+f[1]+" "+hsm.Fingerprint(pub)) {
			t.Errorf("export-public %q: not the announced key %q", line, fps[f[0]])
		}
	}
	if code, out, errOut = k.run("", "export-public", "--backend", "software", "--allow-software", "--dir", ks, "--label", "log", "--format", "pem"); code != ExitOK || !strings.Contains(out, "-----BEGIN PUBLIC KEY-----\nAlgorithm: Ed25519\nLabel: log\n") {
		t.Errorf("export-public --label log --format pem: exit %d %q %q", code, out, errOut)
	}

	// A key file others may read, or one not a key file, is refused as
	// keystore.Open refuses it: one line, exit 1.
	vrfFile := filepath.Join(ks, "vrf.key")
	if err := os.Chmod(vrfFile, 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := k.run("", "show", "--backend", "software", "--allow-software", "--dir", ks); code != ExitFail || out != "" || errOut != "rngctl keys show: key file vrf.key has mode 0644: want 0600 (chmod 600 it)\n" {
		t.Errorf("world-readable key file: exit %d %q %q", code, out, errOut)
	}
	os.Chmod(vrfFile, 0o600)
	if err := os.WriteFile(filepath.Join(ks, "junk.key"), []byte("not a key\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = k.run("", "export-public", "--backend", "software", "--allow-software", "--dir", ks)
	if code != ExitFail || out != "" || !strings.Contains(errOut, "key file junk.key: not a key file") || strings.Count(errOut, "\n") != 1 {
		t.Errorf("junk key file: exit %d %q %q", code, out, errOut)
	}
	// With the passphrase, keystore.Open refuses it in the same words.
	_, _, openErr := k.run("", "export-public", "--backend", "software", "--allow-software", "--dir", ks, "--passphrase-file", passFile)
	if want := strings.TrimPrefix(errOut, "rngctl keys export-public: "); !strings.HasSuffix(openErr, ": "+want) {
		t.Errorf("junk key file: without the passphrase %q, with it %q", errOut, openErr)
	}
}

// A PIN or passphrase that is needed but not given, without a terminal
// (nobody can type it), is one line naming the flags that give it, with no
// prompt before it.
func TestSecretWithoutTerminal(t *testing.T) {
	fixClock(t)
	dir := t.TempDir()
	ks := filepath.Join(dir, "keys")
	if err := os.Mkdir(ks, 0o700); err != nil {
		t.Fatal(err)
	}
	// promo certificate refuses a --data that holds no log before it
	// asks for the passphrase.
	if err := os.MkdirAll(filepath.Join(dir, "data", "log"), 0o700); err != nil {
		t.Fatal(err)
	}
	k := &keysRun{t: t}
	for _, tc := range []struct {
		stdin string
		args  []string
		want  string
	}{
		{"", []string{"keys", "announce", "--backend", "software", "--allow-software", "--dir", ks, "--announcement", filepath.Join(dir, "a.json")},
			"rngctl keys announce: usage: no passphrase: standard input is not a terminal and gave none: give it with --passphrase-file FILE (mode 0600) or --passphrase-fd N\n"},
		{"\n", []string{"keys", "init", "--backend", "software", "--allow-software", "--dir", ks, "--announcement", filepath.Join(dir, "a.json")},
			"rngctl keys init: usage: no passphrase: standard input is not a terminal and gave none: give it with --passphrase-file FILE (mode 0600) or --passphrase-fd N\n"},
		{"", []string{"keys", "announce", "--backend", "pkcs11", "--token-label", "t", "--module", "/nonexistent/libnone.so", "--announcement", filepath.Join(dir, "a.json")},
			"rngctl keys announce: usage: no PIN: standard input is not a terminal and gave none: give it with --pin-file FILE (mode 0600) or --pin-fd N\n"},
		{"", []string{"promo", "certificate", "--draw", "x/1", "--out", filepath.Join(dir, "out"), "--data", filepath.Join(dir, "data"), "--origin", "o", "--backend", "software", "--allow-software", "--keys", ks},
			"rngctl promo certificate: usage: no passphrase: standard input is not a terminal and gave none: give it with --passphrase-file FILE (mode 0600) or --passphrase-fd N\n"},
	} {
		run := k.run
		if tc.args[0] == "promo" {
			run = promoRun
		}
		code, out, errOut := run(tc.stdin, tc.args[1:]...)
		if code != ExitUsage || out != "" || strings.TrimPrefix(errOut, softWarning) != tc.want {
			t.Errorf("%v: exit %d, %q %q; want exit 2 and %q", tc.args, code, out, errOut, tc.want)
		}
	}
	if entries, _ := os.ReadDir(ks); len(entries) != 0 {
		t.Errorf("the keystore has %v", entries)
	}
}

// exportNote is what export-public says on stderr of keys read from a
// software keystore's clear headers.
const exportNote = "rngctl keys export-public: note: public keys read from the key files' clear headers without the passphrase, not checked against the sealed keys: give --passphrase-file or --passphrase-fd to check them before publishing them\n"

// Keys read from a software keystore's clear headers (no passphrase) are
// unchecked: a header is authenticated only by its sealed key, so a
// changed one shows another key, whose pin auditors would be given (rngd
// would refuse the keystore). show marks every fingerprint and pin line so;
// export-public says so in one line on stderr, its stdout the key material
// alone, as with the passphrase. With the passphrase the keys are unsealed,
// which checks them: nothing is marked. (Review: export-public said
// nothing, and show's pin line, the one docs/keys.md had operators paste,
// was unmarked.)
func TestKeysHeaderPinsUnchecked(t *testing.T) {
	fixClock(t)
	dir := t.TempDir()
	passFile := filepath.Join(dir, "pass")
	if err := os.WriteFile(passFile, []byte("operator passphrase 42\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	k := &keysRun{t: t}
	initStore := func(name string) (ks string, fps map[string]string) {
		ks, ann := filepath.Join(dir, name), filepath.Join(dir, name+".json")
		if code, out, errOut := k.run("", "init", "--backend", "software", "--allow-software", "--dir", ks, "--passphrase-file", passFile, "--announcement", ann,
			"--kdf-time", "1", "--kdf-memory-mib", "8", "--kdf-threads", "1"); code != ExitOK {
			t.Fatalf("init %s: exit %d %s%s", name, code, out, errOut)
		}
		return ks, checkAnnouncementFile(t, ann)
	}
	ks, fps := initStore("keys")

	code, out, errOut := k.run("", "show", "--backend", "software", "--allow-software", "--dir", ks)
	if code != ExitOK || errOut != "" {
		t.Fatalf("show: exit %d\n%s%s", code, out, errOut)
	}
	checkPinLines(t, "show", out, fps, false, headerMark)
	if n := strings.Count(out, " (from the header, unchecked)\n"); n != 3 {
		t.Errorf("show: %d fingerprint lines marked, want 3:\n%s", n, out)
	}
	code, out, errOut = k.run("", "show", "--backend", "software", "--allow-software", "--dir", ks, "--passphrase-file", passFile)
	if code != ExitOK || errOut != softWarning {
		t.Fatalf("show --passphrase-file: exit %d\n%s%s", code, out, errOut)
	}
	checkPins(t, "show --passphrase-file", out, fps, false)

	// export-public: the same stdout with and without the passphrase; only
	// the header run adds the note, on stderr.
	for _, args := range [][]string{{}, {"--label", "vrf"}, {"--label", "log", "--format", "pem"}} {
		args = append([]string{"export-public", "--backend", "software", "--allow-software", "--dir", ks}, args...)
		code, headerOut, errOut := k.run("", args...)
		if code != ExitOK || errOut != exportNote || strings.Contains(headerOut, "unchecked") || strings.Contains(headerOut, "header") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want the keys alone on stdout and %q", args, code, headerOut, errOut, exportNote)
		}
		code, out, errOut := k.run("", append(args, "--passphrase-file", passFile)...)
		if code != ExitOK || errOut != softWarning || out != headerOut {
			t.Errorf("%v --passphrase-file: exit %d, stdout %q, stderr %q; want stdout %q and the software keystore warning alone", args, code, out, errOut, headerOut)
		}
	}
	// A failure prints its one line, not the note.
	code, out, errOut = k.run("", "export-public", "--backend", "software", "--allow-software", "--dir", ks, "--label", "nope")
	if code != ExitFail || out != "" || errOut != "rngctl keys export-public: key not found: no key labelled \"nope\"\n" {
		t.Errorf("export-public --label nope: exit %d, stdout %q, stderr %q", code, out, errOut)
	}

	// A changed header: the VRF key file made to name another keystore's
	// VRF key. Without the passphrase that key's pin is shown, marked
	// unchecked, and exported with the note; with it, the keystore is
	// refused.
	other, otherFPs := initStore("other")
	public := func(ks string) string {
		b, err := os.ReadFile(filepath.Join(ks, "vrf.key"))
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(line, "public: ") {
				return line
			}
		}
		t.Fatalf("%s/vrf.key has no public line", ks)
		return ""
	}
	vrfFile := filepath.Join(ks, "vrf.key")
	b, err := os.ReadFile(vrfFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(vrfFile, []byte(strings.Replace(string(b), public(ks), public(other), 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	tampered := map[string]string{"vrf": otherFPs["vrf"], "log": fps["log"], "attestation": fps["attestation"]}
	code, out, errOut = k.run("", "show", "--backend", "software", "--allow-software", "--dir", ks)
	if code != ExitOK || errOut != "" {
		t.Fatalf("show of a changed header: exit %d\n%s%s", code, out, errOut)
	}
	checkPinLines(t, "show of a changed header", out, tampered, false, headerMark)
	code, out, errOut = k.run("", "export-public", "--backend", "software", "--allow-software", "--dir", ks, "--label", "vrf")
	if code != ExitOK || errOut != exportNote || !strings.HasSuffix(otherFPs["vrf"], " "+hsm.Fingerprint(mustHex(t, strings.TrimSpace(out)))) {
		t.Errorf("export-public of a changed header: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	for _, sub := range []string{"show", "export-public"} {
		if code, out, errOut := k.run("", sub, "--backend", "software", "--allow-software", "--dir", ks, "--passphrase-file", passFile); code != ExitFail || out != "" {
			t.Errorf("%s --passphrase-file of a changed header: exit %d, stdout %q, stderr %q; want it refused", sub, code, out, errOut)
		}
	}
}
