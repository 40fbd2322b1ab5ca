package keystore

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"tirage.fr/tirage/hsm"
	"tirage.fr/tirage/verifier/vrf"
)

// The key file format, version 1. A file is UTF-8 text, one "name: value"
// line per field, in exactly this order, each line ending in "\n":
//
//	tirage-keystore v1
//	label: vrf
//	purpose: vrf
//	algorithm: ECVRF-P256-SHA256-SSWU
//	public: <hex of the public key encoding>
//	kdf: argon2id
//	kdf-time: 3
//	kdf-memory-kib: 65536
//	kdf-threads: 4
//	salt: <hex, 16 to 64 bytes>
//	aead: AES-256-GCM
//	nonce: <hex, 12 bytes>
//	sealed: <standard base64 of ciphertext || 16-byte tag>
//
// The sealing key is Argon2id(passphrase, salt, kdf-time, kdf-memory-kib,
// kdf-threads) → 32 bytes (RFC 9106); the plaintext is the private key
// (see [Store]); the additional data is every byte of the file before
// "sealed: ", so no header field — public key, label, parameters — can be
// changed without the passphrase.
const fileMagic = "tirage-keystore v1"

// Parameter bounds accepted when reading a file: a file cannot make Open
// spend unbounded memory or time.
const (
	maxFileSize     = 64 * 1024
	maxPublicLen    = 4096
	minKDFTime      = 1
	maxKDFTime      = 16
	minKDFMemoryKiB = 8 * 1024
	maxKDFMemoryKiB = 4 * 1024 * 1024
	minSaltLen      = 16
	maxSaltLen      = 64
	nonceLen        = 12
	maxSealedLen    = 16 * 1024
)

// keyFile is a parsed key file.
type keyFile struct {
	Label     string
	Purpose   string
	Algorithm string
	Public    []byte
	KDF       KDFParams
	Salt      []byte
	Nonce     []byte
	Sealed    []byte
}

var fieldNames = []string{"label", "purpose", "algorithm", "public", "kdf", "kdf-time", "kdf-memory-kib", "kdf-threads", "salt", "aead", "nonce", "sealed"}

// header returns the authenticated part of the file: everything before
// "sealed: ".
func (f *keyFile) header() []byte {
	var b bytes.Buffer
	b.WriteString(fileMagic + "\n")
	vals := []string{f.Label, f.Purpose, f.Algorithm, hex.EncodeToString(f.Public), "argon2id",
		strconv.FormatUint(uint64(f.KDF.Time), 10), strconv.FormatUint(uint64(f.KDF.MemoryKiB), 10),
		strconv.FormatUint(uint64(f.KDF.Threads), 10), hex.EncodeToString(f.Salt), "AES-256-GCM",
		hex.EncodeToString(f.Nonce)}
	for i, v := range vals {
		b.WriteString(fieldNames[i] + ": " + v + "\n")
	}
	return b.Bytes()
}

// format encodes f.
func (f *keyFile) format() []byte {
	return append(f.header(), "sealed: "+base64.StdEncoding.EncodeToString(f.Sealed)+"\n"...)
}

// parseKeyFile decodes a key file. Only canonical encodings are accepted, so
// parse(b).format() == b. It checks syntax and bounds only; the label,
// purpose, algorithm and public key are checked by [keyFile.key].
func parseKeyFile(b []byte) (*keyFile, error) {
	if len(b) > maxFileSize {
		return nil, errors.New("key file is larger than 64 KiB")
	}
	s := string(b)
	if !strings.HasPrefix(s, fileMagic+"\n") {
		return nil, fmt.Errorf("not a key file: it does not start with %q", fileMagic)
	}
	if !strings.HasSuffix(s, "\n") {
		return nil, errors.New("key file does not end with a newline")
	}
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	if len(lines) != len(fieldNames)+1 {
		return nil, fmt.Errorf("key file has %d lines, want %d", len(lines), len(fieldNames)+1)
	}
	v := make(map[string]string, len(fieldNames))
	for i, name := range fieldNames {
		val, ok := strings.CutPrefix(lines[i+1], name+": ")
		if !ok {
			return nil, fmt.Errorf("key file line %d: want field %q", i+2, name)
		}
		v[name] = val
	}
	f := &keyFile{Label: v["label"], Purpose: v["purpose"], Algorithm: v["algorithm"]}
	if v["kdf"] != "argon2id" {
		return nil, fmt.Errorf("key file field kdf: %q is not argon2id", v["kdf"])
	}
	if v["aead"] != "AES-256-GCM" {
		return nil, fmt.Errorf("key file field aead: %q is not AES-256-GCM", v["aead"])
	}
	var err error
	if f.Public, err = hexField(v, "public", 1, maxPublicLen); err != nil {
		return nil, err
	}
	if f.Salt, err = hexField(v, "salt", minSaltLen, maxSaltLen); err != nil {
		return nil, err
	}
	if f.Nonce, err = hexField(v, "nonce", nonceLen, nonceLen); err != nil {
		return nil, err
	}
	t, err := uintField(v, "kdf-time", minKDFTime, maxKDFTime)
	if err != nil {
		return nil, err
	}
	m, err := uintField(v, "kdf-memory-kib", minKDFMemoryKiB, maxKDFMemoryKiB)
	if err != nil {
		return nil, err
	}
	p, err := uintField(v, "kdf-threads", 1, 255)
	if err != nil {
		return nil, err
	}
	f.KDF = KDFParams{Time: uint32(t), MemoryKiB: uint32(m), Threads: uint8(p)}
	f.Sealed, err = base64.StdEncoding.Strict().DecodeString(v["sealed"])
	if err != nil || len(f.Sealed) < 16+1 || len(f.Sealed) > maxSealedLen {
		return nil, fmt.Errorf("key file field sealed: want canonical base64 of 17 to %d bytes", maxSealedLen)
	}
	if base64.StdEncoding.EncodeToString(f.Sealed) != v["sealed"] {
		return nil, errors.New("key file field sealed: base64 is not canonical")
	}
	return f, nil
}

// key is the key f's header describes, checked as far as a header can be
// without the private key: a valid label, purpose vrf with a suite of
// package vrf and a public key that parses in it, or purpose sign with
// Ed25519 or ECDSA P-256 and a DER SubjectPublicKeyInfo of that algorithm.
// Nothing here proves the header is the sealed key's: only unsealing does
// (the header is the sealing's additional data).
func (f *keyFile) key() (hsm.Key, error) {
	k := hsm.Key{Label: f.Label, Purpose: f.Purpose, Algorithm: f.Algorithm, Public: f.Public}
	if err := hsm.CheckLabel(k.Label); err != nil {
		return hsm.Key{}, err
	}
	switch k.Purpose {
	case hsm.PurposeVRF:
		suite, err := vrf.ParseSuite(k.Algorithm)
		if err != nil {
			return hsm.Key{}, fmt.Errorf("%w: key file field algorithm: %w", hsm.ErrUnsupported, err)
		}
		if _, err := vrf.ParsePublicKey(suite, k.Public); err != nil {
			return hsm.Key{}, fmt.Errorf("key file field public: not a %s public key: %w", suite, err)
		}
	case hsm.PurposeSign:
		if k.Algorithm != hsm.Ed25519 && k.Algorithm != hsm.ECDSAP256SHA256 {
			return hsm.Key{}, fmt.Errorf("%w: key file field algorithm: %q is neither %s nor %s", hsm.ErrUnsupported, k.Algorithm, hsm.Ed25519, hsm.ECDSAP256SHA256)
		}
		parsed, err := x509.ParsePKIXPublicKey(k.Public)
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
		return hsm.Key{}, fmt.Errorf("%w: key file field purpose: %q is neither %s nor %s", hsm.ErrUnsupported, k.Purpose, hsm.PurposeVRF, hsm.PurposeSign)
	}
	return k, nil
}

func hexField(v map[string]string, name string, minLen, maxLen int) ([]byte, error) {
	s := v[name]
	b, err := hex.DecodeString(s)
	if err != nil || len(b) < minLen || len(b) > maxLen || hex.EncodeToString(b) != s {
		return nil, fmt.Errorf("key file field %s: want %d to %d bytes in lower-case hex", name, minLen, maxLen)
	}
	return b, nil
}

func uintField(v map[string]string, name string, minV, maxV uint64) (uint64, error) {
	s := v[name]
	n, err := strconv.ParseUint(s, 10, 32)
	if err != nil || n < minV || n > maxV || strconv.FormatUint(n, 10) != s {
		return 0, fmt.Errorf("key file field %s: want a decimal integer from %d to %d", name, minV, maxV)
	}
	return n, nil
}
