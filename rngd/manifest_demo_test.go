package rngd

import (
	"context"
	"slices"
	"strings"
	"testing"

	adminv1 "tirage.fr/tirage/rngd/api/tirage/admin/v1"
)

// Outside dev mode rngd refuses a manifest holding a demo ticket (its code
// is public: DemoManifest), whole or spliced into a real one, and imports
// nothing of it; a real manifest still imports. A demo manifest is
// recognised by its tickets, not their lines: with lines removed,
// reordered or split among imports, a demo ticket spliced in at another
// line, it is refused still, naming its first demo ticket and which one it
// is; an import looks among engine.demoScan demo tickets at least, so a
// split-off tail beyond its own count is found. (In dev mode it takes one:
// TestDemoManifestDevMode, manifest_demo_dev_test.go.)
func TestDemoManifestRefused(t *testing.T) {
	td := newTestDaemon(t)
	ctx := context.Background()
	adm := td.admin()
	if _, err := adm.CreateEmission(ctx, &adminv1.CreateEmissionRequest{RequestId: "em", EmissionId: "E1", ClosureDate: "2026-12-31"}); err != nil {
		t.Fatal(err)
	}
	_, demo := DemoManifest("E1", 5)
	_, err := ImportTickets(ctx, adm, "demo", "E1", demo)
	wantRefusal(t, err, reasonManifestInvalid, "tickets[1]: a demo ticket, whose code anyone can recompute")
	_, real := DemoTickets("E1", []byte("test seed"), 5)
	spliced := append([]Ticket(nil), real...)
	spliced[3] = demo[3]
	_, err = ImportTickets(ctx, adm, "spliced", "E1", spliced)
	wantRefusal(t, err, reasonManifestInvalid, "tickets[4]: a demo ticket")
	_, demo = DemoManifest("E1", 200)
	reversed := slices.Clone(demo[:20])
	slices.Reverse(reversed)
	for name, c := range map[string]struct {
		tickets []Ticket
		want    string
	}{
		"reversed":          {reversed, "tickets[1]: a demo ticket, whose code anyone can recompute (ticket 19 of emission E1's demo manifest"},
		"every-other-line":  {[]Ticket{demo[1], demo[3], demo[5]}, "tickets[1]: a demo ticket, whose code anyone can recompute (ticket 1 of"},
		"split-off-tail":    {demo[150:160], "tickets[1]: a demo ticket, whose code anyone can recompute (ticket 150 of"},
		"spliced-elsewhere": {append(slices.Clone(real), demo[0]), "tickets[6]: a demo ticket, whose code anyone can recompute (ticket 0 of"},
	} {
		_, err := ImportTickets(ctx, adm, name, "E1", c.tickets)
		if reasonOf(err) != reasonManifestInvalid || err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want MANIFEST_INVALID %q", name, err, c.want)
		}
	}
	r, err := adm.ListEmissions(ctx, &adminv1.ListEmissionsRequest{})
	if err != nil || len(r.Emissions) != 1 || r.Emissions[0].Tickets != 0 {
		t.Fatalf("after the refusals: %v %v, want no ticket imported", r, err)
	}
	if _, err := ImportTickets(ctx, adm, "real", "E1", real); err != nil {
		t.Fatalf("a real manifest: %v", err)
	}
}

// A demo ticket is found among n by its hash, whatever its line; any
// other hash is not.
func TestDemoIndex(t *testing.T) {
	_, demo := DemoManifest("E1", 300)
	x := newDemoIndex("E1", 300)
	for i, tk := range demo {
		if got := x.find(tk.TicketHash); got != i {
			t.Fatalf("demo ticket %d found as %d", i, got)
		}
	}
	if got := newDemoIndex("E1", 100).find(demo[200].TicketHash); got != -1 {
		t.Errorf("demo ticket 200 found among 100: %d", got)
	}
	_, other := DemoTickets("E1", []byte("another seed"), 50)
	for _, tk := range other {
		if got := x.find(tk.TicketHash); got != -1 {
			t.Errorf("a ticket of another seed found as demo ticket %d", got)
		}
	}
	if got := newDemoIndex("E2", 300).find(demo[0].TicketHash); got != -1 {
		t.Errorf("E1's demo ticket 0 found among E2's: %d", got)
	}
}
