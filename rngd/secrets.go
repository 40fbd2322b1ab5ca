package rngd

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	bolt "go.etcd.io/bbolt"

	"tirage.fr/tirage/verifier/record"
)

// The secret store is a bbolt file of its own, secrets.db in the data
// directory: the one thing rngd keeps that the log cannot give back, each
// unfinished game's secret r (the log reveals r only in the game's end
// record). Two buckets:
//
//	secrets   game id → r (32 bytes), from before the start is drawn to the end
//	reserve   H(r) (record.Commit, 32 bytes) → r: secrets drawn ahead and
//	          committed, not yet given to a game (take)
//
// A start must not be drawn before its r is durable, and it need not wait
// for a commit for that: its r comes from the reserve, drawn from the DRBG
// and committed ahead, reserveSize at a time, and its move to the game's id
// is committed behind (the writer lingers, as the state store's does). A
// crash before that commit leaves r in the reserve, where the start
// record's commitment H(r) finds it (reserved): Open moves it to its game
// and drops the rest of the reserve (dropOrphanSecrets), so that no secret is
// ever given to two games. Before, every start waited for a commit of the
// secrets handed over meanwhile, two fdatasyncs each, on the disk the log's
// journal syncs to. A rebuild of state.db from the log leaves this file
// alone.

// errSecretsFailed wraps the secret store's failure for every later change.
var errSecretsFailed = errors.New("the secret store failed; restart rngd")

// secretStore is secrets.db and its writer.
type secretStore struct {
	writer
	// draw reads n bytes of the DRBG (engine.random), which the reserve's
	// secrets come from.
	draw func(n int) ([]byte, error)

	refill  sync.Mutex  // held by the one refill at a time
	filling atomic.Bool // a refill runs in the background
	poolMu  sync.Mutex
	pool    []reserveEntry // the reserve's secrets as committed, none yet taken
}

// reserveEntry is a secret of the reserve and its commitment H(r), its key.
type reserveEntry struct{ r, c [32]byte }

// reserveSize is how many secrets a refill draws and commits; the next
// refill starts in the background once half of them are taken.
const reserveSize = 128

// secretsLinger is how long the secret store's writer lets a batch nobody
// waits for grow: the moves of taken secrets to their games (a crash
// before their commit loses none, see take) and the drops of ended games'.
const secretsLinger = 250 * time.Millisecond

func openSecrets(path string) (*secretStore, error) {
	db, err := openBolt(path, "secret store", 0, func(tx *bolt.Tx) error {
		if _, err := tx.CreateBucketIfNotExists(bucketSecrets); err != nil {
			return err
		}
		_, err := tx.CreateBucketIfNotExists(bucketReserve)
		return err
	})
	if errors.Is(err, errStoreCorrupt) {
		// Not to be moved aside as state.db is: nothing makes it again.
		return nil, fmt.Errorf("%w: it holds the secrets r of the games in play, which the log reveals only at their end: restore it from a backup; a game whose secret is lost can only be refunded (docs/rngd.md, SECRET_LOST)", err)
	}
	if err != nil {
		return nil, err
	}
	s := &secretStore{writer: writer{db: db, failure: errSecretsFailed, linger: secretsLinger}}
	s.start()
	return s, nil
}

// take gives game id a secret r that is already durable: one of the
// reserve's, whose move to id it hands to the writer without waiting
// (until committed, reserved finds r by its commitment). It refills the
// reserve first when it is empty, and in the background when half of it
// is taken. A refill's error (the DRBG's, the writer's) is returned as is.
func (s *secretStore) take(id string) ([32]byte, error) {
	var e reserveEntry
	for {
		s.poolMu.Lock()
		n := len(s.pool)
		if n > 0 {
			e, s.pool[n-1] = s.pool[n-1], reserveEntry{}
			s.pool = s.pool[:n-1]
		}
		s.poolMu.Unlock()
		if n > 0 {
			if n-1 < reserveSize/2 && s.filling.CompareAndSwap(false, true) {
				go func() {
					defer s.filling.Store(false)
					s.fill() // a failure is the DRBG's or the writer's alarm
				}()
			}
			break
		}
		if err := s.fill(); err != nil {
			return [32]byte{}, err
		}
	}
	return e.r, s.hand(storeWrite{fn: func(tx *bolt.Tx) error {
		if err := tx.Bucket(bucketSecrets).Put([]byte(id), e.r[:]); err != nil {
			return err
		}
		return tx.Bucket(bucketReserve).Delete(e.c[:])
	}}, false, nil)
}

// fill draws reserveSize secrets, commits them to the reserve and adds
// them to the pool, unless the pool holds half of that already (another
// refill came first).
func (s *secretStore) fill() error {
	s.refill.Lock()
	defer s.refill.Unlock()
	s.poolMu.Lock()
	n := len(s.pool)
	s.poolMu.Unlock()
	if n >= reserveSize/2 {
		return nil
	}
	rnd, err := s.draw(32 * reserveSize)
	if err != nil {
		return err
	}
	fresh := make([]reserveEntry, reserveSize)
	for i := range fresh {
		e := &fresh[i]
		copy(e.r[:], rnd[32*i:])
		e.c = record.Commit(e.r)
	}
	clear(rnd)
	err = s.hand(storeWrite{fn: func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketReserve)
		for _, e := range fresh {
			if err := b.Put(e.c[:], e.r[:]); err != nil {
				return err
			}
		}
		return nil
	}}, true, nil)
	if err != nil {
		clear(fresh)
		return err
	}
	s.poolMu.Lock()
	s.pool = append(s.pool, fresh...)
	s.poolMu.Unlock()
	return nil
}

// reserved returns the reserve's secret whose commitment H(r) is c, as
// committed: that of a start whose move to its game (take) is not
// committed yet, or was lost in a crash.
func (s *secretStore) reserved(c [32]byte) (r [32]byte, ok bool, err error) {
	err = s.db.View(func(tx *bolt.Tx) error {
		v := tx.Bucket(bucketReserve).Get(c[:])
		if ok = len(v) == 32; ok {
			copy(r[:], v)
		}
		return nil
	})
	return r, ok && record.Commit(r) == c, err
}

// keep commits game id's secret r, and returns once it is durable.
func (s *secretStore) keep(id string, r [32]byte) error {
	return s.hand(storeWrite{fn: func(tx *bolt.Tx) error {
		return tx.Bucket(bucketSecrets).Put([]byte(id), r[:])
	}}, true, nil)
}

// drop forgets the secrets of ended games (their end records reveal them),
// without waiting.
func (s *secretStore) drop(ids ...string) error {
	return s.hand(storeWrite{fn: func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketSecrets)
		for _, id := range ids {
			if err := b.Delete([]byte(id)); err != nil {
				return err
			}
		}
		return nil
	}}, false, nil)
}

// get returns game id's secret, once every change handed over is committed.
func (s *secretStore) get(id string) (r [32]byte, ok bool, err error) {
	if err := s.sync(); err != nil {
		return r, false, err
	}
	return s.read(id)
}

// read returns game id's secret as committed, without waiting for the
// writer.
func (s *secretStore) read(id string) (r [32]byte, ok bool, err error) {
	err = s.readAll([]string{id}, func(_ int, v [32]byte, found bool) { r, ok = v, found })
	return r, ok, err
}

// readAll reads the secret of each game of ids as committed, in one
// transaction, without waiting for the writer: got(i, r, ok) for ids[i].
func (s *secretStore) readAll(ids []string, got func(i int, r [32]byte, ok bool)) error {
	return s.db.View(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketSecrets)
		for i, id := range ids {
			var r [32]byte
			v := b.Get([]byte(id))
			ok := len(v) == 32
			if ok {
				copy(r[:], v)
			}
			got(i, r, ok)
		}
		return nil
	})
}

// moveSecrets moves the secrets an older state.db kept in its own secrets
// bucket (store format 3 and before) into the secret store: committed there
// first, then deleted from state.db, so that a crash between the two
// leaves them in both, and the next start moves them again.
func moveSecrets(st *store, sec *secretStore) error {
	var keys, vals [][]byte
	var found bool
	err := st.db.View(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketSecrets)
		if found = b != nil; !found {
			return nil
		}
		return b.ForEach(func(k, v []byte) error {
			keys, vals = append(keys, bytes.Clone(k)), append(vals, bytes.Clone(v))
			return nil
		})
	})
	if err != nil {
		// Not "nothing to move": the secrets would stay behind, and the
		// draws of their games be refused (SECRET_LOST).
		return fmt.Errorf("couldn't move the secrets to the secret store: reading state.db: %w", err)
	}
	if !found {
		return nil
	}
	err = sec.hand(storeWrite{fn: func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketSecrets)
		for i := range keys {
			if err := b.Put(keys[i], vals[i]); err != nil {
				return err
			}
		}
		return nil
	}}, true, nil)
	if err != nil {
		return fmt.Errorf("couldn't move the secrets to the secret store: %w", err)
	}
	err = st.db.Update(func(tx *bolt.Tx) error { return tx.DeleteBucket(bucketSecrets) })
	if err != nil {
		return fmt.Errorf("couldn't move the secrets to the secret store: %w", err)
	}
	return nil
}

// scrubSecrets takes out of state.db the secrets r an older rngd wrote into
// its games in play (storedGame.Secret, before putGame left it out): each is
// kept in the secret store first (it may be the only copy left, if
// secrets.db was lost), then the game is stored again without it. It reads
// only the games in play.
func scrubSecrets(st *store, sec *secretStore) error {
	var games []*storedGame
	err := st.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketUnfinished).ForEach(func(k, _ []byte) error {
			_, id, _ := strings.Cut(string(k), "\x00")
			sg := new(storedGame)
			if ok, err := getStoredGame(tx, []byte(id), sg); err != nil || !ok {
				return err
			}
			if !sg.Ended && sg.Secret != ([32]byte{}) {
				games = append(games, sg)
			}
			return nil
		})
	})
	if err != nil || len(games) == 0 {
		return err
	}
	for _, sg := range games {
		if _, ok, err := sec.read(sg.Game.ID); err != nil {
			return err
		} else if !ok {
			if err := sec.keep(sg.Game.ID, sg.Secret); err != nil {
				return err
			}
		}
	}
	err = st.db.Update(func(tx *bolt.Tx) error {
		for _, sg := range games {
			if err := putGame(tx, sg, false); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("couldn't take the secrets out of the state store: %w", err)
	}
	return nil
}
