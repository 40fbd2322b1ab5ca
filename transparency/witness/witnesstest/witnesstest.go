// Package witnesstest runs a real witness (transparency/witness, what
// rngctl witness serve runs) on loopback for the tests of the logs that
// ask it to cosign their checkpoints.
package witnesstest

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	fnote "github.com/transparency-dev/formats/note"
	"golang.org/x/mod/sumdb/note"

	"tirage.fr/tirage/transparency/witness"
	vcheckpoint "tirage.fr/tirage/verifier/checkpoint"
)

// Witness is a witness of the logs whose verifier keys it was started
// with. Down makes it answer 503 to every request, as a witness that is
// down; Reset replaces it by one with the same key and no state, as a
// witness that lost its disk. It stops when the test ends.
type Witness struct {
	// VKey is its cosignature/v1 verifier key, URL where it is served (the
	// root: add-checkpoint is URL/add-checkpoint).
	VKey, URL string
	Down      atomic.Bool

	skey     string
	logVKeys []string
	mu       sync.Mutex
	w        *witness.Witness
}

// Start starts a witness named name of the logs whose verifier key texts
// (as /log/vkey serves them) are logVKeys.
func Start(t testing.TB, name string, logVKeys []string) *Witness {
	t.Helper()
	skey, vkey, err := witness.GenerateKey(name)
	if err != nil {
		t.Fatal(err)
	}
	tw := &Witness{VKey: vkey, skey: skey, logVKeys: logVKeys}
	tw.Reset(t)
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if tw.Down.Load() {
			http.Error(rw, "down for the test", http.StatusServiceUnavailable)
			return
		}
		tw.mu.Lock()
		w := tw.w
		tw.mu.Unlock()
		w.ServeHTTP(rw, r)
	}))
	t.Cleanup(srv.Close)
	tw.URL = srv.URL
	return tw
}

// Reset replaces the witness by one with the same key and an empty state.
func (tw *Witness) Reset(t testing.TB) {
	t.Helper()
	signer, err := witness.NewSigner(tw.skey)
	if err != nil {
		t.Fatal(err)
	}
	keys, err := vcheckpoint.ParseKeys(strings.Join(tw.logVKeys, "\n"))
	if err != nil {
		t.Fatal(err)
	}
	w, err := witness.New(witness.Config{Signer: signer, Logs: keys, StateDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	tw.mu.Lock()
	tw.w = w
	tw.mu.Unlock()
}

// Policy is a witness policy (rngd's log.witness_policy) with this witness
// as its quorum, under the name label.
func (tw *Witness) Policy(label string) []byte {
	return []byte("witness " + label + " " + tw.VKey + " " + tw.URL + "\nquorum " + label + "\n")
}

// CosignedAt returns the time of the witness's valid cosignature on the
// signed checkpoint note cp, failing the test if it has none.
func (tw *Witness) CosignedAt(t testing.TB, cp []byte) time.Time {
	t.Helper()
	v, err := fnote.NewVerifierForCosignatureV1(tw.VKey)
	if err != nil {
		t.Fatal(err)
	}
	n, err := note.Open(cp, note.VerifierList(v))
	if err != nil || len(n.Sigs) != 1 {
		t.Fatalf("checkpoint not cosigned by the witness %s (%v):\n%s", v.Name(), err, cp)
	}
	ts, err := fnote.CoSigV1Timestamp(n.Sigs[0])
	if err != nil {
		t.Fatal(err)
	}
	return ts
}

// AuthRecorder is a server standing in for a witness, at URL, that
// answers every request with status and records the HTTP basic
// authentication of the first one: what a log sends for a witness URL
// holding credentials (user:password@host).
type AuthRecorder struct {
	URL  string
	auth chan [2]string
}

// StartAuthRecorder starts an AuthRecorder; it stops when the test ends.
func StartAuthRecorder(t testing.TB, status int) *AuthRecorder {
	t.Helper()
	a := &AuthRecorder{auth: make(chan [2]string, 1)}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user, password, _ := r.BasicAuth()
		select {
		case a.auth <- [2]string{user, password}:
		default:
		}
		http.Error(w, http.StatusText(status), status)
	}))
	t.Cleanup(srv.Close)
	a.URL = srv.URL
	return a
}

// WithUser is the recorder's URL with user:password in it.
func (a *AuthRecorder) WithUser(user, password string) string {
	return strings.Replace(a.URL, "http://", "http://"+user+":"+password+"@", 1)
}

// Auth waits for the first request's user and password.
func (a *AuthRecorder) Auth() [2]string { return <-a.auth }
