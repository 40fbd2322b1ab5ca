package rngd

import (
	"context"
	"testing"

	adminv1 "tirage.fr/tirage/rngd/api/tirage/admin/v1"
)

// An upload is held whole while it is checked, so its size is bounded
// before any ticket is read (admin.max_manifest_tickets), and a ticket
// beyond the header's count is refused when it arrives, not once the
// stream ends; neither changes the emission.
func TestImportManifestCountBounds(t *testing.T) {
	td := newTestDaemon(t, func(c *Config) { c.Admin.MaxManifestTickets = 2 })
	ctx := context.Background()
	adm := td.admin()
	if _, err := adm.CreateEmission(ctx, &adminv1.CreateEmissionRequest{RequestId: rid(), EmissionId: "EM", ClosureDate: "2026-12-31"}); err != nil {
		t.Fatal(err)
	}
	_, tickets := DemoTickets("EM", []byte("test seed"), 3)
	batch := &adminv1.TicketBatch{}
	for _, tk := range tickets {
		batch.Tickets = append(batch.Tickets, &adminv1.Ticket{TicketHash: tk.TicketHash[:], StakeCents: tk.StakeCents})
	}
	for _, c := range []struct {
		count uint64
		want  string
	}{
		{3, "count: 3 tickets, more than one import may hold (admin.max_manifest_tickets = 2)"},
		{2, "count: header says 2 tickets, more received"},
	} {
		st, err := adm.ImportManifest(ctx)
		if err != nil {
			t.Fatal(err)
		}
		msgs := []*adminv1.ImportManifestRequest{
			{Part: &adminv1.ImportManifestRequest_Header{Header: &adminv1.ManifestHeader{RequestId: rid(), EmissionId: "EM", Count: c.count}}},
			{Part: &adminv1.ImportManifestRequest_Tickets{Tickets: batch}},
		}
		for _, m := range msgs {
			if err := st.Send(m); err != nil {
				break // refused before reading it: the status comes with CloseAndRecv
			}
		}
		_, err = st.CloseAndRecv()
		wantRefusal(t, err, reasonManifestInvalid, c.want)
	}
	em, err := adm.ListEmissions(ctx, &adminv1.ListEmissionsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(em.Emissions) != 1 || em.Emissions[0].Tickets != 0 || len(em.Emissions[0].ManifestRoots) != 0 {
		t.Errorf("after the refusals: %v, want emission EM with no tickets", em.Emissions)
	}
}
