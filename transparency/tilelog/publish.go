package tilelog

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"time"

	"github.com/transparency-dev/tessera/api/layout"
	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"

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
//   - an integrated leaf waits longer than Config.CheckpointTimeout for a
//     checkpoint covering it (checkPublished, every half checkpoint
//     interval; waits), whatever the cause: a signer that hangs or is slow
//     rather than fails, a checkpoint file that cannot be written,
//     tessera's publisher gone. Tessera publishes when the file is older
//     than an interval on the wall clock: a clock stepped back by X stops
//     publication, and stalls the log, for about X.
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
//
// A timeout set below minCheckpointTimeoutIntervals intervals is refused
// (Open): with the checks every half interval, a checkpoint merely one or
// two intervals late would stall the log (rngd's config has the same rule).
const (
	checkpointTimeoutIntervals    = 10
	minCheckpointTimeout          = 10 * time.Second
	minCheckpointTimeoutIntervals = 3
)

// DefaultCheckpointTimeout is Config.CheckpointTimeout's default for a
// checkpoint interval: checkpointTimeoutIntervals intervals, at least
// minCheckpointTimeout.
func DefaultCheckpointTimeout(interval time.Duration) time.Duration {
	return max(checkpointTimeoutIntervals*interval, minCheckpointTimeout)
}

// watchedSigner is a checkpoint signer that reports its failures to the
// log at once: tessera only logs them. It signs only a tree proven
// consistent with the last one signed (approve).
type watchedSigner struct {
	note.Signer
	l *Log
}

func (s watchedSigner) Sign(msg []byte) ([]byte, error) {
	if err := s.l.approve(msg); err != nil {
		return nil, err
	}
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

// Forks. Tessera builds each new root from the right-edge tiles it reads
// back from disk: a partial tile corrupted or tampered with there (anyone
// who can write the data directory) is folded into the next root, a tree
// that does not extend the checkpoints already signed. So before the log's
// keys sign a checkpoint, approve proves its tree consistent with the last
// tree they signed (or the checkpoint verified at Open): the same root for
// the same size, else a consistency proof read from the tiles,
// authenticated against the new root, checked against the old one
// (proveConsistent, O(log n) hashes from a few tile reads per checkpoint,
// nothing on the append path). A tree that is not consistent is never
// signed: the log records a security failure (securityFile) and fails
// closed (fail), and tessera's retries get the same refusal. A proof that
// cannot be read (a disk error, a tile missing) refuses that signature
// only: tessera retries at the next interval, and checkPublished stalls
// the log if that lasts. readCheckpoint makes the same check of every
// published checkpoint that replaces the one it cached.

// errFork is in the error of a tree that is not proven consistent with a
// checkpoint signed before it (proveConsistent).
var errFork = errors.New("tree not consistent with a checkpoint signed before it")

// approve lets the checkpoint keys sign msg, the text of a checkpoint,
// once its tree is proven consistent with the last one signed.
func (l *Log) approve(msg []byte) error {
	origin, size, root, err := checkpoint.ParseText(string(msg))
	if err != nil {
		return fmt.Errorf("tilelog: refusing to sign a message that is no checkpoint: %w", err)
	}
	if origin != l.cfg.Origin {
		return fmt.Errorf("tilelog: refusing to sign a checkpoint of origin %q: the log is %q", origin, l.cfg.Origin)
	}
	next := tlog.Tree{N: int64(size), Hash: root}
	l.signMu.Lock()
	defer l.signMu.Unlock()
	if l.forked != nil {
		return l.forked
	}
	if l.signed == nil || *l.signed == next {
		l.signed = &next
		return nil
	}
	if err := l.proveConsistent(*l.signed, next); err != nil {
		if !errors.Is(err, transparency.ErrSecurity) {
			l.cfg.Logger.Warn("transparency log: checkpoint not signed, tessera retries", "size", size, "err", err)
			return fmt.Errorf("tilelog: refusing to sign the checkpoint of %d leaves: %w", size, err)
		}
		l.forked = fmt.Errorf("tilelog: %w", l.recordSecurity(fmt.Errorf("refused to sign the checkpoint of %d leaves: %w", size, err)))
		l.fail(l.forked)
		return l.forked
	}
	l.signed = &next
	return nil
}

// proveConsistent checks that the tree next extends old, both trees of
// checkpoints verified or about to be signed, with a consistency proof
// read from the tiles and authenticated against next. Its error wraps
// transparency.ErrSecurity and errFork when next is proven not to extend
// old, or when the tiles do not authenticate against next (no proof can be
// had from them); transparency.ErrUnavailable when they cannot be read.
func (l *Log) proveConsistent(old, next tlog.Tree) error {
	switch {
	case next.N < old.N:
		return fmt.Errorf("%w: %w: the tree went back from %d to %d leaves", transparency.ErrSecurity, errFork, old.N, next.N)
	case next.N == old.N:
		if next.Hash != old.Hash {
			return fmt.Errorf("%w: %w: two roots for %d leaves, %v then %v", transparency.ErrSecurity, errFork, old.N, old.Hash, next.Hash)
		}
		return nil
	case old.N == 0:
		return nil
	}
	p, err := tlog.ProveTree(next.N, old.N, tlog.TileHashReader(next, (*checkReader)(l)))
	if err != nil {
		if errors.Is(err, transparency.ErrUnavailable) || errors.Is(err, transparency.ErrNotFound) {
			return fmt.Errorf("%w: couldn't read the proof of tree %d in tree %d: %w", transparency.ErrUnavailable, old.N, next.N, err)
		}
		return fmt.Errorf("%w: %w: the tiles do not authenticate against the tree of %d leaves %v: %w", transparency.ErrSecurity, errFork, next.N, next.Hash, err)
	}
	if err := tlog.CheckTree(p, next.N, next.Hash, old.N, old.Hash); err != nil {
		return fmt.Errorf("%w: %w: the tree of %d leaves %v does not extend the tree of %d leaves %v: %w", transparency.ErrSecurity, errFork, next.N, next.Hash, old.N, old.Hash, err)
	}
	return nil
}

// checkReader is tileReader without its cache's writes: proveConsistent
// authenticates tiles against a tree not yet known to extend the signed
// ones, which must not be cached for the reads authenticated against them.
type checkReader Log

func (r *checkReader) Height() int { return (*tileReader)(r).Height() }

func (r *checkReader) ReadTiles(tiles []tlog.Tile) ([][]byte, error) {
	return (*tileReader)(r).ReadTiles(tiles)
}

func (r *checkReader) SaveTiles([]tlog.Tile, [][]byte) {}

// publication is what checkPublished last saw (Log.watch).
type publication struct {
	size      uint64    // leaves in the latest published checkpoint read
	published time.Time // its file's modification time
	waits     waits
}

// waits measures how long each integrated leaf has waited for a checkpoint
// covering it, as checkPublished sees it every half interval. One clock for
// every leaf not covered would restart when a checkpoint covers the leaves
// it was started for, forgetting that the leaves integrated meanwhile have
// waited too: under a signer just slower than half the bound, a leaf could
// wait twice the bound without a stall. So it keeps a mark per check that
// saw the tree grow — the integrated size and when it was first seen — and
// a leaf has waited at least since the first mark covering it: the bound
// holds per leaf, give or take one check period.
type waits struct {
	marks   []mark    // ascending sizes, each beyond the published size
	checked time.Time // when the previous check ended (checkPublished)
}

// oldest is the oldest mark not covered: zero size while the checkpoint
// covers the tree.
func (w *waits) oldest() mark {
	if len(w.marks) == 0 {
		return mark{}
	}
	return w.marks[0]
}

type mark struct {
	size uint64    // leaves integrated
	seen time.Time // when a check first saw them in the tree
}

// observe records a check, begun at now, that saw integrated leaves in the
// tree and published ones covered by the latest checkpoint, and returns
// the oldest mark not covered (zero while the checkpoint covers the tree).
//
// Time the watcher did not observe is not counted: when more than pause
// passed since the previous check ended (the process stopped, a VM paused:
// tessera could not publish either), the marks move forward by that gap,
// so a checkpoint merely late for the pause raises no stall; a normal gap
// is under a check period, so at most that much more is forgiven. The gap
// is measured from the previous check's end, so a checkpoint read that
// hangs (a disk, not a pause) is counted.
//
// At most maxMarks are kept: a new one when full merges the two oldest,
// whose leaves then count from the older time (a stall can only come
// sooner). A full ring spans maxMarks-1 checks, about the bound already.
func (w *waits) observe(now time.Time, integrated, published uint64, pause time.Duration, maxMarks int) mark {
	covered := 0
	for covered < len(w.marks) && w.marks[covered].size <= published {
		covered++
	}
	w.marks = append(w.marks[:0], w.marks[covered:]...)
	if gap := now.Sub(w.checked); !w.checked.IsZero() && gap > pause {
		for i := range w.marks {
			w.marks[i].seen = w.marks[i].seen.Add(gap)
		}
	}
	if integrated > published && (len(w.marks) == 0 || integrated > w.marks[len(w.marks)-1].size) {
		if len(w.marks) >= max(maxMarks, 2) {
			w.marks[1].seen = w.marks[0].seen
			w.marks = append(w.marks[:0], w.marks[1:]...)
		}
		w.marks = append(w.marks, mark{size: integrated, seen: now})
	}
	return w.oldest()
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
	w, oldest := l.watch, l.watch.waits.oldest() // marks shares checkPublished's array
	l.watchMu.Unlock()
	out := Lag{Size: w.size, Published: w.published}
	if s := l.sequenced.Load(); s > w.size {
		out.Unsigned = s - w.size
	}
	if oldest.size > 0 {
		out.Waiting = time.Since(oldest.seen)
	}
	out.Stalled = l.stallErr() != nil
	return out
}

// checkPublished reads the published checkpoint, ends a stall it resolves
// and starts one when an integrated leaf has waited past the bound (waits).
// It runs every half checkpoint interval until Close (Open: l.every), and
// reads the file holding no lock Close or Lag takes (a hung disk).
func (l *Log) checkPublished(now time.Time) {
	// Not latest: the watch goes on while Close waits for tessera.
	cp, err := l.readCheckpoint(pollInterval)
	if errors.Is(err, errFork) {
		// Signed, yet not extending the checkpoint before it: reopening
		// would go on from it.
		l.fail(l.recordSecurity(err))
		return
	}
	if errors.Is(err, transparency.ErrSecurity) {
		l.fail(err)
		return
	}
	// The file's time only for a new size (below), read holding no lock.
	l.watchMu.Lock()
	newSize := err == nil && (cp.Size != l.watch.size || l.watch.published.IsZero())
	l.watchMu.Unlock()
	var modTime time.Time
	if newSize {
		if fi, serr := os.Stat(filepath.Join(l.tilesDir, layout.CheckpointPath)); serr == nil {
			modTime = fi.ModTime()
		}
	}
	integrated := l.integrated.Load()
	period := l.cfg.CheckpointInterval / 2
	l.watchMu.Lock()
	w := &l.watch
	if newSize { // unchanged since: only this check writes the watch
		w.size = cp.Size
		if !modTime.IsZero() {
			w.published = modTime
		}
	}
	oldest := w.waits.observe(now, integrated, w.size, l.cfg.CheckpointTimeout/2, int(l.cfg.CheckpointTimeout/period)+2)
	w.waits.checked = time.Now()
	seen := w.waits.marks
	size, late := w.size, oldest.size > 0 && now.Sub(oldest.seen) > l.cfg.CheckpointTimeout
	var until uint64
	if late {
		until = seen[len(seen)-1].size
	}
	l.watchMu.Unlock()

	l.resume(size)
	if late {
		cause := fmt.Errorf("no checkpoint covering leaf %d published within %v (the latest covers %d leaves)", oldest.size-1, l.cfg.CheckpointTimeout, size)
		if err != nil {
			cause = fmt.Errorf("%w; reading it: %w", cause, err)
		}
		// Tessera only logs why it could not publish; a checkpoint that
		// cannot be written (a full disk) is told here, in the error
		// Health and every refused append carry (rngd's log and rngctl
		// qod status show it), rather than left to be taken for a key
		// failure. Probed once, when the stall begins.
		if l.stallErr() == nil {
			if werr := probeWritable(l.tilesDir); werr != nil {
				cause = fmt.Errorf("%w; the checkpoint's directory %s cannot be written: %w", cause, l.tilesDir, werr)
			}
		}
		// Until the tree seen is covered: ending at the late leaf would
		// stall again at once for the next.
		l.stall(until, cause)
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
	if n, err := removeCheckpointTemps(l.tilesDir); n > 0 || err != nil {
		l.cfg.Logger.Info("transparency log: temporary checkpoint files of failed publications removed", "count", n, "err", err)
	}
}

// probeWritable writes and syncs a small file in dir, as a checkpoint is
// written, and removes it: nil when a checkpoint could be written there.
func probeWritable(dir string) error {
	f, err := os.CreateTemp(dir, ".probe-")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	_, err = f.Write(make([]byte, 512))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// checkpointTemp is the name of tessera's temporary checkpoint file: the
// checkpoint's name and a random number (posix createTemp).
var checkpointTemp = regexp.MustCompile(`^` + regexp.QuoteMeta(layout.CheckpointPath) + `[0-9]+$`)

// removeCheckpointTemps deletes tessera's temporary checkpoint files in
// tiles. Tessera v1.0.4 leaves one behind at every publication whose write
// fails (createTemp clears the name it then tries to remove): during a
// full-disk stall, one per checkpoint interval, never removed. They are
// never read: a checkpoint is published by renaming its temporary file.
// Called at Open, before tessera starts, and when a stall ends: a
// publication writing its temporary file then would see it removed and
// fail, to be retried at the next interval; the published checkpoint is
// never touched.
func removeCheckpointTemps(tiles string) (int, error) {
	ents, err := os.ReadDir(tiles)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return 0, nil
		}
		return 0, err
	}
	n := 0
	for _, e := range ents {
		if !e.Type().IsRegular() || !checkpointTemp.MatchString(e.Name()) {
			continue
		}
		if err := os.Remove(filepath.Join(tiles, e.Name())); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return n, err
		}
		n++
	}
	return n, nil
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
