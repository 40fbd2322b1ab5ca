// Package record defines Tirage's log leaves and the VRF inputs α of its draws.
//
// # API
//
//	leaf, err := record.Format(&record.Pick{...})   // canonical bytes of one leaf
//	r, err := record.Parse(leaf)                     // the same record back; rejects non-canonical bytes
//	h := record.LeafHash(leaf)                       // RFC 6962 leaf hash; the "prev" link of the next record
//	a := record.PickAlpha(game, emission, ticket, secret, index, number)   // α for vrf.Prove / vrf.Verify
//	a := record.StartAlpha(...), record.PromoDrawAlpha(...)
//	c := record.Commit(secret)                       // H(r) = SHA-256(r), logged at start, r revealed at end
//	t, err := record.TicketHash(code)                // SHA-256("tirage/ticket/v1" || normalised 18-char code)
//	f := record.Fingerprint(publicKey)               // SHA-256 of an announced key
//
// Every kind is a struct implementing Record: *KeyAnnouncement, *Emission,
// *Manifest, *GameStart, *TicketQuit, *Pick, *Decision, *GameEnd,
// *PromoFreeze, *PromoDraw, *Attestation. Parse returns one of those
// pointers.
//
// # Encoding (version 1)
//
// A leaf is one JSON object in a canonical subset of RFC 8785 (JCS) chosen so
// that every record has exactly one encoding and a person can read it:
//
//   - members sorted by key (bytewise; keys are ASCII), no duplicate keys, no
//     whitespace anywhere, no null;
//   - integers only, in ±(2^53−1) (I-JSON), no leading zeros, no "-0", no
//     fraction or exponent: amounts are integer euro cents (300 = 3 €);
//   - strings of printable ASCII (0x20–0x7E) with only \" and \\ escaped;
//   - byte strings (keys, proofs, hashes, β, r) as lowercase hex strings;
//   - times as RFC 3339 UTC strings with whole seconds, "2026-11-30T01:44:00Z";
//     calendar dates (an emission's closure date) as "YYYY-MM-DD".
//
// The top level is {"kind":"…","v":1,…}: "v" is the format version and "kind"
// names the record type. Parse accepts only version 1 and only the fields
// defined for the kind; optional fields are omitted when empty and rejected
// when present but empty, so Format(Parse(b)) == b for every b Parse accepts.
// An optional field may be added to a kind within version 1 (a record
// without it keeps its one encoding, and a record with it has exactly one
// too); anything else — a new required field, a changed meaning — needs a new
// version. The optional members "req" and "req_digest" of the game records,
// then of emission, manifest and attestation (see RequestID), "server" of
// game_start, and
// "rules" and "key" of promo_freeze were added that way. A kind may be
// added within version 1 too, as ticket_quit was: a verifier that does not
// know it refuses its records as ErrUnknownKind (not ErrMalformed), and
// its members are all required from the start.
//
// # Hash links
//
// Records of one game (and a promotion draw after its freeze) carry "prev",
// the RFC 6962 leaf hash of the previous record of the same game:
//
//	LeafHash(leaf) = SHA-256(0x00 || leaf)
//
// which is also the hash the Merkle log stores for that leaf, so an auditor
// can look the previous record up by hash. The first record of a game (its
// start) has no prev.
//
// # VRF inputs
//
// α = "tirage/alpha/v1" || u16be(len(kind)) || kind || field_1 || … || field_n,
// each field being u32be(len(value)) || value. Integers are 8-byte big-endian
// values (so their fields read 00000008 || u64be). The fields of each kind are
// listed on StartAlpha, PickAlpha and PromoDrawAlpha, and docs/alpha.md works
// examples by hand.
package record

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"errors"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"slices"
	"time"

	"tirage.fr/tirage/verifier/verdict"
)

// Version is the record format version this package writes and reads.
const Version = 1

// MaxLeafSize bounds the size of a leaf Parse accepts. It is above the
// largest leaf a log stores (transparency.MaxLeafSize, 64 KiB − 1, the
// tlog-tiles entry limit), so Parse refuses no leaf the daemon could log;
// Parse allocates at most about 8 bytes per byte of leaf (TestParseAllocBound),
// so it also bounds what a hostile leaf costs a verifier to about 8 MiB.
const MaxLeafSize = 1 << 20

// Errors. Check with errors.Is; the wrapping message names the field. Every
// error of Parse, Format and TicketHash is built from verdict's message
// catalog (a *verdict.MsgError, wrapping these sentinels), so that rngverify
// says it in French too; its English text is the package's own.
var (
	// ErrMalformed: the bytes are not a canonical version-1 record
	// (syntax, field, type or value). The record must be refused.
	ErrMalformed = errors.New("malformed record")
	// ErrUnknownKind: the kind is not one this version defines.
	ErrUnknownKind = errors.New("unknown record kind")
	// ErrVersion: the format version is not 1. A newer verifier may read it.
	ErrVersion = errors.New("unsupported record version")
)

// Kind names a record type; it is the "kind" member of the leaf.
type Kind string

// The record kinds of version 1.
const (
	KindKey         Kind = "key"          // public keys announced (first records of the log)
	KindEmission    Kind = "emission"     // a ticket emission registered with its closure date
	KindManifest    Kind = "manifest"     // a ticket manifest imported: Merkle root and count
	KindGameStart   Kind = "game_start"   // stage 2 started ("CONTINUER"): multipliers, H(r)
	KindTicketQuit  Kind = "ticket_quit"  // stage 2 renounced ("QUITTER"): the player keeps S
	KindPick        Kind = "pick"         // one number picked: good or losing
	KindDecision    Kind = "decision"     // at a tier: continue or stop
	KindGameEnd     Kind = "game_end"     // won, lost, expired or refunded; reveals r
	KindPromoFreeze Kind = "promo_freeze" // a promotion's entrant list frozen, H(r) committed
	KindPromoDraw   Kind = "promo_draw"   // a promotion draw: ranked winners and reserves
	KindAttestation Kind = "attestation"  // a signed statement's digest
)

// Record is one log leaf. The concrete types are the pointer types listed in
// the package documentation.
type Record interface {
	Kind() Kind
	validate() error
}

// GameRecord is implemented by the records of a game (start, pick, decision,
// end): the daemon and the verifier use it to chain them.
type GameRecord interface {
	Record
	GameID() string
	// PrevHash is the leaf hash of the previous record of the game; zero for a start.
	PrevHash() [32]byte
}

// newRecord returns a new zero record of kind k.
func newRecord(k Kind) Record {
	switch k {
	case KindKey:
		return new(KeyAnnouncement)
	case KindEmission:
		return new(Emission)
	case KindManifest:
		return new(Manifest)
	case KindGameStart:
		return new(GameStart)
	case KindTicketQuit:
		return new(TicketQuit)
	case KindPick:
		return new(Pick)
	case KindDecision:
		return new(Decision)
	case KindGameEnd:
		return new(GameEnd)
	case KindPromoFreeze:
		return new(PromoFreeze)
	case KindPromoDraw:
		return new(PromoDraw)
	case KindAttestation:
		return new(Attestation)
	}
	return nil
}

// Format returns the canonical encoding of r. It fails, naming the field,
// when a value cannot be encoded canonically (a time with sub-second
// precision, a non-ASCII string, an integer beyond 2^53−1) or breaks the
// kind's rules (an unknown outcome, a number outside 1..30, …).
func Format(r Record) ([]byte, error) {
	return appendRecord(make([]byte, 0, 1024), r) // a pick's or a start's leaf fits (under 1,000 bytes)
}

// appendRecord appends Format(r) to buf: Parse passes a buffer the size of
// the leaf, which a canonical leaf fills exactly.
func appendRecord(buf []byte, r Record) ([]byte, error) {
	if r == nil || reflect.ValueOf(r).IsNil() {
		return nil, verdict.Errorf(verdict.MsgRecordFormatNil)
	}
	if err := r.validate(); err != nil {
		return nil, verdict.Errorf(verdict.MsgRecordFormat, verdict.Term(r.Kind()), err)
	}
	return appendValid(buf, r)
}

// appendValid is appendRecord of a record validated already.
func appendValid(buf []byte, r Record) ([]byte, error) {
	e := encoder{buf: buf}
	if err := e.encodeTop(r); err != nil {
		return nil, err
	}
	return e.buf, nil
}

// head scans leaf as one JSON object and returns its "kind" and "v"
// members as scanned (nil when absent).
func head(leaf []byte) (kind, version []byte, err error) {
	p := parser{b: leaf}
	if len(leaf) == 0 || leaf[0] != '{' {
		return nil, nil, p.errorf(verdict.MsgRecordNotObject)
	}
	if err := p.scan(0); err != nil {
		return nil, nil, err
	}
	if p.off != len(leaf) {
		return nil, nil, p.errorf(verdict.MsgRecordTrailing)
	}
	for key, val := range members(leaf) {
		switch string(key) {
		case "kind":
			kind = val
		case "v":
			version = val
		}
	}
	return kind, version, nil
}

// Newer reports whether leaf, which Parse refused with ErrVersion or
// ErrUnknownKind, can be a record of a later format: a version above
// Version, or at Version a kind named as kinds are (lower-case words joined
// by "_": a kind may be added within a version, as ticket_quit was). A
// version below, or a kind no format would name so, is no format's
// record: the leaf is damaged or forged.
func Newer(leaf []byte) bool {
	if len(leaf) > MaxLeafSize {
		return false
	}
	kind, version, err := head(leaf)
	if err != nil || version == nil || rawKind(version) != '0' {
		return false
	}
	switch n := rawInteger(version); {
	case n > Version:
		return true
	case n < Version:
		return false
	}
	return kind != nil && rawKind(kind) == '"' && kindName.MatchString(rawString(kind))
}

// kindName is how record kinds are named: "ticket_quit".
var kindName = regexp.MustCompile(`^[a-z]+(_[a-z]+)*$`)

// Parse decodes a leaf. It accepts exactly the bytes Format produces, so
// Format(Parse(b)) == b, and rejects everything else with an error naming
// the byte offset or the field (ErrMalformed, ErrUnknownKind, ErrVersion).
func Parse(leaf []byte) (Record, error) {
	if len(leaf) > MaxLeafSize {
		return nil, verdict.Errorf(verdict.MsgRecordTooLarge, len(leaf), MaxLeafSize, ErrMalformed)
	}
	kind, version, err := head(leaf)
	if err != nil {
		return nil, err
	}
	if version == nil || rawKind(version) != '0' {
		return nil, decodeErr("v", verdict.MsgRecordVersionType)
	}
	if n := rawInteger(version); n != Version {
		return nil, verdict.Errorf(verdict.MsgRecordVersion, n, ErrVersion)
	}
	if kind == nil || rawKind(kind) != '"' {
		return nil, decodeErr("kind", verdict.MsgRecordKindType)
	}
	k := rawString(kind)
	r := newRecord(Kind(k))
	if r == nil {
		return nil, verdict.Errorf(verdict.MsgRecordKind, k, ErrUnknownKind)
	}
	if err := decodeStruct(reflect.ValueOf(r).Elem(), leaf, "", "kind", "v"); err != nil {
		return nil, err
	}
	if err := r.validate(); err != nil {
		return nil, verdict.Errorf(verdict.MsgRecordInvalid, verdict.Term(r.Kind()), err, ErrMalformed)
	}
	// Belt and braces: the grammar above admits exactly one encoding per
	// record, and this check keeps that true if a field type is added.
	again, err := appendValid(make([]byte, 0, len(leaf)), r)
	if err != nil {
		return nil, verdict.Errorf(verdict.MsgRecordNotEncodable, err, ErrMalformed)
	}
	if !bytes.Equal(again, leaf) {
		return nil, verdict.Errorf(verdict.MsgRecordNotCanonical, ErrMalformed)
	}
	return r, nil
}

// LeafHash is the RFC 6962 leaf hash SHA-256(0x00 || leaf): the "prev" link
// of the next record of the same game, and the hash the log stores.
func LeafHash(leaf []byte) [32]byte {
	h := sha256.New()
	h.Write([]byte{0})
	h.Write(leaf)
	var out [32]byte
	h.Sum(out[:0])
	return out
}

// Commit is H(r) = SHA-256(r), the commitment to a game's (or a promotion
// draw's) secret r that the start (or freeze) record carries.
func Commit(secret [32]byte) [32]byte {
	return sha256.Sum256(secret[:])
}

// Fingerprint is SHA-256 of a public key's bytes as announced (for P-256 the
// 33-byte compressed point; for RSA the DER SubjectPublicKeyInfo).
func Fingerprint(publicKey []byte) [32]byte {
	return sha256.Sum256(publicKey)
}

// Hex renders a 32-byte hash the way records do, for messages.
func Hex(h [32]byte) string {
	return fmt.Sprintf("%x", h[:])
}

func checkTime(name string, t time.Time) error {
	if t.IsZero() {
		return verdict.Errorf(verdict.MsgRecordMissingTime, name)
	}
	return nil
}

func sha256Sum(b []byte) [32]byte { return sha256.Sum256(b) }

// maxBitsetEntrants bounds the entrants firstBadEntry marks in a bit set:
// 2^23 bits, 1 MiB.
const maxBitsetEntrants = 1 << 23

// firstBadEntry returns the index of the first entry of a promotion draw's
// ranking that is out of range (≥ count) or repeats an earlier entry, or −1
// if there is none. It sorts the entries' positions rather than filling a
// set: a map presized for a hostile leaf's 500,000-entry ranking cost 18
// bytes per byte of the leaf, 4-byte positions cost 2.
//
// Up to maxBitsetEntrants entrants it marks them in a bit set instead (at
// most 1 MiB, the size of a leaf; and at most 16 bytes per entry, or a
// short ranking of a large draw would cost a megabyte), and stops at the
// first repeat.
func firstBadEntry(ranking []uint64, count uint64) int {
	bad := slices.IndexFunc(ranking, func(e uint64) bool { return e >= count })
	if bad < 0 {
		bad = len(ranking)
	}
	// A repeat among the first entries (a hostile ranking of zeros) is
	// found without marking or sorting the rest.
	head := map[uint64]bool{}
	for i, e := range ranking[:min(bad, 64)] {
		if head[e] {
			return i
		}
		head[e] = true
	}
	if count <= maxBitsetEntrants && (count+63)/64 <= 2*uint64(bad)+64 {
		// A bit per entrant: one pass, stopping at the first repeat.
		seen := make([]uint64, (count+63)/64)
		for i, e := range ranking[:bad] {
			if seen[e/64]&(1<<(e%64)) != 0 {
				return i
			}
			seen[e/64] |= 1 << (e % 64)
		}
	} else if uint64(bad) > math.MaxUint32 { // no such ranking fits in a leaf
		seen := make(map[uint64]bool)
		for i, e := range ranking[:bad] {
			if seen[e] {
				return i
			}
			seen[e] = true
		}
	} else {
		// Only the entries before the first out-of-range one matter. Sorted
		// by value then position, an entry equal to its predecessor
		// repeats an earlier one.
		pos := make([]uint32, bad)
		for i := range pos {
			pos[i] = uint32(i)
		}
		slices.SortFunc(pos, func(a, b uint32) int {
			return cmp.Or(cmp.Compare(ranking[a], ranking[b]), cmp.Compare(a, b))
		})
		for k := 1; k < len(pos); k++ {
			if ranking[pos[k]] == ranking[pos[k-1]] {
				bad = min(bad, int(pos[k]))
			}
		}
	}
	if bad == len(ranking) {
		return -1
	}
	return bad
}
