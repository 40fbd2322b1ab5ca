package rngd

import (
	"errors"
	"fmt"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"
)

// writer is a bbolt file's group commit. Calls hand it their changes; one
// goroutine applies them in the order handed over, every change handed
// over meanwhile in one transaction (one fsync for all), and tells the
// calls that wait. After a failed commit it applies nothing more: every
// later change gets the failure (fail closed), until the file is reopened.
type writer struct {
	db *bolt.DB
	// failure wraps the first failure for every later change.
	failure error
	// onFail is told of the first failure (alarm and log).
	onFail func(error)
	// finish, when set, ends each batch's transaction (the state store's
	// prefix); committed, when set, runs under mu once a batch is
	// committed (the state store's pending replies).
	finish    func(tx *bolt.Tx, batch []storeWrite) error
	committed func(batch []storeWrite)
	// linger, when set, lets a batch nobody waits for grow for up to that
	// long (or to lingerMax changes) before it is committed: under load
	// one transaction then writes each game's pages once for many of its
	// calls, not once per call. A change whose call waits, a sync, a view
	// or close commits at once.
	linger time.Duration

	mu      sync.Mutex
	cond    sync.Cond
	queue   []storeWrite
	queued  uint64 // changes handed over so far
	applied uint64 // of which committed (or failed)
	closed  bool
	failed  error
	exited  chan struct{}
	urgent  int       // changes queued whose calls wait, and syncs waiting
	since   time.Time // when the oldest change queued was handed over
	timer   *time.Timer
}

// lingerMax bounds a lingering batch.
const lingerMax = 4096

// storeWrite is one call's change.
type storeWrite struct {
	fn      func(*bolt.Tx) error
	indices []uint64 // log indices of the records it applies
	// game, when not nil, is the game's new state, which the state
	// store's finish writes once per batch (the last one handed over), not
	// fn: a game's later calls in the batch supersede it.
	game *storedGame
	req  [32]byte // its request key, when pending holds its reply
	// reply, when not nil, is the reply the store's pending map holds
	// under req until the commit (store.write): a later change may hold
	// another there by then (the same call stored again: resumeCut).
	reply *storedRequest
	// started, when not empty, is the game a start played ticket with:
	// the store's started map holds it until the commit.
	ticket  [32]byte
	started string
	done    chan error // nil when the call does not wait
}

// start starts w's goroutine.
func (w *writer) start() {
	w.exited = make(chan struct{})
	if w.onFail == nil {
		w.onFail = func(error) {}
	}
	w.cond.L = &w.mu
	go w.run()
}

func (w *writer) run() {
	defer close(w.exited)
	// spare is the array of the batch before, emptied: the queue fills it
	// next, instead of growing a new one from nothing each batch (a batch
	// holds thousands of changes at peak).
	var spare []storeWrite
	for {
		w.mu.Lock()
		for !w.due() {
			w.cond.Wait()
		}
		if len(w.queue) == 0 {
			w.mu.Unlock()
			return
		}
		batch, upto, err := w.queue, w.queued, w.failed
		w.queue = spare
		for _, c := range batch {
			if c.done != nil {
				w.urgent--
			}
		}
		w.mu.Unlock()
		if err == nil {
			err = w.db.Update(func(tx *bolt.Tx) error {
				for _, c := range batch {
					if err := c.fn(tx); err != nil {
						return err
					}
				}
				if w.finish != nil {
					return w.finish(tx, batch)
				}
				return nil
			})
			if err != nil {
				err = fmt.Errorf("%w: %w", w.failure, err)
			}
		}
		w.mu.Lock()
		if err != nil && w.failed == nil {
			w.failed = err
			w.onFail(err)
		}
		if err == nil && w.committed != nil {
			w.committed(batch)
		}
		w.applied = upto
		w.cond.Broadcast()
		w.mu.Unlock()
		for _, c := range batch {
			if c.done != nil {
				c.done <- err
			}
		}
		clear(batch) // its games, replies and funcs are garbage now
		spare = batch[:0]
	}
}

// due says, under mu, whether run takes the queue now (or, with nothing
// queued and closed, exits). A lingering batch arms a timer that wakes run
// when it is due.
func (w *writer) due() bool {
	switch {
	case len(w.queue) == 0:
		return w.closed
	case w.closed, w.urgent > 0, len(w.queue) >= lingerMax:
		return true
	}
	left := w.linger - time.Since(w.since)
	if left <= 0 {
		return true
	}
	if w.timer == nil {
		w.timer = time.AfterFunc(left, func() {
			w.mu.Lock()
			w.cond.Broadcast()
			w.mu.Unlock()
		})
	} else {
		w.timer.Reset(left)
	}
	return false
}

// hand queues c, after running add under mu (when not nil), and returns,
// when wait, once c is committed.
func (w *writer) hand(c storeWrite, wait bool, add func()) error {
	if wait {
		c.done = make(chan error, 1)
	}
	w.mu.Lock()
	if err := w.failed; err != nil {
		w.mu.Unlock()
		return err
	}
	if w.closed {
		w.mu.Unlock()
		return errors.New("the store is closed")
	}
	if add != nil {
		add()
	}
	if len(w.queue) == 0 {
		w.since = time.Now()
	}
	w.queue = append(w.queue, c)
	w.queued++
	if wait {
		w.urgent++
	}
	// run waits for a first change, or for a lingering batch to be due:
	// only what can end its wait wakes it.
	if len(w.queue) == 1 || wait || len(w.queue) >= lingerMax {
		w.cond.Broadcast()
	}
	w.mu.Unlock()
	if wait {
		return <-c.done
	}
	return nil
}

// readFailed records that a read of the file could not begin (closed
// under the daemon, its mapping lost): the writer's failure, as a commit's
// would be, told to onFail once; later changes are refused. It returns the
// failure.
func (w *writer) readFailed(err error) error {
	err = fmt.Errorf("%w: a read of the file could not begin: %w", w.failure, err)
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.failed == nil {
		w.failed = err
		if w.onFail != nil { // nil until start
			w.onFail(err)
		}
		w.cond.Broadcast()
	}
	return err
}

// read runs fn in a read transaction of the file, without waiting for the
// queue; a transaction that cannot begin is readFailed.
func (w *writer) read(fn func(*bolt.Tx) error) error {
	tx, err := w.db.Begin(false)
	if err != nil {
		return w.readFailed(err)
	}
	defer tx.Rollback()
	return fn(tx)
}

// health is the writer's failure, if any.
func (w *writer) health() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.failed
}

// sync waits until every change handed over so far is committed.
func (w *writer) sync() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	target := w.queued
	if w.applied < target && w.failed == nil {
		w.urgent++
		w.cond.Broadcast()
		for w.applied < target && w.failed == nil {
			w.cond.Wait()
		}
		w.urgent--
	}
	return w.failed
}

// close commits what is queued, then closes the file.
func (w *writer) close() error {
	w.mu.Lock()
	w.closed = true
	w.cond.Broadcast()
	w.mu.Unlock()
	<-w.exited
	return w.db.Close()
}
