package tilelog_test

import (
	"context"
	"crypto"
	"errors"
	"strings"
	"testing"
	"time"

	"tirage.fr/tirage/transparency"
	"tirage.fr/tirage/transparency/tilelog"
	"tirage.fr/tirage/transparency/witness"
	"tirage.fr/tirage/transparency/witness/witnesstest"
)

// With a witness policy, every checkpoint the log publishes carries the
// witness's cosignature, across checkpoints (the witness checks each one
// extends the last: consistency proofs from the tiles); while the witness
// is down no checkpoint is published, the log stalls past
// CheckpointTimeout and refuses appends, and it resumes by itself once the
// witness answers again.
func TestWitnessedCheckpoints(t *testing.T) {
	signers := testSigners(t)
	_, _, vkeys, err := transparency.CheckpointKeys(origin, signers)
	if err != nil {
		t.Fatal(err)
	}
	tw := witnesstest.Start(t, "bailiff.test/witness", vkeys)
	start := time.Now().Add(-time.Second).Truncate(time.Second)
	l, err := tilelog.Open(context.Background(), tilelog.Config{
		Dir: t.TempDir(), Origin: origin, Signers: signers, BatchMaxAge: 5 * time.Millisecond,
		CheckpointTimeout: time.Second, WitnessTimeout: 200 * time.Millisecond,
		WitnessPolicy: tw.Policy("bailiff"),
	})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()

	var last time.Time
	for round, n := range []int{3, 2, 4} {
		size := int(l.Sequenced())
		appendLeaves(t, l, size, n)
		cp, err := l.AwaitCheckpoint(t.Context(), uint64(size+n))
		if err != nil {
			t.Fatal(err)
		}
		ts := tw.CosignedAt(t, cp.Note)
		if ts.Before(start) || ts.After(time.Now().Add(time.Second)) || ts.Before(last) {
			t.Fatalf("round %d: cosigned at %v, want a time between %v and now, not before the last (%v)", round, ts, start, last)
		}
		last = ts
	}
	ws := l.Witnesses()
	if len(ws) != 1 || ws[0].Name != "bailiff.test/witness" || ws[0].Cosigned < 3 || ws[0].Failures != 0 || ws[0].LastCosigned.IsZero() {
		t.Fatalf("Witnesses() = %+v, want bailiff.test/witness with 3 cosignatures or more, no failure", ws)
	}

	// The witness goes down: checkpoints wait for it, then the log stalls.
	tw.Down.Store(true)
	size := int(l.Sequenced())
	appendLeaves(t, l, size, 1)
	if _, err := awaitHealth(t, l, true); !errors.Is(err, tilelog.ErrCheckpointStalled) {
		t.Fatalf("Health with the witness down = %v, want ErrCheckpointStalled", err)
	}
	if _, err := l.Append(t.Context(), []byte("refused")); !errors.Is(err, tilelog.ErrCheckpointStalled) || !errors.Is(err, transparency.ErrNotAppended) {
		t.Fatalf("Append with the witness down = %v, want ErrCheckpointStalled and ErrNotAppended", err)
	}
	if lag := l.Lag(); lag.Size != uint64(size) || lag.Unsigned != 1 {
		t.Fatalf("Lag = %+v with the witness down, want the checkpoint of %d leaves published and 1 leaf waiting", lag, size)
	}
	if ws := l.Witnesses(); ws[0].Failures == 0 {
		t.Fatalf("Witnesses() = %+v with the witness down, want its failures counted", ws)
	}

	// Back: the checkpoint covering the waiting leaf is cosigned and
	// published, and appends resume.
	tw.Down.Store(false)
	awaitHealth(t, l, false)
	cp, err := l.AwaitCheckpoint(t.Context(), uint64(size+1))
	if err != nil {
		t.Fatal(err)
	}
	tw.CosignedAt(t, cp.Note)
	appendLeaves(t, l, size+1, 1)
}

// A policy tessera cannot read, or a witness timeout the checkpoint
// timeout cannot hold, is refused at Open, naming what is wrong.
func TestWitnessPolicyRefused(t *testing.T) {
	signers := testSigners(t)
	_, vkey, err := witness.GenerateKey("w.test/witness")
	if err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct {
		cfg  tilelog.Config
		want string
	}{
		"no quorum":    {tilelog.Config{WitnessPolicy: []byte("witness w " + vkey + " http://127.0.0.1:1\n")}, "must define a quorum"},
		"quorum none":  {tilelog.Config{WitnessPolicy: []byte("witness w " + vkey + " http://127.0.0.1:1\nquorum none\n")}, "asks for no witness"},
		"slow witness": {tilelog.Config{WitnessPolicy: []byte("witness w " + vkey + " http://127.0.0.1:1\nquorum w\n"), WitnessTimeout: 6 * time.Second}, "WitnessTimeout 6s"},
		"huge policy":  {tilelog.Config{WitnessPolicy: []byte(strings.Repeat("# comment\n", 7000) + "witness w " + vkey + " http://127.0.0.1:1\nquorum w\n")}, "at most 65536"},
	} {
		tc.cfg.Dir, tc.cfg.Origin, tc.cfg.Signers = t.TempDir(), origin, signers
		l, err := tilelog.Open(context.Background(), tc.cfg)
		if err == nil {
			l.Close()
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Open = %v, want an error naming %q", name, err, tc.want)
		}
	}
}

// A new log publishes its empty checkpoint through the witnesses (tessera
// initialises the directory once): with the witness down the first Open
// fails, and once the witness is back the same directory opens, its first
// checkpoint cosigned.
func TestWitnessDownAtFirstOpen(t *testing.T) {
	signers := testSigners(t)
	_, _, vkeys, err := transparency.CheckpointKeys(origin, signers)
	if err != nil {
		t.Fatal(err)
	}
	tw := witnesstest.Start(t, "bailiff.test/witness", vkeys)
	tw.Down.Store(true)
	cfg := tilelog.Config{
		Dir: t.TempDir(), Origin: origin, Signers: signers, BatchMaxAge: 5 * time.Millisecond,
		WitnessPolicy: tw.Policy("bailiff"),
	}
	if l, err := tilelog.Open(context.Background(), cfg); err == nil {
		l.Close()
		t.Fatal("a new log opened with its only witness down")
	} else if !errors.Is(err, transparency.ErrUnavailable) || strings.Contains(err.Error(), "\n") {
		t.Fatalf("Open with the witness down = %q, want ErrUnavailable, on one line", err)
	}
	// Opened again with the witness still down, the directory holds
	// tessera's tree but no checkpoint: Open waits for one, up to the
	// checkpoint timeout, and fails.
	short := cfg
	short.CheckpointInterval, short.CheckpointTimeout, short.WitnessTimeout = 100*time.Millisecond, 400*time.Millisecond, 100*time.Millisecond
	if l, err := tilelog.Open(context.Background(), short); err == nil {
		l.Close()
		t.Fatal("a new log opened a second time with its only witness down")
	} else if !errors.Is(err, transparency.ErrUnavailable) || !strings.Contains(err.Error(), "first checkpoint was not published") {
		t.Fatalf("second Open with the witness down = %v, want ErrUnavailable naming the first checkpoint", err)
	}
	tw.Down.Store(false)
	l, err := tilelog.Open(context.Background(), cfg)
	if err != nil {
		t.Fatalf("Open once the witness is back: %v", err)
	}
	defer l.Close()
	// Opened, the log has its first checkpoint to serve (rngd reads it
	// at once), cosigned.
	first, err := l.Checkpoint(t.Context())
	if err != nil {
		t.Fatalf("Checkpoint just after Open: %v", err)
	}
	if first.Size != 0 {
		t.Fatalf("first checkpoint of size %d, want 0", first.Size)
	}
	tw.CosignedAt(t, first.Note)
	appendLeaves(t, l, 0, 2)
	cp, err := l.AwaitCheckpoint(t.Context(), 2)
	if err != nil {
		t.Fatal(err)
	}
	tw.CosignedAt(t, cp.Note)
}

// A witness URL's credentials (a bastion's, https://user:password@host/)
// are sent to the witness, never shown: Witnesses (the metrics' url label,
// rngd's banner) gives the URL with the password redacted.
func TestWitnessURLPasswordNotShown(t *testing.T) {
	signers := testSigners(t)
	_, _, vkeys, err := transparency.CheckpointKeys(origin, signers)
	if err != nil {
		t.Fatal(err)
	}
	l, err := openBastionWitnessed(t, signers, vkeys)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	appendLeaves(t, l, 0, 1)
	if _, err := l.AwaitCheckpoint(t.Context(), 1); err != nil {
		t.Fatal(err)
	}
	ws := l.Witnesses()
	if len(ws) != 1 || ws[0].Cosigned == 0 || strings.Contains(ws[0].URL, "s3cret") || !strings.Contains(ws[0].URL, "bastion:xxxxx@") {
		t.Fatalf("Witnesses() = %+v, want one witness that cosigned, its URL without the password", ws)
	}
}

// Nor is it in an error: tessera's messages quote a witness's URL (here
// the first Open's, a witness that does not know the log: 404), and rngd
// prints them;
// tessera is given the URL without credentials, which the meter sends.
func TestWitnessURLPasswordNotInErrors(t *testing.T) {
	signers := testSigners(t)
	_, _, others, err := transparency.CheckpointKeys("tirage.test/another-log", testSigners(t))
	if err != nil {
		t.Fatal(err)
	}
	l, err := openBastionWitnessed(t, signers, others)
	if err == nil {
		l.Close()
		t.Fatal("a new log opened with its only witness refusing it")
	}
	if strings.Contains(err.Error(), "s3cret") || !strings.Contains(err.Error(), "/add-checkpoint\" says checkpoint origin is unknown") {
		t.Fatalf("Open = %v, want the witness's 404, its URL without the password", err)
	}
}

// openBastionWitnessed opens a new log whose one witness (of the logs
// logVKeys name) is reached through a URL holding a password, as behind a
// bastion: "bastion:s3cret-token@".
func openBastionWitnessed(t *testing.T, signers []crypto.Signer, logVKeys []string) (*tilelog.Log, error) {
	tw := witnesstest.Start(t, "bailiff.test/witness", logVKeys)
	withUser := strings.Replace(tw.URL, "http://", "http://bastion:s3cret-token@", 1)
	return tilelog.Open(context.Background(), tilelog.Config{
		Dir: t.TempDir(), Origin: origin, Signers: signers, BatchMaxAge: 5 * time.Millisecond,
		CheckpointTimeout: time.Second, WitnessTimeout: 200 * time.Millisecond,
		WitnessPolicy: []byte("witness bailiff " + tw.VKey + " " + withUser + "\nquorum bailiff\n"),
	})
}
