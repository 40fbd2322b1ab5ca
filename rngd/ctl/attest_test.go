package ctl

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"tirage.fr/tirage/internal/peertest"
	"tirage.fr/tirage/rngd"
	"tirage.fr/tirage/verifier/record"
)

// attestDaemon is the appliance as an operator sets it up: rngctl keys
// init makes the keys (the attestation key included) and their
// announcement, and rngd starts from a configuration file naming them. It
// returns the keystore, its passphrase file, the configuration file and
// the admin socket.
func attestDaemon(t *testing.T) (keys, pass, config, sock string) {
	t.Helper()
	fixClock(t)
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	keys, pass = filepath.Join(data, "keys"), filepath.Join(dir, "pass")
	if err := os.Mkdir(data, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pass, []byte("attest test passphrase\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ann := filepath.Join(dir, "announcement.json")
	if code, out, errOut := rngctl("keys", "init", "--backend", "software", "--allow-software", "--dir", keys, "--passphrase-file", pass, "--announcement", ann,
		"--kdf-time", "1", "--kdf-memory-mib", "8", "--kdf-threads", "1"); code != ExitOK {
		t.Fatalf("keys init: exit %d\n%s%s", code, out, errOut)
	}
	pki, err := rngd.GenerateDevPKI(filepath.Join(dir, "pki"))
	if err != nil {
		t.Fatal(err)
	}
	config = filepath.Join(dir, "rngd.toml")
	toml := fmt.Sprintf(`data_dir = %q
[grpc]
listen = "127.0.0.1:0"
cert_file = %q
key_file = %q
client_ca_file = %q
[audit]
listen = "127.0.0.1:0"
[http]
listen = "off"
[keys]
passphrase_file = %q
allow_software = true
announcement_file = %q
[log]
origin = "tirage.fr/attest-test"
batch_max_age = "2ms"
`, data, pki.ServerCert(), pki.ServerKey(), pki.CA(), pass, ann)
	toml += peertest.SourcesTOML(t)
	if err := os.WriteFile(config, []byte(toml), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := rngd.ConfigFromFlags(config, false)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	d, err := rngd.Start(ctx, cfg)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- d.Serve(ctx) }()
	var once sync.Once
	t.Cleanup(func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("rngd: %v", err)
			}
		})
	})
	return keys, pass, config, d.Addrs().Admin
}

// The ceremony's keys sign the paytable and the running rngd's build,
// which rngd logs; a build of another binary is signed but refused by
// rngd; outputs are never overwritten; exit codes as documented.
func TestAttestCommands(t *testing.T) {
	keys, pass, config, sock := attestDaemon(t)
	dir := t.TempDir()
	paytable, build, other := filepath.Join(dir, "paytable.dsse.json"), filepath.Join(dir, "build.dsse.json"), filepath.Join(dir, "other.dsse.json")
	self, err := os.Executable() // the running rngd is this test binary
	if err != nil {
		t.Fatal(err)
	}
	// Another binary: the same build information, other bytes.
	otherBinary := filepath.Join(dir, "rngd-other")
	b, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(otherBinary, append(b, 0), 0o755); err != nil {
		t.Fatal(err)
	}
	tampered := filepath.Join(dir, "tampered.dsse.json")
	notEnvelope := filepath.Join(dir, "not.json")
	if err := os.WriteFile(notEnvelope, []byte(`{"kind":"emission"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	custody := []string{"--backend", "software", "--allow-software", "--dir", keys, "--passphrase-file", pass}
	tamper := func() {
		// The paytable with its payload changed under its signature.
		b, err := os.ReadFile(paytable)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(tampered, []byte(strings.Replace(string(b), `"payload":"ey`, `"payload":"eY`, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var logged string // the first attest log of the paytable's output
	for i, tc := range []struct {
		args   []string
		code   int
		output string
		before func()
	}{
		{[]string{"attest"}, ExitUsage, "usage: rngctl attest", nil},
		{[]string{"attest", "paytable"}, ExitUsage, "--out FILE is required", nil},
		// A stray argument may be the passphrase, typed where its file belongs.
		{[]string{"attest", "paytable", "--out", paytable, "hunter2"}, ExitUsage, "1 unexpected argument(s), not shown", nil},
		{append([]string{"attest", "paytable", "--out", paytable}, custody...), ExitOK, "qod/paytable attestation", nil},
		{append([]string{"attest", "paytable", "--out", paytable}, custody...), ExitUsage, "--out " + paytable + " exists: it is never overwritten", nil},
		{append([]string{"attest", "paytable", "--out", filepath.Join(dir, "p2"), "--attestation-label", "nope"}, custody...), ExitFail, `"nope"`, nil},
		{[]string{"attest", "log", "--socket", sock, paytable}, ExitOK, "attestation logged: qod/paytable", nil},
		// Again: a retry, the same reply (checked below).
		{[]string{"attest", "log", "--socket", sock, paytable}, ExitOK, "attestation logged: qod/paytable", nil},
		{[]string{"attest", "log", "--socket", sock}, ExitUsage, "log takes one attestation FILE", nil},
		{[]string{"attest", "log", "--socket", sock, filepath.Join(dir, "none")}, ExitFail, "no such file", nil},
		{[]string{"attest", "log", "--socket", sock, notEnvelope}, ExitUsage, "bad attestation: envelope", nil},
		{[]string{"attest", "log", "--socket", sock, tampered}, ExitFail, "signatures[0].sig", tamper},
		{append([]string{"attest", "build", "--config", config, "--out", build}, custody...), ExitUsage, "--binary PATH", nil},
		{append([]string{"attest", "build", "--binary", self, "--out", build}, custody...), ExitUsage, "--config PATH", nil},
		{append([]string{"attest", "build", "--binary", config, "--config", config, "--out", build}, custody...), ExitFail, "no Go build information", nil},
		{append([]string{"attest", "build", "--binary", self, "--config", config, "--out", build}, custody...), ExitOK, "rngd/build attestation", nil},
		{[]string{"attest", "log", "--socket", sock, build}, ExitOK, "attestation logged: rngd/build", nil},
		{append([]string{"attest", "build", "--binary", otherBinary, "--config", config, "--out", other}, custody...), ExitOK, "rngd/build attestation", nil},
		{[]string{"attest", "log", "--socket", sock, other}, ExitFail, "subject[0].digest.sha256", nil},
	} {
		if tc.before != nil {
			tc.before()
		}
		code, out, errOut := rngctl(tc.args...)
		if code != tc.code || !strings.Contains(out+errOut, tc.output) {
			t.Errorf("rngctl %s: exit %d, %q %q; want %d and %q", strings.Join(tc.args, " "), code, out, errOut, tc.code, tc.output)
		}
		switch i {
		case 6:
			logged = out
		case 7:
			if out != logged {
				t.Errorf("attest log retried: %q, want the first reply %q", out, logged)
			}
		}
	}
	// The record printed is the log's attestation record of the envelope.
	line, ok := strings.CutPrefix(strings.Split(logged, "\n")[1], "record: ")
	if !ok {
		t.Fatalf("no record line in %q", logged)
	}
	r, err := record.Parse([]byte(line))
	if err != nil {
		t.Fatal(err)
	}
	env, err := os.ReadFile(paytable)
	if err != nil {
		t.Fatal(err)
	}
	if a, ok := r.(*record.Attestation); !ok || string(a.Statement)+"\n" != string(env) || a.Key != "attestation" {
		t.Fatalf("record %s is not the attestation of %s", line, paytable)
	}
}
