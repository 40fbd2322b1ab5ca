package rngd

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"

	"tirage.fr/tirage/rngd/internal/boundedfile"
)

// DevPKI names the files of a development PKI made by [GenerateDevPKI]: a CA,
// the daemon's server certificate (for 127.0.0.1 and localhost) and one client
// certificate per game server. In production the operator's own PKI issues
// these; the daemon only reads them.
type DevPKI struct {
	Dir string
}

// File names inside a DevPKI directory.
const (
	devCACert     = "ca.pem"
	devCAKey      = "ca.key"
	devServerCert = "server.pem"
	devServerKey  = "server.key"
)

// CA is the path of the CA certificate.
func (p DevPKI) CA() string { return filepath.Join(p.Dir, devCACert) }

// ServerCert and ServerKey are the daemon's certificate and key.
func (p DevPKI) ServerCert() string { return filepath.Join(p.Dir, devServerCert) }
func (p DevPKI) ServerKey() string  { return filepath.Join(p.Dir, devServerKey) }

// ClientCert and ClientKey are the files of the client certificate named
// name ("client" for the demo game server).
func (p DevPKI) ClientCert(name string) string { return filepath.Join(p.Dir, name+".pem") }
func (p DevPKI) ClientKey(name string) string  { return filepath.Join(p.Dir, name+".key") }

// GenerateDevPKI makes, in dir, a CA, a server certificate and a client
// certificate for each name in clients (whose identity is that name), unless
// the CA already exists: then only the certificates missing, expiring
// within devRenewBefore or not issued by the CA are made again. A CA that
// expires so is made again, and so is every certificate asked for (a make
// run data directory from two years ago). Keys are ECDSA P-256, written
// with mode 0600.
func GenerateDevPKI(dir string, clients ...string) (DevPKI, error) {
	p := DevPKI{Dir: dir}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return p, fmt.Errorf("couldn't make the dev pki directory: %w", err)
	}
	caCert, caKey, err := loadCA(p)
	if err == nil && expiring(caCert) {
		err = os.ErrNotExist
	}
	if errors.Is(err, os.ErrNotExist) {
		caCert, caKey, err = makeCA(p)
	}
	if err != nil {
		return p, err
	}
	// reissue: the certificate at path is missing, expiring or not the
	// CA's; one that cannot be read otherwise (larger than maxTLSFile,
	// say) is an error.
	reissue := func(path string) (bool, error) {
		b, err := readTLSFile(devFiles, path)
		if errors.Is(err, os.ErrNotExist) {
			return true, nil
		}
		if err != nil {
			return false, err
		}
		blk, _ := pem.Decode(b)
		if blk == nil {
			return true, nil
		}
		c, err := x509.ParseCertificate(blk.Bytes)
		return err != nil || expiring(c) || c.CheckSignatureFrom(caCert) != nil, nil
	}
	again, err := reissue(p.ServerCert())
	if err != nil {
		return p, err
	}
	if again {
		tmpl := leafTemplate("rngd")
		tmpl.DNSNames = []string{"localhost", "rngd"}
		tmpl.IPAddresses = []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback}
		tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
		if err := issue(tmpl, caCert, caKey, p.ServerCert(), p.ServerKey()); err != nil {
			return p, err
		}
	}
	for _, name := range clients {
		again, err := reissue(p.ClientCert(name))
		if err != nil {
			return p, err
		}
		if !again {
			continue
		}
		if err := issue(clientTemplate(name), caCert, caKey, p.ClientCert(name), p.ClientKey(name)); err != nil {
			return p, err
		}
	}
	return p, nil
}

// devRenewBefore: a dev certificate that expires within it is made again.
const devRenewBefore = 24 * time.Hour

// expiring says whether c expires within devRenewBefore.
func expiring(c *x509.Certificate) bool {
	return time.Now().Add(devRenewBefore).After(c.NotAfter)
}

func leafTemplate(cn string) *x509.Certificate {
	serial, _ := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	now := time.Now()
	return &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: cn, Organization: []string{"Tirage dev"}},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.AddDate(2, 0, 0),
		KeyUsage:     x509.KeyUsageDigitalSignature,
	}
}

// clientTemplate is the certificate of the game server name: its identity
// is name.
func clientTemplate(name string) *x509.Certificate {
	tmpl := leafTemplate(name)
	tmpl.DNSNames = []string{name}
	tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}
	return tmpl
}

// devFiles names the dev PKI's files in readTLSFile's errors.
const devFiles = "the dev pki's"

// readTLSFile reads the TLS file at path (a certificate, a key, a CA
// bundle), called name in errors, of at most maxTLSFile bytes: a damaged
// or planted huge file is not read whole. Its errors name the file (name
// and path: a path given as a certificate's, a key's or a bundle's, no
// secret) and hold nothing of it; one missing is os.ErrNotExist.
func readTLSFile(name, path string) ([]byte, error) {
	b, err := boundedfile.Read(path, maxTLSFile)
	if err != nil {
		return nil, fmt.Errorf("couldn't read %s %s: %w", name, path, err)
	}
	return b, nil
}

// loadKeyPair reads the certificate certFile and its key keyFile
// (readTLSFile, both called name in errors) and parses them as a pair
// (keyPair, which wipes what was read). tls.LoadX509KeyPair read both
// whole, whatever their size, and left the key on the heap.
func loadKeyPair(certFile, keyFile, name string) (tls.Certificate, error) {
	certPEM, err := readTLSFile(name, certFile)
	if err != nil {
		return tls.Certificate{}, err
	}
	keyPEM, err := readTLSFile(name, keyFile)
	if err != nil {
		clear(certPEM)
		return tls.Certificate{}, err
	}
	return keyPair(certPEM, keyPEM)
}

// keyPair parses a certificate and its key (tls.X509KeyPair) and wipes
// both files' bytes once parsed: the key's, and the certificate's, which
// may hold the key too (one PEM file for both, which tls.X509KeyPair
// takes: a block of each kind). The pair holds copies (the DER decoded
// from the PEM).
func keyPair(certPEM, keyPEM []byte) (tls.Certificate, error) {
	defer clear(certPEM)
	defer clear(keyPEM)
	return tls.X509KeyPair(certPEM, keyPEM)
}

func makeCA(p DevPKI) (*x509.Certificate, *ecdsa.PrivateKey, error) {
	tmpl := leafTemplate("Tirage dev CA")
	tmpl.IsCA = true
	tmpl.BasicConstraintsValid = true
	tmpl.KeyUsage = x509.KeyUsageCertSign | x509.KeyUsageCRLSign
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, fmt.Errorf("couldn't make the dev ca key: %w", err)
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, nil, fmt.Errorf("couldn't make the dev ca: %w", err)
	}
	if err := writeKeyPair(der, key, p.CA(), filepath.Join(p.Dir, devCAKey)); err != nil {
		return nil, nil, err
	}
	cert, err := x509.ParseCertificate(der)
	return cert, key, err
}

// loadCA reads the dev PKI's CA and its key (loadKeyPair). Its error is
// os.ErrNotExist when either is missing: GenerateDevPKI then makes a CA.
func loadCA(p DevPKI) (*x509.Certificate, *ecdsa.PrivateKey, error) {
	pair, err := loadKeyPair(p.CA(), filepath.Join(p.Dir, devCAKey), devFiles)
	if err != nil {
		return nil, nil, fmt.Errorf("couldn't load the dev ca: %w", err)
	}
	key, ok := pair.PrivateKey.(*ecdsa.PrivateKey)
	if !ok {
		return nil, nil, errors.New("dev ca key is not an ecdsa key")
	}
	cert, err := x509.ParseCertificate(pair.Certificate[0])
	return cert, key, err
}

func issue(tmpl, ca *x509.Certificate, caKey *ecdsa.PrivateKey, certPath, keyPath string) error {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return fmt.Errorf("couldn't make a key for %s: %w", tmpl.Subject.CommonName, err)
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		return fmt.Errorf("couldn't issue a certificate for %s: %w", tmpl.Subject.CommonName, err)
	}
	return writeKeyPair(der, key, certPath, keyPath)
}

func writeKeyPair(der []byte, key *ecdsa.PrivateKey, certPath, keyPath string) error {
	kb, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return fmt.Errorf("couldn't encode a key: %w", err)
	}
	if err := os.WriteFile(keyPath, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kb}), 0o600); err != nil {
		return fmt.Errorf("couldn't write a key: %w", err)
	}
	if err := os.WriteFile(certPath, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
		return fmt.Errorf("couldn't write a certificate: %w", err)
	}
	return nil
}

// mutualTLS is the game servers' listener's TLS: 1.3, the daemon's
// certificate, client certificates required and verified against pool.
func mutualTLS(pair tls.Certificate, pool *x509.CertPool) *tls.Config {
	return &tls.Config{
		MinVersion:   tls.VersionTLS13,
		Certificates: []tls.Certificate{pair},
		ClientAuth:   tls.RequireAndVerifyClientCert,
		ClientCAs:    pool,
	}
}

// readTLS is the auditors' listener's TLS: 1.3 and the daemon's
// certificate. The log is public, so no client certificate is asked for,
// unless pool is set: then one issued by pool is required and verified.
func readTLS(pair tls.Certificate, pool *x509.CertPool) *tls.Config {
	c := &tls.Config{MinVersion: tls.VersionTLS13, Certificates: []tls.Certificate{pair}, ClientAuth: tls.NoClientCert}
	if pool != nil {
		c.ClientAuth, c.ClientCAs = tls.RequireAndVerifyClientCert, pool
	}
	return c
}

// ClientTLS is the TLS configuration of a game server: its certificate, and
// the CA that issued the daemon's. Each file is at most maxTLSFile bytes.
func ClientTLS(certFile, keyFile, caFile string) (*tls.Config, error) {
	pair, err := loadKeyPair(certFile, keyFile, "the client's")
	if err != nil {
		return nil, fmt.Errorf("couldn't load the client certificate: %w", err)
	}
	pool, err := loadPool(caFile)
	if err != nil {
		return nil, err
	}
	return &tls.Config{MinVersion: tls.VersionTLS13, Certificates: []tls.Certificate{pair}, RootCAs: pool}, nil
}

// clientTLSRoots trusts the CA bundle in caFile, without a client certificate.
func clientTLSRoots(caFile string) (*tls.Config, error) {
	pool, err := loadPool(caFile)
	if err != nil {
		return nil, err
	}
	return &tls.Config{MinVersion: tls.VersionTLS12, RootCAs: pool}, nil
}

// loadPool is the pool of the certificates of the ca bundle caFile, of at
// most maxTLSFile bytes (readTLSFile).
func loadPool(caFile string) (*x509.CertPool, error) {
	pem, err := readTLSFile(caBundleName, caFile)
	if err != nil {
		return nil, err
	}
	return poolFrom(pem, caFile)
}

// poolFrom is the pool of the certificates of the ca bundle caFile, read
// as pem.
func poolFrom(pem []byte, caFile string) (*x509.CertPool, error) {
	pool, _, err := caBundle(pem, caFile)
	return pool, err
}

// caBundle parses the ca bundle caFile, read as b: the certificates that
// x509.CertPool.AppendCertsFromPEM would take (PEM blocks of type
// CERTIFICATE, without headers, that parse), each parsed once, and their
// pool.
func caBundle(b []byte, caFile string) (*x509.CertPool, []*x509.Certificate, error) {
	pool := x509.NewCertPool()
	var cas []*x509.Certificate
	for rest := b; ; {
		var blk *pem.Block
		if blk, rest = pem.Decode(rest); blk == nil {
			break
		}
		if blk.Type != "CERTIFICATE" || len(blk.Headers) != 0 {
			continue
		}
		if c, err := x509.ParseCertificate(blk.Bytes); err == nil {
			pool.AddCert(c)
			cas = append(cas, c)
		}
	}
	if len(cas) == 0 {
		return nil, nil, fmt.Errorf("no certificate in the ca bundle %s", caFile)
	}
	return pool, cas, nil
}

// Identity is a game server's identity: the first DNS name of its verified
// client certificate, or its subject common name when it has none.
func Identity(cert *x509.Certificate) string {
	if len(cert.DNSNames) > 0 {
		return cert.DNSNames[0]
	}
	return cert.Subject.CommonName
}
