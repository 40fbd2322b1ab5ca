package rngd

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	bolt "go.etcd.io/bbolt"

	"tirage.fr/tirage/internal/hashindex"
	"tirage.fr/tirage/transparency/atomicfile"
)

// The replies of mutating calls, by request key (record.RequestID of the
// game server and its request id), are kept in the state store in the order
// they were stored, and found through an index beside it.
//
// A B+tree keyed by request key (the "requests" bucket of formats up to 6)
// puts each new key on a page of its own once the tree is much larger than
// a commit: the store's commits then rewrote about a page for every call,
// and the more so the longer the daemon had run (the writer's CPU per draw
// grew from 25 µs with 50,000 draws stored to 35 µs at a million, against
// 15 and 18 µs with ordered keys; docs/rngd.md, Figures). Now:
//
//	request-log   seq (8, BE) → request key (32) ‖ the value encodeRequest
//	              makes: appended in order, so a commit writes the last pages
//	              (and requests-by-time, time ‖ seq, for the sweeper)
//	request-meta  "next" → the next seq (8, BE); "id" → the store's id (16),
//	              new at every open: Rebuild leaves this bucket and
//	              request-log alone
//
// The index maps each request key to the seq of its latest reply:
// immutable sorted runs (internal/hashindex) in the data directory's
// requests-<id>/, covering the seqs [0, next), and, above next, a map in
// memory of the replies committed since (recent), which a background flush
// writes as a run every requestFlush replies. Open fills the map again from
// request-log. The index is derived data: the directory is named after the
// store's id, so an index left by another state.db (one moved aside, then
// rebuilt from the log) is removed, and an index covering seqs the store
// does not have (a state.db restored from a copy) is rebuilt from
// request-log. The id changes at every open (the directory renamed with
// it): two copies of one state.db that both went on from it (a copy put
// back and run, then the other put back) give the same seqs to other
// requests, and the index of one, though it covers no seq the other lacks,
// would miss the other's replies there. A request key the index names is checked against the
// request log's entry: a mismatch is the store's corruption, never "no
// such request" (which would let a retry draw again).
var (
	bucketRequestLog  = []byte("request-log")
	bucketRequestMeta = []byte("request-meta")
	keyNext           = []byte("next")
	keyStoreID        = []byte("id")
)

// requestFlush is how many replies the index keeps in memory before it
// writes them as a run.
const requestFlush = 16384

// requestBatch bounds one run written while the index catches up (a
// rebuilt index).
const requestBatch = 1 << 18

// requestIndexPrefix names the index's directory: requestIndexPrefix + the
// store's id in hex.
const requestIndexPrefix = "requests-"

// requestIndex is the index of request-log. Its recent map and indexed are
// guarded by the store's mu, as pending is.
type requestIndex struct {
	x *hashindex.Index
	// mu is held for reading by lookups in the runs, and for writing while
	// a damaged run is removed and its replies indexed again, so that no
	// lookup misses them meanwhile.
	mu sync.RWMutex
	// fmu serialises flushes.
	fmu sync.Mutex
	// broken is the failure of a flush that removed damaged runs and could
	// not index their replies again: lookups fail until one succeeds.
	broken atomic.Pointer[error]
	// floor tells the seqs request-log no longer holds (pruned), whose
	// entries merges drop (Options.Keep); set when the store opens and
	// after each prune that deleted replies.
	floor atomic.Pointer[requestFloor]
	// legacy: the requests bucket of an older format still holds replies.
	legacy atomic.Bool

	recent  map[[32]byte]uint64 // guarded by store.mu: replies committed at or above indexed
	indexed uint64              // guarded by store.mu: the runs cover the seqs below it
	// tx is the write transaction that last stored a reply, and txPuts
	// the seqs of the replies it stored, by request key: until it commits
	// (committedTx moves them to recent), neither recent nor the runs hold
	// them, and locate in that transaction (a rebuild's keepsReply,
	// which must see the reply it stored for an earlier record) finds them
	// there. Guarded by store.mu; a transaction rolled back is never
	// current again (tx keeps it from being reused).
	tx     *bolt.Tx
	txPuts map[[32]byte]uint64
	// txNext is the seq of tx's next reply: request-meta's next as tx
	// left it, read once a transaction.
	txNext uint64

	kick   chan struct{}
	cancel context.CancelFunc
	done   chan struct{}
	// onErr is told of a flush that failed (alarm and log; set once the
	// engine is made, while the flusher runs); the replies stay in memory
	// meanwhile, and are found.
	onErr atomic.Pointer[func(error)]
}

// openRequests opens the request index of s, whose state.db is in dir:
// the store's new id and its next seq, its index (rebuilt when it is not
// this store's), the replies above it read into memory.
func (s *store) openRequests(dir string) error {
	var old, id []byte
	var next uint64
	var floor *requestFloor
	var legacy bool
	err := s.db.Update(func(tx *bolt.Tx) error {
		rm := tx.Bucket(bucketRequestMeta)
		old = bytes.Clone(rm.Get(keyStoreID))
		id = make([]byte, 16)
		rand.Read(id)
		if err := rm.Put(keyStoreID, id); err != nil {
			return err
		}
		next = storedUint64(rm.Get(keyNext))
		floor, legacy = readFloor(tx), legacyLeft(tx)
		return nil
	})
	if err != nil {
		return fmt.Errorf("couldn't read the state store's request meta: %w", err)
	}
	q := &requestIndex{recent: map[[32]byte]uint64{}, kick: make(chan struct{}, 1), done: make(chan struct{})}
	q.floor.Store(floor)
	q.legacy.Store(legacy)
	name := requestIndexPrefix + hex.EncodeToString(id)
	if err := renameIndex(dir, old, name); err != nil {
		return err
	}
	if err := removeOtherIndexes(dir, name); err != nil {
		return err
	}
	q.x, err = hashindex.Open(filepath.Join(dir, name), hashindex.Options{
		Latest: true,
		Filter: true,
		Keep:   func(seq uint64) bool { return q.floor.Load().holds(seq) },
		Err: func(err error) error {
			return fmt.Errorf("state store request index %s: %w", filepath.Join(dir, name), err)
		},
	})
	if err != nil {
		return err
	}
	s.reqs = q
	if n, err := q.x.Next(); err != nil {
		return err
	} else if n > next {
		// Seqs the store never gave: the index of a later copy of this
		// state.db.
		if err := q.x.Reset(); err != nil {
			return err
		}
	}
	// Caught up in runs (merged by the flusher), then the rest into
	// memory.
	if err := s.flushRequests(context.Background(), requestFlush); err != nil {
		return err
	}
	indexed, err := q.x.Next()
	if err != nil {
		return err
	}
	err = s.db.View(func(tx *bolt.Tx) error {
		return eachLogged(tx, indexed, math.MaxUint64, func(req [32]byte, seq uint64) { q.recent[req] = seq })
	})
	if err != nil {
		return err
	}
	q.indexed = indexed
	ctx, cancel := context.WithCancel(context.Background())
	q.cancel = cancel
	go s.flusher(ctx)
	return nil
}

// renameIndex renames the request index of the store's previous id, if
// any, to name (the new id's, committed), durably. A crash before the
// rename leaves the index under a name no id of the store's names: the
// next open removes it and indexes request-log again.
func renameIndex(dir string, old []byte, name string) error {
	if len(old) != 16 {
		return nil
	}
	err := os.Rename(filepath.Join(dir, requestIndexPrefix+hex.EncodeToString(old)), filepath.Join(dir, name))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err == nil {
		err = atomicfile.SyncDir(dir)
	}
	if err != nil {
		return fmt.Errorf("couldn't rename the state store's request index: %w", err)
	}
	return nil
}

// removeOtherIndexes removes the request indexes in dir but name's.
func removeOtherIndexes(dir, name string) error {
	des, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("couldn't read the data directory: %w", err)
	}
	for _, de := range des {
		if strings.HasPrefix(de.Name(), requestIndexPrefix) && de.Name() != name {
			if err := os.RemoveAll(filepath.Join(dir, de.Name())); err != nil {
				return fmt.Errorf("couldn't remove another state store's request index: %w", err)
			}
		}
	}
	return nil
}

// flusher writes the replies in memory as runs when asked (kick), and
// merges the runs, until ctx is done.
func (s *store) flusher(ctx context.Context) {
	q := s.reqs
	defer close(q.done)
	for {
		select {
		case <-ctx.Done():
			return
		case <-q.kick:
		}
		err := s.flushRequests(ctx, requestFlush)
		if err == nil {
			err = q.x.Compact(ctx)
		}
		if err != nil && ctx.Err() == nil {
			if onErr := q.onErr.Load(); onErr != nil {
				(*onErr)(err)
			}
			// Retried once a second, until it succeeds (every
			// commit asks again meanwhile).
			select {
			case <-ctx.Done():
				return
			case <-time.After(requestRetry):
			}
			q.flushSoon()
		}
	}
}

// requestRetry spaces the flushes of the request index after one failed.
const requestRetry = time.Second

// flushRequests writes as runs the replies of request-log from the index's
// next seq, while at least atLeast of them are not yet in runs, and drops
// them from memory. A damaged run (a lookup or a merge found a block that
// does not match its checksum) is first removed, with the runs after it,
// and their replies indexed again, lookups waiting meanwhile: none may
// miss a reply (a retry would draw again). Until that succeeds, lookups
// fail.
func (s *store) flushRequests(ctx context.Context, atLeast uint64) error {
	q := s.reqs
	q.fmu.Lock()
	defer q.fmu.Unlock()
	q.mu.Lock()
	path, _, err := q.x.Repair()
	if path == "" && err == nil && q.broken.Load() == nil {
		q.mu.Unlock()
		return s.indexRequests(ctx, atLeast)
	}
	defer q.mu.Unlock()
	if err == nil {
		err = s.indexRequests(ctx, 1)
	}
	if err != nil {
		q.broken.Store(&err)
		return err
	}
	q.broken.Store(nil)
	return nil
}

// indexRequests writes as runs the replies of request-log from the index's
// next seq, while at least atLeast of them are not yet in runs, and drops
// them from memory. Under fmu.
func (s *store) indexRequests(ctx context.Context, atLeast uint64) error {
	q := s.reqs
	for {
		first, err := q.x.Next()
		if err != nil {
			return err
		}
		var end uint64
		var es []hashindex.Entry
		err = s.db.View(func(tx *bolt.Tx) error {
			end = min(storedUint64(tx.Bucket(bucketRequestMeta).Get(keyNext)), first+requestBatch)
			if end < first+atLeast {
				return nil
			}
			return eachLogged(tx, first, end, func(req [32]byte, seq uint64) {
				es = append(es, hashindex.Entry{Hash: req, Value: seq})
			})
		})
		if err != nil || end < first+atLeast {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := q.x.Add(first, end, es); err != nil {
			return err
		}
		s.mu.Lock()
		for _, e := range es {
			if seq, ok := q.recent[e.Hash]; ok && seq == e.Value {
				delete(q.recent, e.Hash)
			}
		}
		q.indexed = end
		s.mu.Unlock()
	}
}

// eachLogged calls fn with the request key and seq of each reply of
// request-log in tx whose seq is in [from, end), in order.
func eachLogged(tx *bolt.Tx, from, end uint64, fn func(req [32]byte, seq uint64)) error {
	c := tx.Bucket(bucketRequestLog).Cursor()
	for k, v := c.Seek(u64(from)); k != nil && beUint64(k) < end; k, v = c.Next() {
		if len(v) < 32 {
			return fmt.Errorf("corrupt %s entry %x: %d bytes", bucketRequestLog, k, len(v))
		}
		fn([32]byte(v), beUint64(k))
	}
	return nil
}

// putRequest stores r, the reply of the request of key req, at the request
// log's next seq. Once tx commits, the index finds it.
func (s *store) putRequest(tx *bolt.Tx, req [32]byte, r storedRequest) error {
	rm := tx.Bucket(bucketRequestMeta)
	// The seq is taken, and the reply noted in txPuts, before the puts: a
	// put that fails fails tx, which is then never current again.
	s.mu.Lock()
	q := s.reqs
	if q.tx != tx {
		q.tx, q.txPuts, q.txNext = tx, map[[32]byte]uint64{}, storedUint64(rm.Get(keyNext))
		tx.OnCommit(func() { s.committedTx(tx) })
	}
	seq := q.txNext
	q.txPuts[req], q.txNext = seq, seq+1
	s.mu.Unlock()
	v := append(req[:], encodeRequest(r)...)
	b := tx.Bucket(bucketRequestLog)
	b.FillPercent = 1 // appended in order: no page is split twice
	if err := b.Put(u64(seq), v); err != nil {
		return err
	}
	if err := rm.Put(keyNext, u64(seq+1)); err != nil {
		return err
	}
	bt := tx.Bucket(bucketReqByTime)
	bt.FillPercent = 1 // in time order, but for a clock set back
	if err := bt.Put(timeKey(r.at, u64(seq)), nil); err != nil {
		return err
	}
	return nil
}

// committedTx notes in memory the replies tx stored, now committed (the
// latest of a request tx stored twice), but those a flush read from the
// file first, and asks for a flush once enough are there. Those of a later
// transaction stay in txPuts.
func (s *store) committedTx(tx *bolt.Tx) {
	q := s.reqs
	s.mu.Lock()
	defer s.mu.Unlock()
	if q.tx != tx {
		return
	}
	var top uint64
	for req, seq := range q.txPuts {
		if seq >= q.indexed {
			q.recent[req] = seq
		}
		top = max(top, seq+1)
	}
	q.tx, q.txPuts = nil, nil
	if top >= q.indexed+requestFlush {
		q.flushSoon()
	}
}

// flushSoon wakes the flusher.
func (q *requestIndex) flushSoon() {
	select {
	case q.kick <- struct{}{}:
	default:
	}
}

// locate is the seq of req's latest reply in the request log, if the
// index holds one: stored by tx (a write transaction, or nil), in memory,
// else in the runs. An error when the index cannot say (never "none" then:
// the call would be made again).
func (q *requestIndex) locate(s *store, tx *bolt.Tx, req [32]byte) (uint64, bool, error) {
	s.mu.Lock()
	seq, ok := q.recent[req]
	if tx != nil && q.tx == tx {
		if put, stored := q.txPuts[req]; stored {
			seq, ok = put, true // stored since: later than recent's
		}
	}
	s.mu.Unlock()
	if ok {
		return seq, true, nil
	}
	q.mu.RLock()
	defer q.mu.RUnlock()
	if broken := q.broken.Load(); broken != nil {
		return 0, false, *broken
	}
	seq, ok, err := q.x.Lookup(req)
	if err != nil {
		q.flushSoon() // which repairs a damaged run
	}
	return seq, ok, err
}

// requestAt reads req's reply at seq in the request log (when located),
// or in an older format's requests bucket.
func (s *store) requestAt(tx *bolt.Tx, req [32]byte, seq uint64, located bool) (storedRequest, bool, error) {
	if located {
		v := tx.Bucket(bucketRequestLog).Get(u64(seq))
		switch {
		case v == nil:
			// Pruned.
		case len(v) < 32 || !bytes.Equal(v[:32], req[:]):
			return storedRequest{}, false, fmt.Errorf("corrupt %s entry %d: not the request %x the index names", bucketRequestLog, seq, req)
		default:
			r, err := decodeRequest(v[32:])
			if err != nil {
				return storedRequest{}, false, fmt.Errorf("corrupt %s entry %d: %w", bucketRequestLog, seq, err)
			}
			return r, true, nil
		}
	}
	if s.reqs.legacy.Load() {
		return getLegacyRequest(tx, req)
	}
	return storedRequest{}, false, nil
}

// pruneRequests deletes the replies stored before cutoff, oldest first, at
// most limit of them, and returns how many it deleted. It reads only the
// entries it deletes, in requests-by-time (time ‖ seq of the request log;
// time ‖ request key of an older format's requests bucket), in one
// transaction: a reply stored with a time ahead of the others (a clock set
// forward, then back) holds up none of those stored after it.
func (s *store) pruneRequests(cutoff time.Time, limit int) (int, error) {
	var n int
	var floor *requestFloor
	var legacy bool
	err := s.db.Update(func(tx *bolt.Tx) error {
		// Collected first, then deleted: a bbolt cursor that deletes
		// may skip the next key (etcd-io/bbolt#146).
		var due [][]byte
		c := tx.Bucket(bucketReqByTime).Cursor()
		for k, _ := c.First(); k != nil && len(due) < limit && prunedAt(int64(beUint64(k)), cutoff); k, _ = c.Next() {
			due = append(due, bytes.Clone(k))
		}
		log, reqs, byTime := tx.Bucket(bucketRequestLog), tx.Bucket(bucketRequests), tx.Bucket(bucketReqByTime)
		for _, k := range due {
			switch len(k) {
			case 8 + 8: // a reply of the request log
				if log.Get(k[8:]) != nil {
					if err := log.Delete(k[8:]); err != nil {
						return err
					}
					n++
				}
			case 8 + 32:
				// An older format's: the request itself goes only if
				// it is the one indexed (stored at that time).
				req := k[8:]
				if v := reqs.Get(req); len(v) >= requestHeader && beUint64(v[32:]) == beUint64(k) {
					if err := reqs.Delete(req); err != nil {
						return err
					}
					n++
				}
			}
			if err := byTime.Delete(k); err != nil {
				return err
			}
		}
		if n > 0 {
			floor = readFloor(tx)
		}
		legacy = legacyLeft(tx)
		return nil
	})
	if err != nil {
		return n, err
	}
	if floor != nil {
		s.reqs.floor.Store(floor)
	}
	s.reqs.legacy.Store(legacy)
	return n, nil
}

// legacyLeft reports whether the requests bucket of an older format still
// holds replies in tx.
func legacyLeft(tx *bolt.Tx) bool {
	k, _ := tx.Bucket(bucketRequests).Cursor().First()
	return k != nil
}

// requestFloorSeqs is how many of the first seqs request-log holds a
// requestFloor lists.
const requestFloorSeqs = 1024

// A requestFloor tells the seqs request-log no longer holds (pruned): those
// below low, but for its first seqs, which may lie far below low: the
// sweeper prunes by time, and a reply stored with a time ahead of those
// after it (a clock set forward, then back) outlives them. With low the
// first seq alone, such a reply held up the merges' dropping of every
// reply pruned after it until its own time came (on disk, and in the
// filters in memory).
type requestFloor struct {
	first []uint64 // request-log's first seqs, at most requestFloorSeqs, ascending
	low   uint64   // request-log holds no seq below it but first's
}

// readFloor reads request-log's floor in tx.
func readFloor(tx *bolt.Tx) *requestFloor {
	f := &requestFloor{low: storedUint64(tx.Bucket(bucketRequestMeta).Get(keyNext))}
	c := tx.Bucket(bucketRequestLog).Cursor()
	k, _ := c.First()
	for ; k != nil && len(f.first) < requestFloorSeqs; k, _ = c.Next() {
		f.first = append(f.first, beUint64(k))
	}
	if k != nil {
		f.low = beUint64(k)
	}
	return f
}

// holds reports whether request-log may hold seq (it did when f was read:
// it holds no seq f says it does not, since seqs are given once).
func (f *requestFloor) holds(seq uint64) bool {
	if seq >= f.low {
		return true
	}
	_, found := slices.BinarySearch(f.first, seq)
	return found
}

// stopFlusher stops the flusher and waits for it.
func (s *store) stopFlusher() {
	if q := s.reqs; q != nil && q.cancel != nil {
		q.cancel()
		<-q.done
	}
}

// closeRequests stops the flusher and closes the index.
func (s *store) closeRequests() error {
	if s.reqs == nil {
		return nil
	}
	s.stopFlusher()
	return s.reqs.x.Close()
}
