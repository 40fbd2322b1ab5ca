package rngd

import (
	"context"
	"testing"

	adminv1 "tirage.fr/tirage/rngd/api/tirage/admin/v1"
)

// Outside dev mode rngd refuses a manifest holding a demo ticket (its code
// is public: DemoManifest), whole or spliced into a real one, and imports
// nothing of it; a real manifest still imports. (In dev mode it takes one:
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
	r, err := adm.ListEmissions(ctx, &adminv1.ListEmissionsRequest{})
	if err != nil || len(r.Emissions) != 1 || r.Emissions[0].Tickets != 0 {
		t.Fatalf("after the refusals: %v %v, want no ticket imported", r, err)
	}
	if _, err := ImportTickets(ctx, adm, "real", "E1", real); err != nil {
		t.Fatalf("a real manifest: %v", err)
	}
}
