package ctl

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"tirage.fr/tirage/hsm"
	"tirage.fr/tirage/hsm/keystore"
	"tirage.fr/tirage/rngd"
	"tirage.fr/tirage/verifier/vrf"
)

// startDaemon runs a real rngd (keys made as rngctl keys init makes them)
// and returns its admin socket.
func startDaemon(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	pki, err := rngd.GenerateDevPKI(filepath.Join(dir, "pki"), "server-a")
	if err != nil {
		t.Fatal(err)
	}
	pass := filepath.Join(dir, "pass")
	os.WriteFile(pass, []byte("ctl test passphrase"), 0o600)
	ks, err := keystore.Open(keystore.Config{Dir: filepath.Join(dir, "data", "keys"), Passphrase: []byte("ctl test passphrase"),
		KDF: keystore.KDFParams{Time: 1, MemoryKiB: 8 * 1024, Threads: 1}})
	if err != nil {
		t.Fatal(err)
	}
	ks.GenerateVRF("vrf", vrf.DefaultSuite)
	ks.GenerateSigner("log", hsm.Ed25519)
	ks.Close()
	ctx, cancel := context.WithCancel(context.Background())
	d, err := rngd.Start(ctx, rngd.Config{
		DataDir: filepath.Join(dir, "data"),
		GRPC:    rngd.GRPCConfig{Listen: "127.0.0.1:0", CertFile: pki.ServerCert(), KeyFile: pki.ServerKey(), ClientCAFile: pki.CA()},
		HTTP:    rngd.HTTPConfig{Listen: "off"},
		Keys:    rngd.KeysConfig{PassphraseFile: pass},
		Log:     rngd.LogConfig{BatchMaxAge: rngd.Duration{Duration: 2 * time.Millisecond}},
	})
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	done := make(chan error)
	go func() { done <- d.Serve(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	return d.Addrs().Admin
}

func rngctl(args ...string) (code int, stdout, stderr string) {
	var o, e bytes.Buffer
	code = Run(context.Background(), Env{Args: args, Stdin: strings.NewReader(""), Stdout: &o, Stderr: &e})
	return code, o.String(), e.String()
}

func TestEmissionCommands(t *testing.T) {
	sock := startDaemon(t)
	dir := t.TempDir()
	manifest, codes := filepath.Join(dir, "m.csv"), filepath.Join(dir, "codes.txt")
	for _, tc := range []struct {
		args   []string
		code   int
		output string
	}{
		{[]string{"emission"}, ExitUsage, "subcommand is required"},
		{[]string{"emission", "create", "--socket", sock, "--id", "E1"}, ExitUsage, "--closure is required"},
		{[]string{"emission", "create", "--socket", sock, "--id", "E1", "--closure", "2026-02-30"}, ExitFail, "closure_date"},
		{[]string{"emission", "create", "--socket", sock, "--id", "bad id", "--closure", "2026-12-01"}, ExitFail, "emission_id"},
		{[]string{"emission", "create", "--socket", filepath.Join(dir, "none.sock"), "--id", "E1", "--closure", "2026-12-01"}, ExitFail, "is rngd running"},
		{[]string{"emission", "create", "--socket", sock, "--id", "E1", "--closure", "2026-12-01"}, ExitOK, "stage 2 may start until 2026-12-30T23:00:00Z"},
		// The same command again returns the same result (same request id).
		{[]string{"emission", "create", "--socket", sock, "--id", "E1", "--closure", "2026-12-01"}, ExitOK, "stage 2 may start until 2026-12-30T23:00:00Z"},
		{[]string{"emission", "create", "--socket", sock, "--id", "E1", "--closure", "2026-12-02", "--request-id", "x"}, ExitFail, "already registered"},
		{[]string{"emission", "demo-manifest", "--id", "E1", "--count", "50", "--manifest", manifest, "--codes", codes}, ExitOK, "50 tickets"},
		{[]string{"emission", "import", "--socket", sock, "--id", "E2", "--manifest", manifest}, ExitFail, "belongs to emission"},
		{[]string{"emission", "import", "--socket", sock, "--id", "E1", "--manifest", manifest}, ExitOK, "50 tickets, root"},
		{[]string{"emission", "import", "--socket", sock, "--id", "E1", "--manifest", manifest, "--request-id", "again"}, ExitFail, "already imported"},
		{[]string{"emission", "list", "--socket", sock}, ExitOK, "E1\tclosure 2026-12-01"},
		{[]string{"qod", "status", "--socket", sock}, ExitOK, "unfinished games 0"},
		{[]string{"qod", "show", "--socket", sock, "--game", "nope"}, ExitFail, "no game"},
		{[]string{"qod", "refund", "--socket", sock, "--game", "nope"}, ExitUsage, "--reason are required"},
		{[]string{"qod", "sweep", "--socket", sock}, ExitOK, "0 expired games ended"},
		{[]string{"state"}, ExitUsage, "rebuild"},
	} {
		code, out, errOut := rngctl(tc.args...)
		if code != tc.code || !strings.Contains(out+errOut, tc.output) {
			t.Errorf("rngctl %s: exit %d, %q %q; want %d and %q", strings.Join(tc.args, " "), code, out, errOut, tc.code, tc.output)
		}
	}
}
