package promo

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// Log records of a promotion draw.
//
// Two leaves go into the transparency log per draw: the freeze, before the
// ceremony, and the draw, at the ceremony. Each is canonical JSON, one object
// on one line, fields in the order below, hashes in lower-case hex, times in
// RFC 3339 UTC with seconds, no floats. ParseFreeze / ParseDraw accept exactly
// the bytes FormatFreeze / FormatDraw produce.
//
// Until verifier/record defines promotion kinds, these encodings live here;
// their "kind" values ("promotion-freeze", "promotion-draw") and "v" leave
// room for the shared record package to take them over unchanged.
const (
	KindFreeze = "promotion-freeze"
	KindDraw   = "promotion-draw"
)

// FreezeRecord commits to a draw's entrant list before the ceremony.
type FreezeRecord struct {
	V          int      `json:"v"`             // 1
	Kind       string   `json:"kind"`          // promotion-freeze
	Draw       string   `json:"draw"`          // operation/id
	RulesHash  string   `json:"rules_sha256"`  // RulesHash of the rules file
	Days       []string `json:"days"`          // participation days feeding the draw
	Count      uint64   `json:"count"`         // number of entrants n
	Root       string   `json:"entrants_root"` // RFC 6962 root of the entrant leaves
	Withheld   uint64   `json:"withheld"`      // participants left out: account closed
	Commitment string   `json:"commitment"`    // H(r), see Commit
	FrozenAt   string   `json:"frozen_at"`
}

// DrawRecord is the ceremony's outcome.
type DrawRecord struct {
	V           int          `json:"v"`            // 1
	Kind        string       `json:"kind"`         // promotion-draw
	Draw        string       `json:"draw"`         // operation/id
	FreezeLeaf  string       `json:"freeze_leaf"`  // RFC 6962 leaf hash of the freeze record
	FreezeIndex uint64       `json:"freeze_index"` // its index in the log
	Count       uint64       `json:"count"`
	Root        string       `json:"entrants_root"`
	Commitment  string       `json:"commitment"`
	R           string       `json:"r"`     // the revealed appliance value r
	Share       string       `json:"share"` // the bailiff's share s (see ParseShare)
	Beacon      *BeaconValue `json:"beacon,omitempty"`
	Suite       string       `json:"vrf_suite"`
	PublicKey   string       `json:"vrf_public_key"` // hex of vrf.PublicKey.Bytes
	Proof       string       `json:"proof"`          // VRF proof π
	Beta        string       `json:"beta"`           // VRF output β
	Winners     []Pick       `json:"winners"`        // rank 1 the winner, then reserves
	DrawnAt     string       `json:"drawn_at"`
}

// BeaconValue is a pre-announced public beacon round and its value.
type BeaconValue struct {
	Source string `json:"source"`
	Round  uint64 `json:"round"`
	Value  string `json:"value"` // hex, as published by the beacon
}

// Pick is one drawn entrant.
type Pick struct {
	Rank  int    `json:"rank"`  // 1 = winner, 2… = reserves in order
	Index uint64 `json:"index"` // position in the canonical entrant list
	Leaf  string `json:"leaf"`  // the entrant's leaf hash
}

// ErrRecord wraps every defect of a promotion record encoding.
var ErrRecord = errors.New("invalid promotion record")

// FormatFreeze encodes a freeze record.
func FormatFreeze(f *FreezeRecord) []byte { return mustJSON(f) }

// FormatDraw encodes a draw record.
func FormatDraw(d *DrawRecord) []byte { return mustJSON(d) }

func mustJSON(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic("promo: record encoding: " + err.Error()) // only strings, ints and slices of them
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// ParseFreeze decodes and checks a freeze record.
func ParseFreeze(b []byte) (*FreezeRecord, error) {
	var f FreezeRecord
	if err := strictJSON(b, &f); err != nil {
		return nil, err
	}
	if f.V != 1 || f.Kind != KindFreeze {
		return nil, fmt.Errorf("%w: not a version 1 %s record", ErrRecord, KindFreeze)
	}
	if !validDrawID(f.Draw) {
		return nil, fmt.Errorf("%w: draw: bad draw id %q", ErrRecord, clip(f.Draw))
	}
	if err := checkHex("rules_sha256", f.RulesHash, 32); err != nil {
		return nil, err
	}
	if err := checkHex("entrants_root", f.Root, 32); err != nil {
		return nil, err
	}
	if err := checkHex("commitment", f.Commitment, 32); err != nil {
		return nil, err
	}
	if err := checkTime("frozen_at", f.FrozenAt); err != nil {
		return nil, err
	}
	if !bytes.Equal(FormatFreeze(&f), b) {
		return nil, fmt.Errorf("%w: freeze record is not in canonical form", ErrRecord)
	}
	return &f, nil
}

// ParseDraw decodes and checks a draw record.
func ParseDraw(b []byte) (*DrawRecord, error) {
	var d DrawRecord
	if err := strictJSON(b, &d); err != nil {
		return nil, err
	}
	if d.V != 1 || d.Kind != KindDraw {
		return nil, fmt.Errorf("%w: not a version 1 %s record", ErrRecord, KindDraw)
	}
	if !validDrawID(d.Draw) {
		return nil, fmt.Errorf("%w: draw: bad draw id %q", ErrRecord, clip(d.Draw))
	}
	for _, c := range []struct {
		name, v string
		n       int
	}{{"freeze_leaf", d.FreezeLeaf, 32}, {"entrants_root", d.Root, 32}, {"commitment", d.Commitment, 32}, {"r", d.R, 32}, {"beta", d.Beta, 0}, {"proof", d.Proof, 0}, {"vrf_public_key", d.PublicKey, 0}} {
		if err := checkHex(c.name, c.v, c.n); err != nil {
			return nil, err
		}
	}
	if _, err := ParseShare(d.Share); err != nil {
		return nil, fmt.Errorf("%w: share: %w", ErrRecord, err)
	}
	if d.Beacon != nil {
		if err := checkHex("beacon.value", d.Beacon.Value, 0); err != nil {
			return nil, err
		}
	}
	for i, p := range d.Winners {
		if p.Rank != i+1 || p.Index >= d.Count {
			return nil, fmt.Errorf("%w: winners[%d]: rank must be %d and index below count", ErrRecord, i, i+1)
		}
		if err := checkHex(fmt.Sprintf("winners[%d].leaf", i), p.Leaf, 32); err != nil {
			return nil, err
		}
	}
	if err := checkTime("drawn_at", d.DrawnAt); err != nil {
		return nil, err
	}
	if !bytes.Equal(FormatDraw(&d), b) {
		return nil, fmt.Errorf("%w: draw record is not in canonical form", ErrRecord)
	}
	return &d, nil
}

func strictJSON(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%w: %w", ErrRecord, err)
	}
	if dec.More() {
		return fmt.Errorf("%w: trailing data", ErrRecord)
	}
	return nil
}

func checkHex(name, v string, n int) error {
	b, err := hex.DecodeString(v)
	if err != nil || (n > 0 && len(b) != n) || (n == 0 && len(b) == 0) || strings.ToLower(v) != v {
		if n > 0 {
			return fmt.Errorf("%w: %s: want %d bytes in lower-case hex", ErrRecord, name, n)
		}
		return fmt.Errorf("%w: %s: want lower-case hex", ErrRecord, name)
	}
	return nil
}

func checkTime(name, v string) error {
	t, err := time.Parse(time.RFC3339, v)
	if err != nil || t.UTC().Format(time.RFC3339) != v {
		return fmt.Errorf("%w: %s: want RFC 3339 UTC like 2016-06-21T10:00:00Z", ErrRecord, name)
	}
	return nil
}

// FormatTime is the records' time format.
func FormatTime(t time.Time) string { return t.UTC().Truncate(time.Second).Format(time.RFC3339) }

// The bailiff's share s, as bound into α, is one of
//
//	text:<the typed text>   8 to 256 bytes of printable UTF-8, surrounding spaces trimmed
//	dice:<digits 1–6>       at least MinDiceRolls rolls, in the order rolled
//
// Typed input is normalised by ParseShare so that what the bailiff types and
// what the certificate shows are the same string.
const MinDiceRolls = 25 // 25 fair d6 rolls carry 64.6 bits

// ParseShare checks a share in its recorded form ("text:…" or "dice:…").
func ParseShare(s string) (string, error) {
	switch {
	case strings.HasPrefix(s, "text:"):
		t := s[5:]
		if t != strings.TrimSpace(t) || len(t) < 8 || len(t) > 256 || !utf8.ValidString(t) {
			return "", errors.New("typed share must be 8 to 256 bytes of UTF-8 without surrounding spaces")
		}
		for _, r := range t {
			if r < 0x20 || r == 0x7f {
				return "", errors.New("typed share must not contain control characters")
			}
		}
	case strings.HasPrefix(s, "dice:"):
		d := s[5:]
		if len(d) < MinDiceRolls || len(d) > 256 {
			return "", fmt.Errorf("dice share needs %d to 256 rolls, got %d", MinDiceRolls, len(d))
		}
		for _, c := range d {
			if c < '1' || c > '6' {
				return "", fmt.Errorf("dice roll %q is not 1 to 6", c)
			}
		}
	default:
		return "", errors.New("share must start with text: or dice:")
	}
	return s, nil
}

// ShareFromText normalises typed text into a share.
func ShareFromText(t string) (string, error) { return ParseShare("text:" + strings.TrimSpace(t)) }

// ShareFromDice normalises dice rolls typed with any separators ("3 5 1, 6…").
func ShareFromDice(rolls string) (string, error) {
	var b strings.Builder
	for _, c := range rolls {
		switch {
		case c >= '1' && c <= '6':
			b.WriteRune(c)
		case c == ' ' || c == ',' || c == '-' || c == '\t' || c == '\n' || c == '\r':
		default:
			return "", fmt.Errorf("dice roll %q is not 1 to 6", c)
		}
	}
	return ParseShare("dice:" + b.String())
}
