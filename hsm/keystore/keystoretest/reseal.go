// Package keystoretest makes software keystore files for tests.
package keystoretest

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/crypto/argon2"

	"tirage.fr/tirage/verifier/vrf"
)

// ResealVRF writes the private key of the software keystore's VRF key file
// src, sealed with passphrase, into dir as key label of suite: the same key
// under another suite, as an operator re-sealing a key file (or copying it
// under a new label) with the passphrase would make it. The keystore has no
// way to import a key, and should not: tests of what rngd and the
// promotion tool refuse need one.
func ResealVRF(t testing.TB, src []byte, dir, label string, suite vrf.Suite, passphrase string) {
	t.Helper()
	head, sealed64, ok := bytes.Cut(src, []byte("sealed: "))
	if !ok {
		t.Fatal("key file without a sealed field")
	}
	lines := strings.Split(strings.TrimSuffix(string(head), "\n"), "\n")
	field := func(name string) string {
		for _, l := range lines {
			if v, ok := strings.CutPrefix(l, name+": "); ok {
				return v
			}
		}
		t.Fatalf("key file without field %s", name)
		return ""
	}
	num := func(name string) uint32 {
		n, err := strconv.ParseUint(field(name), 10, 32)
		if err != nil {
			t.Fatal(err)
		}
		return uint32(n)
	}
	unhex := func(name string) []byte {
		b, err := hex.DecodeString(field(name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	k := argon2.IDKey([]byte(passphrase), unhex("salt"), num("kdf-time"), num("kdf-memory-kib"), uint8(num("kdf-threads")), 32)
	block, err := aes.NewCipher(k)
	if err != nil {
		t.Fatal(err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		t.Fatal(err)
	}
	sealed, err := base64.StdEncoding.DecodeString(strings.TrimSuffix(string(sealed64), "\n"))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := aead.Open(nil, unhex("nonce"), sealed, head)
	if err != nil {
		t.Fatal(err)
	}
	nonce := make([]byte, aead.NonceSize())
	rand.Read(nonce)
	for i, l := range lines {
		switch {
		case strings.HasPrefix(l, "label: "):
			lines[i] = "label: " + label
		case strings.HasPrefix(l, "algorithm: "):
			lines[i] = "algorithm: " + string(suite)
		case strings.HasPrefix(l, "nonce: "):
			lines[i] = "nonce: " + hex.EncodeToString(nonce)
		}
	}
	newHead := []byte(strings.Join(lines, "\n") + "\n")
	file := append(bytes.Clone(newHead), "sealed: "+base64.StdEncoding.EncodeToString(aead.Seal(nil, nonce, raw, newHead))+"\n"...)
	name := filepath.Join(dir, label+".key")
	if err := os.Remove(name); err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, file, 0o600); err != nil {
		t.Fatal(err)
	}
}
