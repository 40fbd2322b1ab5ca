package rngd

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	bolt "go.etcd.io/bbolt"
	"golang.org/x/mod/sumdb/tlog"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	"tirage.fr/tirage/hsm"
	qodv1 "tirage.fr/tirage/rngd/api/tirage/qod/v1"
	"tirage.fr/tirage/transparency"
	"tirage.fr/tirage/transparency/checkpoint"
	"tirage.fr/tirage/transparency/tilelog"
	"tirage.fr/tirage/verifier/qod"
	"tirage.fr/tirage/verifier/record"
	"tirage.fr/tirage/verifier/vrf"
)

// engine is the draw pipeline: it validates a call against the stored game
// state, builds α, has the key custody prove it, computes the outcome with
// verifier/qod, formats the record with verifier/record, appends it durably
// to the log, and only then stores the new state and replies.
//
// Concurrency: calls for one game (or, for a start, one ticket) are
// serialised by locks; everything else runs in parallel. The log journals
// concurrent appends with one fsync, and the store's writer commits
// concurrent changes in one transaction (see store), so both group-commit
// under load.
type engine struct {
	cfg     Config
	log     *slog.Logger
	clock   Clock
	loc     *time.Location
	store   *store
	secrets *secretStore
	tlog    transparency.Log
	prover  hsm.VRFProver
	suite   vrf.Suite
	pub     []byte // the VRF public key, as vrf.PublicKey.Bytes
	keyID   string // the VRF key's id in records, as announced
	// vrfKeys: every VRF key the log announced, by id (its first
	// announcement), for the receipts of records proven under a key
	// rotated out since. Set by announceKeys, before any call.
	vrfKeys map[string]firstAnnounced
	logPub  []byte // the log key's public key, as announced (DER SubjectPublicKeyInfo)
	entropy io.Reader
	metrics *metrics
	// The calls' locks, by request identity, game, ticket, and the
	// operator's (an emission, "manifests"): a call takes its request's
	// first, then at most one other.
	reqLocks    keyLocks[[32]byte]
	gameLocks   keyLocks[string]
	ticketLocks keyLocks[[32]byte]
	locks       keyLocks[string]
	games       gameCache
	// deadlines keeps, by emission id, what a start reads of its emission
	// (an emissionDeadline), read from the store once: neither its closure
	// nor its start deadline changes once it is registered (its manifests
	// change its tickets and roots only). A rebuild or a catch-up empties
	// it, as it does games.
	deadlines sync.Map
	// countMu orders countGames: the gauges it sets last are from its
	// latest read of the store.
	countMu sync.Mutex
	// proving admits GOMAXPROCS proofs at a time: more would only queue
	// on the CPUs, ahead of the log's and the store's goroutines whose
	// latency every reply waits for.
	proving chan struct{}
	// gate is held for reading by every call of the game servers and the
	// operator (enter) and by the sweeper, for writing by resync: no call
	// runs on state the log has moved past.
	gate sync.RWMutex
	// appendErrorAt is when a refused append was last logged at ERROR
	// (Unix nanoseconds; appendLeaf).
	appendErrorAt atomic.Int64
	// buildAttested: the log holds a build attestation of this rngd
	// (noteBuildAttested).
	buildAttested atomic.Bool
	// keysFailure is the last failure of the key custody to prove, nil
	// since a proof succeeded (keysHealth); keysProbeAt is when keysHealth
	// last proved (Unix nanoseconds).
	keysFailure atomic.Pointer[error]
	keysProbeAt atomic.Int64
	// logRecovers: the log ends an outage by itself, calling resync
	// (the Trillian backend); otherwise a log failed closed takes no
	// append until rngd is restarted.
	logRecovers bool
	// sweepc asks sweepLoop for a sweep now (resync; Start, for the
	// first sweep once serving).
	sweepc chan struct{}
	// demoScan is how many demo tickets of its emission an imported
	// manifest is looked for among (refuseDemo): MaxDemoTickets;
	// tests lower it.
	demoScan int
	// rebuilt is the log size the store was rebuilt to when opened for
	// Rebuild (levelRebuild).
	rebuilt uint64
}

// enter admits a call (or a sweep) on the engine's state, holding the gate
// for reading until release. While resync waits for the gate or holds it,
// the call is refused at once (LOG_UNAVAILABLE): it neither waits for the
// catch-up nor keeps it waiting, and the log refuses appends until then
// anyway.
func (e *engine) enter() (release func(), err error) {
	if !e.gate.TryRLock() {
		return nil, refuse(reasonLogUnavailable, "transparency log unavailable: rngd is catching up with the log after its outage; nothing was done (retry later, with the same request_id for a draw)")
	}
	return e.gate.RUnlock, nil
}

// resync brings the engine level with the log once the log has ended an
// outage (trillian.Config.Resync): the appends that failed during it may
// be in the log now, unacknowledged, and a retry on the state from before
// them would contradict them (a forked game chain, a ticket started
// twice). It waits for the calls in flight to end (the log refuses their
// appends meanwhile), holds new ones, and catches the store up with the
// log as at a start (catchUp, which also makes the replies of the calls
// whose records reached the log, for their retries).
//
// Once caught up it asks the sweeper for a sweep (sweepc): the ends the
// outage kept from being sealed and the expiries that fell due during it
// are sealed as appends resume, not a game.sweep_interval later. (Should
// that sweep find the log still refusing appends, the next one seals them.)
func (e *engine) resync(ctx context.Context) error {
	if err := e.catchUpGated(ctx); err != nil {
		return err
	}
	// Once the gate is released, or the sweep asked for would find it
	// held and be deferred to the next game.sweep_interval.
	e.askSweep()
	return nil
}

// catchUpGated is resync's work under the gate held for writing.
func (e *engine) catchUpGated(ctx context.Context) error {
	e.gate.Lock()
	defer e.gate.Unlock()
	e.log.Warn("transparency log outage over: catching the state store up with the log before draws resume")
	if err := e.catchUp(ctx); err != nil {
		e.log.Error("couldn't catch the state store up with the log after its outage: draws stay refused", "err", err)
		return err
	}
	// The secrets of the starts the outage refused and the log does not
	// hold: the log's recovery settled every leaf whose append failed
	// (trillian.Config.Resync), and no start is under way (the gate), so
	// none of them can still reach the log.
	if err := e.dropOrphanSecrets(false); err != nil {
		e.log.Warn("couldn't drop the secrets of the starts refused during the outage: dropped at the next start of rngd", "err", err)
	}
	// A build attestation the outage cut off from its reply may be among
	// the records caught up (a look-up in the store: the executable's
	// digest is read once per process).
	e.noteBuildAttested(false)
	return nil
}

// askSweep asks sweepLoop for a sweep now (sweepc), without waiting: when
// one is asked for already, that one does.
func (e *engine) askSweep() {
	select {
	case e.sweepc <- struct{}{}:
	default: // one is asked for already
	}
}

// gameCache keeps the games in play in memory, as last committed, so that
// a call does not decode its game from the store. It holds the games it is
// given, which nobody changes once given (commit's own copy); callers get
// copies.
type gameCache struct {
	mu sync.RWMutex
	m  map[string]*storedGame // guarded by mu
}

// get copies game id into sg, when cached.
func (c *gameCache) get(id string, sg *storedGame) bool {
	c.mu.RLock()
	cached, ok := c.m[id]
	c.mu.RUnlock()
	if ok {
		*sg = *cached
	}
	return ok
}

// put caches sg as just handed to the store (an ended game leaves the
// cache: a later read waits for the store's commit of its end). sg is the
// cache's from then on: neither the caller nor the cache changes it.
func (c *gameCache) put(sg *storedGame) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = make(map[string]*storedGame)
	}
	if sg.Ended {
		delete(c.m, sg.Game.ID)
	} else {
		c.m[sg.Game.ID] = sg
	}
}

func (c *gameCache) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m = nil
}

// adminServer is the request-id namespace of the operator's calls (a game
// server identity is a DNS name or CN and never contains '#').
const adminServer = "#admin"

// storedGame is a game as the store keeps it.
type storedGame struct {
	Game      qod.Game
	Server    string   // the game server that owns it
	Secret    [32]byte // r; zero when lost (see Rebuild); in state.db only once revealed (putGame)
	HasSecret bool
	Records   uint32    // records sealed so far
	LastHash  [32]byte  // leaf hash of the last record (the next record's prev)
	LastIndex uint64    // its log index
	Ended     bool      // the end record is sealed
	EndedAt   time.Time // its time
	// commit is H(r), not stored: from the start record (fillSecret; the
	// only one a game whose secret was lost has), or from r at the start.
	// Zero when not known yet: gameProto then hashes Secret.
	commit [32]byte
}

// storedTicket is a manifest entry as the store keeps it. Game and Quit
// exclude each other (art. 2.2.3): startGame and quit check both under the
// ticket's lock.
type storedTicket struct {
	Emission string
	Stake    int64
	Game     string      `json:",omitempty"` // set once the code has started a game
	Quit     *storedQuit `json:",omitempty"` // set once the code was quit (QUITTER)
}

// storedQuit is a ticket's quit: its ticket_quit record's time, log
// index and game server. Server lets GetQuit refuse another game server
// from the store, without waiting for a checkpoint and reading the log; it
// is empty in a quit an older rngd stored (same format 6: an older rngd
// ignores the field, and a quit without it is checked against the log).
type storedQuit struct {
	At     time.Time
	Index  uint64
	Server string `json:",omitempty"`
}

// storedEmission is an emission as the store keeps it.
type storedEmission struct {
	ID            string
	Index         uint64 // log index of its record
	Closure       string
	StartDeadline time.Time
	Tickets       uint64
	Roots         []string
}

func (e *engine) now() time.Time { return e.clock.Now().UTC().Truncate(time.Second) }

// random reads n bytes from the DRBG; a failure refuses the draw (fail closed).
func (e *engine) random(n int) ([]byte, error) {
	b := make([]byte, n)
	if _, err := io.ReadFull(e.entropy, b); err != nil {
		e.metrics.alarms.WithLabelValues("entropy").Inc()
		e.log.Error("entropy failure: draw refused", "err", err)
		return nil, refuseHiding(reasonEntropyUnavailable, err, "entropy unavailable: nothing was drawn (retry later with the same request_id); the operator is alerted")
	}
	return b, nil
}

// prove returns π and β for α; a failure of the key custody refuses the draw.
func (e *engine) prove(alpha []byte) (proof, beta []byte, err error) {
	if e.proving != nil {
		e.proving <- struct{}{}
		defer func() { <-e.proving }()
	}
	start := time.Now()
	proof, beta, err = e.prover.Prove(alpha)
	e.metrics.proveSeconds.Observe(time.Since(start).Seconds())
	if err == nil && len(beta) != vrf.OutputSize {
		// A backend's bug (hsm.VRFProver returns β with π): refused as the
		// key custody's failure, not as the game's rules' (qod.ErrBeta).
		err = fmt.Errorf("%w: the key custody returned a %d-byte VRF output with its proof, not %d", hsm.ErrUnavailable, len(beta), vrf.OutputSize)
	}
	if err != nil {
		e.keysFailure.Store(&err)
		e.metrics.alarms.WithLabelValues("keys").Inc()
		e.log.Error("vrf prove failure: draw refused", "err", err)
		// The backend's error (token and key labels, the PKCS#11 return
		// code) is the operator's: logged above and on the admin socket,
		// never sent to a game server. It begins with hsm.ErrUnavailable's
		// words: said once.
		why := strings.TrimPrefix(err.Error(), hsm.ErrUnavailable.Error()+": ")
		return nil, nil, refuseHiding(reasonKeysUnavailable, errors.New(why), "key custody unavailable: nothing was drawn (retry later with the same request_id); the operator is alerted")
	}
	if e.keysFailure.Load() != nil {
		e.keysFailure.Store(nil)
	}
	return proof, beta, nil
}

// probeAlpha is the α of keysHealth's proofs: outside the α of every draw
// (record's, which begin "tirage/alpha/v1"), and the proof is dropped.
var probeAlpha = []byte("tirage/readiness-probe/v1")

// keysProbeEvery bounds keysHealth's proofs while the custody has failed.
const keysProbeEvery = time.Second

// keysHealth is the key custody's health for readiness: nil until a proof
// fails (prove); from then on a failure, until a proof succeeds — a
// draw's, or this probe's, at most once per keysProbeEvery, so that
// readiness recovers with the custody (an HSM back) with no draw sent to
// an appliance that says it refuses them.
func (e *engine) keysHealth() error {
	last := e.keysFailure.Load()
	if last == nil {
		return nil
	}
	now := time.Now().UnixNano()
	if at := e.keysProbeAt.Load(); now-at < int64(keysProbeEvery) || !e.keysProbeAt.CompareAndSwap(at, now) {
		return *last
	}
	if _, _, err := e.prover.Prove(probeAlpha); err != nil {
		return err
	}
	e.keysFailure.CompareAndSwap(last, nil)
	return nil
}

// appendErrorEvery is how often a refused append is logged at ERROR; the
// others are logged at DEBUG.
const appendErrorEvery = 10 * time.Second

// appendLeaf appends durably. The append is not cancelled with the caller:
// once a record is on its way to the log, its state is stored too.
func (e *engine) appendLeaf(ctx context.Context, leaf []byte) (uint64, error) {
	e.metrics.appendQueue.Inc()
	start := time.Now()
	idx, err := e.tlog.Append(context.WithoutCancel(ctx), leaf)
	e.metrics.appendSeconds.Observe(time.Since(start).Seconds())
	e.metrics.appendQueue.Dec()
	if err != nil {
		e.metrics.alarms.WithLabelValues("log").Inc()
		// Once every appendErrorEvery at ERROR: a log failed closed
		// refuses every append, and each refusal is counted (and said by
		// the call's own "call refused" line) without flooding the log.
		if now, last := time.Now().UnixNano(), e.appendErrorAt.Load(); now-last >= int64(appendErrorEvery) && e.appendErrorAt.CompareAndSwap(last, now) {
			e.log.Error("log append failure: reply refused", "err", err)
		} else {
			e.log.Debug("log append failure: reply refused", "err", err)
		}
		return 0, &appendError{err: err, closed: e.logFailedClosed(), recovers: e.logRecovers}
	}
	return idx, nil
}

// logFailedClosed reports whether the log failed closed
// (transparency.Health): it takes no append until it recovers by itself
// (logRecovers) or is reopened, which only a restart of rngd does.
func (e *engine) logFailedClosed() bool {
	return e.logHealth() != nil
}

// logHealth is the log's failure when it failed closed
// (transparency.Health), nil when it did not or cannot tell.
func (e *engine) logHealth() error {
	if h, ok := e.tlog.(transparency.Health); ok {
		return h.Health()
	}
	return nil
}

// refuseLog is logRefusal for a call the log failed with err now: whether
// it failed closed is read from the log (logFailedClosed).
func (e *engine) refuseLog(err error, what, retry string) error {
	return logRefusal(err, e.logFailedClosed(), e.logRecovers, what, retry)
}

// logRefusal is the refusal of a call that the log failed with err: what
// says what the call did and did not do, retry what a retry needs beyond
// "retry later" (" with the same request_id", …). A log found rolled back
// or forked (transparency.ErrSecurity) is LOG_INTEGRITY: no retry helps
// until an operator has looked. Anything else is LOG_UNAVAILABLE; when the
// log failed closed (closed: logFailedClosed) and does not recover by
// itself (recovers: engine.logRecovers), retrying later does not help
// either, only once rngd is restarted, and the message says so. An
// embedded log that cannot publish checkpoints (tilelog.ErrCheckpointStalled)
// reports itself failed closed too, but recovers by itself, and without a
// resync: it refused the append before journaling it.
func logRefusal(err error, closed, recovers bool, what, retry string) error {
	switch {
	case errors.Is(err, transparency.ErrSecurity):
		return refuseHiding(reasonLogIntegrity, err, "transparency log integrity failure: %s; draws are refused until an operator investigates", what)
	case errors.Is(err, tilelog.ErrCheckpointStalled):
		return refuseHiding(reasonLogUnavailable, err, "transparency log unavailable: %s (the log cannot publish signed checkpoints: it refuses appends until one is published again, which it retries by itself; retry later%s)", what, retry)
	case closed && recovers:
		return refuseHiding(reasonLogUnavailable, err, "transparency log unavailable: %s (the log failed closed: it refuses every append until the log server answers again and rngd has caught up with it, which it does by itself; retry later%s)", what, retry)
	case closed:
		return refuseHiding(reasonLogUnavailable, err, "transparency log unavailable: %s (the log failed closed: it refuses every append until rngd is restarted, which reopens it; retry after the restart%s)", what, retry)
	default:
		return refuseHiding(reasonLogUnavailable, err, "transparency log unavailable: %s (retry later%s)", what, retry)
	}
}

// appendError is a refused append (logRefusal). Its message says the record
// was not sealed; cut says what a call cut short between its records had
// sealed.
type appendError struct {
	err error
	// closed: the log failed closed (logFailedClosed); recovers: it
	// recovers by itself (engine.logRecovers).
	closed, recovers bool
	// sealed, when set, names what the call sealed before the refused
	// record (cut).
	sealed string
}

func (a *appendError) Error() string {
	st, cause := hiddenCause(a.GRPCStatus())
	return operatorMessage(st.Message(), cause)
}

func (a *appendError) Unwrap() error { return a.err }

// GRPCStatus makes an appendError the gRPC status it is refused with.
func (a *appendError) GRPCStatus() *status.Status {
	what, retry := "the record was not sealed", " with the same request_id"
	if a.sealed != "" {
		what, retry = a.sealed+", but the game's end record was not", " with the same request_id: the retry seals it and replies"
	}
	st, _ := status.FromError(logRefusal(a.err, a.closed, a.recovers, what, retry))
	return st
}

// cut is err, the refusal of the end record of a call that sealed recs
// before it, saying what was sealed: the call's draw stands, only the end
// is to be sealed (resumeCut).
func cut(err error, recs []sealed) error {
	var a *appendError
	if len(recs) == 0 || !errors.As(err, &a) {
		return err
	}
	last := recs[len(recs)-1]
	what := "record"
	if rec, perr := record.Parse(last.leaf); perr == nil {
		what = string(rec.Kind())
	}
	return &appendError{err: a.err, closed: a.closed, recovers: a.recovers, sealed: fmt.Sprintf("the %s was sealed (log index %d)", what, last.index)}
}

// sealed is a record appended to the log, waiting to be stored.
type sealed struct {
	leaf    []byte
	index   uint64
	receipt *qodv1.Receipt
}

// seal formats rec, appends it and returns its receipt. For a game record,
// sg's chain (last hash, index, record count) advances.
func (e *engine) seal(ctx context.Context, sg *storedGame, rec record.Record, alpha, proof, beta []byte) (sealed, error) {
	leaf, err := record.Format(rec)
	if err != nil {
		return sealed{}, refuseHiding(reasonInternal, err, "couldn't format the %s record", rec.Kind())
	}
	idx, err := e.appendLeaf(ctx, leaf)
	if err != nil {
		return sealed{}, err
	}
	s := sealed{leaf: leaf, index: idx, receipt: e.receipt(leaf, idx, alpha, proof, beta)}
	if sg != nil {
		sg.LastHash = [32]byte(s.receipt.LeafHash) // record.LeafHash(leaf), hashed once
		sg.LastIndex = idx
		sg.Records++
	}
	outcome := ""
	switch r := rec.(type) {
	case *record.Pick:
		outcome = r.Outcome
	case *record.Decision:
		outcome = r.Choice
	case *record.GameEnd:
		outcome = r.Result
	case *record.GameStart:
		outcome = fmt.Sprintf("x%d%d%d%d", r.Multipliers[0], r.Multipliers[1], r.Multipliers[2], r.Multipliers[3])
	}
	e.metrics.draws.WithLabelValues(string(rec.Kind()), outcome).Inc()
	return s, nil
}

func (e *engine) receipt(leaf []byte, idx uint64, alpha, proof, beta []byte) *qodv1.Receipt {
	h := record.LeafHash(leaf)
	r := &qodv1.Receipt{Record: leaf, LogIndex: idx, LeafHash: h[:]}
	if len(proof) > 0 {
		r.VrfAlpha, r.VrfProof, r.VrfOutput = alpha, proof, beta
		r.VrfSuite, r.VrfKeyId, r.VrfPublicKey = string(e.suite), e.keyID, e.pub
	}
	return r
}

// call is one mutating call, identified by its server and request id. The
// records it seals carry req and digest ("req", "req_digest"), so its reply
// can be rebuilt from the log (see rebuild).
type call struct {
	server, id string
	req        [32]byte // record.RequestID(server, id): the key of its stored reply
	digest     [32]byte // the digest of its content (newCall)
	// prior is how many of the records handed to commit were sealed and
	// stored by an earlier attempt of the call (one cut short: resumeCut).
	prior int
}

// fresh returns, of the records recs of call c (nil: the sweeper's), those
// new to the store: all but the c.prior an earlier attempt stored.
func (c *call) fresh(recs []sealed) []sealed {
	if c == nil {
		return recs
	}
	return recs[c.prior:]
}

// lockRequest serialises the calls that carry one request identity, for
// the whole call: two calls with the same request id (a retry racing the
// original, or the same id with other content) must not both pass the
// stored-reply check and both draw. It is taken before the game's, ticket's
// or emission's lock, never after.
func (e *engine) lockRequest(c call) heldLock[[32]byte] {
	return e.reqLocks.lock(c.req)
}

// stamp returns the call's request identity for the records it seals (zero
// for the sweeper's calls, which have none).
func (c *call) stamp() (req, digest [32]byte) {
	if c == nil {
		return
	}
	return c.req, c.digest
}

// checkRequestID validates a request id: 1..128 printable ASCII characters.
func checkRequestID(id string) error {
	if id == "" {
		return refuse(reasonRequestIDInvalid, "request_id: required (a unique id per mutating call; reuse it only to retry)")
	}
	if len(id) > 128 {
		return refuse(reasonRequestIDInvalid, "request_id: %d characters, at most 128", len(id))
	}
	for i := 0; i < len(id); i++ {
		if id[i] < 0x21 || id[i] > 0x7e {
			return refuse(reasonRequestIDInvalid, "request_id: character %d is not printable ASCII", i+1)
		}
	}
	return nil
}

// newCall identifies a call by the content of req without its request_id:
// the digest of req's deterministic encoding with the request_id field's
// bytes left out, which is the encoding of req with request_id cleared
// (the fields are encoded one after another, an empty string not at all),
// without the copy of req that clearing it would take.
func newCall(server, method string, req proto.Message) (call, error) {
	m := req.ProtoReflect()
	fd := m.Descriptor().Fields().ByName("request_id")
	id := m.Get(fd).String()
	if err := checkRequestID(id); err != nil {
		return call{}, err
	}
	// The call's digest identifies its content: SHA-256 of the method,
	// 0x00, and the deterministic encoding of the request without its
	// request id; hashed from one buffer, reused (callBuffers).
	bp := callBuffers.Get().(*[]byte)
	defer func() {
		if cap(*bp) <= maxCallBuffer {
			callBuffers.Put(bp)
		}
	}()
	head := len(method) + 1
	b := append(append((*bp)[:0], method...), 0)
	b, err := proto.MarshalOptions{Deterministic: true}.MarshalAppend(b, req)
	*bp = b[:0]
	var content []byte
	if err == nil {
		content, err = withoutField(b[head:], fd.Number()) // in place
	}
	if err != nil {
		return call{}, refuseHiding(reasonInternal, err, "couldn't encode the request")
	}
	return call{server: server, id: id, req: record.RequestID(server, id), digest: sha256.Sum256(b[:head+len(content)])}, nil
}

// callBuffers hold newCall's encodings: a request is at most
// tcpMaxRecvMsgSize; a buffer grown past maxCallBuffer (an admin call's
// large request) is left to the collector.
var callBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}

const maxCallBuffer = 4 << 10

// withoutField returns the encoded message b without its fields numbered
// n, in place.
func withoutField(b []byte, n protowire.Number) ([]byte, error) {
	out := b[:0]
	for rest := b; len(rest) > 0; {
		num, typ, tagLen := protowire.ConsumeTag(rest)
		if tagLen < 0 {
			return nil, protowire.ParseError(tagLen)
		}
		valLen := protowire.ConsumeFieldValue(num, typ, rest[tagLen:])
		if valLen < 0 {
			return nil, protowire.ParseError(valLen)
		}
		if num != n {
			out = append(out, rest[:tagLen+valLen]...)
		}
		rest = rest[tagLen+valLen:]
	}
	return out, nil
}

// replayed returns the stored reply of c into out (true), or false when c is
// new. The same request id with other content is ALREADY_EXISTS.
func (e *engine) replayed(c call, out proto.Message) (bool, error) {
	sr, ok, err := e.store.request(c.req)
	if err != nil {
		return false, storeError(err)
	}
	if !ok {
		return false, nil
	}
	if sr.digest != c.digest {
		return false, refuse(reasonRequestIDReused, "request_id %q was already used for another request (nothing changed): use a new request_id", c.id)
	}
	switch {
	case sr.msg != nil:
		proto.Merge(out, sr.msg)
	case sr.game != "":
		reply, err := e.storedReply(sr)
		if err != nil {
			if _, ok := status.FromError(err); ok {
				return false, err // UNAVAILABLE (the secret store's) stays so
			}
			if errors.Is(err, errStoreFailed) {
				// A restart rebuilds the store, and the retry then gets its
				// reply: not INTERNAL, which says the same call is refused
				// again.
				return false, storeError(err)
			}
			return false, refuseHiding(reasonInternal, err, "stored reply of request_id %q", c.id)
		}
		if reply == nil {
			// The call was cut short between its records (see replyOf):
			// the game's state answers its retry.
			return false, nil
		}
		proto.Merge(out, reply)
	default:
		if err := proto.Unmarshal(sr.reply, out); err != nil {
			return false, refuseHiding(reasonInternal, err, "stored reply of request_id %q is corrupt", c.id)
		}
	}
	return true, nil
}

// storedReply makes again the reply of a game call from the records it
// sealed.
func (e *engine) storedReply(sr storedRequest) (*qodv1.GameReply, error) {
	var reply *qodv1.GameReply
	err := e.store.view(func(tx *bolt.Tx) error {
		sg := new(storedGame)
		if ok, err := getStoredGame(tx, []byte(sr.game), sg); err != nil || !ok {
			return fmt.Errorf("game %s not in the state store (%v)", sr.game, err)
		}
		if err := e.fillSecret(tx, sg); err != nil {
			return err
		}
		if sr.end > sg.Records || sr.first >= sr.end {
			return fmt.Errorf("game %s: records %d..%d, it has %d", sr.game, sr.first, sr.end, sg.Records)
		}
		// The record after the call's, if any: the end of a game the call
		// left over, sealed after it (see replyOf).
		leaves, indices, err := gameRecords(tx, sr.game, min(sr.end+1, sg.Records))
		if err != nil {
			return err
		}
		reply, err = e.replyOf(sg, leaves, indices, int(sr.first), int(sr.end), e.replayConfig(tx, sg.Game.Emission))
		return err
	})
	return reply, err
}

// replayConfig is how verifier/qod replays a game of emission.
func (e *engine) replayConfig(tx *bolt.Tx, emission string) qod.ReplayConfig {
	em, _ := e.deadlineOf(tx, emission)
	return qod.ReplayConfig{StartDeadline: em.StartDeadline, Location: e.loc}
}

// recordReceipt is the receipt of a game's record. α is known when the
// game's secret is (publicReceipt hides it until the game ends).
func (e *engine) recordReceipt(sg *storedGame, leaf []byte, index uint64) (*qodv1.Receipt, error) {
	rec, err := record.Parse(leaf)
	if err != nil {
		return nil, err
	}
	g := sg.Game
	var alpha, proof, beta []byte
	var key string
	switch v := rec.(type) {
	case *record.GameStart:
		proof, beta, key = v.Proof, v.Beta, v.Key
		if sg.HasSecret && len(proof) > 0 {
			alpha = record.StartAlpha(v.Game, v.Emission, v.Ticket, v.Stake, sg.Secret)
		}
	case *record.Pick:
		proof, beta, key = v.Proof, v.Beta, v.Key
		if sg.HasSecret {
			alpha = record.PickAlpha(v.Game, g.Emission, g.Ticket, sg.Secret, v.Index, v.Number)
		}
	}
	r := e.receipt(leaf, index, alpha, proof, beta)
	if f, ok := e.vrfKeys[key]; ok && len(proof) > 0 && key != e.keyID {
		// Proven under a key rotated out since: the receipt names that
		// one, as it did when the record was sealed.
		r.VrfSuite, r.VrfKeyId, r.VrfPublicKey = f.suite, key, f.pub
	}
	return r, nil
}

// replyOf is the reply of the call that sealed the records first..end-1 of
// a game whose records 0..len(leaves)-1 are leaves (at indices): the game as
// it stood after the call, the receipt of the call's first record and, when
// the call ended the game, the end's receipt — as startGame, finish and
// endGame make it. leaves may hold one record more than the call's, the
// game's next: when the call left the game over and that record is its end
// (nothing but the end can follow a game over), the end counts as the
// call's — sealed later, by the call's retry, the sweeper or, through a
// restart's catch-up, by the call itself when the log took its end but the
// call was told it had not —, and the reply is the one the call would have
// had. Without it the reply is nil, for a call cut short between its
// records (a losing pick whose end is not sealed yet): the game's state
// answers its retry (resumeCut).
func (e *engine) replyOf(sg *storedGame, leaves [][]byte, indices []uint64, first, end int, cfg qod.ReplayConfig) (*qodv1.GameReply, error) {
	rep, err := qod.Replay(leaves[:end], cfg)
	if err != nil {
		return nil, err
	}
	last, err := record.Parse(leaves[end-1])
	if err != nil {
		return nil, err
	}
	endRec, ended := last.(*record.GameEnd)
	if rep.Game.Phase.Over() && !ended {
		if end == len(leaves) {
			return nil, nil
		}
		next, err := record.Parse(leaves[end])
		if err != nil {
			return nil, err
		}
		if endRec, ended = next.(*record.GameEnd); !ended {
			return nil, fmt.Errorf("game %s: a %s record after the game was over", sg.Game.ID, next.Kind())
		}
		end++
		if rep, err = qod.Replay(leaves[:end], cfg); err != nil {
			return nil, err
		}
	}
	then := &storedGame{Game: rep.Game, Server: sg.Server, Secret: sg.Secret, HasSecret: sg.HasSecret, commit: sg.commit,
		Records: uint32(end), LastHash: record.LeafHash(leaves[end-1]), LastIndex: indices[end-1], Ended: ended}
	if ended {
		then.EndedAt = endRec.Time
	}
	rec, err := record.Parse(leaves[first])
	if err != nil {
		return nil, err
	}
	gr, ok := rec.(record.GameRecord)
	if !ok {
		return nil, fmt.Errorf("game %s: record %d is a %s", sg.Game.ID, first, rec.Kind())
	}
	_, _, at := requestOf(gr) // the call's time, as its reply showed the game
	r, err := e.recordReceipt(sg, leaves[first], indices[first])
	if err != nil {
		return nil, err
	}
	reply := &qodv1.GameReply{Game: e.gameProto(then, at), Receipt: publicReceipt(r, ended)}
	if ended {
		if reply.EndReceipt, err = e.recordReceipt(sg, leaves[end-1], indices[end-1]); err != nil {
			return nil, err
		}
	}
	if p, ok := rec.(*record.Pick); ok {
		reply.Pick = &qodv1.PickResult{Number: uint32(p.Number), Losing: p.Outcome == record.OutcomeLosing}
	}
	return reply, nil
}

// commit hands to the store, as one change: the game, the sealed records,
// the call's reply, extra changes (a start's ticket, the operator's) and
// the applied count. It is called only after the records are durable in the
// log, from which all of it can be made again (a start's secret r, which
// the log does not hold yet, was committed before: keepSecret). The game
// cache is updated as soon as the change is handed over; only the
// operator's calls, which change no game, wait for the store's commit. A
// game call's reply is stored as the records it sealed. game, the game's
// new state, is the cache's and the store's from then on: the caller,
// which returns after, changes it no more (no copy: 0.9 KB a draw).
func (e *engine) commit(c *call, reply proto.Message, game *storedGame, recs []sealed, extra func(tx *bolt.Tx) error) error {
	fresh := c.fresh(recs)
	var sr *storedRequest
	var key [32]byte
	if c != nil {
		sr, key = &storedRequest{digest: c.digest, at: e.clock.Now().Unix(), msg: reply}, c.req
		if game != nil && len(recs) > 0 {
			sr.game, sr.first, sr.end = game.Game.ID, game.Records-uint32(len(recs)), game.Records
		} else {
			b, err := proto.Marshal(reply)
			if err != nil {
				return refuseHiding(reasonInternal, err, "couldn't encode the reply")
			}
			sr.reply = b
		}
	}
	wait := game == nil
	indices := make([]uint64, len(fresh))
	for i, r := range fresh {
		indices[i] = r.index
	}
	w := storeWrite{indices: indices, req: key}
	start := game != nil && game.Records == uint32(len(fresh))
	if start {
		// Its ticket reads as played before the commit.
		w.ticket, w.started = game.Game.Ticket, game.Game.ID
	}
	if game != nil && !start {
		// Written by the batch's end, once for all the game's calls in it.
		w.game = game
	}
	w.fn = func(tx *bolt.Tx) error {
		if game != nil {
			if start {
				if err := putGame(tx, game, true); err != nil {
					return err
				}
			}
			for i, s := range fresh {
				seq := game.Records - uint32(len(fresh)) + uint32(i)
				if err := putRecord(tx, game.Game.ID, seq, s.index, s.leaf); err != nil {
					return err
				}
			}
		}
		if extra != nil {
			if err := extra(tx); err != nil {
				return err
			}
		}
		if sr != nil {
			return e.store.putRequest(tx, key, *sr)
		}
		return nil // the records' count: the batch's finish (w.indices)
	}
	err := e.store.write(w, sr, wait)
	if game != nil {
		// Cached only once the write is handed over: a reader that sees
		// the game's new state (its record count) then waits for this
		// write (store.view), so the records it counts are in the store.
		// Cached on a failure too: its records are in the log.
		e.games.put(game)
	}
	if err == nil && game != nil && game.Ended && len(fresh) > 0 {
		// Its end record, now in the log, reveals r. Should this fail, the
		// secret store's alarm is up and starts are refused; this call is
		// sealed and stored.
		e.secrets.drop(game.Game.ID)
	}
	if err != nil {
		// The records are in the log but not in the store: the store is
		// behind the log and is rebuilt at the next start.
		return refuseHiding(reasonStoreUnavailable, err, "state store failure after sealing (the record is in the log; restart rngd to rebuild the store from it)")
	}
	return nil
}

// storeFailed reports the writer's failure (alarm and log): a commit that
// failed, after the durable append of its records, or a read that could
// not begin.
func (e *engine) storeFailed(err error) {
	e.metrics.alarms.WithLabelValues("store").Inc()
	e.log.Error("state store failed: draws are refused; restart rngd to rebuild the store from the log", "err", err)
}

// requestIndexFailed reports a flush of the state store's request index
// that failed (alarm and log): its replies stay in memory, and are found,
// until a flush succeeds.
func (e *engine) requestIndexFailed(err error) {
	e.metrics.alarms.WithLabelValues("store").Inc()
	e.log.Error("state store request index: couldn't write its replies to disk; they are kept in memory meanwhile", "err", err)
}

// secretsFailed reports the secret store's failure (alarm and log).
func (e *engine) secretsFailed(err error) {
	e.metrics.alarms.WithLabelValues("store").Inc()
	e.log.Error("secret store write failed: starts are refused until rngd restarts", "err", err)
}

// storeHealth refuses a call before it draws anything when the store has
// failed.
func (e *engine) storeHealth() error {
	if err := e.store.health(); err != nil {
		return refuseHiding(reasonStoreUnavailable, err, "state store unavailable, nothing was drawn")
	}
	return nil
}

// putGame stores a game. Its place among the unfinished games changes only
// when it starts (full) and when it ends; its secret r is kept apart, in
// the secret store, from before its start (keepSecret) until its end, whose
// record reveals it.
func putGame(tx *bolt.Tx, sg *storedGame, full bool) error {
	stored := sg
	if !sg.Ended && sg.Secret != ([32]byte{}) {
		// r of a game in play stays in secrets.db alone (loadGame reads
		// it there): state.db, its copies and backups hold no secret.
		c := *sg
		c.Secret = [32]byte{}
		stored = &c
	}
	raw, err := appendGame(make([]byte, 0, 256), stored)
	if err != nil {
		return fmt.Errorf("game %s: %w", sg.Game.ID, err)
	}
	if err := tx.Bucket(bucketGames).Put([]byte(sg.Game.ID), raw); err != nil {
		return err
	}
	key := joinKey(sg.Server, []byte(sg.Game.ID))
	if sg.Ended {
		return tx.Bucket(bucketUnfinished).Delete(key)
	}
	if !full {
		return nil
	}
	return tx.Bucket(bucketUnfinished).Put(key, u64(uint64(sg.Game.Expires.Unix())))
}

// loadGame loads a game for server ("" for the operator: any game).
func (e *engine) loadGame(id, server string) (*storedGame, error) {
	if id == "" {
		return nil, refuse(reasonGameIDMissing, "game_id: required")
	}
	sg := new(storedGame)
	if !e.games.get(id, sg) {
		var found bool
		err := e.store.view(func(tx *bolt.Tx) error {
			var err error
			if found, err = getStoredGame(tx, []byte(id), sg); err != nil || !found {
				return err
			}
			return e.fillSecret(tx, sg)
		})
		if err != nil {
			return nil, storeError(err)
		}
		if !found {
			return nil, refuse(reasonUnknownGame, "game_id: no game %s", quoted(id))
		}
	}
	if server != "" && sg.Server != server {
		return nil, refuse(reasonGameNotOwned, "game_id: game %s belongs to another game server", quoted(id))
	}
	return sg, nil
}

// fillSecret reads into sg, a game read from state.db in tx, its secret r
// while it is in play: state.db keeps r only once the end record reveals it
// (putGame). A secret gone from secrets.db (lost) leaves the game without
// one: it can only be refunded. The commitment H(r) is read from the start
// record (sg.commit), which holds it: the one a game without its secret has.
func (e *engine) fillSecret(tx *bolt.Tx, sg *storedGame) error {
	return e.fillSecrets(tx, []*storedGame{sg})
}

// fillSecrets is fillSecret for each of games, reading secrets.db in one
// transaction. A secret kept that is not the one the game's start record
// commits to (secrets.db gone bad: bbolt checks no data page) counts as
// lost, as a rebuild counts it: drawn with, it would make picks nobody
// can verify, and an end that contradicts the start.
func (e *engine) fillSecrets(tx *bolt.Tx, games []*storedGame) error {
	var ids []string
	var inPlay []*storedGame
	for _, sg := range games {
		if !sg.Ended && sg.HasSecret {
			ids, inPlay = append(ids, sg.Game.ID), append(inPlay, sg)
		}
	}
	if len(ids) > 0 {
		err := e.secrets.readAll(ids, func(i int, r [32]byte, ok bool) {
			inPlay[i].Secret, inPlay[i].HasSecret = r, ok
		})
		if err != nil {
			return refuseHiding(reasonSecretsUnavailable, err, "secret store unavailable (retry later)")
		}
	}
	for _, sg := range games {
		if sg.Records == 0 || (sg.Ended && sg.HasSecret) {
			continue
		}
		start, err := startRecord(tx, sg.Game.ID)
		if err != nil {
			return err
		}
		if start == nil {
			continue
		}
		if !sg.Ended && !sg.HasSecret {
			// Taken from the reserve, its move to the game not committed?
			r, ok, err := e.secrets.reserved(start.Commit)
			if err != nil {
				return refuseHiding(reasonSecretsUnavailable, err, "secret store unavailable (retry later)")
			}
			sg.Secret, sg.HasSecret = r, ok
		}
		if !sg.Ended && sg.HasSecret && record.Commit(sg.Secret) != start.Commit {
			e.metrics.alarms.WithLabelValues("store").Inc()
			e.log.Error("the secret r kept in secrets.db for a game in play does not match the commitment of its start record: counted as lost (it can only be refunded); an operator must investigate", "game", sg.Game.ID)
			sg.Secret, sg.HasSecret = [32]byte{}, false
		}
		sg.commit = start.Commit
	}
	return nil
}

// startRecord is game id's record 0 as the state store holds it: its
// start record, nil when it is not one.
func startRecord(tx *bolt.Tx, id string) (*record.GameStart, error) {
	leaves, _, err := gameRecords(tx, id, 1)
	if err != nil {
		return nil, err
	}
	rec, err := record.Parse(leaves[0])
	if err != nil {
		return nil, fmt.Errorf("game %s: its start record: %w", id, err)
	}
	start, _ := rec.(*record.GameStart)
	return start, nil
}

// ruleReasons are the reasons of the state machine's refusals, and the
// request field each is about.
var ruleReasons = []struct {
	err   error
	r     reason
	field string
}{
	{qod.ErrGameOver, reasonGameOver, "game_id"},
	{qod.ErrAtTier, reasonAtTier, "game_id"},
	{qod.ErrNotAtTier, reasonNotAtTier, "game_id"},
	{qod.ErrExpired, reasonGameExpired, "game_id"},
	{qod.ErrStartClosed, reasonDeadlinePassed, "code"},
	{qod.ErrTicketPlayed, reasonCodePlayed, "code"},
	{qod.ErrTicketQuit, reasonTicketQuit, "code"},
	{qod.ErrTicketStarted, reasonTicketStarted, "code"},
	{qod.ErrNotExpired, reasonNotExpired, "game_id"},
	{qod.ErrRefundClosed, reasonGameExpired, "game_id"},
}

// ruleError maps a refusal of the state machine to a gRPC status, its
// message naming the request field it is about.
func ruleError(err error) error {
	switch {
	case errors.Is(err, qod.ErrNumberRange):
		return refuse(reasonNumberRange, "number: %v", err)
	case errors.Is(err, qod.ErrNumberPicked):
		return refuse(reasonNumberPicked, "number: %v", err)
	case errors.Is(err, qod.ErrTimeOrder):
		return refuse(reasonClockBackwards, "the clock went backwards, nothing was drawn: %v", err)
	}
	for _, rr := range ruleReasons {
		if errors.Is(err, rr.err) {
			return refuse(rr.r, "%s: %v", rr.field, err)
		}
	}
	return refuseHiding(reasonInternal, err, "internal error: the operator is alerted")
}

// storeError is a failure to read the state store as a refusal: one
// already made (the secret store's UNAVAILABLE) as it is, the store's own
// failure UNAVAILABLE, anything else INTERNAL.
func storeError(err error) error {
	if _, ok := status.FromError(err); ok {
		return err
	}
	if errors.Is(err, errStoreFailed) {
		return refuseHiding(reasonStoreUnavailable, err, "state store unavailable")
	}
	return refuseHiding(reasonInternal, err, "state store failure: the operator is alerted")
}

// emissionTicket is a ticket about to start a game.
type emissionTicket struct {
	ticket   [32]byte
	emission string
	stake    int64
}

// startDraw is a started game before it is sealed.
type startDraw struct {
	game               qod.Game
	secret             [32]byte
	alpha, proof, beta []byte
}

// drawStart is the draw of a game's start: the game id from the DRBG, r
// durable already from keep (the secret store's reserve, see keepSecret),
// or from the DRBG when keep is nil, then α = record.StartAlpha, π from the
// key custody, β from π, and the multipliers by verifier/qod (no draw when
// S = 50,000 €). A draw refused once r is kept (key custody unavailable, a
// rule) forgets r again (forgetSecret): nothing of it can reach the log.
func (e *engine) drawStart(server string, t emissionTicket, now, deadline time.Time, keep func(id string) ([32]byte, error)) (d startDraw, err error) {
	rnd, err := e.random(16)
	if err != nil {
		return d, err
	}
	id := gameID(server, now, rnd)
	if keep == nil {
		r, err := e.random(32)
		if err != nil {
			return d, err
		}
		copy(d.secret[:], r)
	} else {
		if d.secret, err = keep(id); err != nil {
			return d, err
		}
		defer func() {
			if err != nil {
				e.forgetSecret(id)
			}
		}()
	}
	if t.stake != qod.MaxStake {
		d.alpha = record.StartAlpha(id, t.emission, t.ticket, t.stake, d.secret)
		if d.proof, d.beta, err = e.prove(d.alpha); err != nil {
			return d, err
		}
	}
	d.game, err = qod.NewGame(qod.Start{Game: id, Emission: t.emission, Ticket: t.ticket, Stake: t.stake, Beta: d.beta,
		Now: now, StartDeadline: deadline, Location: e.loc})
	if err != nil {
		return d, ruleError(err)
	}
	return d, nil
}

// gameIDDigits is how many hex digits follow the game server's name and
// "/" in a game id (gameID).
const gameIDDigits = 12 + 20

// gameID names a game: the game server, then 12 hex digits of the start's
// Unix time in milliseconds and 20 random hex digits. Ids of games started
// together sort together, so the store's B+tree pages of the games in play
// are few and its commits write few pages.
func gameID(server string, now time.Time, rnd []byte) string {
	ms := uint64(now.UnixMilli()) & (1<<48 - 1)
	var b [6]byte
	for i := range b {
		b[i] = byte(ms >> (8 * (5 - i)))
	}
	return server + "/" + hex.EncodeToString(b[:]) + hex.EncodeToString(rnd[:10])
}

// keepSecret gives a game its secret r, durable in the secret store before
// its start is drawn and appended: the log reveals r only at the game's
// end, so rngd must hold it from the moment the start record can exist — a
// crash right after the append then loses nothing. r comes from the
// store's reserve, committed ahead (secretStore.take): the start does not
// wait for a commit.
//
// A start refused after keepSecret leaves r behind only when its record
// may still reach the log; otherwise it forgets r at once
// (forgetSecret). The rule, path by path:
//
//   - refused before the append is handed to the log — key custody
//     unavailable, a rule of the game (drawStart), the record not
//     formatted, the log found refusing appends just before (startGame):
//     forgotten;
//   - refused by the log with an error that proves the leaf was not
//     taken (appendRefusedUnseen: an invalid leaf, a log closed or
//     failed closed, an embedded log whose checkpoints are stalled, a
//     QueueLeaf Trillian refused outright): forgotten;
//   - any other append error (a timeout, a lost reply, a failure of
//     Trillian after its QueueLeaf was sent): the leaf may still be
//     sequenced, unacknowledged, and its game would then need r. Kept.
//     Such a failure fails the log closed (transparency.Health), so the
//     starts after it are refused before they draw (startGame), and the
//     r left behind is dropped once the log has settled every such leaf
//     and the store has caught up with it: at the next start of rngd, or
//     when the Trillian log ends its outage (resync), see
//     dropOrphanSecrets.
func (e *engine) keepSecret(id string) ([32]byte, error) {
	r, err := e.secrets.take(id)
	if _, refused := status.FromError(err); err != nil && !refused {
		return r, refuseHiding(reasonSecretsUnavailable, err, "secret store unavailable, nothing was drawn")
	}
	return r, err // nil, or the DRBG's refusal (e.random)
}

// forgetSecret drops the secret keepSecret kept for game id, whose start
// was refused before its record could reach the log (see keepSecret).
// Without waiting: a failure of the secret store is its own alarm, and the
// secret left is dropped at the next start of rngd (dropOrphanSecrets).
func (e *engine) forgetSecret(id string) {
	if err := e.secrets.drop(id); err != nil {
		e.log.Warn("couldn't drop the secret of a refused start: dropped at the next start of rngd", "game", id, "err", err)
	}
}

// appendRefusedUnseen reports whether err, an error of seal for a start,
// proves its record did not reach the log and never will (keepSecret): a
// record not formatted (no appendError), or a leaf the log refused
// before taking it — an invalid one (transparency.ErrInvalidLeaf), or one
// refused unwritten (transparency.ErrNotAppended: the log closed or failed
// closed, an embedded log's checkpoints stalled, a QueueLeaf Trillian
// refused outright). Any other append error leaves the leaf's fate
// unknown (transparency.Log.Append).
func appendRefusedUnseen(err error) bool {
	var a *appendError
	if !errors.As(err, &a) {
		return true
	}
	return errors.Is(a.err, transparency.ErrInvalidLeaf) || errors.Is(a.err, transparency.ErrNotAppended)
}

// logRefusingStarts refuses a start before its r is drawn while the log
// refuses appends (logHealth: failed closed, checkpoints stalled): drawn,
// it would only be refused by the log, and leave its r behind when its
// outcome is unknown. It is counted as a refused append is (the log
// alarm).
func (e *engine) logRefusingStarts() error {
	err := e.logHealth()
	if err == nil {
		return nil
	}
	e.metrics.alarms.WithLabelValues("log").Inc()
	return e.refuseLog(err, "nothing was drawn", " with the same request_id")
}

// drawPick is the draw of a pick: α = record.PickAlpha for the game's next
// pick index, π, β, and the outcome and next state by verifier/qod.
func (e *engine) drawPick(sg *storedGame, number int, now time.Time) (g qod.Game, losing bool, alpha, proof, beta []byte, err error) {
	alpha = record.PickAlpha(sg.Game.ID, sg.Game.Emission, sg.Game.Ticket, sg.Secret, sg.Game.Picks, number)
	if proof, beta, err = e.prove(alpha); err != nil {
		return
	}
	if g, losing, err = sg.Game.Pick(number, beta, now); err != nil {
		err = ruleError(err)
	}
	return
}

// storeUsable is the state store's health, checked before a call takes
// its locks: a failed store refuses the call, unless it is a retry whose
// reply can still be read (done: reply holds it; a game call's reply,
// made again from its records, waits for the store and is refused too,
// TestRetryAndRefundAfterStoreFailure). A call on a healthy store looks
// for its stored reply under its locks only.
func (e *engine) storeUsable(c call, reply proto.Message) (done bool, err error) {
	health := e.storeHealth()
	if health == nil {
		return false, nil
	}
	if done, err = e.replayed(c, reply); done || err != nil {
		return done, err
	}
	return false, health
}

// enterTicket locks the request id and the ticket of a call on a ticket
// (a start, a quit), then checks the call against its request id (after
// storeUsable). done reports a retry: reply then holds the stored reply.
// The caller defers unlock in every case.
func (e *engine) enterTicket(c call, ticket [32]byte, reply proto.Message) (unlock func(), done bool, err error) {
	unlock = func() {}
	if done, err = e.storeUsable(c, reply); done || err != nil {
		return unlock, done, err
	}
	req := e.lockRequest(c)
	t := e.ticketLocks.lock(ticket)
	unlock = func() { t.unlock(); req.unlock() }
	done, err = e.replayed(c, reply)
	return unlock, done, err
}

// emissionDeadline is what a start checks of its emission.
type emissionDeadline struct {
	Closure       string
	StartDeadline time.Time
}

// deadlineOf reads emission's closure and start deadline in tx, or
// from e.deadlines. An emission the store does not hold has a zero
// deadline, which refuses the start.
func (e *engine) deadlineOf(tx *bolt.Tx, emission string) (emissionDeadline, error) {
	if d, ok := e.deadlines.Load(emission); ok {
		return d.(emissionDeadline), nil
	}
	var em storedEmission
	found, err := getJSON(tx, bucketEmissions, []byte(emission), &em)
	if err != nil || !found {
		return emissionDeadline{}, err
	}
	d := emissionDeadline{Closure: em.Closure, StartDeadline: em.StartDeadline}
	e.deadlines.Store(emission, d)
	return d, nil
}

// startGame is "CONTINUER". A ticket quit ("QUITTER", quit) never starts.
func (e *engine) startGame(ctx context.Context, server string, req *qodv1.StartGameRequest) (*qodv1.GameReply, error) {
	c, err := newCall(server, "StartGame", req)
	if err != nil {
		return nil, err
	}
	ticket, err := record.TicketHash(req.Code)
	if err != nil {
		return nil, refuse(reasonCodeInvalid, "code: %v", err)
	}
	reply := new(qodv1.GameReply)
	unlock, done, err := e.enterTicket(c, ticket, reply)
	defer unlock()
	if err != nil {
		return nil, err
	}
	if done {
		return e.replayInclusion(ctx, reply, true, nil)
	}
	// Read without waiting for the store's writer: a start not yet
	// committed shows in the ticket (store.ticket), and emissions change
	// only by the operator's calls, which wait for their commits.
	var em emissionDeadline
	t, found, err := e.store.ticketThen(ticket, func(tx *bolt.Tx, t storedTicket) (err error) {
		em, err = e.deadlineOf(tx, t.Emission)
		return err
	})
	if err != nil {
		return nil, storeError(err)
	}
	if !found {
		return nil, refuse(reasonUnknownCode, "code: no ticket with this code in the imported manifests")
	}
	if t.Game != "" {
		return nil, refuse(reasonCodePlayed, "code: %v", qod.ErrTicketPlayed)
	}
	if t.Quit != nil {
		return nil, ticketQuitRefusal(t.Quit)
	}
	now := e.now()
	if !now.Before(em.StartDeadline) {
		return nil, refuse(reasonDeadlinePassed, "code: start deadline passed: emission %s closed on %s, stage 2 could start until %s",
			t.Emission, em.Closure, em.StartDeadline.Format(time.RFC3339))
	}
	if err := e.logRefusingStarts(); err != nil {
		return nil, err
	}
	d, err := e.drawStart(server, emissionTicket{ticket: ticket, emission: t.Emission, stake: t.Stake}, now, em.StartDeadline, e.keepSecret)
	if err != nil {
		return nil, err
	}
	g, id, secret, alpha, proof, beta := d.game, d.game.ID, d.secret, d.alpha, d.proof, d.beta
	commitment := record.Commit(secret)
	rec := &record.GameStart{Time: now, Game: id, Emission: t.Emission, Ticket: ticket, Stake: t.Stake,
		Multipliers: g.Multipliers, Amounts: g.Amounts, Commit: commitment, Expires: g.Expires, Server: server}
	rec.Req, rec.ReqDigest = c.stamp()
	if beta != nil {
		rec.Key, rec.Proof, rec.Beta = e.keyID, proof, beta
	}
	sg := &storedGame{Game: g, Server: server, Secret: secret, HasSecret: true, commit: commitment}
	// The log may have failed while the key custody proved (a slow HSM):
	// looked at again, so that r is forgotten rather than left behind.
	if err := e.logRefusingStarts(); err != nil {
		e.forgetSecret(id)
		return nil, err
	}
	s, err := e.seal(ctx, sg, rec, alpha, proof, beta)
	if err != nil {
		if appendRefusedUnseen(err) {
			e.forgetSecret(id)
		}
		return nil, err
	}
	reply = &qodv1.GameReply{Game: e.gameProto(sg, now), Receipt: publicReceipt(s.receipt, false)}
	t.Game = id
	err = e.commit(&c, reply, sg, []sealed{s}, func(tx *bolt.Tx) error {
		return putJSON(tx, bucketTickets, ticket[:], &t)
	})
	if err != nil {
		return nil, err
	}
	e.log.Debug("game started", "game", id, "emission", t.Emission, "stake_cents", t.Stake, "log_index", s.index)
	return e.withInclusion(ctx, reply), nil
}

// pick draws whether a number is good or losing.
func (e *engine) pick(ctx context.Context, server string, req *qodv1.PickRequest) (*qodv1.GameReply, error) {
	c, err := newCall(server, "Pick", req)
	if err != nil {
		return nil, err
	}
	if req.Number < 1 || req.Number > qod.Numbers {
		return nil, refuse(reasonNumberRange, "number: %d is out of range 1..%d", req.Number, qod.Numbers)
	}
	reply := new(qodv1.GameReply)
	sg, unlock, done, err := e.enterGame(ctx, c, req.GameId, server, reply)
	defer unlock()
	if done || err != nil {
		return reply, err
	}
	now := e.now()
	number := int(req.Number)
	if err := sg.Game.CheckPick(number, now); err != nil {
		return nil, ruleError(err)
	}
	index := sg.Game.Picks
	g, losing, alpha, proof, beta, err := e.drawPick(sg, number, now)
	if err != nil {
		return nil, err
	}
	outcome := record.OutcomeGood
	if losing {
		outcome = record.OutcomeLosing
	}
	rec := &record.Pick{Time: now, Game: sg.Game.ID, Index: index, Number: number, Outcome: outcome,
		Key: e.keyID, Proof: proof, Beta: beta, Prev: sg.LastHash}
	rec.Req, rec.ReqDigest = c.stamp()
	s, err := e.seal(ctx, sg, rec, alpha, proof, beta)
	if err != nil {
		return nil, err
	}
	sg.Game = g
	return e.finish(ctx, &c, sg, now, []sealed{s}, &qodv1.PickResult{Number: uint32(number), Losing: losing})
}

// enterGame locks the call's request id and game, checks the call against
// its request id (after storeUsable) and loads the game for server. done
// reports a retry: reply then holds the stored reply. The caller defers
// unlock in every case.
func (e *engine) enterGame(ctx context.Context, c call, id, server string, reply *qodv1.GameReply) (sg *storedGame, unlock func(), done bool, err error) {
	unlock = func() {}
	if id == "" {
		return nil, unlock, false, refuse(reasonGameIDMissing, "game_id: required")
	}
	if done, err = e.storeUsable(c, reply); done || err != nil {
		_, err = e.replayInclusion(ctx, reply, done, err)
		return nil, unlock, done, err
	}
	req := e.lockRequest(c)
	g := e.gameLocks.lock(id)
	unlock = func() { g.unlock(); req.unlock() }
	if done, err = e.replayed(c, reply); done || err != nil {
		_, err = e.replayInclusion(ctx, reply, done, err)
		return nil, unlock, done, err
	}
	if sg, err = e.loadGame(id, server); err != nil {
		return sg, unlock, false, err
	}
	if sg.Game.Phase.Over() && !sg.Ended {
		if done, err = e.resumeCut(ctx, c, sg, reply); done || err != nil {
			return sg, unlock, done, err
		}
	}
	return sg, unlock, false, e.playable(sg)
}

// resumeCut finishes, on its retry, a call cut short between its records:
// its last record (a losing pick, a pick reaching tier 4, a stop) is in the
// log and the store, but its end record could not be appended, and the call
// was told to retry. If the game's last record is c's, the retry seals the
// end with c's stamp and gets the reply the call would have had, stored as
// any other (done). A game whose last record is another call's is left to
// its own retry or to the sweeper.
func (e *engine) resumeCut(ctx context.Context, c call, sg *storedGame, reply *qodv1.GameReply) (bool, error) {
	var leaf []byte
	var index uint64
	err := e.store.view(func(tx *bolt.Tx) error {
		leaves, indices, err := gameRecords(tx, sg.Game.ID, sg.Records)
		if err == nil {
			leaf, index = leaves[len(leaves)-1], indices[len(indices)-1]
		}
		return err
	})
	if err != nil {
		return false, storeError(err)
	}
	rec, err := record.Parse(leaf)
	if err != nil {
		return false, refuseHiding(reasonInternal, err, "game %s: its last record", sg.Game.ID)
	}
	gr, ok := rec.(record.GameRecord)
	if !ok {
		return false, nil
	}
	if req, digest, _ := requestOf(gr); req != c.req || digest != c.digest {
		return false, nil
	}
	var pick *qodv1.PickResult
	if p, ok := rec.(*record.Pick); ok {
		pick = &qodv1.PickResult{Number: uint32(p.Number), Losing: p.Outcome == record.OutcomeLosing}
	}
	r, err := e.recordReceipt(sg, leaf, index)
	if err != nil {
		return false, refuseHiding(reasonInternal, err, "game %s: its last record", sg.Game.ID)
	}
	c.prior = 1
	out, err := e.finish(ctx, &c, sg, e.now(), []sealed{{leaf: leaf, index: index, receipt: r}}, pick)
	if err != nil {
		return false, err
	}
	proto.Merge(reply, out)
	return true, nil
}

// playable refuses draws for a game whose secret was lost (see Rebuild).
func (e *engine) playable(sg *storedGame) error {
	if !sg.HasSecret && !sg.Game.Phase.Over() {
		return refuse(reasonSecretLost, "game_id: game %q cannot continue: its secret r was lost (secrets.db does not hold it: lost, or another data directory's); the operator must refund it", sg.Game.ID)
	}
	return nil
}

// decide seals a stop or a continue at a tier.
func (e *engine) decide(ctx context.Context, server string, req *qodv1.DecideRequest) (*qodv1.GameReply, error) {
	c, err := newCall(server, "Decide", req)
	if err != nil {
		return nil, err
	}
	choice := ""
	switch req.Decision {
	case qodv1.Decision_DECISION_STOP:
		choice = record.ChoiceStop
	case qodv1.Decision_DECISION_CONTINUE:
		choice = record.ChoiceContinue
	default:
		return nil, refuse(reasonDecisionInvalid, "decision: %v, must be DECISION_STOP or DECISION_CONTINUE", req.Decision)
	}
	reply := new(qodv1.GameReply)
	sg, unlock, done, err := e.enterGame(ctx, c, req.GameId, server, reply)
	defer unlock()
	if done || err != nil {
		return reply, err
	}
	now := e.now()
	var g qod.Game
	if choice == record.ChoiceStop {
		g, err = sg.Game.Stop(now)
	} else {
		g, err = sg.Game.Continue(now)
	}
	if err != nil {
		return nil, ruleError(err)
	}
	rec := &record.Decision{Time: now, Game: sg.Game.ID, Tier: sg.Game.Tier, Choice: choice, Prev: sg.LastHash}
	rec.Req, rec.ReqDigest = c.stamp()
	s, err := e.seal(ctx, sg, rec, nil, nil, nil)
	if err != nil {
		return nil, err
	}
	sg.Game = g
	return e.finish(ctx, &c, sg, now, []sealed{s}, nil)
}

// finish seals the end record when the game is over, then stores the game
// and the reply.
func (e *engine) finish(ctx context.Context, c *call, sg *storedGame, now time.Time, recs []sealed, pick *qodv1.PickResult) (*qodv1.GameReply, error) {
	reply := &qodv1.GameReply{Pick: pick}
	if len(recs) > 0 {
		reply.Receipt = recs[0].receipt
	}
	if sg.Game.Phase.Over() {
		end, err := e.sealEnd(ctx, c, sg, now, "")
		if err != nil {
			// The game's last event is in the log; store it so that the
			// store follows the log. The call's retry seals the end
			// (resumeCut), or else the sweeper. Its request id is taken
			// by the records it sealed, as a restart's catch-up stores it
			// from their stamps: the same id with other content is
			// refused, on any game, and replyOf, which makes no reply of
			// a game over but not ended, sends the retry to resumeCut;
			// once the end is stored (the sweeper's, or this one's if the
			// log took it after all), replyOf counts it as the call's.
			rc := c
			if len(recs) == 0 {
				rc = nil // nothing of the call's sealed (the sweeper's end)
			}
			e.commit(rc, nil, sg, recs, nil)
			return nil, cut(err, recs)
		}
		recs = append(recs, end)
		reply.EndReceipt = end.receipt
		if reply.Receipt == nil {
			reply.Receipt = end.receipt
		}
	}
	reply.Game = e.gameProto(sg, now)
	reply.Receipt = publicReceipt(reply.Receipt, sg.Ended)
	if err := e.commit(c, reply, sg, recs, nil); err != nil {
		return nil, err
	}
	return e.withInclusion(ctx, reply), nil
}

// publicReceipt is a receipt as it may leave the daemon: α contains the
// game's secret r, so it is shown only once the game has ended (its end
// record reveals r); before that a receipt carries π and β, and the proof is
// checked from the transcript after the end.
// r is the caller's own (made for this reply), and is changed.
func publicReceipt(r *qodv1.Receipt, ended bool) *qodv1.Receipt {
	if r != nil && !ended {
		r.VrfAlpha = nil
	}
	return r
}

// sealEnd appends the end record of a game that is over; it reveals r. c is
// the call that ends it (nil for the sweeper); refundReason is the
// operator's reason when the game is refunded, sealed in the record.
func (e *engine) sealEnd(ctx context.Context, c *call, sg *storedGame, now time.Time, refundReason string) (sealed, error) {
	g := sg.Game
	if !sg.HasSecret && g.Phase != qod.Refunded && g.Phase != qod.Expired {
		// Its end would have to reveal r, which is lost: an end record
		// without it is valid for a refund or an expiry only
		// (record.GameEnd.SecretLost), the outcomes no draw decided.
		// Nothing is sealed; an operator must look.
		e.metrics.alarms.WithLabelValues("store").Inc()
		e.log.Error("game over but its end cannot be sealed: its secret r was lost", "game", g.ID, "result", g.Result())
		return sealed{}, refuse(reasonSecretLost, "game_id: game %q is %s but its end cannot be sealed: its secret r was lost (secrets.db); an operator must investigate", g.ID, g.Phase)
	}
	rec := &record.GameEnd{Time: now, Game: g.ID, Result: g.Result(), Tier: g.Tier, Win: g.Win,
		Refund: g.RefundAmount, Reason: []byte(refundReason), Secret: sg.Secret, Prev: sg.LastHash}
	rec.Req, rec.ReqDigest = c.stamp()
	s, err := e.seal(ctx, sg, rec, nil, nil, nil)
	if err != nil {
		return s, err
	}
	sg.Ended, sg.EndedAt = true, now
	e.log.Debug("game ended", "game", g.ID, "result", g.Result(), "tier", g.Tier, "win_cents", g.Win, "log_index", s.index)
	return s, nil
}

// endGame ends an unfinished game by expiry (the sweeper: refundReason "")
// or refund (the operator, who gives its reason, sealed in the end record).
func (e *engine) endGame(ctx context.Context, c *call, id string, refundReason string) (*qodv1.GameReply, error) {
	refund := refundReason != ""
	if c != nil {
		defer e.lockRequest(*c).unlock()
	}
	defer e.gameLocks.lock(id).unlock()
	reply := new(qodv1.GameReply)
	if c != nil {
		if ok, err := e.replayed(*c, reply); ok || err != nil {
			return reply, err
		}
	}
	// As a draw: refused before anything is sealed, not after (its commit
	// would fail with the end in the log).
	if err := e.storeHealth(); err != nil {
		return nil, err
	}
	sg, err := e.loadGame(id, "")
	if err != nil {
		return nil, err
	}
	now := e.now()
	if !refund && sg.Game.Phase.Over() && !sg.Ended {
		// A game whose end could not be sealed before (log failure): the
		// sweeper seals it. A refund of it is refused below (game over):
		// answered with the end of a lost or won game, it would read as
		// done, and the end is left to the call that was cut short
		// (resumeCut), whose retry then gets its own reply.
		return e.finish(ctx, c, sg, now, nil, nil)
	}
	var g qod.Game
	if refund {
		// Article 2.2.11 after the deadline too, until game.refund_grace
		// has passed: then the game is due for its expiry (article
		// 2.2.10: no refund), sealed by the sweeper or not yet.
		grace := e.cfg.Game.refundGrace()
		switch ends := sg.Game.Expires.UTC().Format(time.RFC3339); {
		case sg.Game.Phase == qod.Expired:
			return nil, refuse(reasonGameOver, "game_id: game %s is expired: its 30 days ended %s and the sweeper sealed its expiry %s, once game.refund_grace (%s) had passed; a refund (article 2.2.11) is taken only until then: game over",
				quoted(id), ends, sg.Game.Last.UTC().Format(time.RFC3339), Duration{grace})
		case !sg.Game.Phase.Over() && !now.Before(sg.Game.Expires.Add(grace)):
			return nil, refuse(reasonGameExpired, "game_id: game %s expired: its 30 days ended %s and game.refund_grace (%s) has passed since; a refund (article 2.2.11) is taken only until then, and the sweeper seals its expiry",
				quoted(id), ends, Duration{grace})
		}
		g, err = sg.Game.Refund(now)
	} else {
		g, err = sg.Game.Expire(now)
	}
	if err != nil {
		return nil, ruleError(err)
	}
	sg.Game = g
	end, err := e.sealEnd(ctx, c, sg, now, refundReason)
	if err != nil {
		return nil, err
	}
	reply = &qodv1.GameReply{Game: e.gameProto(sg, now), Receipt: end.receipt, EndReceipt: end.receipt}
	if err := e.commit(c, reply, sg, []sealed{end}, nil); err != nil {
		return nil, err
	}
	return reply, nil
}

// sweep ends as expired every unfinished game whose play window ended
// game.refund_grace ago or more, and seals the end of games whose end could
// not be sealed before. Until then a game past its deadline refuses the
// player's events and shows as expired (gameProto), but the operator may
// still refund it (article 2.2.11). It counts the games again after.
func (e *engine) sweep(ctx context.Context) ([]string, error) {
	defer e.countGames()
	now := e.now()
	grace := e.cfg.Game.refundGrace()
	var due []string
	err := e.store.view(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketUnfinished).ForEach(func(k, v []byte) error {
			_, id, _ := strings.Cut(string(k), "\x00")
			if stageOf(v, now, grace) == stageDue {
				due = append(due, id)
				return nil
			}
			var sg storedGame
			if ok, _ := getStoredGame(tx, []byte(id), &sg); ok && sg.Game.Phase.Over() && !sg.Ended {
				due = append(due, id)
			}
			return nil
		})
	})
	if err != nil {
		// Not "no game due": the sweep would say it ended none.
		return nil, storeError(fmt.Errorf("couldn't read the unfinished games: %w", err))
	}
	var ended []string
	for _, id := range due {
		if _, err := e.endGame(ctx, nil, id, ""); err != nil {
			if status.Code(err) == codes.FailedPrecondition {
				continue // finished meanwhile
			}
			return ended, err
		}
		ended = append(ended, id)
	}
	return ended, nil
}

// stage is where an unfinished game stands at a time, by its deadline.
type stage int

const (
	stageInPlay  stage = iota // before its 30-day deadline
	stageInGrace              // past it, within game.refund_grace: RefundGame takes it
	stageDue                  // past the grace too: the sweeper's to end
)

// stageOf is the stage at now of the unfinished game whose entry in
// bucketUnfinished is v (its deadline, putGame).
func stageOf(v []byte, now time.Time, grace time.Duration) stage {
	if len(v) != 8 {
		return stageInPlay
	}
	switch expires := time.Unix(int64(beUint64(v)), 0); {
	case now.Before(expires):
		return stageInPlay
	case now.Before(expires.Add(grace)):
		return stageInGrace
	}
	return stageDue
}

// countUnfinished counts the unfinished games by their stage at now.
func countUnfinished(tx *bolt.Tx, now time.Time, grace time.Duration) (n [stageDue + 1]int) {
	tx.Bucket(bucketUnfinished).ForEach(func(_, v []byte) error {
		n[stageOf(v, now, grace)]++
		return nil
	})
	return n
}

// countGames sets tirage_games_unfinished (the games in play),
// tirage_games_in_refund_grace and tirage_games_expiry_due (past the grace,
// not swept yet) as the store holds them now. It runs at the start, after
// each sweep (one that failed too) and after each refund: not on the draw
// path, whose starts and ends show at the next count.
func (e *engine) countGames() {
	e.countMu.Lock()
	defer e.countMu.Unlock()
	var n [stageDue + 1]int
	err := e.store.view(func(tx *bolt.Tx) error {
		n = countUnfinished(tx, e.now(), e.cfg.Game.refundGrace())
		return nil
	})
	if err != nil {
		return // the store's alarm is up; the gauges keep the last count
	}
	e.metrics.unfinished.Set(float64(n[stageInPlay]))
	e.metrics.inGrace.Set(float64(n[stageInGrace]))
	e.metrics.expiryDue.Set(float64(n[stageDue]))
}

// sweepLoop sweeps every game.sweep_interval, and at once when Start or
// resync asks (sweepc), until ctx is done, and calls after (when not nil) before
// and after each sweep.
func (e *engine) sweepLoop(ctx context.Context, after func()) {
	t := time.NewTicker(e.cfg.Game.SweepInterval.Duration)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-e.sweepc:
		}
		if after != nil {
			after() // now, not only once a slow sweep is done
		}
		e.sweepOnce(ctx)
		e.prune(ctx)
		if after != nil {
			after()
		}
	}
}

// sweepOnce sweeps (sweep) if the gate admits it, and logs the outcome. A
// failed sweep is the next one's to do again.
func (e *engine) sweepOnce(ctx context.Context) {
	release, err := e.enter()
	if err != nil {
		e.countGames() // the games due build up while the log is out
		e.log.Warn("sweep deferred: rngd is catching up with the log", "err", err)
		return
	}
	ended, err := e.sweep(ctx)
	release()
	if err != nil {
		e.log.Error("sweep failed", "err", err)
	} else if len(ended) > 0 {
		e.log.Info("expired games ended", "count", len(ended))
	}
}

// pruneChunk is how many stored replies one transaction of prune deletes at
// most: the store's writer waits meanwhile.
const pruneChunk = 10_000

// prune deletes the replies stored longer than game.reply_retention ago,
// pruneChunk at a time.
func (e *engine) prune(ctx context.Context) {
	cutoff := e.clock.Now().Add(-e.cfg.Game.ReplyRetention.Duration)
	total := 0
	for ctx.Err() == nil {
		n, err := e.store.pruneRequests(cutoff, pruneChunk)
		if err != nil {
			e.log.Error("pruning stored replies failed", "err", err)
			break
		}
		total += n
		if n < pruneChunk {
			break
		}
	}
	if total > 0 {
		e.log.Info("stored replies pruned", "count", total, "before", cutoff)
	}
}

// gameProto is a game as the API shows it. A game past its play window but
// not yet swept shows as expired (article 2.2.10: the player is told): it
// accepts no more picks, though within game.refund_grace the operator may
// still refund it.
func (e *engine) gameProto(sg *storedGame, now time.Time) *qodv1.Game {
	g := sg.Game
	p := &qodv1.Game{
		GameId:       g.ID,
		Server:       sg.Server,
		EmissionId:   g.Emission,
		StakeCents:   g.Stake,
		GoodCount:    uint32(g.Good()),
		Tier:         uint32(g.Tier),
		PrizeCents:   g.Win,
		StartedAt:    timestamppb.New(g.Started),
		ExpiresAt:    timestamppb.New(g.Expires),
		LastLogIndex: sg.LastIndex,
	}
	switch {
	case sg.commit != [32]byte{}: // the secret's commitment, or a lost one's
		p.Commitment = bytes.Clone(sg.commit[:])
	case sg.HasSecret:
		c := record.Commit(sg.Secret)
		p.Commitment = c[:]
	}
	p.Multipliers = make([]uint32, qod.Tiers)
	p.TierAmountsCents = make([]int64, qod.Tiers)
	for t := range qod.Tiers {
		p.Multipliers[t], p.TierAmountsCents[t] = uint32(g.Multipliers[t]), g.Amounts[t]
	}
	if picked := g.PickedNumbers(); len(picked) > 0 {
		results := make([]qodv1.PickResult, len(picked)) // one allocation for all
		p.Picks = make([]*qodv1.PickResult, len(picked))
		for i, n := range picked {
			results[i].Number, results[i].Losing = uint32(n), g.Phase == qod.Lost && i == g.Picks-1
			p.Picks[i] = &results[i]
		}
	}
	switch g.Phase {
	case qod.Playing:
		p.Status = qodv1.Status_STATUS_PLAYING
	case qod.AtTier:
		p.Status = qodv1.Status_STATUS_AT_TIER
	case qod.Won:
		p.Status = qodv1.Status_STATUS_WON
	case qod.Lost:
		p.Status = qodv1.Status_STATUS_LOST
	case qod.Expired:
		p.Status = qodv1.Status_STATUS_EXPIRED
	case qod.Refunded:
		p.Status = qodv1.Status_STATUS_REFUNDED
	}
	if !g.Phase.Over() && !now.Before(g.Expires) {
		p.Status = qodv1.Status_STATUS_EXPIRED
	}
	if sg.Ended {
		p.EndedAt = timestamppb.New(sg.EndedAt)
		if sg.HasSecret {
			p.Secret = sg.Secret[:]
		}
	}
	return p
}

// getGame returns a game's exact state (server "" = operator: any game).
func (e *engine) getGame(server, id string) (*qodv1.Game, error) {
	sg, err := e.loadGame(id, server)
	if err != nil {
		return nil, err
	}
	return e.gameProto(sg, e.now()), nil
}

// The pages of ListUnfinishedGames and ListExpiredGames (AIP-158):
// page_size 0 is defaultPageSize, one above maxPageSize is maxPageSize. A
// page of maxPageSize games is about 140 KB, far below a client's default
// 4 MiB limit on a message received, and reads as many secrets.
const (
	defaultPageSize = 500
	maxPageSize     = 1000
)

// pageSize is how many games a page of page_size holds (ListUnfinishedGames,
// ListExpiredGames): a negative one is refused.
func pageSize(n int32) (int, error) {
	switch {
	case n < 0:
		return 0, refuse(reasonPageSizeInvalid, "page_size: %d is negative (0 is the default, %d; at most %d)", n, defaultPageSize, maxPageSize)
	case n == 0:
		return defaultPageSize, nil
	case n > maxPageSize:
		return maxPageSize, nil
	}
	return int(n), nil
}

// pageTokenV1 is the first byte of a page token (pageToken).
const pageTokenV1 = 1

// pageToken is the next_page_token of a page whose last game is id: the
// version byte and id, base64url. It grants nothing: parsePageToken takes
// only an id of the caller's own games, and the listing stays under the
// caller's prefix, so a token forged or made for another game server lists
// nothing of another's (it is refused). Tokens live across restarts of
// rngd, since they name a game and no state of the daemon.
func pageToken(id string) string {
	return base64.RawURLEncoding.EncodeToString(append([]byte{pageTokenV1}, id...))
}

// parsePageToken returns the game id in token (pageToken), which must be
// one of server's game ids (gameID), spelt as pageToken spells it.
func parsePageToken(server, token string) (string, error) {
	bad := refuse(reasonPageTokenInvalid, "page_token: not a next_page_token that ListUnfinishedGames returned to this game server (leave it empty for the first page)")
	if len(token) > base64.RawURLEncoding.EncodedLen(1+len(server)+1+gameIDDigits) {
		return "", bad
	}
	b, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil || len(b) == 0 || b[0] != pageTokenV1 {
		return "", bad
	}
	id := string(b[1:])
	digits, ok := strings.CutPrefix(id, server+"/")
	if !ok || len(digits) != gameIDDigits || strings.Trim(digits, "0123456789abcdef") != "" {
		return "", bad
	}
	// Only the spelling pageToken writes: the decoder also takes a last
	// character with padding bits set, and skips CR and LF, so one page
	// would have several tokens.
	if pageToken(id) != token {
		return "", bad
	}
	return id, nil
}

// listUnfinished lists a page of server's unfinished games: in play, and
// past their deadline until their end is sealed (STATUS_EXPIRED,
// gameProto). They come in the order of their keys in bucketUnfinished,
// by start time then id (gameID); a page starts after the last game of
// the page before, named by its token, whether that game has ended since
// or not.
func (e *engine) listUnfinished(server string, req *qodv1.ListUnfinishedGamesRequest) (*qodv1.ListUnfinishedGamesResponse, error) {
	size, err := pageSize(req.PageSize)
	if err != nil {
		return nil, err
	}
	prefix := joinKey(server, nil)
	var after []byte
	if req.PageToken != "" {
		id, err := parsePageToken(server, req.PageToken)
		if err != nil {
			return nil, err
		}
		after = joinKey(server, []byte(id))
	}
	games, more, err := e.listGames(prefix, after, size)
	if err != nil {
		return nil, err
	}
	reply := &qodv1.ListUnfinishedGamesResponse{Games: games}
	if more {
		reply.NextPageToken = pageToken(games[len(games)-1].GameId)
	}
	return reply, nil
}

// listGames lists the unfinished games whose key in bucketUnfinished is
// under prefix and above after (nil: from the first): at most limit of
// them (0: all), and whether more follow. The secrets of the games in play
// are read in one transaction.
func (e *engine) listGames(prefix, after []byte, limit int) (out []*qodv1.Game, more bool, err error) {
	now := e.now()
	err = e.store.view(func(tx *bolt.Tx) error {
		var games []*storedGame
		cur := tx.Bucket(bucketUnfinished).Cursor()
		k, _ := cur.Seek(prefix)
		if after != nil {
			// The game of the token may have ended since: the next key.
			if k, _ = cur.Seek(after); bytes.Equal(k, after) {
				k, _ = cur.Next()
			}
		}
		for ; k != nil && bytes.HasPrefix(k, prefix); k, _ = cur.Next() {
			if limit > 0 && len(games) == limit {
				more = true
				break
			}
			_, id, _ := bytes.Cut(k, []byte{0})
			sg := new(storedGame)
			if _, err := getStoredGame(tx, id, sg); err != nil {
				return err
			}
			games = append(games, sg)
		}
		if err := e.fillSecrets(tx, games); err != nil {
			return err
		}
		for _, sg := range games {
			out = append(out, e.gameProto(sg, now))
		}
		return nil
	})
	if err != nil {
		return nil, false, storeError(err)
	}
	return out, more, nil
}

// proveInclusion waits at most wait for a checkpoint that covers every
// receipt, then adds the checkpoint and each record's inclusion proof to the
// receipts it covers. Receipts it cannot prove stay without (the caller may
// ask again with GetReceipts).
func (e *engine) proveInclusion(ctx context.Context, wait time.Duration, start *qodv1.Receipt, rs ...*qodv1.Receipt) {
	var last uint64
	for _, r := range rs {
		last = max(last, r.LogIndex)
	}
	cp, err := e.awaitCheckpoint(ctx, wait, last+1)
	if err != nil {
		return
	}
	e.includeIn(ctx, cp, start, rs...)
}

// awaitCheckpoint waits at most wait for a checkpoint of at least size
// records; past it, it returns the latest.
func (e *engine) awaitCheckpoint(ctx context.Context, wait time.Duration, size uint64) (*checkpoint.Checkpoint, error) {
	wctx, cancel := context.WithTimeout(ctx, wait)
	cp, err := e.tlog.AwaitCheckpoint(wctx, size)
	cancel()
	if err != nil {
		return e.tlog.Checkpoint(ctx)
	}
	return cp, nil
}

// includeIn adds to each receipt of rs that cp covers cp and the record's
// inclusion proof (and the start's, see proveInclusion). It returns the
// first proof that could not be read; that receipt is left without.
func (e *engine) includeIn(ctx context.Context, cp *checkpoint.Checkpoint, start *qodv1.Receipt, rs ...*qodv1.Receipt) error {
	hashes := func(p tlog.RecordProof) [][]byte {
		out := make([][]byte, 0, len(p))
		for _, h := range p {
			out = append(out, append([]byte(nil), h[:]...))
		}
		return out
	}
	var startProof [][]byte
	if start != nil && start.LogIndex < cp.Size {
		if p, err := e.tlog.InclusionProof(ctx, start.LogIndex, cp.Size); err == nil {
			startProof = hashes(p)
		}
	}
	var first error
	for _, r := range rs {
		if r.LogIndex >= cp.Size {
			continue
		}
		proof, err := e.tlog.InclusionProof(ctx, r.LogIndex, cp.Size)
		if err != nil {
			if first == nil {
				first = err
			}
			continue
		}
		r.Checkpoint = cp.Note
		r.InclusionProof = hashes(proof)
		r.StartRecord, r.StartLogIndex, r.StartInclusionProof = nil, 0, nil
		if startProof != nil && r.LogIndex > start.LogIndex {
			// A later record of the game: its start binds α to H(r).
			r.StartRecord, r.StartLogIndex, r.StartInclusionProof = start.Record, start.LogIndex, startProof
		}
	}
	return first
}

// startOf is the receipt of game id's start record, without proofs (for
// the start members of its later records' receipts).
func (e *engine) startOf(id string) (*qodv1.Receipt, error) {
	var r *qodv1.Receipt
	read := func(tx *bolt.Tx) error {
		leaves, indices, err := gameRecords(tx, id, 1)
		if err == nil {
			r = &qodv1.Receipt{Record: leaves[0], LogIndex: indices[0]}
		}
		return err
	}
	// As committed, without waiting for the writer; a start still in the
	// writer's lingering batch (a pick soon after its start) has it
	// committed first: once, since it is then in the file.
	if err := e.store.read(read); err == nil {
		return r, nil
	}
	return r, e.store.view(read)
}

// withInclusion adds inclusion proofs to a mutating call's reply when
// log.receipt_wait asks for them. The stored reply has none: a retry gets
// them from replayInclusion.
func (e *engine) withInclusion(ctx context.Context, reply *qodv1.GameReply) *qodv1.GameReply {
	if e.cfg.Log.ReceiptWait.Duration > 0 && reply.Receipt != nil {
		reply = proto.Clone(reply).(*qodv1.GameReply)
		e.includeInPlace(ctx, reply)
	}
	return reply
}

// replayInclusion is what a retry answers when replayed found its stored
// reply (ok) or refused it (err): the reply gets the checkpoint and
// inclusion proofs the first reply carried under log.receipt_wait — the
// same checkpoint's, or a later one's when the log signed another since;
// without them a game server whose first reply was lost would never get
// the proofs it is configured to receive. reply is the retry's own copy
// (replayed merges the stored reply into it).
func (e *engine) replayInclusion(ctx context.Context, reply *qodv1.GameReply, ok bool, err error) (*qodv1.GameReply, error) {
	if err != nil || !ok {
		return reply, err
	}
	if e.cfg.Log.ReceiptWait.Duration > 0 && reply.Receipt != nil {
		e.includeInPlace(ctx, reply)
	}
	return reply, nil
}

// includeInPlace adds to reply's receipts the checkpoint and inclusion
// proofs (log.receipt_wait).
func (e *engine) includeInPlace(ctx context.Context, reply *qodv1.GameReply) {
	if w := e.cfg.Log.ReceiptWait.Duration; w > 0 && reply.Receipt != nil {
		rs := []*qodv1.Receipt{reply.Receipt}
		if reply.EndReceipt != nil {
			rs = append(rs, reply.EndReceipt)
		}
		var start *qodv1.Receipt
		if reply.Game != nil {
			start, _ = e.startOf(reply.Game.GameId) // without it, the receipts only lack their start
		}
		e.proveInclusion(ctx, w, start, rs...)
	}
}

// receiptWait bounds how long GetReceipts waits for a checkpoint covering
// the game's last record (the log signs one every checkpoint interval).
const receiptWait = 3 * time.Second

// receipts returns a game's receipts, with inclusion proofs in the latest
// checkpoint for the records it covers.
func (e *engine) receipts(ctx context.Context, server, id string) ([]*qodv1.Receipt, error) {
	sg, err := e.loadGame(id, server)
	if err != nil {
		return nil, err
	}
	var out []*qodv1.Receipt
	err = e.store.view(func(tx *bolt.Tx) error {
		leaves, indices, err := gameRecords(tx, id, sg.Records)
		if err != nil {
			return err
		}
		for i, leaf := range leaves {
			r, err := e.recordReceipt(sg, leaf, indices[i])
			if err != nil {
				return err
			}
			out = append(out, r)
		}
		return nil
	})
	if err != nil {
		return nil, storeError(err)
	}
	for i := range out {
		out[i] = publicReceipt(out[i], sg.Ended)
	}
	var start *qodv1.Receipt
	if len(out) > 0 {
		start = out[0]
	}
	e.proveInclusion(ctx, receiptWait, start, out...)
	return out, nil
}
