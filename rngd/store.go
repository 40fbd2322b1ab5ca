package rngd

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"
)

// The state store is a bbolt file, state.db, in the data directory. It is a
// cache of the log: everything in it can be rebuilt by replaying the log
// (see [Rebuild]). One bbolt transaction holds everything a call changes —
// the game, its receipt, the request id's reply and the count of applied log
// records — so a reply is stored exactly when the state it reports is.
//
// Buckets:
//
//	meta        "applied" → count of log records applied (uint64, big endian)
//	emissions   emission id → JSON emission
//	tickets     SHA-256(code) → JSON ticket (emission, stake, game once played)
//	games       game id → JSON game
//	receipts    game id ‖ 0x00 ‖ seq (uint32 BE) → proto Receipt
//	requests    record.RequestID(server, request id) → digest (32) ‖ time (8) ‖ proto reply
//	unfinished  server ‖ 0x00 ‖ game id → expiry (unix seconds, BE)
//	secrets     game id → r (32 bytes)
//
// The secrets bucket holds what the log does not (each unfinished game's
// secret r, which the log only reveals at the game's end): Rebuild keeps it.
// Rebuild also keeps the requests bucket and adds to it the reply of every
// call whose records carry its request identity ("req", "req_digest"), so a
// retry after a crash between the append and the store's commit gets its
// original reply.
var (
	bucketMeta       = []byte("meta")
	bucketEmissions  = []byte("emissions")
	bucketTickets    = []byte("tickets")
	bucketGames      = []byte("games")
	bucketReceipts   = []byte("receipts")
	bucketRequests   = []byte("requests")
	bucketUnfinished = []byte("unfinished")
	bucketSecrets    = []byte("secrets")
	keyApplied       = []byte("applied")
)

type store struct {
	db *bolt.DB
}

// errStoreLocked means another process (a running rngd) holds the state store.
var errStoreLocked = errors.New("the state store is in use by another process (is rngd running?)")

func openStore(path string) (*store, error) {
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: 2 * time.Second})
	if err != nil {
		if errors.Is(err, bolterrors.ErrTimeout) {
			return nil, fmt.Errorf("couldn't open %s: %w", path, errStoreLocked)
		}
		return nil, fmt.Errorf("couldn't open the state store: %w", err)
	}
	// Concurrent calls for different games are committed together (one
	// fsync per batch): the store's group commit.
	db.MaxBatchDelay = 2 * time.Millisecond
	err = db.Update(func(tx *bolt.Tx) error {
		for _, b := range [][]byte{bucketMeta, bucketEmissions, bucketTickets, bucketGames, bucketReceipts, bucketRequests, bucketUnfinished, bucketSecrets} {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("couldn't initialise the state store: %w", err)
	}
	return &store{db: db}, nil
}

func (s *store) close() error { return s.db.Close() }

func u64(v uint64) []byte { return binary.BigEndian.AppendUint64(nil, v) }

func beUint64(b []byte) uint64 { return binary.BigEndian.Uint64(b) }

func joinKey(a string, b []byte) []byte {
	k := make([]byte, 0, len(a)+1+len(b))
	k = append(k, a...)
	k = append(k, 0)
	return append(k, b...)
}

// appliedCount returns the number of log records the store has applied.
func appliedCount(tx *bolt.Tx) uint64 {
	v := tx.Bucket(bucketMeta).Get(keyApplied)
	if len(v) != 8 {
		return 0
	}
	return binary.BigEndian.Uint64(v)
}

// markApplied counts n more applied log records.
func markApplied(tx *bolt.Tx, n uint64) error {
	return tx.Bucket(bucketMeta).Put(keyApplied, u64(appliedCount(tx)+n))
}

func getJSON(tx *bolt.Tx, bucket, key []byte, v any) (bool, error) {
	raw := tx.Bucket(bucket).Get(key)
	if raw == nil {
		return false, nil
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return true, fmt.Errorf("corrupt %s entry %x: %w", bucket, key, err)
	}
	return true, nil
}

func putJSON(tx *bolt.Tx, bucket, key []byte, v any) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return tx.Bucket(bucket).Put(key, raw)
}

// storedRequest is what the store keeps of a mutating call: the digest of its
// content, when it was answered, and its reply.
type storedRequest struct {
	digest [32]byte
	at     int64 // unix seconds
	reply  []byte
}

// Value layout: digest (32) ‖ at (8, big endian) ‖ reply.
const requestHeader = 32 + 8

func getRequest(tx *bolt.Tx, req [32]byte) (storedRequest, bool) {
	raw := tx.Bucket(bucketRequests).Get(req[:])
	if len(raw) < requestHeader {
		return storedRequest{}, false
	}
	var r storedRequest
	copy(r.digest[:], raw)
	r.at = int64(beUint64(raw[32:]))
	r.reply = bytes.Clone(raw[requestHeader:])
	return r, true
}

func putRequest(tx *bolt.Tx, req [32]byte, r storedRequest) error {
	v := make([]byte, 0, requestHeader+len(r.reply))
	v = append(v, r.digest[:]...)
	v = binary.BigEndian.AppendUint64(v, uint64(r.at))
	v = append(v, r.reply...)
	return tx.Bucket(bucketRequests).Put(req[:], v)
}

// pruneRequests deletes the replies stored before cutoff, at most limit of
// them, and returns how many it deleted.
func (s *store) pruneRequests(cutoff time.Time, limit int) (int, error) {
	n := 0
	err := s.db.Update(func(tx *bolt.Tx) error {
		c := tx.Bucket(bucketRequests).Cursor()
		for k, v := c.First(); k != nil && n < limit; k, v = c.Next() {
			if len(v) >= requestHeader && int64(beUint64(v[32:])) < cutoff.Unix() {
				if err := c.Delete(); err != nil {
					return err
				}
				n++
			}
		}
		return nil
	})
	return n, err
}

func receiptKey(gameID string, seq uint32) []byte {
	return binary.BigEndian.AppendUint32(joinKey(gameID, nil), seq)
}
