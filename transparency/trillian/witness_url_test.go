package trillian

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"golang.org/x/mod/sumdb/tlog"

	"tirage.fr/tirage/transparency/checkpoint"
	"tirage.fr/tirage/transparency/witness"
	"tirage.fr/tirage/transparency/witness/witnesstest"
)

// A witness URL's credentials (a bastion's) reach the witness, as HTTP
// basic authentication, but no error the round returns (logged, and the
// reason of LOG_UNAVAILABLE) shows the password. Needs no Trillian.
func TestWitnessURLPasswordNotInErrors(t *testing.T) {
	_, _, note := fuzzWitness(t) // a checkpoint of 7 leaves of tirage.fr/log/fuzz
	cp := &checkpoint.Checkpoint{Origin: "tirage.fr/log/fuzz", Size: 7, Note: note}
	_, vkey, err := witness.GenerateKey("bailiff.test/witness")
	if err != nil {
		t.Fatal(err)
	}
	rec := witnesstest.StartAuthRecorder(t, http.StatusNotFound)
	withUser := rec.WithUser("bastion", "s3cret")
	w, err := newWitnesses([]byte("witness bailiff "+vkey+" "+withUser+"\nquorum bailiff\n"), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	noProof := func(context.Context, uint64, uint64) (tlog.TreeProof, error) { return nil, nil }
	_, err = w.cosign(t.Context(), cp, 0, noProof)
	if err == nil || strings.Contains(err.Error(), "s3cret") || !strings.Contains(err.Error(), "404") {
		t.Fatalf("cosign = %v, want the witness's 404 without the password", err)
	}
	if got := rec.Auth(); got != [2]string{"bastion", "s3cret"} {
		t.Errorf("the witness got user and password %q, want the policy's", got)
	}
}
