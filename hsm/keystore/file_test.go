package keystore

import (
	"bytes"
	"strings"
	"testing"
)

var sampleFile = []byte(`tirage-keystore v1
label: vrf
purpose: vrf
algorithm: ECVRF-P256-SHA256-SSWU
public: 0360fed4ba255a9d31c961eb74c6356d68c049b8923b61fa6ce669622e60f29fb6
kdf: argon2id
kdf-time: 3
kdf-memory-kib: 65536
kdf-threads: 4
salt: 000102030405060708090a0b0c0d0e0f
aead: AES-256-GCM
nonce: 000102030405060708090a0b
sealed: AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8gISIjJCUmJygpKissLS4vMDEyMzQ1Njc4OTo7PD0+Pw==
`)

func TestParseKeyFile(t *testing.T) {
	f, err := parseKeyFile(sampleFile)
	if err != nil {
		t.Fatal(err)
	}
	if f.Label != "vrf" || f.KDF != DefaultKDF || len(f.Salt) != 16 || len(f.Sealed) != 64 {
		t.Errorf("parsed %+v", f)
	}
	if !bytes.Equal(f.format(), sampleFile) {
		t.Errorf("format(parse(b)) != b")
	}
	for name, edit := range map[string][2]string{
		"kdf-memory-kib":   {"kdf-memory-kib: 65536", "kdf-memory-kib: 1024"},
		"kdf-time":         {"kdf-time: 3", "kdf-time: 03"},
		"kdf-threads":      {"kdf-threads: 4", "kdf-threads: 0"},
		"aead":             {"AES-256-GCM", "AES-128-GCM"},
		"kdf":              {"kdf: argon2id", "kdf: scrypt"},
		"nonce":            {"nonce: 000102030405060708090a0b", "nonce: 000102030405060708090A0B"},
		"salt":             {"salt: 000102030405060708090a0b0c0d0e0f", "salt: 0001"},
		"sealed":           {"Pw==", "Pw="},
		"tirage-keystore":  {"tirage-keystore v1", "tirage-keystore v2"},
		"want field \"kdf": {"\nkdf: ", "\nKDF: "},
	} {
		b := []byte(strings.Replace(string(sampleFile), edit[0], edit[1], 1))
		if _, err := parseKeyFile(b); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s edited: err = %v, want it to name %q", name, err, name)
		}
	}
}

func FuzzParseKeyFile(f *testing.F) {
	f.Add(sampleFile)
	f.Add([]byte("tirage-keystore v1\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		kf, err := parseKeyFile(b)
		if err != nil {
			return
		}
		if !bytes.Equal(kf.format(), b) {
			t.Fatalf("format(parse(b)) != b for %q", b)
		}
	})
}
