// Package checkpoint formats, signs and opens the log's checkpoints.
//
// A checkpoint is a C2SP tlog-checkpoint (https://c2sp.org/tlog-checkpoint)
// carried in a C2SP signed note (https://c2sp.org/signed-note):
//
//	<origin>\n
//	<tree size, decimal>\n
//	<root hash, base64>\n
//	\n
//	— <origin> base64(key ID || Ed25519 signature)\n
//	— <origin> base64(key ID || ML-DSA-44 signature)\n
//
// Both log backends (the embedded tile log and Trillian) produce exactly this
// shape, signed by the same log key, so auditors check one format.
//
// # Signature types
//
// Ed25519 signatures follow the signed-note spec: signature type 0x01, key ID
// = SHA-256(name || 0x0A || 0x01 || 32-byte public key)[:4]. Any verifier built
// on golang.org/x/mod/sumdb/note checks them with the key text served at
// /log/vkey (see [VerifierKey]).
//
// ML-DSA-44 (FIPS 204) signatures are added because draws are kept for years.
// The signed-note spec assigns no type byte to an ML-DSA-44 signature over
// the note text (it lists 0x01–0x05). C2SP tlog-cosignature gives 0x06 to
// ML-DSA-44 cosignatures, but those sign another message (a binary
// subtree/v1 cosigned_message: cosigner name, timestamp, origin, start, end,
// root hash), not the note text, so 0x06 does not fit this signature.
// Signed-note reserves 0xff for "signature types without an identifier byte
// ... followed by a longer identifier". We therefore use the type
// 0xff || "ml-dsa-44" (the 9 ASCII bytes), so
//
//	key ID = SHA-256(name || 0x0A || 0xff || "ml-dsa-44" || 1312-byte public key)[:4]
//	vkey   = name "+" hex(key ID) "+" base64(0xff || "ml-dsa-44" || public key)
//
// and the signature is ML-DSA-44.Sign(sk, note text) with an empty context
// (FIPS 204 §5.2, pure ML-DSA), 2420 bytes. Verifiers that only know Ed25519
// (x/mod's note package) ignore this line, as the spec requires for unknown
// keys.
//
// The package does no I/O: the daemon signs with it and verifiers open with
// it.
package checkpoint

import (
	"bytes"
	"crypto"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"

	"github.com/cloudflare/circl/sign/mldsa/mldsa44"
	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"

	vcheckpoint "tirage.fr/tirage/verifier/checkpoint"
)

// Signature type identifiers (see the package doc).
const (
	algEd25519 = 0x01
	algOther   = 0xff
	mldsa44ID  = "ml-dsa-44"
)

// MaxSize bounds a signed checkpoint note: text plus a handful of signatures,
// post-quantum ones included (the spec asks to accept at least 16).
const MaxSize = 64 << 10

// Checkpoint is a parsed, verified tlog-checkpoint.
type Checkpoint struct {
	// Origin is the log's name, first line of the checkpoint and name of its key.
	Origin string
	// Size is the number of leaves the tree commits to.
	Size uint64
	// Hash is the RFC 6962 root hash of the tree of Size leaves.
	Hash tlog.Hash
	// Note is the complete signed note, as served to auditors.
	Note []byte
}

// Tree returns the checkpoint's tree, as x/mod's tlog functions take it.
func (c *Checkpoint) Tree() tlog.Tree { return tlog.Tree{N: int64(c.Size), Hash: c.Hash} }

// FormatText returns the checkpoint body (the signed text) for a tree.
func FormatText(origin string, size uint64, root tlog.Hash) []byte {
	return fmt.Appendf(nil, "%s\n%d\n%s\n", origin, size, base64.StdEncoding.EncodeToString(root[:]))
}

// ParseText parses a checkpoint body, without looking at signatures. It
// accepts (and ignores) extension lines after the root hash, as the
// tlog-checkpoint spec allows.
func ParseText(text string) (origin string, size uint64, root tlog.Hash, err error) {
	if !strings.HasSuffix(text, "\n") {
		return "", 0, tlog.Hash{}, errors.New("checkpoint: text does not end in newline")
	}
	origin, n, root, err := vcheckpoint.ParseText(text)
	if err != nil {
		return "", 0, tlog.Hash{}, fmt.Errorf("checkpoint: %w", err)
	}
	return origin, uint64(n), root, nil
}

// Sign formats the checkpoint for a tree and signs it with every signer.
// Signers must all be named origin (see [NewSigner]).
func Sign(origin string, size uint64, root tlog.Hash, signers ...note.Signer) (*Checkpoint, error) {
	if len(signers) == 0 {
		return nil, errors.New("checkpoint: no signer")
	}
	for _, s := range signers {
		if s.Name() != origin {
			return nil, fmt.Errorf("checkpoint: signer name %q is not the origin %q", s.Name(), origin)
		}
	}
	msg, err := note.Sign(&note.Note{Text: string(FormatText(origin, size, root))}, signers...)
	if err != nil {
		return nil, fmt.Errorf("checkpoint: couldn't sign tree %d: %w", size, err)
	}
	return &Checkpoint{Origin: origin, Size: size, Hash: root, Note: msg}, nil
}

// Open verifies a signed checkpoint with the given verifiers (at least one
// must have signed; a failing signature from a known key rejects the note)
// and parses it. The origin must be the verifiers' name.
func Open(msg []byte, verifiers ...note.Verifier) (*Checkpoint, error) {
	if len(msg) > MaxSize {
		return nil, fmt.Errorf("checkpoint: note of %d bytes exceeds %d", len(msg), MaxSize)
	}
	n, err := note.Open(msg, note.VerifierList(verifiers...))
	if err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	origin, size, root, err := ParseText(n.Text)
	if err != nil {
		return nil, err
	}
	for _, s := range n.Sigs {
		if s.Name != origin {
			return nil, fmt.Errorf("checkpoint: signed by %q, not the origin %q", s.Name, origin)
		}
	}
	return &Checkpoint{Origin: origin, Size: size, Hash: root, Note: bytes.Clone(msg)}, nil
}

// NewSigner returns a note signer named name for a crypto.Signer holding an
// Ed25519 or ML-DSA-44 key (an ed25519.PrivateKey, an *mldsa44.PrivateKey, or
// an HSM-backed signer whose Public() is one of those key types). The signer
// signs the whole note text (crypto.Hash(0) options).
func NewSigner(name string, s crypto.Signer) (note.Signer, error) {
	if !validName(name) {
		return nil, fmt.Errorf("checkpoint: invalid key name %q", name)
	}
	typ, pub, err := publicKeyBytes(s.Public())
	if err != nil {
		return nil, err
	}
	return &signer{name: name, hash: keyID(name, typ, pub), s: s}, nil
}

// NewVerifier returns the note verifier matching a public key (ed25519.PublicKey
// or *mldsa44.PublicKey).
func NewVerifier(name string, pub crypto.PublicKey) (note.Verifier, error) {
	vkey, err := VerifierKey(name, pub)
	if err != nil {
		return nil, err
	}
	return ParseVerifierKey(vkey)
}

// VerifierKey returns the signed-note verifier key text
// (name+hex(keyID)+base64(type||key)) of a public key. For Ed25519 it is the
// format x/mod's note.NewVerifier reads.
func VerifierKey(name string, pub crypto.PublicKey) (string, error) {
	if !validName(name) {
		return "", fmt.Errorf("checkpoint: invalid key name %q", name)
	}
	typ, raw, err := publicKeyBytes(pub)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%s+%08x+%s", name, keyID(name, typ, raw), base64.StdEncoding.EncodeToString(append(typ, raw...))), nil
}

// ParseVerifierKey parses a verifier key text of either type, with the
// verifier core's parser (the one rngverify trusts keys with).
func ParseVerifierKey(vkey string) (note.Verifier, error) {
	if vkey != strings.TrimSpace(vkey) {
		return nil, errors.New("checkpoint: malformed verifier key: surrounding white space")
	}
	k, err := vcheckpoint.ParseKey(vkey)
	if err != nil {
		return nil, fmt.Errorf("checkpoint: malformed verifier key: %w", err)
	}
	return k.Verifier(), nil
}

// publicKeyBytes returns the signature type identifier and the encoded key.
func publicKeyBytes(pub crypto.PublicKey) (typ, raw []byte, err error) {
	switch k := pub.(type) {
	case ed25519.PublicKey:
		if len(k) != ed25519.PublicKeySize {
			return nil, nil, errors.New("checkpoint: bad Ed25519 public key size")
		}
		return []byte{algEd25519}, k, nil
	case *mldsa44.PublicKey:
		return append([]byte{algOther}, mldsa44ID...), k.Bytes(), nil
	default:
		return nil, nil, fmt.Errorf("checkpoint: unsupported public key type %T (want Ed25519 or ML-DSA-44)", pub)
	}
}

// keyID is SHA-256(name || 0x0A || type || key)[:4], big-endian.
func keyID(name string, typ, key []byte) uint32 {
	h := sha256.New()
	h.Write([]byte(name))
	h.Write([]byte{'\n'})
	h.Write(typ)
	h.Write(key)
	return binary.BigEndian.Uint32(h.Sum(nil))
}

// validName follows the signed-note rule: non-empty, no Unicode space, no '+'.
func validName(name string) bool {
	return name != "" && !strings.ContainsAny(name, "+") && strings.IndexFunc(name, isSpace) < 0 && isPrintable(name)
}

func isSpace(r rune) bool {
	switch r {
	case ' ', '\t', '\n', '\v', '\f', '\r', 0x85, 0xA0, 0x1680, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000:
		return true
	}
	return r >= 0x2000 && r <= 0x200A
}

func isPrintable(s string) bool {
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			return false
		}
	}
	return true
}

type signer struct {
	name string
	hash uint32
	s    crypto.Signer
}

func (s *signer) Name() string    { return s.name }
func (s *signer) KeyHash() uint32 { return s.hash }
func (s *signer) Sign(msg []byte) ([]byte, error) {
	sig, err := s.s.Sign(rand.Reader, msg, crypto.Hash(0))
	if err != nil {
		return nil, fmt.Errorf("checkpoint: signer %q failed: %w", s.name, err)
	}
	return sig, nil
}
