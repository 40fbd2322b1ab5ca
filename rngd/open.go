package rngd

import (
	"bytes"
	"context"
	"crypto"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	bolt "go.etcd.io/bbolt"
	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"

	"tirage.fr/tirage/hsm"
	"tirage.fr/tirage/hsm/keystore"
	"tirage.fr/tirage/hsm/pkcs11"
	"tirage.fr/tirage/rngd/entropy"
	"tirage.fr/tirage/rngd/internal/boundedfile"
	rpromo "tirage.fr/tirage/rngd/promo"
	"tirage.fr/tirage/transparency"
	auditpb "tirage.fr/tirage/transparency/auditpb/v1"
	"tirage.fr/tirage/transparency/checkpoint"
	"tirage.fr/tirage/transparency/tilelog"
	"tirage.fr/tirage/transparency/trillian"
	"tirage.fr/tirage/verifier/announce"
	"tirage.fr/tirage/verifier/record"
	"tirage.fr/tirage/verifier/vrf"
)

// trillianStateFile, in the data directory, holds the last checkpoint rngd
// signed for its Trillian tree: a tree found smaller at the next start (a
// database restored from an older backup) is refused.
const trillianStateFile = "trillian-checkpoint"

// components are what the engine runs on, opened from the config.
type components struct {
	keys   hsm.Backend
	prover hsm.VRFProver
	signer hsm.Signer
	logPub []byte // signer's public key, as announced (DER SubjectPublicKeyInfo)
	// announcement is keys.announcement_file's content, read once
	// (openKeys), the leaf that was checked being the one appended.
	announcement []byte
	entropy      *entropy.Generator
	// trillianCreds are the Trillian log's transport credentials
	// (log.backend "trillian"), made by openSources, before the data
	// directory is touched: a bad log.trillian_ca_file refuses the start
	// with nothing changed.
	trillianCreds credentials.TransportCredentials
	log           transparency.Log
	// journalFsyncs is the embedded log's journal fsync histogram (nil
	// with Trillian), registered with the engine's metrics.
	journalFsyncs prometheus.Histogram
	closers       []io.Closer
	// engine is the engine once it is level with the log (openEngineInto):
	// the log's recovery from an outage catches it up (engine.resync).
	engine atomic.Pointer[engine]
}

// resync is the Trillian log's Config.Resync: the engine catches up with
// the log before appends resume. Before the engine is open there is none
// to catch up, and the recovery tries again later.
func (c *components) resync(ctx context.Context, _ *checkpoint.Checkpoint) error {
	e := c.engine.Load()
	if e == nil {
		return errors.New("rngd is still starting: its state is caught up with the log once it has opened")
	}
	return e.resync(ctx)
}

func (c *components) close() {
	for i := len(c.closers) - 1; i >= 0; i-- {
		c.closers[i].Close()
	}
}

// cryptoSigner lets the log sign checkpoints with an hsm.Signer (Ed25519
// signs the message itself: crypto.Signer with crypto.Hash(0)).
type cryptoSigner struct{ hsm.Signer }

func (s cryptoSigner) Sign(_ io.Reader, msg []byte, opts crypto.SignerOpts) ([]byte, error) {
	if opts != nil && opts.HashFunc() != 0 {
		return nil, errors.New("only Ed25519 (pure) checkpoint signers are supported")
	}
	return s.Signer.Sign(msg)
}

// leveling is how openEngineInto brings the state store level with the log.
type leveling int

const (
	// levelCatchUp applies what the store lacks (catchUp): the daemon.
	levelCatchUp leveling = iota
	// levelRebuild rebuilds the store from the whole log, once: Rebuild,
	// which would otherwise catch up first and then rebuild all again.
	levelRebuild
)

// openEngine opens the store, the entropy generator, the keys and the log,
// and brings the store up to date with the log.
func openEngine(ctx context.Context, cfg Config, level leveling) (*engine, *components, error) {
	c := new(components)
	if err := openSources(ctx, cfg, c); err != nil {
		c.close()
		return nil, nil, err
	}
	e, err := openEngineInto(ctx, cfg, c, level)
	if err != nil {
		c.close()
		return nil, nil, err
	}
	return e, c, nil
}

// openSources opens what the engine draws with, the entropy generator and
// the keys, and reads the Trillian log's CA, before the data directory is
// touched: a missing device, passphrase, key or CA refuses the start with
// nothing changed.
func openSources(ctx context.Context, cfg Config, c *components) error {
	var srcs []entropy.SourceConfig
	for _, s := range cfg.Entropy.Sources {
		srcs = append(srcs, entropy.SourceConfig{Kind: s.Kind, Path: s.Path, Address: s.Address,
			SampleBits: s.SampleBits, MinEntropy: s.MinEntropy, SeedBytes: s.SeedBytes})
	}
	var err error
	c.entropy, err = entropy.New(entropy.Config{
		Sources:              srcs,
		ReseedRequests:       cfg.Entropy.ReseedRequests,
		ReseedInterval:       cfg.Entropy.ReseedInterval.Duration,
		PredictionResistance: cfg.Entropy.PredictionResistance,
		ReadTimeout:          cfg.Entropy.ReadTimeout.Duration,
		Personalization:      []byte("tirage rngd " + cfg.Log.Origin),
		Logger:               cfg.Logger.With("component", "entropy"),
		Clock:                cfg.Clock.Now,
	})
	if err != nil {
		return fmt.Errorf("couldn't start the entropy generator: %w", err)
	}
	c.closers = append(c.closers, c.entropy)
	if cfg.Log.Backend == "trillian" {
		c.trillianCreds = insecure.NewCredentials()
		if cfg.Log.TrillianCAFile != "" {
			tc, err := clientTLSRoots(cfg.Log.TrillianCAFile)
			if err != nil {
				return fmt.Errorf("log.trillian_ca_file: %w", err)
			}
			c.trillianCreds = credentials.NewTLS(tc)
		}
	}
	return openKeys(ctx, cfg, c)
}

// openEngineInto opens the data directory's stores and the log around the
// sources of c (openSources), and brings the store up to date with the log.
func openEngineInto(ctx context.Context, cfg Config, c *components, level leveling) (*engine, error) {
	if err := os.MkdirAll(cfg.DataDir, 0o700); err != nil {
		return nil, fmt.Errorf("couldn't make data_dir: %w", err)
	}
	st, err := openStore(filepath.Join(cfg.DataDir, "state.db"))
	if err != nil {
		return nil, err
	}
	c.closers = append(c.closers, closerFunc(st.close))
	if st.from != storeFormat {
		// Said once: the next start finds the new format, and from now on an
		// older rngd refuses the file (rolling back: docs/rngd.md, Upgrading).
		cfg.Logger.Info("state store upgraded: an older rngd now refuses this file (docs/rngd.md, Upgrading)",
			"from_format", st.from, "format", storeFormat, "file", st.db.Path())
	}
	sec, err := openSecrets(filepath.Join(cfg.DataDir, "secrets.db"))
	if err != nil {
		return nil, err
	}
	c.closers = append(c.closers, closerFunc(sec.close))
	if err := moveSecrets(st, sec); err != nil {
		return nil, err
	}
	if err := scrubSecrets(st, sec); err != nil {
		return nil, err
	}

	if err := openLog(ctx, cfg, c); err != nil {
		return nil, err
	}

	loc, _ := time.LoadLocation(cfg.Game.TimeZone)
	pub := c.prover.PublicKey().Bytes()
	e := &engine{
		cfg: cfg, log: cfg.Logger, clock: cfg.Clock, loc: loc, store: st, secrets: sec, tlog: c.log,
		prover: c.prover, suite: c.prover.Suite(), pub: pub, keyID: cfg.Keys.VRFLabel, logPub: c.logPub,
		entropy: c.entropy, metrics: newMetrics(cfg.Dev), proving: make(chan struct{}, runtime.GOMAXPROCS(0)),
		sweepc: make(chan struct{}, 1), demoScan: MaxDemoTickets,
	}
	st.onFail, sec.onFail = e.storeFailed, e.secretsFailed
	sec.draw = e.random
	onErr := e.requestIndexFailed
	st.reqs.onErr.Store(&onErr)
	e.metrics.reg.MustRegister(c.entropy.Collectors()...)
	e.metrics.reg.MustRegister(softwareKeysGauge(c.keys.Software()))
	e.metrics.reg.MustRegister(transparency.NewCollector(c.log))
	if tl, ok := c.log.(*tilelog.Log); ok {
		e.metrics.reg.MustRegister(checkpointGauges(tl)...)
	}
	if c.journalFsyncs != nil {
		e.metrics.reg.MustRegister(c.journalFsyncs)
	}
	if wl, ok := c.log.(witnessedLog); ok {
		e.metrics.reg.MustRegister(witnessCollector{wl})
	}
	// Level before the orphan secrets are dropped: a secret is an orphan
	// only of a store level with the log.
	if level == levelRebuild {
		if e.rebuilt, err = e.logSize(ctx); err == nil {
			err = e.rebuild(ctx, e.rebuilt)
		}
	} else {
		err = e.catchUp(ctx)
	}
	if err != nil {
		return nil, err
	}
	if err := e.dropOrphanSecrets(true); err != nil {
		return nil, err
	}
	e.noteBuildAttested(true)
	e.logRecovers = cfg.Log.Backend == "trillian"
	c.engine.Store(e)
	return e, nil
}

// dropOrphanSecrets forgets the secrets of starts that never reached the
// log: a start keeps its secret before it is drawn, and one refused after
// that whose record may still have reached the log (an append whose
// outcome is unknown, see keepSecret) leaves it behind. Once the store
// holds every game the log does, and no append whose outcome is unknown
// can still land, a secret without its game is such a one. Both hold when
// it runs: at the start of rngd, after catchUp, before any call — the
// embedded log's catch-up covers every leaf its journal acknowledged or
// queued, and the Trillian log's Open waits until every leaf of its
// pending file (each append not known refused) is integrated — and in
// resync, under the gate, once the Trillian log's recovery has done the
// same. It also forgets the secrets of games the store holds ended (their
// end records reveal them): a game's end drops its secret without waiting
// (engine.commit), and a crash may lose that drop but not the end's commit
// to the state store, after which no catch-up replays the end. The games
// in play whose secret secrets.db does not hold (lost with it, or a
// secrets.db of another data directory) raise the store alarm: nothing else
// says so before their draws are refused.
//
// With settle, at the start of rngd only (while it runs, the reserve is its
// own), it first empties the secret store's reserve (secretStore.take). A
// secret the reserve still holds was either never taken, or taken by a
// start whose move to its game a crash lost: the start record of a game in
// play that secrets.db does not hold under its id commits to it (H(r)).
// Those are moved to their games; the others are dropped, never given to a
// game after a restart, since one may have been taken by a start whose
// record did not reach the log.
func (e *engine) dropOrphanSecrets(settle bool) error {
	var ids []string
	reserve := map[[32]byte][32]byte{}
	left := 0 // the reserve's entries, one gone bad included
	err := e.secrets.db.View(func(tx *bolt.Tx) error {
		if settle {
			err := tx.Bucket(bucketReserve).ForEach(func(_, v []byte) error {
				if left++; len(v) == 32 {
					reserve[record.Commit([32]byte(v))] = [32]byte(v)
				}
				return nil
			})
			if err != nil {
				return err
			}
		}
		return tx.Bucket(bucketSecrets).ForEach(func(k, _ []byte) error {
			ids = append(ids, string(k))
			return nil
		})
	})
	if err != nil {
		return fmt.Errorf("couldn't read the secret store: %w", err)
	}
	var orphans, ended, lost []string
	moved := map[string][32]byte{}
	err = e.store.view(func(tx *bolt.Tx) error {
		kept := make(map[string]bool, len(ids))
		for _, id := range ids {
			kept[id] = true
		}
		err := tx.Bucket(bucketUnfinished).ForEach(func(k, _ []byte) error {
			_, id, _ := strings.Cut(string(k), "\x00")
			if kept[id] {
				return nil
			}
			if len(reserve) > 0 {
				start, err := startRecord(tx, id)
				if err != nil {
					return err
				}
				if start != nil {
					if r, ok := reserve[start.Commit]; ok {
						moved[id] = r
						return nil
					}
				}
			}
			lost = append(lost, id)
			return nil
		})
		if err != nil {
			return err
		}
		for _, id := range ids {
			var sg storedGame
			switch ok, err := getStoredGame(tx, []byte(id), &sg); {
			case err != nil:
				// Kept: the store is what is wrong.
			case !ok:
				orphans = append(orphans, id)
			case sg.Ended:
				ended = append(ended, id)
			}
		}
		return nil
	})
	if err != nil {
		// Not "no game lost its secret": the alarm would be left unraised.
		return fmt.Errorf("couldn't read the state store's games: %w", err)
	}
	if left > 0 {
		err := e.secrets.hand(storeWrite{fn: func(tx *bolt.Tx) error {
			for id, r := range moved {
				if err := tx.Bucket(bucketSecrets).Put([]byte(id), r[:]); err != nil {
					return err
				}
			}
			if err := tx.DeleteBucket(bucketReserve); err != nil {
				return err
			}
			_, err := tx.CreateBucket(bucketReserve)
			return err
		}}, true, nil)
		if err != nil {
			return fmt.Errorf("couldn't settle the secret store's reserve: %w", err)
		}
		if len(moved) > 0 {
			e.log.Info("secrets of starts whose move from the reserve a crash lost moved to their games", "count", len(moved))
		}
	}
	if len(lost) > 0 {
		e.metrics.alarms.WithLabelValues("store").Inc()
		e.log.Error("unfinished games without their secret r in secrets.db (lost, or not this data directory's): their draws are refused (SECRET_LOST), they can only be refunded; an operator must investigate",
			"count", len(lost), "games", lost[:min(len(lost), 3)])
	}
	if len(orphans) > 0 {
		e.log.Info("secrets of starts that never reached the log dropped", "count", len(orphans))
	}
	if len(ended) > 0 {
		e.log.Info("secrets of ended games dropped (their end records reveal them)", "count", len(ended))
	}
	if len(orphans)+len(ended) == 0 {
		return nil
	}
	return e.secrets.drop(append(orphans, ended...)...)
}

// openLog opens the configured transparency log, its checkpoints signed by
// the key custody's log key.
func openLog(ctx context.Context, cfg Config, c *components) error {
	signers := []crypto.Signer{cryptoSigner{c.signer}}
	logger := cfg.Logger.With("component", "log")
	var err error
	switch cfg.Log.Backend {
	case "trillian":
		creds := c.trillianCreds // openSources's
		// Reconnect within seconds of the log server answering again
		// (grpc's default backoff grows to two minutes): draws are refused
		// until then.
		conn, err := grpc.NewClient(cfg.Log.TrillianAddress, grpc.WithTransportCredentials(creds),
			grpc.WithConnectParams(grpc.ConnectParams{MinConnectTimeout: 5 * time.Second,
				Backoff: backoff.Config{BaseDelay: 100 * time.Millisecond, Multiplier: 1.6, Jitter: 0.2, MaxDelay: 5 * time.Second}}))
		if err != nil {
			return fmt.Errorf("couldn't dial trillian: %w", err)
		}
		c.closers = append(c.closers, conn)
		c.log, err = trillian.Open(ctx, trillian.Config{Conn: conn, TreeID: cfg.Log.TrillianTreeID, Origin: cfg.Log.Origin,
			Signers: signers, StateFile: filepath.Join(cfg.DataDir, trillianStateFile), Logger: logger,
			AppendTimeout: cfg.Log.TrillianAppendTimeout.Duration, Resync: c.resync,
			WitnessPolicy: cfg.Log.witnessPolicy, WitnessTimeout: cfg.Log.WitnessTimeout.Duration})
		if err != nil {
			// Name the keys that choose the tree: a wrong one is the
			// likeliest cause of a refusal (another tree's root does not
			// extend trillian-checkpoint: a rollback to the log).
			hint := ""
			if errors.Is(err, transparency.ErrSecurity) {
				hint = fmt.Sprintf("; if log.trillian_address or log.trillian_tree_id changed, set them back: %s holds a checkpoint of the tree this appliance logged to", filepath.Join(cfg.DataDir, trillianStateFile))
			}
			return fmt.Errorf("couldn't open the trillian log (log.trillian_address %s, log.trillian_tree_id %d): %w%s", cfg.Log.TrillianAddress, cfg.Log.TrillianTreeID, err, hint)
		}
	default:
		if cfg.wrapLogSigner != nil {
			signers = []crypto.Signer{cfg.wrapLogSigner(signers[0])}
		}
		fsyncs := journalFsyncs()
		c.log, err = tilelog.Open(ctx, tilelog.Config{
			Dir:                filepath.Join(cfg.DataDir, "log"),
			Origin:             cfg.Log.Origin,
			Signers:            signers,
			BatchMaxAge:        cfg.Log.BatchMaxAge.Duration,
			BatchMaxSize:       cfg.Log.BatchMaxSize,
			JournalInterval:    cfg.Log.JournalInterval.Duration,
			JournalSynced:      func(d time.Duration) { fsyncs.Observe(d.Seconds()) },
			CheckpointInterval: cfg.Log.CheckpointInterval.Duration,
			CheckpointTimeout:  cfg.Log.CheckpointTimeout.Duration,
			WitnessPolicy:      cfg.Log.witnessPolicy,
			WitnessTimeout:     cfg.Log.WitnessTimeout.Duration,
			Logger:             logger,
		})
		if err != nil {
			return fmt.Errorf("couldn't open the log: %w", err)
		}
		c.journalFsyncs = fsyncs
	}
	c.closers = append(c.closers, c.log)
	return nil
}

type closerFunc func() error

func (f closerFunc) Close() error { return f() }

// openKeys opens the software keystore and the VRF and checkpoint keys. In
// dev mode missing keys are generated; otherwise they must exist (rngctl
// keys init).
func openKeys(ctx context.Context, cfg Config, c *components) error {
	var ks hsm.Backend
	var err error
	switch cfg.Keys.Backend {
	case "software":
		var pass []byte
		switch {
		case cfg.Keys.PassphraseFile != "":
			if pass, err = readSecretCtx(ctx, cfg.Keys.PassphraseFile); err != nil {
				return fmt.Errorf("keys.passphrase_file: %w", err)
			}
		case cfg.Dev:
			pass = []byte(devPassphrase)
		default:
			return errors.New("config keys.passphrase_file is required")
		}
		ks, err = keystore.Open(keystore.Config{Dir: cfg.Keys.Dir, Passphrase: pass, Logger: cfg.Logger.With("component", "keys")})
		clear(pass)
	case "pkcs11":
		if cfg.Keys.Module == "" || cfg.Keys.TokenLabel == "" || cfg.Keys.PINFile == "" {
			return errors.New("config keys: backend pkcs11 needs module, token_label and pin_file")
		}
		var pin []byte
		if pin, err = readSecretCtx(ctx, cfg.Keys.PINFile); err != nil {
			return fmt.Errorf("keys.pin_file: %w", err)
		}
		ks, err = pkcs11.Open(pkcs11.Config{Module: cfg.Keys.Module, TokenLabel: cfg.Keys.TokenLabel, PIN: pin,
			Sessions: cfg.Keys.Sessions, CallTimeout: cfg.Keys.CallTimeout.Duration, Logger: cfg.Logger.With("component", "keys")})
		clear(pin)
	default:
		return fmt.Errorf("config keys.backend %q: want \"software\" or \"pkcs11\"", cfg.Keys.Backend)
	}
	if err != nil {
		if cfg.Keys.Backend == "software" {
			return fmt.Errorf("couldn't open the software key custody (keys.dir %s, keys.passphrase_file): %w", cfg.Keys.Dir, err)
		}
		return fmt.Errorf("couldn't open the pkcs11 key custody (keys.module %s, keys.token_label %q, keys.pin_file): %w", cfg.Keys.Module, cfg.Keys.TokenLabel, err)
	}
	c.keys = ks
	c.closers = append(c.closers, ks)
	if cfg.Keys.Backend == "pkcs11" && ks.Software() && !cfg.Dev && !cfg.Keys.AllowSoftware {
		return fmt.Errorf("keys.token_label %q is a software token (keys.module %s): its keys are files on this host, not in an HSM, not for production. "+
			"Use an HSM's module, or set keys.allow_software = true to run with software keys anyway (announced at every start)", cfg.Keys.TokenLabel, cfg.Keys.Module)
	}
	c.prover, err = ks.VRFProver(cfg.Keys.VRFLabel)
	if errors.Is(err, hsm.ErrNotFound) && cfg.Dev {
		c.prover, err = ks.GenerateVRF(cfg.Keys.VRFLabel, vrf.DefaultSuite)
	}
	if err != nil {
		return fmt.Errorf("vrf key %q: %w (create it with rngctl keys init)", cfg.Keys.VRFLabel, err)
	}
	c.signer, err = ks.Signer(cfg.Keys.SignerLabel)
	if errors.Is(err, hsm.ErrNotFound) && cfg.Dev {
		c.signer, err = ks.GenerateSigner(cfg.Keys.SignerLabel, hsm.Ed25519)
	}
	if err != nil {
		return fmt.Errorf("log signing key %q: %w (create it with rngctl keys init)", cfg.Keys.SignerLabel, err)
	}
	if c.logPub, err = hsm.MarshalSignerPublic(c.signer.Public()); err != nil {
		return fmt.Errorf("log signing key %q: %w", cfg.Keys.SignerLabel, err)
	}
	// An announcement file announces the keys in use: checked here, before
	// the log is opened (and its first checkpoint signed).
	if f := cfg.Keys.AnnouncementFile; f != "" {
		if c.announcement, err = boundedfile.Read(f, maxAnnouncementFile); err != nil {
			return fmt.Errorf("couldn't read keys.announcement_file %s: %w", f, err)
		}
		ann, err := hsm.CheckAnnouncement(c.announcement)
		if err != nil {
			return fmt.Errorf("keys.announcement_file: %w", err)
		}
		return checkLogKey(cfg.Keys, c.logPub, nil, ann)
	}
	return nil
}

// MaxSecretFile bounds a passphrase or PIN file, as rngctl bounds them.
const MaxSecretFile = 4096

// maxAnnouncementFile bounds keys.announcement_file (a key announcement is
// a few kilobytes).
const maxAnnouncementFile = 4 << 20

// SecretFileOpen reports whether a secret's file (a PIN's, a
// passphrase's) is open to others: a regular file or a named pipe (FIFO)
// whose mode lets anyone but its owner read or write it — another user
// could read the secret, or write a wrong PIN that locks the token. Other
// kinds (an anonymous pipe, /dev/fd/N, 0600) are the caller's own.
func SecretFileOpen(fi os.FileInfo) bool {
	return (fi.Mode().IsRegular() || fi.Mode()&os.ModeNamedPipe != 0) && openToOthers(fi.Mode())
}

// openToOthers reports whether mode lets group or others in (read, write
// or, for a directory, search).
func openToOthers(mode os.FileMode) bool { return mode.Perm()&0o077 != 0 }

// checkDataDir refuses a data directory, or a secrets.db in it, that
// another user could read or change, as ssh refuses a private key with
// loose permissions: secrets.db holds the secrets r of the games in play
// (whoever reads one knows the game's draws before they are made), and
// whoever may write the directory may replace what it holds. Each must be
// owned by rngd's user (another owner could open it up again) and closed
// to group and others: 0700 and 0600, the modes rngd creates them with.
// What does not exist yet is left for rngd to create. It runs before the
// data directory is touched (Start, Rebuild), so a refusal changes nothing.
func checkDataDir(dir string) error {
	for _, p := range []struct {
		path, key, want string
		dir             bool
	}{
		{dir, "data_dir", "0700", true},
		{filepath.Join(dir, "secrets.db"), "the secret store", "0600", false},
	} {
		fi, err := os.Stat(p.path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("couldn't check %s: %w", p.key, err)
		}
		switch {
		case p.dir && !fi.IsDir():
			return fmt.Errorf("%s %s is not a directory", p.key, p.path)
		case !p.dir && !fi.Mode().IsRegular():
			return fmt.Errorf("%s %s is not a regular file", p.key, p.path)
		}
		if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Geteuid() {
			return fmt.Errorf("%s %s is owned by uid %d, not by rngd's user (uid %d): another user could read the secrets r of the games in play or open it to others; chown it to rngd's user", p.key, p.path, st.Uid, os.Geteuid())
		}
		if openToOthers(fi.Mode()) {
			return fmt.Errorf("%s %s has mode %04o: want %s, closed to group and others (it holds the secrets r of the games in play): chmod %s it", p.key, p.path, fi.Mode().Perm(), p.want, p.want[1:])
		}
	}
	return nil
}

// ReadSecretFile reads a passphrase or PIN file the way rngctl reads one
// (rngctl keys --passphrase-file, --pin-file): a regular file or a FIFO
// group or others may access is refused (chmod 600 it: another user could
// read what a FIFO's writer sends, or send a secret of their own), and so
// is one another user than root or rngd's owns (rngctl does not check
// that: a keys engineer may run it on a file of theirs), at most
// MaxSecretFile bytes are read, one trailing newline (LF or CRLF) is
// dropped, and an empty secret is refused. Its errors never name the path
// nor hold the content, in case an operator typed the secret where the
// path belongs: the caller names the setting.
func ReadSecretFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("couldn't open the file: %w", Pathless(err))
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("couldn't read the file: %w", Pathless(err))
	}
	if SecretFileOpen(fi) {
		return nil, fmt.Errorf("the file is readable by others (mode %04o): chmod 600 it", fi.Mode().Perm())
	}
	// Its owner may read it whatever its mode: root or rngd's user only.
	if err := boundedfile.CheckOwner(fi, "the file", "read it"); err != nil {
		return nil, err
	}
	b, err := ReadSecretFrom(f)
	if err != nil {
		return nil, fmt.Errorf("couldn't read the file: %w", err)
	}
	b = TrimNewline(b)
	if len(b) == 0 {
		return nil, errors.New("empty")
	}
	return b, nil
}

// readSecretCtx is ReadSecretFile, given up when ctx is done (SIGTERM while
// a FIFO's writer has not written yet: the read is left blocked, the start
// refused) on a goroutine of its own (readUntil): what the read returns if
// it ever answers is wiped.
func readSecretCtx(ctx context.Context, path string) ([]byte, error) {
	res, ok := readUntil(ctx, func() ([]byte, error) { return ReadSecretFile(path) })
	if !ok {
		return nil, fmt.Errorf("not read: %w", ctx.Err())
	}
	return res.b, res.err
}

// ReadSecretFrom reads a secret of at most MaxSecretFile bytes from r.
// It reads into one buffer of MaxSecretFile+1 bytes and returns a slice of
// it, so that wiping the secret wipes every byte read: a buffer grown as it
// is read (io.ReadAll) would leave each outgrown one, holding the start of
// the secret, unwiped on the heap. The buffer is wiped when the read fails
// or the secret is longer. Its errors hold no path.
func ReadSecretFrom(r io.Reader) ([]byte, error) {
	buf := make([]byte, MaxSecretFile+1)
	n, err := io.ReadFull(r, buf)
	switch {
	case err == io.EOF || err == io.ErrUnexpectedEOF:
		// Shorter than the buffer: the whole secret.
	case err != nil:
		clear(buf)
		return nil, Pathless(err)
	default: // the buffer is full: one byte too many
		clear(buf)
		return nil, fmt.Errorf("longer than %d bytes", MaxSecretFile)
	}
	return buf[:n], nil
}

// TrimNewline drops one trailing newline, LF or CRLF, as rngctl does for a
// passphrase or PIN: any other byte, a second newline included, is part of
// the secret.
func TrimNewline(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b = b[:n-1]
		if n := len(b); n > 0 && b[n-1] == '\r' {
			b = b[:n-1]
		}
	}
	return b
}

// Pathless drops the path from an *os.PathError (a path may be a secret
// typed in the wrong place): boundedfile.Pathless, for rngctl's commands.
func Pathless(err error) error { return boundedfile.Pathless(err) }

// checkpointWait bounds a wait for a checkpoint covering every leaf the
// log sequenced: their batch ends (up to two batch ages, one gathering
// while the one before is in tessera), then a checkpoint comes (a few
// checkpoint intervals), with a second to spare.
func (e *engine) checkpointWait() time.Duration {
	return 2*e.cfg.Log.BatchMaxAge.Duration + 3*e.cfg.Log.CheckpointInterval.Duration + time.Second
}

// logSize is the number of leaves in the log: the latest checkpoint's size,
// once it covers every leaf the log sequenced before a restart. A log that
// knows how many it holds (transparency.Sequencer: the embedded journal) is
// waited for exactly that, and not at all when its checkpoint already covers
// them; with one that does not (Trillian), rngd waits briefly for one more.
func (e *engine) logSize(ctx context.Context) (uint64, error) {
	cp, err := e.tlog.Checkpoint(ctx)
	if err != nil {
		return 0, fmt.Errorf("couldn't read the log's checkpoint: %w", err)
	}
	var applied uint64
	if err := e.store.view(func(tx *bolt.Tx) error { applied = appliedCount(tx); return nil }); err != nil {
		// Not a store at 0: the check of a store ahead of the log would
		// be skipped, and catchUp wait for a checkpoint it cannot use.
		return 0, fmt.Errorf("couldn't read how far the state store is: %w", err)
	}
	want := max(applied, cp.Size+1)
	var sequenced uint64
	if s, ok := e.tlog.(transparency.Sequencer); ok {
		sequenced = s.Sequenced()
		if want = max(applied, sequenced); cp.Size >= want {
			return cp.Size, nil
		}
	}
	wctx, cancel := context.WithTimeout(ctx, e.checkpointWait())
	defer cancel()
	later, err := e.tlog.AwaitCheckpoint(wctx, want)
	switch {
	case err == nil:
		return later.Size, nil
	case applied > cp.Size:
		return 0, fmt.Errorf("the state store has applied %d records but the log has only %d: wrong data directory or a log that lost records", applied, cp.Size)
	case sequenced > cp.Size:
		return 0, fmt.Errorf("the log holds %d records but its checkpoint covers only %d: %w", sequenced, cp.Size, err)
	}
	return cp.Size, nil
}

// catchUp brings the store level with the log when they disagree — after a
// crash between durable appends and the store's commits, or records
// appended while rngd was stopped (rngctl promo) — by applying the log's
// tail from the store's prefix (applyTail). A store of an older format is
// rebuilt whole.
func (e *engine) catchUp(ctx context.Context) error {
	size, err := e.logSize(ctx)
	if err != nil {
		return err
	}
	var applied, prefix uint64
	if err := e.store.view(func(tx *bolt.Tx) error { applied, prefix = appliedCount(tx), prefixOf(tx); return nil }); err != nil {
		// Not a store at 0, behind the log: applying the whole log to a
		// store that cannot be read would fail, saying otherwise.
		return fmt.Errorf("couldn't read how far the state store is: %w", err)
	}
	if applied == size && prefix == size {
		return nil
	}
	switch {
	case e.store.upgraded:
		e.log.Info("state store upgraded from an older format: rebuilding it from the log", "format", storeFormat, "log_size", size)
	case prefix <= size && applied <= size:
		e.log.Warn("state store is behind the log: applying the log's tail", "prefix", prefix, "applied", applied, "log_size", size)
		err := e.applyTail(ctx, prefix, size)
		if err == nil || ctx.Err() != nil {
			return err
		}
		// The store disagrees with the log below its prefix: the log is
		// the truth.
		e.log.Error("the log's tail does not apply to the state store: rebuilding it from the whole log", "err", err)
	default:
		e.log.Warn("state store is ahead of the log: rebuilding it from the log", "prefix", prefix, "applied", applied, "log_size", size)
	}
	return e.rebuild(ctx, size)
}

// announceKeys makes sure the VRF key in use is announced in the log before
// any draw (on a fresh appliance the announcement is the log's first
// record). It appends the signed announcement of rngctl keys init
// (keys.announcement_file) or, without one, makes it with hsm.Announce. The
// key's id in the announcement is the id every record names.
//
// Before anything is appended it refuses two starts that would make an
// honest appliance fail the audit (verifier/audit), which knows an id by
// its first announcement and counts a game's draws only under keys
// announced before the game started (a promotion draw's: before its
// freeze):
//
//   - a key whose id the log already announced with another public key
//     (a new HSM set up under the default labels): checkNewKeys;
//   - a VRF key whose public key the log already announced under another
//     suite (one P-256 key proves under ECVRF-P256-SHA256-TAI and -SSWU:
//     two outputs for each α, which auditors report as misbehaviour):
//     suiteClash, and checkNewKeys for every VRF key announced;
//   - a VRF key other than the one an unfinished game, or a frozen
//     promotion draw awaiting its ceremony, is on (read from their
//     records): checkRotation.
func (e *engine) announceKeys(ctx context.Context, c *components) error {
	lk, err := e.loggedKeys(ctx)
	if err != nil {
		return err
	}
	fp := hsm.Fingerprint(e.pub)
	fromFile := e.cfg.Keys.AnnouncementFile != ""
	if f, clash := lk.suiteClash(e.pub, string(e.suite)); clash {
		return twoSuitesError(e.cfg.Keys.VRFLabel, string(e.suite), e.pub, f, fromFile)
	}
	id, announced := lk.vrfID(e.pub, string(e.suite), e.cfg.Keys.VRFLabel)
	var leaf []byte
	var ann *record.KeyAnnouncement
	if !announced {
		if leaf, err = e.makeAnnouncement(c); err != nil {
			return err
		}
		if ann, err = hsm.CheckAnnouncement(leaf); err != nil {
			return fmt.Errorf("key announcement: %w", err)
		}
		for _, k := range ann.Keys {
			if k.Use != hsm.UseVRF || !bytes.Equal(k.PublicKey, e.pub) {
				continue
			}
			if k.Suite != string(e.suite) {
				// Its proofs would be checked under the suite announced.
				return fmt.Errorf("keys: keys.announcement_file announces the VRF key in use (keys.vrf_label = %q, fingerprint %s) as key %q under %s, but the key custody holds it as an %s key: "+
					"auditors would check every proof under the suite announced and report it as misbehaviour; write the announcement of the keys in use (rngctl keys announce) to a new keys.announcement_file",
					e.cfg.Keys.VRFLabel, fp, k.ID, k.Suite, e.suite)
			}
			id = k.ID
		}
		if id == "" {
			return errors.New("the key announcement does not announce the VRF key in use")
		}
		if err := lk.checkNewKeys(ann, fromFile); err != nil {
			return err
		}
	}
	if err := checkLogKey(e.cfg.Keys, e.logPub, lk, ann); err != nil {
		return err
	}
	cur := keyInUse{id: id, fp: fp}
	if err := e.checkRotation(lk, cur); err != nil {
		return err
	}
	e.vrfKeys = map[string]firstAnnounced{}
	for ku, f := range lk.first {
		if ku.use == hsm.UseVRF {
			e.vrfKeys[ku.id] = f
		}
	}
	if announced {
		e.keyID = id
		e.warnAnnouncementUnused(c, lk)
		return nil
	}
	idx, err := e.appendLeaf(ctx, leaf)
	if err != nil {
		return fmt.Errorf("couldn't announce the keys: %w", err)
	}
	e.keyID = id
	e.log.Info("keys announced", "vrf_key", id, "vrf_fingerprint", fp, "log_index", idx)
	return e.commit(nil, nil, nil, []sealed{{leaf: leaf, index: idx}}, func(tx *bolt.Tx) error {
		return putAnnounced(tx, ann, idx)
	})
}

// warnAnnouncementUnused says at the start which keys of
// keys.announcement_file the log has not announced, when the file is not
// appended because the VRF key in use is announced already: rngd appends
// an announcement with a new VRF key only, so a key the file adds beside it
// (a new attestation key) stays unannounced, and nothing it signs is
// accepted (LogAttestation: ATTESTATION_KEY_UNKNOWN).
func (e *engine) warnAnnouncementUnused(c *components, lk *loggedKeys) {
	if c.announcement == nil {
		return
	}
	r, err := record.Parse(c.announcement)
	ann, ok := r.(*record.KeyAnnouncement)
	if err != nil || !ok {
		return // openKeys checked it
	}
	var missing []string
	for _, k := range ann.Keys {
		if f, ok := lk.first[keyUse{k.Use, k.ID}]; !ok || !bytes.Equal(f.pub, k.PublicKey) {
			missing = append(missing, fmt.Sprintf("%s key %q", k.Use, k.ID))
		}
	}
	if len(missing) == 0 {
		return
	}
	e.log.Warn("keys.announcement_file is not appended: the VRF key in use is announced already, and rngd appends an announcement with a new VRF key only; "+
		"the keys it announces that the log has not announced stay unannounced, and nothing they sign is accepted (docs/attestations.md: rotating the attestation key)",
		"file", e.cfg.Keys.AnnouncementFile, "not_announced", strings.Join(missing, ", "))
}

// checkLogKey checks that logPub, the key rngd signs checkpoints with, is
// announced as a log key, in the log (lk, nil before it is open) or in
// announcement ann (nil if none): auditors pin the announced log keys only
// (receipt.AnnouncedAnchors), so checkpoints signed by any other key — the
// attestation key under keys.signer_label, a key never announced — verify
// for none of them, while draws would still be served.
func checkLogKey(k KeysConfig, logPub []byte, lk *loggedKeys, ann *record.KeyAnnouncement) error {
	var other string
	see := func(use, id string, pub []byte, where string) bool {
		if !bytes.Equal(pub, logPub) {
			return false
		}
		if use == hsm.UseLog {
			return true
		}
		other = fmt.Sprintf(" (%s announces it as %s key %q)", where, use, id)
		return false
	}
	if lk != nil {
		for ku, f := range lk.first {
			if see(ku.use, f.id, f.pub, "the log") {
				return nil
			}
		}
	}
	if ann != nil {
		for _, a := range ann.Keys {
			if see(a.Use, a.ID, a.PublicKey, "keys.announcement_file") {
				return nil
			}
		}
	}
	how := "set keys.signer_label to the label of the announced log key"
	if k.AnnouncementFile != "" {
		how += ", or announce this one as the log key in a new keys.announcement_file (rngctl keys announce --log-label)"
	}
	return fmt.Errorf("keys.signer_label = %q: the key rngd would sign checkpoints with (fingerprint %s) is not announced as a log key%s: "+
		"auditors trust checkpoints signed by announced log keys only; %s", k.SignerLabel, hsm.Fingerprint(logPub), other, how)
}

// makeAnnouncement returns the announcement to append: keys.announcement_file
// (rngctl keys init's, as openKeys read it), or one made now of the VRF and
// log keys.
func (e *engine) makeAnnouncement(c *components) ([]byte, error) {
	if c.announcement != nil {
		return c.announcement, nil
	}
	keys := []hsm.AnnouncedKey{{Use: hsm.UseVRF, Label: e.cfg.Keys.VRFLabel, Prover: c.prover},
		{Use: hsm.UseLog, Label: e.cfg.Keys.SignerLabel, Signer: c.signer}}
	leaf, err := hsm.Announce(e.now(), keys)
	if err != nil {
		return nil, fmt.Errorf("couldn't make the key announcement: %w", err)
	}
	return leaf, nil
}

// putAnnounced records which keys the log has announced, by fingerprint.
func putAnnounced(tx *bolt.Tx, ann *record.KeyAnnouncement, idx uint64) error {
	for _, k := range ann.Keys {
		if err := tx.Bucket(bucketMeta).Put([]byte("announced/"+hsm.Fingerprint(k.PublicKey)), append(u64(idx), k.ID...)); err != nil {
			return err
		}
	}
	return nil
}

// keyInUse is a VRF key as records name it: its id, and its fingerprint.
type keyInUse struct{ id, fp string }

func (k keyInUse) String() string { return fmt.Sprintf("%q (fingerprint %s)", k.id, k.fp) }

// The key a game or a frozen draw is on is not stored: it is read from the
// game's records (gameKey) and, for a frozen draw, from where the log
// announced the key (rpromo.KeyBeforeFreeze), so it holds after any
// rebuild, restore or loss of the state store. (rngd of f709581 kept a
// "key in use" in a "keys" bucket of state.db; nothing reads it now, and
// a store that has it keeps it, harmlessly.)

// keyUse is what records name a key by: its use and its id.
type keyUse struct{ use, id string }

// firstAnnounced is the public key an id was first announced with, its
// suite, and where (and the id: vrfBytes is keyed by the public key).
type firstAnnounced struct {
	id    string
	pub   []byte
	suite string
	index uint64
}

// loggedKeys is what the log's key announcements say: for each (use, id),
// its first announcement — the one auditors know the id by (a second one
// they ignore: "announced again").
type loggedKeys struct {
	first map[keyUse]firstAnnounced
	// vrfBytes: for each VRF public key (its bytes, under any id), its
	// first announcement with a suite and key auditors can parse — the
	// suite they hold those bytes to (verifier/audit: the same bytes under
	// another suite later is misbehaviour, "one key, two outputs for each
	// α").
	vrfBytes map[string]firstAnnounced
	// pending: announcements beyond the checkpoint were left out
	// (loggedKeysUpTo with skipBeyond).
	pending bool
}

// loggedKeys reads the log's key announcements, up to its checkpoint.
func (e *engine) loggedKeys(ctx context.Context) (*loggedKeys, error) {
	cp, err := e.tlog.Checkpoint(ctx)
	if err != nil {
		return nil, fmt.Errorf("couldn't read the log's checkpoint: %w", err)
	}
	return e.loggedKeysUpTo(ctx, cp.Size, false)
}

// loggedKeysUpTo reads the log's key announcements in its first size
// records. The store knows where they are (putAnnounced: the index of the
// last announcement of each public key), so only those records are read.
// An announcement at or beyond size is an error, or with skipBeyond left
// out (lk.pending): one appended since the checkpoint.
func (e *engine) loggedKeysUpTo(ctx context.Context, size uint64, skipBeyond bool) (*loggedKeys, error) {
	lk := &loggedKeys{first: map[keyUse]firstAnnounced{}, vrfBytes: map[string]firstAnnounced{}}
	var at []uint64
	err := e.store.view(func(tx *bolt.Tx) error {
		prefix := []byte("announced/")
		cur := tx.Bucket(bucketMeta).Cursor()
		for k, v := cur.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = cur.Next() {
			if len(v) >= 8 {
				at = append(at, beUint64(v[:8]))
			}
		}
		return nil
	})
	if err != nil {
		// Not "no key announced": a failed store knows of none.
		return nil, fmt.Errorf("couldn't read where the log's key announcements are: %w", err)
	}
	slices.Sort(at)
	at = slices.Compact(at)
	for _, i := range at {
		if i >= size {
			if skipBeyond {
				lk.pending = true
				continue
			}
			return nil, fmt.Errorf("the state store names a key announcement at log index %d, beyond the log's checkpoint (%d records): wrong data directory?", i, size)
		}
		es, err := e.tlog.Entries(ctx, i, i+1, size)
		if err == nil && len(es) != 1 {
			err = fmt.Errorf("%d entries returned", len(es))
		}
		if err != nil {
			return nil, fmt.Errorf("couldn't read the key announcement at log index %d (log size %d): %w", i, size, err)
		}
		r, err := record.Parse(es[0])
		ann, ok := r.(*record.KeyAnnouncement)
		if err == nil && !ok {
			err = fmt.Errorf("a %s record", r.Kind())
		}
		if err != nil {
			return nil, fmt.Errorf("the log's record %d is not the key announcement the state store says it is (%w): wrong data directory?", i, err)
		}
		for _, k := range ann.Keys {
			f := firstAnnounced{id: k.ID, pub: k.PublicKey, suite: k.Suite, index: i}
			ku := keyUse{k.Use, k.ID}
			if _, dup := lk.first[ku]; !dup {
				lk.first[ku] = f
			}
			if _, seen := lk.vrfBytes[string(k.PublicKey)]; !seen && k.Use == hsm.UseVRF && vrfKeyParses(k) {
				lk.vrfBytes[string(k.PublicKey)] = f
			}
		}
	}
	return lk, nil
}

// vrfIndex is the log index of the first announcement of VRF key id, -1 if
// none.
func (lk *loggedKeys) vrfIndex(id string) int64 {
	if f, ok := lk.first[keyUse{hsm.UseVRF, id}]; ok {
		return int64(f.index)
	}
	return -1
}

// gameKey reads a game's records (leaves, in order) for the VRF key they
// name: the start's, else the first pick's; "" before any draw (a start
// at the maximum stake draws nothing).
func gameKey(leaves [][]byte) (string, error) {
	for i, leaf := range leaves {
		r, err := record.Parse(leaf)
		if err != nil {
			return "", fmt.Errorf("its record %d: %w", i, err)
		}
		switch r := r.(type) {
		case *record.GameStart:
			if r.Key != "" {
				return r.Key, nil
			}
		case *record.Pick:
			return r.Key, nil
		}
	}
	return "", nil
}

// vrfKeyParses tells whether auditors can parse VRF key k's suite and
// public key (verifier/audit reports one they cannot as a bad key record,
// and holds its bytes to no suite).
func vrfKeyParses(k record.Key) bool {
	_, err := announce.VRFKey(k)
	return err == nil
}

// suiteClash returns the first announcement of the VRF public key pub when
// the log announced it under a suite other than suite: auditors hold a
// key's bytes to the suite of their first announcement, and report them
// announced under another as misbehaviour (and count no proof under it).
func (lk *loggedKeys) suiteClash(pub []byte, suite string) (firstAnnounced, bool) {
	f, ok := lk.vrfBytes[string(pub)]
	return f, ok && f.suite != suite
}

// twoSuitesError is the refusal of VRF key id, of suite suite and public
// key pub, whose bytes the log first announced (f) under another suite.
func twoSuitesError(id, suite string, pub []byte, f firstAnnounced, fromFile bool) error {
	how := `make a new key (rngctl keys init --vrf-label NEW) and set keys.vrf_label = "NEW"`
	if fromFile {
		how += ", with a new keys.announcement_file"
	}
	return fmt.Errorf("keys: vrf key %q (fingerprint %s) is an %s key, but the log announced the same public key at record %d as vrf key %q under %s: "+
		"one P-256 key proves under both suites, two outputs for each α, so auditors hold a key to the suite it was first announced under, "+
		"report its announcement under two suites as misbehaviour and count no proof under the other. "+
		"A key is never used under another suite: %s, or go back to %s (keys.vrf_label = %q, with the key file as rngctl keys init made it)",
		id, hsm.Fingerprint(pub), suite, f.index, f.id, f.suite, how, f.suite, f.id)
}

// vrfID returns the id auditors know the VRF key pub of suite by: label if
// the log first announced label with pub under suite, else the latest id
// first announced so. An id first announced with another key does not
// count: records naming it would be checked against that other key; nor
// one first announced with pub under another suite (auditors ignore it,
// suiteClash).
func (lk *loggedKeys) vrfID(pub []byte, suite, label string) (string, bool) {
	if f, ok := lk.first[keyUse{hsm.UseVRF, label}]; ok && bytes.Equal(f.pub, pub) && f.suite == suite {
		return label, true
	}
	id, found, at := "", false, uint64(0)
	for ku, f := range lk.first {
		if ku.use == hsm.UseVRF && bytes.Equal(f.pub, pub) && f.suite == suite && (!found || f.index > at) {
			id, found, at = ku.id, true, f.index
		}
	}
	return id, found
}

// checkNewKeys refuses an announcement naming a key by an id the log
// already announced with another public key — a new HSM or keystore set up
// under the default labels: auditors know the id by its first
// announcement, so every proof (or signature) under the new key would be
// checked against the old one and reported as misbehaviour — or a VRF
// key again under its id (auditors count that as a bad key record), or a
// VRF key whose public key the log (or this announcement, before it)
// announced under another suite (auditors report that as misbehaviour,
// before they look at the id). The same bytes under the same suite and
// another id is no fault to auditors: not refused.
func (lk *loggedKeys) checkNewKeys(ann *record.KeyAnnouncement, fromFile bool) error {
	var here map[string]record.Key // VRF public keys this announcement announced so far
	for _, k := range ann.Keys {
		if k.Use == hsm.UseVRF && vrfKeyParses(k) {
			if f, clash := lk.suiteClash(k.PublicKey, k.Suite); clash {
				return twoSuitesError(k.ID, k.Suite, k.PublicKey, f, fromFile)
			}
			if o, seen := here[string(k.PublicKey)]; seen && o.Suite != k.Suite {
				return fmt.Errorf("keys: the announcement announces the public key of vrf key %q (fingerprint %s) under two suites, %s and %s (as vrf key %q): "+
					"one P-256 key proves under both suites, two outputs for each α, and auditors report that as misbehaviour; announce each key under the suite it was made for (rngctl keys announce)",
					o.ID, hsm.Fingerprint(k.PublicKey), o.Suite, k.Suite, k.ID)
			}
			if here == nil {
				here = map[string]record.Key{}
			}
			if _, seen := here[string(k.PublicKey)]; !seen {
				here[string(k.PublicKey)] = k
			}
		}
		f, ok := lk.first[keyUse{k.Use, k.ID}]
		if !ok || (bytes.Equal(f.pub, k.PublicKey) && k.Use != hsm.UseVRF) {
			continue
		}
		setting, flag := "keys.vrf_label", "--vrf-label"
		switch k.Use {
		case hsm.UseLog:
			setting, flag = "keys.signer_label", "--log-label"
		case hsm.UseAttestation:
			setting, flag = "", "--attestation-label"
		}
		how := fmt.Sprintf("make the new key under a new label (rngctl keys init %s NEW)", flag)
		if setting != "" {
			how += fmt.Sprintf(" and set %s = \"NEW\"", setting)
		}
		if fromFile {
			how += ", with a new keys.announcement_file"
		}
		if bytes.Equal(f.pub, k.PublicKey) {
			return fmt.Errorf("keys: the announcement announces %s key %q again (the log announced it at record %d): auditors count a second announcement of an id as a bad key record; remove it from keys.announcement_file", k.Use, k.ID, f.index)
		}
		return fmt.Errorf("keys: %s key id %q was already announced in the log (record %d) with another public key (fingerprint %s; this key's is %s): "+
			"auditors know an id by its first announcement, so everything under this key would fail the audit. A label is never reused for another key: %s",
			k.Use, k.ID, f.index, hsm.Fingerprint(f.pub), hsm.Fingerprint(k.PublicKey), how)
	}
	return nil
}

// checkRotation refuses to start on a VRF key that cannot take over what is
// in play: an unfinished game whose records name another key (or, before
// its first draw, one started before this key was announced), or a frozen
// promotion draw whose ceremony is still possible and whose freeze this
// key was not announced before (rpromo.KeyBeforeFreeze, as the ceremony
// decides). Auditors count a game's draws only under keys announced before
// it started (a promotion draw's: before its freeze), and a transcript
// carries one key: a game must end on the key it started with.
//
// Refusing is chosen over keeping each game on its start key: that would
// need rngd to hold every key of every game in play (30 days), to choose
// the key per game and to keep old keys open after a rotation — which
// defeats the usual reason to rotate (a key retired or an HSM replaced).
// The refusal needs nothing: the operator ends or refunds the games (or
// lets them finish on the old key) and holds the ceremonies, then rotates.
//
// What each game is on is read from its records, not from a stored "key in
// use": the check holds after a rebuild, a restore or a lost state store.
func (e *engine) checkRotation(lk *loggedKeys, cur keyInUse) error {
	curAt := lk.vrfIndex(cur.id)
	type blocked struct {
		id, key    string
		over, lost bool
	}
	var games []blocked
	err := e.store.view(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketUnfinished).ForEach(func(k, _ []byte) error {
			_, id, _ := bytes.Cut(k, []byte{0})
			var sg storedGame
			ok, err := getStoredGame(tx, id, &sg)
			if err != nil {
				return fmt.Errorf("game %s: %w", id, err)
			}
			if !ok {
				return fmt.Errorf("game %s: unfinished but not in the state store: rebuild it (rngctl state rebuild)", id)
			}
			leaves, indices, err := gameRecords(tx, sg.Game.ID, sg.Records)
			if err != nil {
				// gameRecords names the game.
				return fmt.Errorf("%w: rebuild the state store (rngctl state rebuild)", err)
			}
			if len(leaves) == 0 {
				return fmt.Errorf("game %s: no record: rebuild the state store (rngctl state rebuild)", id)
			}
			key, err := gameKey(leaves)
			if err != nil {
				return fmt.Errorf("game %s: %w", id, err)
			}
			if key == cur.id || (key == "" && curAt >= 0 && uint64(curAt) < indices[0]) {
				return nil
			}
			if err := e.fillSecret(tx, &sg); err != nil {
				return fmt.Errorf("game %s: %w", id, err)
			}
			games = append(games, blocked{id: sg.Game.ID, key: key, over: sg.Game.Phase.Over(), lost: !sg.HasSecret})
			return nil
		})
	})
	if err != nil {
		return fmt.Errorf("couldn't check the unfinished games' VRF keys: %w", err)
	}
	undrawn, err := rpromo.Undrawn(filepath.Join(e.cfg.DataDir, "promo"), e.now())
	if err != nil {
		return fmt.Errorf("couldn't list the frozen promotion draws: %w", err)
	}
	var draws []string
	var unpublished bool
	// back: the keys that can take over, in the order found.
	var back []string
	addBack := func(id string) {
		if id != "" && !slices.Contains(back, id) {
			back = append(back, id)
		}
	}
	for _, g := range games {
		addBack(g.key)
	}
	for _, d := range undrawn {
		if d.DrawableBy(cur.id, curAt) {
			continue
		}
		draws = append(draws, d.Draw)
		if d.FreezeIndex < 0 {
			unpublished = true
			continue
		}
		if d.Key != "" { // the freeze names the key that can draw it
			addBack(d.Key)
			continue
		}
		// The key announced last before the freeze can draw it.
		var best string
		var at uint64
		for ku, f := range lk.first {
			if ku.use == hsm.UseVRF && f.index <= uint64(d.FreezeIndex) && (best == "" || f.index > at) {
				best, at = ku.id, f.index
			}
		}
		addBack(best)
	}
	if len(games) == 0 && len(draws) == 0 {
		if len(lk.first) > 0 && curAt < 0 {
			e.log.Warn("VRF key rotated: no game in play on another key, no frozen draw it cannot draw", "to", cur.id, "to_fingerprint", cur.fp)
		}
		return nil
	}
	list := func(ids []string) string {
		if len(ids) > 3 {
			return strings.Join(ids[:3], ", ") + ", …"
		}
		return strings.Join(ids, ", ")
	}
	var what []string
	var inPlay, overKept, overLost []string
	for _, g := range games {
		switch {
		case !g.over:
			inPlay = append(inPlay, g.id)
		case g.lost:
			overLost = append(overLost, g.id)
		default:
			overKept = append(overKept, g.id)
		}
	}
	if len(games) > 0 {
		ids := make([]string, len(games))
		var keys []string
		for i, g := range games {
			ids[i] = g.id
			if g.key != "" && !slices.Contains(keys, g.key) {
				keys = append(keys, g.key)
			}
		}
		on := "started before it was announced"
		if len(keys) > 0 {
			on = fmt.Sprintf("on VRF key %s", quoteAll(keys))
		}
		what = append(what, fmt.Sprintf("%d unfinished games (%s) are %s", len(games), list(ids), on))
	}
	if len(draws) > 0 {
		s := fmt.Sprintf("%d frozen promotion draws not yet drawn (%s) were frozen on another key or before it was announced", len(draws), list(draws))
		if unpublished {
			s += " (or are not yet published: rngctl promo freeze publishes them)"
		}
		what = append(what, s)
	}
	how := "until they are over"
	if len(back) > 0 {
		how = fmt.Sprintf("Set keys.vrf_label back to %s %s", quoteAll(back), how)
	} else {
		how = "Keep the VRF key they are on " + how
	}
	var ends []string
	if len(inPlay) > 0 {
		ends = append(ends, "let the games in play finish or refund them (rngctl qod refund --game ID --reason TEXT; rngctl qod sweep ends those past their 30 days and game.refund_grace)")
	}
	if len(overKept) > 0 {
		ends = append(ends, fmt.Sprintf("seal the end of the games over whose end could not be sealed (%s) with rngctl qod sweep", list(overKept)))
	}
	if len(overLost) > 0 {
		ends = append(ends, fmt.Sprintf("have an operator investigate the games over whose secret r was lost (%s): their end cannot be sealed and they cannot be refunded (docs/rngd.md, SECRET_LOST)", list(overLost)))
	}
	if len(draws) > 0 {
		ends = append(ends, "hold the ceremonies with a key announced before the freeze (rngctl promo draw --vrf-label LABEL)")
	}
	return fmt.Errorf("keys.vrf_label = %q: VRF key %s cannot take over what is in play: %s. "+
		"Auditors count a game's draws only under keys announced before it started (a promotion draw's: before its freeze), and a game's records name one key, so they cannot move to this key. "+
		"%s, or first %s, then rotate: docs/keys.md, \"Rotating the VRF key\"",
		e.cfg.Keys.VRFLabel, cur, strings.Join(what, " and "), how, strings.Join(ends, "; "))
}

// quoteAll quotes ids, joined with " or ".
func quoteAll(ids []string) string {
	q := make([]string, len(ids))
	for i, id := range ids {
		q[i] = strconv.Quote(id)
	}
	return strings.Join(q, " or ")
}

// Start opens everything the config names and starts listening; Serve then
// serves until its context ends. What can refuse a start is checked before
// the data directory is touched: the config whole, the data directory's
// and secrets.db's owner and mode (checkDataDir), the gRPC certificates,
// the TCP listeners, the entropy sources, the Trillian log's CA and the
// keys; then the admin socket is bound (in the data directory by default),
// and only then are the stores and the log opened and the keys announced
// in the log.
func Start(ctx context.Context, cfg Config) (_ *Daemon, err error) {
	cfg, err = cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	if err := checkDataDir(cfg.DataDir); err != nil {
		return nil, err
	}
	// Before the components start their goroutines' threads, which then
	// inherit the policy.
	sched, serr := applyScheduling(cfg.Scheduling)
	if serr != nil {
		cfg.Logger.Warn("scheduling: the threads' policy is left as rngd was started with: draws cost more CPU", "scheduling", cfg.Scheduling, "err", serr)
	}
	if cfg.Dev {
		if _, err := GenerateDevPKI(filepath.Join(cfg.DataDir, "dev"), "client", "client2"); err != nil {
			return nil, err
		}
	}
	lis, err := openListeners(cfg)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			lis.close()
		}
	}()
	c := new(components)
	defer func() {
		if err != nil {
			c.close()
		}
	}()
	if err := openSources(ctx, cfg, c); err != nil {
		return nil, err
	}
	if filepath.Dir(cfg.Admin.Socket) == cfg.DataDir {
		if err := os.MkdirAll(cfg.DataDir, 0o700); err != nil {
			return nil, fmt.Errorf("couldn't make data_dir: %w", err)
		}
	}
	if lis.admin, err = listenAdmin(cfg.Admin); err != nil {
		return nil, err
	}
	if dir := unsearchableDir(cfg.Admin); dir != "" {
		cfg.Logger.Warn("admin.allowed_uids names other users, but a directory on the path to admin.socket is not searchable by others: "+
			"they cannot reach the socket unless they are in its group (move admin.socket, e.g. to /run/tirage, mode 0755)",
			"dir", dir, "admin_socket", cfg.Admin.Socket, "allowed_uids", cfg.Admin.AllowedUIDs)
	}
	e, err := openEngineInto(ctx, cfg, c, levelCatchUp)
	if err != nil {
		return nil, err
	}
	if err := e.announceKeys(ctx, c); err != nil {
		return nil, err
	}
	// The sweeper's first sweep comes as soon as Serve starts it (sweepc),
	// not one game.sweep_interval later: the ends a crash kept from being
	// sealed (a game-ending draw whose end's append did not follow) and
	// the expiries that fell due while rngd was down are sealed right
	// after the start — the audit fails an end sealed more than an hour of
	// log activity late. It is not done here: with many expiries due, or
	// the log taking no appends, the start would wait for it. A call
	// racing it on a game waits for the game's lock. The games' gauges
	// are counted now (a read of the store).
	e.countGames()
	e.askSweep() // Serve's sweeper takes it (or the one a resync asked for)
	httpHandlers, auditRegister := auditSurfaces(c.log, cfg.Logger.With("component", "audit"))
	d := newDaemon(cfg, e, lis, httpHandlers, auditRegister)
	d.closers = c.closers
	d.sched = sched
	d.banner(c)
	return d, nil
}

// Run is rngd: Start, then Serve until ctx ends.
func Run(ctx context.Context, cfg Config) error {
	d, err := Start(ctx, cfg)
	if err != nil {
		return err
	}
	return d.Serve(ctx)
}

// Rebuild rebuilds the state store of a stopped daemon from its log
// (rngctl state rebuild). It returns the number of records replayed. The
// config is checked as Start checks it, but the game servers' TLS files
// (grpc.cert_file, key_file, client_ca_file) may be left out: a rebuild
// opens no listener (ConfigForRebuild).
func Rebuild(ctx context.Context, cfg Config) (uint64, error) {
	cfg, err := cfg.checkFor(forRebuild)
	if err != nil {
		return 0, err
	}
	if err := checkDataDir(cfg.DataDir); err != nil {
		return 0, err
	}
	e, c, err := openEngine(ctx, cfg, levelRebuild)
	if err != nil {
		return 0, err
	}
	defer c.close()
	return e.rebuilt, nil
}

// witnessList names the witnesses for the banner (their URLs' passwords and
// query values redacted: transparency.WitnessStat).
func witnessList(ws []transparency.WitnessStat) string {
	var names []string
	for _, w := range ws {
		names = append(names, w.Name+" "+w.URL)
	}
	return strings.Join(names, ", ")
}

// banner prints what an operator checks first: version, mode, keys and
// addresses. Every insecure convenience in use is announced in capitals
// there, with a log line and a metric (insecureNotes).
func (d *Daemon) banner(c *components) {
	cfg := d.cfg
	w := cfg.Banner
	software := c.keys.Software()
	notes := insecureNotes(cfg, software)
	var b strings.Builder
	if cfg.Dev {
		b.WriteString(strings.Repeat("!", 72) + "\n")
		b.WriteString("!!  DEV MODE: generated certificates, software keys with a known\n")
		b.WriteString("!!  passphrase. NOT FOR PRODUCTION. (tirage_dev_mode = 1)\n")
		b.WriteString(strings.Repeat("!", 72) + "\n")
	}
	if len(notes) > 0 {
		b.WriteString(strings.Repeat("!", 72) + "\n")
		for _, n := range notes {
			b.WriteString("!!  " + n.banner + "\n")
		}
		b.WriteString(strings.Repeat("!", 72) + "\n")
	}
	fmt.Fprintf(&b, "rngd %s\n", cfg.Version)
	fmt.Fprintf(&b, "  data dir      %s\n", cfg.DataDir)
	fmt.Fprintf(&b, "  log level     %s (slog JSON on stderr)\n", strings.ToLower(cfg.LogLevel.String()))
	if cfg.Log.Backend == "trillian" {
		tr := "TLS, CA " + cfg.Log.TrillianCAFile
		if cfg.Log.TrillianCAFile == "" {
			tr = "PLAINTEXT (loopback, log.trillian_plaintext)"
			if !cfg.Log.TrillianPlaintext {
				tr = "PLAINTEXT (loopback, dev mode)"
			}
		}
		fmt.Fprintf(&b, "  log           trillian %s tree %d (%s), origin %q\n", cfg.Log.TrillianAddress, cfg.Log.TrillianTreeID, tr, cfg.Log.Origin)
	} else {
		fmt.Fprintf(&b, "  log           tessera %s, origin %q, batch %s, journal fsyncs %s apart at least, checkpoint every %s\n", filepath.Join(cfg.DataDir, "log"), cfg.Log.Origin, cfg.Log.BatchMaxAge, cfg.Log.JournalInterval, cfg.Log.CheckpointInterval)
	}
	if wl, ok := c.log.(witnessedLog); ok {
		if ws := wl.Witnesses(); len(ws) > 0 {
			fmt.Fprintf(&b, "  witnesses     %s (log.witness_policy %s, %s each checkpoint)\n", witnessList(ws), cfg.Log.WitnessPolicy, cfg.Log.WitnessTimeout)
		} else {
			fmt.Fprintf(&b, "  witnesses     none: checkpoints are signed by the log key alone (log.witness_policy)\n")
		}
	}
	fmt.Fprintf(&b, "  keys          %s\n", keysSummary(cfg.Keys, c.keys.Kind(), software))
	fmt.Fprintf(&b, "  vrf key       %s %s fingerprint %s (pin %s:%[3]s)\n", d.engine.keyID, d.engine.suite, hsm.Fingerprint(d.engine.pub), d.engine.suite)
	if spki, err := x509.MarshalPKIXPublicKey(c.signer.Public()); err == nil {
		fmt.Fprintf(&b, "  log key       %s fingerprint %s\n", c.signer.Algorithm(), hsm.Fingerprint(spki))
	}
	for _, v := range c.log.VerifierKeys() {
		fmt.Fprintf(&b, "  log vkey      %s\n", v)
	}
	var kinds []string
	for _, s := range cfg.Entropy.Sources {
		k := s.Kind
		switch {
		case s.Address != "":
			k += " simulator " + s.Address + " (TCP, DEV MODE)"
		case s.Path != "":
			k += " " + s.Path
		case s.Kind == "hwrng":
			k += " " + entropy.DefaultHWRNGPath
		case s.Kind == "tpm":
			k += " " + entropy.DefaultTPMPath
		}
		kinds = append(kinds, k)
	}
	fmt.Fprintf(&b, "  entropy       %s -> HMAC_DRBG\n", strings.Join(kinds, " + "))
	fmt.Fprintf(&b, "  time zone     %s, sweep every %s, refund grace %s\n", cfg.Game.TimeZone, cfg.Game.SweepInterval, Duration{cfg.Game.refundGrace()})
	fmt.Fprintf(&b, "  process       %s\n", processProtection())
	fmt.Fprintf(&b, "  scheduling    %s\n", d.sched)
	a := d.Addrs()
	fmt.Fprintf(&b, "  grpc (mTLS)   %s  (client CA %s)\n", a.GRPC, cfg.GRPC.ClientCAFile)
	if d.crl != nil {
		fmt.Fprintf(&b, "  revoked by    %s  (%s)\n", cfg.GRPC.ClientCRLFile, d.crl.cur.Load().describe())
	}
	if a.Audit != "" {
		who := "no client certificate: public"
		if cfg.Audit.ClientCAFile != "" {
			who = "client CA " + cfg.Audit.ClientCAFile
		}
		fmt.Fprintf(&b, "  audit (TLS)   %s  (log audit service; %s)\n", a.Audit, who)
	}
	if a.HTTP != "" {
		fmt.Fprintf(&b, "  http          http://%s  (/metrics /healthz /log/)\n", a.HTTP)
	}
	fmt.Fprintf(&b, "  admin         unix:%s  (uids %v, mode %04o)\n", a.Admin, cfg.Admin.AllowedUIDs, adminSocketMode(cfg.Admin.AllowedUIDs))
	io.WriteString(w, b.String())
	d.log.Info("rngd started", "version", cfg.Version, "dev_mode", cfg.Dev, "software_keys", software, "grpc", a.GRPC, "audit", a.Audit, "http", a.HTTP,
		"admin", a.Admin, "vrf_key", d.engine.keyID, "vrf_fingerprint", hsm.Fingerprint(d.engine.pub), "scheduling", d.sched)
	if cfg.Dev {
		d.log.Warn("DEV MODE: not for production")
	}
	for _, n := range notes {
		d.log.Log(context.Background(), n.level, n.log, n.attrs...)
	}
}

// keysSummary is the banner's key custody: the token of a pkcs11 backend,
// the directory of a software keystore.
func keysSummary(k KeysConfig, kind string, software bool) string {
	if kind == "pkcs11" {
		return fmt.Sprintf("pkcs11 token %q, module %s", k.TokenLabel, k.Module)
	}
	s := kind + " keystore " + k.Dir
	if software {
		s += " (SOFTWARE KEYS: files on this host, not for production)"
	}
	return s
}

// softwareKeysGauge is tirage_software_keys: 1 when the keys are files on
// the host (dev mode, or keys.allow_software), as tirage_dev_mode is 1 in
// dev mode.
func softwareKeysGauge(software bool) prometheus.Gauge {
	g := prometheus.NewGauge(prometheus.GaugeOpts{Name: "tirage_software_keys",
		Help: "1 when the VRF and log keys are software keys, files on this host (dev mode or keys.allow_software): never in production."})
	if software {
		g.Set(1)
	}
	return g
}

// insecureNote is an insecure convenience the daemon runs with, announced
// in the banner (in capitals) and in the log.
type insecureNote struct {
	banner string
	level  slog.Level
	log    string
	attrs  []any
}

// insecureNotes lists what an operator must know is not production-grade:
// software keys outside dev mode (keys.allow_software; dev mode says it all
// at once) and, in both modes, a plaintext connection to the Trillian log
// (allowed by log.trillian_plaintext, or by dev mode without it); in dev
// mode, a TPM simulator over TCP credited as an entropy source.
func insecureNotes(cfg Config, softwareKeys bool) []insecureNote {
	var notes []insecureNote
	if softwareKeys && !cfg.Dev {
		where := []any{"keys_dir", cfg.Keys.Dir}
		if cfg.Keys.Backend == "pkcs11" { // a software token (SoftHSM2)
			where = []any{"token_label", cfg.Keys.TokenLabel, "module", cfg.Keys.Module}
		}
		notes = append(notes, insecureNote{
			banner: "SOFTWARE KEYS (keys.allow_software): THE VRF AND LOG KEYS ARE FILES ON\n!!  THIS HOST, NOT IN AN HSM. NOT FOR PRODUCTION. (tirage_software_keys = 1)",
			level:  slog.LevelError,
			log:    "SOFTWARE KEYS: the VRF and log keys are files on this host, not in an HSM (keys.allow_software): not for production",
			attrs:  where,
		})
	}
	if cfg.Log.Backend == "trillian" && cfg.Log.TrillianCAFile == "" {
		// Outside dev mode plaintext needs the opt-in log.trillian_plaintext;
		// dev mode allows it without (config.go): say which let it through.
		why, shout := "log.trillian_plaintext", "log.trillian_plaintext"
		if !cfg.Log.TrillianPlaintext {
			why, shout = "dev mode", "DEV MODE"
		}
		notes = append(notes, insecureNote{
			banner: fmt.Sprintf("TRILLIAN LOG IN PLAINTEXT (%s, no log.trillian_ca_file):\n!!  %s, ALLOWED ON LOOPBACK ONLY.", shout, cfg.Log.TrillianAddress),
			level:  slog.LevelWarn,
			log:    fmt.Sprintf("the connection to the Trillian log is not encrypted (%s, no log.trillian_ca_file; loopback only)", why),
			attrs:  []any{"trillian_address", cfg.Log.TrillianAddress},
		})
	}
	for i, s := range cfg.Entropy.Sources {
		if s.Kind != "tpm" || s.Address == "" {
			continue
		}
		// Only dev mode lets a simulator through (config.go).
		notes = append(notes, insecureNote{
			banner: fmt.Sprintf("TPM SIMULATOR OVER PLAIN TCP (DEV MODE, entropy.source[%d].address):\n!!  %s: SOFTWARE BYTES CREDITED AS PHYSICAL ENTROPY. NOT FOR PRODUCTION.", i, s.Address),
			level:  slog.LevelWarn,
			log:    fmt.Sprintf("entropy.source[%d] is a TPM simulator over plain TCP (dev mode): software bytes, unauthenticated, credited as physical entropy: not for production", i),
			attrs:  []any{"tpm_address", s.Address},
		})
	}
	return notes
}

// auditSurfaces are the auditors' read surfaces of the log: the tiles,
// checkpoint and verifier key under /log/ on the HTTP listener, and the
// gRPC audit service (tirage.transparency.audit.v1) on the auditors' own
// gRPC listener (audit.listen), not on the game servers'.
// A failure of the log is logged whole on logger; the auditor gets its kind.
func auditSurfaces(l transparency.Log, logger *slog.Logger) (map[string]http.Handler, func(*grpc.Server)) {
	return map[string]http.Handler{"/log/": transparency.NewHTTPHandler(l)}, func(s *grpc.Server) {
		auditpb.RegisterAuditServer(s, transparency.NewAuditServer(l, logger))
	}
}
