package witness

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	fnote "github.com/transparency-dev/formats/note"
	"golang.org/x/mod/sumdb/note"
)

// algCosignatureV1 is the signed-note type of an Ed25519 cosignature/v1
// key (c2sp.org/tlog-cosignature).
const algCosignatureV1 = 0x04

// ErrBadKey: the witness's signer key text is not an Ed25519 signed-note
// private key. The error never quotes the key.
var ErrBadKey = errors.New("witness: malformed signer key (want PRIVATE+KEY+<name>+<hash>+<base64 Ed25519 seed>)")

// GenerateKey returns a new witness key named name: skey, the private key
// text (PRIVATE+KEY+name+hash+base64(0x01 || seed), as x/mod's
// note.GenerateKey writes it; keep it secret), and vkey, its cosignature/v1
// verifier key (see [VerifierKey]).
func GenerateKey(name string) (skey, vkey string, err error) {
	if !validName(name) {
		return "", "", fmt.Errorf("witness: invalid key name %q (non-empty, no space, no '+')", name)
	}
	skey, _, err = note.GenerateKey(rand.Reader, name)
	if err != nil {
		return "", "", fmt.Errorf("witness: couldn't generate a key: %w", err)
	}
	vkey, err = VerifierKey(skey)
	if err != nil {
		return "", "", err
	}
	return skey, vkey, nil
}

// NewSigner returns the cosignature/v1 signer (c2sp.org/tlog-cosignature)
// of a private key text: it signs "cosignature/v1\ntime <now>\n" followed
// by the checkpoint body, and its signature is the 8-byte timestamp then
// the Ed25519 signature.
func NewSigner(skey string) (note.Signer, error) {
	s, err := fnote.NewSignerForCosignatureV1(strings.TrimSpace(skey))
	if err != nil {
		return nil, ErrBadKey
	}
	return s, nil
}

// VerifierKey returns the cosignature/v1 verifier key text of a private
// key text: name+hex(key ID)+base64(0x04 || Ed25519 public key), the key ID
// being SHA-256(name || 0x0A || 0x04 || public key)[:4]. Logs and
// verifiers configure it (tessera.NewWitness reads it).
func VerifierKey(skey string) (string, error) {
	skey = strings.TrimSpace(skey)
	s, err := NewSigner(skey)
	if err != nil {
		return "", err
	}
	// PRIVATE+KEY+name+hash+key: the base64 key may hold '+' too.
	f := strings.SplitN(skey, "+", 5)
	raw, err := base64.StdEncoding.DecodeString(f[len(f)-1])
	if len(f) != 5 || err != nil || len(raw) != 1+ed25519.SeedSize {
		return "", ErrBadKey
	}
	pub := ed25519.NewKeyFromSeed(raw[1:]).Public().(ed25519.PublicKey)
	return fmt.Sprintf("%s+%08x+%s", s.Name(), s.KeyHash(), base64.StdEncoding.EncodeToString(append([]byte{algCosignatureV1}, pub...))), nil
}

// NewVerifier returns the note verifier of a witness's verifier key text
// (cosignature/v1, type 0x04, or the plain Ed25519 key of the same seed).
func NewVerifier(vkey string) (note.Verifier, error) {
	v, err := fnote.NewVerifierForCosignatureV1(strings.TrimSpace(vkey))
	if err != nil {
		return nil, fmt.Errorf("witness: malformed verifier key: %w", err)
	}
	return v, nil
}

// validName follows the signed-note rule: non-empty UTF-8, no space, no
// control character, no '+'.
func validName(name string) bool {
	if name == "" || strings.Contains(name, "+") || !utf8.ValidString(name) {
		return false
	}
	for _, r := range name {
		if r <= 0x20 || r == 0x7f || r == 0x85 || r == 0xa0 || (r >= 0x2000 && r <= 0x200a) || r == 0x1680 || r == 0x2028 || r == 0x2029 || r == 0x202f || r == 0x205f || r == 0x3000 {
			return false
		}
	}
	return true
}
