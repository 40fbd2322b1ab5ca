package tilelog_test

import (
	"bytes"
	"context"
	"crypto"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"tirage.fr/tirage/transparency"
	"tirage.fr/tirage/transparency/tilelog"
)

// token is a checkpoint key on a token that can stop answering: Sign fails
// while it is down, and waits while it hangs.
type token struct {
	crypto.Signer
	mu   sync.Mutex
	down error         // guarded by mu
	hung chan struct{} // guarded by mu: Sign waits until it is closed
	slow time.Duration // guarded by mu: Sign takes this long (a loaded HSM)
}

func newToken(t *testing.T) *token {
	_, k, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return &token{Signer: k}
}

func (k *token) Sign(r io.Reader, digest []byte, opts crypto.SignerOpts) ([]byte, error) {
	k.mu.Lock()
	hung, slow := k.hung, k.slow
	k.mu.Unlock()
	if hung != nil {
		<-hung
	}
	k.mu.Lock()
	down := k.down // as set when released
	k.mu.Unlock()
	time.Sleep(slow)
	if down != nil {
		return nil, down
	}
	return k.Signer.Sign(r, digest, opts)
}

func (k *token) set(down error, hung chan struct{}) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.down, k.hung = down, hung
}

// awaitHealth polls l.Health for up to 10 s until it fails (want) or is
// nil (!want), and returns the time it took and the error.
func awaitHealth(t *testing.T, l *tilelog.Log, want bool) (time.Duration, error) {
	t.Helper()
	start := time.Now()
	for {
		err := l.Health()
		if (err != nil) == want {
			return time.Since(start), err
		}
		if time.Since(start) > 10*time.Second {
			t.Fatalf("Health = %v still after 10 s", err)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// awaitLag polls l.Lag for up to 10 s until it has seen a checkpoint of
// size leaves (its watch reads every half checkpoint interval).
func awaitLag(t *testing.T, l *tilelog.Log, size uint64) tilelog.Lag {
	t.Helper()
	for start := time.Now(); ; time.Sleep(5 * time.Millisecond) {
		lag := l.Lag()
		if lag.Size == size {
			return lag
		}
		if time.Since(start) > 10*time.Second {
			t.Fatalf("Lag = %+v still after 10 s, want a checkpoint of %d leaves", lag, size)
		}
	}
}

// closeBounded closes l and returns Close's error; the test fails if Close
// still waits after 10 s.
func closeBounded(t *testing.T, l *tilelog.Log) error {
	t.Helper()
	start := time.Now()
	done := make(chan error, 1)
	go func() { done <- l.Close() }()
	select {
	case err := <-done:
		t.Logf("Close returned after %v: %v", time.Since(start), err)
		return err
	case <-time.After(10 * time.Second):
		t.Fatal("Close still waits after 10 s")
		return nil
	}
}

func appendLeaves(t *testing.T, l *tilelog.Log, from, n int) {
	t.Helper()
	for i := from; i < from+n; i++ {
		if idx, err := l.Append(t.Context(), fmt.Appendf(nil, "leaf %d", i)); err != nil || idx != uint64(i) {
			t.Fatalf("Append(leaf %d) = %d, %v", i, idx, err)
		}
	}
}

// A checkpoint signer that fails (a token that stopped answering) fails the
// log closed: tessera only logs it and goes on integrating, but Health
// reports it, appends are refused (ErrUnavailable, counted),
// AwaitCheckpoint does not wait for a checkpoint that cannot come, and
// Close returns at once instead of waiting for one. Reopened with the key
// back, the log publishes a checkpoint covering every acknowledged leaf.
func TestCheckpointSignerFails(t *testing.T) {
	dir, tok := t.TempDir(), newToken(t)
	cfg := tilelog.Config{Dir: dir, Origin: origin, Signers: []crypto.Signer{tok, testSigners(t)[0]}}
	l, err := tilelog.Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	appendLeaves(t, l, 0, 1)
	if _, err := l.AwaitCheckpoint(t.Context(), 1); err != nil {
		t.Fatal(err)
	}
	tok.set(errors.New("token not answering"), nil)
	// Acknowledged before tessera tries to sign it.
	appendLeaves(t, l, 1, 1)
	took, err := awaitHealth(t, l, true)
	if !errors.Is(err, transparency.ErrUnavailable) || !strings.Contains(err.Error(), "token not answering") {
		t.Fatalf("Health with the signer failing = %v, want ErrUnavailable naming the signer's failure", err)
	}
	t.Logf("Health failed %v after the append: %v", took, err)
	if _, err := l.Append(t.Context(), []byte("refused")); !errors.Is(err, transparency.ErrUnavailable) {
		t.Fatalf("Append with the signer failing = %v, want ErrUnavailable", err)
	}
	if s := l.Stats(); s.Failures != 1 {
		t.Fatalf("Stats = %+v, want the refused append counted", s)
	}
	start := time.Now()
	if _, err := l.AwaitCheckpoint(t.Context(), 2); !errors.Is(err, transparency.ErrUnavailable) || time.Since(start) > 5*time.Second {
		t.Fatalf("AwaitCheckpoint with the signer failing = %v after %v, want ErrUnavailable at once", err, time.Since(start))
	}
	sequenced := l.Sequenced()

	if err := closeBounded(t, l); !errors.Is(err, transparency.ErrUnavailable) {
		t.Fatalf("Close with the signer failing = %v, want ErrUnavailable", err)
	}

	tok.set(nil, nil)
	l, err = tilelog.Open(context.Background(), cfg)
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	defer l.Close()
	cp, err := l.AwaitCheckpoint(t.Context(), sequenced)
	if err != nil {
		t.Fatal(err)
	}
	got, err := l.Entries(t.Context(), 0, sequenced, cp.Size)
	if err != nil {
		t.Fatal(err)
	}
	if uint64(len(got)) != uint64(sequenced) {
		t.Fatalf("Entries returned %d leaves, want the %d acknowledged", len(got), sequenced)
	}
	for i := range got {
		if want := fmt.Appendf(nil, "leaf %d", i); !bytes.Equal(got[i], want) {
			t.Fatalf("leaf %d = %q, want %q", i, got[i], want)
		}
	}
	appendLeaves(t, l, int(sequenced), 1)
}

// A token that fails for a while (a PKCS#11 call timing out) stalls the log
// until a checkpoint is signed again, then appends resume by themselves;
// Lag reports the stall meanwhile.
func TestCheckpointSignerRecovers(t *testing.T) {
	tok := newToken(t)
	l, err := tilelog.Open(context.Background(), tilelog.Config{Dir: t.TempDir(), Origin: origin, Signers: []crypto.Signer{tok}})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	appendLeaves(t, l, 0, 3)
	if _, err := l.AwaitCheckpoint(t.Context(), 3); err != nil {
		t.Fatal(err)
	}
	if lag := awaitLag(t, l, 3); lag.Published.IsZero() || lag.Unsigned != 0 || lag.Waiting != 0 || lag.Stalled {
		t.Fatalf("Lag = %+v before the token fails, want a checkpoint of 3 leaves", lag)
	}
	tok.set(errors.New("token timed out"), nil)
	appendLeaves(t, l, 3, 2)
	_, err = awaitHealth(t, l, true)
	if !errors.Is(err, tilelog.ErrCheckpointStalled) || !errors.Is(err, transparency.ErrUnavailable) {
		t.Fatalf("Health with the token failing = %v, want ErrCheckpointStalled and ErrUnavailable", err)
	}
	if _, err := l.Append(t.Context(), []byte("refused")); !errors.Is(err, tilelog.ErrCheckpointStalled) || !errors.Is(err, transparency.ErrNotAppended) {
		t.Fatalf("Append with the token failing = %v, want ErrCheckpointStalled and ErrNotAppended (refused unwritten)", err)
	}
	if lag := l.Lag(); lag.Size != 3 || lag.Unsigned != 2 || !lag.Stalled {
		t.Fatalf("Lag = %+v while stalled, want 2 leaves unsigned beyond 3", lag)
	}

	tok.set(nil, nil)
	awaitHealth(t, l, false)
	if lag := awaitLag(t, l, 5); lag.Unsigned != 0 || lag.Stalled {
		t.Fatalf("Lag = %+v once signing resumed, want a checkpoint of 5 leaves", lag)
	}
	// The refused leaf was never journaled: the next takes its index.
	appendLeaves(t, l, 5, 1)
	if _, err := l.AwaitCheckpoint(t.Context(), 6); err != nil {
		t.Fatal(err)
	}
	if s := l.Stats(); s.Failures != 1 {
		t.Fatalf("Stats = %+v, want the one refused append", s)
	}
}

// A token that hangs instead of failing never reports an error to tessera:
// past CheckpointTimeout without a checkpoint covering the tree, the log
// stalls; it resumes once the token answers. Close, waiting for tessera's
// last checkpoint while the token hangs, returns once the stall is found
// instead of waiting its minute.
func TestCheckpointSignerHangs(t *testing.T) {
	tok := newToken(t)
	const timeout = 300 * time.Millisecond
	l, err := tilelog.Open(context.Background(), tilelog.Config{Dir: t.TempDir(), Origin: origin, Signers: []crypto.Signer{tok},
		CheckpointTimeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	closed := false
	defer func() {
		if !closed {
			l.Close()
		}
	}()
	appendLeaves(t, l, 0, 1)
	if _, err := l.AwaitCheckpoint(t.Context(), 1); err != nil {
		t.Fatal(err)
	}
	hung := make(chan struct{})
	tok.set(nil, hung)
	appendLeaves(t, l, 1, 1)
	took, err := awaitHealth(t, l, true)
	if !errors.Is(err, tilelog.ErrCheckpointStalled) || !strings.Contains(err.Error(), "no checkpoint covering leaf 1") {
		t.Fatalf("Health with the token hung = %v, want ErrCheckpointStalled for leaf 1", err)
	}
	if took < timeout/2 {
		t.Fatalf("stalled %v after the append, before the bound (%v)", took, timeout)
	}
	if lag := l.Lag(); lag.Waiting < timeout || lag.Unsigned != 1 {
		t.Fatalf("Lag = %+v with the token hung, want leaf 1 waiting past %v", lag, timeout)
	}
	if _, err := l.Append(t.Context(), []byte("refused")); !errors.Is(err, tilelog.ErrCheckpointStalled) || !errors.Is(err, transparency.ErrNotAppended) {
		t.Fatalf("Append with the token hung = %v, want ErrCheckpointStalled and ErrNotAppended (refused unwritten)", err)
	}

	tok.set(nil, nil)
	close(hung)
	awaitHealth(t, l, false)
	appendLeaves(t, l, 2, 1)
	if _, err := l.AwaitCheckpoint(t.Context(), 3); err != nil {
		t.Fatal(err)
	}

	// Hung again, with a leaf not covered yet: Close waits for tessera's
	// checkpoint only until the stall is found.
	hung = make(chan struct{})
	t.Cleanup(func() {
		// Close gave up on the round hung in Sign (quiesceTessera waits
		// journalCloseGrace): released, the round fails rather than
		// write a checkpoint while TempDir's cleanup removes the
		// directory ("directory not empty").
		tok.set(errors.New("token removed"), nil)
		close(hung)
	})
	tok.set(nil, hung)
	appendLeaves(t, l, 3, 1)
	closed = true
	if err := closeBounded(t, l); !errors.Is(err, tilelog.ErrCheckpointStalled) {
		t.Fatalf("Close with the token hung = %v, want ErrCheckpointStalled", err)
	}
}

// A signer slower than half the bound (an HSM under load) still publishes,
// each checkpoint covering the tree as it was when signing began: a leaf
// integrated just after one began waits for the next, nearly two signings.
// The bound holds per leaf, not per batch of leaves: until the log stalls,
// if it does, no leaf waits longer than CheckpointTimeout (plus a check
// period and this test's polling). A clock restarted whenever a checkpoint
// covered the leaves it was started for let leaves wait about 6 s here
// (twice the signer's cycle), with no stall.
func TestCheckpointSignerSlow(t *testing.T) {
	tok := newToken(t)
	const (
		timeout = 4 * time.Second
		// A signing cycle (the signer, up to an interval's wait for
		// tessera's tick) stays under timeout: a clock restarted at each
		// checkpoint never stalls, though a leaf waits about two cycles.
		slow = 2800 * time.Millisecond
		// A check period (half the default interval), the time from a
		// leaf's acknowledgement to its integration (the bound counts
		// from the latter), and this test's polling, under -race on a
		// loaded machine. A leaf waits at least two signings (5.6 s)
		// with a clock restarted at each checkpoint.
		slack = time.Second
	)
	l, err := tilelog.Open(context.Background(), tilelog.Config{Dir: t.TempDir(), Origin: origin, Signers: []crypto.Signer{tok},
		CheckpointTimeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	appendLeaves(t, l, 0, 1)
	if _, err := l.AwaitCheckpoint(t.Context(), 1); err != nil {
		t.Fatal(err)
	}
	tok.mu.Lock()
	tok.slow = slow
	tok.mu.Unlock()

	// One goroutine appends a leaf every 5 ms until the log refuses one;
	// this one notes when a checkpoint first covers each.
	var (
		mu    sync.Mutex
		acked = []time.Time{{}} // guarded by mu: when leaf i was acknowledged
	)
	stop := make(chan struct{})
	appended := make(chan error, 1)
	go func() {
		for i := 1; ; i++ {
			_, err := l.Append(context.Background(), fmt.Appendf(nil, "leaf %d", i))
			if err != nil {
				appended <- err
				return
			}
			mu.Lock()
			acked = append(acked, time.Now())
			mu.Unlock()
			select {
			case <-stop:
				appended <- nil
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	var (
		covered  uint64    = 1
		end      time.Time // the stall, or the test's end
		maxWait  time.Duration
		maxLeaf  uint64
		stallErr error
	)
	wait := func(i uint64, now time.Time) {
		mu.Lock()
		at := acked[i]
		mu.Unlock()
		if w := now.Sub(at); w > maxWait {
			maxWait, maxLeaf = w, i
		}
	}
	for start := time.Now(); time.Since(start) < 3*timeout; time.Sleep(2 * time.Millisecond) {
		now := time.Now()
		end = now
		if stallErr = l.Health(); stallErr != nil {
			break
		}
		cp, err := l.Checkpoint(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		for ; covered < cp.Size; covered++ {
			wait(covered, now)
		}
	}
	close(stop)
	if err := <-appended; err != nil && !errors.Is(err, tilelog.ErrCheckpointStalled) {
		t.Fatalf("Append = %v, want nil or ErrCheckpointStalled", err)
	}
	// The leaves still waiting then had waited at least this long.
	mu.Lock()
	n := uint64(len(acked))
	mu.Unlock()
	for i := covered; i < n; i++ {
		wait(i, end)
	}
	t.Logf("%d leaves, %d covered; longest wait %v (leaf %d); stall: %v", n, covered, maxWait, maxLeaf, stallErr)
	if maxWait > timeout+slack {
		t.Fatalf("leaf %d waited %v for a checkpoint, past CheckpointTimeout (%v), before the log stalled (%v)", maxLeaf, maxWait, timeout, stallErr)
	}
	if stallErr != nil && !errors.Is(stallErr, tilelog.ErrCheckpointStalled) {
		t.Fatalf("Health = %v, want ErrCheckpointStalled", stallErr)
	}
}

// Open refuses a CheckpointTimeout under 3 checkpoint intervals: with the
// checks every half interval, a checkpoint merely late would stall the log.
func TestCheckpointTimeoutTooShort(t *testing.T) {
	_, err := tilelog.Open(context.Background(), tilelog.Config{Dir: t.TempDir(), Origin: origin, Signers: testSigners(t)[1:],
		CheckpointInterval: time.Second, CheckpointTimeout: 2 * time.Second})
	if err == nil || !strings.Contains(err.Error(), "CheckpointTimeout") {
		t.Fatalf("Open with CheckpointTimeout 2 × CheckpointInterval = %v, want it refused", err)
	}
}
