package rngd

import (
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
	"strings"
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

// The files ClientTLS and clientTLSRoots (log.trillian_ca_file
// at the start) read, a certificate, its key and a CA bundle, are refused
// when larger than maxTLSFile, in an error naming the file and holding
// nothing of it: each was read whole, whatever its size. A file of
// maxTLSFile bytes is read.
func TestTLSFilesBounded(t *testing.T) {
	p, err := GenerateDevPKI(t.TempDir(), "client")
	if err != nil {
		t.Fatal(err)
	}
	files := []string{p.ClientCert("client"), p.ClientKey("client"), p.CA()}
	names := []string{"the client's", "the client's", caBundleName}
	for i := range files {
		t.Run("ClientTLS/"+filepath.Base(files[i]), func(t *testing.T) {
			args := append([]string(nil), files...)
			args[i] = sized(t, files[i], maxTLSFile+1)
			_, err := ClientTLS(args[0], args[1], args[2])
			want := "couldn't read " + names[i] + " " + args[i] + ": larger than 1 MiB"
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Fatalf("ClientTLS with %s of maxTLSFile+1 bytes: %v; want %q", filepath.Base(files[i]), err, want)
			}
			if strings.Contains(err.Error(), "-----BEGIN") {
				t.Errorf("the error holds the file's content: %v", err)
			}
			args[i] = sized(t, files[i], maxTLSFile)
			if _, err := ClientTLS(args[0], args[1], args[2]); err != nil {
				t.Errorf("ClientTLS with %s of maxTLSFile bytes: %v", filepath.Base(files[i]), err)
			}
		})
	}
	t.Run("clientTLSRoots", func(t *testing.T) {
		big := sized(t, p.CA(), maxTLSFile+1)
		want := "couldn't read the ca bundle " + big + ": larger than 1 MiB"
		if _, err := clientTLSRoots(big); err == nil || err.Error() != want {
			t.Fatalf("clientTLSRoots of a bundle of maxTLSFile+1 bytes: %v; want %q", err, want)
		}
		if _, err := clientTLSRoots(sized(t, p.CA(), maxTLSFile)); err != nil {
			t.Errorf("clientTLSRoots of a bundle of maxTLSFile bytes: %v", err)
		}
	})
}
