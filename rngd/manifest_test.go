package rngd

import (
	"bytes"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/transparency-dev/merkle/rfc6962"

	"tirage.fr/tirage/verifier/record"
)

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

// A demo manifest's codes come from the public demo seed: anyone recomputes
// them (here with HMAC-SHA256 outside Go: python3's hmac), and rngd's
// check recognizes its tickets, at their index only. The seed must never
// change: rngd would then take the demo manifests made before.
func TestDemoManifestPublic(t *testing.T) {
	codes, tickets := DemoManifest("E1", 2)
	if want := []string{"5MWDR2CK5WR63RNGA0", "D39E2F1VN5Z0BFTQ8P"}; codes[0] != want[0] || codes[1] != want[1] {
		t.Fatalf("DemoManifest codes %v, want %v (HMAC-SHA256(\"tirage demo\", \"E1\" || uint64be(i)))", codes, want)
	}
	demo := newDemoTickets("E1", []byte(demoSeed))
	if !demo.is(0, tickets[0].TicketHash) || !demo.is(1, tickets[1].TicketHash) {
		t.Fatal("the demo tickets are not recognized")
	}
	if demo.is(1, tickets[0].TicketHash) || newDemoTickets("E2", []byte(demoSeed)).is(0, tickets[0].TicketHash) {
		t.Fatal("a demo ticket recognized at another index or in another emission")
	}
	_, other := DemoTickets("E1", []byte("another seed"), 1)
	if demo.is(0, other[0].TicketHash) {
		t.Fatal("a ticket of another seed recognized as a demo ticket")
	}
}
