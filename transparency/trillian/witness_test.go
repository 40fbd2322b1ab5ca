package trillian_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"tirage.fr/tirage/transparency"
	"tirage.fr/tirage/transparency/checkpoint"
	"tirage.fr/tirage/transparency/trillian"
	"tirage.fr/tirage/transparency/witness"
	"tirage.fr/tirage/transparency/witness/witnesstest"
)

// cosigned fails the test unless the checkpoint carries the witness's
// valid cosignature.
func cosigned(t *testing.T, tw *witnesstest.Witness, cp *checkpoint.Checkpoint) {
	t.Helper()
	tw.CosignedAt(t, cp.Note)
}

// checkpointWithin polls l.Checkpoint until it succeeds (a round that
// failed is refused at once for WitnessTimeout).
func checkpointWithin(t *testing.T, l transparency.Log, d time.Duration) *checkpoint.Checkpoint {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		cp, err := l.Checkpoint(t.Context())
		if err == nil {
			return cp
		}
		if !time.Now().Before(deadline) {
			t.Fatalf("Checkpoint: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// With a witness policy every checkpoint the Trillian backend hands out
// carries the witness's cosignature, across signings (each from the last
// one the witness cosigned: consistency proofs from Trillian). While the
// witness is down a new root's checkpoint is refused (ErrUnavailable) and
// the state file does not advance; once it is back checkpoints resume.
func TestWitnessedCheckpoints(t *testing.T) {
	conn := dial(t)
	tree := newTree(t, conn)
	s := signers(t)
	const origin = "tirage.fr/log/witnessed"
	_, _, vkeys, err := transparency.CheckpointKeys(origin, s)
	if err != nil {
		t.Fatal(err)
	}
	tw := witnesstest.Start(t, "bailiff.test/witness", vkeys)
	state := filepath.Join(t.TempDir(), "trillian-checkpoint")
	l, err := trillian.Open(t.Context(), trillian.Config{Conn: conn, TreeID: tree, Origin: origin, Signers: s, StateFile: state,
		AppendTimeout: 5 * time.Second, WitnessPolicy: tw.Policy("bailiff"), WitnessTimeout: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	// Another writer on the tree, without witnesses: the log under test
	// only reads its roots.
	other, err := trillian.Open(t.Context(), trillian.Config{Conn: conn, TreeID: tree, Origin: origin, Signers: s})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	n := uint64(0)
	for round, k := range []int{3, 1, 4} {
		for range k {
			if _, err := l.Append(t.Context(), []byte{'w', byte(round), byte(n)}); err != nil {
				t.Fatal(err)
			}
			n++
		}
		cp, err := l.AwaitCheckpoint(t.Context(), n)
		if err != nil {
			t.Fatal(err)
		}
		cosigned(t, tw, cp)
		saved, err := os.ReadFile(state)
		if err != nil || !bytes.Equal(saved, cp.Note) {
			t.Fatalf("round %d: state file %q (%v), want the cosigned checkpoint", round, saved, err)
		}
	}

	tw.Down.Store(true)
	if _, err := other.Append(t.Context(), []byte("while the witness is down")); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(state)
	if err != nil {
		t.Fatal(err)
	}
	_, err = l.Checkpoint(t.Context())
	if !errors.Is(err, transparency.ErrUnavailable) {
		t.Fatalf("Checkpoint with the witness down = %v, want ErrUnavailable", err)
	}
	if after, _ := os.ReadFile(state); !bytes.Equal(after, before) {
		t.Fatalf("state file advanced to a checkpoint not cosigned:\n%s", after)
	}
	// Reads of trees already cosigned go on.
	if _, err := l.InclusionProof(t.Context(), 0, n); err != nil {
		t.Fatalf("InclusionProof in the last cosigned tree: %v", err)
	}

	tw.Down.Store(false)
	cp := checkpointWithin(t, l, 10*time.Second)
	if cp.Size != n+1 {
		t.Fatalf("checkpoint of %d leaves, want %d", cp.Size, n+1)
	}
	cosigned(t, tw, cp)
	ws := l.Witnesses()
	if len(ws) != 1 || ws[0].Name != "bailiff.test/witness" || ws[0].Cosigned < 4 || ws[0].Failures == 0 || ws[0].LastCosigned.IsZero() {
		t.Fatalf("Witnesses() = %+v", ws)
	}

	// Reopened with the witness down: Open succeeds, checkpoints are
	// refused until it is back.
	l.Close()
	if _, err := other.Append(t.Context(), []byte("while closed")); err != nil {
		t.Fatal(err)
	}
	tw.Down.Store(true)
	l, err = trillian.Open(t.Context(), trillian.Config{Conn: conn, TreeID: tree, Origin: origin, Signers: s, StateFile: state,
		AppendTimeout: 5 * time.Second, WitnessPolicy: tw.Policy("bailiff"), WitnessTimeout: 500 * time.Millisecond})
	if err != nil {
		t.Fatalf("Open with the witness down: %v", err)
	}
	defer l.Close()
	if _, err := l.Checkpoint(t.Context()); !errors.Is(err, transparency.ErrUnavailable) {
		t.Fatalf("Checkpoint after Open with the witness down = %v, want ErrUnavailable", err)
	}
	tw.Down.Store(false)
	if cp := checkpointWithin(t, l, 10*time.Second); cp.Size != n+2 {
		t.Fatalf("checkpoint of %d leaves, want %d", cp.Size, n+2)
	} else {
		cosigned(t, tw, cp)
	}
}

// A witness that holds another size than the log's hint answers 409 with
// its size, and the log sends the checkpoint again from there: one ahead
// of the hint (the log reopened without its state file, its hint 0), one
// behind it (the witness lost its state).
func TestWitnessResync(t *testing.T) {
	conn := dial(t)
	tree := newTree(t, conn)
	s := signers(t)
	const origin = "tirage.fr/log/witness-resync"
	_, _, vkeys, err := transparency.CheckpointKeys(origin, s)
	if err != nil {
		t.Fatal(err)
	}
	tw := witnesstest.Start(t, "bailiff.test/witness", vkeys)
	open := func() *trillian.Log {
		l, err := trillian.Open(t.Context(), trillian.Config{Conn: conn, TreeID: tree, Origin: origin, Signers: s,
			AppendTimeout: 5 * time.Second, WitnessPolicy: tw.Policy("bailiff"), WitnessTimeout: 500 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	l := open()
	for i := range 5 {
		if _, err := l.Append(t.Context(), []byte{'r', byte(i)}); err != nil {
			t.Fatal(err)
		}
	}
	cp, err := l.AwaitCheckpoint(t.Context(), 5)
	if err != nil {
		t.Fatal(err)
	}
	cosigned(t, tw, cp)
	l.Close()

	// Ahead: no state file, so the reopened log's hint is 0; the witness
	// holds 5.
	l = open()
	defer l.Close()
	cp = checkpointWithin(t, l, 5*time.Second)
	cosigned(t, tw, cp)
	if ws := l.Witnesses(); len(ws) != 1 || ws[0].Conflicts != 1 || ws[0].Cosigned != 1 {
		t.Fatalf("witness ahead of the hint: Witnesses() = %+v, want one conflict then one cosignature", ws)
	}

	// Behind: the witness lost its state; the log, which holds 5 for it,
	// is told 0 and sends the whole tree again.
	tw.Reset(t)
	if _, err := l.Append(t.Context(), []byte("after the reset")); err != nil {
		t.Fatal(err)
	}
	cp, err = l.AwaitCheckpoint(t.Context(), 6)
	if err != nil {
		t.Fatal(err)
	}
	cosigned(t, tw, cp)
	if ws := l.Witnesses(); ws[0].Conflicts != 2 || ws[0].Cosigned != 2 {
		t.Fatalf("witness behind: Witnesses() = %+v, want two conflicts, two cosignatures", ws)
	}
}

// A checkpoint signed before the policy was set (the state file's, the
// tree unchanged) is cosigned before it is handed out again.
func TestWitnessPolicyAdded(t *testing.T) {
	conn := dial(t)
	tree := newTree(t, conn)
	s := signers(t)
	const origin = "tirage.fr/log/witness-added"
	_, _, vkeys, err := transparency.CheckpointKeys(origin, s)
	if err != nil {
		t.Fatal(err)
	}
	tw := witnesstest.Start(t, "bailiff.test/witness", vkeys)
	state := filepath.Join(t.TempDir(), "trillian-checkpoint")
	l, err := trillian.Open(t.Context(), trillian.Config{Conn: conn, TreeID: tree, Origin: origin, Signers: s, StateFile: state})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		if _, err := l.Append(t.Context(), []byte{'a', byte(i)}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := l.AwaitCheckpoint(t.Context(), 2); err != nil {
		t.Fatal(err)
	}
	l.Close()
	l, err = trillian.Open(t.Context(), trillian.Config{Conn: conn, TreeID: tree, Origin: origin, Signers: s, StateFile: state,
		AppendTimeout: 5 * time.Second, WitnessPolicy: tw.Policy("bailiff"), WitnessTimeout: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	cp := checkpointWithin(t, l, 5*time.Second)
	if cp.Size != 2 {
		t.Fatalf("checkpoint of %d leaves, want 2", cp.Size)
	}
	cosigned(t, tw, cp)
	if saved, err := os.ReadFile(state); err != nil || !bytes.Equal(saved, cp.Note) {
		t.Fatalf("state file %q (%v), want the cosigned checkpoint", saved, err)
	}
}

// Open refuses a witness policy it cannot parse, and a witness timeout
// over half of the append timeout (an append waits for a checkpoint:
// one round of silent witnesses would time it out).
func TestWitnessConfig(t *testing.T) {
	conn, err := grpc.NewClient("127.0.0.1:1", grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	skey, vkey, err := witness.GenerateKey("bailiff.test/witness")
	if err != nil || skey == "" {
		t.Fatal(err)
	}
	policy := []byte("witness bailiff " + vkey + " http://127.0.0.1:1\nquorum bailiff\n")
	for name, tc := range map[string]struct {
		cfg  trillian.Config
		want string
	}{
		"long timeout": {trillian.Config{WitnessPolicy: policy, WitnessTimeout: 3 * time.Second, AppendTimeout: 5 * time.Second}, "Config.WitnessTimeout 3s"},
		"no quorum":    {trillian.Config{WitnessPolicy: []byte("witness bailiff " + vkey + " http://127.0.0.1:1\n")}, "witness policy"},
		"quorum none":  {trillian.Config{WitnessPolicy: []byte("witness bailiff " + vkey + " http://127.0.0.1:1\nquorum none\n")}, "asks for no witness"},
	} {
		tc.cfg.Conn, tc.cfg.TreeID, tc.cfg.Origin, tc.cfg.Signers = conn, 1, "tirage.fr/log/config", signers(t)
		if _, err := trillian.Open(t.Context(), tc.cfg); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Open = %v, want an error naming %q", name, err, tc.want)
		}
	}
}

// An append that times out while the witnesses do not cosign says so: its
// leaf is integrated, the checkpoint covering it waits for the quorum, and
// the operator must look at the witnesses, not at Trillian.
func TestWitnessDownAppendTimeoutNamesWitnesses(t *testing.T) {
	conn := dial(t)
	tree := newTree(t, conn)
	s := signers(t)
	const origin = "tirage.fr/log/witness-timeout"
	_, _, vkeys, err := transparency.CheckpointKeys(origin, s)
	if err != nil {
		t.Fatal(err)
	}
	tw := witnesstest.Start(t, "bailiff.test/witness", vkeys)
	l, err := trillian.Open(t.Context(), trillian.Config{Conn: conn, TreeID: tree, Origin: origin, Signers: s,
		StateFile: filepath.Join(t.TempDir(), "trillian-checkpoint"), Resync: func(context.Context, *checkpoint.Checkpoint) error { return nil },
		AppendTimeout: 2 * time.Second, WitnessPolicy: tw.Policy("bailiff"), WitnessTimeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	other, err := trillian.Open(t.Context(), trillian.Config{Conn: conn, TreeID: tree, Origin: origin, Signers: s})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if _, err := l.Append(t.Context(), []byte("cosigned")); err != nil {
		t.Fatal(err)
	}
	tw.Down.Store(true)
	// A round fails (a larger tree, the witness down) before the append:
	// the append's own round then fails too, whatever its timing.
	if _, err := other.Append(t.Context(), []byte("by another writer")); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, err := l.Checkpoint(t.Context())
		if errors.Is(err, transparency.ErrUnavailable) && strings.Contains(err.Error(), "quorum not met") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("Checkpoint with the witness down = %v, want a quorum not met", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	_, err = l.Append(t.Context(), []byte("while the witness is down"))
	if !errors.Is(err, transparency.ErrUnavailable) {
		t.Fatalf("Append with the witness down = %v, want ErrUnavailable", err)
	}
	for _, want := range []string{"witness policy's quorum did not cosign", "cosigned (the log recovers by itself)"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Append's error lacks %q: %v", want, err)
		}
	}
	tw.Down.Store(false)
}
