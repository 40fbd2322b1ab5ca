package rngd

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	qodv1 "tirage.fr/tirage/rngd/api/tirage/qod/v1"
)

// intermediateCA makes, in the dev PKI p, a CA "Game servers intermediate
// CA" that p's CA issued, and a certificate it issued for each game server
// of clients. When sent, each one's certificate file holds the
// intermediate's after its own: its client sends the chain
// (tls.LoadX509KeyPair).
func intermediateCA(t testing.TB, p DevPKI, sent bool, clients ...string) crlIssuer {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	inter := newCA(t, "Game servers intermediate CA", key, pkiIssuer(t, p.Dir))
	interPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: inter.ca.Raw})
	for _, name := range clients {
		if err := issue(clientTemplate(name), inter.ca, key, p.ClientCert(name), p.ClientKey(name)); err != nil {
			t.Fatal(err)
		}
		if !sent {
			continue
		}
		f, err := os.OpenFile(p.ClientCert(name), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Write(interPEM); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	return inter
}

// A CRL of the CA of grpc.client_ca_file that revokes an intermediate CA
// refuses every game server whose certificate the intermediate issued: a
// connection open is closed when the CRL is taken, a new one refused at
// its handshake; before it, such a game server plays, and the others play
// on. Only the client's own certificate was looked up: the intermediate's
// revocation had no effect.
func TestCRLRevokesIntermediate(t *testing.T) {
	var inter crlIssuer
	td := newTestDaemon(t, withCRL(t, 1), func(c *Config) {
		inter = intermediateCA(t, DevPKI{Dir: filepath.Dir(c.GRPC.ClientCAFile)}, true, "server-i")
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// Not revoked: server-i, under the intermediate, plays.
	codes1 := td.emission("CRL", "2026-12-31", 4)
	start(t, td.client("server-i"), codes1[0])
	ended := openWatch(t, ctx, td.conn("server-i"))
	replaceFile(t, td.cfg.GRPC.ClientCRLFile, pkiIssuer(t, td.pki.Dir).crlPEM(t, 2, td.clock.Now(), inter.ca))
	wantWatchClosed(t, ended, "a game server's connection under the revoked intermediate")
	wantHandshakeRefused(t, td, "server-i")
	start(t, td.client("server-a"), codes1[1])
}

// A call of a connection whose certificate's intermediate CA a CRL in
// force revokes, the connection not closed yet, is refused CERT_REVOKED,
// naming the CA; closeRevoked closes it.
func TestCRLRevokesIntermediateCalls(t *testing.T) {
	var inter crlIssuer
	td := newTestDaemon(t, withCRL(t, 1), func(c *Config) {
		inter = intermediateCA(t, DevPKI{Dir: filepath.Dir(c.GRPC.ClientCAFile)}, true, "server-i")
	})
	ctx := context.Background()
	i := td.client("server-i")
	if _, err := i.ListUnfinishedGames(ctx, &qodv1.ListUnfinishedGamesRequest{}); err != nil {
		t.Fatal(err)
	}
	// The CRL in force first, the file after: the watch closes nothing.
	crl := pkiIssuer(t, td.pki.Dir).crlPEM(t, 2, td.clock.Now(), inter.ca)
	c, err := parseCRLs(crl, td.d.crl.cas)
	if err != nil {
		t.Fatal(err)
	}
	td.d.crl.cur.Store(c)
	replaceFile(t, td.cfg.GRPC.ClientCRLFile, crl)
	_, err = i.ListUnfinishedGames(ctx, &qodv1.ListUnfinishedGamesRequest{})
	wantRefusal(t, err, reasonCertRevoked, "Game servers intermediate CA")
	if n := td.d.crl.closeRevoked(); n != 1 {
		t.Errorf("closeRevoked closed %d connections, want server-i's", n)
	}
	if _, err := td.client("server-a").ListUnfinishedGames(ctx, &qodv1.ListUnfinishedGamesRequest{}); err != nil {
		t.Errorf("server-a: %v", err)
	}
}

// An intermediate CA in grpc.client_ca_file, beside the CA that issued
// it: its CRL is taken and revokes the certificates it issued; a CRL of
// its issuer that revokes it refuses the game servers under it, which need
// not send it (it is a trust anchor of their chains). Only the client's
// own certificate was looked up: the intermediate's revocation had no
// effect.
func TestCRLRevokesIntermediateInBundle(t *testing.T) {
	var inter crlIssuer
	td := newTestDaemon(t, withCRL(t, 1), func(c *Config) {
		p := DevPKI{Dir: filepath.Dir(c.GRPC.ClientCAFile)}
		inter = intermediateCA(t, p, false, "server-i", "server-j")
		root, err := os.ReadFile(p.CA())
		if err != nil {
			t.Fatal(err)
		}
		c.GRPC.ClientCAFile = filepath.Join(p.Dir, "bundle.pem")
		replaceFile(t, c.GRPC.ClientCAFile, append(root, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: inter.ca.Raw})...))
		now := c.Clock.Now().Add(-time.Hour)
		replaceFile(t, c.GRPC.ClientCRLFile, append(pkiIssuer(t, p.Dir).crlPEM(t, 1, now), inter.crlPEM(t, 1, now, clientCert(t, p, "server-j"))...))
	})
	ctx := context.Background()
	if _, err := td.client("server-i").ListUnfinishedGames(ctx, &qodv1.ListUnfinishedGamesRequest{}); err != nil {
		t.Fatalf("server-i, under the intermediate of the bundle, not revoked: %v", err)
	}
	wantHandshakeRefused(t, td, "server-j")

	now := td.clock.Now()
	replaceFile(t, td.cfg.GRPC.ClientCRLFile, append(pkiIssuer(t, td.pki.Dir).crlPEM(t, 2, now, inter.ca), inter.crlPEM(t, 1, now.Add(-time.Hour), clientCert(t, td.pki, "server-j"))...))
	eventually(t, "the root's CRL taken", func() bool {
		return td.d.crl.cur.Load().revoked[revokedKey(pkiIssuer(t, td.pki.Dir).ca, inter.ca.SerialNumber)]
	})
	wantHandshakeRefused(t, td, "server-i")
	if !strings.Contains(string(td.logs()), `revoked="CA certificate \"CN=Game servers intermediate CA`) {
		t.Errorf("the handshake's refusal does not name the intermediate")
	}
	if _, err := td.client("server-a").ListUnfinishedGames(ctx, &qodv1.ListUnfinishedGamesRequest{}); err != nil {
		t.Errorf("server-a: %v", err)
	}
}

// The self-signed root a chain ends at is not looked up in its own CRL: it
// is trusted as grpc.client_ca_file holds it (RFC 5280 §6.1.1 (d)), and a
// certificate it issued with the root's serial number (a PKI that numbers
// its certificates from 1, the root's too), revoked, refused every game
// server under the root.
func TestCRLRootNotLookedUp(t *testing.T) {
	p, err := GenerateDevPKI(t.TempDir(), "server-a")
	if err != nil {
		t.Fatal(err)
	}
	root := pkiIssuer(t, p.Dir)
	tmpl := clientTemplate("server-x")
	tmpl.SerialNumber = root.ca.SerialNumber
	if err := issue(tmpl, root.ca, root.key.(*ecdsa.PrivateKey), p.ClientCert("server-x"), p.ClientKey("server-x")); err != nil {
		t.Fatal(err)
	}
	c, err := parseCRLs(root.crlPEM(t, 1, time.Now(), clientCert(t, p, "server-x")), []*x509.Certificate{root.ca})
	if err != nil {
		t.Fatal(err)
	}
	r := &revocation{issuers: issuersOf([]*x509.Certificate{root.ca})}
	r.cur.Store(c)
	pool := x509.NewCertPool()
	pool.AddCert(root.ca)
	chains := func(name string) [][]*x509.Certificate {
		chains, err := clientCert(t, p, name).Verify(x509.VerifyOptions{Roots: pool, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}})
		if err != nil {
			t.Fatal(err)
		}
		return chains
	}
	if cert := r.revokedIn(chains("server-a")); cert != nil {
		t.Errorf("server-a, not revoked: refused, %s", revokedWhat(chains("server-a")[0][0], cert))
	}
	x := chains("server-x")
	if cert := r.revokedIn(x); cert != x[0][0] {
		t.Errorf("server-x, revoked: revokedIn is %v, want its certificate", cert)
	}
}
