package audit_test

import (
	"context"
	"testing"

	"tirage.fr/tirage/verifier/audit"
	"tirage.fr/tirage/verifier/checkpoint"
	"tirage.fr/tirage/verifier/receipt/receipttest"
	"tirage.fr/tirage/verifier/verdict"
)

// FuzzAudit: whatever records a log holds (two leaves appended, properly
// logged, to an honest log with a game and a promotion draw), the audit
// reads them all without panicking, every entry matches the signed tree,
// and a verdict comes out. The seeds are the log's own records, so the
// fuzzer mutates real ones (a game's start, pick and end, a draw).
func FuzzAudit(f *testing.F) {
	base, err := receipttest.New(90)
	if err != nil {
		f.Fatal(err)
	}
	g, err := base.PlayGame(receipttest.Play{Game: "g-f", StopAt: 1})
	if err != nil {
		f.Fatal(err)
	}
	p, err := base.PromoDrawWith("f", 10, receipttest.PromoCheat{})
	if err != nil {
		f.Fatal(err)
	}
	for _, i := range g.Indices {
		f.Add(base.Leaf(i), base.Leaf(g.Indices[len(g.Indices)-1]))
	}
	f.Add(base.Leaf(p.Freeze), base.Leaf(p.Draw))
	_, quit := base.Quit(g.Ticket, 0) // a quit of the game's ticket, and the start: the ticket rules
	f.Add(base.Leaf(quit), base.Leaf(g.Indices[0]))
	f.Add(base.Leaf(quit), base.Leaf(quit))
	f.Add(base.Leaf(0), base.Leaf(1))
	keys, err := checkpoint.ParseKeys(string(base.LogKeyFile()))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, l1, l2 []byte) {
		if len(l1) > 1<<16-1 || len(l2) > 1<<16-1 {
			return // a bundle entry's length is a u16
		}
		a, err := receipttest.New(90)
		if err != nil {
			t.Fatal(err)
		}
		a.Append(l1)
		a.Append(l2)
		res, err := audit.Run(context.Background(), audit.Config{Fetch: files(a.Tiles()), LogKeys: keys, Workers: 1, Location: a.Location})
		if err != nil {
			t.Fatalf("audit: %v", err)
		}
		if res.Records != a.Size() {
			t.Fatalf("read %d entries of %d", res.Records, a.Size())
		}
		if c := res.Verdict.Find(verdict.CheckEntries); c == nil || c.Status != verdict.StatusPass {
			t.Fatalf("entries of an honest log:\n%s", res.Verdict.Text("en"))
		}
	})
}
