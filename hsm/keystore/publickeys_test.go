package keystore_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"tirage.fr/tirage/hsm"
	"tirage.fr/tirage/hsm/keystore"
	"tirage.fr/tirage/verifier/vrf"
)

// everyKind makes one key of each kind the keystore makes in a new keystore
// dir and returns what the open store lists.
func everyKind(t *testing.T, dir string) []hsm.Key {
	t.Helper()
	s := open(t, dir)
	for _, suite := range vrf.Suites() {
		if _, err := s.GenerateVRF("vrf-"+strings.ToLower(string(suite)), suite); err != nil {
			t.Fatal(err)
		}
	}
	for _, alg := range []string{hsm.Ed25519, hsm.ECDSAP256SHA256} {
		if _, err := s.GenerateSigner("sign-"+strings.ToLower(alg), alg); err != nil {
			t.Fatal(err)
		}
	}
	keys, err := s.Keys()
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	return keys
}

// PublicKeys, without the passphrase, lists what Open lists with it, for
// every kind of key the keystore makes.
func TestPublicKeysMatchOpen(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "keys")
	made := everyKind(t, dir)
	if len(made) != len(vrf.Suites())+2 {
		t.Fatalf("made %d keys", len(made))
	}
	got, err := keystore.PublicKeys(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, made) {
		t.Errorf("PublicKeys lists\n%+v\nthe store made\n%+v", got, made)
	}
	want, err := open(t, dir).Keys()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("PublicKeys lists\n%+v\nOpen lists\n%+v", got, want)
	}

	// Sorted by label, not by file name ("a-b.key" < "a.key").
	s := open(t, dir)
	for _, l := range []string{"a", "a-b"} {
		if _, err := s.GenerateSigner(l, hsm.Ed25519); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	got, err = keystore.PublicKeys(dir)
	if err != nil || len(got) < 2 || got[0].Label != "a" || got[1].Label != "a-b" {
		t.Errorf("PublicKeys: %v, %v; want a before a-b", got, err)
	}
}

// A key file or directory Open refuses before unsealing, PublicKeys
// refuses with the same error: one reader of the header.
func TestPublicKeysRefuseAsOpen(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "keys")
	everyKind(t, dir)
	name := filepath.Join(dir, "sign-ed25519.key")
	orig, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	refused := func(what, want string) {
		t.Helper()
		_, perr := keystore.PublicKeys(dir)
		_, oerr := keystore.Open(keystore.Config{Dir: dir, Passphrase: []byte(passphrase), KDF: testKDF})
		if perr == nil || oerr == nil || perr.Error() != oerr.Error() || !strings.Contains(perr.Error(), want) {
			t.Errorf("%s: PublicKeys: %v\nOpen: %v\nwant both %q", what, perr, oerr, want)
		}
	}
	for _, tc := range []struct {
		name, old, new, want string
	}{
		{"magic", "tirage-keystore v1", "tirage-keystore v2", `key file sign-ed25519.key: not a key file: it does not start with "tirage-keystore v1"`},
		{"field order", "purpose: sign\nalgorithm: Ed25519", "algorithm: Ed25519\npurpose: sign", `want field "purpose"`},
		{"upper-case hex", "public: 302a", "public: 302A", "field public: want 1 to 4096 bytes in lower-case hex"},
		{"purpose", "purpose: sign", "purpose: other", `purpose: "other" is neither vrf nor sign`},
		{"sign algorithm", "algorithm: Ed25519", "algorithm: RSA", `algorithm: "RSA" is neither Ed25519 nor ECDSA-P256-SHA256`},
		{"vrf purpose", "purpose: sign", "purpose: vrf", "algorithm: vrf: unknown"},
		{"algorithm of the public key", "algorithm: Ed25519", "algorithm: ECDSA-P256-SHA256", "not an ECDSA-P256-SHA256 public key"},
		{"public key", "public: 302a", "public: 312a", "not a SubjectPublicKeyInfo"},
		{"label", "label: sign-ed25519", "label: bad label", "bad key label"},
		{"label of another file", "label: sign-ed25519", "label: sign-ed25518", `label "sign-ed25518" does not match the file name`},
		{"kdf", "kdf: argon2id", "kdf: scrypt", "field kdf"},
		{"sealed", "sealed: ", "sealed: =", "field sealed"},
		{"trailing line", "", "", "key file has 14 lines, want 13"},
		{"junk", "", "", "not a key file"},
	} {
		b := bytes.Replace(orig, []byte(tc.old), []byte(tc.new), 1)
		switch tc.name {
		case "trailing line":
			b = append(bytes.Clone(orig), "x\n"...)
		case "junk":
			b = []byte("not a key\n")
		default:
			if bytes.Equal(b, orig) {
				t.Fatalf("%s: %q not in the file", tc.name, tc.old)
			}
		}
		if err := os.WriteFile(name, b, 0o600); err != nil {
			t.Fatal(err)
		}
		refused(tc.name, tc.want)
	}
	if err := os.WriteFile(name, orig, 0o600); err != nil {
		t.Fatal(err)
	}

	if err := os.WriteFile(name, append(bytes.Clone(orig), make([]byte, 64*1024)...), 0o600); err != nil {
		t.Fatal(err)
	}
	refused("large file", "larger than 64 KiB")
	if err := os.WriteFile(name, orig, 0o600); err != nil {
		t.Fatal(err)
	}

	os.Chmod(name, 0o640)
	refused("key file mode", "key file sign-ed25519.key has mode 0640: want 0600 (chmod 600 it)")
	os.Chmod(name, 0o600)

	link := filepath.Join(dir, "link.key")
	if err := os.Symlink(name, link); err != nil {
		t.Fatal(err)
	}
	refused("symbolic link", "key file link.key is not a regular file")
	os.Remove(link)

	os.Chmod(dir, 0o750)
	refused("directory mode", "has mode 0750: want 0700 (chmod 700 it)")
	os.Chmod(dir, 0o700)

	if _, err := keystore.PublicKeys(dir); err != nil {
		t.Errorf("the keystore restored: %v", err)
	}
}

// PublicKeys needs an existing keystore: unlike Open, it creates nothing.
func TestPublicKeysNoDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "keys")
	if _, err := keystore.PublicKeys(dir); err == nil || !strings.Contains(err.Error(), "couldn't open keystore directory") {
		t.Errorf("PublicKeys of no directory: %v", err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("PublicKeys made %s: %v", dir, err)
	}
	if _, err := keystore.PublicKeys(""); err == nil {
		t.Error("PublicKeys of \"\": no error")
	}
	empty := filepath.Join(t.TempDir(), "empty")
	if err := os.Mkdir(empty, 0o700); err != nil {
		t.Fatal(err)
	}
	if keys, err := keystore.PublicKeys(empty); err != nil || len(keys) != 0 {
		t.Errorf("PublicKeys of an empty keystore: %v, %v", keys, err)
	}
}
