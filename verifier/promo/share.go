package promo

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

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
			return "", verdict.Errorf(verdict.MsgShareDiceRoll, c)
		}
	}
	return ParseShare("dice:" + b.String())
}
