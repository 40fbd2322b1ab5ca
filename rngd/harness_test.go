package rngd

import (
	"bytes"
	"context"
	"crypto/tls"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"

	"tirage.fr/tirage/hsm"
	"tirage.fr/tirage/hsm/keystore"
	"tirage.fr/tirage/internal/peertest"
	adminv1 "tirage.fr/tirage/rngd/api/tirage/admin/v1"
	qodv1 "tirage.fr/tirage/rngd/api/tirage/qod/v1"
	"tirage.fr/tirage/rngd/entropy"
	"tirage.fr/tirage/rngd/playstream"
	"tirage.fr/tirage/verifier/vrf"
)

// testClock is the injected clock: tests move it forward, never sleep.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *testClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// testDaemon is a real rngd on loopback: mTLS gRPC on a free port, the admin
// socket, a real tessera log, software keystore, hwrng-backed DRBG.
type testDaemon struct {
	t      testing.TB
	dir    string
	pki    DevPKI
	cfg    Config
	clock  *testClock
	d      *Daemon
	cancel context.CancelFunc
	done   chan error
	logMu  sync.Mutex
	logBuf []byte
}

const testPassphrase = "correct horse battery staple"

// testKDF keeps key sealing cheap in tests (the format and code are the
// production ones; only the Argon2id cost differs).
var testKDF = keystore.KDFParams{Time: 1, MemoryKiB: 8 * 1024, Threads: 1}

// newTestDaemon makes a data directory with a PKI for two game servers
// ("server-a", "server-b") and keys made as rngctl keys init would, then
// starts the daemon.
func newTestDaemon(t testing.TB, mods ...func(*Config)) *testDaemon {
	t.Helper()
	dir := t.TempDir()
	pki, err := GenerateDevPKI(filepath.Join(dir, "pki"), "server-a", "server-b")
	if err != nil {
		t.Fatal(err)
	}
	pass := filepath.Join(dir, "passphrase")
	if err := os.WriteFile(pass, []byte(testPassphrase+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ks, err := keystore.Open(keystore.Config{Dir: filepath.Join(dir, "data", "keys"), Passphrase: []byte(testPassphrase), KDF: testKDF})
	if err != nil {
		t.Fatal(err)
	}
	suite := vrf.DefaultSuite
	if s := os.Getenv("TIRAGE_BENCH_SUITE"); s != "" { // benchmarks of another suite
		suite = vrf.Suite(s)
	}
	if _, err := ks.GenerateVRF("vrf", suite); err != nil {
		t.Fatal(err)
	}
	if _, err := ks.GenerateSigner("log", hsm.Ed25519); err != nil {
		t.Fatal(err)
	}
	ks.Close()
	td := &testDaemon{t: t, dir: dir, pki: pki, clock: &testClock{t: time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)}}
	td.cfg = Config{
		DataDir: filepath.Join(dir, "data"),
		GRPC:    GRPCConfig{Listen: "127.0.0.1:0", CertFile: pki.ServerCert(), KeyFile: pki.ServerKey(), ClientCAFile: pki.CA()},
		Audit:   AuditConfig{Listen: "127.0.0.1:0"},
		HTTP:    HTTPConfig{Listen: "127.0.0.1:0"},
		Keys:    KeysConfig{PassphraseFile: pass, AllowSoftware: true}, // software keys outside dev mode: opt-in
		Log:     LogConfig{BatchMaxAge: Duration{2 * time.Millisecond}},
		Game:    GameConfig{SweepInterval: Duration{maxSweepInterval}}, // tests sweep when they mean to
		Clock:   td.clock,
	}
	td.cfg.Entropy.Sources = testSources(t)
	td.cfg.Logger = slog.New(slog.NewTextHandler(testWriter{t: t, mu: &td.logMu, all: &td.logBuf}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	for _, m := range mods {
		m(&td.cfg)
	}
	if td.cfg.Log.Origin == "" { // log.origin is required outside dev mode
		td.cfg.Log.Origin = devOrigin
	}
	td.start()
	return td
}

// testWriter sends the daemon's WARN and ERROR lines (text or JSON) to the
// test log, and keeps every line (every level) in all, unless all is nil,
// for the no-secrets check.
type testWriter struct {
	t   testing.TB
	mu  *sync.Mutex
	all *[]byte
}

func (w testWriter) Write(p []byte) (int, error) {
	if w.all != nil {
		w.mu.Lock()
		*w.all = append(*w.all, p...)
		w.mu.Unlock()
	}
	if bytes.Contains(p, []byte("level=WARN")) || bytes.Contains(p, []byte("level=ERROR")) ||
		bytes.Contains(p, []byte(`"level":"WARN"`)) || bytes.Contains(p, []byte(`"level":"ERROR"`)) {
		w.t.Log(string(p))
	}
	return len(p), nil
}

// logs returns everything the daemon logged so far.
func (td *testDaemon) logs() []byte {
	td.logMu.Lock()
	defer td.logMu.Unlock()
	return bytes.Clone(td.logBuf)
}

func (td *testDaemon) start() {
	td.t.Helper()
	if err := td.tryStart(); err != nil {
		td.t.Fatal(err)
	}
}

// testDemoScan is how many demo tickets the test daemon looks for an
// imported ticket among at least (engine.demoScan): MaxDemoTickets costs
// seconds per import under the race detector.
const testDemoScan = 1000

// stop shuts the daemon down gracefully (idempotent).
func (td *testDaemon) stop() {
	if td.cancel == nil {
		return
	}
	td.cancel()
	if err := <-td.done; err != nil {
		td.t.Errorf("serve: %v", err)
	}
	td.cancel = nil
}

// snapshotState stops the daemon and returns its state store's path and
// contents (a crash is simulated by writing them back later).
func (td *testDaemon) snapshotState() (string, []byte) {
	td.t.Helper()
	state := filepath.Join(td.cfg.DataDir, "state.db")
	td.stop()
	b, err := os.ReadFile(state)
	if err != nil {
		td.t.Fatal(err)
	}
	return state, b
}

// restart stops the daemon and starts it again on the same data directory.
func (td *testDaemon) restart() {
	td.stop()
	td.start()
}

// client connects as the game server name (a certificate of the test PKI).
func (td *testDaemon) client(name string) qodv1.QuitteOuDoubleClient {
	td.t.Helper()
	return qodv1.NewQuitteOuDoubleClient(td.conn(name))
}

// playClient connects as the game server name, its game calls on a Play
// stream (rngd/playstream).
func (td *testDaemon) playClient(name string) qodv1.QuitteOuDoubleClient {
	td.t.Helper()
	c := playstream.New(td.conn(name))
	td.t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

func (td *testDaemon) conn(name string) *grpc.ClientConn {
	td.t.Helper()
	tc, err := ClientTLS(td.pki.ClientCert(name), td.pki.ClientKey(name), td.pki.CA())
	if err != nil {
		td.t.Fatal(err)
	}
	return td.connTLS(tc)
}

// connTLS connects with the client TLS configuration tc.
func (td *testDaemon) connTLS(tc *tls.Config) *grpc.ClientConn {
	td.t.Helper()
	cc, err := grpc.NewClient(td.d.Addrs().GRPC, grpc.WithTransportCredentials(credentials.NewTLS(tc)))
	if err != nil {
		td.t.Fatal(err)
	}
	td.t.Cleanup(func() { cc.Close() })
	return cc
}

func (td *testDaemon) admin() adminv1.AdminClient {
	td.t.Helper()
	cc, err := grpc.NewClient("unix:"+td.d.Addrs().Admin, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		td.t.Fatal(err)
	}
	td.t.Cleanup(func() { cc.Close() })
	return adminv1.NewAdminClient(cc)
}

// emission registers an emission closing on closure and imports n demo
// tickets; it returns their codes (ticket i has stake Stakes[i%7]).
func (td *testDaemon) emission(id, closure string, n int) []string {
	td.t.Helper()
	ctx := context.Background()
	adm := td.admin()
	if _, err := adm.CreateEmission(ctx, &adminv1.CreateEmissionRequest{RequestId: "em-" + id, EmissionId: id, ClosureDate: closure}); err != nil {
		td.t.Fatal(err)
	}
	codes, tickets := DemoTickets(id, []byte("test seed"), n)
	if _, err := ImportTickets(ctx, adm, "mf-"+id, id, tickets); err != nil {
		td.t.Fatal(err)
	}
	return codes
}

// failStore fails e's state store as the writer does on a refused commit
// (disk full), once what was handed to it is committed: every change is
// then refused STORE_UNAVAILABLE.
func failStore(t *testing.T, e *engine) {
	t.Helper()
	if err := e.store.sync(); err != nil {
		t.Fatal(err)
	}
	e.store.mu.Lock()
	e.store.failed = fmt.Errorf("%w: write state.db: no space left on device", errStoreFailed)
	e.store.mu.Unlock()
}

// testSources are the test daemons' entropy sources: rngd's default
// (nil) where /dev/hwrng can be read, else RDSEED's (peertest.PhysicalSource).
func testSources(t testing.TB) []EntropySource {
	if peertest.PhysicalSource(t) == "hwrng" {
		return nil
	}
	return rdseedSources
}

// rdseedSources is RDSEED in /dev/hwrng's place among rngd's default
// sources (peertest.RDSEEDSourcesTOML in a config file).
var rdseedSources = []EntropySource{{Kind: "rdseed", MinEntropy: 4}, {Kind: "getrandom"}}

// generatorSources are the test daemon's entropy sources (testSources) as
// a generator of the tests' own takes them.
func (td *testDaemon) generatorSources() []entropy.SourceConfig {
	if td.cfg.Entropy.Sources == nil {
		return []entropy.SourceConfig{{Kind: "hwrng", MinEntropy: 4}, {Kind: "getrandom"}}
	}
	var out []entropy.SourceConfig
	for _, s := range td.cfg.Entropy.Sources {
		out = append(out, entropy.SourceConfig{Kind: s.Kind, MinEntropy: s.MinEntropy})
	}
	return out
}

// The RDSEED sources the tests' daemons take where /dev/hwrng cannot be
// read are the same in a config file (peertest.RDSEEDSourcesTOML, for the
// tests that start rngd from one) and here (testSources).
func TestRDSEEDSourcesTOML(t *testing.T) {
	c, err := checkTOML(t, configTOML(nil)+peertest.RDSEEDSourcesTOML)
	if err != nil {
		t.Fatal(err)
	}
	want := rdseedSources
	if len(c.Entropy.Sources) != len(want) {
		t.Fatalf("sources %+v, want %+v", c.Entropy.Sources, want)
	}
	for i, s := range c.Entropy.Sources {
		if s.Kind != want[i].Kind || s.MinEntropy != want[i].MinEntropy {
			t.Errorf("source %d: %+v, want %+v", i, s, want[i])
		}
	}
}
