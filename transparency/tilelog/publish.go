package tilelog

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/transparency-dev/tessera/api/layout"
	"golang.org/x/mod/sumdb/note"

	"tirage.fr/tirage/transparency"
	"tirage.fr/tirage/transparency/checkpoint"
)

// Checkpoint publication. Tessera (v1.0.4, storage/posix) signs and
// publishes checkpoints on a goroutine of its own and, when that fails,
// only logs a warning and tries again at the next interval; integration
// goes on. Appends would then be acknowledged that no signed checkpoint
// commits to: receipts without proofs, and a log that looks healthy. So the
// log watches publication itself, and stalls — refuses appends
// (ErrCheckpointStalled), Health reports it, Close does not wait for a
// checkpoint — when
//
//   - a checkpoint signer fails: at once (the signers handed to tessera are
//     watchedSigners), until a checkpoint of at least the failed size is
//     published;
//   - integrated leaves wait longer than Config.CheckpointTimeout for a
//     checkpoint covering them (checkPublished, every half checkpoint
//     interval), whatever the cause: a signer that hangs rather than fails,
//     a checkpoint file that cannot be written, tessera's publisher gone.
//
// A stall ends by itself, unlike the pipeline's failures (fail), which hold
// until the log is reopened:
//
//   - it leaves nothing ambiguous. An append refused during it is refused
//     before it is journaled (Append and journalLoop check it), so no leaf a
//     caller was told was refused can appear later (what makes a timed-out
//     append fail the log for good), and the caller need not resync;
//   - nothing is lost or replayed. The leaves acknowledged before it are in
//     the tree (integration goes on), and the first checkpoint signed after
//     it covers them: a checkpoint commits to the whole tree;
//   - its likely cause is transient: an HSM that does not answer for a
//     while (a PKCS#11 call timing out). A restart would not help: reopening
//     an existing log signs nothing, and it would stall again at its first
//     checkpoint.
//
// It ends on evidence only: a checkpoint read from the published file,
// verified with the configured keys, that covers every leaf the stall was
// about. A published checkpoint that does not verify, or goes back, is
// misbehaviour (transparency.ErrSecurity) and fails the log for good.

// ErrCheckpointStalled is in the error of every append refused, and of
// Health, while the log cannot publish signed checkpoints: a checkpoint
// signer failed, or checkpoints trail the tree by more than
// Config.CheckpointTimeout. The errors also wrap transparency.ErrUnavailable:
// refuse the draw (nothing was appended) and raise the alarm; retry later,
// without restarting: the log takes appends again once a checkpoint covering
// its tree is published, which tessera retries every checkpoint interval.
var ErrCheckpointStalled = errors.New("checkpoints cannot be published")

// Bounds of the default CheckpointTimeout: checkpointTimeoutIntervals
// checkpoint intervals, and at least minCheckpointTimeout. A healthy tessera
// publishes within one interval of integrating a leaf (its publisher wakes
// every interval, and signs only when the tree grew), plus the signatures
// and a synced write. Ten intervals are nine missed or late publications in
// a row; the floor keeps the default interval (100 ms) clear of disk and
// scheduling hiccups on a loaded machine (a synced write, a starved
// goroutine), which are not failures: refusing draws for them would be an
// outage of our own making. It is rngd's default keys.call_timeout: a
// token that hangs has its call time out about then, which stalls the log
// at once (a failing signer never waits for the bound). The leaves
// acknowledged meanwhile are durable in the journal whatever happens.
const (
	checkpointTimeoutIntervals = 10
	minCheckpointTimeout       = 10 * time.Second
)

// watchedSigner is a checkpoint signer that reports its failures to the
// log at once: tessera only logs them.
type watchedSigner struct {
	note.Signer
	l *Log
}

func (s watchedSigner) Sign(msg []byte) ([]byte, error) {
	sig, err := s.Signer.Sign(msg)
	if err != nil {
		// The message is the checkpoint's text: the stall lasts until a
		// checkpoint at least that big is published.
		size := s.l.sequenced.Load()
		if _, n, _, perr := checkpoint.ParseText(string(msg)); perr == nil {
			size = n
		}
		s.l.stall(size, fmt.Errorf("checkpoint signer %08x failed on the checkpoint of %d leaves: %w", s.KeyHash(), size, err))
	}
	return sig, err
}

// publication is what checkPublished last saw (Log.watch).
type publication struct {
	size      uint64    // leaves in the latest published checkpoint read
	published time.Time // its file's modification time
	readErr   error     // the last read's failure, nil once one succeeds
	// waitFor is the integrated size seen at since that the published
	// checkpoint did not cover yet; 0 while it covers the tree.
	waitFor uint64
	since   time.Time
}

// Lag is how far signed checkpoints trail the log (Log.Lag).
type Lag struct {
	// Size is the latest published checkpoint's size, and Published when
	// it was written (its file's modification time). An idle log publishes
	// no new checkpoint: its age alone is no fault.
	Size      uint64
	Published time.Time
	// Unsigned is the acknowledged (journaled) leaves it does not cover.
	Unsigned uint64
	// Waiting is how long the integrated leaves it does not cover have
	// waited for one, as seen every half checkpoint interval; 0 when it
	// covers the tree. Past Config.CheckpointTimeout the log stalls.
	Waiting time.Duration
	// Stalled reports that the log refuses appends for want of a
	// checkpoint (ErrCheckpointStalled).
	Stalled bool
}

// Lag reports how far signed checkpoints trail the log, for metrics
// (rngd's checkpoint gauges): cheap, it reads what the log's checkpoint
// watch last saw.
func (l *Log) Lag() Lag {
	l.watchMu.Lock()
	w := l.watch
	l.watchMu.Unlock()
	out := Lag{Size: w.size, Published: w.published}
	if s := l.sequenced.Load(); s > w.size {
		out.Unsigned = s - w.size
	}
	if w.waitFor > 0 {
		out.Waiting = time.Since(w.since)
	}
	out.Stalled = l.stallErr() != nil
	return out
}

// checkPublished reads the published checkpoint, ends a stall it resolves
// and starts one when integrated leaves have waited past the bound. It runs
// every half checkpoint interval until Close (Open: l.every).
func (l *Log) checkPublished(now time.Time) {
	// Not latest: the watch goes on while Close waits for tessera.
	l.mu.Lock()
	cp, err := l.readCheckpoint(pollInterval)
	l.mu.Unlock()
	if errors.Is(err, transparency.ErrSecurity) {
		l.fail(err)
		return
	}
	integrated := l.integrated.Load()
	l.watchMu.Lock()
	w := &l.watch
	w.readErr = err
	if err == nil && (cp.Size != w.size || w.published.IsZero()) {
		w.size = cp.Size
		if fi, err := os.Stat(filepath.Join(l.tilesDir, layout.CheckpointPath)); err == nil {
			w.published = fi.ModTime()
		}
	}
	if w.size >= w.waitFor {
		w.waitFor, w.since = 0, time.Time{}
		if w.size < integrated {
			w.waitFor, w.since = integrated, now
		}
	}
	size, waitFor, late, readErr := w.size, w.waitFor, w.waitFor > 0 && now.Sub(w.since) > l.cfg.CheckpointTimeout, w.readErr
	l.watchMu.Unlock()

	l.resume(size)
	if late {
		cause := fmt.Errorf("no checkpoint covering leaf %d published within %v (the latest covers %d leaves)", waitFor-1, l.cfg.CheckpointTimeout, size)
		if readErr != nil {
			cause = fmt.Errorf("%w; reading it: %w", cause, readErr)
		}
		l.stall(waitFor, cause)
	}
}

// stall makes the log refuse appends until a checkpoint of at least size
// leaves is published (the first cause is kept).
func (l *Log) stall(size uint64, cause error) {
	l.pmu.Lock()
	defer l.pmu.Unlock()
	if l.stalled != nil {
		l.stallSize = max(l.stallSize, size)
		return
	}
	l.stalled = fmt.Errorf("tilelog: %w: %w: %w (appends are refused until a checkpoint of %d leaves is published, which tessera retries every %v)",
		transparency.ErrUnavailable, ErrCheckpointStalled, cause, size, l.cfg.CheckpointInterval)
	l.stallSize, l.stallAt = size, time.Now()
	close(l.stallc)
	l.cfg.Logger.Error("transparency log checkpoints stalled: appends refused", "err", cause)
}

// resume ends a stall that a published checkpoint of size leaves resolves.
func (l *Log) resume(size uint64) {
	l.pmu.Lock()
	defer l.pmu.Unlock()
	if l.stalled == nil || size < l.stallSize {
		return
	}
	l.cfg.Logger.Info("transparency log checkpoints published again: appends resume", "size", size, "stalled", time.Since(l.stallAt))
	l.stalled = nil
	l.stallc = make(chan struct{})
}

// stallErr is the stall's error, nil while checkpoints are published.
func (l *Log) stallErr() error {
	l.pmu.Lock()
	defer l.pmu.Unlock()
	return l.stalled
}

// refusal is the error appends get: the pipeline's failure, else the
// stall's; nil while the log takes appends. pmu must be held.
func (l *Log) refusal() error {
	if l.failed != nil {
		return l.failed
	}
	return l.stalled
}

// shutdownTessera runs tessera's shutdown, which waits for a checkpoint
// covering every leaf it integrated, until ctx ends or publication stalls
// (that checkpoint cannot be signed).
func (l *Log) shutdownTessera(ctx context.Context) error {
	l.pmu.Lock()
	stallc := l.stallc
	l.pmu.Unlock()
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-stallc:
			cancel()
		case <-sctx.Done():
		}
	}()
	err := within(sctx, func() error { return l.shutdown(sctx) })
	if err != nil {
		if serr := l.stallErr(); serr != nil {
			return stalledClose(serr)
		}
	}
	return err
}

// stalledClose is Close's error when publication stalled.
func stalledClose(stalled error) error {
	return fmt.Errorf("the tree holds every journaled leaf, but no signed checkpoint covers them yet (the next Open publishes one once signing works): %w", stalled)
}
