// Package tilelog is the embedded transparency log backend: a tile-based
// Merkle log (c2sp.org/tlog-tiles) stored by github.com/transparency-dev/tessera's
// POSIX driver in a directory of the daemon's data directory. There is no
// server to install.
//
// # Layout of Config.Dir
//
//	tiles/                 tessera's POSIX log: checkpoint, tile/..., tile/entries/...
//	                       (served verbatim under /log/ by transparency.NewHTTPHandler;
//	                       partials a checkpoint made obsolete removed within gcInterval)
//	journal/               the write-ahead journal (journal.go)
//	leafhash/              index from RFC 6962 leaf hash to first index, in
//	                       sorted runs (internal/hashindex), rebuilt from the entry
//	                       bundles (never authoritative), and when it does
//	                       not index tiles/ (checked once per Open: matchIndex)
//	LOCK                   flock held while the log is open (one writer per directory)
//	SECURITY-FAILURE       written when tessera put an acknowledged leaf at another
//	                       index than the journal's, when a checkpoint to sign or
//	                       published does not extend the one signed before
//	                       (publish.go), or when an entry does not match its
//	                       leaf hash (refreshIndex); Open refuses the log while
//	                       it exists (pipeline.go)
//
// # Durability
//
// Append returns once the leaf and its index are in the write-ahead journal,
// synced (journal.go); tessera integrates the journaled leaves in the
// background, in journal order, at the journal's indices, and Open hands it
// the ones it did not integrate before a crash. A leaf not yet journaled is
// never acknowledged; if the process dies, it may or may not appear.
//
// # Latency
//
// An append is acknowledged after one journal fsync. Tessera's batches
// (BatchMaxAge, BatchMaxSize) then bound how soon the leaf is in the tree,
// and a checkpoint is published at most every CheckpointInterval (tessera's
// minimum is 100 ms). With the defaults (10 ms, 1024, 100 ms) a verifiable
// inclusion proof exists within about one checkpoint interval (see
// docs/bench/transparency.md).
//
// # Checkpoints
//
// Tessera publishes checkpoints on its own and only logs its failures; the
// log watches publication (publish.go). Its keys sign only a tree proven
// consistent with the last one they signed: a tree that forks from it (a
// tile corrupted on disk, folded into tessera's next root) is refused, and
// fails the log closed as a security failure. When a checkpoint signer fails, or
// leaves in the tree wait longer than CheckpointTimeout for a checkpoint,
// appends are refused and Health reports it (ErrCheckpointStalled) until a
// checkpoint covering the tree is published again, with no restart.
//
// # Reads
//
// Proofs are computed with x/mod sumdb/tlog over a tile reader of the POSIX
// layout; every tile read is authenticated against the latest signed
// checkpoint (golang.org/x/mod >= v0.40, see GO-2026-6179), and entries are
// checked against the level-0 tile hashes, so a corrupted disk reports
// transparency.ErrSecurity instead of a wrong answer.
package tilelog

import (
	"bytes"
	"context"
	"crypto"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/go-logr/logr"
	"github.com/transparency-dev/tessera"
	"github.com/transparency-dev/tessera/api"
	"github.com/transparency-dev/tessera/api/layout"
	"github.com/transparency-dev/tessera/storage/posix"
	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
	"k8s.io/klog/v2"

	"tirage.fr/tirage/transparency"
	"tirage.fr/tirage/transparency/checkpoint"
)

// Defaults for Config's zero fields.
const (
	DefaultBatchMaxAge = 10 * time.Millisecond
	// DefaultBatchMaxSize is 1024 leaves, four entry bundles: the journal
	// feeds tessera without waiting for it, so under load tessera's
	// batches fill up, and a bigger batch integrates more per flush (its
	// files and fsyncs are per batch). With 512 appenders: 70–72 k
	// appends/s against 46–51 k with batches of 256 (BenchmarkAppend, two
	// runs of each). Callers of tessera used directly, who each wait
	// for their leaf, fill batches no bigger than their number.
	DefaultBatchMaxSize       = 1024
	DefaultCheckpointInterval = 100 * time.Millisecond
	// DefaultJournalInterval is the least time between the starts of two
	// journal groups while appends are concurrent (Config.JournalInterval).
	// An fsync costs the kernel about the same CPU whatever it syncs, and
	// paced at half of rngd's peak (2,500 draws/s) groups were one or two
	// leaves each: the journal's fsyncs took 45 µs of CPU per draw. Spaced
	// by 1 ms, the log's CPU per draw fell by 17 % (93 → 77 µs), the
	// daemon's by 3 %, in six alternating pairs (docs/rngd.md, "Journal
	// groups spaced").
	DefaultJournalInterval = time.Millisecond
	// DefaultAppendTimeout bounds how long an Append waits for its leaf
	// to be journaled.
	DefaultAppendTimeout = 30 * time.Second
	// DefaultCloseTimeout bounds how long Close waits for tessera to
	// integrate the journaled leaves and publish a checkpoint covering
	// them. Past it, or at once when the pipeline has failed, Close stops
	// without them: the journal holds them and the next Open hands them
	// to tessera again.
	DefaultCloseTimeout = time.Minute
	// journalCloseGrace bounds how long Close, once it gave up on tessera,
	// waits for a journal write in progress (a hung disk) before leaving
	// the journal and the directory lock to the process's exit.
	journalCloseGrace = 5 * time.Second
	// pollInterval is how often AwaitCheckpoint re-reads the checkpoint file.
	pollInterval = 2 * time.Millisecond
	// indexInterval is how often the leaf hash index catches up in the
	// background (lookups by hash also catch up first, so it only bounds
	// how much a lookup may have to index before it answers: four seconds
	// of appends). Each catch-up has a cost of its own (a run written and
	// synced, merges, the entry bundle at the tree's edge read again):
	// every 4 s instead of every second took about 3 µs less of rngd's CPU
	// a draw at peak (14 alternating pairs, docs/rngd.md, stop 42), and
	// the p99 latency at half of peak did not rise.
	indexInterval = 4 * time.Second
	// gcInterval is how often tessera's garbage collector removes the
	// partial tiles and entry bundles (the .p/ directories under tiles/)
	// that a published checkpoint has made obsolete. A run frees at most
	// 101 full bundles' partials (storage/posix/files.go garbageCollect,
	// maxBundlesPerRun), so the collector keeps up with 25 856/gcInterval
	// leaves/s at most: with tessera's default, a minute, that is 430/s,
	// and above it obsolete partials (files and inodes) piled up without
	// bound. 250 ms keeps up with 103 k/s, 1.4 × the most this log
	// appends (BenchmarkAppend: 70–72 k/s). The collector frees only what
	// a published checkpoint covers: with rngd's batches of 250 ms, a run
	// more often finds nothing new. But every run rewrites tessera's small
	// GC state file (an O_SYNC write of a new file and a directory fsync),
	// even when the log is idle, unless its size is a multiple of 256: at
	// 100 ms those writes took 0.6 % of rngd's CPU at peak (perf, 2026-12-06),
	// and about 45 KB/s of writes on an idle log (write_bytes of
	// /proc/self/io; nothing with a minute, 5 KB/s with a second).
	gcInterval = 250 * time.Millisecond
)

// Config configures the embedded log.
type Config struct {
	// Dir is the log's directory (created if missing), normally
	// <data dir>/log. One process at a time may open it.
	Dir string
	// Origin names the log: first line of every checkpoint and name of the
	// checkpoint keys, e.g. "tirage.fr/log/<appliance id>". Never change it
	// for an existing log.
	Origin string
	// Signers sign checkpoints: an Ed25519 key (required, listed first in
	// VerifierKeys) and, recommended, an ML-DSA-44 key. Each is a
	// crypto.Signer whose Public() is ed25519.PublicKey or
	// *mldsa44.PublicKey (hsm signers, or software keys until then).
	Signers []crypto.Signer
	// BatchMaxAge bounds how long a leaf waits in memory before its batch is
	// written (default 10 ms).
	BatchMaxAge time.Duration
	// BatchMaxSize flushes a batch early when it holds this many leaves
	// (default DefaultBatchMaxSize).
	BatchMaxSize uint
	// JournalInterval is the least time between the starts of two journal
	// group writes while appends are concurrent, that is while appends
	// arrived during one of its writes in the last busyHold (default
	// DefaultJournalInterval; negative: none). Appends that arrive sooner
	// then wait for the next group and share its fsync: an Append waits
	// at most this much longer. An appender alone, who appends again once
	// acknowledged, is not held back: its groups may start closer.
	JournalInterval time.Duration
	// JournalSynced, when set, is called after each fsync of the journal
	// with how long the fsync took (rngd's tirage_log_journal_fsync_seconds):
	// the disk's share of an Append's latency. It runs on the journal's
	// goroutine, between a group's fsync and its acknowledgement, and must
	// not block.
	JournalSynced func(time.Duration)
	// CheckpointInterval is the minimum time between checkpoints (default
	// and minimum 100 ms).
	CheckpointInterval time.Duration
	// CheckpointTimeout bounds how long a leaf in the tree may wait for a
	// signed checkpoint covering it, each leaf measured from the check that
	// first saw it, every half CheckpointInterval (default 10 ×
	// CheckpointInterval, at least 10 s: publish.go; Open refuses less than
	// 3 × CheckpointInterval). Past it, or at once when a checkpoint signer
	// fails, the log refuses appends (ErrCheckpointStalled) until a
	// checkpoint covering the tree is published again.
	CheckpointTimeout time.Duration
	// AppendTimeout bounds how long Append waits for its leaf to be
	// journaled, whatever its context (default DefaultAppendTimeout).
	// rngd appends with a context that is never cancelled: a journal or
	// tessera that stalls (a hung disk) would otherwise hold every draw,
	// and its game, for ever. Once an append has waited that long
	// unanswered, whether its caller still waits or not (checked every
	// tenth of it: at most 1.1 × AppendTimeout), the log fails closed and
	// every Append still waiting fails with ErrUnavailable (a refused
	// draw, counted): every later append is refused until the log is
	// reopened, since the leaf may still be journaled, unacknowledged, and
	// must not be contradicted meanwhile.
	AppendTimeout time.Duration
	// WitnessPolicy, when set, names the witnesses that must cosign every
	// checkpoint before it is published (witness.go, transparency.ParseWitnessPolicy):
	// the Sigsum policy format with C2SP cosignature/v1 keys.
	WitnessPolicy []byte
	// WitnessTimeout bounds how long one checkpoint waits for the policy's
	// quorum (default transparency.DefaultWitnessTimeout); it must be under half of
	// CheckpointTimeout.
	WitnessTimeout time.Duration
	// Logger receives operational messages (never key material); nil
	// discards them.
	Logger *slog.Logger

	// maxLag overrides the package's maxLag (tests).
	maxLag uint64
	// segmentBytes overrides the journal's segmentBytes (tests).
	segmentBytes int64
	// closeTimeout overrides DefaultCloseTimeout (tests).
	closeTimeout time.Duration
	// wrapAdd, if set, wraps tessera's Add (tests).
	wrapAdd func(tessera.AddFn) tessera.AddFn
	// beforeWrite, if set, runs before each journal group is written (tests).
	beforeWrite func()
}

var tesseraLogsOnce sync.Once

// slogDefaultHandler is the type of log/slog's own default handler (the
// one it starts with, which writes through the log package), read before
// anything can call slog.SetDefault in this package.
var slogDefaultHandler = reflect.TypeOf(slog.Default().Handler())

// writesThroughLogPackage reports whether h is slog's default handler or
// one derived from it (With, WithGroup: the same type), which write through
// the log package. A handler of another type that wraps one is not seen.
// (Compared by type: comparing the handlers themselves panics when they
// are of one type that is not comparable.)
func writesThroughLogPackage(h slog.Handler) bool {
	return reflect.TypeOf(h) == slogDefaultHandler
}

// Log is the embedded backend; it implements transparency.Log and
// transparency.Tiles.
type Log struct {
	cfg       Config
	tilesDir  string
	verifiers []note.Verifier
	vkeys     []string
	witnesses *transparency.WitnessMeter // nil without a witness policy
	meter     transparency.Meter

	add      tessera.AddFn
	shutdown func(context.Context) error
	cancel   context.CancelFunc
	lock     *os.File
	index    *leafIndex
	// indexErr is why the last background update of the index failed
	// (refreshIndex), nil once it caught up: IndexHealth.
	indexErr atomic.Pointer[error]
	tiles    tileCache
	bg       sync.WaitGroup

	// The append pipeline (journal.go): Append queues, journalLoop journals
	// and acknowledges, integrateLoop hands the journaled leaves to tessera.
	journal *journal
	pmu     sync.Mutex
	queue   []appendReq // guarded by pmu
	// writing is when the oldest append of the group journalLoop holds
	// (being journaled, or waiting for tessera) was queued; zero once the
	// group is answered. Guarded by pmu; watchAppends reads it.
	writing  time.Time
	timedOut chan struct{} // closed by watchAppends: an append waited AppendTimeout
	failed   error         // guarded by pmu: the pipeline stopped (fail closed)
	failedc  chan struct{} // closed when failed is set
	// stopc is closed, under pmu, once Close has begun (stopping): no
	// append is queued after it.
	stopc      chan struct{}
	wake       chan struct{}
	integrate  chan journaled
	futures    chan pendingLeaf // added to tessera, in order, not yet confirmed
	integrated atomic.Uint64    // leaves tessera has durably integrated
	sequenced  atomic.Uint64    // journal.next, for readers outside journalLoop
	caughtUp   sync.Cond        // on pmu: integrated grew, or the pipeline failed
	lagSeen    uint64           // the most leaves journaled ahead of tessera (journalLoop's)
	// journalDone is closed when journalLoop, the journal's only user
	// after Open, has returned; pipelineDone when confirmLoop has (after
	// integrateLoop: it returns once futures is closed).
	journalDone, pipelineDone chan struct{}

	// Checkpoint publication (publish.go), guarded by pmu: stalled is the
	// stall appends get, nil while checkpoints are published; stallSize
	// the checkpoint size that ends it; stallc is closed when it starts
	// (and replaced when it ends).
	stalled   error
	stallSize uint64
	stallAt   time.Time
	stallc    chan struct{}
	watchMu   sync.Mutex
	watch     publication // guarded by watchMu: what checkPublished last saw

	// signMu guards signed and forked (watchedSigner): signed is the
	// latest tree the checkpoint keys were let sign, or the checkpoint
	// verified at Open (nil for a new log); every tree signed must be
	// proven consistent with it (approve). forked is the refusal of a tree
	// that was not, given again to every later signature.
	signMu sync.Mutex
	signed *tlog.Tree
	forked error

	// verifyMu serializes checkpoint verification (readCheckpoint), so a
	// new checkpoint is verified once however many read it at once. Close
	// never takes it; it is taken before mu, never while holding it.
	verifyMu sync.Mutex
	// mu guards closed and the latest checkpoint cache.
	mu       sync.Mutex
	closed   bool
	cpRaw    []byte
	cp       *checkpoint.Checkpoint
	cpReadAt time.Time
}

var (
	_ transparency.Log       = (*Log)(nil)
	_ transparency.Tiles     = (*Log)(nil)
	_ transparency.Sequencer = (*Log)(nil)
)

// Sequenced implements transparency.Sequencer: the leaves in the journal,
// integrated into the tree or not yet. After Open every one of them is
// integrated (Open hands tessera the journal's tail first).
func (l *Log) Sequenced() uint64 { return l.sequenced.Load() }

// Open opens (or creates) the log in cfg.Dir.
func Open(ctx context.Context, cfg Config) (*Log, error) {
	if cfg.Dir == "" {
		return nil, errors.New("tilelog: Config.Dir is empty")
	}
	if cfg.BatchMaxAge == 0 {
		cfg.BatchMaxAge = DefaultBatchMaxAge
	}
	if cfg.BatchMaxSize == 0 {
		cfg.BatchMaxSize = DefaultBatchMaxSize
	}
	if cfg.BatchMaxSize > MaxBatchSize {
		return nil, fmt.Errorf("tilelog: Config.BatchMaxSize %d: want at most %d leaves", cfg.BatchMaxSize, MaxBatchSize)
	}
	if cfg.JournalInterval == 0 {
		cfg.JournalInterval = DefaultJournalInterval
	}
	if cfg.CheckpointInterval == 0 {
		cfg.CheckpointInterval = DefaultCheckpointInterval
	}
	if cfg.CheckpointTimeout == 0 {
		cfg.CheckpointTimeout = DefaultCheckpointTimeout(cfg.CheckpointInterval)
	}
	if cfg.CheckpointTimeout < minCheckpointTimeoutIntervals*cfg.CheckpointInterval {
		return nil, fmt.Errorf("tilelog: Config.CheckpointTimeout %v is under %d × CheckpointInterval (%v): a checkpoint merely late would stall the log", cfg.CheckpointTimeout, minCheckpointTimeoutIntervals, cfg.CheckpointInterval)
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	var witnesses tessera.WitnessGroup
	var witnessURLs map[string]transparency.WitnessURL
	if cfg.WitnessPolicy != nil {
		var err error
		if witnesses, witnessURLs, err = transparency.ParseWitnessPolicy(cfg.WitnessPolicy); err != nil {
			return nil, fmt.Errorf("tilelog: %w", err)
		}
		if cfg.WitnessTimeout == 0 {
			cfg.WitnessTimeout = transparency.DefaultWitnessTimeout
		}
		if cfg.WitnessTimeout < 0 || 2*cfg.WitnessTimeout > cfg.CheckpointTimeout {
			return nil, fmt.Errorf("tilelog: Config.WitnessTimeout %v: want a positive duration under half of CheckpointTimeout (%v)", cfg.WitnessTimeout, cfg.CheckpointTimeout)
		}
	}
	if cfg.maxLag == 0 {
		cfg.maxLag = max(maxLag, 2*uint64(cfg.BatchMaxSize))
	}
	if cfg.AppendTimeout == 0 {
		cfg.AppendTimeout = DefaultAppendTimeout
	}
	if cfg.JournalInterval >= cfg.AppendTimeout {
		return nil, fmt.Errorf("tilelog: Config.JournalInterval %v is not under AppendTimeout (%v): spaced appends would time out and fail the log", cfg.JournalInterval, cfg.AppendTimeout)
	}
	if cfg.closeTimeout == 0 {
		cfg.closeTimeout = DefaultCloseTimeout
	}
	signers, verifiers, vkeys, err := transparency.CheckpointKeys(cfg.Origin, cfg.Signers)
	if err != nil {
		return nil, fmt.Errorf("tilelog: %w", err)
	}
	// tessera logs through klog and through log/slog's default logger
	// (its POSIX driver's "Failed to remove temporary file", once per
	// failed write), both process-wide: send them to the first opened
	// log's logger rather than to stderr in plain text, each kind of
	// message at most once per klogRepeat (repeatLimiter). klog's own
	// verbosity (V(1) and up) stays off; slog's default logger also
	// carries the standard log package's lines.
	tesseraLogsOnce.Do(func() {
		h := newRepeatLimiter(cfg.Logger.Handler(), klogRepeat, time.Now)
		klog.SetLogger(logr.FromSlogHandler(h))
		// Not when the logger given writes through the log package, as
		// slog's default handler does, and so every logger derived from
		// slog.Default() with With or WithGroup (rngd's Config.Logger
		// slog.Default() gives the log cfg.Logger.With("component",
		// "log")): SetDefault would send the log package back to it, a
		// deadlock on the log package's lock at the first line.
		if !writesThroughLogPackage(cfg.Logger.Handler()) {
			slog.SetDefault(slog.New(h))
		}
	})
	if err := mkdirAll(cfg.Dir); err != nil {
		return nil, fmt.Errorf("tilelog: couldn't create log directory: %w", err)
	}
	lock, err := lockDir(cfg.Dir)
	if err != nil {
		return nil, err
	}
	l := &Log{cfg: cfg, tilesDir: filepath.Join(cfg.Dir, "tiles"), verifiers: verifiers, vkeys: vkeys, lock: lock}
	l.tiles.m = make(map[tlog.Tile][]byte)
	l.caughtUp.L = &l.pmu
	l.failedc = make(chan struct{})
	l.timedOut = make(chan struct{})
	l.stallc = make(chan struct{})
	// fail undoes what Open did so far. Nothing may fail once
	// journalLoop is started: it is not stopped here.
	fail := func(err error) (*Log, error) {
		if l.integrate != nil {
			// Only integrateLoop and confirmLoop run (recover): stop
			// them while tessera is up to take what they add, or leave
			// them to the process's exit if it stalled.
			close(l.integrate)
			select {
			case <-l.pipelineDone:
			case <-time.After(journalCloseGrace):
			}
		}
		if l.shutdown != nil {
			l.shutdown(context.Background())
		}
		if l.cancel != nil {
			l.cancel()
		}
		if l.journal != nil {
			l.journal.close()
		}
		if l.index != nil {
			l.index.Close()
		}
		lock.Close()
		return nil, err
	}
	if err := checkSecurityFile(cfg.Dir); err != nil {
		return fail(err)
	}
	if l.signed, err = l.checkOrigin(); err != nil {
		return fail(err)
	}
	// No checkpoint yet (a new log, or one whose first was not cosigned):
	// read here, before tessera's signer may set l.signed.
	noCheckpoint := l.signed == nil
	// The leaf index is opened before tessera and the pipeline start, so
	// that its failure has nothing running to stop.
	if err := os.Remove(filepath.Join(cfg.Dir, oldLeafIndexFile)); err == nil {
		cfg.Logger.Info("transparency log: the leaf hash index of an older version removed; it is built again from the tree", "file", oldLeafIndexFile)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fail(fmt.Errorf("tilelog: %w: couldn't remove the older leaf index: %w", transparency.ErrUnavailable, err))
	}
	l.index, err = openLeafIndex(filepath.Join(cfg.Dir, leafIndexDir))
	if err != nil {
		return fail(err)
	}
	// Temporary checkpoint files failed publications left (a full disk):
	// before tessera starts publishing.
	if n, err := removeCheckpointTemps(l.tilesDir); n > 0 || err != nil {
		cfg.Logger.Info("transparency log: temporary checkpoint files of failed publications removed", "count", n, "err", err)
	}
	pcfg := posix.Config{Path: l.tilesDir}
	if witnessURLs != nil {
		l.witnesses = transparency.NewWitnessMeter(witnessURLs, http.DefaultTransport.(*http.Transport).Clone())
		pcfg.HTTPClient = transparency.NewWitnessClient(l.witnesses, cfg.WitnessTimeout)
	}
	driver, err := posix.New(ctx, pcfg)
	if err != nil {
		return fail(fmt.Errorf("tilelog: %w: %w", transparency.ErrUnavailable, err))
	}
	watched := make([]note.Signer, len(signers))
	for i, s := range signers {
		watched[i] = watchedSigner{Signer: s, l: l}
	}
	opts := tessera.NewAppendOptions().
		WithCheckpointSigner(watched[0], watched[1:]...).
		WithBatching(cfg.BatchMaxSize, cfg.BatchMaxAge).
		WithCheckpointInterval(cfg.CheckpointInterval).
		WithGarbageCollectionInterval(gcInterval)
	if witnessURLs != nil {
		opts = opts.WithWitnesses(witnesses, &tessera.WitnessOptions{Timeout: cfg.WitnessTimeout})
		cfg.Logger.Info("transparency log: checkpoints are published once cosigned by the witness policy's quorum", "witnesses", len(witnessURLs), "witness_timeout", cfg.WitnessTimeout.String())
	}
	bgctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	l.cancel = cancel
	app, shutdown, reader, err := tessera.NewAppender(bgctx, driver, opts)
	if err != nil {
		return fail(fmt.Errorf("tilelog: %w: couldn't start tessera: %w", transparency.ErrUnavailable, oneLine{err}))
	}
	l.add, l.shutdown = app.Add, shutdown
	if cfg.wrapAdd != nil {
		l.add = cfg.wrapAdd(l.add)
	}
	// The journal's tail goes through the pipeline (recover) before
	// journalLoop, its writer from then on, starts.
	l.integrate = make(chan journaled, integrateQueue)
	l.futures = make(chan pendingLeaf, max(maxLag, cfg.maxLag))
	l.journalDone, l.pipelineDone = make(chan struct{}), make(chan struct{})
	go l.integrateLoop(bgctx)
	go l.confirmLoop()
	if err := l.recover(bgctx, reader); err != nil {
		return fail(err)
	}
	if noCheckpoint {
		if err := l.awaitFirstCheckpoint(ctx); err != nil {
			return fail(err)
		}
	}
	l.wake, l.stopc = make(chan struct{}, 1), make(chan struct{})
	go l.journalLoop()
	l.bg.Add(1)
	go l.watchAppends()
	l.every(bgctx, indexInterval, l.refreshIndex)
	l.every(bgctx, l.cfg.CheckpointInterval/2, func(context.Context) { l.checkPublished(time.Now()) })
	return l, nil
}

// oneLine is an error of tessera's on one line: its witness group joins
// the failures of every witness with newlines (errors.Join), and rngd
// prints Open's error as one line.
type oneLine struct{ err error }

func (e oneLine) Error() string { return strings.ReplaceAll(e.err.Error(), "\n", "; ") }
func (e oneLine) Unwrap() error { return e.err }

// awaitFirstCheckpoint waits, for a log that had no checkpoint when Open
// began, until one is published, for at most Config.CheckpointTimeout: an
// opened log always has a checkpoint to serve. tessera publishes a new log's
// first, empty checkpoint when it makes the directory, and Open fails if it
// cannot (its witnesses down); opened again, the directory has its tree but
// no checkpoint, which tessera publishes at its next checkpoint interval,
// once the witnesses' quorum cosigns it.
func (l *Log) awaitFirstCheckpoint(ctx context.Context) error {
	deadline := time.NewTimer(l.cfg.CheckpointTimeout)
	defer deadline.Stop()
	t := time.NewTicker(pollInterval)
	defer t.Stop()
	for {
		_, err := l.readCheckpoint(0)
		if err == nil {
			return nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("tilelog: waiting for the new log's first checkpoint: %w", ctx.Err())
		case <-deadline.C:
			why := ""
			if l.witnesses != nil {
				why = ": the witness policy's quorum did not cosign it (a witness down, or not knowing the log's key)"
			}
			return fmt.Errorf("tilelog: %w: the new log's first checkpoint was not published within %v%s",
				transparency.ErrUnavailable, l.cfg.CheckpointTimeout, why)
		case <-t.C:
		}
	}
}

// checkOrigin refuses to open a log whose existing checkpoint names another
// origin (a configuration mistake that would fork the log's identity), or
// does not verify, and returns its tree: every checkpoint signed from now
// on must be consistent with it (nil for a new log).
func (l *Log) checkOrigin() (*tlog.Tree, error) {
	raw, err := os.ReadFile(filepath.Join(l.tilesDir, layout.CheckpointPath))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("tilelog: %w: %w", transparency.ErrUnavailable, err)
	}
	origin, _, _, _ := checkpoint.ParseText(string(raw))
	if origin != l.cfg.Origin {
		return nil, fmt.Errorf("tilelog: log in %s has origin %q, config says %q", l.cfg.Dir, origin, l.cfg.Origin)
	}
	cp, err := checkpoint.Open(raw, l.verifiers...)
	if err != nil {
		return nil, fmt.Errorf("tilelog: %w: existing checkpoint does not verify with the configured keys: %w", transparency.ErrSecurity, err)
	}
	tree := cp.Tree()
	return &tree, nil
}

func lockDir(dir string) (*os.File, error) {
	f, err := os.OpenFile(filepath.Join(dir, "LOCK"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("tilelog: couldn't open lock file: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, fmt.Errorf("tilelog: log directory %s is in use by another process: %w", dir, err)
	}
	return f, nil
}

// Append implements transparency.Log: it returns once the leaf is in the
// journal, synced, with its index (see journal.go).
func (l *Log) Append(ctx context.Context, leaf []byte) (uint64, error) {
	if err := transparency.CheckLeaf(leaf); err != nil {
		return 0, err
	}
	if l.isClosed() {
		return 0, transparency.NotAppended(transparency.ErrClosed)
	}
	now := time.Now() // the latency's start and the watchdog's: one clock read
	done := l.meter.StartAt(now)
	// leaf is the log's (transparency.Log): journaled and handed to
	// tessera as it is, not copied (0.7 KB a draw).
	req := appendReq{leaf: leaf, done: make(chan appendResult, 1), at: now}
	l.pmu.Lock()
	if l.stopping() {
		l.pmu.Unlock()
		done(transparency.ErrClosed)
		return 0, transparency.NotAppended(transparency.ErrClosed)
	}
	if err := l.refusal(); err != nil {
		l.pmu.Unlock()
		done(err)
		return 0, transparency.NotAppended(err)
	}
	l.queue = append(l.queue, req)
	l.pmu.Unlock()
	select {
	case l.wake <- struct{}{}:
	default:
	}
	// One watchdog for the log (watchAppends), not a timer an append: a
	// timer a call cost the daemon about 2 µs a draw (docs/rngd.md, stop
	// 41).
	var err error
	select {
	case r := <-req.done:
		done(r.err)
		return r.index, r.err
	case <-ctx.Done():
		err = fmt.Errorf("tilelog: append: leaf not journaled yet: %w: %w", transparency.ErrUnavailable, ctx.Err())
	case <-l.timedOut:
	}
	// The leaf's answer may have come with the deadline or the timeout
	// (select picks among ready cases at random): a leaf journaled is
	// acknowledged, never refused.
	select {
	case r := <-req.done:
		done(r.err)
		return r.index, r.err
	default:
	}
	if err == nil {
		// The leaf may still be journaled once the stall ends, after its
		// caller was told it was not: the log stops taking appends, so no
		// later record can contradict it (a retried draw sealed again),
		// until it is reopened and the journal is the truth again.
		// (journalLoop refuses, unwritten, a batch it was waiting to
		// write when the log failed: only a journal write under way
		// when the timeout fell can still land.)
		err = l.fail(errAppendTimeout(l.cfg.AppendTimeout))
	}
	// The leaf may still be appended: it was never acknowledged.
	done(err)
	return 0, err
}

func (l *Log) isClosed() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.closed
}

// Checkpoint implements transparency.Log.
func (l *Log) Checkpoint(ctx context.Context) (*checkpoint.Checkpoint, error) {
	return l.latest(0)
}

// latest returns the published checkpoint, re-reading the file when the
// cached copy is older than maxAge.
func (l *Log) latest(maxAge time.Duration) (*checkpoint.Checkpoint, error) {
	if l.isClosed() {
		return nil, transparency.ErrClosed
	}
	return l.readCheckpoint(maxAge)
}

// readCheckpoint is latest, open or closed. It reads the file holding no
// lock, and takes mu only to swap the cache: Close takes mu, and a read that
// hangs (a disk) must not hold it. A new file is verified under verifyMu,
// once: a reader that waited for it finds the file cached.
func (l *Log) readCheckpoint(maxAge time.Duration) (*checkpoint.Checkpoint, error) {
	l.mu.Lock()
	prev, prevRaw, readAt := l.cp, l.cpRaw, l.cpReadAt
	l.mu.Unlock()
	if prev != nil && maxAge > 0 && time.Since(readAt) < maxAge {
		return prev, nil
	}
	start := time.Now()
	raw, err := os.ReadFile(filepath.Join(l.tilesDir, layout.CheckpointPath))
	if err != nil {
		return nil, fmt.Errorf("tilelog: couldn't read checkpoint: %w: %w", transparency.ErrUnavailable, err)
	}
	cp := prev
	if prev == nil || !bytes.Equal(raw, prevRaw) {
		// Held until the cache is swapped below.
		l.verifyMu.Lock()
		defer l.verifyMu.Unlock()
		l.mu.Lock()
		cached, cachedRaw := l.cp, l.cpRaw
		l.mu.Unlock()
		if cached != nil && bytes.Equal(raw, cachedRaw) {
			cp = cached
		} else {
			if cp, err = checkpoint.Open(raw, l.verifiers...); err != nil {
				return nil, fmt.Errorf("tilelog: %w: published checkpoint does not verify: %w", transparency.ErrSecurity, err)
			}
			// prev was read before this read began: the new one must
			// extend it.
			if prev != nil {
				if err := l.proveConsistent(prev.Tree(), cp.Tree()); err != nil {
					return nil, fmt.Errorf("tilelog: published checkpoint: %w", err)
				}
			}
		}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	// A concurrent read may have cached a bigger one meanwhile.
	if l.cp == nil || cp.Size >= l.cp.Size {
		l.cp, l.cpRaw, l.cpReadAt = cp, raw, start
	}
	return cp, nil
}

// AwaitCheckpoint implements transparency.Log. While checkpoints are
// stalled (ErrCheckpointStalled), or once the keys refused to sign a fork
// (they sign nothing more), it does not wait for one.
func (l *Log) AwaitCheckpoint(ctx context.Context, size uint64) (*checkpoint.Checkpoint, error) {
	t := time.NewTicker(pollInterval)
	defer t.Stop()
	for {
		cp, err := l.latest(pollInterval / 2)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			// None published: Open waits for a new log's first
			// (awaitFirstCheckpoint), so only a file removed since;
			// tessera publishes a missing one at its next interval,
			// and the stall watch bounds the wait.
		case err != nil:
			return nil, err
		case cp.Size >= size:
			return cp, nil
		}
		if err := l.stallErr(); err != nil {
			return nil, fmt.Errorf("tilelog: waiting for a checkpoint of %d leaves: %w", size, err)
		}
		l.signMu.Lock()
		forked := l.forked
		l.signMu.Unlock()
		if forked != nil {
			return nil, fmt.Errorf("tilelog: waiting for a checkpoint of %d leaves: %w", size, forked)
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("tilelog: waiting for a checkpoint of %d leaves: %w", size, ctx.Err())
		case <-t.C:
		}
	}
}

// hashReader returns an authenticated hash reader for the latest checkpoint
// and checks treeSize against it.
func (l *Log) hashReader(treeSize uint64) (tlog.HashReader, *checkpoint.Checkpoint, error) {
	cp, err := l.latest(pollInterval / 2)
	if err != nil {
		return nil, nil, err
	}
	if treeSize > cp.Size {
		return nil, nil, fmt.Errorf("tilelog: %w: tree size %d beyond the latest checkpoint (%d)", transparency.ErrNotFound, treeSize, cp.Size)
	}
	return tlog.TileHashReader(cp.Tree(), (*tileReader)(l)), cp, nil
}

// proofErr classifies tlog errors: a tile that does not authenticate is a
// security error, anything else a storage failure.
func proofErr(what string, err error) error {
	if errors.Is(err, transparency.ErrUnavailable) {
		return fmt.Errorf("tilelog: %s: %w", what, err)
	}
	return fmt.Errorf("tilelog: %s: %w: %w", what, transparency.ErrSecurity, err)
}

// InclusionProof implements transparency.Log.
func (l *Log) InclusionProof(ctx context.Context, index, treeSize uint64) (tlog.RecordProof, error) {
	if index >= treeSize {
		return nil, fmt.Errorf("tilelog: %w: index %d not below tree size %d", transparency.ErrInvalidRequest, index, treeSize)
	}
	r, _, err := l.hashReader(treeSize)
	if err != nil {
		return nil, err
	}
	p, err := tlog.ProveRecord(int64(treeSize), int64(index), r)
	if err != nil {
		return nil, proofErr(fmt.Sprintf("couldn't prove leaf %d in tree %d", index, treeSize), err)
	}
	return p, nil
}

// InclusionProofByHash implements transparency.Log.
func (l *Log) InclusionProofByHash(ctx context.Context, leafHash tlog.Hash, treeSize uint64) (uint64, tlog.RecordProof, error) {
	if treeSize == 0 {
		return 0, nil, fmt.Errorf("tilelog: %w: tree size 0 holds no leaf", transparency.ErrInvalidRequest)
	}
	r, _, err := l.hashReader(treeSize)
	if err != nil {
		return 0, nil, err
	}
	if err := l.catchUpIndex(ctx, treeSize); err != nil {
		return 0, nil, err
	}
	idx, ok, err := l.index.Lookup(leafHash)
	if err != nil {
		return 0, nil, err
	}
	if !ok || idx >= treeSize {
		return 0, nil, fmt.Errorf("tilelog: %w: no leaf with hash %x in tree %d", transparency.ErrNotFound, leafHash[:], treeSize)
	}
	// The index is not authoritative: the tree must hold the leaf at the
	// index it names.
	stored, err := readLeafHash(r, idx)
	if err != nil {
		return 0, nil, err
	}
	if stored != leafHash {
		return 0, nil, fmt.Errorf("tilelog: %w: the leaf hash index %s names leaf %d for hash %x, but the tree holds another leaf there (delete the index while the log is closed: it is rebuilt from the tree)",
			transparency.ErrSecurity, filepath.Join(l.cfg.Dir, leafIndexDir), idx, leafHash[:])
	}
	p, err := l.InclusionProof(ctx, idx, treeSize)
	return idx, p, err
}

// readLeafHash is the hash of leaf i in the tree r reads, authenticated.
func readLeafHash(r tlog.HashReader, i uint64) (tlog.Hash, error) {
	h, err := r.ReadHashes([]int64{tlog.StoredHashIndex(0, int64(i))})
	if err != nil {
		return tlog.Hash{}, proofErr(fmt.Sprintf("couldn't read leaf hash %d", i), err)
	}
	return h[0], nil
}

// ConsistencyProof implements transparency.Log.
func (l *Log) ConsistencyProof(ctx context.Context, oldSize, newSize uint64) (tlog.TreeProof, error) {
	if oldSize > newSize {
		return nil, fmt.Errorf("tilelog: %w: old size %d above new size %d", transparency.ErrInvalidRequest, oldSize, newSize)
	}
	r, _, err := l.hashReader(newSize)
	if err != nil {
		return nil, err
	}
	if oldSize == 0 || oldSize == newSize {
		return tlog.TreeProof{}, nil
	}
	p, err := tlog.ProveTree(int64(newSize), int64(oldSize), r)
	if err != nil {
		return nil, proofErr(fmt.Sprintf("couldn't prove tree %d in tree %d", oldSize, newSize), err)
	}
	return p, nil
}

// Entries implements transparency.Log. Each entry is checked against its
// leaf hash in the authenticated tiles.
func (l *Log) Entries(ctx context.Context, start, end, treeSize uint64) ([][]byte, error) {
	out, _, err := l.entries(start, end, treeSize)
	return out, err
}

// entries is Entries, with the entries' leaf hashes (those they were
// checked against).
func (l *Log) entries(start, end, treeSize uint64) ([][]byte, []tlog.Hash, error) {
	end, err := transparency.CheckRange(start, end, treeSize)
	if err != nil {
		return nil, nil, err
	}
	r, _, err := l.hashReader(treeSize)
	if err != nil {
		return nil, nil, err
	}
	out, err := l.readEntries(start, end, treeSize)
	if err != nil {
		return nil, nil, err
	}
	idx := make([]int64, len(out))
	for i := range out {
		idx[i] = tlog.StoredHashIndex(0, int64(start)+int64(i))
	}
	hashes, err := r.ReadHashes(idx)
	if err != nil {
		return nil, nil, proofErr("couldn't read leaf hashes", err)
	}
	for i, e := range out {
		if tlog.RecordHash(e) != hashes[i] {
			return nil, nil, fmt.Errorf("tilelog: %w: entry %d does not match its leaf hash", transparency.ErrSecurity, start+uint64(i))
		}
	}
	return out, hashes, nil
}

// readEntries reads leaves [start, end) from the entry bundles of a tree of
// treeSize leaves, unauthenticated.
func (l *Log) readEntries(start, end, treeSize uint64) ([][]byte, error) {
	var out [][]byte
	for b := start / layout.EntryBundleWidth; b*layout.EntryBundleWidth < end; b++ {
		raw, err := l.ReadEntryBundle(context.Background(), b, layout.PartialTileSize(0, b, treeSize))
		if err != nil {
			return nil, err
		}
		var eb api.EntryBundle
		if err := eb.UnmarshalText(raw); err != nil {
			return nil, fmt.Errorf("tilelog: %w: entry bundle %d: %w", transparency.ErrSecurity, b, err)
		}
		first := b * layout.EntryBundleWidth
		for i, e := range eb.Entries {
			n := first + uint64(i)
			if n >= start && n < end {
				out = append(out, e)
			}
		}
	}
	if uint64(len(out)) != end-start {
		return nil, fmt.Errorf("tilelog: %w: entry bundles hold %d of entries [%d, %d)", transparency.ErrSecurity, len(out), start, end)
	}
	return out, nil
}

// ReadTile implements transparency.Tiles.
func (l *Log) ReadTile(ctx context.Context, level, index uint64, width uint8) ([]byte, error) {
	return l.readResource(layout.TilePath(level, index, width), layout.TilePath(level, index, 0), width, 32)
}

// ReadEntryBundle implements transparency.Tiles.
func (l *Log) ReadEntryBundle(ctx context.Context, index uint64, width uint8) ([]byte, error) {
	return l.readResource(layout.EntriesPath(index, width), layout.EntriesPath(index, 0), width, 0)
}

// readResource reads a tile or bundle. A partial resource may not be on
// disk under its own name: tessera writes one per batch it integrates (a
// tree size between two batches has none), and removes a resource's
// partials once a checkpoint covers the full one (garbage collection);
// then the full resource or the narrowest wider partial is used, cut to
// width entries: hashSize bytes each for hash tiles, length-prefixed for
// entry bundles (hashSize 0). So the bytes served for .p/<W> are always
// the W entries tlog-tiles names. A read that fails for another reason
// than absence, of the partial or of one that replaces it, is
// transparency.ErrUnavailable, never ErrNotFound.
func (l *Log) readResource(path, fullPath string, width uint8, hashSize int) ([]byte, error) {
	b, err := os.ReadFile(filepath.Join(l.tilesDir, path))
	if err == nil || width == 0 || !errors.Is(err, fs.ErrNotExist) {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil, fmt.Errorf("tilelog: %w: %s", transparency.ErrNotFound, path)
			}
			return nil, fmt.Errorf("tilelog: %w: %w", transparency.ErrUnavailable, err)
		}
		return b, nil
	}
	// Only absence moves on to the next candidate: another failure (a
	// disk error, no file descriptor left) is an outage, not a resource
	// the log lacks.
	read := func(p string) (b []byte, found bool, err error) {
		b, err = os.ReadFile(filepath.Join(l.tilesDir, p))
		switch {
		case err == nil:
			b, err = cutResource(p, b, width, hashSize)
			return b, true, err
		case errors.Is(err, fs.ErrNotExist):
			return nil, false, nil
		}
		return nil, true, fmt.Errorf("tilelog: %w: %w", transparency.ErrUnavailable, err)
	}
	if b, found, err := read(fullPath); found {
		return b, err
	}
	// The narrowest wider partial, from one listing: trying every width
	// would cost an anonymous GET of a tile the log does not hold 255
	// failed opens.
	ents, err := os.ReadDir(filepath.Join(l.tilesDir, fullPath+".p"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("tilelog: %w: %w", transparency.ErrUnavailable, err)
	}
	wider := 0
	for _, e := range ents {
		w, err := strconv.Atoi(e.Name())
		if err == nil && w > int(width) && w < layout.EntryBundleWidth && strconv.Itoa(w) == e.Name() && (wider == 0 || w < wider) {
			wider = w
		}
	}
	if wider > 0 {
		if b, found, err := read(fmt.Sprintf("%s.p/%d", fullPath, wider)); found {
			return b, err
		}
		// Removed since it was listed: tessera removes a resource's
		// partials once the full one is written.
		if b, found, err := read(fullPath); found {
			return b, err
		}
	}
	return nil, fmt.Errorf("tilelog: %w: %s", transparency.ErrNotFound, path)
}

// cutResource is b, the resource read at p (a wider one than asked for),
// cut to its first width entries: hashSize bytes each for a hash tile,
// length-prefixed for an entry bundle (hashSize 0). A resource holding
// fewer is transparency.ErrSecurity.
func cutResource(p string, b []byte, width uint8, hashSize int) ([]byte, error) {
	if hashSize > 0 {
		if len(b) < int(width)*hashSize {
			return nil, fmt.Errorf("tilelog: %w: %s holds %d bytes, fewer than %d hashes", transparency.ErrSecurity, p, len(b), width)
		}
		return b[:int(width)*hashSize], nil
	}
	off := 0
	for range int(width) {
		if len(b)-off < 2 || len(b)-off-2 < int(binary.BigEndian.Uint16(b[off:])) {
			return nil, fmt.Errorf("tilelog: %w: %s holds fewer than %d entries", transparency.ErrSecurity, p, width)
		}
		off += 2 + int(binary.BigEndian.Uint16(b[off:]))
	}
	return b[:off], nil
}

// VerifierKeys implements transparency.Log.
func (l *Log) VerifierKeys() []string { return l.vkeys }

// Stats implements transparency.Log.
func (l *Log) Stats() transparency.Stats { return l.meter.Stats() }

// Health implements transparency.Health: the failure every append gets
// until the log is reopened, else the checkpoint stall appends get until a
// checkpoint is published again (ErrCheckpointStalled); nil while it takes
// appends.
func (l *Log) Health() error {
	l.pmu.Lock()
	defer l.pmu.Unlock()
	return l.refusal()
}

// Close implements transparency.Log: it waits (up to DefaultCloseTimeout,
// a minute) for tessera to integrate every journaled leaf and for a
// checkpoint covering them, then stops. Close is bounded even when tessera
// stalls: past the bound, or at once when the pipeline has already failed,
// it fails the pipeline, lets the journal's writer finish (every
// acknowledged leaf is in the synced journal already), closes the journal
// and leaves tessera's goroutines to the process's exit; the next Open
// hands tessera the leaves it did not integrate. When checkpoints are
// stalled (ErrCheckpointStalled), before or while it waits, it does not wait
// for the checkpoint and returns the stall: the leaves are in the tree, and
// the next Open publishes a checkpoint covering them once signing works. A
// journal write that does not finish within journalCloseGrace more (a hung
// disk) leaves the journal and the directory lock open, and Close reports
// it.
func (l *Log) Close() error {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return transparency.ErrClosed
	}
	l.closed = true
	l.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), l.cfg.closeTimeout)
	defer cancel()
	// Acknowledge what is queued, let tessera integrate everything
	// journaled, then stop tessera.
	l.pmu.Lock()
	close(l.stopc)
	l.pmu.Unlock()
	select {
	case l.wake <- struct{}{}:
	default:
	}
	var err error
	select {
	case <-l.pipelineDone:
	case <-l.failedc:
	case <-ctx.Done():
		l.fail(fmt.Errorf("close: tessera did not integrate the journaled leaves within %v (the journal keeps them for the next Open)", l.cfg.closeTimeout))
	}
	l.pmu.Lock()
	failed, stalled := l.failed, l.stalled
	l.pmu.Unlock()
	switch {
	case failed != nil:
		// Tessera stalled or failed: its shutdown would wait for it.
		// The journal is the truth until the next Open.
		err = failed
	case stalled != nil:
		// Its shutdown would wait for a checkpoint that cannot be signed.
		err = stalledClose(stalled)
	default:
		// Tessera's shutdown waits for a checkpoint covering what it
		// integrated; it may itself stall (it locks out Add), or
		// publication may (shutdownTessera).
		err = l.shutdownTessera(ctx)
	}
	l.cancel()
	// journalLoop no longer waits for tessera (it failed, or the pipeline
	// is done); a journal write may be in progress.
	gctx, gcancel := context.WithTimeout(context.Background(), journalCloseGrace)
	defer gcancel()
	select {
	case <-l.journalDone:
	case <-gctx.Done():
		return fmt.Errorf("tilelog: close: %w: a journal write did not finish within %v of giving up on tessera (disk stalled); the journal and the directory lock stay open", transparency.ErrUnavailable, journalCloseGrace)
	}
	if cerr := l.journal.close(); err == nil {
		err = cerr
	}
	if cerr := within(gctx, func() error { l.bg.Wait(); return l.index.Close() }); err == nil {
		err = cerr
	}
	// Tessera's background jobs may be in a round (quiesceTessera): the
	// directory is not left to another opener, or removed, while they
	// still write in it.
	if cerr := within(gctx, func() error { return quiesceTessera(l.tilesDir) }); err == nil {
		err = cerr
	}
	if cerr := l.lock.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("tilelog: close: %w", err)
	}
	return nil
}

// within runs f and returns its error, or ctx's if ctx ends first (f then
// goes on in the background).
func within(ctx context.Context, f func() error) error {
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return fmt.Errorf("%w: %w", transparency.ErrUnavailable, ctx.Err())
	}
}

// tileReader is the log seen as an x/mod tlog.TileReader.
type tileReader Log

func (r *tileReader) Height() int { return 8 }

func (r *tileReader) ReadTiles(tiles []tlog.Tile) ([][]byte, error) {
	l := (*Log)(r)
	out := make([][]byte, len(tiles))
	for i, t := range tiles {
		if b, ok := l.tiles.get(t); ok {
			out[i] = b
			continue
		}
		w := uint8(t.W)
		if t.W == layout.TileWidth {
			w = 0
		}
		b, err := l.ReadTile(context.Background(), uint64(t.L), uint64(t.N), w)
		if err != nil {
			return nil, err
		}
		out[i] = b
	}
	return out, nil
}

// SaveTiles is called with tiles tlog has authenticated; full ones never
// change and are cached.
func (r *tileReader) SaveTiles(tiles []tlog.Tile, data [][]byte) {
	for i, t := range tiles {
		if t.W == layout.TileWidth {
			(*Log)(r).tiles.put(t, data[i])
		}
	}
}

// tileCache holds authenticated full tiles.
type tileCache struct {
	mu sync.Mutex
	m  map[tlog.Tile][]byte // guarded by mu
}

const maxCachedTiles = 1024 // 8 MiB

func (c *tileCache) get(t tlog.Tile) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	b, ok := c.m[t]
	return b, ok
}

func (c *tileCache) put(t tlog.Tile, b []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) >= maxCachedTiles {
		clear(c.m)
	}
	c.m[t] = b
}

// every runs f every d, on a goroutine of its own, until ctx ends (Close
// waits for it: l.bg).
func (l *Log) every(ctx context.Context, d time.Duration, f func(context.Context)) {
	l.bg.Add(1)
	go func() {
		defer l.bg.Done()
		t := time.NewTicker(d)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			f(ctx)
		}
	}()
}

// refreshIndex brings the leaf hash index up to the published tree (every
// indexInterval). An entry that does not match its authenticated leaf hash
// (transparency.ErrSecurity) fails the log closed and is recorded
// (securityFile): the log serves leaves its checkpoints do not commit to.
// Anything else is an outage of the index only, retried.
func (l *Log) refreshIndex(ctx context.Context) {
	cp, err := l.latest(pollInterval)
	if err != nil {
		return
	}
	err = l.catchUpIndex(ctx, cp.Size)
	if err == nil {
		err = l.index.Compact(ctx)
	}
	if errors.Is(err, transparency.ErrSecurity) {
		l.fail(l.recordSecurity(fmt.Errorf("leaf index: %w", err)))
		return
	}
	if ctx.Err() != nil {
		return // closing
	}
	if err != nil {
		l.indexErr.Store(&err)
		l.cfg.Logger.Warn("transparency log leaf index", "err", err)
		return
	}
	l.indexErr.Store(nil)
}

// IndexHealth reports whether the leaf hash index (leafhash/) keeps up
// with the tree: nil, or why its last update failed (a full or unwritable
// disk; retried every indexInterval). The index is not on the append path:
// appends go on, Health says nothing of it, and only InclusionProofByHash
// (an auditor's proof by leaf hash) is refused, ErrUnavailable, until it
// catches up. For metrics (rngd's tirage_log_leaf_index_failing).
func (l *Log) IndexHealth() error {
	if err := l.indexErr.Load(); err != nil {
		return *err
	}
	return nil
}

// indexBatch is how many leaves at most the index adds in one run (16
// entry bundles).
const indexBatch = 16 * layout.EntryBundleWidth

// maxRuns bounds the leaf index's runs during a long catch-up (a rebuild):
// they are merged once there are more (refreshIndex merges them after each
// catch-up in any case).
const maxRuns = 64

// catchUpIndex indexes leaves up to size (at least).
func (l *Log) catchUpIndex(ctx context.Context, size uint64) error {
	l.index.mu.Lock()
	defer l.index.mu.Unlock()
	if path, first, err := l.index.Repair(); path != "" {
		l.cfg.Logger.Warn("transparency log leaf index: a run with a damaged block removed, with the runs after it; their leaves are indexed again from the tree", "file", path, "from_leaf", first, "err", err)
	}
	if !l.index.matched {
		if err := l.matchIndex(); err != nil {
			return err
		}
	}
	next, err := l.index.Next()
	if err != nil {
		return err
	}
	for next < size {
		first := next
		var batch []tlog.Hash
		for next < size && next-first < indexBatch {
			if err := ctx.Err(); err != nil {
				return err
			}
			end := min(size, (next/layout.EntryBundleWidth+1)*layout.EntryBundleWidth)
			_, hashes, err := l.entries(next, end, size)
			if err != nil {
				return err
			}
			batch = append(batch, hashes...)
			next += uint64(len(hashes))
		}
		if err := l.index.add(first, batch); err != nil {
			return err
		}
		if l.index.Count() > maxRuns {
			if err := l.index.Compact(ctx); err != nil {
				return err
			}
		}
	}
	return nil
}

// matchIndex checks, at the first catch-up after Open, that the leaf hash
// index indexes the tree beside it, and removes it if not, so that the
// catch-up indexes the tree again; a WARN names the directory and what did
// not match. An index left beside a tree that replaced its own (tiles/
// deleted or replaced, a new log started in the directory) would
// otherwise answer from the old tree: when it covers as many leaves as
// the new one or more, the catch-up adds nothing, and InclusionProofByHash
// finds no leaf the new tree holds ("not logged" to a caller retrying an
// append), or reports ErrSecurity for a hash the old tree held at an index
// where the new one holds another leaf. The check costs a few tile reads
// and two lookups, once per Open: the index covers no more leaves than the
// latest checkpoint, and the tree's first and last leaves it covers are
// indexed at their index, or at an earlier one holding the same leaf (a
// hash keeps its first index). It is made here rather than in Open: the
// catch-up holds the index's mu, before every lookup, and a failed tree
// read is an outage of the index only, as in the rest of the catch-up
// (returned, the index kept as it is, retried at the next catch-up), where
// in Open it would refuse the log. Under the index's mu.
func (l *Log) matchIndex() error {
	next, err := l.index.Next()
	if err != nil {
		return err
	}
	var mismatch string
	if next > 0 {
		r, cp, err := l.hashReader(0)
		if err != nil {
			return err
		}
		if next > cp.Size {
			mismatch = fmt.Sprintf("it indexes %d leaves, the tree holds %d", next, cp.Size)
		} else if mismatch, err = l.indexMismatch(r, next); err != nil {
			return err
		}
	}
	if mismatch != "" {
		l.cfg.Logger.Warn("transparency log leaf index: it does not index the tree beside it (tiles/ replaced?): removed, the tree is indexed again", "dir", filepath.Join(l.cfg.Dir, leafIndexDir), "mismatch", mismatch)
		if err := l.index.Reset(); err != nil {
			return err
		}
	}
	l.index.matched = true
	return nil
}

// indexMismatch is what the index, which covers the leaves [0, next) of
// the tree r reads, does not match of its first and last leaves, or "".
func (l *Log) indexMismatch(r tlog.HashReader, next uint64) (string, error) {
	for _, i := range []uint64{0, next - 1} {
		h, err := readLeafHash(r, i)
		if err != nil {
			return "", err
		}
		idx, ok, err := l.index.Lookup(h)
		if err != nil {
			return "", err
		}
		switch {
		case !ok:
			return fmt.Sprintf("leaf %d of the tree is not indexed", i), nil
		case idx > i:
			return fmt.Sprintf("leaf %d of the tree is indexed at %d", i, idx), nil
		case idx < i:
			if first, err := readLeafHash(r, idx); err != nil {
				return "", err
			} else if first != h {
				return fmt.Sprintf("leaf %d of the tree is indexed at %d, where the tree holds another leaf", i, idx), nil
			}
		}
	}
	return "", nil
}
