package attestations

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"tirage.fr/tirage/verifier/announce"
	"tirage.fr/tirage/verifier/verdict"
)

// The in-toto and DSSE constants.
const (
	StatementType = "https://in-toto.io/Statement/v1"
	PayloadType   = "application/vnd.in-toto+json"
)

// Size limits of untrusted input.
const (
	// MaxEnvelope bounds an envelope, as announce bounds the announcement's.
	MaxEnvelope = announce.MaxEnvelope
	// MaxEmbedded is the largest envelope [NewRecord] puts in the log
	// record itself; a larger one is logged by its digest only. The record
	// holds it in hex, and a log leaf is at most 64 KiB − 1
	// (transparency.MaxLeafSize): 30 KiB leaves 4 KiB for the record's
	// other members.
	MaxEmbedded = 30 << 10
)

// Sentinels. Every error of [Open], [Parse] and [Verify] wraps ErrBad.
var (
	// ErrBad: the attestation is not one the announced key made, or not a
	// statement this package reads. Do not trust it.
	ErrBad = errors.New("bad attestation")
	// ErrUnknownType: the statement's predicate type is not one this
	// package reads (a newer appliance?): nothing is checked, nothing proven.
	ErrUnknownType = errors.New("unknown predicate type")
	// ErrNotCanonical: the payload parses, but is not the one canonical
	// encoding of what it says.
	ErrNotCanonical = errors.New("payload is not the canonical encoding of its statement")
)

// Subject is one artefact a statement is about: its name and SHA-256.
type Subject struct {
	Name   string
	SHA256 [32]byte
}

// Predicate is what a statement attests: [*Paytable] or [*Build].
type Predicate interface {
	// PredicateType is the predicate's type URI.
	PredicateType() string
}

// Statement is an in-toto Statement v1.
type Statement struct {
	Subject   []Subject
	Predicate Predicate
}

// Type is the statement's predicate type ("" without a predicate).
func (s *Statement) Type() string {
	if s.Predicate == nil {
		return ""
	}
	return s.Predicate.PredicateType()
}

// The wire forms: members declared in lexicographic order (canonical JSON).
type wireStatement struct {
	Type          string          `json:"_type"`
	Predicate     json.RawMessage `json:"predicate"`
	PredicateType string          `json:"predicateType"`
	Subject       []wireSubject   `json:"subject"`
}

type wireSubject struct {
	Digest wireDigest `json:"digest"`
	Name   string     `json:"name"`
}

type wireDigest struct {
	SHA256 string `json:"sha256"`
}

// predicates are the predicate types this package reads: a new, empty
// predicate of each.
var predicates = map[string]func() Predicate{
	PaytableType: func() Predicate { return new(Paytable) },
	BuildType:    func() Predicate { return new(Build) },
}

// Format returns the canonical encoding of s (step 2 of the package
// documentation): the payload of its envelope.
func Format(s *Statement) ([]byte, error) {
	if s.Predicate == nil {
		return nil, errors.New("statement has no predicate")
	}
	if len(s.Subject) == 0 {
		return nil, errors.New("statement has no subject")
	}
	pred, err := canonical(s.Predicate)
	if err != nil {
		return nil, fmt.Errorf("couldn't encode the predicate: %w", err)
	}
	w := wireStatement{Type: StatementType, Predicate: pred, PredicateType: s.Type()}
	for i, sub := range s.Subject {
		if sub.Name == "" {
			return nil, fmt.Errorf("subject[%d] has no name", i)
		}
		w.Subject = append(w.Subject, wireSubject{Name: sub.Name, Digest: wireDigest{SHA256: hex.EncodeToString(sub.SHA256[:])}})
	}
	return canonical(w)
}

// Parse parses an envelope's payload as a statement, strictly (see the
// package documentation): errors wrap ErrBad, and ErrUnknownType or
// ErrNotCanonical where they apply.
func Parse(payload []byte) (*Statement, error) {
	s, err := parse(payload)
	if err != nil {
		return nil, fmt.Errorf("%w: statement: %w", ErrBad, err)
	}
	return s, nil
}

func parse(payload []byte) (*Statement, error) {
	if len(payload) > MaxEnvelope {
		return nil, fmt.Errorf("%d bytes, more than %d", len(payload), MaxEnvelope)
	}
	var w wireStatement
	if err := decodeStrict(payload, &w); err != nil {
		return nil, err
	}
	if w.Type != StatementType {
		return nil, fmt.Errorf("_type %q, want %q", w.Type, StatementType)
	}
	if len(w.Subject) == 0 {
		return nil, errors.New("no subject")
	}
	s := &Statement{}
	for i, sub := range w.Subject {
		d, err := hex.DecodeString(sub.Digest.SHA256)
		if err != nil || len(d) != 32 {
			return nil, fmt.Errorf("subject[%d].digest.sha256 %q is not 64 hex digits", i, sub.Digest.SHA256)
		}
		if sub.Name == "" {
			return nil, fmt.Errorf("subject[%d].name is empty", i)
		}
		s.Subject = append(s.Subject, Subject{Name: sub.Name, SHA256: [32]byte(d)})
	}
	mk, ok := predicates[w.PredicateType]
	if !ok {
		return nil, fmt.Errorf("%q: %w", w.PredicateType, ErrUnknownType)
	}
	s.Predicate = mk()
	if err := decodeStrict(w.Predicate, s.Predicate); err != nil {
		return nil, fmt.Errorf("predicate: %w", err)
	}
	// One spelling: what was signed is what a reader sees (no case-folded
	// member names, no upper-case hex, no white space, no escapes).
	again, err := Format(s)
	if err != nil {
		return nil, err
	}
	if !bytes.Equal(again, payload) {
		return nil, ErrNotCanonical
	}
	return s, nil
}

// canonical is v's canonical JSON (step 1): encoding/json writes struct
// members in declaration order, which the types of this package keep
// lexicographic (a test checks it), and strings as RFC 8785 does once they
// are ASCII and HTML escaping is off.
func canonical(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	out := bytes.TrimSuffix(b.Bytes(), []byte("\n"))
	for i := 0; i < len(out); i++ {
		switch c := out[i]; {
		case c >= 0x80:
			return nil, fmt.Errorf("non-ASCII byte at offset %d", i)
		case c == '\\':
			// encoding/json writes U+2028 and U+2029 escaped, which
			// RFC 8785 does not: refused as every non-ASCII character is.
			if bytes.HasPrefix(out[i:], []byte(`\u2028`)) || bytes.HasPrefix(out[i:], []byte(`\u2029`)) {
				return nil, fmt.Errorf("non-ASCII character (%s) at offset %d", out[i:i+6], i)
			}
			i++ // the escaped character
		}
	}
	return out, nil
}

// decodeStrict decodes b into v: no repeated member, no unknown member,
// nothing after the value. Its errors are verdict's (they read in French).
func decodeStrict(b []byte, v any) error {
	if err := verdict.RepeatedMember(b); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return verdict.JSONError(err)
	}
	// Only white space may follow (dec.More alone lets a stray '}' through).
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("data after the JSON value")
	}
	return nil
}
