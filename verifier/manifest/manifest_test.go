package manifest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"
	"testing"

	"golang.org/x/mod/sumdb/tlog"
)

// TestTree: the root is RFC 6962's over the tickets' lines, as x/mod's tlog
// computes it from the lines alone (no code shared with Tree), for every
// size up to 20 (every shape of the compact range's peaks).
func TestTree(t *testing.T) {
	tickets := sample("E-7", 20)
	m := NewTree()
	if want := sha256.Sum256(nil); !bytes.Equal(m.Root(), want[:]) || m.Count() != 0 {
		t.Fatalf("empty root %x", m.Root())
	}
	var leaves []tlog.Hash
	for i, tk := range tickets {
		m.Add(tk)
		leaves = append(leaves, tlog.RecordHash([]byte(tk.Line())))
		want, err := tlog.TreeHash(int64(i+1), storedLeaves(leaves))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(m.Root(), want[:]) || m.Count() != uint64(i+1) {
			t.Fatalf("%d tickets: root %x count %d, want %x", i+1, m.Root(), m.Count(), want)
		}
	}
}

// storedLeaves reads the hashes of a tree of leaves, computing inner nodes
// on demand (tlog.HashReader).
type storedLeaves []tlog.Hash

func (s storedLeaves) ReadHashes(idx []int64) ([]tlog.Hash, error) {
	out := make([]tlog.Hash, len(idx))
	for i, x := range idx {
		level, n := tlog.SplitStoredHashIndex(x)
		out[i] = s.node(level, n)
	}
	return out, nil
}

func (s storedLeaves) node(level int, n int64) tlog.Hash {
	if level == 0 {
		return s[n]
	}
	return tlog.NodeHash(s.node(level-1, 2*n), s.node(level-1, 2*n+1))
}

// TestRead: comments and CRLF are not tickets; a refusal names its line.
func TestRead(t *testing.T) {
	tickets := sample("E1", 3)
	file := "# comment\r\n\r\n" + tickets[0].Line() + "\r\n" + tickets[1].Line() + "\n" + tickets[2].Line()
	var back []Ticket
	if err := Read(strings.NewReader(file), func(t Ticket) error { back = append(back, t); return nil }); err != nil || !slices.Equal(back, tickets) {
		t.Fatalf("read back %v: %v", back, err)
	}
	for bad, want := range map[string]string{
		"E1," + hex.EncodeToString(make([]byte, 32)) + ",123\n": "manifest line 6: stake_cents 123 is not a gain",
		"E1," + strings.Repeat("A", 64) + ",1000\n":             "manifest line 6: ticket_hash must be 64 lower-case hex digits",
		strings.Repeat("é", 70) + ",x,1\n":                      "manifest line 6: emission_id \"" + strings.Repeat("é", 64) + "\"… (140 bytes) must be",
		strings.Repeat("x", MaxLine+1):                          "manifest line 6: longer than 4096 bytes",
	} {
		err := Read(strings.NewReader(file+"\n"+bad), func(Ticket) error { return nil })
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%.20q: %v, want %q", bad, err, want)
		}
	}
}
