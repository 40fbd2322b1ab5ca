// Package audit follows a Tirage transparency log from its first entry to
// its latest signed checkpoint and re-verifies everything in it: every
// entry against the signed tree, every record's format, every game
// (chain, commitment, VRF proofs, outcomes, rules — package receipt's
// CheckGame), every promotion draw against its freeze (link, commitment,
// the bailiff's share opening the freeze's share commitment, beacon
// value, a beacon round published after the freeze — the
// certificate's rule, beacon.Chain.PublishedAfter — VRF proof, ranking),
// every promotion freeze against the operator's rules file it commits to
// when the caller gives that file (Config.Rules), every game start against
// the ticket manifests of its emission when the caller gives those files
// (Config.Manifests: a start's ticket and gain S are bound only by the
// manifest's root the log holds), and the observed frequencies of the
// draws against the exact probabilities of the rules.
//
// # Reading the log
//
// The log is read in the C2SP tlog-tiles layout (https://c2sp.org/tlog-tiles)
// through a caller-supplied [Fetcher] — over HTTP from rngd's /log/ or from a
// directory — so the package itself does no I/O:
//
//	checkpoint                       the signed checkpoint
//	tile/<L>/<N>[.p/<W>]             hash tiles (height 8)
//	tile/entries/<N>[.p/<W>]         entry bundles: (u16be(len) || leaf)*
//
// A partial tile or bundle the log no longer serves is read as the first W
// hashes or entries of the full one: the spec lets a log delete a partial
// once the full one is available (tessera's garbage collection does).
//
// Hash tiles are authenticated against the checkpoint by x/mod's
// tlog.TileHashReader (x/mod ≥ v0.40 checks every tile, GO-2026-6179); each
// entry's RFC 6962 leaf hash must equal the authenticated level-0 hash.
//
// # Keys
//
// The checkpoint must be signed by the trusted log keys (package
// checkpoint). VRF keys are those announced in the log's key records: a
// game's draws count only under keys announced before it started, a
// promotion draw's under keys announced before its freeze (as for a
// transcript and a certificate), so that no key can be made for one draw.
// A promotion draw counts only under the key its freeze names
// (promo_freeze "key"), bound before the bailiff's share exists: a draw
// under another key is misbehaviour, for the appliance could have proven α
// under each of its keys and kept the ranking it preferred. A freeze logged
// before freezes named their key passes only when a single VRF key was
// announced before it.
// When the caller pins VRF fingerprints, an announced key that is not
// pinned fails the vrf-key check.
//
// # What the log owes, and when
//
// Records the appliance times as it appends them (game records, emissions,
// manifests) follow log order to within MaxTimeSkew (Config.TimeSkew): a
// record dated ahead or back past the records around it is a failure of
// the record check. A game over (lost or won) must be ended — its end
// reveals r, without which its draws stay unverified — within EndDelay
// of log activity after it, and an unfinished game within EndDelay of log
// activity after its play deadline plus MaxRefundGrace: a game the log
// leaves unsealed past them fails the games check. Log activity is the
// time its timed records span, a silence counting at most MaxActiveGap
// (an outage does not count against the appliance). A ticket (the hash of its
// code) plays once across all emissions, and an emission starts no more
// games than its manifests logged before them hold tickets. A ticket's
// QUITTER (a ticket_quit record, art. 2.2.3) excludes its CONTINUER: a
// ticket both quit and started, in either order, or quit twice, is
// misbehaviour; a quit keeps a gain of the prize table, of a ticket of a
// manifest of an emission registered before it (checked against the
// manifest files given, as a start's), and an emission starts and quits
// no more tickets than its manifests hold.
//
// # Speed
//
// Entries are read and parsed in log order; games are verified as soon as
// their end record arrives, on Config.Workers goroutines, so the audit runs
// at close to the machine's raw VRF-verify throughput (docs/bench/verify.md).
package audit

import (
	"bytes"
	"cmp"
	"container/heap"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/mod/sumdb/tlog"

	"tirage.fr/tirage/verifier/announce"
	"tirage.fr/tirage/verifier/checkpoint"
	"tirage.fr/tirage/verifier/promo"
	"tirage.fr/tirage/verifier/qod"
	"tirage.fr/tirage/verifier/receipt"
	"tirage.fr/tirage/verifier/record"
	"tirage.fr/tirage/verifier/verdict"
	"tirage.fr/tirage/verifier/vrf"
)

// Fetcher reads one file of the log's tile layout by its path relative to
// the log's prefix ("checkpoint", "tile/0/x001/234", "tile/entries/000.p/7").
type Fetcher interface {
	Fetch(ctx context.Context, path string) ([]byte, error)
}

// Config is what an audit needs.
type Config struct {
	// Fetch reads the log.
	Fetch Fetcher
	// LogKeys are the trusted log keys.
	LogKeys []*checkpoint.Key
	// Last, when set, is the last checkpoint the auditor trusted: the log
	// must be consistent with it (a fork is misbehaviour).
	Last *checkpoint.Checkpoint
	// VRFPins, when not empty, are the only VRF keys accepted, as
	// receipt.ParsePin reads them (one that does not parse accepts
	// nothing). A suite pin "SUITE:FP" accepts the key with those bytes
	// under that suite only: an announcement of them under another suite
	// fails vrf-key, even beside a bare pin of the same bytes (as
	// receipt.Anchors.VRFTrusted). A bare pin "FP" accepts the bytes under
	// the suite the log's announcement names: the announcement fixes it.
	VRFPins []string
	// Location is the operator's legal time zone (Europe/Paris); nil = UTC.
	Location *time.Location
	// Workers verify games in parallel (default GOMAXPROCS).
	Workers int
	// Progress, when set, is called after each entry bundle with the
	// entries read and the tree size.
	Progress func(done, total int64)
	// Follow, when positive, keeps following the log after the first pass:
	// every Follow, the next checkpoint must extend the last one audited
	// (else misbehaviour) and its new entries are audited, until ctx ends.
	Follow time.Duration
	// Wait waits d or until ctx ends (nil: a timer). Tests inject it.
	Wait func(ctx context.Context, d time.Duration) error
	// Rules are the operators' rules files (rngverify audit --rules):
	// every version of an operation's rules its freezes commit to. A freeze binds its rules by their SHA-256 only, so the
	// log alone cannot show whether it kept them: every promo_freeze that
	// commits to one of these files is checked against it
	// (promo.Rules.CheckFreeze: its dates, with its promo_draw's time when
	// the log holds it; the beacon round; one winner and the rules'
	// reserves), and one that contradicts it is misbehaviour — the
	// appliance signed the freeze, and refuses to freeze or draw against
	// its rules. A freeze of the operation of a file given that commits to
	// another hash fails the promotions check, as rngverify certificate
	// --rules fails rules-hash (verdict.MsgPromoRulesNotFrozen): the
	// operator froze other rules than the file, or the file is not the copy
	// it froze. Freezes committing to rules not given, and files no freeze
	// commits to, are facts of the verdict. Run refuses a file that is not
	// a rules file (CheckRules) before it reads anything.
	Rules []RulesFile
	// TimeSkew bounds how much earlier than a record logged before it a
	// record the engine timed may be (0: MaxTimeSkew). See MaxTimeSkew.
	TimeSkew time.Duration
	// Now is the auditor's clock (nil: time.Now), read once per checkpoint
	// audited, after it is fetched: every record the checkpoint covers was
	// logged by then, so one the engine timed more than TimeSkew after it
	// was timed falsely (dated ahead). Tests inject it.
	Now func() time.Time
	// Manifests are ticket manifest files (rngverify audit --manifest),
	// read by ReadManifest. Each is matched by its root with the manifest
	// records of the log, and every game start of an emission is checked
	// against the files of its manifests logged before it: a start whose
	// ticket is not in them, or whose gain S is not theirs, is
	// misbehaviour (see Manifest). An emission whose manifests were not
	// all given is checked as far as the files given go, and says how
	// many starts were not; files no record has are facts of the verdict.
	Manifests []*Manifest
}

// MaxTimeSkew is how much earlier than a record logged before it a record
// may be timed: game records, emissions and manifests, which rngd times
// (e.now()) just before it appends them, so that their log order is their
// time order but for what an append takes between the two. That is at
// most twice log.trillian_append_timeout (30 s by default) plus two VRF
// proofs: a game's end is timed with the call's clock reading, taken
// before the last pick's append and appended after it, while other calls'
// records (timed later) go in between; after a log outage the leaves
// pending at its start, all timed within one append timeout, are
// integrated before any new append. Ten minutes leaves room for a slow
// HSM and for the clock's ordinary corrections, and still refuses a record
// dated ahead or back by hours or days: an expiry sealed on the day a game
// started and dated at its deadline (later records, timed that first day,
// follow it), or a start logged after records timed past its emission's
// deadline and dated before it. Key announcements (keys.announcement_file
// is made by rngctl keys init, possibly days before rngd appends it),
// promotion freezes and draws (a ceremony whose append failed sends the
// very same record again, later) and attestations are made ahead of
// their append: their times are not compared. A record the engine timed
// may not be timed more than the tolerance after the audit's clock either
// (Config.Now): a record dated ahead at the log's tail, which no record
// logged after it contradicts, fails while its date is still to come.
const MaxTimeSkew = 10 * time.Minute

// EndDelay is how much log activity may go by without the end of a game
// that is over (lost, won at a stop or at tier 4): the end is the record
// that reveals r, without which its draws stay unverified. rngd appends it
// right after the game's last pick or decision, in the next append of the
// same call; when that append fails, or rngd stops before it, the call's
// retry or the sweeper (game.sweep_interval, at most 10 min) seals it once
// rngd runs and the log takes appends again. The delay is active log time
// (see MaxActiveGap) from the first record the log took after the game's
// last one. The same delay is given to the sweeper's expiry of a game past
// its deadline and MaxRefundGrace, from the first record timed at or after
// that instant.
const EndDelay = time.Hour

// MaxActiveGap is the most that one gap between the times of consecutive
// timed records counts of active log time, the clock of EndDelay: a silence
// longer than it is one in which rngd was down or the log took no appends
// (or no one played), and counting it in full would fail an honest
// appliance for an outage. It is rngd's longest game.sweep_interval: a
// running rngd with an end to seal tries at least that often, so a
// silence counted up to it charges the appliance no more than one sweep it
// could have made. An honest end missed by a crash is then sealed within
// about 30 minutes of active time (the crashed call's appends, one capped
// silence, the first sweep after the restart and its append, at most
// log.trillian_append_timeout of 4 min each), inside EndDelay even across
// a second restart; and a log that withholds an end fails once its
// activity, or six silences, add up to EndDelay.
const MaxActiveGap = 10 * time.Minute

// MaxRefundGrace is the longest game.refund_grace rngd accepts (the
// rules', qod.MaxRefundGrace): an unfinished game past its play deadline
// by more is expired by the sweeper.
const MaxRefundGrace = qod.MaxRefundGrace

// RulesFile is an operation's rules file given to the audit.
type RulesFile struct {
	// Name names the file in the verdict and in errors (rngverify: its path).
	Name string
	// Data is the file as given: a freeze commits to the SHA-256 of these
	// exact bytes (promo.RulesHash).
	Data []byte
}

// CheckRules returns an error naming the first of files that
// promo.ParseRules refuses, its problems on one line: the caller's input is
// wrong, and nothing can be audited against it.
func CheckRules(files []RulesFile) error {
	_, err := parseRules(files)
	return err
}

// Result is an audit's outcome.
type Result struct {
	Verdict    *verdict.Verdict
	Checkpoint *checkpoint.Checkpoint // the checkpoint audited (nil if it could not be opened)
	Stats      *Stats
	Records    int64 // entries read: verified, or left out as not matching the signed tree (see the entries check)
	Games      int   // games verified (ended and unfinished)
	Proofs     int   // VRF proofs verified: the games' and the promotion draws'
	// SecretLost counts the games ended (refund or expiry) without their
	// secret r, which the appliance lost: their draws could not be
	// checked (a fact of the verdict, not a failure).
	SecretLost int
	// Proof is the consistency proof from Config.Last to Checkpoint.
	Proof tlog.TreeProof
	// Followed counts the checkpoints followed after the first one.
	Followed int
}

// maxIssues bounds the failures listed per check.
const maxIssues = 5

// Run audits the log.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	if cfg.Workers <= 0 {
		cfg.Workers = runtime.GOMAXPROCS(0)
	}
	if cfg.Wait == nil {
		cfg.Wait = wait
	}
	if cfg.TimeSkew <= 0 {
		cfg.TimeSkew = MaxTimeSkew
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	rules, err := parseRules(cfg.Rules)
	if err != nil {
		return nil, err
	}
	v := verdict.New("audit", verdict.MsgSubjectLog)
	res := &Result{Verdict: v, Stats: newStats()}
	note, err := cfg.Fetch.Fetch(ctx, "checkpoint")
	if err != nil {
		return nil, verdict.Errorf(verdict.MsgAuditCheckpointRead, err)
	}
	cp, err := checkpoint.Open(note, cfg.LogKeys)
	if err != nil {
		v.Fail(verdict.CheckSignature, verdict.MsgSame, receipt.Cause(err))
		return res, nil
	}
	res.Checkpoint = cp
	v.SetSubject(verdict.MsgSubjectLogEntries, cp.Origin, cp.Size)
	v.Pass(verdict.CheckSignature, verdict.MsgSame, receipt.CheckpointMsg(cp))
	tr := &tileReader{ctx: ctx, fetch: cfg.Fetch, cache: map[tlog.Tile][]byte{}}
	hr := tlog.TileHashReader(cp.Tree(), tr)
	if cfg.Last != nil {
		res.Proof = consistent(v, cfg.Last, cp, hr, tr)
	}

	a := newAuditor(cfg, v, res)
	a.given = rules
	for _, g := range rules {
		a.rules[g.hash] = g
	}
	for _, m := range cfg.Manifests {
		if m != nil && a.byRoot[m.Root] == nil { // a file given twice counts under its first name
			a.byRoot[m.Root] = m
			a.manifests = append(a.manifests, m)
		}
	}
	readErr := a.read(ctx, hr, 0, cp)
	// Follow: wait, read the next checkpoint, check that it extends the
	// one audited, audit the new entries; until ctx ends. The caller ends
	// following by cancelling ctx, at any point of a round: the round
	// stops there, and is no failure — the audit covers the checkpoint
	// last followed in full (res.Checkpoint, res.Proof) and the entries
	// verified after it (each against the next checkpoint's tree, which
	// was checked to extend it). A cancellation during the first pass
	// leaves the audit incomplete: an error.
	stopped := func(err error) bool { return err != nil && ctx.Err() != nil }
	first := cp
	size := cp.Size // of the checkpoint whose entries are read
	// A log whose first checkpoint failed log-consistency (a fork of the
	// trusted one, a stale read) is not followed: the verdict is given at
	// once (it followed such a log until interrupted).
	trusted := func() bool { c := v.Find(verdict.CheckConsistent); return c == nil || c.Status == verdict.StatusPass }
	for readErr == nil && cfg.Follow > 0 && a.entryBad.n == 0 && trusted() {
		if err := cfg.Wait(ctx, cfg.Follow); err != nil {
			break // the caller stopped following: not an error
		}
		note, err := cfg.Fetch.Fetch(ctx, "checkpoint")
		if stopped(err) {
			break
		}
		if err != nil {
			readErr = verdict.Errorf(verdict.MsgAuditCheckpointRead, err)
			break
		}
		next, err := checkpoint.Open(note, cfg.LogKeys)
		if err != nil {
			v.Fail(verdict.CheckSignature, verdict.MsgFollowedCheckpoint, receipt.Cause(err))
			break
		}
		if next.Size < cp.Size {
			// A smaller checkpoint is no proof by itself (a stale read: a
			// cache, another front end): only one the audited tree does not
			// extend is a fork. The proof is read from cp's tiles.
			var proof tlog.TreeProof
			var err error
			if next.Size > 0 {
				proof, err = tlog.ProveTree(cp.Size, next.Size, hr)
			}
			if stopped(err) {
				break
			}
			if err != nil {
				v.Fail(verdict.CheckConsistent, verdict.MsgConsistencyUnbuildable, next.Size, receipt.Cause(tlogError(err)))
			} else if err := checkpoint.Consistent(next, cp, proof); err != nil {
				inconsistent(v, err, verdict.MsgFollowedNotAfter, next.Size, cp.Size)
			} else {
				v.Fail(verdict.CheckConsistent, verdict.MsgRolledBack, next.Size, cp.Size)
			}
			break
		}
		if next.Size == cp.Size {
			if err := checkpoint.Consistent(cp, next, nil); err != nil {
				inconsistent(v, err, verdict.MsgFollowedNotAfter, next.Size, cp.Size)
				break
			}
			continue
		}
		nhr := tlog.TileHashReader(next.Tree(), tr)
		proof, err := tlog.ProveTree(next.Size, cp.Size, nhr)
		if stopped(err) {
			break
		}
		if err != nil {
			// Tiles that do not give the proof are no proof (as in the
			// first pass): the log's tiles are not signed.
			v.Fail(verdict.CheckConsistent, verdict.MsgConsistencyUnbuildable, cp.Size, receipt.Cause(tlogError(err)))
			break
		}
		if err := checkpoint.Consistent(cp, next, proof); err != nil {
			inconsistent(v, err, verdict.MsgFollowedNotExtend, next.Size, cp.Size)
			break
		}
		size = next.Size
		readErr = a.read(ctx, nhr, cp.Size, next)
		if stopped(readErr) {
			readErr = nil
			break
		}
		if readErr != nil {
			break
		}
		if cfg.Last != nil && cfg.Last.Size > 0 && cfg.Last.Size < next.Size {
			// The proof from the trusted checkpoint to the last one
			// followed, for the caller's trust state: made now, while ctx
			// lets the tiles be read. Stopped without it, the audit
			// covers the checkpoint before, whose proof res holds.
			p, err := tlog.ProveTree(next.Size, cfg.Last.Size, nhr)
			if stopped(err) {
				break
			}
			res.Proof = p
		}
		cp, res.Checkpoint, hr = next, next, nhr
		res.Followed++
	}
	if res.Followed > 0 {
		followed(v, cfg.Last, first, cp, res.Followed)
	}
	if readErr != nil {
		readErr = verdict.Errorf(verdict.MsgAuditStopped, res.Records, size, readErr)
		a.stopped = readErr
	}
	a.finish()
	return res, readErr
}

// followed says what an audit that followed the log checked up to its
// end, cp, the last checkpoint followed in full (n of them after first,
// the first audited): the subject, and the checkpoint-signature and
// log-consistency rows that passed, which named first (it said "size 75
// extends the trusted size 66" of an audit up to 84). A row that failed
// as the audit followed (a checkpoint not signed, one that does not
// extend cp) is kept after it.
func followed(v *verdict.Verdict, last, first, cp *checkpoint.Checkpoint, n int) {
	v.SetSubject(verdict.MsgSubjectLogFollowed, cp.Origin, cp.Size, n)
	if c := v.Find(verdict.CheckSignature); c != nil && c.Status == verdict.StatusPass {
		c.Set(verdict.StatusPass, verdict.M(verdict.MsgSame, receipt.CheckpointMsg(cp)))
	}
	switch c := v.Find(verdict.CheckConsistent); {
	case c == nil:
		v.Pass(verdict.CheckConsistent, verdict.MsgFollowedOK, cp.Size, first.Size, n)
	case c.Status == verdict.StatusPass && last != nil:
		c.Set(verdict.StatusPass, verdict.M(verdict.MsgFollowedExtends, cp.Size, last.Size, first.Size, n))
	}
}

// wait is the default Config.Wait.
func wait(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// read audits the entries [from, cp.Size), hashes read through hr (cp's tree).
func (a *auditor) read(ctx context.Context, hr tlog.HashReader, from int64, cp *checkpoint.Checkpoint) error {
	a.now = a.cfg.Now() // cp was fetched before: its records were logged by now
	for start := from / 256 * 256; start < cp.Size; start += 256 {
		if err := ctx.Err(); err != nil {
			return err
		}
		end := min(start+256, cp.Size)
		leaves, err := readBundle(ctx, a.cfg.Fetch, start, end)
		if err != nil {
			return err
		}
		first := max(start, from)
		idx := make([]int64, 0, end-first)
		for i := first; i < end; i++ {
			idx = append(idx, tlog.StoredHashIndex(0, i))
		}
		hashes, err := hr.ReadHashes(idx)
		if err != nil && !strings.Contains(err.Error(), "inconsistent") && !strings.Contains(err.Error(), "malformed") {
			return verdict.Errorf(verdict.MsgAuditTilesRead, first, end-1, err)
		}
		if err != nil {
			// These entries cannot be authenticated: each is left out as
			// an entry that does not match the tree, and the audit reads
			// on (it stopped here, leaving every later entry unaudited
			// under checks that passed over what was read).
			a.entryIssue(verdict.MsgServedTilesMismatch, first, end-1, tilePath(tlog.Tile{H: 8, L: 0, N: start / 256, W: int(end - start)}), receipt.Cause(tlogError(err)))
			for n := first; n < end; n++ {
				a.refused = append(a.refused, uint64(n))
			}
		} else {
			for i, leaf := range leaves[first-start:] {
				n := first + int64(i)
				if tlog.RecordHash(leaf) != hashes[i] {
					a.entryIssue(verdict.MsgServedEntryMismatch, n, tilePath(tlog.Tile{H: 8, L: -1, N: start / 256, W: int(end - start)}))
					a.refused = append(a.refused, uint64(n))
					continue
				}
				a.add(uint64(n), leaf)
			}
		}
		a.res.Records = end
		if a.cfg.Progress != nil {
			a.cfg.Progress(end, cp.Size)
		}
	}
	return nil
}

// Consistency checks, through the log's tiles (authenticated against cp),
// that cp extends last, and records the log-consistency check in v:
// misbehaviour for a fork, a failure when the proof cannot be read.
// It returns the consistency proof checked (for checkpoint.LogState.Advance).
func Consistency(ctx context.Context, f Fetcher, last, cp *checkpoint.Checkpoint, v *verdict.Verdict) tlog.TreeProof {
	tr := &tileReader{ctx: ctx, fetch: f, cache: map[tlog.Tile][]byte{}}
	return consistent(v, last, cp, tlog.TileHashReader(cp.Tree(), tr), tr)
}

// consistent checks the log against the last trusted checkpoint; hr reads
// cp's tree, tr the log's tiles (for a smaller cp, the trusted tree's).
func consistent(v *verdict.Verdict, last, cp *checkpoint.Checkpoint, hr tlog.HashReader, tr tlog.TileReader) tlog.TreeProof {
	var proof tlog.TreeProof
	if last.Size < cp.Size && last.Size > 0 {
		p, err := tlog.ProveTree(cp.Size, last.Size, hr)
		if err != nil {
			v.Fail(verdict.CheckConsistent, verdict.MsgConsistencyUnbuildable, last.Size, receipt.Cause(tlogError(err)))
			return nil
		}
		proof = p
	}
	if cp.Size < last.Size {
		// A smaller checkpoint is no proof by itself (a stale read: a
		// cache, another front end), unless the trusted tree, read from
		// the log's tiles authenticated against the trusted checkpoint,
		// does not extend it: two signed histories (as the follow loop
		// and rngverify receipt --log find them). Tiles that cannot be
		// read leave it stale.
		if cp.Size > 0 {
			if p, err := tlog.ProveTree(last.Size, cp.Size, tlog.TileHashReader(last.Tree(), tr)); err == nil {
				if err := checkpoint.Consistent(cp, last, p); errors.Is(err, checkpoint.ErrFork) {
					inconsistent(v, err, verdict.MsgConsistencyOnlineFork, cp.Size, cp.RootText(), last.Size, last.RootText())
					return nil
				}
			}
		}
		v.Fail(verdict.CheckConsistent, verdict.MsgRolledBack, cp.Size, last.Size)
		return nil
	}
	if err := checkpoint.Consistent(last, cp, proof); err != nil {
		inconsistent(v, err, verdict.MsgSame)
		return nil
	}
	v.Pass(verdict.CheckConsistent, verdict.MsgExtends, cp.Size, last.Size)
	return proof
}

// inconsistent reports err, from checkpoint.Consistent, as the log
// consistency check's id(args…, err): misbehaviour only when err proves a
// fork (verdict.ErrMisbehaviour: two signed checkpoints of one log that no
// append-only log gives both); checkpoints of two logs (another origin)
// prove nothing against either, a failure. The first pass and the
// follow loop share it.
func inconsistent(v *verdict.Verdict, err error, id verdict.MsgID, args ...any) {
	args = append(args, receipt.Cause(err))
	if errors.Is(err, verdict.ErrMisbehaviour) {
		v.Misbehaviour(verdict.CheckConsistent, id, args...)
	} else {
		v.Fail(verdict.CheckConsistent, id, args...)
	}
}

// tlogError names x/mod tlog's errors in the catalog (same English text),
// so that they read in French too.
func tlogError(err error) error {
	return verdict.Named(err, verdict.MsgTlogInconsistentTile, verdict.MsgTlogProofFailed)
}

// fetchTile reads tile t (level −1: the entry bundle), or, when t is
// partial and cannot be read, the full tile, whose first t.W hashes or
// entries are t's: c2sp.org/tlog-tiles lets a log delete a partial tile
// once the full one is available, and tessera's garbage collection does.
// It returns the width of the tile read (t.W or 256). When neither can be
// read, the error is the partial tile's when the full one does not exist
// either (the log is missing t), else the full tile's.
func fetchTile(ctx context.Context, f Fetcher, t tlog.Tile) ([]byte, int, error) {
	b, err := f.Fetch(ctx, tilePath(t))
	if err == nil || t.W == 256 {
		return b, t.W, err
	}
	full := t
	full.W = 256
	b, ferr := f.Fetch(ctx, tilePath(full))
	switch {
	case errors.Is(ferr, fs.ErrNotExist):
		return nil, 0, err
	case ferr != nil:
		return nil, 0, ferr
	}
	return b, full.W, nil
}

// readTile reads hash tile t (level ≥ 0): a partial tile read from the
// full one is the full tile's first t.W hashes, and only a full tile (256
// hashes) is cut. Either way tlog.TileHashReader authenticates the hashes
// against the signed tree hash.
func readTile(ctx context.Context, f Fetcher, t tlog.Tile) ([]byte, error) {
	b, w, err := fetchTile(ctx, f, t)
	if err != nil || w == t.W {
		return b, err
	}
	if len(b) != w*tlog.HashSize {
		return nil, fmt.Errorf("%s: %d bytes, not a full tile of %d", tilePath(tlog.Tile{H: t.H, L: t.L, N: t.N, W: w}), len(b), w*tlog.HashSize)
	}
	return b[:t.W*tlog.HashSize], nil
}

// readBundle reads the entries [start, end) (one bundle; from the full
// bundle, its first end−start entries, when the partial one is gone).
func readBundle(ctx context.Context, f Fetcher, start, end int64) ([][]byte, error) {
	t := tlog.Tile{H: 8, L: -1, N: start / 256, W: int(end - start)}
	path := tilePath(t)
	b, _, err := fetchTile(ctx, f, t)
	if err != nil {
		return nil, verdict.Errorf(verdict.MsgAuditBundleRead, path, err)
	}
	var out [][]byte
	for len(b) > 0 && len(out) < int(end-start) {
		if len(b) < 2 || len(b)-2 < int(binary.BigEndian.Uint16(b)) {
			return nil, verdict.Errorf(verdict.MsgAuditBundleTruncated, path, len(out))
		}
		n := int(binary.BigEndian.Uint16(b))
		out = append(out, b[2:2+n])
		b = b[2+n:]
	}
	if len(out) != int(end-start) {
		return nil, verdict.Errorf(verdict.MsgAuditBundleCount, path, len(out), end-start)
	}
	return out, nil
}

// tilePath is the C2SP path of an x/mod tile (level −1: entry bundle).
func tilePath(t tlog.Tile) string {
	p := strings.TrimPrefix(t.Path(), "tile/8/")
	if rest, ok := strings.CutPrefix(p, "data/"); ok {
		return "tile/entries/" + rest
	}
	return "tile/" + p
}

// TilePath is the C2SP tlog-tiles path of an x/mod tile of height 8 (level
// −1 names the entry bundle).
func TilePath(t tlog.Tile) string { return tilePath(t) }

// tileReader implements tlog.TileReader over a Fetcher, keeping the upper
// levels (read again for every bundle) in memory.
type tileReader struct {
	ctx   context.Context
	fetch Fetcher
	mu    sync.Mutex
	cache map[tlog.Tile][]byte
}

func (r *tileReader) Height() int { return 8 }

func (r *tileReader) ReadTiles(tiles []tlog.Tile) ([][]byte, error) {
	out := make([][]byte, len(tiles))
	for i, t := range tiles {
		r.mu.Lock()
		b, ok := r.cache[t]
		r.mu.Unlock()
		if ok {
			out[i] = b
			continue
		}
		b, err := readTile(r.ctx, r.fetch, t)
		if err != nil {
			return nil, err
		}
		out[i] = b
	}
	return out, nil
}

func (r *tileReader) SaveTiles(tiles []tlog.Tile, data [][]byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i, t := range tiles {
		if t.L > 0 {
			r.cache[t] = data[i]
		}
	}
}

// pending is a game being read.
type pending struct {
	// leaves are its records, each a copy (not a slice of the entry
	// bundle it was read from, which it would keep alive); nil once the
	// game has more records than the rules allow (overlong).
	leaves    [][]byte
	indices   []uint64
	overlong  bool                                // more than maxGameRecords: reported, no longer kept
	key       func(string) (*vrf.PublicKey, bool) // keys announced before its start
	expires   time.Time                           // its start's play deadline
	graceEnds time.Time                           // expires + qod.RefundGrace(start)
	// next is the first record the engine timed logged after the game's
	// last record (zero at: none yet): the log went on. graced is the
	// first one timed at or after expires + MaxRefundGrace (zero at: none
	// yet), when the sweeper owes its expiry.
	next, graced mark
	slot         int // its place in auditor.graces (-1: out of it)
}

// mark is a timed record: its time, its entry and the active log time
// (auditor.active) at it.
type mark struct {
	at     time.Time
	index  uint64
	active time.Duration
}

// graceQueue is a heap (container/heap) of the games not ended whose
// refund grace has not passed, the first to pass it on top.
type graceQueue []*pending

func (q graceQueue) Len() int           { return len(q) }
func (q graceQueue) Less(i, j int) bool { return q[i].graceEnds.Before(q[j].graceEnds) }
func (q graceQueue) Swap(i, j int) {
	q[i], q[j] = q[j], q[i]
	q[i].slot, q[j].slot = i, j
}
func (q *graceQueue) Push(x any) {
	p := x.(*pending)
	p.slot = len(*q)
	*q = append(*q, p)
}
func (q *graceQueue) Pop() any {
	old := *q
	p := old[len(old)-1]
	old[len(old)-1] = nil
	*q = old[:len(old)-1]
	p.slot = -1
	return p
}

// frozenDraw is a promotion draw frozen and not yet drawn.
type frozenDraw struct {
	freeze *record.PromoFreeze
	keys   keyView // the keys announced before the freeze
}

// maxGameRecords is the most records an honest game has: its start, at
// most qod.GoodAt[qod.Tiers-1] picks (the last good number wins at the
// top tier; a losing pick ends the game before it), a decision at each
// tier but the top one (won when reached) and its end. A game with more
// contradicts the rules; the audit reports it and keeps no more of its
// records, so that a log cannot make it hold an open game's leaves
// without bound.
var maxGameRecords = 1 + qod.GoodAt[qod.Tiers-1] + (qod.Tiers - 1) + 1

// keyRing is the VRF keys announced in the log, each with its place in
// the order of announcement. Keys are only added (a key announced again
// is refused), so the keys announced up to some entry are a prefix of
// that order: a keyView, a count, shares the ring instead of copying it.
// A copy per announcement would take time quadratic in the keys a log
// announces, and one list per freeze memory in keys × freezes.
type keyRing struct {
	mu   sync.RWMutex // the reading goroutine adds, workers look up
	keys map[string]ringKey
	// first is the maxIssues smallest ids announced so far, sorted: each
	// change makes a new slice, so that a view keeps the ids of its own
	// keys (the reading goroutine's).
	first []string
}

// ringKey is a key of a keyRing and its place in the order of announcement.
type ringKey struct {
	pk  *vrf.PublicKey
	seq int
}

// add announces key pk under id, which has none yet.
func (r *keyRing) add(id string, pk *vrf.PublicKey) {
	r.mu.Lock()
	r.keys[id] = ringKey{pk: pk, seq: len(r.keys)}
	r.mu.Unlock()
	if i, _ := slices.BinarySearch(r.first, id); i < maxIssues {
		first := slices.Insert(slices.Clone(r.first), i, id)
		r.first = first[:min(len(first), maxIssues)]
	}
}

// has reports whether a key is announced under id.
func (r *keyRing) has(id string) bool {
	_, ok := r.keys[id] // the reading goroutine, which alone writes
	return ok
}

// view is the keys announced so far.
func (r *keyRing) view() keyView { return keyView{ring: r, n: len(r.keys), first: r.first} }

// keyView is the keys of a keyRing announced up to some entry: its first n.
type keyView struct {
	ring  *keyRing
	n     int
	first []string // the maxIssues smallest ids of these keys, sorted
}

// lookup is the key announced under id among the view's keys, if any.
func (v keyView) lookup(id string) (*vrf.PublicKey, bool) {
	v.ring.mu.RLock()
	k, ok := v.ring.keys[id]
	v.ring.mu.RUnlock()
	if !ok || k.seq >= v.n {
		return nil, false
	}
	return k.pk, true
}

type job struct {
	game    string
	g       receipt.Game
	open    *pending      // not ended: its game, read to the end of the log
	latest  time.Time     // not ended: the latest record time of the log
	active  time.Duration // not ended: the log's active time at its end
	promo   *record.PromoDraw
	freeze  *record.PromoFreeze
	drawIdx uint64
	key     func(string) (*vrf.PublicKey, bool) // keys announced before the freeze
	// unbound: for a freeze that names no key (logged before freezes
	// named their key) with several announced before it, their number
	// and the first ids (keyView.first); 0 otherwise.
	unbound  int
	unboundF []string
	// refused is an entry refused (not matching the tree) after the
	// game's start and before its last record (an open game: anywhere
	// after its start), which may be one of its records; -1: none.
	refused int64
}

// emission is an emission's first record.
type emission struct {
	index   uint64
	closure string
	claimed time.Time // the record's start deadline
	dead    time.Time // the rules' start deadline (art. 2.2.4)
}

// gameKey names a game id in auditor.started: the first 16 bytes of its
// SHA-256. A collision could only report a game id as reused when it is not
// (a false alarm, about 2^-128 per pair), never hide a reuse.
type gameKey [16]byte

func keyOf(game string) gameKey {
	h := sha256.Sum256([]byte(game))
	return gameKey(h[:16])
}

// firstLeaf is the first record logged for an id: its entry and leaf hash.
type firstLeaf struct {
	index uint64
	hash  [32]byte
}

// announced is a VRF key's first announcement in the log.
type announced struct {
	suite vrf.Suite
	id    string
	index uint64
}

// auditor consumes entries in order.
//
// Ids are unique in a log: an emission is registered once (rngd refuses a
// second registration), a game id is drawn at random and started once, a
// promotion draw is frozen once and drawn once. The auditor keeps every id
// it has seen, with the entry that introduced it; a repeat is misbehaviour
// and the first record stays the one that counts. Two repeats are accepted,
// as they change nothing the audit relies on: an emission record whose
// closure and start deadline are those of the first (a registration whose
// log append failed may have reached the log unacknowledged before the
// operator registered the emission again: same content, a later time), and
// a freeze or draw record repeated byte for byte (an older rngd/promo re-sent
// a record whose append was not acknowledged, and the log kept both).
type auditor struct {
	cfg       Config
	v         *verdict.Verdict
	res       *Result
	keys      *keyRing             // the VRF keys announced so far
	keyBad    issueList            // key announcements refused
	keyMisb   issueList            // key announcements that are misbehaviour
	suites    map[string]announced // VRF key fingerprint → its first announcement
	emissions map[string]*emission
	tickets   map[[32]byte]played // ticket hash → the game it played
	quits     map[[32]byte]quit   // ticket hash → its first ticket_quit
	manifest  map[string]uint64   // emission → tickets in its manifests logged so far
	starts    map[string]uint64   // emission → games started so far
	plays     map[string]uint64   // emission → tickets started or quit so far
	started   map[gameKey]uint64  // every game started → its start's entry
	games     map[string]*pending
	frozen    map[string]firstLeaf  // every draw frozen → its freeze
	drawn     map[string]firstLeaf  // every draw drawn → its draw
	freezes   map[string]frozenDraw // draws frozen, not drawn yet
	kinds     map[record.Kind]int
	attKeys   attestationKeys               // the reading goroutine's
	given     []*givenRules                 // Config.Rules, parsed, in the order given
	rules     map[string]*givenRules        // Config.Rules by hash
	ruled     map[string]ruledFreeze        // draws frozen under rules given, not checked yet
	unruled   map[string]*unruled           // rules hash ("" none) → freezes under rules not given
	manifests []*Manifest                   // Config.Manifests, each once, in the order given
	byRoot    map[[32]byte]*Manifest        // Config.Manifests by root
	matched   map[*Manifest]uint64          // files given → the entry of the first record with their root
	mans      map[string]*emissionManifests // emission → its manifests (with Config.Manifests)
	// Record times (timed): the latest time of a record the engine timed,
	// its entry and kind; the game whose record was the last such one.
	latest     time.Time
	latestIdx  uint64
	latestKind record.Kind
	touched    *pending
	// Active log time (tick): the sum of the gaps between timed records,
	// each counted up to MaxActiveGap, and the time it has counted up to.
	active     time.Duration
	activeAt   time.Time
	graces     graceQueue    // games not ended, by the end of their refund grace
	now        time.Time     // the auditor's clock when the checkpoint read was fetched
	timeBad    int           // records timed against log order, or after now
	timeIssues []verdict.Msg // the first maxIssues of them

	jobs chan job
	wg   sync.WaitGroup
	mu   sync.Mutex // guards the fields below and res.Stats, res.Games, res.Proofs
	// issues per check name.
	issues   map[string][]verdict.Msg
	misbehav map[string]bool
	counts   map[string]int
	// drawProofs counts the promotion draws' VRF proofs verified: in
	// res.Proofs, but not the games'.
	drawProofs int
	// stopped, when set, is why the audit stopped before the end of the
	// checkpoint it read (Run's error): the entries check fails with it,
	// and a check that checked nothing says so, not that all was well.
	stopped  error
	entryBad issueList // entries that do not match the tree
	recBad   issueList // malformed records
	recNew   issueList // records of a version or kind this verifier does not know
	// refused are the entries that do not match the tree, in log order
	// (the reading goroutine's, as entryBad): left out, they may be
	// records of a game, whose chain then breaks through no fault of the
	// appliance.
	refused []uint64
	// uncommitted are the promotion draws that pass with a beacon round
	// whose freeze holds no share commitment (logged before freezes held
	// one), by entry.
	uncommitted []drawEntry
	// unbound are the promotion freezes that bind no input files (logged
	// before freezes bound them), by entry.
	unbound []drawEntry
}

// drawEntry is a promotion draw record: its draw id and log entry.
type drawEntry struct {
	draw  string
	entry uint64
}

// issueList counts problems of one kind and keeps the first maxIssues of
// them: the verdict shows no more, and a hostile log can have one in
// every entry.
type issueList struct {
	n     int
	first []verdict.Msg
}

// add counts a problem, keeping its message if it is among the first.
func (l *issueList) add(m verdict.Msg) {
	l.n++
	if len(l.first) < maxIssues {
		l.first = append(l.first, m)
	}
}

func newAuditor(cfg Config, v *verdict.Verdict, res *Result) *auditor {
	a := &auditor{cfg: cfg, v: v, res: res, keys: &keyRing{keys: map[string]ringKey{}}, suites: map[string]announced{}, emissions: map[string]*emission{},
		games: map[string]*pending{}, tickets: map[[32]byte]played{}, quits: map[[32]byte]quit{}, manifest: map[string]uint64{}, starts: map[string]uint64{}, plays: map[string]uint64{}, started: map[gameKey]uint64{},
		frozen: map[string]firstLeaf{}, drawn: map[string]firstLeaf{}, freezes: map[string]frozenDraw{}, kinds: map[record.Kind]int{},
		rules: map[string]*givenRules{}, ruled: map[string]ruledFreeze{}, unruled: map[string]*unruled{},
		byRoot: map[[32]byte]*Manifest{}, matched: map[*Manifest]uint64{}, mans: map[string]*emissionManifests{},
		jobs: make(chan job, 4*cfg.Workers), issues: map[string][]verdict.Msg{}, misbehav: map[string]bool{}, counts: map[string]int{}}
	for range cfg.Workers {
		a.wg.Add(1)
		go func() {
			defer a.wg.Done()
			for j := range a.jobs {
				a.run(j)
			}
		}()
	}
	return a
}

func (a *auditor) entryIssue(id verdict.MsgID, args ...any) {
	a.entryBad.add(verdict.M(id, args...))
}

// keyring returns the lookup of the keys announced so far: a job holds
// the keys announced before its game started (a promotion draw: before
// its freeze), not those the reading goroutine adds after.
func (a *auditor) keyring() func(string) (*vrf.PublicKey, bool) {
	return a.keys.view().lookup
}

// add reads one authenticated entry.
func (a *auditor) add(index uint64, leaf []byte) {
	r, err := record.Parse(leaf)
	if err != nil {
		if errors.Is(err, record.ErrVersion) || errors.Is(err, record.ErrUnknownKind) {
			a.recNew.add(verdict.M(verdict.MsgEntry, index, receipt.Cause(err)))
			return
		}
		a.recBad.add(verdict.M(verdict.MsgEntry, index, receipt.Cause(err)))
		return
	}
	a.kinds[r.Kind()]++
	a.timed(index, r)
	switch x := r.(type) {
	case *record.KeyAnnouncement:
		a.attKeys.announced(x)
		for _, k := range x.Keys {
			if k.Use != "vrf" {
				continue
			}
			pk, err := announce.VRFKey(k)
			if err != nil {
				a.keyBad.add(verdict.M(verdict.MsgEntryKey, index, k.ID, receipt.Cause(err)))
				continue
			}
			s := pk.Suite()
			fp := record.Hex(k.Fingerprint)
			// One P-256 key proves under ECVRF-P256-SHA256-TAI and -SSWU,
			// with two outputs for one α. The log announcing the same
			// bytes under two suites (under two ids: one id twice is
			// MsgEntryKeyAgain below) is misbehaviour, shown by the log
			// alone: an honest rngd announces its key with the one suite
			// its keystore made it for, and a key is never made again
			// under the other suite (rngctl keys init makes a new key);
			// the announcement itself lets the appliance draw a game, or
			// a promotion, under whichever id gives the output it
			// prefers. The first announcement counts: the second key is
			// not added (its draws fail as under a key not announced).
			if f, seen := a.suites[fp]; seen && f.suite != s {
				a.keyMisb.add(verdict.M(verdict.MsgEntryKeyTwoSuites, index, k.ID, k.Suite, fp, f.index, f.id, string(f.suite)))
				continue
			} else if !seen {
				a.suites[fp] = announced{suite: s, id: k.ID, index: index}
			}
			if ok, other := a.pinned(s, fp); !ok {
				if other != "" {
					a.keyBad.add(verdict.M(verdict.MsgEntryKeyOtherSuite, index, k.ID, fp, k.Suite, string(other)))
				} else {
					a.keyBad.add(verdict.M(verdict.MsgEntryKeyNotPinned, index, k.ID, fp))
				}
				continue
			}
			if a.keys.has(k.ID) {
				a.keyBad.add(verdict.M(verdict.MsgEntryKeyAgain, index, k.ID))
				continue
			}
			a.keys.add(k.ID, pk)
			a.v.Fact("vrf key", verdict.MsgVRFKeyEntry, k.ID, k.Suite, fp, index)
		}
	case *record.Emission:
		if e, dup := a.emissions[x.Emission]; dup {
			// The first record counts; the same registration again is
			// harmless (see auditor), another closure or deadline is not.
			if x.Closure != e.closure || !x.StartDeadline.Equal(e.claimed) {
				a.issue(verdict.CheckGames, true, verdict.MsgEmissionAgain, x.Emission, index, x.Closure,
					x.StartDeadline.UTC().Format(time.RFC3339), e.index, e.closure, e.claimed.UTC().Format(time.RFC3339))
			}
			return
		}
		// Its start deadline is the rules' (art. 2.2.4), not what the
		// record claims; the games are checked against the rules' one.
		e := &emission{index: index, closure: x.Closure, claimed: x.StartDeadline, dead: x.StartDeadline}
		a.emissions[x.Emission] = e
		if err := qod.CheckEmission(x, a.cfg.Location); err != nil {
			a.issue(verdict.CheckGames, true, verdict.MsgEmissionBad, index, receipt.Cause(err))
			if d, err := qod.StartDeadline(x.Closure, a.cfg.Location); err == nil {
				e.dead = d
			}
		}
	case *record.GameStart:
		k := keyOf(x.Game)
		if first, dup := a.started[k]; dup {
			a.issue(verdict.CheckGames, true, verdict.MsgGameIDAgain, x.Game, index, first)
			if _, playing := a.games[x.Game]; playing {
				return // its records cannot be told from the first game's
			}
			// The first game ended: this one is audited as a game of its own.
		} else {
			a.started[k] = index
		}
		// A ticket code plays once (art. 2.2.4), in an emission registered
		// before. The ticket is the hash of the code alone, which belongs
		// to one emission (rngd keeps its tickets by hash, and imports a
		// hash once whatever the emission): the same hash under two
		// emissions is the same code played twice.
		if first, again := a.tickets[x.Ticket]; again {
			if first.emission == x.Emission {
				a.issue(verdict.CheckGames, true, verdict.MsgTicketReplayed, x.Game, index, first.game)
			} else {
				a.issue(verdict.CheckGames, true, verdict.MsgTicketOtherEmission, x.Game, index, x.Emission, first.game, first.emission)
			}
		}
		// A ticket quit never starts stage 2 (art. 2.2.3: QUITTER
		// renounces it). The quit is the ticket's, whatever its emission.
		if q, quit := a.quits[x.Ticket]; quit {
			a.issue(verdict.CheckGames, true, verdict.MsgAuditStartAfterQuit, x.Game, index, q.index)
		}
		if _, again := a.tickets[x.Ticket]; !again {
			a.tickets[x.Ticket] = played{game: x.Game, emission: x.Emission, index: index}
		}
		if _, ok := a.emissions[x.Emission]; !ok {
			a.missing(verdict.CheckGames, verdict.M(verdict.MsgEmissionUnregistered, x.Game, index, x.Emission))
		}
		// rngd starts only a code of a manifest it imported, and logs the
		// manifest before it takes any of its codes: an emission cannot
		// start more games than its manifests logged before hold tickets,
		// nor start and quit more tickets than that.
		a.starts[x.Emission]++
		a.plays[x.Emission]++
		if n, m := a.starts[x.Emission], a.manifest[x.Emission]; n > m {
			a.missing(verdict.CheckGames, verdict.M(verdict.MsgAuditStartUnmanifested, x.Game, index, n, x.Emission, m))
		} else if n, m := a.plays[x.Emission], a.manifest[x.Emission]; n > m {
			a.missing(verdict.CheckGames, verdict.M(verdict.MsgAuditPlaysUnmanifested, index, verdict.Term(x.Kind()), x.Emission, n, m))
		}
		// Its ticket and S against the manifest files given.
		a.manifestStart(index, x)
		// Its draws count under the keys announced before it started (as
		// a transcript's): a key announced later could have been made for
		// one draw.
		p := &pending{leaves: [][]byte{bytes.Clone(leaf)}, indices: []uint64{index}, key: a.keyring(), expires: x.Expires, graceEnds: x.Expires.Add(qod.RefundGrace(x.Time))}
		a.games[x.Game] = p
		a.touched = p
		heap.Push(&a.graces, p)
	case *record.TicketQuit:
		a.ticketQuit(index, x)
	case *record.Manifest:
		a.manifest[x.Emission] += x.Count
		a.manifestRecord(index, x)
	case *record.Pick, *record.Decision, *record.GameEnd:
		gid := x.(record.GameRecord).GameID()
		p, ok := a.games[gid]
		if !ok {
			orphan := verdict.M(verdict.MsgOrphanRecord, index, verdict.Term(x.Kind()), gid)
			if n := len(a.refused); n > 0 {
				// Its start may be an entry refused before it.
				a.issue(verdict.CheckGames, false, verdict.MsgSame, notProven(int64(a.refused[n-1]), orphan))
				return
			}
			a.issue(verdict.CheckGames, true, verdict.MsgSame, orphan)
			return
		}
		_, end := x.(*record.GameEnd)
		switch {
		case p.overlong:
		case len(p.leaves) == maxGameRecords:
			// No honest game has this record: the game is misbehaviour
			// whatever its records say, and its leaves are let go (an
			// open game would otherwise keep every record the log gives
			// it, to the end of the audit).
			p.overlong, p.leaves, p.indices = true, nil, nil
			a.issue(verdict.CheckGames, true, verdict.MsgGameCheck, gid, verdict.CheckRules,
				verdict.M(verdict.MsgAuditGameTooLong, index, maxGameRecords, qod.GoodAt[qod.Tiers-1], qod.Tiers-1))
		default:
			// A copy: the leaf is a slice of its entry bundle, which it
			// would keep alive as long as the game is open.
			p.leaves, p.indices = append(p.leaves, bytes.Clone(leaf)), append(p.indices, index)
		}
		if end {
			delete(a.games, gid)
			if p.slot >= 0 {
				heap.Remove(&a.graces, p.slot)
			}
			if !p.overlong {
				a.submit(gid, p, true)
			}
			return
		}
		p.next, a.touched = mark{}, p
	case *record.Attestation:
		a.attestation(index, x)
	case *record.PromoFreeze:
		// A draw is frozen once: a second freeze would let the appliance
		// draw again (a re-roll) or swap the list or commitment drawn on.
		if first, dup := a.frozen[x.Draw]; dup {
			if first.hash != record.LeafHash(leaf) {
				a.issue(verdict.CheckPromotions, true, verdict.MsgFreezeAgain, x.Draw, index, first.index)
			}
			return // the first freeze stays the one its draw must match
		}
		a.frozen[x.Draw] = firstLeaf{index, record.LeafHash(leaf)}
		if x.Inputs == ([32]byte{}) {
			a.unbound = append(a.unbound, drawEntry{x.Draw, index})
		}
		// Its draw counts under the keys announced before the freeze (as
		// a certificate's), and only under the one it names: bound before
		// the bailiff's share exists, the key cannot be chosen once the
		// share is known to get the ranking the appliance prefers. A
		// freeze of an older rngd names none: its draw can only be under
		// a key announced before it, which settles it when there is one;
		// with several, nothing shows the key was not chosen (runPromo).
		a.freezes[x.Draw] = frozenDraw{freeze: x, keys: a.keys.view()}
		a.matchRules(index, x)
	case *record.PromoDraw:
		if first, dup := a.drawn[x.Draw]; dup {
			if first.hash != record.LeafHash(leaf) {
				a.issue(verdict.CheckPromotions, true, verdict.MsgDrawAgain, x.Draw, index, first.index)
			}
			return
		}
		a.drawn[x.Draw] = firstLeaf{index, record.LeafHash(leaf)}
		if r, ok := a.ruled[x.Draw]; ok {
			// The ceremony's time is the draw record's, sealed in the log.
			delete(a.ruled, x.Draw)
			a.checkRules(r, x.Time)
		}
		f, ok := a.freezes[x.Draw]
		if !ok {
			a.missing(verdict.CheckPromotions, verdict.M(verdict.MsgDrawNoFreeze, index, x.Draw))
			return
		}
		delete(a.freezes, x.Draw)
		j := job{promo: x, freeze: f.freeze, drawIdx: index, key: f.keys.lookup}
		if f.freeze.Key == "" && f.keys.n > 1 {
			j.unbound, j.unboundF = f.keys.n, f.keys.first
		}
		a.jobs <- j
	}
}

// pinned reports whether Config.VRFPins accept the key with fingerprint fp
// announced under suite s (all do when there are no pins): a suite pin of
// fp with s, or else a bare pin of fp when no suite pin of fp names
// another suite — then other is that suite (as
// receipt.Anchors.VRFTrusted).
func (a *auditor) pinned(s vrf.Suite, fp string) (ok bool, other vrf.Suite) {
	if len(a.cfg.VRFPins) == 0 {
		return true, ""
	}
	bare := false
	for _, p := range a.cfg.VRFPins {
		ps, f, err := receipt.ParsePin(p)
		switch {
		case err != nil || !strings.EqualFold(f, fp):
		case ps == s:
			return true, ""
		case ps == "":
			bare = true
		default:
			other = ps
		}
	}
	return bare && other == "", other
}

func (a *auditor) submit(gid string, p *pending, ended bool) {
	start, _ := record.Parse(p.leaves[0])
	g := receipt.Game{Leaves: p.leaves, Indices: p.indices, Key: p.key, Location: a.cfg.Location}
	if s, ok := start.(*record.GameStart); ok {
		if e := a.emissions[s.Emission]; e != nil {
			g.StartDeadline = e.dead
		}
	}
	j := job{game: gid, g: g, refused: a.refusedAfter(p.indices[0])}
	if ended && j.refused >= int64(p.indices[len(p.indices)-1]) {
		j.refused = -1
	}
	if !ended {
		j.open, j.latest, j.active = p, a.latest, a.active
	}
	a.jobs <- j
}

// missing records finding, a record the log lacks before the entry being
// read (an emission, a manifest, a freeze): misbehaviour, unless an entry
// was refused before it (not matching the signed tree, left out), which
// may be that record: then a failure, not proof.
func (a *auditor) missing(check string, finding verdict.Msg) {
	if n := len(a.refused); n > 0 {
		a.issue(check, false, verdict.MsgNotProof, verdict.M(verdict.MsgWhyRecordRefused, a.refused[n-1]), finding)
		return
	}
	a.issue(check, true, verdict.MsgSame, finding)
}

// refusedAfter is the first entry refused after entry i, or -1.
func (a *auditor) refusedAfter(i uint64) int64 {
	k, _ := slices.BinarySearch(a.refused, i+1)
	if k == len(a.refused) {
		return -1
	}
	return int64(a.refused[k])
}

// notProven is why a finding resting on a game's records read without the
// refused entry n proves nothing: n may be one of them.
func notProven(n int64, finding verdict.Msg) verdict.Msg {
	return verdict.M(verdict.MsgNotProof, verdict.M(verdict.MsgWhyEntryRefused, n), finding)
}

// played is the game a ticket played, its emission and its start's entry.
type played struct {
	game, emission string
	index          uint64
}

// quit is a ticket's first ticket_quit: its entry.
type quit struct{ index uint64 }

// ticketQuit reads a ticket_quit (entry index): the player's QUITTER (art.
// 2.2.3), which excludes CONTINUER. A ticket started (before or after) or
// quit before is misbehaviour: rngd refuses a quit of a ticket started
// (TICKET_STARTED), a start of a ticket quit and a second quit (TICKET_QUIT;
// the same call retried gets its first reply, no second record). The quit
// keeps S, a gain of the prize table, of a manifest of an emission
// registered before, as a start's S (manifestPlay).
func (a *auditor) ticketQuit(index uint64, x *record.TicketQuit) {
	if q, again := a.quits[x.Ticket]; again {
		a.issue(verdict.CheckGames, true, verdict.MsgAuditQuitAgain, index, x.Ticket[:], q.index)
	} else {
		a.quits[x.Ticket] = quit{index: index}
	}
	if p, started := a.tickets[x.Ticket]; started {
		a.issue(verdict.CheckGames, true, verdict.MsgAuditQuitAfterStart, index, x.Ticket[:], p.game, p.index)
	}
	if err := qod.CheckStake(x.Stake); err != nil {
		a.issue(verdict.CheckGames, true, verdict.MsgAuditQuitBad, index, receipt.Cause(err))
	}
	if _, ok := a.emissions[x.Emission]; !ok {
		a.missing(verdict.CheckGames, verdict.M(verdict.MsgAuditQuitUnregistered, index, x.Emission))
	}
	a.plays[x.Emission]++
	if n, m := a.plays[x.Emission], a.manifest[x.Emission]; n > m {
		a.missing(verdict.CheckGames, verdict.M(verdict.MsgAuditPlaysUnmanifested, index, verdict.Term(x.Kind()), x.Emission, n, m))
	}
	a.manifestQuit(index, x)
}

// engineTime is the time of a record that rngd's engine, or the promotion
// appliance (rngd/promo), times when it appends it (see MaxTimeSkew); ok
// is false for the other kinds (a key announcement is timed when its keys
// are made). A freeze's time is what the beacon round must be published
// after: timed like the others, a freeze dated back, before records logged
// before it, is reported, not trusted.
func engineTime(r record.Record) (t time.Time, ok bool) {
	switch x := r.(type) {
	case *record.PromoFreeze:
		return x.Time, true
	case *record.PromoDraw:
		return x.Time, true
	case *record.Emission:
		return x.Time, true
	case *record.Manifest:
		return x.Time, true
	case *record.GameStart:
		return x.Time, true
	case *record.TicketQuit:
		return x.Time, true
	case *record.Pick:
		return x.Time, true
	case *record.Decision:
		return x.Time, true
	case *record.GameEnd:
		return x.Time, true
	}
	return time.Time{}, false
}

// timed checks the time of record r (entry index) against the records
// the engine timed logged before it, counts active log time, and marks
// the log going on after the game last touched (pending.next) and past the
// refund grace of games not ended (pending.graced).
func (a *auditor) timed(index uint64, r record.Record) {
	t, ok := engineTime(r)
	if !ok {
		return
	}
	a.tick(t)
	at := mark{t, index, a.active}
	if a.touched != nil {
		a.touched.next = at
		a.touched = nil
	}
	for len(a.graces) > 0 && !t.Before(a.graces[0].graceEnds) {
		heap.Pop(&a.graces).(*pending).graced = at
	}
	bad := false // a record back and ahead counts once, with both issues
	if !a.latest.IsZero() && a.latest.Sub(t) > a.cfg.TimeSkew {
		bad = true
		if len(a.timeIssues) < maxIssues {
			a.timeIssues = append(a.timeIssues, verdict.M(verdict.MsgAuditTimeOrder, index, verdict.Term(r.Kind()), promo.FormatTime(t),
				a.cfg.TimeSkew, a.latestIdx, verdict.Term(a.latestKind), promo.FormatTime(a.latest)))
		}
	}
	if t.Sub(a.now) > a.cfg.TimeSkew {
		bad = true
		if len(a.timeIssues) < maxIssues {
			a.timeIssues = append(a.timeIssues, verdict.M(verdict.MsgAuditTimeAhead, index, verdict.Term(r.Kind()), promo.FormatTime(t),
				a.cfg.TimeSkew, promo.FormatTime(a.now)))
		}
	}
	if bad {
		a.timeBad++
	}
	if t.After(a.latest) {
		a.latest, a.latestIdx, a.latestKind = t, index, r.Kind()
	}
}

// tick advances the active log time to the record time t: by the gap
// since the time counted up to, at most MaxActiveGap. Times a little back
// (within TimeSkew: concurrent calls' records) add nothing, so that active
// time follows the log's latest time, not its jitter. A record further
// back, a failure of the record check, restarts the count from it: a
// record dated far ahead, then, adds at most MaxActiveGap and does not
// stop the clock for the records after it.
func (a *auditor) tick(t time.Time) {
	switch d := t.Sub(a.activeAt); {
	case a.activeAt.IsZero():
		a.activeAt = t
	case d > 0:
		a.active += min(d, MaxActiveGap)
		a.activeAt = t
	case -d > a.cfg.TimeSkew:
		a.activeAt = t
	}
}

// span is a duration as the verdict shows it, in the largest unit that
// divides it (days, hours, minutes, else seconds).
func span(d time.Duration) verdict.Msg {
	units := []struct {
		unit       time.Duration
		one, other verdict.MsgID
	}{
		{24 * time.Hour, verdict.MsgSpanDay, verdict.MsgSpanDays},
		{time.Hour, verdict.MsgSpanHour, verdict.MsgSpanHours},
		{time.Minute, verdict.MsgSpanMinute, verdict.MsgSpanMinutes},
		{time.Second, verdict.MsgSpanSecond, verdict.MsgSpanSeconds},
	}
	d = d.Round(time.Second)
	u := units[len(units)-1]
	for _, c := range units {
		if d%c.unit == 0 {
			u = c
			break
		}
	}
	if n := int64(d / u.unit); n != 1 {
		return verdict.M(u.other, n)
	}
	return verdict.M(u.one)
}

// unsealed checks a game the log does not end (j.open), whose records
// verify (p): over, its end must follow within EndDelay of log activity
// after the game's last record; unfinished, within EndDelay of log
// activity after its play deadline plus MaxRefundGrace. Either is a
// failure, not misbehaviour: a missing record contradicts no record (the
// appliance may yet append it; an honest one that lost r cannot seal a
// lost or won game, and says so), but the audit cannot pass a game whose
// draws decided an outcome that no one can verify until its end is
// logged, nor one the appliance left open past every deadline. (A game
// ended without r, SecretLost, differs: ended by refund or expiry, no draw
// decided anything.)
func (a *auditor) unsealed(j job, p *receipt.Played) {
	o := j.open
	switch {
	case p.Final.Phase.Over():
		if !o.next.at.IsZero() && j.active-o.next.active > EndDelay {
			a.issue(verdict.CheckGames, false, verdict.MsgAuditEndMissing, j.game, verdict.Term(p.Final.Phase.String()),
				o.indices[len(o.indices)-1], span(EndDelay), o.next.index, promo.FormatTime(o.next.at), promo.FormatTime(j.latest), span(MaxActiveGap))
		}
	case p.Final.Phase != 0 && !o.graced.at.IsZero() && j.active-o.graced.active > EndDelay:
		a.issue(verdict.CheckGames, false, verdict.MsgAuditNeverSealed, j.game, o.indices[0], promo.FormatTime(o.expires), span(o.graceEnds.Sub(o.expires)),
			span(EndDelay), o.graced.index, promo.FormatTime(o.graced.at), promo.FormatTime(j.latest), span(MaxActiveGap))
	}
}

// issue records a problem for a check (kept up to maxIssues).
func (a *auditor) issue(check string, misbehaviour bool, id verdict.MsgID, args ...any) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.counts[check]++
	if misbehaviour {
		a.misbehav[check] = true
	}
	if len(a.issues[check]) < maxIssues {
		a.issues[check] = append(a.issues[check], verdict.M(id, args...))
	}
}

// run verifies one game or promotion draw (on a worker).
func (a *auditor) run(j job) {
	if j.promo != nil {
		a.runPromo(j)
		return
	}
	v := verdict.New("game", verdict.MsgSame, j.game)
	p := receipt.CheckGame(v, j.g)
	proofs := 0
	if c := v.Find(verdict.CheckVRFProof); c != nil && c.Status == verdict.StatusPass && c.Message != nil && c.Message.ID == verdict.MsgProofs {
		proofs, _ = c.Message.Args[0].(int)
	}
	lost := secretLostOnly(v)
	if c := v.First(); c != nil && lost {
		// Ended, refund or expiry, with r lost by the appliance: its
		// draws cannot be checked, and nothing contradicts anything.
		a.mu.Lock()
		a.res.SecretLost++
		a.mu.Unlock()
	} else if c != nil {
		why := verdict.M(verdict.NoDetail)
		if c.Message != nil {
			why = *c.Message
		}
		misbehaviour := c.Status == verdict.StatusMisbehaviour
		if misbehaviour && j.refused >= 0 {
			why, misbehaviour = notProven(j.refused, why), false
		}
		a.issue(verdict.CheckGames, misbehaviour, verdict.MsgGameCheck, j.game, c.Name, why)
	} else if j.open != nil && p != nil {
		a.unsealed(j, p)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.res.Games++
	a.res.Proofs += proofs
	// A game that lost r counts as a game still open does (proofs
	// unchecked, outcomes checked from β): it ended refunded or expired,
	// never on a losing pick, so leaving it out would bias the losing
	// frequencies upwards.
	if p != nil && (v.Status() == verdict.StatusPass || lost) {
		a.res.Stats.add(p)
	}
}

// secretLostOnly reports a game verdict whose only failure is the secret
// the appliance lost (receipt.CheckGame: commitment failed with
// MsgSecretLost, vrf-proof skipped).
func secretLostOnly(v *verdict.Verdict) bool {
	lost := false
	for _, c := range v.Checks {
		switch {
		case c.Status == verdict.StatusPass || c.Status == verdict.StatusSkip:
		case c.Status == verdict.StatusFail && c.Name == verdict.CheckCommitment && c.Message != nil && c.Message.ID == verdict.MsgSecretLost:
			lost = true
		default:
			return false
		}
	}
	return lost
}

func (a *auditor) runPromo(j job) {
	d, f := j.promo, j.freeze
	fail := func(id verdict.MsgID, args ...any) {
		a.issue(verdict.CheckPromotions, true, verdict.MsgDrawIssue, d.Draw, j.drawIdx, verdict.M(id, args...))
	}
	fl, _ := record.Format(f)
	switch {
	case d.Prev != record.LeafHash(fl):
		fail(verdict.MsgDrawNoLink)
		return
	case d.Root != f.Root || d.Count != f.Count || d.Winners != f.Winners || d.Reserves != f.Reserves || d.Commit != f.Commit:
		fail(verdict.MsgDrawFields)
		return
	case record.Commit(d.Secret) != f.Commit:
		fail(verdict.MsgDrawCommit)
		return
	case d.Beacon != f.Beacon:
		fail(verdict.MsgDrawBeacon)
		return
	case f.Key != "" && d.Key != f.Key:
		// Under another key announced before the freeze, the same α
		// has another β: the appliance would have chosen the winner.
		fail(verdict.MsgDrawKeyNotFrozen, d.Key, f.Key)
		return
	}
	if err := promo.VerifyShareCommitment(f, string(d.Share)); err != nil {
		// The bailiff committed to the share at the freeze, before the
		// beacon round was published; the appliance refuses another, and
		// a freeze timed from promo.ShareCommitmentsRequired on without one.
		a.issue(verdict.CheckPromotions, true, verdict.MsgDrawIssue, d.Draw, j.drawIdx, receipt.Cause(err))
		return
	}
	// A freeze that names no key, with several announced before it: the
	// draw cannot be shown unsteered. Not proof of misbehaviour (an older
	// rngd drew with the key it ran on, and a rotation before the freeze
	// was allowed), but the draw does not pass; the rest is still checked.
	steered := j.unbound > 0
	if steered {
		ids := quoteIDs(j.unboundF)
		if j.unbound > len(j.unboundF) {
			ids += ", …"
		}
		a.issue(verdict.CheckPromotions, false, verdict.MsgDrawIssue, d.Draw, j.drawIdx,
			verdict.M(verdict.MsgDrawKeyUnbound, j.unbound, ids))
	}
	b, err := promo.VerifyBeacon(f.Beacon, d.BeaconValue)
	if err == nil && b.Verified() {
		// The round must have been unknown at the freeze: the certificate's
		// rule (beacon.Chain.PublishedAfter).
		err = b.Chain.PublishedAfter(b.Round, f.Time)
	}
	if err != nil {
		// A free-text beacon (an older rngd's freeze) or a drand chain
		// this verifier does not pin: not verifiable, but nothing in the
		// records contradicts anything.
		var me *verdict.MsgError
		if errors.As(err, &me) && (me.Msg.ID == verdict.MsgBeaconFreeText || me.Msg.ID == verdict.MsgBeaconChainUnpinned) {
			a.issue(verdict.CheckPromotions, false, verdict.MsgDrawIssue, d.Draw, j.drawIdx, receipt.Cause(err))
			return
		}
		fail(verdict.MsgSame, receipt.Cause(err))
		return
	}
	pk, ok := j.key(d.Key)
	if !ok {
		a.issue(verdict.CheckPromotions, false, verdict.MsgDrawKeyUnannounced, d.Draw, d.Key)
		return
	}
	beta, err := vrf.Verify(pk, d.Alpha(), d.Proof)
	if err != nil || string(beta) != string(d.Beta) {
		fail(verdict.MsgDrawProof, d.Key)
		return
	}
	idx, err := promo.Picks(beta, d.Winners+d.Reserves, d.Count)
	if err != nil || len(idx) != len(d.Ranking) {
		fail(verdict.MsgRankingWrong, d.Ranking, idx)
		return
	}
	for i := range idx {
		if uint64(idx[i]) != d.Ranking[i] {
			fail(verdict.MsgRankingWrong, d.Ranking, idx)
			return
		}
	}
	a.mu.Lock()
	if !steered {
		a.counts["promo-ok"]++
	}
	if b.Verified() && f.ShareCommitment == [32]byte{} {
		// Verified, but the share was not fixed before the round was
		// published: said beside the verdict (finish).
		a.uncommitted = append(a.uncommitted, drawEntry{d.Draw, j.drawIdx})
	}
	a.res.Proofs++
	a.drawProofs++
	a.mu.Unlock()
}

// quoteIDs quotes key ids, joined with ", ".
func quoteIDs(ids []string) string {
	q := make([]string, len(ids))
	for i, id := range ids {
		q[i] = strconv.Quote(id)
	}
	return strings.Join(q, ", ")
}

// finish verifies the unfinished games, waits for the workers and writes the checks.
func (a *auditor) finish() {
	ids := make([]string, 0, len(a.games))
	for id := range a.games {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		if !a.games[id].overlong { // reported when it went past the rules
			a.submit(id, a.games[id], false)
		}
	}
	close(a.jobs)
	a.wg.Wait()
	v := a.v

	var why []verdict.Msg // the entries check's failures
	if a.stopped != nil {
		// Not "N entries match the signed tree" of the entries read (the
		// caller added the failure as a second entries row).
		why = append(why, receipt.Cause(a.stopped))
	}
	if a.entryBad.n > 0 {
		// Entry bundles and hash tiles are not signed: bytes that do not
		// match the signed checkpoint are the server's, a mirror's or the
		// transport's, never proof against the appliance (docs/verifier.md,
		// Misbehaviour needs records proven to be the appliance's).
		why = append(why, verdict.M(verdict.MsgNotProof, verdict.M(verdict.MsgServedNotSigned), a.entryBad.first))
	}
	switch len(why) {
	case 0:
		v.Pass(verdict.CheckEntries, verdict.MsgEntriesOK, a.res.Records)
	case 1:
		v.Fail(verdict.CheckEntries, why[0].ID, why[0].Args...)
	default:
		v.Fail(verdict.CheckEntries, verdict.MsgSame, why)
	}
	switch {
	case a.recBad.n > 0:
		v.Misbehaviour(verdict.CheckRecord, verdict.MsgMalformed, a.recBad.n, a.recBad.first)
	case a.recNew.n > 0 || a.timeBad > 0:
		var why verdict.Series
		if a.recNew.n > 0 {
			why = append(why, verdict.M(verdict.MsgTooNew, a.recNew.n, a.recNew.first))
		}
		if a.timeBad > 0 {
			why = append(why, verdict.M(verdict.MsgAuditTimesBad, a.timeBad, a.cfg.TimeSkew, a.timeIssues))
		}
		if len(why) == 1 {
			v.Fail(verdict.CheckRecord, why[0].ID, why[0].Args...)
		} else {
			v.Fail(verdict.CheckRecord, verdict.MsgSame, why)
		}
	case len(a.kinds) == 0 && len(a.refused) > 0:
		// Not a pass over nothing: every entry read was left out.
		v.Skip(verdict.CheckRecord, verdict.MsgRecordsRefused, len(a.refused))
	case len(a.kinds) == 0 && a.stopped != nil:
		v.Skip(verdict.CheckRecord, verdict.MsgNotCheckedStopped)
	default:
		kinds := make([]record.Kind, 0, len(a.kinds))
		for k := range a.kinds {
			kinds = append(kinds, k)
		}
		slices.Sort(kinds)
		ks := make(verdict.Series, 0, len(kinds))
		for _, k := range kinds {
			ks = append(ks, verdict.M(verdict.MsgKindCount, verdict.Term(k), a.kinds[k]))
		}
		v.Pass(verdict.CheckRecord, verdict.MsgSame, ks)
	}
	switch {
	case a.keyMisb.n > 0:
		bad := append(slices.Clip(a.keyMisb.first), a.keyBad.first...)
		v.Misbehaviour(verdict.CheckVRFKey, verdict.MsgSame, bad[:min(len(bad), maxIssues)])
	case a.keyBad.n > 0:
		v.Fail(verdict.CheckVRFKey, verdict.MsgSame, a.keyBad.first)
	case len(a.keys.keys) == 0 && len(a.refused) > 0:
		// Not "none announced in the log": the log's may be left out.
		v.Skip(verdict.CheckVRFKey, verdict.MsgNoKeyAnnouncedRefused, a.refused[0])
	case len(a.keys.keys) == 0 && a.stopped != nil:
		// Nor when the entries after the stop were not read.
		v.Skip(verdict.CheckVRFKey, verdict.MsgNotCheckedStopped)
	case len(a.keys.keys) == 0:
		v.Skip(verdict.CheckVRFKey, verdict.MsgNoKeyAnnounced)
	default:
		if len(a.cfg.VRFPins) > 0 {
			v.Pass(verdict.CheckVRFKey, verdict.MsgKeysAnnouncedPinned, len(a.keys.keys))
		} else {
			v.Pass(verdict.CheckVRFKey, verdict.MsgKeysAnnounced, len(a.keys.keys))
		}
	}
	a.report(verdict.CheckGames, verdict.M(verdict.MsgGamesOK, a.res.Games, len(ids), a.res.Proofs-a.drawProofs), a.res.Games,
		verdict.MsgGamesRefused)
	if a.res.SecretLost > 0 {
		v.Fact("secret lost", verdict.MsgGamesSecretLost, a.res.SecretLost)
	}
	// Freezes under rules given whose draw the log does not hold: the
	// freeze alone, in log order.
	left := slices.SortedFunc(maps.Values(a.ruled), func(x, y ruledFreeze) int { return cmp.Compare(x.index, y.index) })
	for _, r := range left {
		a.checkRules(r, time.Time{})
	}
	a.report(verdict.CheckPromotions, verdict.M(verdict.MsgDrawsOK, a.counts["promo-ok"]), a.counts["promo-ok"], verdict.MsgDrawsRefused)
	if n := len(a.uncommitted); n > 0 {
		slices.SortFunc(a.uncommitted, func(x, y drawEntry) int { return cmp.Compare(x.entry, y.entry) })
		var at verdict.Series
		for _, e := range a.uncommitted[:min(n, maxIssues)] {
			at = append(at, verdict.M(verdict.MsgDrawAt, e.draw, e.entry))
		}
		v.Fact("share not committed", verdict.MsgAuditSharesUncommitted, n, at)
	}
	if n := len(a.unbound); n > 0 {
		var at verdict.Series
		for _, e := range a.unbound[:min(n, maxIssues)] {
			at = append(at, verdict.M(verdict.MsgDrawAt, e.draw, e.entry))
		}
		v.Fact("inputs not bound", verdict.MsgAuditFreezesUnbound, n, at)
	}
	a.attestationsReport()
	a.rulesFacts()
	a.manifestFacts()
	a.res.Stats.check(v)
}

// report writes check: ok when it found no issue in the n items it
// checked; when it checked none and entries were left out, which may hold
// some, it is skipped saying so (refused), not passed over nothing, and
// likewise when the audit stopped before the end.
func (a *auditor) report(check string, ok verdict.Msg, n int, refused verdict.MsgID) {
	issues := a.issues[check]
	switch {
	case len(issues) == 0 && n == 0 && len(a.refused) > 0:
		a.v.Skip(check, refused, len(a.refused), a.refused[0])
	case len(issues) == 0 && n == 0 && a.stopped != nil:
		a.v.Skip(check, verdict.MsgNotCheckedStopped)
	case len(issues) == 0:
		a.v.Pass(check, verdict.MsgSame, ok)
	case a.misbehav[check]:
		a.v.Misbehaviour(check, verdict.MsgFailing, a.counts[check], issues)
	default:
		a.v.Fail(check, verdict.MsgFailing, a.counts[check], issues)
	}
}

// givenRules is a rules file of Config.Rules, parsed.
type givenRules struct {
	file      RulesFile
	operation string
	sum       [32]byte // promo.RulesHash
	hash      string   // sum in lowercase hex, as promo.FreezeRules gives a freeze's
	frozen    int      // freezes committing to it (the reading goroutine's)
	parsed    *promo.Rules
}

// ruledFreeze is a freeze committing to a rules file given, to be checked
// against it at its draw (or at the end, undrawn).
type ruledFreeze struct {
	freeze *record.PromoFreeze
	index  uint64
	rules  *givenRules
}

// unruled counts the freezes committing to one rules hash not given.
type unruled struct {
	operation string
	first     uint64 // entry of the first
	freezes   int
}

// parseRules reads the rules files given, each once (a file given twice,
// under any name, counts under its first name).
func parseRules(files []RulesFile) ([]*givenRules, error) {
	var out []*givenRules
	seen := map[string]bool{}
	for _, f := range files {
		r, err := promo.ParseRules(f.Data)
		if err != nil {
			return nil, verdict.Errorf(verdict.MsgAuditRulesBad, f.Name, oneLine{err})
		}
		h := promo.RulesHash(f.Data)
		g := &givenRules{file: f, operation: r.Operation, sum: h, hash: hex.EncodeToString(h[:]), parsed: r}
		if !seen[g.hash] {
			seen[g.hash] = true
			out = append(out, g)
		}
	}
	return out, nil
}

// oneLine is an error on one line: promo.ParseRules joins every problem
// of a file, one per line.
type oneLine struct{ err error }

func (e oneLine) Error() string { return strings.ReplaceAll(e.err.Error(), "\n", "; ") }
func (e oneLine) Unwrap() error { return e.err }

// matchRules finds the rules file given that freeze f (entry index) commits
// to. A rules file given of the freeze's operation with another hash fails
// the freeze, as rngverify certificate --rules does (MsgPromoRulesNotFrozen):
// the operator froze other rules than the file, or the file is not the copy
// it froze — a failure, not proof, since nothing shows which file is the
// operation's. Without either, the freeze is counted under its rules hash,
// unchecked.
func (a *auditor) matchRules(index uint64, f *record.PromoFreeze) {
	op, hash, err := promo.FreezeRules(f)
	if err != nil {
		op, hash = "", "" // names no rules: nothing to check it against
	}
	if g := a.rules[hash]; g != nil {
		g.frozen++
		a.ruled[f.Draw] = ruledFreeze{freeze: f, index: index, rules: g}
		return
	}
	if i := slices.IndexFunc(a.given, func(g *givenRules) bool { return op != "" && g.operation == op }); i >= 0 {
		g := a.given[i]
		a.issue(verdict.CheckPromotions, false, verdict.MsgAuditFreezeRules, f.Draw, index, g.file.Name,
			verdict.M(verdict.MsgPromoRulesNotFrozen, op, g.sum[:], hash))
		return
	}
	u := a.unruled[hash]
	if u == nil {
		u = &unruled{operation: op, first: index}
		a.unruled[hash] = u
	}
	u.freezes++
}

// checkRules checks a freeze against the rules file it commits to by its
// hash, with its draw record's time (zero: not drawn). A contradiction is
// misbehaviour: the appliance signed the freeze, and its ceremony refuses
// a freeze or a time against the rules (promo.Ceremony, Rules.CheckFreeze).
func (a *auditor) checkRules(r ruledFreeze, drawn time.Time) {
	rules := r.rules.parsed
	j, err := rules.FrozenDraw(r.freeze)
	if err == nil {
		err = rules.CheckFreeze(j, r.freeze, drawn)
	}
	if err == nil {
		return
	}
	var me *verdict.MsgError
	proof := errors.As(err, &me) && promo.RulesContradiction(me.Msg.ID)
	a.issue(verdict.CheckPromotions, proof, verdict.MsgAuditFreezeRules, r.freeze.Draw, r.index, r.rules.file.Name, receipt.Cause(err))
}

// rulesFacts says what the rules files given checked: each file with the
// freezes committing to it (a file none commits to is likely the wrong
// file), then the freezes whose rules were not given, by rules hash in
// log order, so that the reader knows what was not checked.
func (a *auditor) rulesFacts() {
	label := verdict.M(verdict.MsgAuditFactRules)
	for _, g := range a.given {
		if g.frozen == 0 {
			a.v.FactNamed(label, verdict.MsgAuditRulesUnused, g.file.Name, g.hash)
		} else {
			a.v.FactNamed(label, verdict.MsgAuditRulesChecked, g.file.Name, g.hash, g.frozen)
		}
	}
	if len(a.unruled) == 0 {
		return
	}
	hashes := slices.SortedFunc(maps.Keys(a.unruled), func(x, y string) int { return cmp.Compare(a.unruled[x].first, a.unruled[y].first) })
	total := 0
	var list verdict.Series
	for i, h := range hashes {
		u := a.unruled[h]
		total += u.freezes
		switch {
		case i == maxIssues:
			list = append(list, verdict.M(verdict.MsgAuditRulesMore, len(hashes)-maxIssues))
		case i > maxIssues:
		case h == "":
			list = append(list, verdict.M(verdict.MsgAuditRulesNoHash, u.freezes))
		default:
			list = append(list, verdict.M(verdict.MsgAuditRulesHash, h, u.operation, u.freezes))
		}
	}
	a.v.FactNamed(label, verdict.MsgAuditRulesUnchecked, total, list)
}
