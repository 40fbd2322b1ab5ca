package manifest

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"tirage.fr/tirage/verifier/qod"
)

// sample is n tickets of emission em, ticket i of hash SHA-256(em || i)
// and gain qod.Stakes[i mod 7].
func sample(em string, n int) []Ticket {
	var out []Ticket
	for i := range n {
		out = append(out, Ticket{Emission: em, TicketHash: sha256.Sum256([]byte(em + strconv.Itoa(i))), StakeCents: qod.Stakes[i%len(qod.Stakes)]})
	}
	return out
}

// FuzzParseTicket: a manifest line is untrusted input. Whatever ParseTicket
// accepts is canonical (it prints back to the same bytes) and valid.
func FuzzParseTicket(f *testing.F) {
	for _, t := range sample("E1", 8) {
		f.Add(t.Line())
	}
	for _, s := range []string{"", ",,", "E1,00,500", "E1," + strings.Repeat("0", 64) + ",0500", "E 1," + strings.Repeat("a", 64) + ",500",
		"E1," + strings.Repeat("A", 64) + ",500", "E1," + strings.Repeat("a", 64) + ",-500", "E1," + strings.Repeat("a", 64) + ",500,x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		tk, err := ParseTicket(line)
		if err != nil {
			return
		}
		if tk.Line() != line {
			t.Fatalf("accepted %q, prints %q", line, tk.Line())
		}
		if CheckStake(tk.StakeCents) != nil || CheckEmissionID(tk.Emission) != nil {
			t.Fatalf("accepted an invalid ticket %+v", tk)
		}
	})
}

// lineOf finds the line a Read error names.
var lineOf = regexp.MustCompile(`^manifest line (\d+): `)

// FuzzRead: a ticket manifest comes from the game server's operator
// (rngctl emission import), is re-read to rebuild the daemon's state, and
// is given to rngverify audit --manifest. Whatever Read accepts, it hands
// over one canonical ticket per ticket line, in order, each printing as its
// line (lines found apart from Read); a refusal names its line; an error of fn comes
// back as is.
func FuzzRead(f *testing.F) {
	tickets := sample("E1", 8)
	var good strings.Builder
	good.WriteString("# emission E1\n")
	for _, t := range tickets {
		good.WriteString(t.Line() + "\n")
	}
	f.Add([]byte(good.String()))
	f.Add([]byte(strings.ReplaceAll(good.String(), "\n", "\r\n")))
	f.Add([]byte(strings.TrimSuffix(good.String(), "\n")))
	f.Add([]byte(""))
	f.Add([]byte("\n\n#\n"))
	// Slightly broken.
	line := tickets[0].Line()
	for _, s := range []string{
		good.String() + "E1," + strings.Repeat("0", 64) + ",123\n",
		good.String() + " " + line + "\n",
		good.String() + line + " \n",
		good.String() + strings.ToUpper(line) + "\n",
		good.String() + line + ",\n",
		good.String() + "#" + strings.Repeat("x", 5000) + "\n" + line + "\n",
		strings.Repeat("x", 5000),
		line + "\n\x00\n",
		line + "\r\r\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var got []Ticket
		err := Read(bytes.NewReader(b), func(tk Ticket) error { got = append(got, tk); return nil })
		lines := bytes.Count(b, []byte("\n")) + 1
		if err != nil {
			m := lineOf.FindStringSubmatch(err.Error())
			if m == nil {
				t.Fatalf("error names no line: %v", err)
			}
			if n, _ := strconv.Atoi(m[1]); n < 1 || n > lines {
				t.Fatalf("error names line %d of %d: %v", n, lines, err)
			}
			return
		}
		// The input's ticket lines, read apart from Read: lines split at
		// "\n", one "\r" before it dropped, blank and "#" lines skipped.
		var want []string
		for _, l := range bytes.Split(b, []byte("\n")) {
			l = bytes.TrimSuffix(l, []byte("\r"))
			if len(l) > 0 && l[0] != '#' {
				want = append(want, string(l))
			}
		}
		if len(got) != len(want) {
			t.Fatalf("%d tickets from %d ticket lines", len(got), len(want))
		}
		for i, tk := range got {
			if p, err := ParseTicket(tk.Line()); err != nil || p != tk {
				t.Fatalf("handed over a ticket that is not canonical: %+v: %v", tk, err)
			}
			if tk.Line() != want[i] {
				t.Fatalf("ticket %d prints %q, its line is %q", i, tk.Line(), want[i])
			}
		}
		// fn's error stops the reading at once and comes back as is.
		if len(got) > 0 {
			stop := errors.New("stop")
			calls := 0
			err := Read(bytes.NewReader(b), func(Ticket) error { calls++; return stop })
			if err != stop || calls != 1 {
				t.Fatalf("fn's error: %v after %d calls", err, calls)
			}
		}
	})
}
