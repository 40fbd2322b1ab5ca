package rngd

import (
	"context"
	"strings"
	"testing"
	"time"

	adminv1 "tirage.fr/tirage/rngd/api/tirage/admin/v1"
)

// ImportTickets given a ticket of another emission returns an error and
// ends its stream: it left the stream open, holding one of the admin
// connection's adminMaxConcurrentStreams and rngd's handler waiting for
// the rest of the upload until the connection closed, so that a caller
// making that mistake as often on one connection could import nothing
// more on it.
func TestImportTicketsEndsItsStream(t *testing.T) {
	td := newTestDaemon(t)
	adm := td.admin()
	ctx := context.Background()
	if _, err := adm.CreateEmission(ctx, &adminv1.CreateEmissionRequest{RequestId: rid(), EmissionId: "E1", ClosureDate: "2026-12-31"}); err != nil {
		t.Fatal(err)
	}
	_, other := DemoTickets("E2", []byte("test seed"), 1)
	for range adminMaxConcurrentStreams {
		if _, err := ImportTickets(ctx, adm, rid(), "E1", other); err == nil || !strings.Contains(err.Error(), "belongs to emission") {
			t.Fatalf("a ticket of another emission: %v", err)
		}
	}
	_, tickets := DemoTickets("E1", []byte("test seed"), 1)
	// Not a measure of time: without a bound the call would wait for ever.
	bounded, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if _, err := ImportTickets(bounded, adm, rid(), "E1", tickets); err != nil {
		t.Fatalf("an import after %d refused by the client: %v", adminMaxConcurrentStreams, err)
	}
}
