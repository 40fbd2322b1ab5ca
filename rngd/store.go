package rngd

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"
	"google.golang.org/protobuf/proto"
)

// The state store is a bbolt file, state.db, in the data directory. It is a
// cache of the log: everything in it can be rebuilt by replaying the log
// (see [Rebuild]). One bbolt transaction holds everything a call changes —
// the game, its records, the request id's reply and the count of applied log
// records — so a reply is stored exactly when the state it reports is.
//
// It keeps as little as it can, since every byte is written under the draw
// load: a game's records are kept as the log has them (the leaf and its
// index; a receipt is made from them when asked for), and the reply to a
// game call is kept as a reference to the game's records, from which the
// reply is made again on a retry. The leaves are keyed by their log index,
// so that a commit appends them to the last pages of their bucket: keyed by
// game, as format 7 kept them, each game in play dirtied pages of its own,
// which made most of what a commit wrote.
//
// Buckets:
//
//	meta        "applied" → count of log records applied (uint64, big endian)
//	            "prefix"  → n: every log record below index n is applied (uint64, BE)
//	            "format"  → storeFormat (uint64, big endian)
//	emissions   emission id → JSON emission
//	tickets     SHA-256(code) → JSON ticket (emission, stake, game once played,
//	            or its quit once quit: time, log index and game server —
//	            the server is missing from a quit an older rngd stored)
//	games       game id → game, in the compact encoding of gamecodec.go
//	            (a game that a store of format 8 or older stored: JSON,
//	            read as it is)
//	receipts    game id ‖ 0x00 ‖ seq (uint32 BE) → log index (8, BE) of the
//	            game's record seq, whose leaf is in records (a record that a
//	            store of format 7 or older stored: log index ‖ leaf, read as
//	            it is)
//	records     log index (8, BE) → leaf: the games' records
//	request-log seq (8, BE) → request key (32) ‖ value: the replies of
//	            mutating calls in the order they were stored, found through
//	            the request index (requests.go); the request key is
//	            record.RequestID(server, request id); the value is
//	            digest (32) ‖ time (8) ‖ kind (1) ‖ …
//	              kind 0: the proto reply (the operator's calls)
//	              kind 1: first (4, BE) ‖ end (4, BE) ‖ game id: the call sealed
//	                      the game's records first..end-1 (see engine.replyOf)
//	request-meta  "next" → the request log's next seq; "id" → the store's id
//	requests    request key → value: the replies an rngd of format 6 or
//	            older stored, read and pruned until none is left
//	requests-by-time  time (8, BE) ‖ seq (8, BE) of request-log, or
//	            time ‖ request key (32) of requests → empty: the replies in
//	            the order of their times, so that the sweeper prunes the old
//	            ones without reading the others
//	unfinished  server ‖ 0x00 ‖ game id → expiry (unix seconds, BE)
//	attested-builds  executable SHA-256 (32) ‖ configuration file SHA-256 (32)
//	            → log index (8, BE) of the first build attestation logged of
//	            them (LogAttestation; buildAttested)
//
// What the log does not hold, each unfinished game's secret r (the log only
// reveals it at the game's end), is in a file of its own, secrets.db (see
// secretStore), which Rebuild leaves alone. Rebuild keeps the replies
// (request-log, request-meta, requests) and adds the reply of every call
// whose records carry its request identity ("req", "req_digest"), so a
// retry after a crash between the append and the store's commit gets its
// original reply.
var (
	bucketMeta       = []byte("meta")
	bucketEmissions  = []byte("emissions")
	bucketTickets    = []byte("tickets")
	bucketGames      = []byte("games")
	bucketReceipts   = []byte("receipts")
	bucketRecords    = []byte("records")
	bucketRequests   = []byte("requests")
	bucketReqByTime  = []byte("requests-by-time")
	bucketUnfinished = []byte("unfinished")
	bucketSecrets    = []byte("secrets")
	bucketReserve    = []byte("reserve")
	bucketAttested   = []byte("attested-builds")
	keyApplied       = []byte("applied")
	keyFormat        = []byte("format")
	keyPrefix        = []byte("prefix")
)

// storeFormat is the layout above. Format 1 (no "format" key) kept whole
// receipts and whole replies, format 2 had no "prefix", format 3 kept the
// secrets in a bucket of state.db, format 4 had no requests-by-time,
// format 5 had no ticket quit (a ticket's "Quit"), format 6 no request log
// (its replies in requests alone): openStore upgrades them (see upgrade;
// Open moves format 3's secrets to secrets.db, see moveSecrets). Format 6
// is format 5's layout; it is a format of its own so that an older rngd
// refuses the file rather than read a ticket quit as one it may start, and
// format 7 so that one refuses it rather than miss the replies of the
// request log (a retry would draw again). A quit's game server
// (storedQuit.Server) came later within format 6, not as a format of its
// own: an rngd that does not know it ignores it (encoding/json skips
// unknown fields) and loses nothing it reads, and a quit stored without it
// is read as before, its game server taken from the log (getQuit). Format
// 8 keeps new records' leaves in records, by log index: an older rngd
// would find none of them, so it refuses the file; the records a format 7
// or older stored stay where they are, and are read there. Format 9 writes
// the games in a compact encoding (gamecodec.go), which an older rngd would
// take for corrupt JSON; the JSON games of format 8 or older are read as
// they are.
const storeFormat = 9

// store is the bbolt file and its writer. Calls hand their changes to the
// writer, which applies them in order, many calls to a transaction (one
// fsync for all: the store's group commit). A game call's reply does not
// wait for its commit — its records are already durable in the log, which
// is the source of truth, and a crash before the commit leaves the store
// behind the log, which Open then catches up from the log. A game's secret
// r, which the log does not hold until the end, is durable in the secret
// store before its start is drawn (engine.keepSecret, from the store's
// reserve); the operator's changes wait for theirs.
//
// Readers see every change handed over before them: the games in play are
// cached by the engine, the replies of calls not yet committed are kept in
// pending, the tickets played by starts not yet committed in started, and
// every other read waits for the writer to catch up first (view).
type store struct {
	writer
	// upgraded: the file held an older format, whose rest Open rebuilds.
	upgraded bool
	// from is the format the file held when opened (storeFormat for a new
	// file): Open logs an upgrade, after which an older rngd refuses it.
	from    uint64
	pending map[[32]byte]*storedRequest // guarded by mu: replies queued, not yet committed (with msg)
	started map[[32]byte]string         // guarded by mu: tickets played by starts not yet committed → game id
	// prefix is the store's "prefix": the log records below it are all
	// committed; above holds the committed indices at or above it (calls
	// commit in the order they finish, not in log order). Both change
	// only inside write transactions, which bbolt serialises: the writer's
	// and caughtUp's.
	prefix uint64
	above  map[uint64]struct{}
	// reqs indexes the request log (requests.go).
	reqs *requestIndex
}

// storeLinger is how long the state store's writer lets a batch nobody
// waits for grow (see writer.linger): under load a game's state, and the
// pages of its records, are then written once for several of its calls.
// A crash loses at most that much of the store, never of the log: Open
// catches the store up from the log.
const storeLinger = 250 * time.Millisecond

// errStoreFailed wraps the writer's failure for every later change.
var errStoreFailed = errors.New("the state store failed; restart rngd to rebuild it from the log")

// errStoreLocked means another process (a running rngd) holds a store.
var errStoreLocked = errors.New("in use by another process (is rngd running?)")

// errStoreCorrupt means bbolt found a store file corrupt: its callers say
// what the operator does about it.
var errStoreCorrupt = errors.New("is corrupt")

// openBolt opens a bbolt file of the data directory (what names it in
// errors), which one process at a time may hold, and runs init in a write
// transaction. A file bbolt finds corrupt — both meta pages bad, or pages
// it panics on (a freelist or a bucket page gone bad) — is errStoreCorrupt,
// naming the file, not a panic. (After such a panic bbolt may keep the
// file open and locked: rngd exits on the error, which releases it.)
//
// mmap is the size bbolt maps the file with from the start (0: bbolt's
// default, 32 KiB doubled as the file grows). bbolt maps the file anew
// whenever it outgrows its mapping: the commit that grows it waits for the
// reads in progress, holds new ones meanwhile, and the pages read before
// fault in again after it.
func openBolt(path, what string, mmap int, init func(tx *bolt.Tx) error) (db *bolt.DB, err error) {
	defer func() {
		if p := recover(); p != nil {
			if db != nil {
				db.Close()
			}
			db, err = nil, fmt.Errorf("couldn't open the %s: %s %w (%v)", what, path, errStoreCorrupt, p)
		}
	}()
	db, err = bolt.Open(path, 0o600, &bolt.Options{Timeout: 2 * time.Second, InitialMmapSize: mmap})
	switch {
	case errors.Is(err, bolterrors.ErrTimeout):
		return nil, fmt.Errorf("couldn't open %s: %w", path, errStoreLocked)
	case errors.Is(err, bolterrors.ErrInvalid), errors.Is(err, bolterrors.ErrChecksum):
		return nil, fmt.Errorf("couldn't open the %s: %s %w (%w)", what, path, errStoreCorrupt, err)
	case err != nil:
		return nil, fmt.Errorf("couldn't open the %s: %w", what, err)
	}
	if err := db.Update(init); err != nil {
		db.Close()
		return nil, fmt.Errorf("couldn't initialise the %s: %w", what, err)
	}
	return db, nil
}

// stateMmapSize is the mapping state.db is opened with: 1 GiB of address
// space, not of memory (the kernel reads in the pages that are read, as
// with any mapping), so that the store is not mapped anew each time it
// doubles while draws read it (openBolt). Past 1 GiB bbolt grows the
// mapping a GiB at a time. Paced at 2,500 draws a second, the p99 was lower
// in 7 of 8 alternating pairs (mean 9.1 ms against 10.1; docs/rngd.md,
// "2026-12-06 (stop 35)").
const stateMmapSize = 1 << 30

func openStore(path string) (*store, error) {
	var upgraded bool
	var from uint64
	db, err := openBolt(path, "state store", stateMmapSize, func(tx *bolt.Tx) error {
		for _, b := range [][]byte{bucketMeta, bucketEmissions, bucketTickets, bucketGames, bucketReceipts, bucketRecords, bucketRequests, bucketReqByTime, bucketRequestLog, bucketRequestMeta, bucketUnfinished, bucketAttested} {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return err
			}
		}
		var err error
		from, upgraded, err = upgrade(tx)
		return err
	})
	if errors.Is(err, errStoreCorrupt) {
		return nil, fmt.Errorf("%w: move it aside (keep it for the investigation) and start rngd, which rebuilds the state store from the log", err)
	}
	if err != nil {
		return nil, err
	}
	s := &store{writer: writer{db: db, failure: errStoreFailed, linger: storeLinger}, upgraded: upgraded, from: from,
		pending: map[[32]byte]*storedRequest{}, started: map[[32]byte]string{}, above: map[uint64]struct{}{}}
	s.finish, s.committed = s.finishBatch, s.dropPending
	if err := db.View(func(tx *bolt.Tx) error { s.prefix = prefixOf(tx); return nil }); err != nil {
		db.Close()
		return nil, err
	}
	if err := s.openRequests(filepath.Dir(path)); err != nil {
		s.closeRequests()
		db.Close()
		return nil, err
	}
	s.start()
	return s, nil
}

// upgrade brings a store of an older format to storeFormat: format 1's
// stored replies become kind 0; its applied count goes back to 0, so that
// Open rebuilds the rest (games, records, the prefix) from the log. It
// returns the format the store held (storeFormat for a new one) and
// whether it held data of a format that Open must rebuild.
func upgrade(tx *bolt.Tx) (from uint64, rebuild bool, err error) {
	meta := tx.Bucket(bucketMeta)
	format := uint64(1)
	if v := meta.Get(keyFormat); v != nil {
		if len(v) != 8 || beUint64(v) < 2 {
			return 0, false, fmt.Errorf("state store format %x is not a format of rngd's", v)
		}
		if format = beUint64(v); format > storeFormat {
			return 0, false, fmt.Errorf("state store format %d is newer than this rngd reads (up to %d): a newer rngd wrote it; run that rngd, or move state.db aside for this one to rebuild it from the log, if the log holds no record this rngd does not know (docs/rngd.md, Upgrading)", format, storeFormat)
		}
	}
	from = format
	if meta.Get(keyFormat) == nil && meta.Get(keyApplied) == nil {
		from = storeFormat // a new store
	}
	if format == storeFormat {
		return from, false, nil
	}
	if format >= 5 {
		// Format 5 holds no quit, format 6 no request log, format 7 no
		// records bucket and format 8 only JSON games: their replies stay
		// in the requests bucket, read and pruned as before, the request
		// log starts empty, their records stay with their games
		// (gameRecords reads both), and their games stay JSON until they
		// change (getStoredGame reads both).
		return from, false, meta.Put(keyFormat, u64(storeFormat))
	}
	if format >= 3 {
		// Format 3's secrets bucket is moved out by Open (moveSecrets);
		// the rest is as format 6 has it, but for requests-by-time.
		if err := indexLegacyRequests(tx); err != nil {
			return from, false, err
		}
		return from, false, meta.Put(keyFormat, u64(storeFormat))
	}
	if format == 1 {
		b := tx.Bucket(bucketRequests)
		var keys, vals [][]byte
		err := b.ForEach(func(k, v []byte) error {
			if len(v) >= requestHeader {
				nv := append(bytes.Clone(v[:requestHeader]), replyWhole)
				keys, vals = append(keys, bytes.Clone(k)), append(vals, append(nv, v[requestHeader:]...))
			}
			return nil
		})
		if err != nil {
			return from, false, err
		}
		for i := range keys {
			if err := b.Put(keys[i], vals[i]); err != nil {
				return from, false, err
			}
		}
	}
	if err := indexLegacyRequests(tx); err != nil {
		return from, false, err
	}
	old := meta.Get(keyApplied) != nil
	if old {
		if err := meta.Put(keyApplied, u64(0)); err != nil {
			return from, false, err
		}
	}
	if err := meta.Put(keyPrefix, u64(0)); err != nil {
		return from, false, err
	}
	return from, old, meta.Put(keyFormat, u64(storeFormat))
}

// finishBatch ends a batch's transaction: it writes the last state of each
// game the batch's calls left for it (storeWrite.game: one JSON game per
// game and batch, however many of its calls the batch holds), then
// advances the prefix.
func (s *store) finishBatch(tx *bolt.Tx, batch []storeWrite) error {
	last := map[string]int{}
	for i, w := range batch {
		if w.game != nil {
			last[w.game.Game.ID] = i
		}
	}
	for i, w := range batch {
		if w.game != nil && last[w.game.Game.ID] == i {
			if err := putGame(tx, w.game, false); err != nil {
				return err
			}
		}
	}
	return s.advancePrefix(tx, batch)
}

// advancePrefix: the records a batch applied are committed (counted in
// keyApplied once a batch), and the prefix moves past those now all
// committed.
func (s *store) advancePrefix(tx *bolt.Tx, batch []storeWrite) error {
	var n uint64
	for _, w := range batch {
		for _, i := range w.indices {
			s.above[i] = struct{}{}
			n++
		}
	}
	if n == 0 {
		return nil
	}
	if err := markApplied(tx, n); err != nil {
		return err
	}
	for {
		if _, ok := s.above[s.prefix]; !ok {
			break
		}
		delete(s.above, s.prefix)
		s.prefix++
	}
	return tx.Bucket(bucketMeta).Put(keyPrefix, u64(s.prefix))
}

// dropPending forgets the replies and played tickets of a committed batch:
// the store has them. A reply handed over since under the same request
// (the call stored again) stays until its own commit: should that fail,
// the store has only the first.
func (s *store) dropPending(batch []storeWrite) {
	for _, w := range batch {
		if w.reply != nil && s.pending[w.req] == w.reply {
			delete(s.pending, w.req)
		}
		if w.started != "" {
			delete(s.started, w.ticket)
		}
	}
}

// write hands a change to the writer; with wait, it returns once the change
// is committed. w.indices are the log records it applies (for the prefix);
// req, when not nil, is the call's reply (under w.req), and w.started the
// game that played w.ticket: both are kept in memory until then.
func (s *store) write(w storeWrite, req *storedRequest, wait bool) error {
	if req != nil {
		r := *req // its own: dropPending tells it from a later one's
		w.reply = &r
	}
	return s.hand(w, wait, func() {
		if w.reply != nil {
			s.pending[w.req] = w.reply
		}
		if w.started != "" {
			s.started[w.ticket] = w.started
		}
	})
}

// ticket reads a ticket as the calls handed over so far left it, without
// waiting for the writer: a start not yet committed marks it played.
func (s *store) ticket(hash [32]byte) (t storedTicket, found bool, err error) {
	return s.ticketThen(hash, nil)
}

// ticketThen is ticket, and then, when the ticket is found, runs then in
// the same read transaction.
func (s *store) ticketThen(hash [32]byte, then func(tx *bolt.Tx, t storedTicket) error) (t storedTicket, found bool, err error) {
	s.mu.Lock()
	game, started := s.started[hash]
	s.mu.Unlock()
	// The map is read first: a start leaves it only once committed, so
	// what it no longer holds, the file does.
	err = s.read(func(tx *bolt.Tx) error {
		if found, err = getJSON(tx, bucketTickets, hash[:], &t); err != nil || !found || then == nil {
			return err
		}
		return then(tx, t)
	})
	if started {
		t.Game = game
	}
	return t, found, err
}

// close commits what is queued, closes the file and the request index.
func (s *store) close() error {
	s.stopFlusher() // which reads the file
	err := s.writer.close()
	return errors.Join(err, s.closeRequests())
}

// view reads the store once every change handed over so far is committed.
// A read that cannot begin fails the store (writer.read): its error is
// never taken for an empty store.
func (s *store) view(fn func(tx *bolt.Tx) error) error {
	if err := s.sync(); err != nil {
		return err
	}
	return s.read(fn)
}

// request returns the reply stored for req, committed or pending: false
// when there is none, an error when its value is corrupt (requestAt) or
// when the file cannot be read (closed under the daemon): errStoreFailed
// then, never "none", which would make a retry a new call
// (TestRequestStoreUnreadable).
func (s *store) request(req [32]byte) (storedRequest, bool, error) {
	s.mu.Lock()
	p := s.pending[req]
	s.mu.Unlock()
	if p != nil {
		return *p, true, nil
	}
	var r storedRequest
	var ok bool
	seq, located, err := s.reqs.locate(s, nil, req)
	if err != nil {
		return storedRequest{}, false, err
	}
	if !located && !s.reqs.legacy.Load() {
		return storedRequest{}, false, nil // a new request: no read of the file
	}
	var corrupt error
	err = s.read(func(tx *bolt.Tx) error {
		r, ok, corrupt = s.requestAt(tx, req, seq, located)
		return nil
	})
	if err != nil {
		return storedRequest{}, false, fmt.Errorf("couldn't read the reply stored for request %x: %w", req, err)
	}
	return r, ok, corrupt
}

func u64(v uint64) []byte { return binary.BigEndian.AppendUint64(nil, v) }

func beUint64(b []byte) uint64 { return binary.BigEndian.Uint64(b) }

func joinKey(a string, b []byte) []byte {
	k := make([]byte, 0, len(a)+1+len(b))
	k = append(k, a...)
	k = append(k, 0)
	return append(k, b...)
}

// storedUint64 is a count or an index the store keeps (8 bytes, big
// endian): 0 when there is none.
func storedUint64(v []byte) uint64 {
	if len(v) != 8 {
		return 0
	}
	return beUint64(v)
}

// appliedCount returns the number of log records the store has applied.
func appliedCount(tx *bolt.Tx) uint64 {
	return storedUint64(tx.Bucket(bucketMeta).Get(keyApplied))
}

// prefixOf is the stored prefix (0 when there is none).
func prefixOf(tx *bolt.Tx) uint64 {
	return storedUint64(tx.Bucket(bucketMeta).Get(keyPrefix))
}

// caughtUp records in tx, a write transaction, that the store now applies
// every log record below size (after a rebuild or a catch-up).
func (s *store) caughtUp(tx *bolt.Tx, size uint64) error {
	s.prefix = size
	clear(s.above)
	if err := tx.Bucket(bucketMeta).Put(keyApplied, u64(size)); err != nil {
		return err
	}
	return tx.Bucket(bucketMeta).Put(keyPrefix, u64(size))
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
// content, when it was answered, and its reply — whole (reply), or as the
// game records it sealed (game, first, end). While the call is pending, msg
// is its reply.
type storedRequest struct {
	digest     [32]byte
	at         int64 // unix seconds
	reply      []byte
	game       string
	first, end uint32
	msg        proto.Message
}

// Value layout: digest (32) ‖ at (8, big endian) ‖ kind (1) ‖ kind's fields.
const requestHeader = 32 + 8

// Kinds of stored reply.
const (
	replyWhole   = 0 // the reply, proto-encoded
	replyRecords = 1 // first (4) ‖ end (4) ‖ game id
)

// getLegacyRequest returns the request stored for req in the requests
// bucket (formats up to 6): false when there is none, an error when its
// value is not one encodeRequest writes (state.db gone bad: bbolt checks no
// data page), which must not pass for a new request (the call would be
// made again) nor for an empty reply.
func getLegacyRequest(tx *bolt.Tx, req [32]byte) (storedRequest, bool, error) {
	raw := tx.Bucket(bucketRequests).Get(req[:])
	if raw == nil {
		return storedRequest{}, false, nil
	}
	r, err := decodeRequest(raw)
	if err != nil {
		return storedRequest{}, false, fmt.Errorf("corrupt %s entry %x: %w", bucketRequests, req, err)
	}
	return r, true, nil
}

// decodeRequest reads a value of the requests bucket, as encodeRequest
// writes it.
func decodeRequest(raw []byte) (storedRequest, error) {
	if len(raw) < requestHeader+1 {
		return storedRequest{}, fmt.Errorf("%d bytes, fewer than %d", len(raw), requestHeader+1)
	}
	var r storedRequest
	copy(r.digest[:], raw)
	r.at = int64(beUint64(raw[32:]))
	switch body := raw[requestHeader+1:]; raw[requestHeader] {
	case replyWhole:
		r.reply = bytes.Clone(body)
	case replyRecords:
		if len(body) <= 8 {
			return storedRequest{}, errors.New("the records of no game")
		}
		r.first, r.end = binary.BigEndian.Uint32(body), binary.BigEndian.Uint32(body[4:])
		r.game = string(body[8:])
	default:
		return storedRequest{}, fmt.Errorf("unknown kind %d", raw[requestHeader])
	}
	return r, nil
}

// encodeRequest is r's value in the requests bucket: its records when it
// names a game, else its reply.
func encodeRequest(r storedRequest) []byte {
	v := make([]byte, 0, requestHeader+1+8+len(r.game)+len(r.reply))
	v = append(v, r.digest[:]...)
	v = binary.BigEndian.AppendUint64(v, uint64(r.at))
	if r.game != "" {
		v = append(v, replyRecords)
		v = binary.BigEndian.AppendUint32(v, r.first)
		v = binary.BigEndian.AppendUint32(v, r.end)
		return append(v, r.game...)
	}
	v = append(v, replyWhole)
	return append(v, r.reply...)
}

// timeKey is a reply's key in requests-by-time: the time it was stored,
// then what finds it (its seq in request-log, or an older format's request
// key in requests).
func timeKey(at int64, what []byte) []byte {
	return append(binary.BigEndian.AppendUint64(make([]byte, 0, 8+len(what)), uint64(at)), what...)
}

// indexLegacyRequests fills requests-by-time from the requests bucket (the
// upgrade from a format without it).
func indexLegacyRequests(tx *bolt.Tx) error {
	var keys [][]byte
	err := tx.Bucket(bucketRequests).ForEach(func(k, v []byte) error {
		if len(k) == 32 && len(v) >= requestHeader {
			keys = append(keys, timeKey(int64(beUint64(v[32:])), k))
		}
		return nil
	})
	if err != nil {
		return err
	}
	b := tx.Bucket(bucketReqByTime)
	for _, k := range keys {
		if err := b.Put(k, nil); err != nil {
			return err
		}
	}
	return nil
}

// prunedAt reports whether a reply stored at (unix seconds) is one
// pruneRequests deletes at cutoff: one stored in a second before cutoff's.
// A rebuild restores the others (rebuilder.replyCutoff).
func prunedAt(at int64, cutoff time.Time) bool {
	return at < cutoff.Unix()
}

func receiptKey(gameID string, seq uint32) []byte {
	return binary.BigEndian.AppendUint32(joinKey(gameID, nil), seq)
}

// putRecord stores a game's record seq: its log index under the game, its
// leaf under the index.
func putRecord(tx *bolt.Tx, gameID string, seq uint32, index uint64, leaf []byte) error {
	if err := tx.Bucket(bucketReceipts).Put(receiptKey(gameID, seq), u64(index)); err != nil {
		return err
	}
	b := tx.Bucket(bucketRecords)
	// Indices mostly grow: a page the next one will not go into is full.
	b.FillPercent = 1
	return b.Put(u64(index), leaf)
}

// gameRecords reads a game's records 0..n-1: their leaves and log indices.
func gameRecords(tx *bolt.Tx, gameID string, n uint32) (leaves [][]byte, indices []uint64, err error) {
	for seq := range n {
		v := tx.Bucket(bucketReceipts).Get(receiptKey(gameID, seq))
		if len(v) < 8 {
			return nil, nil, fmt.Errorf("game %s: record %d missing from the state store", gameID, seq)
		}
		leaf := v[8:] // stored by format 7 or older
		if len(leaf) == 0 {
			if leaf = tx.Bucket(bucketRecords).Get(v[:8]); len(leaf) == 0 {
				return nil, nil, fmt.Errorf("game %s: record %d (log index %d) missing from the state store", gameID, seq, beUint64(v))
			}
		}
		indices = append(indices, beUint64(v))
		leaves = append(leaves, bytes.Clone(leaf))
	}
	return leaves, indices, nil
}
