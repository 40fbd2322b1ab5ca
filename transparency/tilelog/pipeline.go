package tilelog

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/transparency-dev/tessera"

	"tirage.fr/tirage/transparency"
)

// The append pipeline. Append queues its leaf and waits; journalLoop takes
// everything queued, journals it with one fsync and acknowledges each leaf
// with its index; integrateLoop hands the journaled leaves to tessera, in
// order, as they come; confirmLoop waits for tessera's futures in the same
// order and checks that tessera gave each leaf its journal index (tessera's
// queue flushes batches one at a time, in order, and integrateLoop is its
// only writer). Any failure stops the pipeline: appends are refused from
// then on (fail closed) until the log is reopened, which replays the
// journal.

// integrateQueue bounds the journaled groups waiting for tessera.
const integrateQueue = 256

// maxLag bounds the leaves journaled but not yet integrated by tessera: past
// it, journalLoop waits for tessera, and appends with it. So appends are
// acknowledged no faster, over time, than tessera integrates them; a crash
// leaves at most this many leaves to replay; and an acknowledged leaf is in
// the tree within about maxLag / (tessera's rate) (well under a second here).
const maxLag = 8192

type appendReq struct {
	leaf []byte
	done chan appendResult
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

// recover opens the journal and has tessera integrate, before any new
// append, the journaled leaves it does not hold yet.
func (l *Log) recover(ctx context.Context, reader tessera.LogReader) error {
	size, err := reader.IntegratedSize(ctx)
	if err != nil {
		return fmt.Errorf("tilelog: %w: couldn't read the tree size: %w", transparency.ErrUnavailable, err)
	}
	j, tail, err := openJournal(filepath.Join(l.cfg.Dir, journalDir), size)
	if err != nil {
		return fmt.Errorf("tilelog: %w", err)
	}
	l.journal = j
	l.integrated.Store(size)
	l.sequenced.Store(j.next)
	if len(tail) == 0 {
		return nil
	}
	// Add them all, then confirm them in order.
	pending := make([]pendingLeaf, len(tail))
	for i, r := range tail {
		pending[i] = pendingLeaf{index: r.index, future: l.add(ctx, tessera.NewEntry(r.leaf))}
	}
	for _, p := range pending {
		if err := l.confirm(p); err != nil {
			return err // Open's failure path closes the journal
		}
	}
	l.integrated.Store(size + uint64(len(tail)))
	l.cfg.Logger.Info("transparency log: journaled leaves integrated", "count", len(tail), "from", size)
	return nil
}

// fail stops the pipeline with err (the first failure is kept).
func (l *Log) fail(err error) error {
	l.pmu.Lock()
	defer l.pmu.Unlock()
	if l.failed == nil {
		l.failed = fmt.Errorf("tilelog: %w: %w (appends are refused until the log is reopened)", transparency.ErrUnavailable, err)
		l.cfg.Logger.Error("transparency log append pipeline stopped", "err", err)
		close(l.failedc)
		l.caughtUp.Broadcast()
	}
	return l.failed
}

func (l *Log) journalLoop() {
	defer close(l.journalDone)
	defer close(l.integrate)
	for range l.wake {
		for {
			l.pmu.Lock()
			batch, stopping, failed := l.queue, l.stopping, l.refusal()
			l.queue = nil
			l.pmu.Unlock()
			if len(batch) == 0 {
				if stopping {
					return
				}
				break
			}
			if failed == nil {
				// Waiting for tessera may end with the pipeline failed
				// (an append timed out meanwhile, its caller told the
				// leaf was not journaled) or checkpoints stalled: the
				// batch is then refused, not journaled.
				failed = l.awaitTessera()
			}
			if failed != nil {
				for _, r := range batch {
					r.done <- appendResult{err: failed}
				}
				continue
			}
			leaves := make([][]byte, len(batch))
			for i, r := range batch {
				leaves[i] = r.leaf
			}
			first, err := l.journal.write(leaves)
			if err != nil {
				err = l.fail(err)
			} else {
				l.sequenced.Store(l.journal.next)
			}
			for i, r := range batch {
				r.done <- appendResult{index: first + uint64(i), err: err}
			}
			if err != nil {
				continue
			}
			l.lagSeen = max(l.lagSeen, l.journal.next-l.integrated.Load())
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

// integrateLoop adds the journaled leaves to tessera, every group waiting
// at once, then waits until confirmLoop has confirmed them before it adds
// more. Tessera's queue (v1.0.4) takes a batch under its lock but hands it
// to storage after unlocking: a batch flushed by its timer, on a goroutine
// the scheduler delays, can be sequenced after a later one flushed by size
// or by the next timer, and the leaves then get other indices than the
// journal's (confirm fails the log closed: seen once under heavy load,
// "tessera gave journaled leaf 358 the index 359"). With one batch in
// tessera at a time, no flush can overtake another. The batches grow with
// the load: whatever the journal wrote meanwhile goes in the next.
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
		var end uint64
		for _, g := range groups {
			for i, leaf := range g.leaves {
				l.futures <- pendingLeaf{index: g.first + uint64(i), future: l.add(ctx, tessera.NewEntry(leaf))}
			}
			end = g.first + uint64(len(g.leaves))
		}
		l.awaitIntegrated(end)
	}
}

// awaitIntegrated waits until confirmLoop has confirmed every leaf below
// end, or the pipeline fails.
func (l *Log) awaitIntegrated(end uint64) {
	l.pmu.Lock()
	defer l.pmu.Unlock()
	for l.integrated.Load() < end && l.failed == nil {
		l.caughtUp.Wait()
	}
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
		return fmt.Errorf("%w: tessera gave journaled leaf %d the index %d", transparency.ErrSecurity, p.index, idx.Index)
	}
	return nil
}
