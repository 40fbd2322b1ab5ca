package keystore_test

import (
	"bytes"
	"crypto/rand"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tirage.fr/tirage/hsm"
	"tirage.fr/tirage/hsm/hsmtest"
	"tirage.fr/tirage/hsm/keystore"
	"tirage.fr/tirage/verifier/vrf"
)

// testKDF keeps the tests fast; files record their parameters, so Open
// reads them back whatever DefaultKDF is.
var testKDF = keystore.KDFParams{Time: 1, MemoryKiB: 8 * 1024, Threads: 2}

const passphrase = "correct horse battery staple"

func openIn(dir string) func(t *testing.T, secret []byte, log *slog.Logger) (hsm.Backend, error) {
	return func(t *testing.T, secret []byte, log *slog.Logger) (hsm.Backend, error) {
		s, err := keystore.Open(keystore.Config{Dir: dir, Passphrase: secret, KDF: testKDF, Logger: log})
		if err != nil {
			return nil, err
		}
		return s, nil
	}
}

func TestConformance(t *testing.T) {
	hsmtest.Run(t, hsmtest.Harness{
		Open:           openIn(filepath.Join(t.TempDir(), "keys")),
		Secret:         []byte(passphrase),
		WrongSecret:    []byte("incorrect horse battery staple"),
		Kind:           "software",
		Software:       true,
		VRFSuites:      []vrf.Suite{vrf.SuiteP256SSWU, vrf.SuiteRSAFDH256},
		SignAlgorithms: []string{hsm.Ed25519, hsm.ECDSAP256SHA256},
		KeyMaterial:    keystore.KeyMaterial,
	})
}

func open(t *testing.T, dir string) *keystore.Store {
	t.Helper()
	s, err := keystore.Open(keystore.Config{Dir: dir, Passphrase: []byte(passphrase), KDF: testKDF})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestFileModes(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "keys")
	s := open(t, dir)
	if _, err := s.GenerateSigner("log", ""); err != nil {
		t.Fatal(err)
	}
	s.Close()
	fi, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o700 {
		t.Errorf("keystore directory mode %04o, want 0700", fi.Mode().Perm())
	}
	fi, err = os.Stat(filepath.Join(dir, "log.key"))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("key file mode %04o, want 0600", fi.Mode().Perm())
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("keystore holds %d files, want only log.key", len(entries))
	}

	// Looser modes are refused with a message that says how to fix them.
	if err := os.Chmod(filepath.Join(dir, "log.key"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = keystore.Open(keystore.Config{Dir: dir, Passphrase: []byte(passphrase), KDF: testKDF})
	if err == nil || !strings.Contains(err.Error(), "chmod 600") {
		t.Errorf("Open with a 0644 key file: err = %v, want a mode error", err)
	}
	os.Chmod(filepath.Join(dir, "log.key"), 0o600)
	os.Chmod(dir, 0o750)
	_, err = keystore.Open(keystore.Config{Dir: dir, Passphrase: []byte(passphrase), KDF: testKDF})
	if err == nil || !strings.Contains(err.Error(), "chmod 700") {
		t.Errorf("Open with a 0750 directory: err = %v, want a mode error", err)
	}
}

func TestShortPassphrase(t *testing.T) {
	_, err := keystore.Open(keystore.Config{Dir: t.TempDir(), Passphrase: []byte("short"), KDF: testKDF})
	if err == nil || strings.Contains(err.Error(), "short\"") {
		t.Errorf("short passphrase: err = %v", err)
	}
}

// TestTamper changes one header field of a sealed file: the public key,
// label-consistent purpose, or the KDF parameters are all authenticated,
// by the sealing only. PublicKeys, which reads the header without
// unsealing, lists the substituted key (it is a valid one): this is why
// what PublicKeys lists is unchecked; Open refuses it.
func TestTamper(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "keys")
	s := open(t, dir)
	if _, err := s.GenerateVRF("vrf", vrf.SuiteP256SSWU); err != nil {
		t.Fatal(err)
	}
	other, err := vrf.GenerateKey(vrf.SuiteP256SSWU, rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	name := filepath.Join(dir, "vrf.key")
	orig, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(orig), "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "public: ") {
			lines[i] = "public: " + hexString(other.Public().Bytes())
		}
	}
	tampered := []byte(strings.Join(lines, "\n"))
	if bytes.Equal(tampered, orig) {
		t.Fatal("tampering changed nothing")
	}
	if err := os.WriteFile(name, tampered, 0o600); err != nil {
		t.Fatal(err)
	}
	keys, err := keystore.PublicKeys(dir)
	if err != nil || len(keys) != 1 || !bytes.Equal(keys[0].Public, other.Public().Bytes()) {
		t.Errorf("PublicKeys of a file with a substituted public key: %v, %v; want the substituted key", keys, err)
	}
	_, err = keystore.Open(keystore.Config{Dir: dir, Passphrase: []byte(passphrase), KDF: testKDF})
	if !errors.Is(err, hsm.ErrBadCredentials) || !strings.Contains(err.Error(), "vrf.key") {
		t.Errorf("Open of a file with a substituted public key: err = %v", err)
	}
}

func hexString(b []byte) string {
	const digits = "0123456789abcdef"
	out := make([]byte, 0, 2*len(b))
	for _, c := range b {
		out = append(out, digits[c>>4], digits[c&15])
	}
	return string(out)
}

// TestDirWithPatternCharacters: the keystore directory's name is a path,
// not a pattern. A directory named with '[' or '*' must still show its keys
// after reopening (a pattern would match nothing, or fail to parse).
func TestDirWithPatternCharacters(t *testing.T) {
	for _, name := range []string{"keys[1]", "k*s?", "keys["} {
		dir := filepath.Join(t.TempDir(), name)
		s := open(t, dir)
		if _, err := s.GenerateSigner("log", hsm.Ed25519); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		s.Close()
		s, err := keystore.Open(keystore.Config{Dir: dir, Passphrase: []byte(passphrase), KDF: testKDF})
		if err != nil {
			t.Errorf("%s: reopen: %v", name, err)
			continue
		}
		keys, err := s.Keys()
		if err != nil || len(keys) != 1 || keys[0].Label != "log" {
			t.Errorf("%s: reopened keystore lists %v, %v; want the key log", name, keys, err)
		}
		if _, err := s.Signer("log"); err != nil {
			t.Errorf("%s: Signer after reopen: %v", name, err)
		}
		s.Close()
	}
}

// TestCloseWipesECDSA: Close zeroes the ECDSA private scalar the store holds,
// as it zeroes Ed25519 and VRF keys.
func TestCloseWipesECDSA(t *testing.T) {
	s := open(t, filepath.Join(t.TempDir(), "keys"))
	sg, err := s.GenerateSigner("att", hsm.ECDSAP256SHA256)
	if err != nil {
		t.Fatal(err)
	}
	if len(keystore.SignerScalar(sg)) == 0 {
		t.Fatal("no scalar before Close")
	}
	s.Close()
	if d := keystore.SignerScalar(sg); len(d) != 0 {
		t.Errorf("ECDSA scalar still in memory after Close (%d bytes)", len(d))
	}
	if _, err := sg.Sign([]byte("x")); !errors.Is(err, hsm.ErrUnavailable) {
		t.Errorf("Sign after Close: %v", err)
	}
}
