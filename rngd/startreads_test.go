package rngd

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// sized is a copy of the file at src, in a directory of its own, grown
// to n bytes (grow).
func sized(t *testing.T, src string, n int) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), filepath.Base(src))
	copyFile(t, src, dst)
	fi, err := os.Stat(dst)
	if err != nil {
		t.Fatal(err)
	}
	grow(t, dst, n-int(fi.Size()))
	return dst
}

// grow appends n newlines to the file at path: a file that still parses
// as before, read whole, but is larger.
func grow(t *testing.T, path string, n int) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(bytes.Repeat([]byte("\n"), n)); err != nil {
		t.Fatal(err)
	}
}

// A certificate file (grpc.cert_file) larger than maxTLSFile is refused,
// as the key and the CA bundles are, in an error naming the config key
// and holding nothing of the file: it was read whole, whatever its size.
func TestServerCertFileBounded(t *testing.T) {
	p, err := GenerateDevPKI(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	marker := "-----BEGIN CERTIFICATE-----\nTIRAGEMARKER"
	big := filepath.Join(t.TempDir(), "rngd.pem")
	if err := os.WriteFile(big, []byte(marker+strings.Repeat("A", maxTLSFile)), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := Config{GRPC: GRPCConfig{CertFile: big, KeyFile: p.ServerKey(), ClientCAFile: p.CA()}}
	_, _, err = serverTLS(cfg)
	if err == nil || !strings.Contains(err.Error(), "grpc.cert_file") || !strings.Contains(err.Error(), "couldn't read the certificate: larger than 1 MiB") {
		t.Fatalf("serverTLS with a certificate file of %d bytes: %v; want grpc.cert_file's \"couldn't read the certificate: larger than 1 MiB\"", maxTLSFile+len(marker), err)
	}
	if strings.Contains(err.Error(), "TIRAGEMARKER") {
		t.Errorf("the error holds the file's content: %v", err)
	}

	// A certificate of maxTLSFile bytes is read.
	cfg.GRPC.CertFile = sized(t, p.ServerCert(), maxTLSFile)
	if _, _, err := serverTLS(cfg); err != nil {
		t.Errorf("serverTLS with a certificate file of maxTLSFile bytes: %v", err)
	}
}

// A read of the daemon's key (grpc.key_file) abandoned at the start,
// when it has not answered within trustedReadTimeout, wipes the key it
// returns if it answers later: it was left on the heap, unwiped, as
// readSecretCtx's late passphrase or PIN never was.
func TestServerKeyReadAbandonedWiped(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		unblock := make(chan struct{})
		key := []byte("-----BEGIN PRIVATE KEY-----\nsecret\n-----END PRIVATE KEY-----\n")
		cfg := Config{trustedReadTimeout: 50 * time.Millisecond}
		cfg.GRPC.CertFile, cfg.GRPC.KeyFile = "rngd.pem", "rngd.key"
		cfg.certRead = func(string) ([]byte, error) { return []byte("a certificate"), nil }
		cfg.keyRead = func(string) ([]byte, error) {
			<-unblock
			return key, nil
		}
		_, _, err := serverTLS(cfg)
		if err == nil || !strings.Contains(err.Error(), "couldn't read the key: no answer within 50ms") {
			t.Fatalf("serverTLS with a key read that hangs: %v; want \"couldn't read the key: no answer within 50ms\"", err)
		}
		close(unblock)
		synctest.Wait() // the late read has answered, and whatever follows it ended
		if !bytes.Equal(key, make([]byte, len(key))) {
			t.Errorf("the key a read abandoned returned late is not wiped: %q", key)
		}
	})
}

// The dev PKI's files read back when they exist (ca.pem, ca.key,
// server.pem, a client's certificate) are refused when larger than
// maxTLSFile, in an error naming the file: each was read whole, whatever
// its size, and taken.
func TestDevPKIFilesBounded(t *testing.T) {
	for _, name := range []string{devCACert, devCAKey, devServerCert, "client.pem"} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			if _, err := GenerateDevPKI(dir, "client"); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, name)
			grow(t, path, maxTLSFile)
			_, err := GenerateDevPKI(dir, "client")
			want := "couldn't read the dev pki's " + path + ": larger than 1 MiB"
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Fatalf("GenerateDevPKI with %s grown past maxTLSFile: %v; want %q", name, err, want)
			}
		})
	}
}

// A certificate file that holds the key too (grpc.cert_file one PEM file
// for both, which tls.X509KeyPair takes) is wiped once parsed, as the key
// file is, and so when the key's read is refused: the key in it was left
// on the heap, unwiped.
func TestServerCertFileWithKeyWiped(t *testing.T) {
	p, err := GenerateDevPKI(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	certPEM, err := os.ReadFile(p.ServerCert())
	if err != nil {
		t.Fatal(err)
	}
	keyPEM, err := os.ReadFile(p.ServerKey())
	if err != nil {
		t.Fatal(err)
	}
	both := append(append([]byte(nil), certPEM...), keyPEM...)
	for _, keyErr := range []error{nil, errors.New("the private key is open to group or others")} {
		var read [][]byte
		cfg := Config{GRPC: GRPCConfig{CertFile: "rngd.pem", KeyFile: "rngd.pem", ClientCAFile: p.CA()}}
		cfg.certRead = func(string) ([]byte, error) {
			b := bytes.Clone(both)
			read = append(read, b)
			return b, nil
		}
		cfg.keyRead = func(string) ([]byte, error) {
			if keyErr != nil {
				return nil, keyErr
			}
			b := bytes.Clone(both)
			read = append(read, b)
			return b, nil
		}
		if _, _, err := serverTLS(cfg); !errors.Is(err, keyErr) {
			t.Fatalf("serverTLS, the key's read failing with %v: %v", keyErr, err)
		}
		for i, b := range read {
			if !bytes.Equal(b, make([]byte, len(b))) {
				t.Errorf("the key's read failing with %v: read %d of the certificate and key file not wiped", keyErr, i)
			}
		}
	}
}
