package rngd

import (
	"context"
	"testing"

	"tirage.fr/tirage/attestations"
	adminv1 "tirage.fr/tirage/rngd/api/tirage/admin/v1"
)

// Once the state store has failed, the operator's calls that seal a record
// are refused STORE_UNAVAILABLE before anything is sealed, as draws and
// refunds are (TestRetryAndRefundAfterStoreFailure). LogAttestation read
// the log's key announcements through the failed store as none, and
// refused an attestation of an announced key as ATTESTATION_KEY_UNKNOWN
// (FAILED_PRECONDITION: "not an attestation key the log announced"), which
// sends the operator to announce a key the log has.
func TestAdminCallsAfterStoreFailure(t *testing.T) {
	td, att, _ := attestingDaemon(t)
	ctx := context.Background()
	adm := td.admin()
	st, err := attestations.NewPaytableStatement()
	if err != nil {
		t.Fatal(err)
	}
	env := signStatement(t, att, "attestation", st)
	e := td.d.engine
	if _, err := e.tlog.AwaitCheckpoint(ctx, td.sequenced()); err != nil { // the announcements under a checkpoint
		t.Fatal(err)
	}
	failStore(t, e)
	n := td.sequenced()
	_, err = adm.CreateEmission(ctx, &adminv1.CreateEmissionRequest{RequestId: rid(), EmissionId: "SF2", ClosureDate: "2026-12-31"})
	wantRefusal(t, err, reasonStoreUnavailable, "state store unavailable")
	_, err = adm.LogAttestation(ctx, &adminv1.LogAttestationRequest{RequestId: rid(), Envelope: env})
	wantRefusal(t, err, reasonStoreUnavailable, "state store unavailable")
	if td.sequenced() != n {
		t.Fatalf("log size %d, was %d: a call refused for the store was sealed in the log", td.sequenced(), n)
	}
}
