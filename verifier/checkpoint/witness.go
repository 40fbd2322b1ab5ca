package checkpoint

import (
	"bytes"
	"crypto/ed25519"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	fnote "github.com/transparency-dev/formats/note"
	"golang.org/x/mod/sumdb/note"

	"tirage.fr/tirage/verifier/verdict"
)

// # Witnesses
//
// A witness (c2sp.org/tlog-witness) is an independent party that checks the
// log only grows and cosigns the checkpoints it saw, with a timestamped
// cosignature (c2sp.org/tlog-cosignature, cosignature/v1): an Ed25519
// signature, type 0x04, over
//
//	"cosignature/v1\ntime <unix seconds>\n" || checkpoint body
//
// written as the signature line "— <witness name> base64(key ID (4) ||
// timestamp (8, big endian) || signature (64))". Its verifier key text is
// name+hex(key ID)+base64(0x04 || public key), the key ID being
// SHA-256(name || 0x0A || 0x04 || public key)[:4].
//
// [Open] ignores cosignature lines (their key IDs are no log key's);
// [Cosignatures] checks them against the witnesses a verifier trusts.

// algCosignatureV1 is the signature type of cosignature/v1.
const algCosignatureV1 = 0x04

// Witness is a parsed witness verifier key (cosignature/v1).
type Witness struct {
	Text     string // the verifier key text
	Name     string // the witness's name, as its cosignature lines give it
	ID       uint32 // the key ID
	Public   ed25519.PublicKey
	verifier note.Verifier
}

// String names the witness by its name and key ID.
func (w *Witness) String() string { return fmt.Sprintf("%s+%08x", w.Name, w.ID) }

// ParseWitness parses a witness's cosignature/v1 verifier key text. Any
// other key type is refused, an Ed25519 signed-note key (type 0x01) with a
// message saying which key to ask for.
func ParseWitness(text string) (*Witness, error) {
	text = strings.TrimSpace(text)
	name, id, raw, err := splitKey(text, keyMsgs{verdict.MsgWitnessKeyName, verdict.MsgWitnessKeyID, verdict.MsgWitnessKeyBase64})
	if err != nil {
		return nil, err
	}
	switch {
	case raw[0] == algEd25519:
		return nil, verdict.Errorf(verdict.MsgWitnessKeyNoteKey, clip(text))
	case raw[0] != algCosignatureV1:
		return nil, verdict.Errorf(verdict.MsgWitnessKeyType, clip(text), raw[0])
	case len(raw) != 1+ed25519.PublicKeySize:
		return nil, verdict.Errorf(verdict.MsgWitnessKeySize, clip(text))
	}
	v, err := fnote.NewVerifierForCosignatureV1(text)
	if err != nil {
		// Only a name the library's rule refuses (invalid UTF-8) reaches here.
		return nil, verdict.Errorf(verdict.MsgWitnessKeyName, clip(text))
	}
	// The library derives the key ID; the text's must be that one.
	if v.KeyHash() != id {
		return nil, verdict.Errorf(verdict.MsgWitnessKeyMismatch, clip(text))
	}
	return &Witness{Text: text, Name: name, ID: id, Public: ed25519.PublicKey(raw[1:]), verifier: v}, nil
}

// ParseWitnesses parses witness keys, one per non-empty line ('#' starts a
// comment line).
func ParseWitnesses(text string) ([]*Witness, error) {
	var out []*Witness
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		w, err := ParseWitness(line)
		if err == nil {
			out, err = AddWitness(out, w)
		}
		if err != nil {
			return nil, verdict.Errorf(verdict.MsgLineErr, i+1, err)
		}
	}
	if len(out) == 0 {
		return nil, verdict.Errorf(verdict.MsgNoWitnessKeyFound)
	}
	return out, nil
}

// AddWitness returns ws with w added, unless its key is already there: a
// witness is its Ed25519 key. The same key under the same name (another
// spelling of its key ID) is the same witness, counted once; under another
// name it is refused. A cosignature/v1 signature does not cover the
// witness's name (only the key ID carries it, and anyone can rewrite it),
// so one cosignature would count as two witnesses' towards a quorum.
func AddWitness(ws []*Witness, w *Witness) ([]*Witness, error) {
	for _, x := range ws {
		if bytes.Equal(x.Public, w.Public) {
			if x.Name != w.Name {
				return nil, verdict.Errorf(verdict.MsgWitnessKeyTwoNames, x.String(), w.String())
			}
			return ws, nil
		}
	}
	return append(ws, w), nil
}

// Cosignature is a witness's verified cosignature of a checkpoint.
type Cosignature struct {
	Witness *Witness
	// Time is the time the witness signed (UTC, to the second): it had
	// seen the checkpoint then.
	Time time.Time
}

// Cosignatures returns the valid cosignatures of c by witnesses, at most
// one per witness key, in the order the note gives them. Signature lines of
// other names or keys are ignored, as the signed-note spec requires; a
// cosignature line of one of witnesses' keys that does not verify is an
// error wrapping ErrUntrusted. c was opened by Open.
//
// A witness is its Ed25519 key: of witnesses sharing one (AddWitness
// refuses them), only the first is looked for, since the name is not
// signed and one cosignature would otherwise count twice.
func Cosignatures(c *Checkpoint, witnesses []*Witness) ([]Cosignature, error) {
	byKey := map[[2]string]*Witness{}
	var vs []note.Verifier
	var distinct []*Witness
	for _, w := range witnesses {
		k := [2]string{w.Name, strconv.FormatUint(uint64(w.ID), 16)}
		if byKey[k] == nil && !slices.ContainsFunc(distinct, func(x *Witness) bool { return bytes.Equal(x.Public, w.Public) }) {
			byKey[k] = w
			distinct = append(distinct, w)
			vs = append(vs, w.verifier)
		}
	}
	if len(vs) == 0 {
		return nil, nil
	}
	n, err := note.Open(c.Note, note.VerifierList(vs...))
	var unverified *note.UnverifiedNoteError
	var invalid *note.InvalidSignatureError
	switch {
	case errors.As(err, &unverified):
		return nil, nil // none of witnesses cosigned it
	case errors.As(err, &invalid):
		return nil, wrap(ErrUntrusted, verdict.MsgCPBadCosignature, invalid.Name, invalid.Hash)
	case err != nil:
		return nil, wrap(ErrMalformed, verdict.MsgCPCosignatureNote, err)
	}
	var out []Cosignature
	for _, s := range n.Sigs {
		t, err := fnote.CoSigV1Timestamp(s)
		if err != nil {
			return nil, wrap(ErrMalformed, verdict.MsgCPCosignatureTime, s.Name, s.Hash)
		}
		out = append(out, Cosignature{Witness: byKey[[2]string{s.Name, strconv.FormatUint(uint64(s.Hash), 16)}], Time: t.UTC()})
	}
	return out, nil
}
