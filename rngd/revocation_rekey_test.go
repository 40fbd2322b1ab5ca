package rngd

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	qodv1 "tirage.fr/tirage/rngd/api/tirage/qod/v1"
)

// rekeyedCA makes, in the dev PKI p, a CA of the same name as p's CA but
// of another key, as a CA re-keyed is, and for each game server of
// clients a certificate it issued, of the serial number given. It returns
// the CA and a bundle of p's CA and it, the old key's and the new's, as
// grpc.client_ca_file holds them while the old CA's certificates expire.
func rekeyedCA(t testing.TB, p DevPKI, clients map[string]*big.Int) (crlIssuer, string) {
	t.Helper()
	old := pkiIssuer(t, p.Dir)
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	ca := newCA(t, old.ca.Subject.CommonName, key, crlIssuer{})
	if !bytes.Equal(ca.ca.RawSubject, old.ca.RawSubject) {
		t.Fatalf("the re-keyed CA's name %q is not the old one's %q", ca.ca.Subject, old.ca.Subject)
	}
	for name, serial := range clients {
		tmpl := clientTemplate(name)
		tmpl.SerialNumber = serial
		if err := issue(tmpl, ca.ca, key, p.ClientCert(name), p.ClientKey(name)); err != nil {
			t.Fatal(err)
		}
	}
	bundle := filepath.Join(p.Dir, "bundle.pem")
	replaceFile(t, bundle, append(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: old.ca.Raw}), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ca.ca.Raw})...))
	return ca, bundle
}

// plays checks that the game server name is admitted: a call of a new
// connection of its answers.
func plays(t *testing.T, td *testDaemon, name, why string) {
	t.Helper()
	if _, err := td.client(name).ListUnfinishedGames(context.Background(), &qodv1.ListUnfinishedGamesRequest{}); err != nil {
		t.Errorf("%s, %s: %v, want admitted", name, why, err)
	}
}

// remembered waits for data_dir/client-crl-newest to hold, for each CA of
// want, its mark of that CRL number, with its key, and nothing else.
func remembered(t *testing.T, td *testDaemon, want map[*x509.Certificate]int64) {
	t.Helper()
	eventually(t, fmt.Sprintf("the CRLs of %d CAs remembered", len(want)), func() bool {
		ms, _, err := loadCRLState(filepath.Join(td.cfg.DataDir, crlStateFile))
		if err != nil || len(ms) != len(want) {
			return false
		}
		for ca, n := range want {
			if !hasMark(ms, keyID(ca), n) {
				return false
			}
		}
		return true
	})
}

// Two CAs of one name and two keys in grpc.client_ca_file (a CA re-keyed,
// the old key's certificates not yet expired) each have their CRL, which
// revokes its own certificates only, whatever their serial numbers: a
// serial the new CA revoked refuses no certificate of the old CA's of that
// serial, and the other way round. Each CA's CRL is remembered apart, and
// a rollback of either refuses the start. CRLs were matched to a CA by
// name alone: a file with both CRLs was refused ("a second CRL of the same
// CA"), and the new CA's CRL alone refused the old CA's game server of the
// serial it revoked (server-a here).
func TestCRLTwoCAsOneName(t *testing.T) {
	var ca2 crlIssuer
	td := newTestDaemon(t, withCRL(t, 1), func(c *Config) {
		p := DevPKI{Dir: filepath.Dir(c.GRPC.ClientCAFile)}
		a, b := clientCert(t, p, "server-a"), clientCert(t, p, "server-b")
		// server-x and server-y, the new CA's, have the serial numbers of
		// server-b and server-a, the old CA's.
		ca2, c.GRPC.ClientCAFile = rekeyedCA(t, p, map[string]*big.Int{"server-x": b.SerialNumber, "server-y": a.SerialNumber})
		replaceFile(t, c.GRPC.ClientCRLFile, ca2.crlPEM(t, 1, c.Clock.Now().Add(-time.Hour), clientCert(t, p, "server-y")))
	})
	ca1 := pkiIssuer(t, td.pki.Dir)
	// The new CA's CRL alone.
	wantHandshakeRefused(t, td, "server-y")
	plays(t, td, "server-a", "the old CA's, of the serial the new CA's CRL revokes")
	plays(t, td, "server-x", "the new CA's, not revoked")

	// Both CAs' CRLs, taken while running.
	then := td.clock.Now().Add(-time.Hour)
	both := append(ca1.crlPEM(t, 1, then, clientCert(t, td.pki, "server-b")), ca2.crlPEM(t, 1, then, clientCert(t, td.pki, "server-y"))...)
	replaceFile(t, td.cfg.GRPC.ClientCRLFile, both)
	eventually(t, "both CRLs taken", func() bool { return len(td.d.crl.cur.Load().lists) == 2 })
	wantHandshakeRefused(t, td, "server-b")
	wantHandshakeRefused(t, td, "server-y")
	plays(t, td, "server-a", "the old CA's, of the serial the new CA's CRL revokes")
	plays(t, td, "server-x", "the new CA's, of the serial the old CA's CRL revokes")
	remembered(t, td, map[*x509.Certificate]int64{ca1.ca: 1, ca2.ca: 1})
	if v, _ := gaugeValue(t, td, "tirage_client_crl_refused"); v != 0 || crlAlarms(td) != 0 {
		t.Errorf("two CAs' CRLs taken: refused %v, %v alarms, want none", v, crlAlarms(td))
	}
	td.stop()

	// Each CA's CRL is remembered apart.
	newKey := fmt.Sprintf("(key %X)", keyID(ca2.ca)[:6])
	replaceFile(t, td.cfg.GRPC.ClientCRLFile, append(ca1.crlPEM(t, 1, then), ca2.crlPEM(t, 0, then)...))
	wantStartRefused(t, td, "the new CA's CRL rolled back", "has CRL number 0, lower than the newest rngd took (1)", newKey)
	replaceFile(t, td.cfg.GRPC.ClientCRLFile, ca1.crlPEM(t, 1, then, clientCert(t, td.pki, "server-b")))
	wantStartRefused(t, td, "the new CA's CRL left out", "no CRL of", newKey)
	replaceFile(t, td.cfg.GRPC.ClientCRLFile, ca2.crlPEM(t, 1, then))
	wantStartRefused(t, td, "the old CA's CRL left out", "no CRL of", fmt.Sprintf("(key %X)", keyID(ca1.ca)[:6]))
	replaceFile(t, td.cfg.GRPC.ClientCRLFile, both)
	td.start()
	wantHandshakeRefused(t, td, "server-b")
	plays(t, td, "server-x", "the new CA's, of the serial the old CA's CRL revokes")
}

// An intermediate CA of grpc.client_ca_file is looked up under the CA of
// the bundle whose key issued it, not under its issuer's name: of two CAs
// of that name, only the CRL of the one that issued it revokes it. It was
// looked up by name: the other CA's CRL listing its serial number refused
// every game server under it.
func TestCRLAnchorIssuerByKey(t *testing.T) {
	p, err := GenerateDevPKI(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ca1 := pkiIssuer(t, p.Dir)
	ca2, _ := rekeyedCA(t, p, nil)
	interKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	inter := newCA(t, "Game servers intermediate CA", interKey, ca2)
	if err := issue(clientTemplate("server-i"), inter.ca, interKey, p.ClientCert("server-i"), p.ClientKey("server-i")); err != nil {
		t.Fatal(err)
	}
	cas := []*x509.Certificate{ca1.ca, ca2.ca, inter.ca}
	pool := x509.NewCertPool()
	for _, ca := range cas {
		pool.AddCert(ca)
	}
	chains, err := clientCert(t, p, "server-i").Verify(x509.VerifyOptions{Roots: pool, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}})
	if err != nil {
		t.Fatal(err)
	}
	r := &revocation{issuers: issuersOf(cas)}
	now := time.Now()
	for _, c := range []struct {
		name    string
		crl     []byte
		revoked bool
	}{
		{"the other CA of that name revokes its serial", ca1.crlPEM(t, 1, now, inter.ca), false},
		{"its issuer revokes it", ca2.crlPEM(t, 1, now, inter.ca), true},
	} {
		crls, err := parseCRLs(c.crl, cas)
		if err != nil {
			t.Fatal(err)
		}
		r.cur.Store(crls)
		if got := r.revokedIn(chains); (got != nil) != c.revoked {
			t.Errorf("%s: revokedIn %v, want revoked %v", c.name, got != nil, c.revoked)
		}
	}
}

// A CRL whose authority key identifier is not the subject key identifier
// of the CA of its name whose key verifies it is refused (RFC 5280 §5.2.1:
// it names the key that signed it); the CA's own is taken. It was taken.
func TestParseCRLsKeyIdentifier(t *testing.T) {
	p, err := GenerateDevPKI(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	iss := pkiIssuer(t, p.Dir)
	if len(iss.ca.SubjectKeyId) == 0 {
		t.Fatal("the dev CA has no subject key identifier")
	}
	cas := []*x509.Certificate{iss.ca}
	now := time.Now()
	if _, err := parseCRLs(iss.crlPEM(t, 1, now), cas); err != nil {
		t.Fatalf("the CA's CRL: %v", err)
	}
	named := *iss.ca
	named.SubjectKeyId = []byte{1, 2, 3, 4}
	c, err := parseCRLs(crlIssuer{&named, iss.key}.crlPEM(t, 1, now), cas)
	if err == nil || !strings.Contains(err.Error(), "authority key identifier 01020304 is not the subject key identifier") {
		t.Errorf("a CRL naming another key: %s, %v; want refused", describeOrNil(c), err)
	}
}

// A memory of the CRLs taken written by an rngd that told CAs apart by
// name alone (format 1) is honoured: its marks refuse an older CRL of
// every CA of their name, are kept while no CRL of their name is taken
// (a CA out of the bundle), and give way to the marks, with keys, of the
// CRLs taken of their name; the memory is written again in format 2.
func TestCRLMemoryByName(t *testing.T) {
	td := newTestDaemon(t, withCRL(t, 3, "server-b"))
	rememberedNumber(t, td, 3)
	td.stop()
	state := filepath.Join(td.cfg.DataDir, crlStateFile)
	ca1 := pkiIssuer(t, td.pki.Dir)
	gone := newCA(t, "A CA out of the bundle", ca1.key, crlIssuer{})
	then := td.clock.Now().Add(-time.Hour)
	mark := func(name []byte, n int) string {
		return fmt.Sprintf(`{"issuer": %q, "number": "%d", "this_update": %q}`, base64.StdEncoding.EncodeToString(name), n, then.UTC().Format(time.RFC3339))
	}
	byName := fmt.Sprintf(`{"format": 1, "crls": [%s, %s]}`, mark(ca1.ca.RawSubject, 3), mark(gone.ca.RawSubject, 9))
	if err := os.WriteFile(state, []byte(byName), 0o600); err != nil {
		t.Fatal(err)
	}
	ca2, bundle := rekeyedCA(t, td.pki, nil)
	td.cfg.GRPC.ClientCAFile = bundle

	replaceFile(t, td.cfg.GRPC.ClientCRLFile, ca1.crlPEM(t, 2, then))
	wantStartRefused(t, td, "an older CRL than a mark by name", "lower than the newest rngd took (3)", "by its CA's name alone")
	replaceFile(t, td.cfg.GRPC.ClientCRLFile, append(ca1.crlPEM(t, 3, then, clientCert(t, td.pki, "server-b")), ca2.crlPEM(t, 1, then)...))
	wantStartRefused(t, td, "another CA of the name's older CRL beside", "has CRL number 1, lower than the newest rngd took (3)", "by its CA's name alone")

	replaceFile(t, td.cfg.GRPC.ClientCRLFile, ca1.crlPEM(t, 3, then, clientCert(t, td.pki, "server-b")))
	td.start()
	wantHandshakeRefused(t, td, "server-b")
	isGone := func(m crlMark) bool {
		return m.key == nil && bytes.Equal(m.issuer, gone.ca.RawSubject) && m.number.Int64() == 9
	}
	eventually(t, "the memory written again, with keys", func() bool {
		b, err := os.ReadFile(state)
		ms, _ := parseCRLState(b)
		return err == nil && bytes.Contains(b, []byte(`"format": 2`)) && len(ms) == 2 && (isGone(ms[0]) || isGone(ms[1])) &&
			hasMark(ms, keyID(ca1.ca), 3)
	})
	// The memory by name bound the old CA's CRL, taken at the start: the
	// new CA's CRL is taken beside it.
	replaceFile(t, td.cfg.GRPC.ClientCRLFile, append(ca1.crlPEM(t, 3, then, clientCert(t, td.pki, "server-b")), ca2.crlPEM(t, 1, then)...))
	eventually(t, "the new CA's CRL taken", func() bool { return len(td.d.crl.cur.Load().lists) == 2 })
	eventually(t, "the new CA's CRL remembered", func() bool {
		ms, _, err := loadCRLState(state)
		return err == nil && len(ms) == 3 && hasMark(ms, keyID(ca2.ca), 1)
	})
}

// hasMark reports whether ms holds a mark of the CA of key id (keyID),
// of CRL number n.
func hasMark(ms []crlMark, id []byte, n int64) bool {
	for _, m := range ms {
		if bytes.Equal(m.key, id) && m.number != nil && m.number.Int64() == n {
			return true
		}
	}
	return false
}

// A CA re-keyed under the same name whose new key the old certified (a
// link certificate: self-issued, not self-signed, RFC 4210 §4.4's
// NewWithOld), in grpc.client_ca_file beside the old CA, is an anchor the
// new key's game servers' chains end at: a CRL of the old CA that revokes
// it refuses them, as an intermediate of the bundle's revocation by its
// issuer does. The new CA's self-signed certificate, beside it, is a root,
// not looked up. An anchor that was its own issuer by name was not looked
// up: the old CA's revocation of the link went unheeded.
func TestCRLRevokesLinkCertificate(t *testing.T) {
	p, err := GenerateDevPKI(t.TempDir(), "server-a")
	if err != nil {
		t.Fatal(err)
	}
	old := pkiIssuer(t, p.Dir)
	newKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	link := newCA(t, old.ca.Subject.CommonName, newKey, old)
	root := newCA(t, old.ca.Subject.CommonName, newKey, crlIssuer{})
	if !bytes.Equal(link.ca.RawIssuer, link.ca.RawSubject) || !bytes.Equal(root.ca.RawSubject, old.ca.RawSubject) {
		t.Fatal("the link certificate is not self-issued, or the new CA not of the old one's name")
	}
	if err := issue(clientTemplate("server-n"), link.ca, newKey, p.ClientCert("server-n"), p.ClientKey("server-n")); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	for _, c := range []struct {
		name    string
		cas     []*x509.Certificate
		crl     []byte
		revoked *x509.Certificate
	}{
		{"the old CA revokes the link", []*x509.Certificate{old.ca, link.ca}, old.crlPEM(t, 1, now, link.ca), link.ca},
		{"the old CA revokes another serial", []*x509.Certificate{old.ca, link.ca}, old.crlPEM(t, 1, now, clientCert(t, p, "server-a")), nil},
		{"the new root's CRL lists its own serial", []*x509.Certificate{root.ca}, root.crlPEM(t, 1, now, root.ca), nil},
		{"the new root's CRL lists its own serial, the link beside it", []*x509.Certificate{link.ca, root.ca}, root.crlPEM(t, 1, now, root.ca), nil},
	} {
		pool := x509.NewCertPool()
		for _, ca := range c.cas {
			pool.AddCert(ca)
		}
		chains, err := clientCert(t, p, "server-n").Verify(x509.VerifyOptions{Roots: pool, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		crls, err := parseCRLs(c.crl, c.cas)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		r := &revocation{issuers: issuersOf(c.cas)}
		r.cur.Store(crls)
		if got := r.revokedIn(chains); got != c.revoked {
			t.Errorf("%s: revokedIn %s, want %s", c.name, serialOf(got), serialOf(c.revoked))
		}
	}
}

// serialOf is cert's serial number for messages; "none" when cert is nil.
func serialOf(cert *x509.Certificate) string {
	if cert == nil {
		return "none"
	}
	return fmt.Sprintf("serial %X", cert.SerialNumber)
}
