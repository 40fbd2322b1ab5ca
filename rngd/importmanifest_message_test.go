package rngd

import (
	"context"
	"testing"

	adminv1 "tirage.fr/tirage/rngd/api/tirage/admin/v1"
)

// An ImportManifest message after the header that holds neither tickets
// nor a header (its part unset) is refused as such, naming the message:
// it was refused as a second header.
func TestImportManifestEmptyMessage(t *testing.T) {
	td := newTestDaemon(t)
	ctx := context.Background()
	adm := td.admin()
	if _, err := adm.CreateEmission(ctx, &adminv1.CreateEmissionRequest{RequestId: rid(), EmissionId: "EM", ClosureDate: "2026-12-31"}); err != nil {
		t.Fatal(err)
	}
	_, tickets := DemoTickets("EM", []byte("test seed"), 1)
	header := &adminv1.ImportManifestRequest{Part: &adminv1.ImportManifestRequest_Header{Header: &adminv1.ManifestHeader{RequestId: rid(), EmissionId: "EM", Count: 1}}}
	batch := &adminv1.ImportManifestRequest{Part: &adminv1.ImportManifestRequest_Tickets{Tickets: &adminv1.TicketBatch{
		Tickets: []*adminv1.Ticket{{TicketHash: tickets[0].TicketHash[:], StakeCents: tickets[0].StakeCents}}}}}
	for _, c := range []struct {
		second *adminv1.ImportManifestRequest
		want   string
	}{
		{&adminv1.ImportManifestRequest{}, "tickets: message 3 holds neither tickets nor a header"},
		{header, "header: only the first message may be a header"},
	} {
		st, err := adm.ImportManifest(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range []*adminv1.ImportManifestRequest{header, batch, c.second} {
			if err := st.Send(m); err != nil {
				t.Fatal(err)
			}
		}
		_, err = st.CloseAndRecv()
		wantRefusal(t, err, reasonManifestInvalid, c.want)
	}
}
