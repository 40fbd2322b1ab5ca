package record

import (
	"encoding/binary"
	"errors"

	"tirage.fr/tirage/verifier/verdict"
)

// AlphaDomain is the domain-separation prefix of every VRF input.
const AlphaDomain = "tirage/alpha/v1"

// The α kinds (the string after the domain).
const (
	alphaStart = "qod/start"
	alphaPick  = "qod/pick"
	alphaPromo = "promo/draw"
)

// alphaBuilder writes AlphaDomain || u16be(len(kind)) || kind, then fields as
// u32be(len) || bytes.
type alphaBuilder []byte

func newAlpha(kind string, size int) alphaBuilder {
	b := make(alphaBuilder, 0, len(AlphaDomain)+2+len(kind)+size)
	b = append(b, AlphaDomain...)
	b = binary.BigEndian.AppendUint16(b, uint16(len(kind)))
	return append(b, kind...)
}

func (b alphaBuilder) bytes(v []byte) alphaBuilder {
	b = binary.BigEndian.AppendUint32(b, uint32(len(v)))
	return append(b, v...)
}

func (b alphaBuilder) str(s string) alphaBuilder { return b.bytes([]byte(s)) }

func (b alphaBuilder) u64(v uint64) alphaBuilder {
	b = binary.BigEndian.AppendUint32(b, 8)
	return binary.BigEndian.AppendUint64(b, v)
}

// StartAlpha is α of a game's start (the tier multipliers):
//
//	"tirage/alpha/v1" || u16be(9) || "qod/start"
//	|| field(game) || field(emission) || field(ticket, 32 bytes)
//	|| field(u64be(stake in cents)) || field(r, 32 bytes)
//
// where field(x) = u32be(len(x)) || x and strings are their ASCII bytes.
func StartAlpha(game, emission string, ticket [32]byte, stake int64, secret [32]byte) []byte {
	return newAlpha(alphaStart, len(game)+len(emission)+32+8+32+5*4).
		str(game).str(emission).bytes(ticket[:]).u64(uint64(stake)).bytes(secret[:])
}

// PickAlpha is α of pick number index (0 for the first) choosing number (1..30):
//
//	"tirage/alpha/v1" || u16be(8) || "qod/pick"
//	|| field(game) || field(emission) || field(ticket, 32 bytes) || field(r, 32 bytes)
//	|| field(u64be(index)) || field(u64be(number))
//
// One α per (game, index): the VRF has one output per α, so a pick cannot
// be re-rolled, and nobody can predict it before r is revealed.
func PickAlpha(game, emission string, ticket [32]byte, secret [32]byte, index, number int) []byte {
	return newAlpha(alphaPick, len(game)+len(emission)+32+32+8+8+6*4).
		str(game).str(emission).bytes(ticket[:]).bytes(secret[:]).
		u64(uint64(index)).u64(uint64(number))
}

// PromoDrawAlpha is α of a promotion draw:
//
//	"tirage/alpha/v1" || u16be(10) || "promo/draw"
//	|| field(draw) || field(root, 32 bytes) || field(u64be(count))
//	|| field(H(r), 32 bytes) || field(r, 32 bytes) || field(s) || field(beacon)
//
// s is the bailiff's share; beacon is the public beacon value, or empty
// (field = 00000000) when none was announced.
func PromoDrawAlpha(draw string, root [32]byte, count uint64, commit, secret [32]byte, share, beacon []byte) []byte {
	return newAlpha(alphaPromo, len(draw)+32+8+32+32+len(share)+len(beacon)+7*4).
		str(draw).bytes(root[:]).u64(count).bytes(commit[:]).bytes(secret[:]).bytes(share).bytes(beacon)
}

// Alpha returns α of a start record given the revealed r.
func (r *GameStart) Alpha(secret [32]byte) []byte {
	return StartAlpha(r.Game, r.Emission, r.Ticket, r.Stake, secret)
}

// Alpha returns α of a promotion draw record (its r, s and beacon are in the record).
func (r *PromoDraw) Alpha() []byte {
	return PromoDrawAlpha(r.Draw, r.Root, r.Count, r.Commit, r.Secret, r.Share, r.BeaconValue)
}

// ErrTicketCode: a ticket code is not 18 characters of A–Z and 0–9.
var ErrTicketCode = errors.New("ticket code must be 18 characters A-Z 0-9")

// TicketHash is the hash of an 18-character ticket code as manifests and
// start records carry it: SHA-256("tirage/ticket/v1" || code), the code
// upper-cased with spaces and hyphens removed first. Its memory does not
// grow with code: a code longer than 18 characters is counted, not kept.
func TicketHash(code string) ([32]byte, error) {
	const prefix = "tirage/ticket/v1"
	var b [len(prefix) + 18]byte
	copy(b[:], prefix)
	norm, n := b[len(prefix):], 0
	for i := 0; i < len(code); i++ {
		c := code[i]
		switch {
		case c == ' ' || c == '-':
			continue
		case c >= 'a' && c <= 'z':
			c -= 'a' - 'A'
		case (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'):
		default:
			return [32]byte{}, verdict.Errorf(verdict.MsgTicketCodeChar, i+1, ErrTicketCode)
		}
		if n < len(norm) {
			norm[n] = c
		}
		n++
	}
	if n != len(norm) {
		return [32]byte{}, verdict.Errorf(verdict.MsgTicketCodeLength, n, ErrTicketCode)
	}
	return sha256Sum(b[:]), nil
}
