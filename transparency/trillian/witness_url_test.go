package trillian

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"golang.org/x/mod/sumdb/tlog"

	"tirage.fr/tirage/transparency/checkpoint"
	"tirage.fr/tirage/transparency/witness"
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
	auth := make(chan [2]string, 1) // what the witness got, from its goroutine
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user, password, _ := r.BasicAuth()
		select {
		case auth <- [2]string{user, password}:
		default:
		}
		http.Error(w, "no such log", http.StatusNotFound)
	}))
	defer srv.Close()
	withUser := strings.Replace(srv.URL, "http://", "http://bastion:s3cret@", 1)
	w, err := newWitnesses([]byte("witness bailiff "+vkey+" "+withUser+"\nquorum bailiff\n"), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	noProof := func(context.Context, uint64, uint64) (tlog.TreeProof, error) { return nil, nil }
	_, err = w.cosign(t.Context(), cp, 0, noProof)
	if err == nil || strings.Contains(err.Error(), "s3cret") || !strings.Contains(err.Error(), "404") {
		t.Fatalf("cosign = %v, want the witness's 404 without the password", err)
	}
	if got := <-auth; got != [2]string{"bastion", "s3cret"} {
		t.Errorf("the witness got user and password %q, want the policy's", got)
	}
}
