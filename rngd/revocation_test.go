package rngd

import (
	"context"
	"crypto"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	qodv1 "tirage.fr/tirage/rngd/api/tirage/qod/v1"
)

// testCRLPoll is how often the tests' daemons read grpc.client_crl_file.
const testCRLPoll = 10 * time.Millisecond

// crlIssuer issues CRLs: the test PKI's CA, or another.
type crlIssuer struct {
	ca  *x509.Certificate
	key crypto.Signer
}

// pkiIssuer is the CA of the dev PKI in dir.
func pkiIssuer(t testing.TB, dir string) crlIssuer {
	t.Helper()
	ca, key, err := loadCA(DevPKI{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	return crlIssuer{ca, key}
}

// crlPEM is a CRL of iss, number n, issued at this, next update a week
// later, revoking certs.
func (iss crlIssuer) crlPEM(t testing.TB, n int64, this time.Time, certs ...*x509.Certificate) []byte {
	t.Helper()
	tmpl := &x509.RevocationList{Number: big.NewInt(n), ThisUpdate: this, NextUpdate: this.Add(7 * 24 * time.Hour)}
	for _, c := range certs {
		tmpl.RevokedCertificateEntries = append(tmpl.RevokedCertificateEntries, x509.RevocationListEntry{SerialNumber: c.SerialNumber, RevocationTime: this})
	}
	der, err := x509.CreateRevocationList(rand.Reader, tmpl, iss.ca, iss.key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "X509 CRL", Bytes: der})
}

// anotherCA is a CA named "Another CA": the key of the dev PKI in dir,
// self-signed.
func anotherCA(t testing.TB, dir string) crlIssuer {
	t.Helper()
	return newCA(t, "Another CA", pkiIssuer(t, dir).key, crlIssuer{})
}

// newCA is a CA named cn of key key, issued by parent; self-signed when
// parent has no CA.
func newCA(t testing.TB, cn string, key crypto.Signer, parent crlIssuer) crlIssuer {
	t.Helper()
	tmpl := leafTemplate(cn)
	tmpl.IsCA, tmpl.BasicConstraintsValid, tmpl.KeyUsage = true, true, x509.KeyUsageCertSign|x509.KeyUsageCRLSign
	if parent.ca == nil {
		parent = crlIssuer{tmpl, key}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent.ca, key.Public(), parent.key)
	if err != nil {
		t.Fatal(err)
	}
	ca, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return crlIssuer{ca, key}
}

// replaceFile puts b at path as an operator would: a new file renamed over
// the old one.
func replaceFile(t testing.TB, path string, b []byte) {
	t.Helper()
	tmp := path + ".new"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// clientCert is the dev PKI's certificate of the game server name.
func clientCert(t testing.TB, p DevPKI, name string) *x509.Certificate {
	t.Helper()
	b, err := os.ReadFile(p.ClientCert(name))
	if err != nil {
		t.Fatal(err)
	}
	blk, _ := pem.Decode(b)
	c, err := x509.ParseCertificate(blk.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// withCRL sets grpc.client_crl_file: a CRL of the test PKI's CA, number n,
// issued an hour before the daemon's clock, revoking the game servers
// named (read every testCRLPoll).
func withCRL(t testing.TB, n int64, revoked ...string) func(*Config) {
	return func(c *Config) {
		dir := filepath.Dir(c.GRPC.ClientCAFile)
		var certs []*x509.Certificate
		for _, name := range revoked {
			certs = append(certs, clientCert(t, DevPKI{Dir: dir}, name))
		}
		c.GRPC.ClientCRLFile = filepath.Join(dir, "crl.pem")
		replaceFile(t, c.GRPC.ClientCRLFile, pkiIssuer(t, dir).crlPEM(t, n, c.Clock.Now().Add(-time.Hour), certs...))
		c.crlPoll = testCRLPoll
	}
}

// eventually waits (at most 10 s) for cond.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(testCRLPoll / 2) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not after 10 s", what)
		}
	}
}

// crlAlarms is tirage_alarms_total{component="crl"}.
func crlAlarms(td *testDaemon) float64 {
	return counterValue(td.d.engine.metrics.alarms.WithLabelValues("crl"))
}

// wantHandshakeRefused checks that a new connection of the game server
// name is refused at its handshake: the client sees UNAVAILABLE without a
// reason of rngd's, and the refusal is counted.
func wantHandshakeRefused(t *testing.T, td *testDaemon, name string) {
	t.Helper()
	before, _ := counterOf(t, td, "tirage_client_crl_handshakes_refused_total")
	_, err := td.client(name).ListUnfinishedGames(context.Background(), &qodv1.ListUnfinishedGamesRequest{})
	if status.Code(err) != codes.Unavailable || RefusalReason(err) != "" {
		t.Fatalf("%s, revoked, on a new connection: %v, want UNAVAILABLE from the handshake", name, err)
	}
	if after, _ := counterOf(t, td, "tirage_client_crl_handshakes_refused_total"); after <= before {
		t.Errorf("tirage_client_crl_handshakes_refused_total: %v -> %v, want more", before, after)
	}
}

// counterOf is the value of a counter of the daemon's metrics, the sum of
// its series.
func counterOf(t *testing.T, td *testDaemon, name string) (float64, bool) {
	t.Helper()
	mf := metricFamily(t, td, name)
	var n float64
	for _, m := range mf.GetMetric() {
		n += m.GetCounter().GetValue()
	}
	return n, mf != nil
}

// A certificate grpc.client_crl_file revokes is refused at the TLS
// handshake; the other game servers play on.
func TestCRLRevokedAtHandshake(t *testing.T) {
	td := newTestDaemon(t, withCRL(t, 1, "server-b"))
	codes1 := td.emission("CRL", "2026-12-31", 4)
	start(t, td.client("server-a"), codes1[0])
	wantHandshakeRefused(t, td, "server-b")

	// What a game server's TLS stack reads: the server's bad_certificate
	// alert (TLS 1.3: the client's handshake is over when the server
	// checks its certificate, so it comes with the first read).
	tc, err := ClientTLS(td.pki.ClientCert("server-b"), td.pki.ClientKey("server-b"), td.pki.CA())
	if err != nil {
		t.Fatal(err)
	}
	tc.NextProtos = []string{"h2"}
	conn, err := tls.Dial("tcp", td.d.Addrs().GRPC, tc)
	if err == nil {
		_, err = conn.Read(make([]byte, 1))
		conn.Close()
	}
	if err == nil || !strings.Contains(err.Error(), "bad certificate") {
		t.Errorf("revoked certificate's TLS connection: %v, want a bad certificate alert", err)
	}
	if a, _ := gaugeValue(t, td, "tirage_client_crl_refused"); a != 0 || crlAlarms(td) != 0 {
		t.Errorf("a CRL taken raised the alarm (refused %v, alarms %v)", a, crlAlarms(td))
	}
}

// A CRL in force that revokes a certificate after its connection's
// handshake, the connection not closed yet (closeRevoked runs just after
// the CRL is taken; here it is held back): the connection's calls are
// refused UNAUTHENTICATED CERT_REVOKED, and change nothing; the other game
// servers play on. closeRevoked then closes it.
func TestCRLRevokesOpenConnection(t *testing.T) {
	td := newTestDaemon(t, withCRL(t, 1))
	ctx := context.Background()
	codes1 := td.emission("CRL", "2026-12-31", 4)
	a, b := td.client("server-a"), td.client("server-b")
	g := start(t, b, codes1[0]).Game
	start(t, a, codes1[1])

	// A TLS session of server-b's, to resume once it is revoked.
	tc, err := ClientTLS(td.pki.ClientCert("server-b"), td.pki.ClientKey("server-b"), td.pki.CA())
	if err != nil {
		t.Fatal(err)
	}
	tc.NextProtos, tc.ClientSessionCache = []string{"h2"}, tls.NewLRUClientSessionCache(1)
	dialRead := func() (tls.ConnectionState, error) {
		conn, err := tls.Dial("tcp", td.d.Addrs().GRPC, tc)
		if err != nil {
			return tls.ConnectionState{}, err
		}
		defer conn.Close()
		_, err = conn.Read(make([]byte, 1)) // the server's first frame, after its session ticket
		return conn.ConnectionState(), err
	}
	if _, err := dialRead(); err != nil {
		t.Fatal(err)
	}

	// The CRL in force first, the file after: the watch finds the file
	// holds the CRLs in force, and closes nothing.
	crl := pkiIssuer(t, td.pki.Dir).crlPEM(t, 2, td.clock.Now(), clientCert(t, td.pki, "server-b"))
	c, err := parseCRLs(crl, td.d.crl.cas)
	if err != nil {
		t.Fatal(err)
	}
	td.d.crl.cur.Store(c)
	replaceFile(t, td.cfg.GRPC.ClientCRLFile, crl)
	_, err = b.GetGame(ctx, &qodv1.GetGameRequest{GameId: g.GameId})
	wantRefusal(t, err, reasonCertRevoked, "revoked")
	before, err := td.d.engine.getGame("server-b", g.GameId)
	if err != nil {
		t.Fatal(err)
	}
	draws, _ := counterOf(t, td, "tirage_draws_total")
	refusedFor(t, td, reasonCertRevoked, "revoked", func() error {
		_, err := b.Pick(ctx, &qodv1.PickRequest{RequestId: rid(), GameId: g.GameId, Number: 7})
		return err
	})
	after, err := td.d.engine.getGame("server-b", g.GameId)
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := counterOf(t, td, "tirage_draws_total"); !proto.Equal(before, after) || n != draws {
		t.Fatalf("the refused pick changed the game or drew:\nbefore %v\nafter  %v", before, after)
	}
	_, err = b.StartGame(ctx, &qodv1.StartGameRequest{RequestId: rid(), Code: codes1[2]})
	wantRefusal(t, err, reasonCertRevoked, "revoked")
	// The refusals came on the connection opened before: none was a new
	// handshake.
	if n, _ := counterOf(t, td, "tirage_client_crl_handshakes_refused_total"); n != 0 {
		t.Errorf("%v handshakes refused, want the calls on the open connection", n)
	}
	start(t, a, codes1[2])
	if n := td.d.crl.closeRevoked(); n != 1 {
		t.Errorf("closeRevoked closed %d connections, want server-b's", n)
	}
	if _, err := b.GetGame(ctx, &qodv1.GetGameRequest{GameId: g.GameId}); status.Code(err) != codes.Unavailable {
		t.Errorf("server-b's connection closed, then a call: %v, want UNAVAILABLE", err)
	}
	wantHandshakeRefused(t, td, "server-b")
	// A resumed session is checked as a full handshake.
	if cs, err := dialRead(); !cs.DidResume || err == nil || !strings.Contains(err.Error(), "bad certificate") {
		t.Errorf("revoked certificate's resumed session: resumed %v, %v; want a bad certificate alert", cs.DidResume, err)
	}
}

// A connection whose certificate a CRL revokes after its handshake is
// closed when the CRL is taken: a stream it kept open (a health Watch)
// ends, and its grpc.max_connections slot is freed. They stayed open: calls
// were refused CERT_REVOKED, but a Watch went on, and whoever held a leaked
// key and had opened every slot before the revocation kept them all (a call
// every few minutes keeps a connection from idling out), the other game
// servers locked out until a restart.
func TestCRLClosesRevokedConnections(t *testing.T) {
	td := newTestDaemon(t, withCRL(t, 1), func(c *Config) { c.GRPC.MaxConnections = 1 })
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ended := openWatch(t, ctx, td.conn("server-b"))
	replaceFile(t, td.cfg.GRPC.ClientCRLFile, pkiIssuer(t, td.pki.Dir).crlPEM(t, 2, td.clock.Now(), clientCert(t, td.pki, "server-b")))
	wantWatchClosed(t, ended, "the revoked connection")
	// Its slot, the only one, is free for server-a.
	actx, acancel := context.WithTimeout(ctx, 10*time.Second)
	defer acancel()
	if _, err := td.client("server-a").ListUnfinishedGames(actx, &qodv1.ListUnfinishedGamesRequest{}, grpc.WaitForReady(true)); err != nil {
		t.Errorf("server-a, grpc.max_connections 1, after server-b's connection was revoked: %v", err)
	}
	if !strings.Contains(string(td.logs()), "connections_closed=1") {
		t.Errorf("the CRL's log line does not say it closed one connection")
	}
}

// openWatch opens a health Watch on conn, and returns the error it ends
// with once it does.
func openWatch(t *testing.T, ctx context.Context, conn grpc.ClientConnInterface) <-chan error {
	t.Helper()
	w, err := healthpb.NewHealthClient(conn).Watch(ctx, &healthpb.HealthCheckRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Recv(); err != nil {
		t.Fatal(err)
	}
	ended := make(chan error, 1)
	go func() {
		for {
			if _, err := w.Recv(); err != nil {
				ended <- err
				return
			}
		}
	}()
	return ended
}

// wantWatchClosed waits, at most 10 s, for the Watch of openWatch that
// ends to end UNAVAILABLE: its connection, what's, closed.
func wantWatchClosed(t *testing.T, ended <-chan error, what string) {
	t.Helper()
	select {
	case err := <-ended:
		if status.Code(err) != codes.Unavailable {
			t.Errorf("%s's Watch ended with %v, want UNAVAILABLE (connection closed)", what, err)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("%s's health Watch still open 10 s after the CRL", what)
	}
}

// A replacement CRL that is refused (not a CRL, not the CA's, older than
// the one in force: a lower CRL number, or the same number and an earlier
// thisUpdate) leaves the one in force, raises the alarm and is
// logged; the file is read again, and a good CRL is taken.
func TestCRLBadReplacementKeepsOld(t *testing.T) {
	td := newTestDaemon(t, withCRL(t, 2, "server-b"))
	iss := pkiIssuer(t, td.pki.Dir)
	other, err := GenerateDevPKI(t.TempDir()) // a CA of the same name, another key
	if err != nil {
		t.Fatal(err)
	}
	now := td.clock.Now()
	for _, c := range []struct {
		name, want string
		b          []byte
	}{
		{"garbage", "not a CRL", []byte("not a crl")},
		{"lower number", "lower than the one in force", iss.crlPEM(t, 1, now)},
		{"same number, earlier thisUpdate", "before the one in force", iss.crlPEM(t, 2, now.Add(-2*time.Hour))},
		{"another key", "signature does not verify", pkiIssuer(t, other.Dir).crlPEM(t, 3, now)},
	} {
		before := crlAlarms(td)
		replaceFile(t, td.cfg.GRPC.ClientCRLFile, c.b)
		eventually(t, c.name+": alarm", func() bool { return crlAlarms(td) == before+1 })
		if v, _ := gaugeValue(t, td, "tirage_client_crl_refused"); v != 1 {
			t.Errorf("%s: tirage_client_crl_refused %v, want 1", c.name, v)
		}
		if !strings.Contains(string(td.logs()), c.want) {
			t.Errorf("%s: no log line saying %q", c.name, c.want)
		}
		wantHandshakeRefused(t, td, "server-b")
		if _, err := td.client("server-a").ListUnfinishedGames(context.Background(), &qodv1.ListUnfinishedGamesRequest{}); err != nil {
			t.Errorf("%s: server-a: %v", c.name, err)
		}
		// Read again and again, it is refused once, not every time.
		time.Sleep(3 * testCRLPoll)
		if got := crlAlarms(td); got != before+1 {
			t.Errorf("%s: %v alarms, want one", c.name, got-before)
		}
	}
	replaceFile(t, td.cfg.GRPC.ClientCRLFile, iss.crlPEM(t, 3, now))
	eventually(t, "a good CRL taken", func() bool {
		v, _ := gaugeValue(t, td, "tirage_client_crl_refused")
		return v == 0
	})
	if _, err := td.client("server-b").ListUnfinishedGames(context.Background(), &qodv1.ListUnfinishedGamesRequest{}); err != nil {
		t.Errorf("server-b, no longer revoked: %v", err)
	}
}

// rememberedNumber waits for td's data directory to remember, of the test
// PKI's CA, the CRL number n.
func rememberedNumber(t *testing.T, td *testDaemon, n int64) {
	t.Helper()
	path := filepath.Join(td.cfg.DataDir, crlStateFile)
	eventually(t, fmt.Sprintf("CRL number %d remembered", n), func() bool {
		ms, _, err := loadCRLState(path)
		return err == nil && len(ms) == 1 && ms[0].number != nil && ms[0].number.Int64() == n
	})
}

// wantStartRefused checks that td does not start, with one line naming
// grpc.client_crl_file and each of want.
func wantStartRefused(t *testing.T, td *testDaemon, name string, want ...string) {
	t.Helper()
	err := td.tryStart()
	if err == nil {
		td.stop()
		t.Errorf("%s: started", name)
		return
	}
	msg := err.Error()
	if !strings.Contains(msg, "grpc.client_crl_file") || strings.Contains(msg, "\n") {
		t.Errorf("%s: %q, want one line naming grpc.client_crl_file", name, msg)
	}
	for _, w := range want {
		if !strings.Contains(msg, w) {
			t.Errorf("%s: %q, want it to say %q", name, msg, w)
		}
	}
}

// The newest CRL taken is remembered in the data directory: a restart on
// an older CRL file is refused, as a running rngd refuses it; the same CRL
// or a newer one starts. The start took whatever the file held: whoever
// could replace the file could lift a revocation by putting an older CRL
// back and waiting for, or causing, a restart.
func TestCRLRememberedAcrossRestart(t *testing.T) {
	td := newTestDaemon(t, withCRL(t, 3, "server-b"))
	state := filepath.Join(td.cfg.DataDir, crlStateFile)
	nothingRemembered := "rngd remembers no CRL taken before"
	if n := strings.Count(string(td.logs()), nothingRemembered); n != 1 {
		t.Errorf("first start with a CRL file: %d warnings %q, want 1", n, nothingRemembered)
	}
	rememberedNumber(t, td, 3)
	td.stop()
	iss := pkiIssuer(t, td.pki.Dir)
	now := td.clock.Now()
	same, err := os.ReadFile(td.cfg.GRPC.ClientCRLFile)
	if err != nil {
		t.Fatal(err)
	}

	replaceFile(t, td.cfg.GRPC.ClientCRLFile, iss.crlPEM(t, 2, now)) // revokes nothing
	wantStartRefused(t, td, "a lower CRL number", "lower than the newest rngd took (3)", state, "delete "+crlStateFile)
	replaceFile(t, td.cfg.GRPC.ClientCRLFile, iss.crlPEM(t, 3, now.Add(-2*time.Hour)))
	wantStartRefused(t, td, "the same number, issued earlier", "before the newest rngd took")

	replaceFile(t, td.cfg.GRPC.ClientCRLFile, same)
	td.start()
	wantHandshakeRefused(t, td, "server-b")
	td.stop()
	replaceFile(t, td.cfg.GRPC.ClientCRLFile, iss.crlPEM(t, 4, now, clientCert(t, td.pki, "server-a")))
	td.start()
	rememberedNumber(t, td, 4)
	wantHandshakeRefused(t, td, "server-a")
	if n := strings.Count(string(td.logs()), nothingRemembered); n != 1 {
		t.Errorf("restarts with the CRLs remembered: %d warnings %q in all, want the first start's", n, nothingRemembered)
	}
	td.stop()

	// The documented way back: delete the memory.
	replaceFile(t, td.cfg.GRPC.ClientCRLFile, iss.crlPEM(t, 1, now))
	if err := os.Remove(state); err != nil {
		t.Fatal(err)
	}
	td.start()
	rememberedNumber(t, td, 1)
	if n := strings.Count(string(td.logs()), nothingRemembered); n != 2 {
		t.Errorf("a start after the memory was deleted: %d warnings %q in all, want 2", n, nothingRemembered)
	}
}

// A memory of the CRLs taken that does not read whole and well refuses the
// start, naming the file: taking the file's CRLs would forget it, and with
// it the refusal of an older CRL.
func TestCRLMemoryDamaged(t *testing.T) {
	td := newTestDaemon(t, withCRL(t, 1))
	rememberedNumber(t, td, 1)
	td.stop()
	state := filepath.Join(td.cfg.DataDir, crlStateFile)
	good, err := os.ReadFile(state)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, content, want string
	}{
		{"empty", "", "not a CRL memory"},
		{"cut short", string(good[:len(good)/2]), "not a CRL memory"},
		{"garbage", "\x00\x01garbage", "not a CRL memory"},
		{"two documents", string(good) + string(good), "more after it"},
		{"unknown field", strings.Replace(string(good), `"crls"`, `"crl"`, 1), "unknown field"},
		{"another format", strings.Replace(string(good), `"format": 2`, `"format": 3`, 1), "format 3, not 2 or 1"},
		{"a key in format 1", strings.Replace(string(good), `"format": 2`, `"format": 1`, 1), "a key in format 1"},
		{"bad key", strings.Replace(string(good), `"key": "`, `"key": "AAAA`, 1), "not a SHA-256"},
		{"bad number", strings.Replace(string(good), `"number": "1"`, `"number": "-1"`, 1), "not a CRL number"},
		{"bad issuer", strings.Replace(string(good), `"issuer": "`, `"issuer": "AAAA`, 1), "not a DER name"},
	} {
		if c.content == string(good) {
			t.Fatalf("%s: the memory unchanged", c.name)
		}
		if err := os.WriteFile(state, []byte(c.content), 0o600); err != nil {
			t.Fatal(err)
		}
		wantStartRefused(t, td, c.name, state, "is damaged", c.want)
	}
	if err := os.WriteFile(state, good, 0o600); err != nil {
		t.Fatal(err)
	}
	td.start()
}

// A CRL issued in the future (a CA whose clock was ahead) is taken, with
// an alarm; the correct CRL after it, of a higher CRL number but an earlier
// thisUpdate, replaces it. It was refused as older, and every later one
// with it, until rngd's clock passed the first one's thisUpdate: a
// revocation made meanwhile did not take effect.
func TestCRLFutureThenNumbered(t *testing.T) {
	td := newTestDaemon(t, withCRL(t, 1))
	iss := pkiIssuer(t, td.pki.Dir)
	now := td.clock.Now()
	before := crlAlarms(td)
	replaceFile(t, td.cfg.GRPC.ClientCRLFile, iss.crlPEM(t, 2, now.AddDate(0, 1, 0)))
	rememberedNumber(t, td, 2)
	eventually(t, "the alarm of a CRL issued in the future", func() bool { return crlAlarms(td) == before+1 })
	if !strings.Contains(string(td.logs()), "issued in the future") {
		t.Errorf("no log line saying the CRL was issued in the future")
	}
	replaceFile(t, td.cfg.GRPC.ClientCRLFile, iss.crlPEM(t, 3, now, clientCert(t, td.pki, "server-b")))
	rememberedNumber(t, td, 3)
	wantHandshakeRefused(t, td, "server-b")
	if v, _ := gaugeValue(t, td, "tirage_client_crl_refused"); v != 0 || crlAlarms(td) != before+1 {
		t.Errorf("the correct CRL after one from the future: refused %v, %v alarms, want taken without one", v, crlAlarms(td)-before)
	}
	// A CRL a little ahead (clocks a minute apart) raises no alarm.
	replaceFile(t, td.cfg.GRPC.ClientCRLFile, iss.crlPEM(t, 4, now.Add(time.Minute)))
	rememberedNumber(t, td, 4)
	time.Sleep(3 * testCRLPoll)
	if crlAlarms(td) != before+1 {
		t.Errorf("a CRL a minute ahead: %v alarms, want none", crlAlarms(td)-before-1)
	}
}

// A CRL past its nextUpdate stays in force (its revocations hold), with an
// alarm, until a newer one replaces it.
func TestCRLStale(t *testing.T) {
	td := newTestDaemon(t, withCRL(t, 1, "server-b"))
	eventually(t, "not stale", func() bool {
		v, ok := gaugeValue(t, td, "tirage_client_crl_stale")
		return ok && v == 0
	})
	td.clock.Advance(8 * 24 * time.Hour)
	eventually(t, "stale", func() bool {
		v, _ := gaugeValue(t, td, "tirage_client_crl_stale")
		return v == 1
	})
	if crlAlarms(td) != 1 || !strings.Contains(string(td.logs()), "past its next update") {
		t.Errorf("stale CRL: %v alarms, want 1, and a log line", crlAlarms(td))
	}
	wantHandshakeRefused(t, td, "server-b")
	replaceFile(t, td.cfg.GRPC.ClientCRLFile, pkiIssuer(t, td.pki.Dir).crlPEM(t, 2, td.clock.Now(), clientCert(t, td.pki, "server-b")))
	eventually(t, "fresh", func() bool {
		v, _ := gaugeValue(t, td, "tirage_client_crl_stale")
		return v == 0
	})
}

// A grpc.client_crl_file that cannot be taken refuses the start, with one
// line naming the key and the cause.
func TestCRLStartRefused(t *testing.T) {
	td := newTestDaemon(t)
	td.stop()
	other, err := GenerateDevPKI(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	now := td.clock.Now()
	otherName := anotherCA(t, other.Dir)
	caPEM, err := os.ReadFile(td.pki.CA())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, want string
		b          []byte
		mode       os.FileMode
	}{
		{"another key", "signature does not verify", pkiIssuer(t, other.Dir).crlPEM(t, 1, now), 0o644},
		{"another CA", "no CA of grpc.client_ca_file has that name", otherName.crlPEM(t, 1, now), 0o644},
		{"a certificate", `"CERTIFICATE", not an X509 CRL`, caPEM, 0o644},
		{"garbage", "not a CRL", []byte{0x30, 0x03, 0x02, 0x01, 0x01}, 0o644},
		{"empty", "not a CRL", nil, 0o644},
		{"group-writable", "writable by group or others", pkiIssuer(t, td.pki.Dir).crlPEM(t, 1, now), 0o664},
	} {
		cfg := freshConfig(t, td)
		cfg.GRPC.ClientCRLFile = filepath.Join(t.TempDir(), "crl.pem")
		if err := os.WriteFile(cfg.GRPC.ClientCRLFile, c.b, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(cfg.GRPC.ClientCRLFile, c.mode); err != nil {
			t.Fatal(err)
		}
		d, err := Start(context.Background(), cfg)
		if err == nil {
			d.shutdown(0)
			t.Errorf("%s: started", c.name)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, "grpc.client_crl_file") || !strings.Contains(msg, c.want) || strings.Contains(msg, "\n") {
			t.Errorf("%s: %q, want one line naming grpc.client_crl_file and %q", c.name, msg, c.want)
		}
		untouched(t, c.name, cfg)
	}
}

// FuzzParseCRLs: whatever grpc.client_crl_file holds, parseCRLs does not
// panic, and what it takes is signed by the CA and is the same read again
// from its CRLs' DER, one PEM block each.
func FuzzParseCRLs(f *testing.F) {
	p, err := GenerateDevPKI(f.TempDir(), "server-a", "server-b")
	if err != nil {
		f.Fatal(err)
	}
	iss := pkiIssuer(f, p.Dir)
	cas := []*x509.Certificate{iss.ca}
	now := time.Date(2026, 12, 4, 0, 0, 0, 0, time.UTC)
	one := iss.crlPEM(f, 1, now, clientCert(f, p, "server-a"))
	f.Add(one)
	blk, _ := pem.Decode(one)
	f.Add(blk.Bytes)
	f.Add(iss.crlPEM(f, 2, now))
	f.Add(append(append([]byte("text before\n"), one...), iss.crlPEM(f, 1, now)...)) // the same CA twice
	f.Add([]byte("-----BEGIN X509 CRL-----\n-----END X509 CRL-----\n"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := parseCRLs(b, cas)
		if err != nil {
			return
		}
		var again []byte
		for _, l := range c.lists {
			if l.CheckSignatureFrom(iss.ca) != nil {
				t.Fatalf("took a CRL the CA did not sign")
			}
			again = append(again, pem.EncodeToMemory(&pem.Block{Type: "X509 CRL", Bytes: l.Raw})...)
		}
		c2, err := parseCRLs(again, cas)
		if err != nil || !reflect.DeepEqual(c.revoked, c2.revoked) || len(c.lists) != len(c2.lists) {
			t.Fatalf("read again: %v, revoked %v, want %v", err, c2, c.revoked)
		}
	})
}

// FuzzParseCRLState: whatever data_dir/client-crl-newest holds,
// parseCRLState does not panic, and what it takes is the same written
// again and read back.
func FuzzParseCRLState(f *testing.F) {
	p, err := GenerateDevPKI(f.TempDir())
	if err != nil {
		f.Fatal(err)
	}
	ca := pkiIssuer(f, p.Dir).ca
	at := time.Date(2026, 12, 4, 0, 0, 0, 0, time.UTC)
	for _, ms := range [][]crlMark{
		nil,
		{{issuer: ca.RawSubject, number: big.NewInt(7), thisUpdate: at}},
		{{issuer: []byte{0x30, 0x00}, thisUpdate: at}, {issuer: ca.RawSubject, number: big.NewInt(0), thisUpdate: at}},
		{{issuer: ca.RawSubject, key: keyID(ca), number: big.NewInt(7), thisUpdate: at}, {issuer: ca.RawSubject, number: big.NewInt(3), thisUpdate: at}},
	} {
		b, err := formatCRLState(ms)
		if err != nil {
			f.Fatal(err)
		}
		if back, err := parseCRLState(b); err != nil || !slices.EqualFunc(ms, back, crlMark.equal) {
			f.Fatalf("seed %s: read back %v, %v", b, back, err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"format":1,"crls":[{"issuer":"MAA=","number":"01","this_update":"2026-12-04T00:00:00Z"}]}`))
	f.Add([]byte(`{"format":1,"crls":[{"issuer":"MAA=","number":"1","this_update":"2026-12-04T00:00:00Z"}]}`)) // an older rngd's, by name
	f.Fuzz(func(t *testing.T, b []byte) {
		ms, err := parseCRLState(b)
		if err != nil {
			return
		}
		again, err := formatCRLState(ms)
		if err != nil {
			t.Fatal(err)
		}
		ms2, err := parseCRLState(again)
		if err != nil || !slices.EqualFunc(ms, ms2, crlMark.equal) {
			t.Fatalf("read again: %v, %v; want %v", err, ms2, ms)
		}
	})
}

// The seeds of FuzzParseCRLs load, and the first is taken whole.
func TestParseCRLsSeed(t *testing.T) {
	p, err := GenerateDevPKI(t.TempDir(), "server-a")
	if err != nil {
		t.Fatal(err)
	}
	iss := pkiIssuer(t, p.Dir)
	a := clientCert(t, p, "server-a")
	c, err := parseCRLs(iss.crlPEM(t, 1, time.Now(), a), []*x509.Certificate{iss.ca})
	if err != nil || !c.revoked[revokedKey(iss.ca, a.SerialNumber)] || len(c.revoked) != 1 {
		t.Fatalf("parseCRLs: %v, %v", c, err)
	}
}

// A file of CRLs one of whose PEM blocks does not decode is refused: the
// CRL in it is not dropped without a word. pem.Decode skips such a block,
// so a file of two CAs' CRLs, the second damaged (a character changed, its
// END line mistyped, cut short), was taken with the first CA's alone: the
// second CA's revocations were not in force, and no alarm said so.
func TestParseCRLsDamagedBlock(t *testing.T) {
	p, err := GenerateDevPKI(t.TempDir(), "server-a")
	if err != nil {
		t.Fatal(err)
	}
	q, err := GenerateDevPKI(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	iss, other := pkiIssuer(t, p.Dir), anotherCA(t, q.Dir)
	cas := []*x509.Certificate{iss.ca, other.ca}
	now := time.Now()
	first := iss.crlPEM(t, 1, now, clientCert(t, p, "server-a"))
	second := other.crlPEM(t, 1, now, iss.ca) // any certificate: its serial is what counts
	if c, err := parseCRLs(append(append([]byte(nil), first...), second...), cas); err != nil || len(c.lists) != 2 {
		t.Fatalf("both CRLs: %v", err)
	}
	lines := strings.SplitAfter(string(second), "\n")
	bad := slices.Clone(lines)
	bad[2] = "!!!!" + bad[2][4:]
	for _, c := range []struct{ name, second string }{
		{"bad base64", strings.Join(bad, "")},
		{"wrong END line", strings.Replace(string(second), "-----END X509 CRL-----", "-----END X509 CRL----", 1)},
		{"cut short", strings.Join(lines[:len(lines)-3], "")},
	} {
		b := append(append([]byte(nil), first...), c.second...)
		if got, err := parseCRLs(b, cas); err == nil || !strings.Contains(err.Error(), "damaged or cut short") {
			t.Errorf("%s: %v, %v; want refused, a block damaged", c.name, describeOrNil(got), err)
		}
	}
}

// A CRL that parseCRLs takes is one the memory of the CRLs taken
// (crlStateFile) can hold and read back. A CA's CRL of a negative CRL number
// (RFC 5280 §5.2.3: a non-negative integer; Go's parser takes one) or of a
// thisUpdate before year 1 was taken and remembered, and the next start
// refused the memory as damaged: every restart refused until the memory
// was deleted, and then again.
func TestParseCRLsRemembered(t *testing.T) {
	p, err := GenerateDevPKI(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	iss := pkiIssuer(t, p.Dir)
	now := time.Now()
	for _, c := range []struct {
		name string
		crl  []byte
	}{
		{"a negative CRL number", iss.crlPEM(t, -1, now)},
		{"thisUpdate in year 0", iss.crlPEM(t, 1, time.Date(0, 6, 1, 0, 0, 0, 0, time.UTC))},
		{"thisUpdate the zero time", iss.crlPEM(t, 1, time.Time{})},
	} {
		got, err := parseCRLs(c.crl, []*x509.Certificate{iss.ca})
		if err != nil {
			continue // refused: never remembered
		}
		b, err := formatCRLState(got.marks())
		if err == nil {
			_, err = parseCRLState(b)
		}
		if err != nil {
			t.Errorf("%s: %s, remembered as %s, which does not read back: %v", c.name, describeOrNil(got), b, err)
		}
	}
}

// describeOrNil is c.describe(), for a failure's message.
func describeOrNil(c *crls) string {
	if c == nil {
		return "nothing taken"
	}
	return "took " + c.describe()
}

// The CRLs docs/rngd.md ("Revoking a game server's certificate") has
// openssl issue are taken: the first revokes server-b, the second, which
// revokes server-a too, replaces it (a higher CRL number).
func TestCRLFromOpenSSL(t *testing.T) {
	if _, err := exec.LookPath("openssl"); err != nil {
		t.Skip("no openssl")
	}
	p, err := GenerateDevPKI(t.TempDir(), "server-a", "server-b")
	if err != nil {
		t.Fatal(err)
	}
	cnf := "[ca]\ndefault_ca = game_servers\n\n[game_servers]\ndatabase         = crl/index.txt\ncrlnumber        = crl/crlnumber\ndefault_md       = sha256\ndefault_crl_days = 30\n"
	if err := os.MkdirAll(filepath.Join(p.Dir, "crl"), 0o700); err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string]string{"crl/index.txt": "", "crl/crlnumber": "01\n", "crl/ca.cnf": cnf} {
		if err := os.WriteFile(filepath.Join(p.Dir, name), []byte(b), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	openssl := func(args ...string) {
		t.Helper()
		cmd := exec.Command("openssl", args...)
		cmd.Dir = p.Dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("openssl %v: %v\n%s", args, err, out)
		}
	}
	ca := []string{"ca", "-config", "crl/ca.cnf", "-cert", "ca.pem", "-keyfile", "ca.key"}
	issue := func(revoke string) *crls {
		t.Helper()
		openssl(append(ca, "-revoke", revoke+".pem", "-crl_reason", "keyCompromise")...)
		openssl(append(ca, "-gencrl", "-out", "crl.pem")...)
		b, err := os.ReadFile(filepath.Join(p.Dir, "crl.pem"))
		if err != nil {
			t.Fatal(err)
		}
		c, err := parseCRLs(b, []*x509.Certificate{pkiIssuer(t, p.Dir).ca})
		if err != nil {
			t.Fatalf("openssl's CRL refused: %v", err)
		}
		return c
	}
	revoked := func(c *crls, name string) bool {
		cert := clientCert(t, p, name)
		return c.revoked[revokedKey(pkiIssuer(t, p.Dir).ca, cert.SerialNumber)]
	}
	first := issue("server-b")
	if !revoked(first, "server-b") || revoked(first, "server-a") {
		t.Fatalf("first CRL: %s", first.describe())
	}
	second := issue("server-a")
	if !revoked(second, "server-b") || !revoked(second, "server-a") {
		t.Fatalf("second CRL: %s", second.describe())
	}
	if err := second.notOlder(first.inForce()); err != nil {
		t.Errorf("the second CRL replacing the first: %v", err)
	}
	if err := first.notOlder(second.inForce()); err == nil {
		t.Errorf("the first CRL replaces the second")
	}
}
