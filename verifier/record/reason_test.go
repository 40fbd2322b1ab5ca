package record_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"tirage.fr/tirage/verifier/record"
)

// A refund's reason is sealed in the game's end, as UTF-8 (accents
// included) written in hex; only a refunded game's end holds one, and it is
// one line of text, bounded. An end without a reason (older records, and
// every other result) still reads.
func TestGameEndRefundReason(t *testing.T) {
	end := func(result string, reason string) *record.GameEnd {
		r := &record.GameEnd{Time: t0.Add(9 * time.Minute), Game: "g-000042", Result: result, Tier: 1,
			Secret: h32("r"), Prev: h32("previous leaf"), Reason: []byte(reason)}
		if result == record.ResultRefunded {
			r.Refund = 300
		}
		return r
	}
	const why = "serveur de jeu indisponible : 30 jours non honorés"
	leaf, err := record.Format(end(record.ResultRefunded, why))
	if err != nil {
		t.Fatal(err)
	}
	r, err := record.Parse(leaf)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(r.(*record.GameEnd).Reason); got != why {
		t.Errorf("reason read back %q, want %q", got, why)
	}
	if leaf, err := record.Format(end(record.ResultRefunded, "")); err != nil || bytes.Contains(leaf, []byte(`"reason"`)) {
		t.Errorf("a refund without a reason: %s, %v; want it formatted without the member", leaf, err)
	}
	for _, c := range []struct {
		name, result, reason, says string
	}{
		{"reason of a loss", record.ResultLost, "x", "only a refunded game's end"},
		{"reason of an expiry", record.ResultExpired, "x", "only a refunded game's end"},
		{"spaces only", record.ResultRefunded, "   ", "reason: empty"},
		{"new line", record.ResultRefunded, "one\ntwo", "one line"},
		{"C1 control", record.ResultRefunded, "a\u0085b", "one line"},
		{"bidi override", record.ResultRefunded, "a\u202eb", "one line"},
		{"line separator", record.ResultRefunded, "panne\u2028won 1000 €", "one line"},
		{"paragraph separator", record.ResultRefunded, "panne\u2029won 1000 €", "one line"},
		{"not UTF-8", record.ResultRefunded, "caf\xe9", "UTF-8"},
		{"too long", record.ResultRefunded, strings.Repeat("é", 251), "502 bytes, at most 500"},
	} {
		r := end(c.result, c.reason)
		if _, err := record.Format(r); err == nil || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: Format error %v, want one saying %q", c.name, err, c.says)
		}
		// The same end as a leaf written by another hand is refused on reading.
		r.Reason = nil
		leaf, err := record.Format(r)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		next := []byte(`"result":`) // the member after "reason" in sorted order
		if bytes.Contains(leaf, []byte(`"refund":`)) {
			next = []byte(`"refund":`)
		}
		bad := bytes.Replace(leaf, next, append([]byte(`"reason":"`+hexOf(c.reason)+`",`), next...), 1)
		if _, err := record.Parse(bad); !errors.Is(err, record.ErrMalformed) || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: Parse error %v, want %v saying %q", c.name, err, record.ErrMalformed, c.says)
		}
	}
	if err := record.CheckRefundReason(strings.Repeat("é", 250)); err != nil {
		t.Errorf("500 bytes: %v", err)
	}
}

func hexOf(s string) string {
	const digits = "0123456789abcdef"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		b.WriteByte(digits[s[i]>>4])
		b.WriteByte(digits[s[i]&15])
	}
	return b.String()
}
