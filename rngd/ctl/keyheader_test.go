package ctl

import (
	"bytes"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tirage.fr/tirage/hsm"
	"tirage.fr/tirage/hsm/keystore"
	"tirage.fr/tirage/verifier/vrf"
)

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
	if code, out, errOut := k.run("", "init", "--dir", ks, "--passphrase-file", passFile, "--announcement", ann,
		"--kdf-time", "1", "--kdf-memory-mib", "8", "--kdf-threads", "1"); code != ExitOK {
		t.Fatalf("init: exit %d %s%s", code, out, errOut)
	}
	fps := checkAnnouncementFile(t, ann)

	// What stdin holds is not read: no prompt, no passphrase asked for.
	code, out, errOut := k.run("unread\n", "show", "--dir", ks)
	if code != ExitOK || errOut != "" || !strings.Contains(out, "3 keys\npublic keys read from the key files' clear headers without the passphrase") {
		t.Fatalf("show without a passphrase: exit %d\n%s%s", code, out, errOut)
	}
	checkPins(t, "show", out, fps, false)
	for label, v := range fps {
		if !strings.Contains(out, "key "+label+"\n") || !strings.Contains(out, "SHA256:"+strings.Fields(v)[2]) {
			t.Errorf("show lacks %s (%s):\n%s", label, v, out)
		}
	}
	code, out, errOut = k.run("", "export-public", "--dir", ks)
	if code != ExitOK || errOut != "" || strings.Count(out, "\n") != 3 {
		t.Fatalf("export-public: exit %d\n%s%s", code, out, errOut)
	}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Fields(line) // label algorithm hex
		pub, err := hex.DecodeString(f[2])
		if err != nil || !strings.HasSuffix(fps[f[0]], " "+f[1]+" "+hsm.Fingerprint(pub)) {
			t.Errorf("export-public %q: not the announced key %q", line, fps[f[0]])
		}
	}
	if code, out, errOut = k.run("", "export-public", "--dir", ks, "--label", "log", "--format", "pem"); code != ExitOK || !strings.Contains(out, "-----BEGIN PUBLIC KEY-----\nAlgorithm: Ed25519\nLabel: log\n") {
		t.Errorf("export-public --label log --format pem: exit %d %q %q", code, out, errOut)
	}

	// A key file others may read, or one not a key file, is refused as
	// keystore.Open refuses it: one line, exit 1.
	vrfFile := filepath.Join(ks, "vrf.key")
	if err := os.Chmod(vrfFile, 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := k.run("", "show", "--dir", ks); code != ExitFail || out != "" || errOut != "rngctl keys show: key file vrf.key has mode 0644: want 0600 (chmod 600 it)\n" {
		t.Errorf("world-readable key file: exit %d %q %q", code, out, errOut)
	}
	os.Chmod(vrfFile, 0o600)
	if err := os.WriteFile(filepath.Join(ks, "junk.key"), []byte("not a key\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := k.run("", "export-public", "--dir", ks); code != ExitFail || out != "" || !strings.Contains(errOut, "key file junk.key: not a key file") || strings.Count(errOut, "\n") != 1 {
		t.Errorf("junk key file: exit %d %q %q", code, out, errOut)
	}
}

// The header reader agrees with the keystore on every kind of key it
// makes, and refuses what is not a canonical header.
func TestKeyHeadersMatchStore(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "keys")
	s, err := keystore.Open(keystore.Config{Dir: dir, Passphrase: []byte("header test passphrase"), KDF: keystore.KDFParams{Time: 1, MemoryKiB: 8 * 1024, Threads: 1}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, suite := range []vrf.Suite{vrf.SuiteP256SSWU, vrf.SuiteP256TAI, vrf.SuiteRSAFDH256} {
		if _, err := s.GenerateVRF("vrf-"+strings.ToLower(string(suite)), suite); err != nil {
			t.Fatal(err)
		}
	}
	for _, alg := range []string{hsm.Ed25519, hsm.ECDSAP256SHA256} {
		if _, err := s.GenerateSigner("sign-"+strings.ToLower(alg), alg); err != nil {
			t.Fatal(err)
		}
	}
	want, err := s.Keys()
	if err != nil {
		t.Fatal(err)
	}
	got, err := softwarePublicKeys(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("%d keys from the headers, %d from the keystore", len(got), len(want))
	}
	for i := range want {
		if got[i].Label != want[i].Label || got[i].Purpose != want[i].Purpose || got[i].Algorithm != want[i].Algorithm || !bytes.Equal(got[i].Public, want[i].Public) {
			t.Errorf("key %d: header %+v, keystore %+v", i, got[i], want[i])
		}
	}

	file, err := os.ReadFile(filepath.Join(dir, "sign-ed25519.key"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, old, new, want string
	}{
		{"magic", "tirage-keystore v1", "tirage-keystore v2", "not a key file"},
		{"field order", "purpose: sign\nalgorithm: Ed25519", "algorithm: Ed25519\npurpose: sign", `want field "purpose"`},
		{"upper-case hex", "public: 302a", "public: 302A", "lower-case hex"},
		{"purpose", "purpose: sign", "purpose: other", "neither vrf nor sign"},
		{"algorithm", "algorithm: Ed25519", "algorithm: ECDSA-P256-SHA256", "not an ECDSA-P256-SHA256 public key"},
		{"label", "label: sign-ed25519", "label: bad label", "bad key label"},
	} {
		b := bytes.Replace(file, []byte(tc.old), []byte(tc.new), 1)
		if bytes.Equal(b, file) {
			t.Fatalf("%s: %q not in the file", tc.name, tc.old)
		}
		if _, err := parseKeyHeader(b); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
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
	k := &keysRun{t: t}
	for _, tc := range []struct {
		stdin string
		args  []string
		want  string
	}{
		{"", []string{"keys", "announce", "--dir", ks, "--announcement", filepath.Join(dir, "a.json")},
			"rngctl keys announce: usage: no passphrase: standard input is not a terminal and gave none: give it with --passphrase-file FILE (mode 0600) or --passphrase-fd N\n"},
		{"\n", []string{"keys", "init", "--dir", ks, "--announcement", filepath.Join(dir, "a.json")},
			"rngctl keys init: usage: no passphrase: standard input is not a terminal and gave none: give it with --passphrase-file FILE (mode 0600) or --passphrase-fd N\n"},
		{"", []string{"keys", "show", "--backend", "pkcs11", "--token-label", "t", "--module", "/nonexistent/libnone.so"},
			"rngctl keys show: usage: no PIN: standard input is not a terminal and gave none: give it with --pin-file FILE (mode 0600) or --pin-fd N\n"},
		{"", []string{"promo", "certificate", "--draw", "x/1", "--out", filepath.Join(dir, "out"), "--data", filepath.Join(dir, "data"), "--origin", "o", "--keys", ks},
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
