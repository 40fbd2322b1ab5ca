package ctl

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"tirage.fr/tirage/hsm"
	"tirage.fr/tirage/hsm/hsmtest"
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

	code, out, errOut := k.run("", append([]string{"init", "--dir", ks, "--passphrase-file", passFile, "--announcement", ann}, fast...)...)
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

	// show, with the passphrase typed at the prompt.
	code, out, errOut = k.run(pass+"\n", "show", "--dir", ks)
	if code != ExitOK || !strings.Contains(out, "3 keys") || !strings.Contains(errOut, "passphrase: ") {
		t.Errorf("keys show: exit %d\n%s%s", code, out, errOut)
	}
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
	code, out, errOut = k.run("", "export-public", "--dir", ks, "--passphrase-fd", strconv.Itoa(int(r.Fd())), "--label", "vrf")
	if code != ExitOK {
		t.Fatalf("export-public: exit %d %s", code, errOut)
	}
	pub := strings.TrimSpace(out)
	if len(pub) != 66 || !strings.HasSuffix(fps["vrf"], hsm.Fingerprint(mustHex(t, pub))) {
		t.Errorf("export-public --label vrf = %q, does not match the announced fingerprint", pub)
	}
	code, out, _ = k.run(pass, "export-public", "--dir", ks, "--label", "log", "--format", "pem")
	if code != ExitOK || !strings.Contains(out, "-----BEGIN PUBLIC KEY-----") {
		t.Errorf("export-public --format pem: exit %d %q", code, out)
	}

	// announce again from the existing keys: same keys, same fingerprints.
	ann2 := filepath.Join(dir, "again.json")
	if code, _, errOut = k.run(pass, "announce", "--dir", ks, "--announcement", ann2); code != ExitOK {
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
		{"init over existing keys", pass, append([]string{"init", "--dir", ks, "--announcement", filepath.Join(dir, "x")}, fast...), ExitFail, "already exists"},
		{"announcement exists", pass, []string{"announce", "--dir", ks, "--announcement", ann}, ExitFail, "never overwritten"},
		{"wrong passphrase", "not the passphrase\n", []string{"show", "--dir", ks}, ExitFail, "wrong PIN or passphrase"},
		{"empty passphrase", "\n", []string{"show", "--dir", ks}, ExitFail, "empty passphrase"},
		{"missing label", pass, []string{"export-public", "--dir", ks, "--label", "nope"}, ExitFail, "key not found"},
		{"secret as a flag", "", []string{"show", "--dir", ks, "--passphrase=" + pass}, ExitUsage, "flag provided but not defined"},
		{"secret as a descriptor", "", []string{"show", "--dir", ks, "--passphrase-fd", pass}, ExitUsage, "file descriptor number"},
		{"secret as a file name", "", []string{"show", "--dir", ks, "--passphrase-file", pass}, ExitFail, "no such file"},
		{"pin for software", "", []string{"show", "--dir", ks, "--pin-file", passFile}, ExitUsage, "--backend pkcs11"},
		{"no dir", pass, []string{"show"}, ExitUsage, "--dir is required"},
		{"bad backend", "", []string{"show", "--backend", "tpm"}, ExitUsage, `--backend "tpm"`},
		{"bad suite", pass, []string{"init", "--dir", ks, "--announcement", filepath.Join(dir, "y"), "--vrf-suite", "ECVRF-EDWARDS25519-SHA512-TAI"}, ExitUsage, "--vrf-suite"},
		{"no announcement", pass, []string{"init", "--dir", ks}, ExitUsage, "--announcement FILE is required"},
		{"unknown subcommand", "", []string{"rotate"}, ExitUsage, `unknown subcommand "rotate"`},
		{"pem of a point", pass, []string{"export-public", "--dir", ks, "--label", "vrf", "--format", "pem"}, ExitFail, "export it as hex"},
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
	hsmtest.AssertNoSecrets(t, k.all.Bytes(), []byte(pass), []byte("not the passphrase"))
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
