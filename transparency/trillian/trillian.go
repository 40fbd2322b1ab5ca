// Package trillian is the scale-out transparency log backend: a Trillian v1.8
// LOG tree (trillian_log_server + trillian_log_signer on MariaDB/MySQL),
// reached through its gRPC API, which several rngd replicas can share.
//
// # Appends and latency
//
// Trillian splits an append in two: QueueLeaf stores the leaf durably in the
// database's queue, and the signer later sequences queued leaves (assigns
// indices) and integrates them into the tree, every sequencer interval.
// transparency.Log promises an index, so Append queues the leaf and then
// waits until it is integrated: one follower goroutine polls the log root
// (Config.PollInterval) while appends wait, signs it, reads the newly
// integrated leaves by range, checks them against the checkpoint just
// signed and hands each waiting Append its index: an index Trillian
// misreports is ErrSecurity, not a receipt for another leaf's position. The
// price is latency — the sequencer interval plus a poll interval plus a
// few round trips (≈ 15–30 ms on a quiet stack with scripts/trillian.sh's
// 10 ms sequencer interval) — not throughput: waits overlap, and the
// signer sequences in batches. With Config.StateFile, each leaf is first
// written to the pending file (below): one fsync, shared by the appends
// arriving meanwhile, before the QueueLeaf, and, on a quiet log, one more
// after the append to empty the file (well under a millisecond each on an
// idle SSD; a few milliseconds on a disk the database keeps busy).
//
// A leaf equal to a leaf already in the tree is not appended again:
// Trillian deduplicates by leaf identity, and Append returns the existing
// index. (The embedded backend appends duplicates; draw records are unique,
// since each one links to the previous record of its game.)
//
// # Appends that fail
//
// An Append that fails after its QueueLeaf was sent — timed out (signer or
// database stalled), its reply lost for the whole AppendTimeout (a lost
// reply is otherwise healed by sending the same leaf again, deduplicated),
// woken by the log failing closed, or by Close — or that never ends, rngd
// killed while it waits, leaves a leaf Trillian may integrate later,
// unacknowledged. The caller's retry is a new record (new time; for a
// start, a new secret and game id): both in the log would fork a game
// chain or start a ticket twice. So every leaf is recorded durably in
// Config.StateFile + ".pending" before its QueueLeaf is sent (the file is
// emptied once no append is outstanding), and an append that fails after
// sending it fails the log closed. Open queues the recorded leaves again
// and returns only once each is integrated in a tree it signed and
// verified (Config.PendingTimeout; past it Open fails with ErrUnavailable,
// and rngd does not start), then removes the file: whatever runs after
// Open finds them in the log (pending.go). No answer of Trillian drops a
// recorded leaf, a refusal included: it proves only that this QueueLeaf
// queued nothing. So Open first reads the tree (GetTree) and refuses one
// that is not an ACTIVE LOG tree — a PREORDERED_LOG tree named by mistake
// refuses every QueueLeaf — before it queues anything.
//
// # Outages
//
// Such a failure is an outage (ErrUnavailable): Trillian, its database or
// the disk stopped answering. Appends and checkpoints are refused at once
// while it lasts (Health reports it). With Config.Resync the log recovers
// by itself: a goroutine does what Open does — once no append is left
// settling its record, it reads the pending file, queues its leaves
// again and waits until each is integrated in a tree the log signed and
// verified (one attempt per Config.PendingTimeout, retried with backoff
// until Trillian answers and takes them) — then calls Config.Resync, which brings the
// caller level with the log (the failed appends' leaves are in it now,
// unacknowledged), and appends resume. Close stops it. Without
// Config.Resync an outage fails the log closed until it is reopened. A
// security failure (ErrSecurity: below) never recovers.
//
// While the log is idle, a probe reads the root every
// Config.HealthInterval without a root read, so that Health reports a log
// server or database that stopped answering before a draw is refused; the
// probe never fails the log closed, nor accepts the root it reads.
//
// # Checkpoints
//
// Trillian v1.8 returns unsigned log roots. The appliance signs the
// tlog-checkpoint itself (package transparency/checkpoint), with the same
// keys and shape as the embedded backend. Before signing a root larger than
// the last one it signed, it checks a consistency proof between the two, so
// a misbehaving Trillian or database cannot make it sign a fork
// (transparency.ErrSecurity). With Config.StateFile the last signed
// checkpoint survives restarts, and so does the check.
//
// # Rollback
//
// A root smaller than one already seen (signed, or read by the follower)
// is either a stale read (a lagging database replica behind the log
// server: transient) or the database restored from an older backup or
// otherwise rolled back (persistent). Such a root is re-read for up to
// Config.RollbackGrace; if no root read in that time reaches the size
// already seen, the log is taken for rolled back: the error
// (transparency.ErrSecurity, naming both sizes) is logged and from then on
// returned by Append, Checkpoint and AwaitCheckpoint — waiting appends
// included, whose leaves would otherwise get indices below those already
// handed out and never be delivered. Only a restart clears it (and with
// Config.StateFile, Open then refuses the tree too): unlike an outage, it
// does not recover by itself.
//
// # Answers checked
//
// Proofs, entries and the indices Append returns are checked against a
// root the appliance signed before they are returned (verify.go): a faulty or
// tampered database is reported here, with ErrSecurity, and the log fails
// closed as for a rollback, rather than by an auditor after a bad receipt.
package trillian

import (
	"bytes"
	"context"
	"crypto"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"sync"
	"time"

	tpb "github.com/google/trillian"
	"github.com/google/trillian/types"
	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"tirage.fr/tirage/transparency"
	"tirage.fr/tirage/transparency/atomicfile"
	"tirage.fr/tirage/transparency/checkpoint"
	vcheckpoint "tirage.fr/tirage/verifier/checkpoint"
)

// DefaultPollInterval is how often the root is polled while appends wait.
const DefaultPollInterval = 5 * time.Millisecond

// DefaultHealthInterval is how often an idle log reads Trillian's root to
// keep Health current (Config.HealthInterval).
const DefaultHealthInterval = 5 * time.Second

// DefaultAppendTimeout bounds an Append (QueueLeaf and the wait for the
// signer to integrate the leaf).
const DefaultAppendTimeout = 30 * time.Second

// DefaultPendingTimeout bounds Open's wait for the leaves of appends that
// failed or were cut short before (see pending.go) to be integrated.
const DefaultPendingTimeout = 2 * time.Minute

// DefaultRollbackGrace is how long a root smaller than one already seen may
// persist before it is taken for a rollback. A stale replica read clears in
// well under a second on a healthy database; a restored backup never does.
// Two seconds keeps the two apart while a rollback still fails appends
// within seconds rather than leaving them hanging.
const DefaultRollbackGrace = 2 * time.Second

// Config configures the Trillian backend.
type Config struct {
	// Conn is a gRPC connection to trillian_log_server (the caller dials it,
	// with TLS in production).
	Conn grpc.ClientConnInterface
	// TreeID is the LOG tree (created with CreateTree or Trillian's
	// createtree). Open reads it first with the admin API's GetTree, on
	// Conn, and refuses a tree that is not an ACTIVE LOG tree (a
	// PREORDERED_LOG, DRAINING, FROZEN or deleted tree refuses every
	// QueueLeaf) before it queues anything.
	TreeID int64
	// Origin names the log in checkpoints and keys (see tilelog.Config).
	Origin string
	// Signers sign checkpoints: Ed25519 (required) and ML-DSA-44.
	Signers []crypto.Signer
	// PollInterval is how often the log root is read while appends wait
	// (default 5 ms).
	PollInterval time.Duration
	// StateFile, if set, keeps the last checkpoint this appliance signed
	// (e.g. <data dir>/trillian-checkpoint), so that after a restart the
	// first Trillian root must still be consistent with it: a rolled-back
	// or forked database is then detected (ErrSecurity) instead of signed.
	// StateFile + ".pending" records each leaf before its QueueLeaf is
	// sent, until its append is acknowledged, and keeps the leaves of
	// appends that failed or were cut short after it was sent (they may
	// still be integrated): Open waits for them (PendingTimeout).
	// Production requires it (rngd sets <data dir>/trillian-checkpoint):
	// without it the leaves of failed appends are kept in memory only, and
	// a reopened log does not wait for them, nor for those of a killed
	// process.
	StateFile string
	// RPCTimeout bounds each Trillian call (default 10 s).
	RPCTimeout time.Duration
	// HealthInterval is how often the health probe reads Trillian's root
	// (GetLatestSignedLogRoot, bounded by HealthInterval and RPCTimeout)
	// while no root was read for that long — no append, checkpoint or
	// follower poll succeeded meanwhile (default DefaultHealthInterval).
	// A probe that fails makes Health return its error (the log server or
	// its database down, stalled or unreachable) until a root read
	// succeeds, so that an idle appliance reports an outage before a draw
	// is refused. It never fails the log closed, nor accepts the root it
	// reads: a root below one already seen, or another root for the size
	// last signed, is reported by Health and left to the next append or
	// checkpoint (checkRoot, sign). A stopped signer alone is not seen by
	// it (the log server still answers, the root does not grow): the next
	// append reports it (AppendTimeout).
	HealthInterval time.Duration
	// AppendTimeout bounds a whole Append, whatever its context (default
	// DefaultAppendTimeout): rngd appends with a context that is never
	// cancelled, so with the signer stopped an append would otherwise
	// wait for ever, holding its draw and its game. Past it Append fails
	// with ErrUnavailable (the draw is refused and counted) and the log
	// fails closed — an outage: until Resync's recovery, or until
	// reopened — since the leaf may still be integrated later,
	// unacknowledged, and must not be contradicted meanwhile. Its record
	// stays in the pending file (see StateFile), and Open, or the
	// recovery, waits until it is integrated. The bound covers the write
	// of that record, before the QueueLeaf: a disk that hangs fails the
	// append (not queued) and the log closed too, since the record may
	// land later.
	AppendTimeout time.Duration
	// PendingTimeout bounds Open's wait for the pending leaves to be
	// integrated (default DefaultPendingTimeout); past it Open fails with
	// ErrUnavailable, the pending file kept. It bounds each of the
	// recovery's attempts too (see Resync).
	PendingTimeout time.Duration
	// Resync, if set, lets the log recover from an outage without being
	// reopened. An outage is a failure of the ErrUnavailable kind that
	// fails the log closed: an append that failed after its QueueLeaf was
	// sent (AppendTimeout: signer or database stalled, replies lost, the
	// caller's context ended), or a write of the pending file that failed
	// or hung. Appends and checkpoints are then refused at once with that
	// error (Health returns it), and a goroutine does what Open does with
	// the pending file: once no append is left settling its record and
	// the file's writer is idle, it reads the file, queues every leaf in
	// it again and waits until each is integrated in a tree the log
	// signed and verified — within PendingTimeout, retried with backoff
	// while Trillian or the disk do not answer, or Trillian refuses a
	// leaf (never dropped: see pending.go). Then it calls Resync with
	// the latest checkpoint, and appends resume once Resync returns nil
	// (an error: the log stays failed, and tries again later).
	//
	// The leaves so integrated include those of the failed appends, whose
	// callers were told that they were not appended. Resync must bring
	// the caller level with the log before appends resume (rngd: its
	// catch-up from the log, as after a restart), or a retry — a new
	// record — would contradict one of them: a forked game chain, a
	// ticket started twice. Checkpoints and reads are served while it
	// runs; appends are not. ctx ends with Close, which waits for Resync
	// to return.
	//
	// A security failure (ErrSecurity: rollback, fork, inconsistent
	// answer) never recovers. Without Resync an outage fails the log
	// closed until it is reopened (Open then waits for the leaves).
	Resync func(ctx context.Context, cp *checkpoint.Checkpoint) error
	// RollbackGrace is how long Trillian may keep returning a root smaller
	// than one already seen (replica lag) before the log is taken for
	// rolled back: ErrSecurity (default DefaultRollbackGrace).
	RollbackGrace time.Duration
	// WitnessPolicy, when set, names the witnesses that must cosign every
	// checkpoint before it is handed out or saved (witness.go; the Sigsum
	// policy format with C2SP cosignature/v1 keys, read by
	// transparency.ParseWitnessPolicy).
	WitnessPolicy []byte
	// WitnessTimeout bounds how long one checkpoint waits for the
	// policy's quorum (default transparency.DefaultWitnessTimeout); at
	// most half of AppendTimeout, so that an append outlives a round of
	// witnesses that do not answer. signMu is held meanwhile: readers of
	// a new root wait for it too.
	WitnessTimeout time.Duration
	// Logger receives operational messages; nil discards them.
	Logger *slog.Logger
}

// Log is the Trillian backend; it implements transparency.Log.
type Log struct {
	cfg       Config
	client    tpb.TrillianLogClient
	signers   []note.Signer
	verifiers []note.Verifier
	vkeys     []string
	meter     transparency.Meter
	wit       *witnesses // nil without Config.WitnessPolicy
	cancel    context.CancelFunc
	done      chan struct{}

	signMu   sync.Mutex     // serialises sign
	inflight sync.WaitGroup // Appends in flight (Close waits for them)

	// pendMu guards the pending file's work and outstanding leaves
	// (pending.go).
	pendMu          sync.Mutex
	pendNext        *pendingBatch             // leaves waiting for the next write
	pendDrop        *pendingBatch             // refused leaves waiting for a rewrite without them
	pendCut         *pendingBatch             // an emptying an append waits for
	pendWriting     bool                      // the writer runs (pendingRun)
	pendRecording   bool                      // the writer is writing a batch of leaves
	pendWG          sync.WaitGroup            // the writer (Close waits for it)
	pendLive        map[*pendingLeaf]struct{} // outstanding leaves, their records durable
	pendLiveBytes   int64                     // their records' bytes
	pendDead        int64                     // bytes of records in the file whose leaves are acknowledged
	pendDeadRecords int                       // how many records those are
	pendErr         error                     // a write, cut or rewrite failed: the file is written no more
	// The pending file's writer (pendingRun) alone uses these, and Open
	// and the recovery (while the writer is idle and no append can start
	// it: pendingQuiet).
	pendSize int64 // end of its last durable record; 0: no file
	// pendWriteAt replaces (*os.File).WriteAt in tests (nil: not).
	pendWriteAt func(f *os.File, b []byte, off int64) (int, error)

	// recWG counts the recovery goroutine (Close waits for it); bg is its
	// context and the follower's, cancelled by Close (set before either
	// starts).
	recWG sync.WaitGroup
	bg    context.Context
	// probeWG counts the health probe (Close waits for it).
	probeWG sync.WaitGroup

	// tileMu guards tileRoots: the roots of full tiles, by level and
	// index, computed for tiles of the level above (tiles.go).
	tileMu    sync.Mutex
	tileRoots map[[2]uint64]tlog.Hash

	// mu guards everything below.
	mu        sync.Mutex
	closed    bool
	waiters   map[tlog.Hash][]chan uint64
	nwait     int
	seen      uint64 // leaves below seen have been handed to waiters
	wake      chan struct{}
	cp        *checkpoint.Checkpoint // last checkpoint signed
	failed    error                  // the failure appends and checkpoints get: an outage (ErrUnavailable), or broken
	failc     chan struct{}          // closed when failed is set; a new one once an outage is over
	broken    error                  // the security failure (ErrSecurity), if any: for ever
	brokenc   chan struct{}          // closed when broken is set
	appending int                    // appends entered and not yet left: their records may be unsettled
	resyncing bool                   // Config.Resync runs: checkpoints are served, appends are not
	roots     map[uint64]tlog.Hash   // roots authenticated against cp (verify.go)
	pending   [][]byte               // leaves that may be queued, unacknowledged: read by Open or the recovery, or kept without StateFile (pending.go)
	rootRead  time.Time              // when a root was last read (any caller): the probe waits for HealthInterval without one
	probeErr  error                  // the health probe's failure, until a root is read: Health reports it (never fails the log)
}

var _ transparency.Log = (*Log)(nil)

// Open connects to the tree and starts the follower.
func Open(ctx context.Context, cfg Config) (*Log, error) {
	if cfg.Conn == nil || cfg.TreeID == 0 {
		return nil, errors.New("trillian: Config.Conn and Config.TreeID are required")
	}
	if cfg.PollInterval == 0 {
		cfg.PollInterval = DefaultPollInterval
	}
	if cfg.RPCTimeout == 0 {
		cfg.RPCTimeout = 10 * time.Second
	}
	if cfg.RollbackGrace == 0 {
		cfg.RollbackGrace = DefaultRollbackGrace
	}
	if cfg.AppendTimeout == 0 {
		cfg.AppendTimeout = DefaultAppendTimeout
	}
	if cfg.PendingTimeout == 0 {
		cfg.PendingTimeout = DefaultPendingTimeout
	}
	if cfg.HealthInterval == 0 {
		cfg.HealthInterval = DefaultHealthInterval
	}
	if cfg.HealthInterval < 0 {
		return nil, fmt.Errorf("trillian: Config.HealthInterval %v: want a positive duration", cfg.HealthInterval)
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	signers, verifiers, vkeys, err := transparency.CheckpointKeys(cfg.Origin, cfg.Signers)
	if err != nil {
		return nil, fmt.Errorf("trillian: %w", err)
	}
	var wit *witnesses
	if cfg.WitnessPolicy != nil {
		if cfg.WitnessTimeout == 0 {
			cfg.WitnessTimeout = transparency.DefaultWitnessTimeout
		}
		if cfg.WitnessTimeout < 0 || 2*cfg.WitnessTimeout > cfg.AppendTimeout {
			return nil, fmt.Errorf("trillian: Config.WitnessTimeout %v: want a positive duration, at most half of AppendTimeout (%v)", cfg.WitnessTimeout, cfg.AppendTimeout)
		}
		if wit, err = newWitnesses(cfg.WitnessPolicy, cfg.WitnessTimeout); err != nil {
			return nil, fmt.Errorf("trillian: %w", err)
		}
		cfg.Logger.Info("transparency log: checkpoints are handed out once cosigned by the witness policy's quorum", "witnesses", len(wit.peers), "witness_timeout", cfg.WitnessTimeout.String())
	}
	l := &Log{
		cfg: cfg, client: tpb.NewTrillianLogClient(cfg.Conn),
		signers: signers, verifiers: verifiers, vkeys: vkeys, wit: wit,
		waiters: make(map[tlog.Hash][]chan uint64), wake: make(chan struct{}, 1), done: make(chan struct{}),
		failc: make(chan struct{}), brokenc: make(chan struct{}), roots: make(map[uint64]tlog.Hash),
	}
	// Before the pending file is read or anything queued: a tree that
	// refuses every QueueLeaf must not be opened (checkTree).
	if err := l.checkTree(ctx); err != nil {
		return nil, err
	}
	if err := l.loadState(); err != nil {
		return nil, err
	}
	if err := l.loadPending(); err != nil {
		return nil, err
	}
	root, err := l.root(ctx)
	if err != nil {
		return nil, err
	}
	// Against the state file's checkpoint (seen is still 0).
	if root, err = l.checkRoot(ctx, root); err != nil {
		return nil, err
	}
	l.seen = root.TreeSize
	if _, err := l.sign(ctx, root); errors.Is(err, errNotWitnessed) {
		// Witnesses down at start: Open succeeds, the last checkpoint
		// signed (and cosigned) stays the latest, and Checkpoint refuses
		// newer ones (ErrUnavailable) until the quorum cosigns. Pending
		// leaves (below) need a checkpoint covering them: Open then waits
		// for the witnesses within PendingTimeout.
		cfg.Logger.Warn("trillian: the witnesses did not cosign the log's checkpoint at start: checkpoints refused until they do", "err", err)
	} else if err != nil {
		return nil, err
	}
	bg, cancel := context.WithCancel(context.WithoutCancel(ctx))
	l.cancel, l.bg = cancel, bg
	go l.follow(bg)
	// Before anything can contradict them (an append here, rngd's
	// catch-up): the leaves of appends that failed before must be in the
	// log.
	if err := l.settlePending(ctx, false); err != nil {
		l.mu.Lock()
		l.closed = true
		l.mu.Unlock()
		cancel()
		<-l.done
		return nil, err
	}
	l.probeWG.Add(1)
	go l.probe(bg)
	return l, nil
}

// rpcErr maps a Trillian error: request errors keep their meaning, anything
// else is the backend being unavailable.
func rpcErr(what string, err error) error {
	switch status.Code(err) {
	case codes.NotFound:
		return fmt.Errorf("trillian: %s: %w: %w", what, transparency.ErrNotFound, err)
	case codes.InvalidArgument, codes.OutOfRange:
		return fmt.Errorf("trillian: %s: %w: %w", what, transparency.ErrInvalidRequest, err)
	}
	return fmt.Errorf("trillian: %s: %w: %w", what, transparency.ErrUnavailable, err)
}

func (l *Log) rpcCtx(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, l.cfg.RPCTimeout)
}

// root reads Trillian's latest (unsigned) log root.
func (l *Log) root(ctx context.Context) (*types.LogRootV1, error) {
	r, err := l.readRoot(ctx)
	if err == nil {
		l.answered()
	}
	return r, err
}

// readRoot is root without answered: the health probe's read.
func (l *Log) readRoot(ctx context.Context) (*types.LogRootV1, error) {
	ctx, cancel := l.rpcCtx(ctx)
	defer cancel()
	resp, err := l.client.GetLatestSignedLogRoot(ctx, &tpb.GetLatestSignedLogRootRequest{LogId: l.cfg.TreeID})
	if err != nil {
		return nil, rpcErr("couldn't read log root", err)
	}
	var r types.LogRootV1
	if err := r.UnmarshalBinary(resp.GetSignedLogRoot().GetLogRoot()); err != nil {
		return nil, fmt.Errorf("trillian: %w: malformed log root: %w", transparency.ErrUnavailable, err)
	}
	if len(r.RootHash) != tlog.HashSize {
		return nil, fmt.Errorf("trillian: %w: log root with %d-byte hash", transparency.ErrUnavailable, len(r.RootHash))
	}
	if r.TreeSize > vcheckpoint.MaxTreeSize {
		// No checkpoint of it would verify, and proofs of such a tree
		// never end (x/mod's tlog).
		return nil, fmt.Errorf("trillian: %w: log root of %d leaves, beyond any log (%d)", transparency.ErrUnavailable, r.TreeSize, uint64(vcheckpoint.MaxTreeSize))
	}
	return &r, nil
}

// answered records a root read: Trillian's log server and database
// answer, so the health probe's failure, if any, is over (a root below
// the floor is for the reader's checkRoot to judge).
func (l *Log) answered() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.rootRead = time.Now()
	if l.probeErr != nil {
		l.probeErr = nil
		l.cfg.Logger.Info("trillian: the log server answers again (a root was read)")
	}
}

// probe keeps Health current while the log is idle (Config.HealthInterval):
// every interval without a root read, it reads one. Its failure is
// Health's until a root is read again (answered); it never fails the log
// closed and never accepts the root it reads (probeOnce). It stops with
// Close (ctx).
func (l *Log) probe(ctx context.Context) {
	defer l.probeWG.Done()
	t := time.NewTicker(l.cfg.HealthInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		l.mu.Lock()
		// A log failed closed reports its failure, and its recovery
		// reads roots; appends that wait have the follower poll.
		due := l.failed == nil && l.nwait == 0 && time.Since(l.rootRead) >= l.cfg.HealthInterval
		l.mu.Unlock()
		if !due {
			continue
		}
		err := l.probeOnce(ctx)
		if ctx.Err() != nil {
			return
		}
		l.mu.Lock()
		switch {
		case err != nil && l.probeErr == nil:
			l.cfg.Logger.Warn("trillian: health probe failed: the log is not failed closed, but appends would fail; Health reports it until a root is read", "err", err)
		case err == nil && l.probeErr != nil:
			l.cfg.Logger.Info("trillian: health probe succeeds again")
		}
		l.probeErr = err
		if err == nil {
			l.rootRead = time.Now()
		}
		l.mu.Unlock()
	}
}

// probeOnce reads the root, bounded by Config.HealthInterval, and checks
// it against what the log has seen without accepting it: neither seen nor
// the checkpoint changes, and a root below the floor, or another root for
// the size last signed, is only reported (the next append or checkpoint
// re-reads it, and checkRoot or sign decide: replica lag, or a rollback or
// fork that fails the log closed).
func (l *Log) probeOnce(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, l.cfg.HealthInterval)
	defer cancel()
	root, err := l.readRoot(ctx)
	if err != nil {
		return fmt.Errorf("trillian: health probe: the log server or its database did not answer (tree %d, within %v): %w", l.cfg.TreeID, min(l.cfg.HealthInterval, l.cfg.RPCTimeout), err)
	}
	floor := l.floor()
	l.mu.Lock()
	cp := l.cp
	l.mu.Unlock()
	switch {
	case root.TreeSize < floor:
		return fmt.Errorf("trillian: %w: health probe: tree %d: root of %d leaves below the %d already seen (a lagging replica, or a rollback: the next append or checkpoint decides)", transparency.ErrUnavailable, l.cfg.TreeID, root.TreeSize, floor)
	case cp != nil && root.TreeSize == cp.Size && !bytes.Equal(root.RootHash, cp.Hash[:]):
		return fmt.Errorf("trillian: %w: health probe: tree %d: another root for tree size %d than the one signed (the next append or checkpoint decides)", transparency.ErrUnavailable, l.cfg.TreeID, cp.Size)
	}
	return nil
}

// floor is the largest tree size seen so far: signed, or read by the
// follower. Trillian never legitimately goes below it.
func (l *Log) floor() uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	f := l.seen
	if l.cp != nil {
		f = max(f, l.cp.Size)
	}
	return f
}

// failure returns the failure appends and checkpoints get, if any: an
// outage or a security failure.
func (l *Log) failure() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.failed
}

// security returns the security failure detected, if any: it stops even
// the work that ends an outage.
func (l *Log) security() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.broken
}

// fail records a failure: appends and checkpoints fail closed from now on,
// and appends waiting for their index are woken with err. A security
// failure (ErrSecurity: a rollback, a misbehaving Trillian) is for ever.
// Any other is an outage (an append that failed after its QueueLeaf was
// sent, a failed write of the pending file): with Config.Resync it starts
// the recovery (recover); another failure during it changes nothing, but
// a security failure, which ends it.
func (l *Log) fail(err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.broken != nil {
		return
	}
	if errors.Is(err, transparency.ErrSecurity) {
		l.broken = err
		close(l.brokenc)
		if l.failed == nil {
			close(l.failc)
		}
		l.failed = err
		l.cfg.Logger.Error("transparency log failed closed: appends and checkpoints refused until an operator investigates", "err", err)
		return
	}
	if l.failed != nil {
		return
	}
	l.failed = err
	close(l.failc)
	if l.cfg.Resync == nil || l.closed || l.bg == nil {
		l.cfg.Logger.Error("transparency log failed closed: appends and checkpoints refused until it is reopened", "err", err)
		return
	}
	l.cfg.Logger.Error("trillian: outage: appends and checkpoints refused until Trillian answers again and every recorded leaf is integrated; recovering in the background", "err", err)
	l.recWG.Add(1)
	go l.recover(l.bg)
}

// refusedUntil says, in an error, until when an outage refuses appends.
func (l *Log) refusedUntil() string {
	if l.cfg.Resync != nil {
		if l.wit != nil {
			return "appends refused until Trillian answers again and every recorded leaf is integrated in a checkpoint the witness policy's quorum cosigned (the log recovers by itself)"
		}
		return "appends refused until Trillian answers again and every recorded leaf is integrated (the log recovers by itself)"
	}
	return "appends refused until the log is reopened"
}

// The recovery's backoff between attempts that failed, and how often it
// looks whether the appends in flight when the outage began have settled
// their records.
const (
	recoverMinBackoff = 100 * time.Millisecond
	recoverMaxBackoff = 30 * time.Second
	recoverQuietPoll  = 20 * time.Millisecond
)

// errRecoverBusy: an append in flight when the outage began has not
// settled its record yet, or the pending file's writer is busy.
var errRecoverBusy = errors.New("appends still settling their records")

// recover ends an outage (see Config.Resync), attempt after attempt with
// backoff, until one succeeds, a security failure ends it for good, or
// Close stops it (ctx).
func (l *Log) recover(ctx context.Context) {
	defer l.recWG.Done()
	start := time.Now()
	delay, backoff := time.Duration(0), recoverMinBackoff
	for attempt := 1; ; {
		select {
		case <-ctx.Done():
			return
		case <-l.brokenc:
			return
		case <-time.After(delay):
		}
		n, err := l.recoverOnce(ctx)
		switch {
		case err == nil:
			l.cfg.Logger.Info("trillian: outage over: every recorded leaf is integrated in a tree the log signed and verified, and Config.Resync returned; appends resumed",
				"duration", time.Since(start).Round(time.Millisecond), "leaves", n, "attempts", attempt)
			return
		case errors.Is(err, errRecoverBusy):
			delay = recoverQuietPoll
			continue
		case ctx.Err() != nil, errors.Is(err, transparency.ErrClosed), errors.Is(err, transparency.ErrSecurity):
			// A security failure was recorded by whatever found it.
			return
		}
		l.cfg.Logger.Warn("trillian: outage goes on: appends still refused, retrying", "err", err, "attempt", attempt, "retry_in", backoff)
		attempt++
		delay, backoff = backoff, min(2*backoff, recoverMaxBackoff)
	}
}

// recoverOnce is one attempt of recover: Open's reading and settling of
// the pending file, Config.Resync, then appends resume. It returns how
// many leaves it settled.
func (l *Log) recoverOnce(ctx context.Context) (int, error) {
	if !l.pendingQuiet() {
		return 0, errRecoverBusy
	}
	// A tree that refused leaves (treeRefuses) takes them again only once
	// it is an ACTIVE LOG tree, as Open requires.
	if err := l.checkTree(ctx); err != nil {
		return 0, err
	}
	// From here until the failure is cleared the recovery alone uses the
	// pending file: no append enters while the log is failed.
	if err := l.loadPending(); err != nil {
		return 0, err
	}
	n := len(l.pending)
	if err := l.settlePending(ctx, true); err != nil {
		return 0, err
	}
	// Trillian answers and the root signs, even with nothing to settle (a
	// failed write of the file whose records were all settled).
	cp, err := l.checkpoint(ctx)
	if err != nil {
		return 0, err
	}
	l.mu.Lock()
	l.resyncing = true
	l.mu.Unlock()
	err = l.cfg.Resync(ctx, cp)
	l.mu.Lock()
	defer l.mu.Unlock()
	l.resyncing = false
	switch {
	case l.broken != nil:
		return 0, l.broken
	case err != nil:
		return 0, fmt.Errorf("trillian: %w: Config.Resync: %w", transparency.ErrUnavailable, err)
	}
	l.failed = nil
	l.failc = make(chan struct{})
	return n, nil
}

// checkRoot returns root if it is not below the floor. Otherwise it re-reads
// the root — at once, since a concurrent reader may simply have read a newer
// one, then every grace/20 — until a root reaches the floor (replica lag or a
// race: that fresher root is returned) or Config.RollbackGrace passes with
// every read still below it: the tree was rolled back (ErrSecurity, recorded
// by fail). Requiring the smaller root to persist for the whole window,
// rather than failing on one read, keeps a lagging replica from stopping
// draws; a restored backup does not catch up by itself, so it is reported
// within the window.
func (l *Log) checkRoot(ctx context.Context, root *types.LogRootV1) (*types.LogRootV1, error) {
	// Not an outage: the recovery reads and signs roots.
	if err := l.security(); err != nil {
		return nil, err
	}
	floor := l.floor()
	if root.TreeSize >= floor {
		return root, nil
	}
	first := root.TreeSize
	deadline := time.Now().Add(l.cfg.RollbackGrace)
	every := max(l.cfg.PollInterval, l.cfg.RollbackGrace/20)
	for {
		r, err := l.root(ctx)
		if err != nil {
			return nil, err
		}
		if r.TreeSize >= floor {
			return r, nil
		}
		root = r
		if !time.Now().Before(deadline) {
			break
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("trillian: %w: tree %d: root of %d leaves below the %d already seen: %w", transparency.ErrUnavailable, l.cfg.TreeID, root.TreeSize, floor, ctx.Err())
		case <-time.After(every):
		}
	}
	err := fmt.Errorf("trillian: %w: tree %d went back from %d to %d leaves (%d after %v, still below %d): the database was rolled back or forked", transparency.ErrSecurity, l.cfg.TreeID, floor, first, root.TreeSize, l.cfg.RollbackGrace, floor)
	l.fail(err)
	return nil, err
}

// sign returns the signed checkpoint for root, signing it if it is new,
// after checking it is consistent with the last checkpoint signed.
func (l *Log) sign(ctx context.Context, root *types.LogRootV1) (*checkpoint.Checkpoint, error) {
	// One signing at a time: concurrent readers of a new root then find it
	// signed instead of each proving and signing it again.
	l.signMu.Lock()
	defer l.signMu.Unlock()
	// A root below the last checkpoint is a race with another reader or
	// replica lag (then checkRoot returns a fresher root), or a rollback.
	root, err := l.checkRoot(ctx, root)
	if err != nil {
		return nil, err
	}
	var h tlog.Hash
	copy(h[:], root.RootHash)
	l.mu.Lock()
	prev := l.cp
	l.mu.Unlock()
	if prev != nil {
		switch {
		case root.TreeSize == prev.Size && h == prev.Hash:
			if l.wit == nil || l.wit.satisfied(prev.Note) {
				return prev, nil
			}
			// Signed before the policy was set, or by a quorum since
			// changed: it is witnessed before it is handed out.
			return l.witness(ctx, prev, prev.Size)
		case root.TreeSize < prev.Size:
			// checkRoot rules this out (floor >= prev.Size); fail closed.
			return nil, l.misbehaved(fmt.Errorf("trillian: %w: tree %d: root of %d leaves below signed checkpoint %d", transparency.ErrSecurity, l.cfg.TreeID, root.TreeSize, prev.Size))
		case root.TreeSize == prev.Size:
			return nil, l.misbehaved(fmt.Errorf("trillian: %w: tree %d: two roots for tree size %d", transparency.ErrSecurity, l.cfg.TreeID, prev.Size))
		}
		if prev.Size > 0 {
			p, err := l.consistency(ctx, prev.Size, root.TreeSize)
			if err != nil {
				return nil, err
			}
			if err := tlog.CheckTree(p, int64(root.TreeSize), h, int64(prev.Size), prev.Hash); err != nil {
				return nil, l.misbehaved(fmt.Errorf("trillian: %w: tree %d: root %d is not consistent with signed checkpoint %d: %w", transparency.ErrSecurity, l.cfg.TreeID, root.TreeSize, prev.Size, err))
			}
		}
	}
	cp, err := checkpoint.Sign(l.cfg.Origin, root.TreeSize, h, l.signers...)
	if err != nil {
		return nil, fmt.Errorf("trillian: %w: %w", transparency.ErrUnavailable, err)
	}
	if l.wit == nil {
		return l.keep(cp)
	}
	var hint uint64
	if prev != nil {
		hint = prev.Size
	}
	return l.witness(ctx, cp, hint)
}

// witness has the witnesses cosign cp (signMu held), then saves and keeps
// it. A quorum not met leaves the state file and the last checkpoint as
// they were: ErrUnavailable, and the next sign tries again (at once for a
// larger tree; for one no larger, once WitnessTimeout has passed since
// the round failed, so that readers queued on signMu are refused at once
// meanwhile).
func (l *Log) witness(ctx context.Context, cp *checkpoint.Checkpoint, hint uint64) (*checkpoint.Checkpoint, error) {
	if err := l.wit.refusal(cp.Size); err != nil {
		return nil, err
	}
	cosigned, err := l.wit.cosign(ctx, cp, hint, l.consistency)
	if err != nil {
		l.cfg.Logger.Warn("trillian: checkpoint refused: the witnesses' quorum did not cosign it", "size", cp.Size, "err", err)
		return nil, err
	}
	return l.keep(cosigned)
}

// keep saves a newly signed (and witnessed) checkpoint, then makes it the
// latest.
func (l *Log) keep(cp *checkpoint.Checkpoint) (*checkpoint.Checkpoint, error) {
	if err := l.saveState(cp); err != nil {
		return nil, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.cp == nil || cp.Size >= l.cp.Size {
		l.cp = cp
	}
	return l.cp, nil
}

// loadState reads the last checkpoint signed before a restart, if any.
func (l *Log) loadState() error {
	if l.cfg.StateFile == "" {
		return nil
	}
	raw, err := os.ReadFile(l.cfg.StateFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("trillian: %w: couldn't read state file: %w", transparency.ErrUnavailable, err)
	}
	cp, err := checkpoint.Open(raw, l.verifiers...)
	if err != nil {
		return fmt.Errorf("trillian: %w: state file holds no checkpoint of this log: %w", transparency.ErrSecurity, err)
	}
	l.cp = cp
	return nil
}

// saveState durably records a newly signed checkpoint (before it is
// handed out): atomicfile.Write, directory included.
func (l *Log) saveState(cp *checkpoint.Checkpoint) error {
	if l.cfg.StateFile == "" {
		return nil
	}
	// Durably, directory included: a checkpoint lost in a power cut (or the
	// state file's first write) would let a database restored from a backup
	// after that power cut go undetected.
	if err := atomicfile.Write(l.cfg.StateFile, cp.Note, 0o600); err != nil {
		return fmt.Errorf("trillian: %w: couldn't save the signed checkpoint: %w", transparency.ErrUnavailable, err)
	}
	return nil
}

// Append implements transparency.Log: record the leaf in the pending file
// (with Config.StateFile), QueueLeaf, then wait for integration (within
// Config.AppendTimeout).
//
// The leaf is recorded durably before its QueueLeaf is sent, so that
// however the append ends — rngd killed while it waits included — a leaf
// Trillian may integrate later is in the pending file, for Open to wait
// for (pending.go). Acknowledged, its record is dead, and the file is
// emptied once no append is outstanding; refused before or by QueueLeaf,
// its record is removed before the error is returned, which then wraps
// transparency.ErrNotAppended (the leaf was not taken). If the record
// cannot be written, the append fails before QueueLeaf and the log fails
// closed (the record may be whole on disk).
//
// Any failure after a QueueLeaf was sent and not refused outright — the
// append timed out, its replies were lost, the log failed closed or was
// closed while it waited, or the caller's ctx was cancelled or its deadline
// passed — leaves a leaf Trillian may still integrate, unacknowledged. Its
// record stays in the pending file, and the log fails closed
// (ErrUnavailable for every later append and checkpoint: an outage, until
// the recovery or Open has waited for the leaf, see Config.Resync),
// except on Close (ErrClosed).
// So a caller's cancellation fails this log closed too, unlike tilelog's,
// which does not fail closed when its caller gives up: nothing can
// withdraw a leaf from Trillian's queue. A caller that cancels appends
// takes the log down with them; rngd appends with a context that is never
// cancelled.
func (l *Log) Append(ctx context.Context, leaf []byte) (uint64, error) {
	if err := transparency.CheckLeaf(leaf); err != nil {
		return 0, err
	}
	done := l.meter.Start()
	// Refused at once when the log is closed or failed: that failure was
	// logged when it began (fail), and is not logged again for every
	// append it refuses.
	err := transparency.NotAppended(l.enter())
	var idx uint64
	if err == nil {
		idx, err = l.appendRecorded(ctx, leaf) // and leave
		if err != nil && (errors.Is(err, transparency.ErrUnavailable) || errors.Is(err, transparency.ErrSecurity)) {
			l.cfg.Logger.Error("transparency log append failed", "err", err)
		}
	}
	done(err)
	return idx, err
}

// appendRecorded is Append's work once it entered: the record written
// ahead, the append, the record settled; then it leaves.
func (l *Log) appendRecorded(ctx context.Context, leaf []byte) (uint64, error) {
	defer l.leave()
	path := l.pendingPath()
	// The bound covers the record too: a disk that hangs does not hold
	// the append for ever.
	actx, cancel := context.WithTimeout(ctx, l.cfg.AppendTimeout)
	defer cancel()
	var rec *pendingLeaf
	// Not for a log failed closed since enter: append refuses the leaf
	// before queueing it.
	if path != "" && l.failure() == nil {
		var err error
		if rec, err = l.recordPending(actx, leaf); err != nil {
			err = fmt.Errorf("trillian: %w: couldn't record the leaf in %s before queueing it (%w): not queued, but its record may be on disk, or land there yet, and the next Open (or the recovery) would queue it; %s", transparency.ErrUnavailable, path, err, l.refusedUntil())
			l.fail(err)
			return 0, err
		}
	}
	idx, sent, err := l.append(actx, leaf, false)
	timedOut := err != nil && ctx.Err() == nil && errors.Is(actx.Err(), context.DeadlineExceeded)
	switch {
	case err == nil:
		if rec != nil {
			l.pendingAcked(actx, rec)
		}
		return idx, nil
	case !sent:
		// Trillian does not hold the leaf: its record goes before the
		// caller can retry, or the next Open would integrate it behind
		// the retry.
		if rec != nil {
			if derr := l.pendingRefused(actx, rec); derr != nil {
				err = fmt.Errorf("trillian: %w: leaf not queued (%w), but its record could not be removed from %s (%w): the next Open (or the recovery) would queue it; %s", transparency.ErrUnavailable, err, path, derr, l.refusedUntil())
				l.fail(err)
				return 0, err
			}
		}
		if treeRefuses(err) {
			// The tree itself takes no leaf (frozen, draining, deleted)
			// or no longer lets rngd queue: every append would be refused
			// the same way, while Health said all is well. An outage:
			// the recovery waits for an ACTIVE tree (checkTree).
			l.fail(fmt.Errorf("trillian: %w: tree %d refuses leaves (%w); %s", transparency.ErrUnavailable, l.cfg.TreeID, err, l.refusedUntil()))
		}
		return 0, transparency.NotAppended(err)
	}
	// The leaf may be queued and integrated later, after its caller was
	// told it was not: no later append may contradict it (a retried draw
	// sealed again, with a new time and, for a start, a new secret). Its
	// record, written before the QueueLeaf, stays for Open or the
	// recovery to wait for, and the log fails closed until the leaf is in
	// the tree.
	if path == "" {
		l.keepPending(leaf)
	}
	note := l.pendingNote()
	switch {
	case timedOut:
		cause := "the log server, signer or database stalled or unreachable"
		if l.wit != nil {
			if werr := l.wit.lastFailure(); werr != nil {
				// The leaf may well be integrated: its checkpoint
				// waits for the witnesses' quorum.
				cause = fmt.Sprintf("or its checkpoint not cosigned: the witness policy's quorum did not cosign the last checkpoint (%v)", werr)
			}
		}
		err = fmt.Errorf("trillian: %w: leaf not integrated within %v (%s); %s; %s: %w", transparency.ErrUnavailable, l.cfg.AppendTimeout, cause, note, l.refusedUntil(), err)
	case errors.Is(err, transparency.ErrClosed):
		err = fmt.Errorf("trillian: %w: closed while the leaf waited for integration; %s", transparency.ErrClosed, note)
	case err == l.failure():
		// Woken by the failure: the log is failed closed already.
		err = fmt.Errorf("trillian: leaf not acknowledged, the log failed closed while it waited; %s: %w", note, err)
	default:
		err = fmt.Errorf("trillian: leaf may be queued but was not acknowledged; %s; %s: %w", note, l.refusedUntil(), err)
	}
	if !errors.Is(err, transparency.ErrClosed) {
		l.fail(err)
	}
	return 0, err
}

// append queues leaf and waits for its index; sent reports whether
// Trillian may hold the leaf (a QueueLeaf was sent, and not refused). An
// Append's stops at any failure; settling (the pending leaves' wait, at
// Open or in the recovery) only at a security failure, since ending an
// outage is its work.
func (l *Log) append(ctx context.Context, leaf []byte, settling bool) (idx uint64, sent bool, err error) {
	h := tlog.RecordHash(leaf)
	ch := make(chan uint64, 1)
	// Register before queueing, so the follower cannot miss the leaf.
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return 0, false, transparency.ErrClosed
	}
	stop, failed := l.failc, l.failed
	if settling {
		stop, failed = l.brokenc, l.broken
	}
	if failed != nil {
		l.mu.Unlock()
		return 0, false, failed
	}
	l.waiters[h] = append(l.waiters[h], ch)
	l.nwait++
	l.mu.Unlock()
	defer l.unwait(h, ch)
	select {
	case l.wake <- struct{}{}:
	default:
	}

	resp, sent, err := l.queue(ctx, leaf, stop)
	if err != nil {
		return 0, sent, err
	}
	dup := codes.Code(resp.GetQueuedLeaf().GetStatus().GetCode()) == codes.AlreadyExists
	if got := resp.GetQueuedLeaf().GetLeaf().GetMerkleLeafHash(); !dup && !bytes.Equal(got, h[:]) {
		return 0, true, fmt.Errorf("trillian: %w: leaf hash %x, want RFC 6962 %x (tree must use RFC6962_SHA256)", transparency.ErrUnavailable, got, h[:])
	}
	if dup {
		// A duplicate: it may be integrated already, below what the
		// follower will read.
		if idx, ok, err := l.findIntegrated(ctx, h); err != nil || ok {
			return idx, true, err
		}
	}
	select {
	case idx := <-ch:
		return idx, true, nil
	case <-stop:
		return 0, true, l.failure()
	case <-ctx.Done():
		return 0, true, fmt.Errorf("trillian: leaf queued but not integrated yet: %w: %w", transparency.ErrUnavailable, ctx.Err())
	case <-l.done:
		return 0, true, transparency.ErrClosed
	}
}

// notQueued reports whether a QueueLeaf error means the leaf was refused,
// not queued: a request or configuration error, or a quota. After any
// other error (a deadline, a lost connection, a server error) the leaf may
// be queued, its reply lost.
func notQueued(err error) bool {
	switch status.Code(err) {
	case codes.InvalidArgument, codes.OutOfRange, codes.NotFound, codes.FailedPrecondition,
		codes.PermissionDenied, codes.Unauthenticated, codes.Unimplemented, codes.ResourceExhausted:
		return true
	}
	return false
}

// treeRefuses reports a QueueLeaf refusal that is the tree's or the
// server's, not the leaf's: any leaf would get it (a frozen, draining or
// deleted tree, a lost permission or credential, a server without the
// method). A leaf refused for itself (InvalidArgument, OutOfRange) and a
// quota (ResourceExhausted, passing) leave the log up.
func treeRefuses(err error) bool {
	switch status.Code(err) {
	case codes.FailedPrecondition, codes.NotFound, codes.PermissionDenied, codes.Unauthenticated, codes.Unimplemented:
		return true
	}
	return false
}

// queue sends QueueLeaf. A reply lost (an error after which the leaf may
// be queued) is healed by sending the same leaf again, which Trillian
// deduplicates, until it answers, ctx ends or stop is closed (append's);
// sent reports whether the leaf may be queued.
func (l *Log) queue(ctx context.Context, leaf []byte, stop <-chan struct{}) (resp *tpb.QueueLeafResponse, sent bool, err error) {
	req := &tpb.QueueLeafRequest{LogId: l.cfg.TreeID, Leaf: &tpb.LogLeaf{LeafValue: leaf}}
	backoff := max(l.cfg.PollInterval, 10*time.Millisecond)
	for {
		rctx, cancel := l.rpcCtx(ctx)
		resp, err = l.client.QueueLeaf(rctx, req)
		cancel()
		if err == nil {
			return resp, true, nil
		}
		refused := notQueued(err)
		err = rpcErr("couldn't queue leaf", err)
		if refused {
			return nil, sent, err
		}
		sent = true
		l.cfg.Logger.Warn("trillian: QueueLeaf failed, the leaf may be queued: sending it again", "err", err)
		select {
		case <-ctx.Done():
			return nil, true, fmt.Errorf("%w (leaf may be queued, the reply lost): %w", err, ctx.Err())
		case <-stop:
			return nil, true, l.failure()
		case <-l.done:
			return nil, true, transparency.ErrClosed
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, time.Second)
	}
}

// enter counts an Append in flight (Close waits for it to settle its
// record; so does the recovery), unless the log is closed or failed: then
// it returns why, and the append is refused at once.
func (l *Log) enter() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case l.closed:
		return transparency.ErrClosed
	case l.failed != nil:
		return l.failed
	}
	l.inflight.Add(1)
	l.appending++
	return nil
}

// leave ends what enter began.
func (l *Log) leave() {
	l.mu.Lock()
	l.appending--
	l.mu.Unlock()
	l.inflight.Done()
}

func (l *Log) unwait(h tlog.Hash, ch chan uint64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	ws := l.waiters[h]
	for i, c := range ws {
		if c == ch {
			ws = append(ws[:i], ws[i+1:]...)
			l.nwait--
			break
		}
	}
	if len(ws) == 0 {
		delete(l.waiters, h)
	} else {
		l.waiters[h] = ws
	}
}

// findIntegrated looks a leaf hash up in the current tree, signed first:
// the index returned is proved in a tree the appliance signed, as
// InclusionProofByHash proves it (a duplicate is rare: draw records are
// unique).
func (l *Log) findIntegrated(ctx context.Context, h tlog.Hash) (uint64, bool, error) {
	cp, err := l.checkpoint(ctx)
	if err != nil {
		return 0, false, err
	}
	if cp.Size == 0 {
		return 0, false, nil
	}
	idx, _, err := l.InclusionProofByHash(ctx, h, cp.Size)
	if errors.Is(err, transparency.ErrNotFound) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, err
	}
	return idx, true, nil
}

// followMaxBackoff bounds the follower's wait between polls that fail.
const followMaxBackoff = time.Second

// follow polls the root while appends wait and hands out indices. While
// polls fail (Trillian down: the pending leaves' wait may last the whole
// outage) it backs off, up to followMaxBackoff, and warns at the first
// failure and when a poll succeeds again, not at each.
func (l *Log) follow(ctx context.Context) {
	defer close(l.done)
	t := time.NewTicker(l.cfg.PollInterval)
	defer t.Stop()
	failing := 0 // polls failed in a row
	for {
		select {
		case <-ctx.Done():
			return
		case <-l.wake:
		}
		for {
			root, err := l.root(ctx)
			if err == nil {
				// A root below seen would leave waiting appends hanging:
				// their leaves get indices that were already read.
				root, err = l.checkRoot(ctx, root)
			}
			if err == nil {
				err = l.deliver(ctx, root)
			}
			switch {
			case err == nil:
				if failing > 0 {
					l.cfg.Logger.Info("trillian follower: polls succeed again", "failed_polls", failing)
				}
				failing = 0
			case ctx.Err() != nil || errors.Is(err, transparency.ErrSecurity):
			default:
				if failing == 0 {
					l.cfg.Logger.Warn("trillian follower: poll failed, backing off while polls fail", "err", err)
				}
				failing++
			}
			l.mu.Lock()
			n := l.nwait
			l.mu.Unlock()
			if n == 0 {
				break
			}
			wait := t.C
			if failing > 0 {
				wait = time.After(min(l.cfg.PollInterval<<min(failing, 16), followMaxBackoff))
			}
			select {
			case <-ctx.Done():
				return
			case <-wait:
			}
		}
	}
}

// maxDeliver bounds the leaves deliver authenticates at once (their
// hashes are held until then: 2 MiB).
const maxDeliver = 1 << 16

// deliver signs root, reads the leaves integrated since seen, checks them
// against the signed tree and wakes their waiters with their indices.
//
// An index handed to Append must be where the caller's leaf is in the tree
// the appliance signs, not merely where Trillian says it is: the leaves
// read are authenticated as a range (checkEntries) against the checkpoint
// just signed, before any index is handed out. That costs, per batch of
// leaves (per poll), not per leaf: one GetInclusionProof (the subtrees left
// of the range; none from leaf 0) — the range ends at the checkpoint, whose
// root needs no consistency proof. Signing costs a consistency proof and
// the signatures (and the state file's write), but the draw path pays it
// anyway: AwaitCheckpoint, right after Append, signs the root covering the
// leaf, and now finds it signed. Checking each index instead (an inclusion
// proof by leaf hash in the signed tree) would cost one call per leaf, and
// authenticating an unsigned root two calls per batch.
func (l *Log) deliver(ctx context.Context, root *types.LogRootV1) error {
	l.mu.Lock()
	from := l.seen
	if l.nwait == 0 {
		// Nobody waits: leaves integrated so far cannot be theirs (waiters
		// register before queueing), so skip them unread.
		l.seen = max(l.seen, root.TreeSize)
		l.mu.Unlock()
		return nil
	}
	l.mu.Unlock()
	if from >= root.TreeSize {
		return nil
	}
	cp, err := l.sign(ctx, root)
	if err != nil {
		return err
	}
	for from < cp.Size {
		end := min(cp.Size, from+maxDeliver)
		hashes := make([]tlog.Hash, 0, end-from)
		for at := from; at < end; at = from + uint64(len(hashes)) {
			_, hs, err := l.readLeaves(ctx, at, min(end, at+1000), "couldn't read new leaves")
			if err != nil {
				return err
			}
			hashes = append(hashes, hs...)
		}
		if err := l.checkEntries(ctx, from, hashes); err != nil {
			return err
		}
		l.mu.Lock()
		for i, h := range hashes {
			for _, ch := range l.waiters[h] {
				select {
				case ch <- from + uint64(i):
				default:
				}
			}
		}
		l.seen = max(l.seen, end)
		l.mu.Unlock()
		from = end
	}
	return nil
}

// Checkpoint implements transparency.Log. A log failed closed refuses it
// at once, but while Config.Resync runs (the outage's leaves are in the
// tree by then).
func (l *Log) Checkpoint(ctx context.Context) (*checkpoint.Checkpoint, error) {
	if err := l.checkpointRefusal(); err != nil {
		return nil, err
	}
	return l.checkpoint(ctx)
}

// checkpoint signs the latest root (if new), for Checkpoint and for the
// work that goes on during an outage.
func (l *Log) checkpoint(ctx context.Context) (*checkpoint.Checkpoint, error) {
	root, err := l.root(ctx)
	if err != nil {
		return nil, err
	}
	return l.sign(ctx, root)
}

func (l *Log) checkpointRefusal() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case l.closed:
		return transparency.ErrClosed
	case l.broken != nil:
		return l.broken
	case l.failed != nil && !l.resyncing:
		return l.failed
	}
	return nil
}

// AwaitCheckpoint implements transparency.Log. Trillian publishes a root as
// soon as leaves are integrated, so after Append this returns at once.
func (l *Log) AwaitCheckpoint(ctx context.Context, size uint64) (*checkpoint.Checkpoint, error) {
	t := time.NewTicker(l.cfg.PollInterval)
	defer t.Stop()
	for {
		cp, err := l.Checkpoint(ctx)
		if err != nil {
			return nil, err
		}
		if cp.Size >= size {
			return cp, nil
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("trillian: waiting for a checkpoint of %d leaves: %w", size, ctx.Err())
		case <-t.C:
		}
	}
}

// checkSize returns ErrNotFound for a tree size beyond the latest checkpoint.
func (l *Log) checkSize(ctx context.Context, treeSize uint64) error {
	l.mu.Lock()
	cp := l.cp
	l.mu.Unlock()
	if cp != nil && treeSize <= cp.Size {
		return nil
	}
	cp, err := l.Checkpoint(ctx)
	if err != nil {
		return err
	}
	if treeSize > cp.Size {
		return fmt.Errorf("trillian: %w: tree size %d beyond the latest checkpoint (%d)", transparency.ErrNotFound, treeSize, cp.Size)
	}
	return nil
}

// Entries implements transparency.Log.
func (l *Log) Entries(ctx context.Context, start, end, treeSize uint64) ([][]byte, error) {
	end, err := transparency.CheckRange(start, end, treeSize)
	if err != nil {
		return nil, err
	}
	if err := l.checkSize(ctx, treeSize); err != nil {
		return nil, err
	}
	leaves, hashes, err := l.readLeaves(ctx, start, end, "couldn't read entries")
	if err != nil {
		return nil, err
	}
	if err := l.checkEntries(ctx, start, hashes); err != nil {
		return nil, err
	}
	out := make([][]byte, len(leaves))
	for i, lf := range leaves {
		out[i] = lf.GetLeafValue()
	}
	return out, nil
}

func toProof(hashes [][]byte) ([]tlog.Hash, error) {
	p := make([]tlog.Hash, len(hashes))
	for i, h := range hashes {
		if len(h) != tlog.HashSize {
			return nil, fmt.Errorf("trillian: %w: proof hash of %d bytes", transparency.ErrUnavailable, len(h))
		}
		copy(p[i][:], h)
	}
	return p, nil
}

// InclusionProof implements transparency.Log.
func (l *Log) InclusionProof(ctx context.Context, index, treeSize uint64) (tlog.RecordProof, error) {
	if index >= treeSize {
		return nil, fmt.Errorf("trillian: %w: index %d not below tree size %d", transparency.ErrInvalidRequest, index, treeSize)
	}
	if err := l.checkSize(ctx, treeSize); err != nil {
		return nil, err
	}
	// With the leaf, in one call: the proof is checked for it.
	h, p, err := l.entryAndProof(ctx, index, treeSize)
	if err != nil {
		return nil, err
	}
	root, err := l.rootFromInclusion(index, treeSize, h, p)
	if err != nil {
		return nil, err
	}
	if err := l.checkTreeHash(ctx, treeSize, root); err != nil {
		return nil, err
	}
	return p, nil
}

// inclusion returns Trillian's proof of leaf index in the tree of n leaves,
// unchecked.
func (l *Log) inclusion(ctx context.Context, index, n uint64) ([]tlog.Hash, error) {
	rctx, cancel := l.rpcCtx(ctx)
	defer cancel()
	what := fmt.Sprintf("couldn't prove leaf %d in tree %d", index, n)
	resp, err := l.client.GetInclusionProof(rctx, &tpb.GetInclusionProofRequest{LogId: l.cfg.TreeID, LeafIndex: int64(index), TreeSize: int64(n)})
	if err != nil {
		return nil, rpcErr(what, err)
	}
	if size := rootSize(resp.GetSignedLogRoot()); size < n || resp.GetProof() == nil {
		return nil, l.behind(what, size, n)
	}
	return toProof(resp.GetProof().GetHashes())
}

// InclusionProofByHash implements transparency.Log.
func (l *Log) InclusionProofByHash(ctx context.Context, leafHash tlog.Hash, treeSize uint64) (uint64, tlog.RecordProof, error) {
	if treeSize == 0 {
		return 0, nil, fmt.Errorf("trillian: %w: tree size 0 holds no leaf", transparency.ErrInvalidRequest)
	}
	if err := l.checkSize(ctx, treeSize); err != nil {
		return 0, nil, err
	}
	idx, p, err := l.proofByHash(ctx, leafHash, treeSize)
	if err != nil {
		return 0, nil, err
	}
	root, err := l.rootFromInclusion(idx, treeSize, leafHash, p)
	if err != nil {
		return 0, nil, err
	}
	if err := l.checkTreeHash(ctx, treeSize, root); err != nil {
		return 0, nil, err
	}
	return idx, p, nil
}

func (l *Log) proofByHash(ctx context.Context, leafHash tlog.Hash, treeSize uint64) (uint64, tlog.RecordProof, error) {
	rctx, cancel := l.rpcCtx(ctx)
	defer cancel()
	what := fmt.Sprintf("couldn't prove leaf hash %x", leafHash[:])
	resp, err := l.client.GetInclusionProofByHash(rctx, &tpb.GetInclusionProofByHashRequest{LogId: l.cfg.TreeID, LeafHash: leafHash[:], TreeSize: int64(treeSize), OrderBySequence: true})
	if err != nil {
		return 0, nil, rpcErr(what, err)
	}
	if size := rootSize(resp.GetSignedLogRoot()); size < treeSize {
		return 0, nil, l.behind(what, size, treeSize)
	}
	for _, p := range resp.GetProof() {
		if p.GetLeafIndex() >= 0 && uint64(p.GetLeafIndex()) < treeSize {
			proof, err := toProof(p.GetHashes())
			return uint64(p.GetLeafIndex()), proof, err
		}
	}
	return 0, nil, fmt.Errorf("trillian: %w: no leaf with hash %x in tree %d", transparency.ErrNotFound, leafHash[:], treeSize)
}

// ConsistencyProof implements transparency.Log.
func (l *Log) ConsistencyProof(ctx context.Context, oldSize, newSize uint64) (tlog.TreeProof, error) {
	if oldSize > newSize {
		return nil, fmt.Errorf("trillian: %w: old size %d above new size %d", transparency.ErrInvalidRequest, oldSize, newSize)
	}
	if err := l.checkSize(ctx, newSize); err != nil {
		return nil, err
	}
	if oldSize == 0 || oldSize == newSize {
		return tlog.TreeProof{}, nil
	}
	p, err := l.consistency(ctx, oldSize, newSize)
	if err != nil {
		return nil, err
	}
	newRoot, err := l.authRoot(ctx, newSize)
	if err != nil {
		return nil, err
	}
	oldRoot, err := l.authRoot(ctx, oldSize)
	if err != nil {
		return nil, err
	}
	if err := tlog.CheckTree(p, int64(newSize), newRoot, int64(oldSize), oldRoot); err != nil {
		return nil, l.misbehaved(fmt.Errorf("trillian: %w: tree %d: consistency proof of %d in %d leaves does not verify: %w", transparency.ErrSecurity, l.cfg.TreeID, oldSize, newSize, err))
	}
	return p, nil
}

func (l *Log) consistency(ctx context.Context, oldSize, newSize uint64) (tlog.TreeProof, error) {
	rctx, cancel := l.rpcCtx(ctx)
	defer cancel()
	what := fmt.Sprintf("couldn't prove tree %d in tree %d", oldSize, newSize)
	resp, err := l.client.GetConsistencyProof(rctx, &tpb.GetConsistencyProofRequest{LogId: l.cfg.TreeID, FirstTreeSize: int64(oldSize), SecondTreeSize: int64(newSize)})
	if err != nil {
		return nil, rpcErr(what, err)
	}
	if size := rootSize(resp.GetSignedLogRoot()); size < newSize || resp.GetProof() == nil {
		return nil, l.behind(what, size, newSize)
	}
	return toProof(resp.GetProof().GetHashes())
}

// VerifierKeys implements transparency.Log.
func (l *Log) VerifierKeys() []string { return l.vkeys }

// Stats implements transparency.Log.
func (l *Log) Stats() transparency.Stats { return l.meter.Stats() }

// Health implements transparency.Health: the rollback, fork, timed-out
// append or other failure that failed the log closed; else, while idle,
// the health probe's failure (Config.HealthInterval: the log server or
// its database not answering), until a root is read again; nil while it
// takes appends — again, once the recovery ended an outage
// (Config.Resync).
func (l *Log) Health() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.failed != nil {
		return l.failed
	}
	return l.probeErr
}

// Close implements transparency.Log. Appends still waiting return
// ErrClosed (their leaves are queued in Trillian and will be integrated, but
// were not acknowledged: their records stay in the pending file, and the
// next Open waits for them). A recovery in progress stops. Close returns
// once the appends in flight have ended, the recovery has stopped and the
// pending file's writer is done (a write that never returns, on a hung
// disk, holds it). The connection is the caller's to close.
func (l *Log) Close() error {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return transparency.ErrClosed
	}
	l.closed = true
	l.mu.Unlock()
	l.cancel()
	<-l.done
	l.probeWG.Wait()
	l.inflight.Wait()
	// The recovery's attempt ends with the follower (its waits) and ctx.
	l.recWG.Wait()
	// The appends are over, and they alone start the pending file's
	// writer: once it is done, nothing writes the file.
	l.pendWG.Wait()
	return nil
}
