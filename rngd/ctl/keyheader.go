package ctl

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"tirage.fr/tirage/hsm"
	"tirage.fr/tirage/verifier/vrf"
)

// The clear header of a software keystore's key file (hsm/keystore, file.go:
// "tirage-keystore v1", then label, purpose, algorithm and public, each on
// its line, before the sealed private key). The header is authenticated
// only by the sealing (it is the AEAD's additional data), so keys read
// from it without the passphrase are what the files say, not checked
// against the sealed keys: TestKeyHeadersMatchStore checks this reader
// against the keystore's own.
const (
	keyFileMagic   = "tirage-keystore v1"
	maxKeyFileSize = 64 * 1024 // the keystore's bound
	maxPublicLen   = 4096      // the keystore's bound of the public field
)

// headerFields are the header's first fields, in the file's order.
var headerFields = []string{"label", "purpose", "algorithm", "public"}

// softwarePublicKeys lists the keys of the software keystore dir from the
// clear headers of its key files, sorted by label, without the passphrase.
// It refuses what keystore.Open refuses before unsealing: a directory or a
// file others may read, a file whose name is not its label, a header that
// is not canonical, a public key that does not parse for its algorithm.
func softwarePublicKeys(dir string) ([]hsm.Key, error) {
	fi, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("couldn't open keystore directory: %w", err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("keystore %s is not a directory", dir)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("keystore directory %s has mode %04o: want 0700 (chmod 700 it)", dir, fi.Mode().Perm())
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("couldn't list keystore directory: %w", err)
	}
	var keys []hsm.Key
	for _, ent := range ents {
		if !strings.HasSuffix(ent.Name(), ".key") {
			continue
		}
		k, err := readKeyHeader(filepath.Join(dir, ent.Name()))
		if err != nil {
			return nil, err
		}
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].Label < keys[j].Label })
	return keys, nil
}

func readKeyHeader(name string) (hsm.Key, error) {
	base := filepath.Base(name)
	fi, err := os.Lstat(name)
	if err != nil {
		return hsm.Key{}, fmt.Errorf("couldn't read key file %s: %w", base, err)
	}
	if !fi.Mode().IsRegular() {
		return hsm.Key{}, fmt.Errorf("key file %s is not a regular file", base)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return hsm.Key{}, fmt.Errorf("key file %s has mode %04o: want 0600 (chmod 600 it)", base, fi.Mode().Perm())
	}
	f, err := os.Open(name)
	if err != nil {
		return hsm.Key{}, fmt.Errorf("couldn't read key file %s: %w", base, err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxKeyFileSize+1))
	if err != nil {
		return hsm.Key{}, fmt.Errorf("couldn't read key file %s: %w", base, err)
	}
	k, err := parseKeyHeader(b)
	if err != nil {
		return hsm.Key{}, fmt.Errorf("key file %s: %w", base, err)
	}
	if k.Label+".key" != base {
		return hsm.Key{}, fmt.Errorf("key file %s: label %q does not match the file name", base, k.Label)
	}
	return k, nil
}

// parseKeyHeader reads the key's label, purpose, algorithm and public key
// from a key file's first lines.
func parseKeyHeader(b []byte) (hsm.Key, error) {
	if len(b) > maxKeyFileSize {
		return hsm.Key{}, errors.New("key file is larger than 64 KiB")
	}
	lines := bytes.SplitN(b, []byte("\n"), len(headerFields)+2)
	if len(lines) < len(headerFields)+2 || string(lines[0]) != keyFileMagic {
		return hsm.Key{}, fmt.Errorf("not a key file: it does not start with %q and its fields", keyFileMagic)
	}
	v := map[string]string{}
	for i, name := range headerFields {
		val, ok := strings.CutPrefix(string(lines[i+1]), name+": ")
		if !ok {
			return hsm.Key{}, fmt.Errorf("key file line %d: want field %q", i+2, name)
		}
		v[name] = val
	}
	k := hsm.Key{Label: v["label"], Purpose: v["purpose"], Algorithm: v["algorithm"]}
	if err := hsm.CheckLabel(k.Label); err != nil {
		return hsm.Key{}, err
	}
	pub, err := hex.DecodeString(v["public"])
	if err != nil || len(pub) == 0 || len(pub) > maxPublicLen || hex.EncodeToString(pub) != v["public"] {
		return hsm.Key{}, fmt.Errorf("key file field public: want 1 to %d bytes in lower-case hex", maxPublicLen)
	}
	k.Public = pub
	switch k.Purpose {
	case hsm.PurposeVRF:
		suite, err := vrf.ParseSuite(k.Algorithm)
		if err != nil {
			return hsm.Key{}, fmt.Errorf("key file field algorithm: %w", err)
		}
		if _, err := vrf.ParsePublicKey(suite, pub); err != nil {
			return hsm.Key{}, fmt.Errorf("key file field public: not a %s public key: %w", suite, err)
		}
	case hsm.PurposeSign:
		parsed, err := x509.ParsePKIXPublicKey(pub)
		if err != nil {
			return hsm.Key{}, fmt.Errorf("key file field public: not a SubjectPublicKeyInfo: %w", err)
		}
		ok := false
		switch p := parsed.(type) {
		case ed25519.PublicKey:
			ok = k.Algorithm == hsm.Ed25519
		case *ecdsa.PublicKey:
			ok = k.Algorithm == hsm.ECDSAP256SHA256 && p.Curve == elliptic.P256()
		}
		if !ok {
			return hsm.Key{}, fmt.Errorf("key file field public: not an %s public key", k.Algorithm)
		}
	default:
		return hsm.Key{}, fmt.Errorf("key file field purpose: %q is neither %s nor %s", k.Purpose, hsm.PurposeVRF, hsm.PurposeSign)
	}
	return k, nil
}
