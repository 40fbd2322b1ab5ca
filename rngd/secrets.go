package rngd

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	bolt "go.etcd.io/bbolt"
)

// The secret store is a bbolt file of its own, secrets.db in the data
// directory: the one thing rngd keeps that the log cannot give back, each
// unfinished game's secret r (the log reveals r only in the game's end
// record). One bucket:
//
//	secrets   game id → r (32 bytes), from before the start is drawn to the end
//
// It is apart from state.db for the start's sake: a start waits, before it
// is drawn, until its r is committed, and a commit of this file holds only
// the secrets handed over meanwhile (a few pages), where a commit of
// state.db holds every call's records and replies. A start then waits for
// a small commit, not behind the state store's large ones. A rebuild of
// state.db from the log leaves this file alone.

// errSecretsFailed wraps the secret store's failure for every later change.
var errSecretsFailed = errors.New("the secret store failed; restart rngd")

// secretStore is secrets.db and its writer.
type secretStore struct {
	writer
}

func openSecrets(path string) (*secretStore, error) {
	db, err := openBolt(path, "secret store", func(tx *bolt.Tx) error {
		_, err := tx.CreateBucketIfNotExists(bucketSecrets)
		return err
	})
	if errors.Is(err, errStoreCorrupt) {
		// Not to be moved aside as state.db is: nothing makes it again.
		return nil, fmt.Errorf("%w: it holds the secrets r of the games in play, which the log reveals only at their end: restore it from a backup; a game whose secret is lost can only be refunded (docs/rngd.md, SECRET_LOST)", err)
	}
	if err != nil {
		return nil, err
	}
	s := &secretStore{writer{db: db, failure: errSecretsFailed}}
	s.start()
	return s, nil
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
			if ok, err := getJSON(tx, bucketGames, []byte(id), sg); err != nil || !ok {
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
