package rngd

import (
	"bytes"
	"errors"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// manifestLine finds the line a ReadManifest error names.
var manifestLine = regexp.MustCompile(`^manifest line (\d+): `)

// FuzzReadManifest: a ticket manifest comes from the game server's operator
// (rngctl emission import) and is re-read to rebuild the daemon's state.
// Whatever ReadManifest accepts, it hands over one canonical ticket per
// ticket line, in order, and the tickets' lines read back the same; a
// refusal names its line; an error of fn comes back as is.
func FuzzReadManifest(f *testing.F) {
	_, tickets := DemoTickets("E1", []byte("seed"), 8)
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
		err := ReadManifest(bytes.NewReader(b), func(tk Ticket) error { got = append(got, tk); return nil })
		lines := bytes.Count(b, []byte("\n")) + 1
		if err != nil {
			m := manifestLine.FindStringSubmatch(err.Error())
			if m == nil {
				t.Fatalf("error names no line: %v", err)
			}
			if n, _ := strconv.Atoi(m[1]); n < 1 || n > lines {
				t.Fatalf("error names line %d of %d: %v", n, lines, err)
			}
			return
		}
		var canon strings.Builder
		for _, tk := range got {
			if p, err := ParseTicket(tk.Line()); err != nil || p != tk {
				t.Fatalf("handed over a ticket that is not canonical: %+v: %v", tk, err)
			}
			canon.WriteString(tk.Line() + "\n")
		}
		if len(got) > lines {
			t.Fatalf("%d tickets from %d lines", len(got), lines)
		}
		var back []Ticket
		if err := ReadManifest(strings.NewReader(canon.String()), func(tk Ticket) error { back = append(back, tk); return nil }); err != nil {
			t.Fatalf("the tickets' lines do not read back: %v", err)
		}
		if len(back) != len(got) {
			t.Fatalf("%d tickets read back as %d", len(got), len(back))
		}
		for i := range got {
			if back[i] != got[i] {
				t.Fatalf("ticket %d: %+v reads back as %+v", i, got[i], back[i])
			}
		}
		// fn's error stops the reading at once and comes back as is.
		if len(got) > 0 {
			stop := errors.New("stop")
			calls := 0
			err := ReadManifest(bytes.NewReader(b), func(Ticket) error { calls++; return stop })
			if err != stop || calls != 1 {
				t.Fatalf("fn's error: %v after %d calls", err, calls)
			}
		}
	})
}
