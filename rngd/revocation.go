package rngd

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"net"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/peer"
)

// Revocation of game servers' certificates (grpc.client_crl_file).
//
// A game server's key that leaks lets whoever holds it play that server's
// games and start others. The operator revokes its certificate with a CRL
// (RFC 5280 §5) issued by the game servers' CA; rngd refuses a certificate
// a CRL in force lists, matched by its issuer and serial number (§5.3.3,
// §6.3.3 (b)–(f) for a complete CRL of the certificate's issuer). A CA is
// its name and its key: a CRL is the CA's of grpc.client_ca_file whose
// subject is its issuer and whose key verifies its signature (checkCRL;
// §6.3.3 (f), (g)), and a certificate is looked up under the CA whose key
// verified it in its chain (revokedKey), so that two CAs of one name (a CA
// re-keyed, both in the bundle while the old one's certificates expire)
// each have their CRL, which revokes its own certificates only. Every
// certificate of the chains the handshake verified is looked up
// (revocation.revokedIn), not the client's alone (§6.1.3 (a)(3)): a CRL of
// a root that revokes an intermediate CA refuses every certificate the
// intermediate issued, whether the client sends the intermediate or it is
// in grpc.client_ca_file. A refused certificate is refused:
//
//  1. at the TLS handshake (revocation.verifyConnection): the connection
//     never reaches the API;
//  2. a connection opened before the revocation is closed when its CRL
//     is taken (revocation.listener, creds, closeRevoked): its streams
//     end (a health Watch, a reflection stream) and its
//     grpc.max_connections slot is freed, so that a leaked key's holder
//     who opened every slot before keeps none;
//  3. on every call of a connection not yet closed (revocation.unary,
//     revocation.stream, before the engine's gate and any handler: nothing
//     is changed, nothing drawn): UNAUTHENTICATED CERT_REVOKED.
//
// The CRLs are read at start, where any fault refuses the start (a read
// that has not answered within trustedReadTimeout too, readWithin), and again
// every crlPollInterval (revocation.watch), each read on a goroutine of its
// own: one that hangs (a hung network file system) is refused as failed
// after trustedReadTimeout, and holds neither the watch nor the shutdown. Only complete, direct CRLs are
// taken (§6.3.3 (b)(1)): one with a critical extension (a delta CRL's
// indicator, an issuing distribution point, an entry's certificate issuer)
// is refused, as §5.2 and §5.3 require of an extension not processed.
//
// The newest CRL taken of each CA is remembered in the data directory
// (crlStateFile): a CRL older than it refuses the start, as it is refused
// while running. A CRL issued in the future (thisUpdate more than
// crlAheadTolerance ahead of rngd's clock) is taken, with an alarm: the CA
// signed it, and its revocations hold whatever its clock said.
//
// A CRL past its nextUpdate stays in force, with an alarm: its revocations
// still hold (a later CRL could only add to them, or drop an expired
// certificate), and refusing every game server because a CRL was not
// renewed in time would stop the lottery for a clerical lapse, not for
// anything the operator asked. The alarm says to issue a new one.

// crlPollInterval is how often grpc.client_crl_file is read again: a
// revocation takes effect within it.
const crlPollInterval = 5 * time.Second

// trustedReadTimeout is how long a read of a file that says which clients
// rngd admits (readTrusted: grpc.client_crl_file, grpc.client_ca_file,
// audit.client_ca_file), or of the daemon's own certificate and key
// (grpc.cert_file, grpc.key_file), may take before it is refused as
// failed: at the start, the start is refused (readWithin); while running
// (the CRLs only: rngd reads the others at the start only), the CRLs in
// force stay, with the alarm (revocation.await). A local file of at most
// 1 MiB reads in milliseconds; one on a network file system whose server
// is gone may never answer.
const trustedReadTimeout = 5 * time.Second

// crlAheadTolerance is how far ahead of rngd's clock a CRL's thisUpdate may
// be without an alarm: two clocks a minute apart are common; a CA's clock
// hours or days wrong (a time zone, a wrong date) is not, and with it every
// later CRL without a CRL number is refused as older until the clock
// catches up.
const crlAheadTolerance = 5 * time.Minute

// crlName and crlRisk name grpc.client_crl_file in readTrusted's errors.
const (
	crlName = "the crl"
	crlRisk = "drop a revocation"
)

// revocation is the CRLs in force and the watch of grpc.client_crl_file.
type revocation struct {
	path        string
	cas         []*x509.Certificate // grpc.client_ca_file's, which sign the CRLs
	state       string              // data_dir/crlStateFile
	log         *slog.Logger
	clock       Clock
	read        func() ([]byte, error) // reads path (readTrusted)
	readTimeout time.Duration          // trustedReadTimeout

	// issuers is issuersOf(cas): a chain that ends at a CA of the bundle
	// holds no certificate above it to look it up under. Set once, by
	// openRevocation.
	issuers map[string]*x509.Certificate

	cur atomic.Pointer[crls] // in force; read by every handshake and call

	refused atomic.Bool // the file holds CRLs refused (or cannot be read): cur is an older one
	stale   atomic.Bool // a CRL in force is past its nextUpdate

	// Only the watch's goroutine uses these (and openRevocation before it).
	refusedSum [sha256.Size]byte // of the file's bytes last refused
	refusedErr error             // why they were
	lastErr    string            // the refusal last logged
	saved      []crlMark         // what state holds
	saveErr    string            // the failure to write state last logged
	aheadSeen  *crls             // the CRLs last checked by checkAhead

	mu    sync.Mutex
	conns map[*revocableConn]struct{} // guarded by mu: the listener's connections open

	alarms     prometheus.Counter // tirage_alarms_total{component="crl"}; nil until newDaemon
	handshakes prometheus.Counter // tirage_client_crl_handshakes_refused_total
}

// crls is a file's CRLs, one per issuing CA, and the certificates they
// revoke.
type crls struct {
	lists   []*x509.RevocationList
	cas     []*x509.Certificate // cas[i], of grpc.client_ca_file, signed lists[i] (checkCRL)
	revoked map[string]bool     // revokedKey(issuer, serial)
	sum     [sha256.Size]byte
}

// revokedKey is a certificate's key in crls.revoked: the public key of the
// CA that issued it (its DER SubjectPublicKeyInfo) and the CA's DER name,
// both self-delimiting, followed by its serial number. A CA of another key
// is another CA, even of the same name: its serial numbers are its own.
func revokedKey(issuer *x509.Certificate, serial *big.Int) string {
	return string(issuer.RawSubjectPublicKeyInfo) + string(issuer.RawSubject) + serial.Text(16)
}

// sameCA reports whether a and b are certificates of the same CA: the same
// name and the same key.
func sameCA(a, b *x509.Certificate) bool {
	return bytes.Equal(a.RawSubject, b.RawSubject) && bytes.Equal(a.RawSubjectPublicKeyInfo, b.RawSubjectPublicKeyInfo)
}

// issuersOf maps each certificate of cas, by its DER, to the certificate
// of cas that issued it: whose subject is its issuer and whose key
// verifies its signature. One that no certificate of cas issued is left
// out.
func issuersOf(cas []*x509.Certificate) map[string]*x509.Certificate {
	m := map[string]*x509.Certificate{}
	for _, cert := range cas {
		for _, ca := range cas {
			if bytes.Equal(ca.RawSubject, cert.RawIssuer) && cert.CheckSignatureFrom(ca) == nil {
				m[string(cert.Raw)] = ca
				break
			}
		}
	}
	return m
}

// openRevocation reads grpc.client_crl_file, which the CAs cas must have
// signed, and the newest CRLs taken before (crlStateFile), which it must
// not be older than; its errors name the key and refuse the start. It
// writes nothing: the watch remembers the CRLs taken (remember), once the
// data directory is open.
func openRevocation(cfg Config, cas []*x509.Certificate) (*revocation, error) {
	r := &revocation{path: cfg.GRPC.ClientCRLFile, cas: cas, state: filepath.Join(cfg.DataDir, crlStateFile),
		log: cfg.Logger.With("component", "crl"), clock: cfg.Clock, conns: map[*revocableConn]struct{}{},
		readTimeout: cmp.Or(cfg.trustedReadTimeout, trustedReadTimeout), issuers: issuersOf(cas)}
	r.read = func() ([]byte, error) { return readTrusted(r.path, crlName, crlRisk) }
	if cfg.crlRead != nil {
		r.read = func() ([]byte, error) { return cfg.crlRead(r.path) }
	}
	saved, found, err := loadCRLState(r.state)
	if err != nil {
		return nil, fmt.Errorf("grpc.client_crl_file: %s, which remembers the newest CRL rngd took of each CA, is damaged: %w: "+
			"restore it from a copy, or delete it to take the file's CRLs whatever came before (docs/rngd.md)", r.state, err)
	}
	b, err := readWithin(r.read, r.readTimeout, crlName)
	if err != nil {
		return nil, fmt.Errorf("grpc.client_crl_file: %w", err)
	}
	c, err := parseCRLs(b, cas)
	if err != nil {
		return nil, fmt.Errorf("grpc.client_crl_file %s: %w", r.path, err)
	}
	prev := crlPrev{marks: ofCAs(saved, cas), than: "the newest rngd took", had: "of which rngd took one before"}
	if err := c.notOlder(prev); err != nil {
		return nil, fmt.Errorf("grpc.client_crl_file %s: %w, refused as a rollback (%s remembers the newest CRL taken of each CA): "+
			"put that CRL or a newer one back, or, to go back on purpose, delete %s (docs/rngd.md)", r.path, err, r.state, crlStateFile)
	}
	if !found {
		r.log.Warn("grpc.client_crl_file: rngd remembers no CRL taken before: the file's CRLs are taken whatever came before, and remembered from now on "+
			"(expected at the first start with a CRL file, or when the memory was deleted to go back to an older CRL)", "path", r.path, "memory", r.state)
	}
	r.saved = saved
	r.cur.Store(c)
	return r, nil
}

// parseCRLs parses b, one DER CRL or PEM blocks of type "X509 CRL", and
// checks each CRL: signed by a CA of cas whose subject is its issuer
// (checkCRL), no critical extension, one CRL per CA (its name and key).
func parseCRLs(b []byte, cas []*x509.Certificate) (*crls, error) {
	var ders [][]byte
	if bytes.Contains(b, []byte("-----BEGIN")) {
		for rest := b; ; {
			var blk *pem.Block
			if blk, rest = pem.Decode(rest); blk == nil {
				break
			}
			if blk.Type != "X509 CRL" {
				return nil, fmt.Errorf("PEM block %d is %.40q, not an X509 CRL", len(ders)+1, blk.Type)
			}
			ders = append(ders, blk.Bytes)
		}
		if len(ders) == 0 {
			return nil, errors.New("no PEM block: not a CRL")
		}
		// pem.Decode skips a block it cannot decode (bad base64, a wrong
		// END line, cut short): the CRL in it, maybe another CA's, would be
		// dropped without a word.
		if n := bytes.Count(b, []byte("-----BEGIN")); n != len(ders) {
			return nil, fmt.Errorf("%d PEM blocks begin, %d decode: a block is damaged or cut short", n, len(ders))
		}
	} else {
		ders = [][]byte{b}
	}
	c := &crls{revoked: map[string]bool{}, sum: sha256.Sum256(b)}
	for i, der := range ders {
		l, err := x509.ParseRevocationList(der)
		if err != nil {
			return nil, fmt.Errorf("CRL %d: not a CRL: %w", i+1, err)
		}
		ca, err := checkCRL(l, cas)
		if err != nil {
			return nil, fmt.Errorf("CRL %d (issuer %.120q): %w", i+1, l.Issuer.String(), err)
		}
		if slices.ContainsFunc(c.cas, func(o *x509.Certificate) bool { return sameCA(o, ca) }) {
			return nil, fmt.Errorf("CRL %d (issuer %s): a second CRL of the same CA (its name and key)", i+1, markOf(l, ca).ca())
		}
		c.lists, c.cas = append(c.lists, l), append(c.cas, ca)
		for _, e := range l.RevokedCertificateEntries {
			c.revoked[revokedKey(ca, e.SerialNumber)] = true
		}
	}
	return c, nil
}

// checkCRL checks that l holds no critical extension, that its CRL number
// and thisUpdate are a CRL's (crlMark.check), and that a CA of cas signed
// it, which it returns: one whose subject is l's issuer, whose key
// verifies l's signature and, when both carry one, whose subject key
// identifier is l's authority key identifier (RFC 5280 §5.2.1). Of two
// CAs of one name (a CA re-keyed), the one whose key signed l.
func checkCRL(l *x509.RevocationList, cas []*x509.Certificate) (*x509.Certificate, error) {
	if err := markOf(l, nil).check(); err != nil {
		return nil, err
	}
	for _, x := range l.Extensions {
		if x.Critical {
			return nil, fmt.Errorf("critical extension %s (a delta or partitioned CRL?): rngd takes complete CRLs only", x.Id)
		}
	}
	for _, e := range l.RevokedCertificateEntries {
		for _, x := range e.Extensions {
			if x.Critical {
				return nil, fmt.Errorf("entry %X: critical extension %s (an indirect CRL?): rngd takes direct CRLs only", e.SerialNumber, x.Id)
			}
		}
	}
	var sigErr, keyIDErr error
	for _, ca := range cas {
		if !bytes.Equal(ca.RawSubject, l.RawIssuer) {
			continue
		}
		if sigErr = l.CheckSignatureFrom(ca); sigErr != nil {
			continue
		}
		if len(l.AuthorityKeyId) > 0 && len(ca.SubjectKeyId) > 0 && !bytes.Equal(l.AuthorityKeyId, ca.SubjectKeyId) {
			keyIDErr = fmt.Errorf("its authority key identifier %X is not the subject key identifier %X of the CA of that name whose key verifies it: a CRL rngd does not take", l.AuthorityKeyId, ca.SubjectKeyId)
			continue
		}
		return ca, nil
	}
	switch {
	case keyIDErr != nil:
		return nil, keyIDErr
	case sigErr != nil:
		return nil, fmt.Errorf("its signature does not verify under the CA of that name in grpc.client_ca_file: %w", sigErr)
	}
	return nil, errors.New("no CA of grpc.client_ca_file has that name: it is not the game servers' CA's " +
		"(an intermediate CA's CRL is taken once that CA is in grpc.client_ca_file: rngd checks a CRL when it reads it, against the bundle)")
}

// revokedIn is the first certificate of chains, a client's chains the
// handshake verified, that a CRL in force lists; nil when none is. Each
// certificate is looked up under its own issuer (revokedKey), the
// certificate above it in the chain, whose key verified it: not under its
// issuer's name, which a CA re-keyed shares with its old self. The trust
// anchor of grpc.client_ca_file that ends a chain is looked up too, under
// the CA of the bundle that issued it (revocation.issuers): an
// intermediate CA put in the bundle is an anchor, and a client under it
// need not send it, so a CRL of its issuer that revokes it would otherwise
// go unheeded. An anchor its own key signed (a self-signed root) is not:
// it is trusted as the bundle holds it (RFC 5280 §6.1.1 (d)), and its own
// CRL lists the certificates it issued, one of which may have its serial
// number. One of its own name signed by another key is (a CA re-keyed:
// the link certificate of its new key, which its old key signed), under
// that CA: it was skipped as a root, by name, and the old CA's CRL that
// revokes it went unheeded. A certificate revoked in any chain refuses the client: the
// chains share its certificate, and rngd does not look for a way around a
// revoked CA.
func (r *revocation) revokedIn(chains [][]*x509.Certificate) *x509.Certificate {
	c := r.cur.Load()
	for _, chain := range chains {
		for i, cert := range chain {
			var issuer *x509.Certificate
			switch {
			case i+1 < len(chain):
				issuer = chain[i+1]
			default:
				issuer = r.issuers[string(cert.Raw)] // nil: no CA of the bundle issued it, none has a CRL of it
				if i > 0 && issuer != nil && sameCA(issuer, cert) {
					continue // a root of the bundle: its own key signed it
				}
			}
			if issuer != nil && c.revoked[revokedKey(issuer, cert.SerialNumber)] {
				return cert
			}
		}
	}
	return nil
}

// revokedOf is the client certificate cs verified (nil without one) and
// the first certificate of its verified chains a CRL in force lists
// (revokedIn; nil when none is, or without a client certificate).
func (r *revocation) revokedOf(cs tls.ConnectionState) (leaf, revoked *x509.Certificate) {
	if leaf = verifiedLeaf(cs); leaf == nil {
		return nil, nil
	}
	return leaf, r.revokedIn(cs.VerifiedChains)
}

// revokedWhat names cert, revoked, of the chain of the client certificate
// leaf, for refusals: the client's certificate or a CA's above it. Only
// what the client sent or the bundle holds, no secret.
func revokedWhat(leaf, cert *x509.Certificate) string {
	if cert == leaf {
		return fmt.Sprintf("client certificate %X", leaf.SerialNumber)
	}
	return fmt.Sprintf("CA certificate %.120q (serial %X) of client certificate %X's chain", cert.Subject.String(), cert.SerialNumber, leaf.SerialNumber)
}

// verifyConnection is the game servers' listener's tls.Config
// VerifyConnection: a client certificate revoked, or whose chain holds a
// revoked CA (revokedIn), fails the handshake (the client reads a
// bad_certificate alert). It is counted, and logged at debug level only:
// whoever holds a revoked key sets how often it happens.
func (r *revocation) verifyConnection(cs tls.ConnectionState) error {
	leaf, cert := r.revokedOf(cs) // no leaf: the handshake refuses it (tls.RequireAndVerifyClientCert)
	if cert == nil {
		return nil
	}
	if r.handshakes != nil {
		r.handshakes.Inc()
	}
	r.log.Debug("handshake refused: revoked client certificate", "identity", fmt.Sprintf("%.80q", Identity(leaf)), "serial", fmt.Sprintf("%X", leaf.SerialNumber),
		"revoked", revokedWhat(leaf, cert))
	return fmt.Errorf("%s is revoked (grpc.client_crl_file)", revokedWhat(leaf, cert))
}

// check refuses a call whose connection's client certificate, or a CA of
// its chain, is revoked. A call without one is left to callerIdentity.
func (r *revocation) check(ctx context.Context) error {
	p, ok := peer.FromContext(ctx)
	if !ok {
		return nil
	}
	ti, ok := p.AuthInfo.(credentials.TLSInfo)
	if !ok {
		return nil
	}
	switch leaf, cert := r.revokedOf(ti.State); {
	case cert == nil:
	case cert == leaf:
		return refuse(reasonCertRevoked, "the client certificate (serial %X) is revoked: the operator must issue this game server a new one", leaf.SerialNumber)
	default:
		return refuse(reasonCertRevoked, "the CA certificate %.120q (serial %X) that the client certificate (serial %X) chains through is revoked: the operator must issue this game server a new certificate under a CA in force",
			cert.Subject.String(), cert.SerialNumber, leaf.SerialNumber)
	}
	return nil
}

// unary and stream refuse every call of a connection whose certificate was
// revoked after its handshake, before the call reaches anything else.
func (r *revocation) unary(ctx context.Context, req any, _ *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	if err := r.check(ctx); err != nil {
		return nil, err
	}
	return handler(ctx, req)
}

func (r *revocation) stream(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
	if err := r.check(ss.Context()); err != nil {
		return err
	}
	return handler(srv, ss)
}

// observe registers the CRLs' series on m and keeps the alarm counter.
func (r *revocation) observe(m *metrics) {
	r.alarms = m.alarms.WithLabelValues("crl")
	r.handshakes = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "tirage_client_crl_handshakes_refused_total",
		Help: "TLS handshakes of the game servers' listener refused: the client certificate is revoked by grpc.client_crl_file.",
	})
	flag := func(b *atomic.Bool) func() float64 {
		return func() float64 {
			if b.Load() {
				return 1
			}
			return 0
		}
	}
	m.reg.MustRegister(r.handshakes,
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "tirage_client_crl_refused",
			Help: "1 while grpc.client_crl_file cannot be read or holds CRLs refused (unsigned by the CA, not parsing, older than those in force): the CRLs read before stay in force; 0 otherwise.",
		}, flag(&r.refused)),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "tirage_client_crl_stale",
			Help: "1 while a CRL of grpc.client_crl_file in force is past its nextUpdate: its revocations still hold, issue a new CRL; 0 otherwise.",
		}, flag(&r.stale)),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "tirage_client_crl_next_update_timestamp_seconds",
			Help: "The earliest nextUpdate of the CRLs of grpc.client_crl_file in force (Unix time; 0 when none has one): alert before it.",
		}, func() float64 {
			var first time.Time
			for _, l := range r.cur.Load().lists {
				if !l.NextUpdate.IsZero() && (first.IsZero() || l.NextUpdate.Before(first)) {
					first = l.NextUpdate
				}
			}
			if first.IsZero() {
				return 0
			}
			return float64(first.Unix())
		}),
	)
}

// watch reads grpc.client_crl_file now and every interval until ctx ends,
// one read at a time, each on a goroutine of its own (await): when ctx
// ends during a read, watch returns at once, and the read is abandoned.
// The whole file is read, not its stat: a CRL is small, and a rewrite in
// place within the mtime's granularity is seen too.
func (r *revocation) watch(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		res, ok := r.await(ctx)
		if !ok {
			return
		}
		r.poll(res.b, res.err)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// fileRead is what a read of a file (startRead) returned.
type fileRead struct {
	b   []byte
	err error
}

// await reads grpc.client_crl_file on a goroutine of its own and waits for
// it; false when ctx ends first. A read that has not answered within
// r.readTimeout is refused as failed (reject: the CRLs in force stay, with
// the alarm), and the CRLs in force are checked (settle) every
// r.readTimeout while it hangs; await still waits for it, so that a file
// system that hangs holds one goroutine at most, not one a poll. A read
// abandoned when ctx ends (the shutdown) ends its goroutine when it
// answers, if ever.
func (r *revocation) await(ctx context.Context) (fileRead, bool) {
	done := startRead(r.read)
	t := time.NewTimer(r.readTimeout)
	defer t.Stop()
	began, hung := time.Now(), false
	for {
		select {
		case res := <-done:
			return res, true
		case <-t.C:
			hung = true
			r.reject(fmt.Errorf("couldn't read %s: no answer within %s (a network file system that hangs?): no other read starts until it answers", crlName, r.readTimeout))
			r.settle()
			t.Reset(r.readTimeout)
		case <-ctx.Done():
			if hung {
				r.log.Warn("grpc.client_crl_file: a read that has not answered is abandoned (the shutdown does not wait for it)", "path", r.path, "waited", time.Since(began).Round(time.Millisecond).String())
			}
			return fileRead{}, false
		}
	}
}

// startRead calls read on a goroutine of its own, which sends what it
// read on the channel returned and ends, whether or not anyone still waits
// for it.
func startRead(read func() ([]byte, error)) <-chan fileRead {
	done := make(chan fileRead, 1)
	go func() {
		b, err := read()
		done <- fileRead{b, err}
	}()
	return done
}

// readWithin is the start's read of a file rngd trusts (readTrusted:
// grpc.client_crl_file, a CA bundle; readAtStart: a CA bundle and the
// daemon's certificate and key), called name in errors, on a goroutine of its own
// (readUntil): one that has not answered within timeout refuses the start
// (the start does not watch the shutdown's signal, and would wait for it
// without a word, SIGTERM unheeded), its goroutine left to end when it
// answers, if ever, and what it read then wiped.
func readWithin(read func() ([]byte, error), timeout time.Duration, name string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	res, ok := readUntil(ctx, read)
	if !ok {
		return nil, fmt.Errorf("couldn't read %s: no answer within %s (a network file system that hangs?): keep the file on a local disk", name, timeout)
	}
	return res.b, res.err
}

// readUntil calls read on a goroutine of its own (startRead) and waits for
// it until ctx is done; false then, the read abandoned: what it returns if
// it ever answers is wiped (clear), since it may be a secret (a key, a
// PIN) and nobody else holds it to wipe it.
func readUntil(ctx context.Context, read func() ([]byte, error)) (fileRead, bool) {
	done := startRead(read)
	select {
	case res := <-done:
		return res, true
	case <-ctx.Done():
		go func() { clear((<-done).b) }()
		return fileRead{}, false
	}
}

// poll takes the CRLs of b, grpc.client_crl_file read (err: the read
// failed), when they differ from those in force and are not refused; then
// it checks those in force (settle).
func (r *revocation) poll(b []byte, err error) {
	defer r.settle()
	if err != nil {
		r.reject(err)
		return
	}
	cur := r.cur.Load()
	sum := sha256.Sum256(b)
	switch sum {
	case cur.sum:
		r.accepted()
		return
	case r.refusedSum:
		// Refused already, and logged: logged again only when another
		// refusal came between (a read that failed or hung), which the
		// log would otherwise leave as the cause.
		r.reject(r.refusedErr)
		return
	}
	c, err := parseCRLs(b, r.cas)
	if err == nil {
		err = c.notOlder(cur.inForce())
	}
	if err != nil {
		r.refusedSum, r.refusedErr = sum, err
		r.reject(err)
		return
	}
	r.cur.Store(c)
	r.accepted()
	closed := r.closeRevoked()
	r.log.Info("grpc.client_crl_file read again: its CRLs are in force", "path", r.path, "crls", c.describe(), "connections_closed", closed)
}

// reject raises the alarm for err, once per error.
func (r *revocation) reject(err error) {
	r.refused.Store(true)
	if msg := err.Error(); msg != r.lastErr {
		r.lastErr = msg
		r.alarms.Inc()
		r.log.Error("grpc.client_crl_file refused, the CRLs read before stay in force: fix or replace the file (rngd reads it every few seconds)", "path", r.path, "err", msg)
	}
}

// accepted clears the refusal: the file holds the CRLs in force.
func (r *revocation) accepted() {
	if r.refused.Swap(false) {
		r.log.Info("grpc.client_crl_file no longer refused", "path", r.path)
	}
	r.lastErr, r.refusedSum, r.refusedErr = "", [sha256.Size]byte{}, nil
}

// settle checks the CRLs in force after each read of the file, the first
// (the start's CRLs) included: issued in the future (checkAhead),
// remembered (remember), past their nextUpdate (checkStale).
func (r *revocation) settle() {
	r.checkAhead()
	r.remember()
	r.checkStale()
}

// checkAhead raises the alarm, once per CRLs taken, when a CRL in force was
// issued more than crlAheadTolerance after rngd's clock. It stays in force:
// the CA signed it, its revocations hold. A later CRL with a higher CRL
// number replaces it; one without a number is refused as older until its
// thisUpdate passes this one's.
func (r *revocation) checkAhead() {
	c := r.cur.Load()
	if c == r.aheadSeen {
		return
	}
	r.aheadSeen = c
	now := r.clock.Now()
	var ahead []string
	for i, l := range c.lists {
		if l.ThisUpdate.Sub(now) > crlAheadTolerance {
			ahead = append(ahead, fmt.Sprintf("%s (issued %s)", c.ca(i), l.ThisUpdate.UTC().Format(time.RFC3339)))
		}
	}
	if len(ahead) == 0 {
		return
	}
	r.alarms.Inc()
	r.log.Error("grpc.client_crl_file: a CRL in force was issued in the future (its thisUpdate is ahead of rngd's clock): the CA's clock or rngd's is wrong, fix it; "+
		"the CRL is in force, its revocations hold; a later CRL replaces it if its CRL number is higher, one without a number is refused until its thisUpdate is later than this one's",
		"path", r.path, "ahead", strings.Join(ahead, ", "), "now", now.UTC().Format(time.RFC3339))
}

// remember writes the CRLs in force to the data directory (crlStateFile)
// when they are newer than those it holds, for the next start. A failure
// leaves the CRLs in force (their revocations must hold) and raises the
// alarm, once per error; the next read tries again.
func (r *revocation) remember() {
	want := mergeMarks(r.saved, r.cur.Load().marks())
	if slices.EqualFunc(want, r.saved, crlMark.equal) {
		return
	}
	if err := saveCRLState(r.state, want); err != nil {
		if msg := err.Error(); msg != r.saveErr {
			r.saveErr = msg
			r.alarms.Inc()
			r.log.Error("grpc.client_crl_file: couldn't remember the CRLs in force in the data directory: they are in force, but after a restart rngd would take an older CRL; rngd tries again every few seconds",
				"path", r.path, "memory", r.state, "err", msg)
		}
		return
	}
	if r.saveErr != "" {
		r.log.Info("grpc.client_crl_file: the CRLs in force are remembered again", "memory", r.state)
	}
	r.saved, r.saveErr = want, ""
}

// checkStale raises the alarm when a CRL in force goes past its nextUpdate.
func (r *revocation) checkStale() {
	now := r.clock.Now()
	var past []string
	c := r.cur.Load()
	for i, l := range c.lists {
		if !l.NextUpdate.IsZero() && now.After(l.NextUpdate) {
			past = append(past, fmt.Sprintf("%s (next update %s)", c.ca(i), l.NextUpdate.UTC().Format(time.RFC3339)))
		}
	}
	switch stale := len(past) > 0; {
	case stale && !r.stale.Swap(true):
		r.alarms.Inc()
		r.log.Error("grpc.client_crl_file: a CRL in force is past its next update: its revocations still hold, and any made after it are unknown to rngd until the file holds a newer CRL: issue one and replace the file",
			"path", r.path, "stale", strings.Join(past, ", "))
	case !stale && r.stale.Swap(false):
		r.log.Info("grpc.client_crl_file: no CRL in force is past its next update", "path", r.path)
	}
}

// listener is the game servers' listener l, which keeps each connection
// until it closes (gRPC closes the connection it accepted, whatever became
// of its handshake), for closeRevoked.
func (r *revocation) listener(l net.Listener) net.Listener {
	return revocableListener{l, r}
}

type revocableListener struct {
	net.Listener
	r *revocation
}

func (l revocableListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return c, err
	}
	rc := &revocableConn{Conn: c, r: l.r}
	l.r.mu.Lock()
	l.r.conns[rc] = struct{}{}
	l.r.mu.Unlock()
	return rc, nil
}

// revocableConn is a connection of the game servers' listener, kept in
// revocation.conns until it closes.
type revocableConn struct {
	net.Conn
	r      *revocation
	chains [][]*x509.Certificate // guarded by r.mu: the client's verified chains, once its handshake is over
}

func (c *revocableConn) Close() error {
	c.r.mu.Lock()
	delete(c.r.conns, c)
	c.r.mu.Unlock()
	return c.Conn.Close()
}

// creds is the game servers' listener's transport credentials c, which
// note each connection's client certificate chains for closeRevoked once its
// handshake is over. A CRL taken since the handshake's check
// (verifyConnection) that revokes it refuses the connection: closeRevoked
// may have run before the certificate was noted.
func (r *revocation) creds(c credentials.TransportCredentials) credentials.TransportCredentials {
	return revocableCreds{c, r}
}

type revocableCreds struct {
	credentials.TransportCredentials
	r *revocation
}

func (c revocableCreds) ServerHandshake(raw net.Conn) (net.Conn, credentials.AuthInfo, error) {
	conn, ai, err := c.TransportCredentials.ServerHandshake(raw)
	if err != nil {
		return conn, ai, err
	}
	rc, ok := raw.(*revocableConn)
	ti, isTLS := ai.(credentials.TLSInfo)
	if !ok || !isTLS {
		return conn, ai, nil
	}
	leaf, cert := c.r.revokedOf(ti.State)
	if leaf == nil {
		return conn, ai, nil // left to callerIdentity
	}
	c.r.mu.Lock()
	rc.chains = ti.State.VerifiedChains
	c.r.mu.Unlock()
	if cert != nil {
		conn.Close()
		return nil, nil, fmt.Errorf("%s is revoked (grpc.client_crl_file)", revokedWhat(leaf, cert))
	}
	return conn, ai, nil
}

func (c revocableCreds) Clone() credentials.TransportCredentials {
	return revocableCreds{c.TransportCredentials.Clone(), c.r}
}

// closeRevoked closes the connections whose client certificates the CRLs
// in force revoke, or a CA of their chains (revokedIn), and returns how
// many.
func (r *revocation) closeRevoked() int {
	var revoked []*revocableConn
	r.mu.Lock()
	for c := range r.conns {
		if c.chains != nil && r.revokedIn(c.chains) != nil {
			revoked = append(revoked, c)
		}
	}
	r.mu.Unlock()
	for _, c := range revoked {
		c.Close()
	}
	return len(revoked)
}

// describe says what c holds, for the log and the banner.
func (c *crls) describe() string {
	var parts []string
	for i, l := range c.lists {
		s := fmt.Sprintf("%s: %d revoked, issued %s", c.ca(i), len(l.RevokedCertificateEntries), l.ThisUpdate.UTC().Format(time.RFC3339))
		if l.Number != nil {
			s += ", number " + l.Number.String()
		}
		if !l.NextUpdate.IsZero() {
			s += ", next update " + l.NextUpdate.UTC().Format(time.RFC3339)
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "; ")
}

// ca names the CA of c's CRL i, its name and key (crlMark.ca), for
// messages.
func (c *crls) ca(i int) string {
	return markOf(c.lists[i], c.cas[i]).ca()
}
