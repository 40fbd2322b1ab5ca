package rngd

import (
	"bytes"
	"context"
	"encoding/hex"
	"os"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	adminv1 "tirage.fr/tirage/rngd/api/tirage/admin/v1"
	"tirage.fr/tirage/verifier/record"
)

// The operator's calls, like the game servers', survive a crash between the
// log's append and the store's commit: CreateEmission and ImportManifest
// seal their request identity in their records, so the store caught up
// from the log's tail, or rebuilt from the whole log, answers their retry
// with the reply first given — not EMISSION_EXISTS or TICKET_IMPORTED. The
// same request id with other content is still refused, and another request
// id for the same emission or manifest still finds it done.
func TestAdminRetryAfterCrash(t *testing.T) {
	td := newTestDaemon(t)
	ctx := context.Background()
	createReq := &adminv1.CreateEmissionRequest{RequestId: rid(), EmissionId: "AR", ClosureDate: "2026-12-31"}
	importID := rid()
	codes, tickets := DemoTickets("AR", []byte("test seed"), 5)
	create := func() (*adminv1.CreateEmissionResponse, error) { return td.admin().CreateEmission(ctx, createReq) }
	imp := func() (*adminv1.ImportManifestResponse, error) {
		return ImportTickets(ctx, td.admin(), importID, "AR", tickets)
	}

	// The crash: the store is put back as it was before both calls.
	state, before := td.snapshotState()
	td.start()
	created, err := create()
	if err != nil {
		t.Fatal(err)
	}
	imported, err := imp()
	if err != nil {
		t.Fatal(err)
	}
	for leaf, id := range map[string]string{string(created.Receipt.Record): createReq.RequestId, string(imported.Receipt.Record): importID} {
		if req := record.RequestID(adminServer, id); !strings.Contains(leaf, `"req":"`+hex.EncodeToString(req[:])+`"`) {
			t.Errorf("the record %s does not carry its call's req %x", leaf, req)
		}
	}
	td.stop()
	if err := os.WriteFile(state, before, 0o600); err != nil {
		t.Fatal(err)
	}
	retried := func(when string) {
		t.Helper()
		got, err := create()
		if err != nil || !proto.Equal(got, created) {
			t.Fatalf("%s: CreateEmission retried: %v, %v\nwant the first reply\n%v", when, got, err, created)
		}
		gotImport, err := imp()
		if err != nil || !proto.Equal(gotImport, imported) {
			t.Fatalf("%s: ImportManifest retried: %v, %v\nwant the first reply\n%v", when, gotImport, err, imported)
		}
		// The same request id with other content is refused.
		other := proto.Clone(createReq).(*adminv1.CreateEmissionRequest)
		other.ClosureDate = "2026-12-30"
		_, err = td.admin().CreateEmission(ctx, other)
		wantRefusal(t, err, reasonRequestIDReused, "already used")
		_, err = ImportTickets(ctx, td.admin(), importID, "AR", tickets[:4])
		wantRefusal(t, err, reasonRequestIDReused, "already used")
		// Another request id finds the emission registered, the manifest
		// imported.
		_, err = td.admin().CreateEmission(ctx, &adminv1.CreateEmissionRequest{RequestId: rid(), EmissionId: "AR", ClosureDate: "2026-12-31"})
		wantRefusal(t, err, reasonEmissionExists, "already registered")
		_, err = ImportTickets(ctx, td.admin(), rid(), "AR", tickets)
		wantRefusal(t, err, reasonTicketImported, "already imported")
	}
	mark := len(td.logs())
	td.start()
	if logs := td.logs()[mark:]; !bytes.Contains(logs, []byte("applying the log's tail")) {
		t.Fatalf("the start did not apply the log's tail:\n%s", logs)
	}
	retried("after the crash")
	start(t, td.client("server-a"), codes[1]) // the manifest's tickets play

	// The store lost altogether: rebuilt from the whole log.
	td.stop()
	if err := os.Remove(state); err != nil {
		t.Fatal(err)
	}
	td.start()
	retried("after losing the store")
}
