package tilelog

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/transparency-dev/tessera"

	"tirage.fr/tirage/transparency"
	"tirage.fr/tirage/transparency/atomicfile"
)

// The append pipeline. Append queues its leaf and waits; journalLoop takes
// everything queued (while appends keep arriving during its writes, at most
// once per Config.JournalInterval), journals it with one fsync and
// acknowledges each leaf with its index; integrateLoop hands the journaled
// leaves to tessera, in order, as they come; confirmLoop waits for
// tessera's futures in the same order and checks that tessera gave each leaf its journal index (tessera's
// queue flushes batches one at a time, in order, and integrateLoop is its
// only writer). Any failure stops the pipeline: appends are refused from
// then on (fail closed) until the log is reopened, which replays the
// journal; but a leaf tessera put at another index than the journal's is a
// security failure, recorded durably (securityFile), and the log no longer
// opens.

// busyHold is how long journalLoop keeps spacing its groups after appends
// last arrived during one of its writes: under steady concurrent load, a
// write often ends with nothing queued, and the next append, taken at once,
// would be a group of its own.
const busyHold = 100 * time.Millisecond

// integrateQueue bounds the journaled groups waiting for tessera: more than
// the journal writes (at most one group a JournalInterval, 250 a second at
// rngd's 4 ms) while integrateLoop waits for one batch (up to BatchMaxAge
// and its integration), so that the journal never waits for it.
const integrateQueue = 4096

// maxLag bounds the leaves journaled but not yet integrated by tessera: past
// it, journalLoop waits for tessera, and appends with it. So appends are
// acknowledged no faster, over time, than tessera integrates them, and a
// crash leaves at most that many leaves to replay. The bound Open uses is
// at least twice BatchMaxSize: one batch in tessera, the next gathering;
// with less, the journal would wait out each batch's age. An acknowledged
// leaf is then in the tree within about two batch ages.
const maxLag = 8192

// MaxBatchSize bounds Config.BatchMaxSize: the leaves journaled ahead of the
// tree (twice a batch) are held in memory.
const MaxBatchSize = 1 << 16

type appendReq struct {
	leaf []byte
	done chan appendResult
	at   time.Time // when Append queued it (watchAppends)
}

type appendResult struct {
	index uint64
	err   error
}

// journaled is a group of consecutive journaled leaves.
type journaled struct {
	first  uint64
	leaves [][]byte
}

// recover opens the journal, checks the journaled leaves tessera holds
// already against its entry bundles, and has tessera integrate, before any
// new append, the ones it does not hold yet. They go through the pipeline
// (integrateLoop and confirmLoop, started, journalLoop not yet) one tessera
// batch at a time, each confirmed before the next is added: with the whole
// tail in tessera at once, a flush could overtake another (integrateLoop).
func (l *Log) recover(ctx context.Context, reader tessera.LogReader) error {
	size, err := reader.IntegratedSize(ctx)
	if err != nil {
		return fmt.Errorf("tilelog: %w: couldn't read the tree size: %w", transparency.ErrUnavailable, err)
	}
	j, recs, err := openJournal(filepath.Join(l.cfg.Dir, journalDir), size, l.cfg.Logger)
	if err != nil {
		return fmt.Errorf("tilelog: %w", err)
	}
	l.journal = j
	j.synced = l.cfg.JournalSynced
	if l.cfg.segmentBytes > 0 {
		j.maxSegment = l.cfg.segmentBytes
	}
	l.integrated.Store(size)
	l.sequenced.Store(j.next)
	held, tail := splitRecords(recs, size)
	if err := l.checkIntegrated(held, size); err != nil {
		return err
	}
	if len(tail) > 0 {
		g := journaled{first: tail[0].index, leaves: make([][]byte, len(tail))}
		for i, r := range tail {
			g.leaves[i] = r.leaf
		}
		l.integrate <- g
		if err := l.awaitIntegrated(g.first + uint64(len(tail))); err != nil {
			return err // Open's failure path stops the pipeline and closes the journal
		}
		l.cfg.Logger.Info("transparency log: journaled leaves integrated", "count", len(tail), "from", size)
	}
	return nil
}

// checkIntegrated checks that tessera holds each of recs, the journaled
// leaves below size (a tree of size leaves) not yet trimmed, at its journal
// index. One elsewhere was acknowledged with an index the tree contradicts:
// tessera misplaced it, and the failure was not seen or not remembered
// (a crash before securityFile was written).
func (l *Log) checkIntegrated(recs []journalRecord, size uint64) error {
	for len(recs) > 0 {
		// A run of consecutive indices: a segment that reappeared after a
		// crash may be followed by a gap (openJournal).
		n := 1
		for n < len(recs) && recs[n].index == recs[0].index+uint64(n) {
			n++
		}
		leaves, err := l.readEntries(recs[0].index, recs[0].index+uint64(n), size)
		if err != nil {
			return fmt.Errorf("tilelog: couldn't check the integrated journaled leaves against the tree: %w", err)
		}
		for i, r := range recs[:n] {
			if !bytes.Equal(leaves[i], r.leaf) {
				return fmt.Errorf("tilelog: %w", l.recordSecurity(fmt.Errorf("%w: the tree holds another leaf at index %d than the one journaled (and acknowledged) there", transparency.ErrSecurity, r.index)))
			}
		}
		recs = recs[n:]
	}
	return nil
}

// securityFile, in Config.Dir, records a security failure: tessera put an
// acknowledged leaf at another index than the journal's (the tree, and
// maybe published checkpoints, contradict receipts), the log was asked to
// sign, or published, a checkpoint that does not extend the one signed
// before it (approve, checkPublished), or an entry does not match its leaf
// hash (refreshIndex). Open refuses the log while it exists
// (checkSecurityFile); an operator must investigate.
const securityFile = "SECURITY-FAILURE"

// recordSecurity writes the security failure err to securityFile, durably,
// and returns it.
func (l *Log) recordSecurity(err error) error {
	path := filepath.Join(l.cfg.Dir, securityFile)
	msg := fmt.Sprintf("%s %s\n", time.Now().UTC().Format(time.RFC3339), err)
	if werr := atomicfile.Write(path, []byte(msg), 0o600); werr != nil {
		l.cfg.Logger.Error("transparency log: couldn't record a security failure", "file", path, "err", werr)
		return fmt.Errorf("%w (and couldn't record it in %s: %w)", err, path, werr)
	}
	return err
}

// checkSecurityFile refuses a log whose securityFile exists.
func checkSecurityFile(dir string) error {
	path := filepath.Join(dir, securityFile)
	raw, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("tilelog: %w: %w", transparency.ErrUnavailable, err)
	}
	return fmt.Errorf("tilelog: %w: the log refuses to open: %s records a security failure (%s). "+
		"Keep the directory as it is for investigation and move to a new log (new directory and origin); "+
		"delete the file only once the tree has been checked against the journal and the receipts (docs/transparency.md)",
		transparency.ErrSecurity, path, bytes.TrimSpace(raw))
}

// fail stops the pipeline with err (the first failure is kept).
func (l *Log) fail(err error) error {
	l.pmu.Lock()
	defer l.pmu.Unlock()
	if l.failed == nil {
		if errors.Is(err, transparency.ErrSecurity) {
			// Never mixed with an outage (ErrUnavailable): reopening
			// does not end it (securityFile).
			l.failed = fmt.Errorf("tilelog: %w (appends are refused, and the log refuses to open again: see its %s file)", err, securityFile)
		} else {
			l.failed = fmt.Errorf("tilelog: %w: %w (appends are refused until the log is reopened)", transparency.ErrUnavailable, err)
		}
		l.cfg.Logger.Error("transparency log append pipeline stopped", "err", err)
		close(l.failedc)
		l.caughtUp.Broadcast()
	}
	return l.failed
}

func (l *Log) journalLoop() {
	defer close(l.journalDone)
	defer close(l.integrate)
	var last time.Time // when the last group was taken
	// busy: until then, the journal has concurrent appenders (appends
	// arrived while a group was written, within busyHold). Only then are
	// groups spaced (space): an appender alone, who appends again once
	// acknowledged, is never held back.
	var busy time.Time
	for range l.wake {
		for {
			if time.Now().Before(busy) {
				l.space(last)
			}
			l.pmu.Lock()
			batch, stopping, failed := l.queue, l.stopping(), l.refusal()
			l.queue = nil
			l.writing = oldest(batch)
			l.pmu.Unlock()
			if len(batch) == 0 {
				if stopping {
					return
				}
				break
			}
			last = time.Now()
			if failed == nil {
				// Waiting for tessera may end with the pipeline failed
				// (an append timed out meanwhile, its caller told the
				// leaf was not journaled) or checkpoints stalled: the
				// batch is then refused, not journaled.
				failed = l.awaitTessera()
			}
			if failed != nil {
				for _, r := range batch {
					r.done <- appendResult{err: transparency.NotAppended(failed)}
				}
				l.answered()
				continue
			}
			leaves := make([][]byte, len(batch))
			for i, r := range batch {
				leaves[i] = r.leaf
			}
			if l.cfg.beforeWrite != nil {
				l.cfg.beforeWrite()
			}
			first, err := l.journal.write(leaves)
			l.pmu.Lock()
			if len(l.queue) > 0 {
				busy = time.Now().Add(busyHold)
			}
			l.pmu.Unlock()
			if err != nil {
				err = l.fail(err)
			} else {
				l.sequenced.Store(l.journal.next)
				// Before the answers: an appender that sees its leaf
				// acknowledged sees the lag it made (the tests).
				l.lagSeen = max(l.lagSeen, l.journal.next-l.integrated.Load())
			}
			for i, r := range batch {
				r.done <- appendResult{index: first + uint64(i), err: err}
			}
			l.answered()
			if err != nil {
				continue
			}
			// A stalled tessera must not hold the journal (Close waits
			// for journalLoop): once the pipeline failed, the journal
			// keeps the group for the next Open.
			select {
			case l.integrate <- journaled{first: first, leaves: leaves}:
			case <-l.failedc:
			}
			if err := l.journal.trim(l.integrated.Load()); err != nil {
				l.fail(err)
			}
		}
	}
}

// oldest is when the first of a group's appends was queued (zero for none).
func oldest(batch []appendReq) time.Time {
	var t time.Time
	for _, r := range batch {
		if t.IsZero() || r.at.Before(t) {
			t = r.at
		}
	}
	return t
}

// answered notes that journalLoop has answered its group.
func (l *Log) answered() {
	l.pmu.Lock()
	l.writing = time.Time{}
	l.pmu.Unlock()
}

func errAppendTimeout(d time.Duration) error {
	return fmt.Errorf("append: leaf not journaled within %v (journal or tessera stalled)", d)
}

// watchAppends is the appends' timeout: every tenth of AppendTimeout it
// looks at the oldest append not yet answered, queued or in the group
// journalLoop holds, and once one has waited AppendTimeout it fails the
// log and wakes every waiting Append (timedOut). A stalled journal or
// tessera so fails the log closed even when every caller gave up first
// (a deadline of its own). It returns then, or once journalLoop has
// returned: every append queued is answered by then, and later ones are
// refused (stopping).
func (l *Log) watchAppends() {
	defer l.bg.Done()
	t := time.NewTicker(max(l.cfg.AppendTimeout/10, time.Millisecond))
	defer t.Stop()
	for {
		select {
		case <-l.journalDone:
			return
		case now := <-t.C:
			if l.overdue(now) {
				l.fail(errAppendTimeout(l.cfg.AppendTimeout))
				close(l.timedOut)
				return
			}
		}
	}
}

// overdue reports whether an append not yet answered was queued
// AppendTimeout or more before now.
func (l *Log) overdue(now time.Time) bool {
	l.pmu.Lock()
	defer l.pmu.Unlock()
	t := l.writing
	if q := oldest(l.queue); !q.IsZero() && (t.IsZero() || q.Before(t)) {
		t = q
	}
	return !t.IsZero() && now.Sub(t) >= l.cfg.AppendTimeout
}

// space holds journalLoop's next group until JournalInterval has passed
// since the last one was taken (last), so that the appends arriving
// meanwhile share its fsync; it does not wait when nothing is queued, nor
// once Close has begun (stopc). journalLoop spaces groups only while
// appends arrive during its writes (busy, busyHold): concurrent appenders,
// whose next appends are likely within the interval. It does not listen
// to wake: the queue, once it holds an append, only grows until
// journalLoop takes it, so the appends arriving meanwhile have nothing to
// tell it, and each would wake it (about 20 a group at rngd's half of
// peak: a goroutine, often a thread, woken for nothing).
func (l *Log) space(last time.Time) {
	wait := time.Until(last.Add(l.cfg.JournalInterval))
	if wait <= 0 {
		return
	}
	l.pmu.Lock()
	idle := len(l.queue) == 0
	l.pmu.Unlock()
	if idle {
		return
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-t.C:
	case <-l.stopc:
	}
}

// stopping reports whether Close has begun (stopc).
func (l *Log) stopping() bool {
	select {
	case <-l.stopc:
		return true
	default:
		return false
	}
}

// awaitTessera waits while tessera is maxLag leaves or more behind the
// journal, or until the pipeline fails: it returns what refuses appends
// (refusal), nil when the journal may go on.
func (l *Log) awaitTessera() error {
	l.pmu.Lock()
	defer l.pmu.Unlock()
	for l.journal.next-l.integrated.Load() >= l.cfg.maxLag && l.failed == nil {
		l.caughtUp.Wait()
	}
	return l.refusal()
}

// integrateLoop adds the journaled leaves to tessera, every group waiting,
// one tessera batch (BatchMaxSize leaves at most) at a time: it waits until
// confirmLoop has confirmed a batch before it adds more. Tessera's queue (v1.0.4) takes a batch under its lock but hands it
// to storage after unlocking: a batch flushed by its timer, on a goroutine
// the scheduler delays, can be sequenced after a later one flushed by size
// or by the next timer, and the leaves then get other indices than the
// journal's (confirm fails the log closed: seen once under heavy load,
// "tessera gave journaled leaf 358 the index 359"). Handed at most a batch
// (BatchMaxSize) at a time, each confirmed before the next, tessera flushes
// none by size and holds one batch, unless adding that batch takes longer
// than its BatchMaxAge: its timer then flushes a first part, on a goroutine
// of its own, and the rest can overtake that part only if this goroutine
// is held another BatchMaxAge between taking the part and handing it over
// (two stalls of BatchMaxAge within one batch: rare, adding is in memory;
// confirm catches it, a security failure). The batches grow with the load: whatever the
// journal wrote meanwhile goes in the next.
func (l *Log) integrateLoop(ctx context.Context) {
	defer close(l.futures)
	for g := range l.integrate {
		groups := []journaled{g}
	more:
		for {
			select {
			case g, ok := <-l.integrate:
				if !ok {
					break more
				}
				groups = append(groups, g)
			default:
				break more
			}
		}
		l.pmu.Lock()
		failed := l.failed
		l.pmu.Unlock()
		if failed != nil {
			continue // the journal keeps them for the next Open
		}
		// More leaves than a batch would make tessera flush one by size
		// while the rest waits for its timer: two batches in tessera.
		var end uint64
		n := uint(0)
	add:
		for _, g := range groups {
			for i, leaf := range g.leaves {
				if n == l.cfg.BatchMaxSize {
					if l.awaitIntegrated(end) != nil {
						break add // the journal keeps the rest for the next Open
					}
					n = 0
				}
				end = g.first + uint64(i) + 1
				l.futures <- pendingLeaf{index: end - 1, future: l.add(ctx, tessera.NewEntry(leaf))}
				n++
			}
		}
		l.awaitIntegrated(end)
	}
}

// awaitIntegrated waits until confirmLoop has confirmed every leaf below
// end, or the pipeline fails (its failure).
func (l *Log) awaitIntegrated(end uint64) error {
	l.pmu.Lock()
	defer l.pmu.Unlock()
	for l.integrated.Load() < end && l.failed == nil {
		l.caughtUp.Wait()
	}
	return l.failed
}

// pendingLeaf is a journaled leaf handed to tessera.
type pendingLeaf struct {
	index  uint64
	future tessera.IndexFuture
}

// confirmLoop confirms the leaves integrateLoop added, in order, and reports
// tessera's progress to journalLoop (maxLag).
func (l *Log) confirmLoop() {
	defer close(l.pipelineDone)
	n := 0
	for p := range l.futures {
		if err := l.confirm(p); err != nil {
			l.fail(err)
			for range l.futures { // the journal keeps them for the next Open
			}
			return
		}
		// Tessera resolves a batch's futures together, once the batch is
		// durable: report progress batch by batch.
		if n++; n%int(l.cfg.BatchMaxSize) == 0 || len(l.futures) == 0 {
			l.pmu.Lock()
			l.integrated.Store(p.index + 1)
			l.caughtUp.Broadcast()
			l.pmu.Unlock()
		}
	}
}

// confirm waits until tessera has durably integrated p at its journal index.
func (l *Log) confirm(p pendingLeaf) error {
	idx, err := p.future()
	if err != nil {
		return fmt.Errorf("tessera couldn't integrate journaled leaf %d: %w", p.index, err)
	}
	if idx.Index != p.index {
		return l.recordSecurity(fmt.Errorf("%w: tessera gave journaled (and acknowledged) leaf %d the index %d", transparency.ErrSecurity, p.index, idx.Index))
	}
	return nil
}
