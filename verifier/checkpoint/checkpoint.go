// Package checkpoint opens the transparency log's signed checkpoints and
// checks that the log only grows, for verifiers: it is the verifying half of
// package transparency/checkpoint, kept in the pure core so that rngverify
// and its WebAssembly build do not pull in the daemon's log machinery.
//
// # Format
//
// A checkpoint is a C2SP tlog-checkpoint (https://c2sp.org/tlog-checkpoint)
// in a C2SP signed note (https://c2sp.org/signed-note):
//
//	<origin>\n<tree size, decimal>\n<root hash, base64>\n[extension lines]\n
//	\n
//	— <origin> base64(key ID || signature)\n   (one line per signature)
//
// Two signature types are understood, named by their verifier key text
// (name+hex(key ID)+base64(type || public key)):
//
//   - Ed25519, type 0x01 (the signed-note spec; checked by x/mod's note);
//   - ML-DSA-44 (FIPS 204, pure, empty context), type 0xff || "ml-dsa-44",
//     the tlog's choice for long-lived signatures (see transparency/checkpoint).
//
// # Trust
//
// [Open] accepts a checkpoint only when every trusted key for its origin has
// signed it: pinning both the Ed25519 and the ML-DSA-44 key makes a
// checkpoint as strong as the stronger one. A key is trusted because the
// caller says so — a key file, a pinned [Fingerprint], or trust on first use
// recorded in a [State] — never because a checkpoint carries it.
//
// # Growth
//
// [Consistent] checks a consistency proof (RFC 6962 §2.1.2, x/mod tlog)
// between a trusted checkpoint and a newer one. Two checkpoints of one size
// with different roots, or a proof that fails, are a fork: [ErrFork], which
// wraps verdict.ErrMisbehaviour. Keep both notes: they are the evidence.
//
// The package does no I/O.
package checkpoint

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/cloudflare/circl/sign/mldsa/mldsa44"
	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"

	"tirage.fr/tirage/verifier/verdict"
)

// MaxSize bounds a signed checkpoint (text and a handful of signatures,
// post-quantum ones included).
const MaxSize = 64 << 10

// MaxTreeSize bounds a checkpoint's tree size: 2^48 leaves, far beyond any
// log (a billion draws a day for 700 years). x/mod's tlog proofs loop for
// ever on trees of more than 2^62 leaves, and a signed checkpoint claiming
// one would hang every verifier that read it.
const MaxTreeSize = 1 << 48

// Errors.
var (
	// ErrUntrusted: no trusted key signed the checkpoint, or a trusted key
	// did not. Nothing is proven; get the log's key from a trusted source.
	ErrUntrusted = errors.New("checkpoint not signed by the trusted log keys")
	// ErrMalformed: the note or its text is not a checkpoint.
	ErrMalformed = errors.New("malformed checkpoint")
	// ErrFork: two checkpoints of the log cannot both be true. It wraps
	// verdict.ErrMisbehaviour: the log showed different histories.
	ErrFork = fmt.Errorf("log fork: %w", verdict.ErrMisbehaviour)
)

// Checkpoint is an opened, verified checkpoint.
type Checkpoint struct {
	Origin string
	Size   int64
	Root   tlog.Hash
	// Note is the signed note as received.
	Note []byte
}

// Tree returns the checkpoint as x/mod's tlog takes it.
func (c *Checkpoint) Tree() tlog.Tree { return tlog.Tree{N: c.Size, Hash: c.Root} }

func (c *Checkpoint) String() string {
	return fmt.Sprintf("%s size %d root %s", c.Origin, c.Size, c.RootText())
}

// RootText is the root as the checkpoint spells it (base64): the one
// spelling of a root in a verdict.
func (c *Checkpoint) RootText() string { return base64.StdEncoding.EncodeToString(c.Root[:]) }

// Signature types.
const (
	algEd25519 = 0x01
	algOther   = 0xff
	mldsaID    = "ml-dsa-44"
)

// ed25519SPKIPrefix is the DER SubjectPublicKeyInfo prefix of an Ed25519
// key (RFC 8410): the encoding the log's key announcement records carry.
var ed25519SPKIPrefix = []byte{0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00}

// Key is a parsed verifier key.
type Key struct {
	Text string // the verifier key text
	Name string // the origin it signs for
	// Algorithm is "Ed25519" or "ML-DSA-44".
	Algorithm string
	// Public is the announced encoding: DER SPKI for Ed25519 (as in the
	// log's key record), the raw FIPS 204 key for ML-DSA-44.
	Public   []byte
	verifier note.Verifier
}

// Fingerprint is the lower-case hex SHA-256 of the key's announced
// encoding — the fingerprint rngd prints at start and logs in its key
// announcement, and that users pin.
func (k *Key) Fingerprint() string {
	h := sha256.Sum256(k.Public)
	return hex.EncodeToString(h[:])
}

// keyMsgs are the messages splitKey refuses a key text with: a bad name,
// key ID or base64 key.
type keyMsgs struct{ name, id, base64 verdict.MsgID }

// splitKey reads a signed-note verifier key text (trimmed):
// name+<8 hex digits of key ID>+<base64 of type byte and key>. Its key
// ID is not checked against the key: the caller, who knows the type, does.
func splitKey(text string, m keyMsgs) (name string, id uint32, raw []byte, err error) {
	name, rest, ok := strings.Cut(text, "+")
	if !ok || !validName(name) {
		return "", 0, nil, verdict.Errorf(m.name, clip(text))
	}
	hexID, b64, ok := strings.Cut(rest, "+")
	if !ok || len(hexID) != 8 {
		return "", 0, nil, verdict.Errorf(m.id, clip(text))
	}
	id64, err := strconv.ParseUint(hexID, 16, 32)
	if err != nil {
		return "", 0, nil, verdict.Errorf(m.id, clip(text))
	}
	raw, err = base64.StdEncoding.Strict().DecodeString(b64)
	if err != nil || len(raw) == 0 {
		return "", 0, nil, verdict.Errorf(m.base64, clip(text))
	}
	return name, uint32(id64), raw, nil
}

// ParseKey parses a verifier key text of either type.
func ParseKey(text string) (*Key, error) {
	text = strings.TrimSpace(text)
	name, id, raw, err := splitKey(text, keyMsgs{verdict.MsgLogKeyName, verdict.MsgLogKeyID, verdict.MsgLogKeyBase64})
	if err != nil {
		return nil, err
	}
	k := &Key{Text: text, Name: name}
	switch {
	case raw[0] == algEd25519:
		if len(raw) != 1+ed25519.PublicKeySize {
			return nil, verdict.Errorf(verdict.MsgLogKeyEd25519, clip(text))
		}
		pk := ed25519.PublicKey(bytes.Clone(raw[1:]))
		k.Algorithm = "Ed25519"
		k.Public = append(bytes.Clone(ed25519SPKIPrefix), pk...)
		k.verifier = &verifier{name: name, id: keyID(name, raw), verify: func(msg, sig []byte) bool {
			return ed25519.Verify(pk, msg, sig)
		}}
	case raw[0] == algOther && bytes.HasPrefix(raw[1:], []byte(mldsaID)):
		pub := raw[1+len(mldsaID):]
		pk := new(mldsa44.PublicKey)
		if err := pk.UnmarshalBinary(pub); err != nil {
			return nil, verdict.Errorf(verdict.MsgLogKeyMLDSA, clip(text), err)
		}
		k.Algorithm = "ML-DSA-44"
		k.Public = bytes.Clone(pub)
		k.verifier = &verifier{name: name, id: keyID(name, raw), verify: func(msg, sig []byte) bool {
			return len(sig) == mldsa44.SignatureSize && mldsa44.Verify(pk, msg, nil, sig)
		}}
	case raw[0] == algCosignatureV1:
		return nil, verdict.Errorf(verdict.MsgLogKeyWitness, clip(text))
	default:
		return nil, verdict.Errorf(verdict.MsgLogKeyType, clip(text), raw[0])
	}
	if k.verifier.KeyHash() != id {
		return nil, verdict.Errorf(verdict.MsgLogKeyMismatch, clip(text))
	}
	return k, nil
}

// ParseKeys parses verifier keys, one per non-empty line ('#' starts a comment line).
func ParseKeys(text string) ([]*Key, error) {
	var out []*Key
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, err := ParseKey(line)
		if err != nil {
			return nil, verdict.Errorf(verdict.MsgLineErr, i+1, err)
		}
		out = append(out, k)
	}
	if len(out) == 0 {
		return nil, verdict.Errorf(verdict.MsgNoLogKeyFound)
	}
	return out, nil
}

// keyID is SHA-256(name || 0x0A || type || key)[:4], big-endian (signed-note).
func keyID(name string, typeAndKey []byte) uint32 {
	h := sha256.New()
	h.Write([]byte(name))
	h.Write([]byte{'\n'})
	h.Write(typeAndKey)
	return binary.BigEndian.Uint32(h.Sum(nil))
}

type verifier struct {
	name   string
	id     uint32
	verify func(msg, sig []byte) bool
}

func (v *verifier) Name() string                { return v.name }
func (v *verifier) KeyHash() uint32             { return v.id }
func (v *verifier) Verify(msg, sig []byte) bool { return v.verify(msg, sig) }
func (v *verifier) String() string              { return v.name }
func (k *Key) String() string                   { return k.Algorithm + " " + k.Fingerprint() }

// Verifier returns the key as a signed-note verifier (x/mod sumdb/note).
func (k *Key) Verifier() note.Verifier { return k.verifier }

// Open verifies a signed checkpoint: every trusted key named like the
// checkpoint's origin must have signed it (and at least one key must be
// trusted for that origin); signatures by other keys are ignored, as the
// signed-note spec requires. Failures wrap ErrUntrusted or ErrMalformed.
func Open(msg []byte, trusted []*Key) (*Checkpoint, error) {
	if len(msg) > MaxSize {
		return nil, wrap(ErrMalformed, verdict.MsgCPTooLarge, len(msg), MaxSize)
	}
	text, _, ok := strings.Cut(string(msg), "\n\n")
	if !ok {
		return nil, wrap(ErrMalformed, verdict.MsgCPNoSignature)
	}
	origin, size, root, err := ParseText(text + "\n")
	if err != nil {
		return nil, err
	}
	var vs []note.Verifier
	seen := map[uint32]bool{}
	for _, k := range trusted {
		// The same key may be trusted twice (a key file and a pin).
		if k.Name == origin && !seen[k.verifier.KeyHash()] {
			seen[k.verifier.KeyHash()] = true
			vs = append(vs, k.verifier)
		}
	}
	if len(vs) == 0 {
		return nil, wrap(ErrUntrusted, verdict.MsgCPNoTrustedKey, origin)
	}
	// note.Open decodes signatures leniently (any padding bits): one
	// signature, several spellings of the checkpoint. One is accepted.
	for _, line := range strings.SplitAfter(string(msg[len(text)+2:]), "\n") {
		if line == "" {
			continue
		}
		if i := strings.LastIndexByte(line, ' '); i >= 0 && strings.HasSuffix(line, "\n") {
			if _, err := base64.StdEncoding.Strict().DecodeString(line[i+1 : len(line)-1]); err != nil {
				return nil, wrap(ErrMalformed, verdict.MsgCPSigEncoding, clip(strings.TrimSuffix(line, "\n")))
			}
		}
	}
	n, err := note.Open(msg, note.VerifierList(vs...))
	if err != nil {
		var inv *note.InvalidSignatureError
		if errors.As(err, &inv) {
			return nil, wrap(ErrUntrusted, verdict.MsgCPBadSignature, inv.Name, inv.Hash)
		}
		if _, ok := err.(*note.UnverifiedNoteError); ok {
			return nil, wrap(ErrUntrusted, verdict.MsgCPSignedByNone, origin)
		}
		return nil, fmt.Errorf("%w: %w", err, ErrMalformed)
	}
	// The signatures are over the text up to the note's last blank line
	// (note.Open), the checkpoint read up to its first: they must be one
	// text, else what is read (and a witness cosigns) is only a prefix of
	// what the log signed.
	if n.Text != text+"\n" {
		return nil, wrap(ErrMalformed, verdict.MsgCPBlankLine)
	}
	for _, v := range vs {
		signed := false
		for _, s := range n.Sigs {
			if s.Name == v.Name() && s.Hash == v.KeyHash() {
				signed = true
			}
		}
		if !signed {
			return nil, wrap(ErrUntrusted, verdict.MsgCPKeyDidNotSign, v.Name(), v.KeyHash())
		}
	}
	return &Checkpoint{Origin: origin, Size: size, Root: root, Note: bytes.Clone(msg)}, nil
}

// ParseText parses a checkpoint body without looking at signatures.
// Extension lines after the root hash are allowed and ignored.
func ParseText(text string) (origin string, size int64, root tlog.Hash, err error) {
	lines := strings.SplitN(text, "\n", 4)
	if len(lines) < 4 || lines[0] == "" {
		return "", 0, root, wrap(ErrMalformed, verdict.MsgCPFewLines)
	}
	origin = lines[0]
	size, err = strconv.ParseInt(lines[1], 10, 64)
	if err != nil || size < 0 || strconv.FormatInt(size, 10) != lines[1] {
		return "", 0, root, wrap(ErrMalformed, verdict.MsgCPTreeSize, clip(lines[1]))
	}
	if size > MaxTreeSize {
		return "", 0, root, wrap(ErrMalformed, verdict.MsgCPTreeTooLarge, size, int64(MaxTreeSize))
	}
	h, err := base64.StdEncoding.Strict().DecodeString(lines[2])
	if err != nil || len(h) != tlog.HashSize {
		return "", 0, root, wrap(ErrMalformed, verdict.MsgCPRootHash, clip(lines[2]))
	}
	copy(root[:], h)
	return origin, size, root, nil
}

// wrap is an error whose text is the message id(args…) of verdict's catalog
// (so that a verifier can show it in French too), then the sentinel's.
func wrap(sentinel error, id verdict.MsgID, args ...any) error {
	return fmt.Errorf("%w: %w", verdict.Errorf(id, args...), sentinel)
}

// Consistent checks that newer extends older: proof is the RFC 6962
// consistency proof from older.Size to newer.Size (empty when the sizes are
// equal or older is empty). A mismatch wraps ErrFork.
func Consistent(older, newer *Checkpoint, proof tlog.TreeProof) error {
	switch {
	case older.Origin != newer.Origin:
		return verdict.Errorf(verdict.MsgCPTwoLogs, older.Origin, newer.Origin)
	case newer.Size < older.Size:
		return Consistent(newer, older, proof)
	case older.Size == newer.Size:
		if older.Root != newer.Root {
			return wrap(ErrFork, verdict.MsgCPSameSizeFork, older.Size)
		}
		return nil
	case older.Size == 0:
		return nil
	}
	if err := tlog.CheckTree(proof, newer.Size, newer.Root, older.Size, older.Root); err != nil {
		return wrap(ErrFork, verdict.MsgCPNotExtend, newer.Size, older.Size, verdict.Named(err, verdict.MsgTlogProofFailed))
	}
	return nil
}

// validName follows the signed-note rule: non-empty, no space, no '+'.
func validName(name string) bool {
	if name == "" || strings.Contains(name, "+") {
		return false
	}
	for _, r := range name {
		if r <= 0x20 || r == 0x7f || r == 0x85 || r == 0xa0 || (r >= 0x2000 && r <= 0x200a) || r == 0x3000 {
			return false
		}
	}
	return true
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}
