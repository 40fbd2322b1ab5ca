package witness_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"testing"
	"time"

	fnote "github.com/transparency-dev/formats/note"
	"github.com/transparency-dev/tessera"
	"github.com/transparency-dev/tessera/storage/posix"
	"golang.org/x/mod/sumdb/note"

	"tirage.fr/tirage/transparency/logtest"
	"tirage.fr/tirage/transparency/witness"
	vcheckpoint "tirage.fr/tirage/verifier/checkpoint"
)

// A real peer: tessera's appender (POSIX driver) with our witness as its
// one required witness publishes only checkpoints our witness cosigned,
// the first round from old 0, the second with a consistency proof from
// the first.
func TestTesseraInterop(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const origin = "tirage.example/log/interop"
	tl := newTestLog(t, origin) // its keys: Ed25519 and ML-DSA-44
	logKeys := tl.keys(t)

	skey, vkey := newKey(t)
	signer, err := witness.NewSigner(skey)
	if err != nil {
		t.Fatal(err)
	}
	var logs logtest.Buffer
	wit, err := witness.New(witness.Config{Signer: signer, Logs: logKeys, StateDir: t.TempDir(),
		Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer wit.Close()
	srv := httptest.NewServer(wit)
	defer srv.Close()
	root, _ := url.Parse(srv.URL)
	tw, err := tessera.NewWitness(vkey, root)
	if err != nil {
		t.Fatal(err)
	}
	wv, err := witness.NewVerifier(vkey)
	if err != nil {
		t.Fatal(err)
	}

	driver, err := posix.New(ctx, posix.Config{Path: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	opts := tessera.NewAppendOptions().
		WithCheckpointSigner(tl.signers[0], tl.signers[1]).
		WithBatching(64, 20*time.Millisecond).
		WithCheckpointInterval(100*time.Millisecond).
		WithWitnesses(tessera.NewWitnessGroup(1, tw), &tessera.WitnessOptions{FailOpen: false})
	app, shutdown, reader, err := tessera.NewAppender(ctx, driver, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer shutdown(context.Background())
	awaiter := tessera.NewPublicationAwaiter(ctx, reader.ReadCheckpoint, 20*time.Millisecond)

	var sizes []int64
	for round, n := range []int{5, 7} {
		before := time.Now()
		var futures []tessera.IndexFuture
		for i := range n {
			futures = append(futures, app.Add(ctx, tessera.NewEntry(fmt.Appendf(nil, "round %d entry %d", round, i))))
		}
		for _, f := range futures {
			actx, acancel := context.WithTimeout(ctx, time.Minute)
			_, _, err := awaiter.Await(actx, f)
			acancel()
			if err != nil {
				t.Fatalf("round %d: %v", round, err)
			}
		}
		cp, err := reader.ReadCheckpoint(ctx)
		if err != nil {
			t.Fatal(err)
		}
		after := time.Now()
		// The published checkpoint: the log's two signatures and ours.
		c, err := vcheckpoint.Open(cp, logKeys)
		if err != nil {
			t.Fatalf("round %d: log signatures: %v", round, err)
		}
		nt, err := note.Open(cp, note.VerifierList(wv))
		if err != nil {
			t.Fatalf("round %d: checkpoint %q carries no valid cosignature: %v", round, cp, err)
		}
		ts, err := fnote.CoSigV1Timestamp(nt.Sigs[0])
		if err != nil {
			t.Fatal(err)
		}
		if ts.Before(before.Truncate(time.Second)) || ts.After(after) {
			t.Errorf("round %d: cosignature time %v not within [%v, %v]", round, ts, before, after)
		}
		sizes = append(sizes, c.Size)
		// The witness's state is the published size.
		if r := post(t, srv.URL+"/add-checkpoint", (&witness.Request{OldSize: 0, Checkpoint: cp}).Marshal()); c.Size > 0 && (r.code != 409 || r.body != fmt.Sprintf("%d\n", c.Size)) {
			t.Errorf("round %d: witness state %+v, want size %d", round, r, c.Size)
		}
	}
	if sizes[0] < 5 || sizes[1] != sizes[0]+7 {
		t.Fatalf("published sizes %v", sizes)
	}
	// The second round went from the first's size with proofs: cosigned
	// steps old→size with 0 < old < size, from sizes[0] to sizes[1].
	at := sizes[0]
	step := regexp.MustCompile(`msg="witness: cosigned" origin=` + regexp.QuoteMeta(origin) + ` old=(\d+) size=(\d+)`)
	for _, m := range step.FindAllStringSubmatch(logs.String(), -1) {
		old, _ := strconv.ParseInt(m[1], 10, 64)
		size, _ := strconv.ParseInt(m[2], 10, 64)
		if old == at && old > 0 && size > old {
			at = size
		}
	}
	if at != sizes[1] {
		t.Errorf("no chain of cosignatures with proofs from %d to %d in the witness's log:\n%s", sizes[0], sizes[1], logs.String())
	}
}
