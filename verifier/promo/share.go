package promo

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"tirage.fr/tirage/verifier/record"
	"tirage.fr/tirage/verifier/verdict"
)

// FormatTime is how promotion documents show an instant: RFC 3339 UTC, whole seconds.
func FormatTime(t time.Time) string { return t.UTC().Truncate(time.Second).Format(time.RFC3339) }

// The bailiff's share s, as bound into α, is one of
//
//	text:<the typed text>   8 to 256 bytes of printable UTF-8 (strconv.IsPrint:
//	                        U+0020 the only space), surrounding spaces trimmed
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
			return "", verdict.Errorf(verdict.MsgShareText)
		}
		for _, r := range t {
			// C0, DEL and C1 (U+0080–U+009F: NEL, CSI…): none is
			// printable, and a CSI can rewrite what a terminal shows.
			if unicode.IsControl(r) {
				return "", verdict.Errorf(verdict.MsgShareControl)
			}
			// Nor anything else that does not print, or prints as a
			// space other than U+0020 (no-break, zero-width, bidi
			// override, soft hyphen…): such a share reads, on the
			// procès-verbal and on a terminal, as another one, and
			// whoever could alter it before the proof could try such
			// variants until β suits them.
			if r != ' ' && !strconv.IsPrint(r) {
				return "", verdict.Errorf(verdict.MsgShareInvisible, fmt.Sprintf("%U", r))
			}
		}
	case strings.HasPrefix(s, "dice:"):
		d := s[5:]
		if len(d) < MinDiceRolls || len(d) > 256 {
			return "", verdict.Errorf(verdict.MsgShareDiceCount, MinDiceRolls, len(d))
		}
		for _, c := range d {
			if c < '1' || c > '6' {
				return "", verdict.Errorf(verdict.MsgShareDiceRoll, c)
			}
		}
	default:
		return "", verdict.Errorf(verdict.MsgSharePrefix)
	}
	return s, nil
}

// ShareFromText normalises typed text into a share: surrounding spaces
// trimmed, and Unicode NFC, so that the same letters typed on two keyboards
// or terminals (an "î" as one character, or as "i" and a combining
// circumflex) are the same share — the one the commitment was computed on
// elsewhere (rngverify share-commitment) and the one typed at the ceremony.
func ShareFromText(t string) (string, error) {
	return ParseShare("text:" + norm.NFC.String(strings.TrimSpace(t)))
}

// ShareFromDice normalises dice rolls typed with any separators ("3 5 1, 6…").
func ShareFromDice(rolls string) (string, error) {
	var b strings.Builder
	for _, c := range rolls {
		switch {
		case c >= '1' && c <= '6':
			b.WriteRune(c)
		case c == ' ' || c == ',' || c == '-' || c == '\t' || c == '\n' || c == '\r':
		default:
			return "", verdict.Errorf(verdict.MsgShareDiceRoll, c)
		}
	}
	return ParseShare("dice:" + b.String())
}

// ShareFromInput normalises what the bailiff entered — a typed line or a
// share file's bytes — as dice rolls (dice) or text: the one reading of a
// share, at the ceremony (rngctl promo draw) and for its commitment
// (rngverify share-commitment).
func ShareFromInput(raw []byte, dice bool) (string, error) {
	if dice {
		return ShareFromDice(string(raw))
	}
	return ShareFromText(string(raw))
}

// MaxShareLine bounds the line ReadShareLine reads.
const MaxShareLine = 4096

// ReadShareLine reads one line from r, the bailiff's terminal, byte by byte
// (nothing after it is consumed), without its line end ("\n" or "\r\n"). A
// last line without a line end is read to EOF; nothing at all, or more than
// MaxShareLine bytes, is refused.
func ReadShareLine(r io.Reader) ([]byte, error) {
	var b []byte
	var one [1]byte
	for len(b) <= MaxShareLine {
		n, err := r.Read(one[:])
		if n == 1 {
			if one[0] == '\n' {
				return bytes.TrimSuffix(b, []byte("\r")), nil
			}
			b = append(b, one[0])
		}
		if errors.Is(err, io.EOF) {
			if len(b) == 0 {
				return nil, verdict.Errorf(verdict.MsgShareNone)
			}
			return b, nil
		}
		if err != nil {
			return nil, err
		}
	}
	return nil, verdict.Errorf(verdict.MsgShareLong, MaxShareLine)
}

// ShareCommitment is the bailiff's commitment to share s, in its recorded
// form ("text:…" or "dice:…", as ParseShare accepts and the promo_draw
// record holds), for draw (operation/id):
//
//	SHA-256("tirage/share-commitment/v1" || u32be(len(draw)) || draw ||
//	        u32be(len(s)) || s)
//
// The bailiff computes it alone (rngverify share-commitment) and the freeze
// logs it (promo_freeze share_commitment) before the beacon round is
// published; the draw's share must open it (VerifyShareCommitment). It is
// checked, not bound into α.
func ShareCommitment(draw, s string) [32]byte {
	h := sha256.New()
	h.Write([]byte("tirage/share-commitment/v1"))
	for _, v := range []string{draw, s} {
		h.Write(binary.BigEndian.AppendUint32(nil, uint32(len(v))))
		h.Write([]byte(v))
	}
	var out [32]byte
	h.Sum(out[:0])
	return out
}

// VerifyShareCommitment returns an error when the freeze f lacks the
// share commitment it must hold (CheckShareCommitted) or holds one that
// share (its recorded form) does not open (verdict.MsgShareCommitmentOpen);
// nil when share opens it or f need hold none (a freeze logged before
// freezes held one, or one without a beacon that was given none).
func VerifyShareCommitment(f *record.PromoFreeze, share string) error {
	if err := CheckShareCommitted(f); err != nil {
		return err
	}
	if f.ShareCommitment == ([32]byte{}) || ShareCommitment(f.Draw, share) == f.ShareCommitment {
		return nil
	}
	return verdict.Errorf(verdict.MsgShareCommitmentOpen, hex.EncodeToString(f.ShareCommitment[:]))
}

// ShareCommitmentsRequired is when freezes announcing a beacon began to
// hold the bailiff's share commitment (rngd of 2026-12-03, NewFreeze).
var ShareCommitmentsRequired = time.Date(2026, 12, 4, 0, 0, 0, 0, time.UTC)

// CheckShareCommitted returns an error (verdict.MsgShareCommitmentMissing)
// when the freeze f announces a beacon, holds no share commitment and is
// timed from ShareCommitmentsRequired on: made by an older rngd or by
// hand, it left the share free until the round was published. A freeze
// timed before is an older one, whose draw verifies with a warning. The
// time is the appliance's, but it cannot be set back at will: it must
// follow the participation period of the rules the freeze commits to
// (Rules.CheckFreezeTime), and precede the round (beacon.PublishedAfter).
func CheckShareCommitted(f *record.PromoFreeze) error {
	if f.Beacon == "" || f.ShareCommitment != ([32]byte{}) || f.Time.Before(ShareCommitmentsRequired) {
		return nil
	}
	return verdict.Errorf(verdict.MsgShareCommitmentMissing, FormatTime(f.Time), FormatTime(ShareCommitmentsRequired))
}
