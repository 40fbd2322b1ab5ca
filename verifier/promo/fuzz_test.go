package promo

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"tirage.fr/tirage/verifier/beacon"
	"tirage.fr/tirage/verifier/record"

	"tirage.fr/tirage/verifier/verdict"
)

// A certificate is one JSON document: its fingerprint is the SHA-256 of the
// file, so bytes after it (a second document, a stray brace, garbage) would
// give one verified draw many fingerprints. Only white space may follow.
func TestVerifyRejectsTrailingData(t *testing.T) {
	fx := runFlow(t, accounts(7), "text:12345678", 1)
	for _, tail := range []string{"{}", "}", "]", "x", "\n{\"v\":1}\n", "null", "0"} {
		b := append(bytes.Clone(fx.cert), tail...)
		_, err := Verify(b, nil, Anchors{Reserves: -1})
		var ce *CheckError
		if err == nil || !errors.As(err, &ce) || ce.Check != CheckFormat || ce.Msg.ID != verdict.MsgPromoNotCertificate {
			t.Errorf("certificate + %q: %v", tail, err)
		}
	}
	for _, tail := range []string{"", "\n", " \t\r\n"} {
		if _, err := Verify(append(bytes.Clone(fx.cert), tail...), nil, Anchors{Reserves: -1}); err != nil {
			t.Errorf("certificate + %q: %v", tail, err)
		}
	}
}

// FuzzParseShare: a share is read from the log (the draw record) and typed
// by the bailiff. ParseShare normalises nothing: what it accepts it returns
// unchanged, a printable text of 8 to 256 bytes (strconv.IsPrint, U+0020 the
// only space) without surrounding spaces, or 25 to 256 dice rolls; ShareFromText and
// ShareFromDice give the same share back from its body; every refusal is a
// message of verdict's catalog.
func FuzzParseShare(f *testing.F) {
	for _, s := range []string{
		"text:12345678", "text:huissier Maître Dupont 21/06", "dice:1234561234561234561234561",
		"dice:" + strings.Repeat("6", 256), "text:" + strings.Repeat("é", 128),
		// Slightly broken.
		"text:1234567", "text: 12345678", "text:12345678\n", "text:1234\x005678", "text:1234\x7f5678",
		"text:\xff2345678", "TEXT:12345678", "text;12345678",
		"dice:123456123456123456123456", "dice:1234561234561234561234560", "dice:" + strings.Repeat("1", 257),
		"dice: 1234561234561234561234561", "", "text:", "dice:", "text:1234\u00a05678", "text:1234\u200b5678",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out, err := ParseShare(s)
		if err != nil {
			var me *verdict.MsgError
			if !errors.As(err, &me) || out != "" {
				t.Fatalf("ParseShare(%q) = %q, %v: not a catalog message", s, out, err)
			}
			return
		}
		if out != s {
			t.Fatalf("ParseShare(%q) changed it to %q", s, out)
		}
		body := s[5:]
		if len(body) > 256 || !utf8.ValidString(body) {
			t.Fatalf("accepted %q: %d bytes or not UTF-8", s, len(body))
		}
		var again string
		switch s[:5] {
		case "text:":
			for _, r := range body {
				if unicode.IsControl(r) || r != ' ' && !strconv.IsPrint(r) {
					t.Fatalf("accepted %q with a character that does not print, %U", s, r)
				}
			}
			again, err = ShareFromText(body)
		case "dice:":
			again, err = ShareFromDice(body)
		default:
			t.Fatalf("accepted %q without a known prefix", s)
		}
		if err != nil || again != s {
			t.Fatalf("%q: from its body %q, %v", s, again, err)
		}
	})
}

// FuzzShareFrom: what the bailiff types. Whatever ShareFromText or
// ShareFromDice return, ParseShare accepts unchanged; the text is the typed
// one trimmed, the rolls the typed digits in order.
func FuzzShareFrom(f *testing.F) {
	for _, s := range []string{"12345678", "  huissier Maître Dupont 21/06 \n", "3 5 1, 6-2\t4 1 1 2 3 4 5 6 6 5 4 3 2 1 1 2 3 4 5 6 6",
		"1234561234561234561234561\r\n", "1234", "7777777777777777777777777", "1234\u00855678", "\u00a012345678\u00a0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, typed string) {
		if s, err := ShareFromText(typed); err == nil {
			if s != "text:"+strings.TrimSpace(typed) {
				t.Fatalf("ShareFromText(%q) = %q", typed, s)
			}
			if p, err := ParseShare(s); err != nil || p != s {
				t.Fatalf("ShareFromText(%q) = %q, which ParseShare reads as %q, %v", typed, s, p, err)
			}
		}
		if s, err := ShareFromDice(typed); err == nil {
			digits := strings.Map(func(r rune) rune {
				if r >= '1' && r <= '6' {
					return r
				}
				return -1
			}, typed)
			if s != "dice:"+digits {
				t.Fatalf("ShareFromDice(%q) = %q", typed, s)
			}
			if p, err := ParseShare(s); err != nil || p != s {
				t.Fatalf("ShareFromDice(%q) = %q, which ParseShare reads as %q, %v", typed, s, p, err)
			}
		}
	})
}

// FuzzVerifyBeacon: the freeze's announced beacon and the draw's beacon
// value both come from the log (or the operator's --beacon). No announcement
// takes no value. A verified round is a canonical drand reference to a
// pinned chain, and its value is exactly the published one: nobody can make
// another value pass for the same round (which would let them choose α), so
// every accepted value is one of the real rounds of the seeds. Every refusal
// is a message of verdict's catalog.
func FuzzVerifyBeacon(f *testing.F) {
	b, err := os.ReadFile("../beacon/testdata/rounds.json")
	if err != nil {
		f.Fatal(err)
	}
	var vectors struct{ Rounds []drandRound }
	if err := json.Unmarshal(b, &vectors); err != nil || len(vectors.Rounds) == 0 {
		f.Fatalf("rounds.json: %v", err)
	}
	published := map[string][]byte{} // ref → value
	for _, rd := range vectors.Rounds {
		v := rd.value(f)
		published[rd.ref()] = v
		f.Add(rd.ref(), v)
		flipped := bytes.Clone(v)
		flipped[len(flipped)-1] ^= 1
		f.Add(rd.ref(), flipped)
		f.Add(rd.ref(), v[:len(v)-1])
		f.Add(rd.ref(), append(bytes.Clone(v), 0))
		f.Add(strings.ToUpper(rd.ref()), v)
		next := beacon.Ref{Chain: beacon.Pinned(rd.Chain).Hash(), Round: rd.Round + 1}
		f.Add(next.String(), v)
		f.Add(strings.Replace(rd.ref(), ":", ":0", 2), v)
	}
	f.Add("", []byte(nil))
	f.Add("", []byte{0})
	f.Add("drand:", []byte(nil))
	f.Add("drand:"+strings.Repeat("0", 64)+":1", []byte{1})
	f.Add("drand quicknet round 123", []byte("x"))
	f.Fuzz(func(t *testing.T, announced string, value []byte) {
		br, err := VerifyBeacon(announced, value)
		if err != nil {
			var me *verdict.MsgError
			if br != nil || !errors.As(err, &me) {
				t.Fatalf("VerifyBeacon(%q, %x) = %v, %v: not a catalog message", announced, value, br, err)
			}
			return
		}
		if announced == "" {
			if br != nil || len(value) != 0 {
				t.Fatalf("no beacon announced, value %x accepted as %+v", value, br)
			}
			return
		}
		if !br.Verified() || br.Announced != announced {
			t.Fatalf("VerifyBeacon(%q) = %+v", announced, br)
		}
		ref, err := beacon.ParseRef(announced)
		if err != nil || ref.String() != announced || ref.Round != br.Round || ref.Chain != br.Chain.Hash() {
			t.Fatalf("accepted %q, not a canonical reference of round %d: %v", announced, br.Round, err)
		}
		want, ok := published[announced]
		if !ok || !bytes.Equal(want, value) {
			t.Fatalf("%q: value %x verified, not the published %x", announced, value, want)
		}
	})
}

// FuzzFreezeRules: the promotion and rules members of a freeze come from
// the log. What FreezeRules accepts is an operation name and a lower-case
// hex hash that print back to the members: the rules member's hash, or the
// two parts of a legacy promotion member.
func FuzzFreezeRules(f *testing.F) {
	h := RulesHash([]byte("rules"))
	hx := hex.EncodeToString(h[:])
	for _, s := range []string{"bonus-crescendo", "bonus-crescendo rules-sha256:" + hx, "Bonus Crescendo", "-x",
		"bonus-crescendo rules-sha256:" + strings.ToUpper(hx), "bonus-crescendo rules-sha256:" + hx + "\n", "bonus-crescendo\n", ""} {
		f.Add(s, h[:])
		f.Add(s, []byte(nil))
	}
	f.Fuzz(func(t *testing.T, promotion string, rules []byte) {
		fr := &record.PromoFreeze{Promotion: promotion}
		copy(fr.Rules[:], rules)
		op, sum, err := FreezeRules(fr)
		if err != nil {
			if op != "" || sum != "" {
				t.Fatalf("refused with %q, %q: %v", op, sum, err)
			}
			return
		}
		if !operationRE.MatchString(op) || len(sum) != 64 || strings.ToLower(sum) != sum {
			t.Fatalf("FreezeRules(%q) = %q, %q", promotion, op, sum)
		}
		b, err := hex.DecodeString(sum)
		if err != nil {
			t.Fatalf("rules hash %q: %v", sum, err)
		}
		if fr.Rules != ([32]byte{}) {
			if op != promotion || !bytes.Equal(b, fr.Rules[:]) {
				t.Fatalf("FreezeRules(%q, %x) = %q, %q", promotion, fr.Rules, op, sum)
			}
		} else if op+" rules-sha256:"+sum != promotion {
			t.Fatalf("legacy promotion %q read as %q, %q", promotion, op, sum)
		}
	})
}
