package rngd

import (
	"bytes"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/transparency-dev/merkle/rfc6962"

	"tirage.fr/tirage/verifier/record"
)

// FuzzParseTicket: a manifest line is untrusted input. Whatever ParseTicket
// accepts is canonical (it prints back to the same bytes) and valid.
func FuzzParseTicket(f *testing.F) {
	_, tickets := DemoTickets("E1", []byte("seed"), 8)
	for _, t := range tickets {
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

func TestManifest(t *testing.T) {
	codes, tickets := DemoTickets("E1", []byte("seed"), 3)
	// Ticket hashes are verifier/record's.
	for i, c := range codes {
		h, err := record.TicketHash(strings.ToLower(c))
		if err != nil || h != tickets[i].TicketHash {
			t.Fatalf("ticket %d: %v", i, err)
		}
	}
	if tickets[0].StakeCents != 5_000_000 || tickets[1].StakeCents != 100_000 {
		t.Fatalf("demo stakes %d %d", tickets[0].StakeCents, tickets[1].StakeCents)
	}
	// The root is RFC 6962 over the lines: MTH(l0,l1,l2) = H(H(l0,l1), l2).
	leaf := func(i int) []byte { return rfc6962.DefaultHasher.HashLeaf([]byte(tickets[i].Line())) }
	want := rfc6962.DefaultHasher.HashChildren(rfc6962.DefaultHasher.HashChildren(leaf(0), leaf(1)), leaf(2))
	m := NewManifestRoot()
	var file strings.Builder
	file.WriteString("# comment\n")
	for _, tk := range tickets {
		m.Add(tk)
		file.WriteString(tk.Line() + "\n")
	}
	if !bytes.Equal(m.Root(), want) || m.Count() != 3 {
		t.Fatalf("root %x, want %x", m.Root(), want)
	}
	var back []Ticket
	if err := ReadManifest(strings.NewReader(file.String()), func(t Ticket) error { back = append(back, t); return nil }); err != nil || len(back) != 3 {
		t.Fatalf("read back: %v", err)
	}
	bad := "E1," + hex.EncodeToString(make([]byte, 32)) + ",123\n"
	if err := ReadManifest(strings.NewReader(file.String()+bad), func(Ticket) error { return nil }); err == nil || !strings.Contains(err.Error(), "manifest line 5: stake_cents 123") {
		t.Fatalf("bad stake: %v", err)
	}
}
