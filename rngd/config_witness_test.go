package rngd

import (
	"crypto/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	fnote "github.com/transparency-dev/formats/note"
	"golang.org/x/mod/sumdb/note"

	"tirage.fr/tirage/transparency"
)

// witnessVKeys returns a new witness's cosignature/v1 verifier key and
// the same key as a plain Ed25519 (signed-note type 0x01) one.
func witnessVKeys(t *testing.T, name string) (cosig, plain string) {
	t.Helper()
	_, vkey, err := note.GenerateKey(rand.Reader, name)
	if err != nil {
		t.Fatal(err)
	}
	cosig, err = fnote.VKeyToCosignatureV1(vkey)
	if err != nil {
		t.Fatal(err)
	}
	return cosig, vkey
}

func writePolicy(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "witnesses.policy")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestConfigWitnessPolicy(t *testing.T) {
	cosig, plain := witnessVKeys(t, "bailiff.example/witness")
	good := writePolicy(t, "witness bailiff "+cosig+" http://127.0.0.1:7490\nquorum bailiff\n")
	c, err := checkTOML(t, configTOML(map[string]string{"log.witness_policy": `"` + good + `"`}))
	if err != nil {
		t.Fatalf("good policy: %v", err)
	}
	if len(c.Log.witnessPolicy) == 0 || c.Log.WitnessTimeout.Duration != 2*time.Second {
		t.Errorf("policy read %d bytes, witness_timeout %s; want the file and the 2s default", len(c.Log.witnessPolicy), c.Log.WitnessTimeout)
	}
	if c, err = checkTOML(t, configTOML(nil)); err != nil || c.Log.witnessPolicy != nil {
		t.Errorf("no policy: %v, policy %q", err, c.Log.witnessPolicy)
	}

	cases := map[string]configErrorCase{
		"missing file":  {configTOML(map[string]string{"log.witness_policy": `"` + filepath.Join(t.TempDir(), "none") + `"`}), "log.witness_policy"},
		"no quorum":     {configTOML(map[string]string{"log.witness_policy": `"` + writePolicy(t, "witness bailiff "+cosig+" http://127.0.0.1:7490\n") + `"`}), "must define a quorum"},
		"quorum none":   {configTOML(map[string]string{"log.witness_policy": `"` + writePolicy(t, "witness bailiff "+cosig+" http://127.0.0.1:7490\nquorum none\n") + `"`}), "asks for no witness"},
		"not a key":     {configTOML(map[string]string{"log.witness_policy": `"` + writePolicy(t, "witness bailiff "+strings.TrimSuffix(plain, plain[len(plain)-8:])+" http://127.0.0.1:7490\nquorum bailiff\n") + `"`}), "invalid witness config"},
		"unknown group": {configTOML(map[string]string{"log.witness_policy": `"` + writePolicy(t, "witness a "+cosig+" http://127.0.0.1:7490\ngroup g 1 a b\nquorum g\n") + `"`}), "unknown component"},
		// Trillian: half of trillian_append_timeout (30s by default).
		"trillian long timeout": {configTOML(map[string]string{"log.backend": `"trillian"`, "log.trillian_address": `"127.0.0.1:8090"`, "log.trillian_tree_id": `5`, "log.trillian_plaintext": `true`,
			"log.witness_policy": `"` + good + `"`, "log.witness_timeout": `"16s"`}), "log.witness_timeout = 16s: want 100ms to half of log.trillian_append_timeout (30s)"},
		"timeout without policy": {configTOML(map[string]string{"log.witness_timeout": `"1s"`}), "log.witness_timeout = 1s, but no log.witness_policy"},
		// Longer than half the checkpoint timeout (10s by default): one
		// slow witness would stall the log.
		"long timeout":  {configTOML(map[string]string{"log.witness_policy": `"` + good + `"`, "log.witness_timeout": `"6s"`}), "log.witness_timeout = 6s: want 100ms to half of log.checkpoint_timeout (10s)"},
		"short timeout": {configTOML(map[string]string{"log.witness_policy": `"` + good + `"`, "log.witness_timeout": `"10ms"`}), "log.witness_timeout = 10ms"},
	}
	for name, tc := range cases {
		_, err := checkTOML(t, tc.toml)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error naming %q", name, err, tc.want)
		}
	}
	// The Trillian backend's checkpoints are witnessed too: within half of
	// its append timeout, not of the embedded log's checkpoint timeout.
	trillianTOML := map[string]string{"log.backend": `"trillian"`, "log.trillian_address": `"127.0.0.1:8090"`, "log.trillian_tree_id": `5`, "log.trillian_plaintext": `true`,
		"log.witness_policy": `"` + good + `"`, "log.witness_timeout": `"6s"`}
	if c, err := checkTOML(t, configTOML(trillianTOML)); err != nil || len(c.Log.witnessPolicy) == 0 {
		t.Errorf("trillian with a policy, 6s of a 30s append timeout: %v", err)
	}
	// A longer checkpoint timeout allows a longer wait.
	if _, err := checkTOML(t, configTOML(map[string]string{"log.witness_policy": `"` + good + `"`, "log.witness_timeout": `"6s"`, "log.checkpoint_timeout": `"20s"`})); err != nil {
		t.Errorf("6s of a 20s checkpoint timeout: %v", err)
	}
}

// The documented example policy is one rngd accepts.
// Its copy is made 0644, whatever the umask of the checkout (a 0664 file is
// refused: TestConfigWitnessPolicyMode).
func TestExampleWitnessPolicy(t *testing.T) {
	b, err := os.ReadFile("../examples/witnesses.policy")
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "witnesses.policy")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := checkTOML(t, configTOML(map[string]string{"log.witness_policy": `"` + p + `"`}))
	if err != nil {
		t.Fatal(err)
	}
	g, names, err := transparency.ParseWitnessPolicy(c.Log.witnessPolicy)
	if err != nil || g.N != 2 || len(names) != 2 {
		t.Fatalf("example policy: quorum %d of %d witnesses, %v", g.N, len(names), err)
	}
}

// log.witness_policy is refused at start when group or others may write it
// (they could name a witness of their own) or, when a witness URL in it
// holds credentials (a password, a token in its query), read it.
func TestConfigWitnessPolicyMode(t *testing.T) {
	cosig, _ := witnessVKeys(t, "bailiff.example/witness")
	policy := func(url string, mode os.FileMode) string {
		p := writePolicy(t, "witness bailiff "+cosig+" "+url+"\nquorum bailiff\n")
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tc := range []struct {
		url  string
		mode os.FileMode
		want string // "": accepted
	}{
		{"http://127.0.0.1:7490", 0o644, ""},
		{"http://127.0.0.1:7490", 0o664, "it has mode 0664: writable by group or others"},
		{"http://127.0.0.1:7490", 0o646, "it has mode 0646: writable by group or others"},
		{"https://bastion:s3cret@127.0.0.1:7490", 0o600, ""},
		{"https://127.0.0.1:7490/?token=s3cret", 0o600, ""},
		{"https://bastion:s3cret@127.0.0.1:7490", 0o620, "it has mode 0620: writable by group or others"},
		{"https://bastion:s3cret@127.0.0.1:7490", 0o644, "it has mode 0644: readable by group or others, and witness bailiff's URL holds credentials: chmod 600 it"},
		{"https://127.0.0.1:7490/?token=s3cret", 0o640, "it has mode 0640: readable by group or others"},
		{"https://t0ken@127.0.0.1:7490", 0o604, "it has mode 0604: readable by group or others"},
	} {
		p := policy(tc.url, tc.mode)
		_, err := checkTOML(t, configTOML(map[string]string{"log.witness_policy": `"` + p + `"`}))
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s, mode %04o: %v", tc.url, tc.mode, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), "config log.witness_policy "+p+": "+tc.want) ||
			strings.Contains(err.Error(), "s3cret") || strings.Contains(err.Error(), "t0ken")):
			t.Errorf("%s, mode %04o: %v; want %q", tc.url, tc.mode, err, tc.want)
		}
	}
}

// log.witness_policy owned by a user other than root and rngd's is
// refused, whatever its mode: its owner may write it (chmod it first).
func TestConfigWitnessPolicyOwner(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("chown needs root")
	}
	cosig, _ := witnessVKeys(t, "bailiff.example/witness")
	p := writePolicy(t, "witness bailiff "+cosig+" http://127.0.0.1:7490\nquorum bailiff\n")
	if err := os.Chmod(p, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := checkTOML(t, configTOML(map[string]string{"log.witness_policy": `"` + p + `"`})); err != nil {
		t.Fatalf("owned by root: %v", err)
	}
	if err := os.Chown(p, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	_, err := checkTOML(t, configTOML(map[string]string{"log.witness_policy": `"` + p + `"`}))
	if want := "config log.witness_policy " + p + ": it is owned by uid 65534, neither root nor the user reading it (uid 0)"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("owned by uid 65534: %v; want %q", err, want)
	}
}

// log.witness_policy in a directory group or others may write is refused:
// they could swap the file for a policy naming a witness of their own.
func TestConfigWitnessPolicyDirectory(t *testing.T) {
	cosig, _ := witnessVKeys(t, "bailiff.example/witness")
	p := writePolicy(t, "witness bailiff "+cosig+" http://127.0.0.1:7490\nquorum bailiff\n")
	dir := filepath.Dir(p)
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(dir, 0o700) })
	_, err := checkTOML(t, configTOML(map[string]string{"log.witness_policy": `"` + p + `"`}))
	if want := "config log.witness_policy " + p + ": its directory " + dir + " has mode 0777: writable by group or others, who could swap the file: chmod go-w it"; err == nil || !strings.HasSuffix(err.Error(), want) {
		t.Errorf("policy in a 0777 directory: %v; want %q", err, want)
	}
}
