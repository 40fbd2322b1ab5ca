package promo

import (
	"bytes"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"tirage.fr/tirage/verifier/promo"
	"tirage.fr/tirage/verifier/promo/stakes"
)

// formatClosed writes closed accounts in ReadClosed's canonical form:
// header account,closed_at, accounts sorted, RFC 3339 instants (empty for an
// unknown date).
func formatClosed(c promo.Closed) []byte {
	var b bytes.Buffer
	b.WriteString("account,closed_at\n")
	for _, a := range slices.Sorted(func(yield func(string) bool) {
		for a := range c {
			if !yield(a) {
				return
			}
		}
	}) {
		b.WriteString(a + ",")
		if at := c[a]; !at.IsZero() {
			b.WriteString(at.Format(time.RFC3339Nano))
		}
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// errLine finds the line an error names ("line 3", "on line 3").
var errLine = regexp.MustCompile(`\bline (\d+)\b`)

// FuzzReadClosed: the closed-accounts file comes from the operator's back
// office. Whatever ReadClosed accepts holds valid accounts only and reads
// back the same from its canonical form (same accounts, same instants); a
// refusal names a line of the input.
func FuzzReadClosed(f *testing.F) {
	for _, s := range []string{
		"account,closed_at\nA1,2016-06-17T10:00:00+02:00\nA2,\nA1,2016-06-15T10:00:00+02:00\n",
		"\ufeffaccount\r\nA1\r\nb.2:c_d-e\r\n",
		"account,closed_at\n\"A1\",\"2016-06-17T08:00:00.5Z\"\n\nA3,0001-01-01T00:00:00Z\n",
		"account\n",
		// Slightly broken.
		"", "acct\nA1\n", "account,closed_at\nA 1,\n", "account,closed_at\nA1,yesterday\n", "account\nA1,x\n",
		"account,closed_at\nA1,2016-06-17T10:00:00\n", "account,closed_at,x\n", "account,closed_at\n\"A1\nA2\",\n",
		"account,closed_at\nA1,\"2016-06-17T10:00:00Z\n", "account,closed_at\nA1,2016-06-17 10:00:00+02:00\n",
		"account\n" + strings.Repeat("x", 65) + "\n", "account,closed_at\nA1,2016-06-17T10:00:00+02:00,\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := stakes.ReadClosed(bytes.NewReader(b))
		if err != nil {
			m := errLine.FindStringSubmatch(err.Error())
			if c != nil || !strings.HasPrefix(err.Error(), "closed accounts: ") || m == nil {
				t.Fatalf("error names no line: %v", err)
			}
			if n, _ := strconv.Atoi(m[1]); n < 1 || n > bytes.Count(b, []byte("\n"))+1 {
				t.Fatalf("error names line %d of %d: %v", n, bytes.Count(b, []byte("\n"))+1, err)
			}
			return
		}
		for a := range c {
			if promo.CheckAccount(a) != nil {
				t.Fatalf("accepted account %q", a)
			}
		}
		canon := formatClosed(c)
		back, err := stakes.ReadClosed(bytes.NewReader(canon))
		if err != nil {
			t.Fatalf("canonical form %q: %v", canon, err)
		}
		if len(back) != len(c) {
			t.Fatalf("%d accounts read back as %d", len(c), len(back))
		}
		for a, at := range c {
			if got, ok := back[a]; !ok || !got.Equal(at) {
				t.Fatalf("account %s closed at %v reads back as %v", a, at, got)
			}
		}
	})
}
