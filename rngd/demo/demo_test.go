package demo

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

// The demo of make run, against a real daemon on free ports: it plays its
// games and every verification passes; a second run plays new tickets.
func TestDemo(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	pki, err := rngd.GenerateDevPKI(filepath.Join(data, "dev"), "client")
	if err != nil {
		t.Fatal(err)
	}
	pass := filepath.Join(dir, "pass")
	os.WriteFile(pass, []byte("demo test passphrase"), 0o600)
	ks, err := keystore.Open(keystore.Config{Dir: filepath.Join(data, "keys"), Passphrase: []byte("demo test passphrase"),
		KDF: keystore.KDFParams{Time: 1, MemoryKiB: 8 * 1024, Threads: 1}})
	if err != nil {
		t.Fatal(err)
	}
	ks.GenerateVRF("vrf", vrf.DefaultSuite)
	ks.GenerateSigner("log", hsm.Ed25519)
	ks.Close()
	ctx, cancel := context.WithCancel(context.Background())
	d, err := rngd.Start(ctx, rngd.Config{
		DataDir: data,
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
	defer func() { cancel(); <-done }()
	for run := 0; run < 2; run++ {
		var out bytes.Buffer
		err := Run(context.Background(), Config{GRPC: d.Addrs().GRPC, AdminSocket: d.Addrs().Admin, PKI: pki, Client: "client",
			Emission: "DEMO", Closure: "2099-12-31", Tickets: 50, Games: 3, TranscriptDir: filepath.Join(data, "transcripts"), Out: &out})
		if err != nil {
			t.Fatalf("run %d: %v\n%s", run, err, out.String())
		}
		if !strings.Contains(out.String(), "verification summary: 3 games") || strings.Count(out.String(), "VERDICT: every check passed") != 3 {
			t.Fatalf("run %d output:\n%s", run, out.String())
		}
	}
	if m, _ := filepath.Glob(filepath.Join(data, "transcripts", "*.json")); len(m) != 6 {
		t.Fatalf("%d transcripts, want 6", len(m))
	}
}
