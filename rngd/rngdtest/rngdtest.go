// Package rngdtest starts a real rngd for the tests of other packages
// (rngctl, the demo): the production components on loopback — mTLS gRPC on
// a free port, the admin socket, the embedded tessera log, a software
// keystore whose keys are made as rngctl keys init makes them, the
// hwrng-seeded DRBG (RDSEED's where this user cannot read /dev/hwrng,
// outside CI: peertest.PhysicalSource) — in a temporary data directory.
package rngdtest

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"tirage.fr/tirage/hsm"
	"tirage.fr/tirage/hsm/keystore"
	"tirage.fr/tirage/internal/peertest"
	"tirage.fr/tirage/rngd"
	"tirage.fr/tirage/verifier/vrf"
)

// Daemon is a running test daemon.
type Daemon struct {
	rngd.Addrs
	PKI            rngd.DevPKI // in DataDir/dev, with a client certificate per name given to Start
	DataDir        string
	PassphraseFile string // the keystore's passphrase (keys.passphrase_file)
	Origin         string // the log's origin (log.origin)
	stop           func()
}

// Stop stops the daemon before the test ends (once; the test's end then
// has nothing left to stop).
func (d *Daemon) Stop() { d.stop() }

// origin is the test daemon's log origin.
const origin = "tirage.fr/dev-log"

// Start starts a daemon that stops when the test ends.
func Start(t testing.TB, clients ...string) *Daemon {
	t.Helper()
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	pki, err := rngd.GenerateDevPKI(filepath.Join(data, "dev"), clients...)
	if err != nil {
		t.Fatal(err)
	}
	const passphrase = "rngdtest passphrase"
	pass := filepath.Join(dir, "passphrase")
	if err := os.WriteFile(pass, []byte(passphrase), 0o600); err != nil {
		t.Fatal(err)
	}
	// Cheap Argon2id: the file format and code are the production ones.
	ks, err := keystore.Open(keystore.Config{Dir: filepath.Join(data, "keys"), Passphrase: []byte(passphrase),
		KDF: keystore.KDFParams{Time: 1, MemoryKiB: 8 * 1024, Threads: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ks.GenerateVRF("vrf", vrf.DefaultSuite); err != nil {
		t.Fatal(err)
	}
	if _, err := ks.GenerateSigner("log", hsm.Ed25519); err != nil {
		t.Fatal(err)
	}
	ks.Close()
	var sources []rngd.EntropySource // rngd's default: /dev/hwrng
	if peertest.PhysicalSource(t) != "hwrng" {
		sources = []rngd.EntropySource{{Kind: "rdseed", MinEntropy: 4}, {Kind: "getrandom"}}
	}
	ctx, cancel := context.WithCancel(context.Background())
	d, err := rngd.Start(ctx, rngd.Config{
		Entropy: rngd.EntropyConfig{Sources: sources},
		DataDir: data,
		GRPC:    rngd.GRPCConfig{Listen: "127.0.0.1:0", CertFile: pki.ServerCert(), KeyFile: pki.ServerKey(), ClientCAFile: pki.CA()},
		Audit:   rngd.AuditConfig{Listen: "127.0.0.1:0"},
		HTTP:    rngd.HTTPConfig{Listen: "off"},
		Keys:    rngd.KeysConfig{PassphraseFile: pass, AllowSoftware: true}, // software keys outside dev mode: opt-in
		Log:     rngd.LogConfig{Origin: origin, BatchMaxAge: rngd.Duration{Duration: 2 * time.Millisecond}},
	})
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- d.Serve(ctx) }()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("rngd: %v", err)
			}
		})
	}
	t.Cleanup(stop)
	return &Daemon{Addrs: d.Addrs(), PKI: pki, DataDir: data, PassphraseFile: pass, Origin: origin, stop: stop}
}
