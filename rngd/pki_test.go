package rngd

import (
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// A dev PKI whose certificates have expired (a make run data directory two
// years on) is renewed by GenerateDevPKI, as a missing one is made: an
// expired leaf is issued again under the CA, an expired CA is replaced and
// every certificate asked for is issued again under the new one. Valid
// certificates are kept.
func TestDevPKIRenewsExpired(t *testing.T) {
	readCert := func(t *testing.T, path string) *x509.Certificate {
		t.Helper()
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		blk, _ := pem.Decode(b)
		if blk == nil {
			t.Fatalf("%s: no PEM block", path)
		}
		c, err := x509.ParseCertificate(blk.Bytes)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	// expire re-issues the certificate at certPath (with keyPath) as one
	// that expired a day ago, signed by the PKI's CA, or self-signed for
	// the CA itself.
	expire := func(t *testing.T, p DevPKI, certPath, keyPath string) {
		t.Helper()
		ca, caKey, err := loadCA(p)
		if err != nil {
			t.Fatal(err)
		}
		old := readCert(t, certPath)
		tmpl := leafTemplate(old.Subject.CommonName)
		tmpl.NotBefore, tmpl.NotAfter = time.Now().AddDate(-2, 0, -1), time.Now().AddDate(0, 0, -1)
		tmpl.DNSNames, tmpl.IPAddresses, tmpl.ExtKeyUsage = old.DNSNames, old.IPAddresses, old.ExtKeyUsage
		if certPath == p.CA() {
			tmpl.IsCA, tmpl.BasicConstraintsValid, tmpl.KeyUsage = true, true, old.KeyUsage
			der, err := x509.CreateCertificate(nil, tmpl, tmpl, &caKey.PublicKey, caKey)
			if err != nil {
				t.Fatal(err)
			}
			if err := writeKeyPair(der, caKey, certPath, keyPath); err != nil {
				t.Fatal(err)
			}
			return
		}
		if err := issue(tmpl, ca, caKey, certPath, keyPath); err != nil {
			t.Fatal(err)
		}
	}
	// check says that every certificate of p chains to its CA today.
	check := func(t *testing.T, p DevPKI) {
		t.Helper()
		ca := readCert(t, p.CA())
		pool := x509.NewCertPool()
		pool.AddCert(ca)
		for _, c := range []struct {
			path  string
			usage x509.ExtKeyUsage
		}{{p.ServerCert(), x509.ExtKeyUsageServerAuth}, {p.ClientCert("client"), x509.ExtKeyUsageClientAuth}} {
			if _, err := readCert(t, c.path).Verify(x509.VerifyOptions{Roots: pool, KeyUsages: []x509.ExtKeyUsage{c.usage}}); err != nil {
				t.Errorf("%s after GenerateDevPKI: %v", filepath.Base(c.path), err)
			}
		}
	}

	t.Run("leaf", func(t *testing.T) {
		p, err := GenerateDevPKI(t.TempDir(), "client")
		if err != nil {
			t.Fatal(err)
		}
		expire(t, p, p.ServerCert(), p.ServerKey())
		ca, client := readCert(t, p.CA()), readCert(t, p.ClientCert("client"))
		if _, err := GenerateDevPKI(p.Dir, "client"); err != nil {
			t.Fatal(err)
		}
		check(t, p)
		if !readCert(t, p.CA()).Equal(ca) || !readCert(t, p.ClientCert("client")).Equal(client) {
			t.Error("a valid certificate was replaced")
		}
	})
	t.Run("ca", func(t *testing.T) {
		p, err := GenerateDevPKI(t.TempDir(), "client")
		if err != nil {
			t.Fatal(err)
		}
		expire(t, p, p.CA(), filepath.Join(p.Dir, devCAKey))
		if _, err := GenerateDevPKI(p.Dir, "client"); err != nil {
			t.Fatal(err)
		}
		check(t, p)
	})
}
