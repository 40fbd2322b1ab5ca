// Package promo runs promotions on the appliance: it computes eligibility
// and e-credits with the pure rules of tirage.fr/tirage/verifier/promo from
// the stake files tirage.fr/tirage/verifier/promo/stakes reads, freezes
// each draw's entrant list into the transparency log, runs the bailiff's
// ceremony and writes the certificate, the freeze receipt and the
// procès-verbal (JSON and PDF).
//
// # State
//
// Each draw has a directory Dir/<operation>/<draw id>/ (mode 0700):
//
//	meta.json         what the documents show (title, prize, days, counts)
//	rules.yaml        the rules file frozen with the draw
//	entrants.txt      the canonical entrant list with its freeze key (private: bailiff)
//	secret            r, hex (private: revealed by the draw record)
//	freeze.leaf       the promo_freeze record, then freeze.idx its log index
//	draw.lock         created (O_EXCL) when a ceremony starts: no second draw
//	draw.leaf         the promo_draw record, then draw.idx its log index
//	certificate.json  the certificate (rngverify certificate checks it)
//
// # No redraw
//
// A draw runs at most once: the ceremony creates draw.lock exclusively
// before it proves anything. If the log append fails after the proof, the
// record stays in draw.leaf and the next run re-sends that very record —
// the same share, the same winners — and refuses a new share. Auditors see
// every promo_draw record in the log; two for one draw id are misbehaviour.
//
// The state directory is not the only guard: the Appliance indexes the
// promo_freeze and promo_draw records of its log by draw id (read once, on
// first use — OpenOffline reads it at open — and kept up to date by its
// own appends), and refuses a freeze of a draw id the log holds a freeze
// or a draw of, a ceremony of one it holds a draw of, and a certificate of
// a draw id the log holds two freezes or two draws of — whatever the state
// directory says, or if it is gone. Only the very record the state
// directory holds is re-sent (a retry after a lost acknowledgement).
//
// # Dates
//
// A freeze is refused before the draw's participation period has ended
// or after the last day its ceremony may be held, and a ceremony outside the draw's date and latest date
// (promo.Rules.FreezeFrom, DrawWindow), by the clock that stamps the
// record: the verifier checks the same instants (promo.Verify with the
// rules file, check draw-dates). A refusal logs and locks nothing.
//
// # Failing closed
//
// Entropy, key or log failures refuse the operation with an error and change
// nothing that was published: a freeze whose append failed is re-sent
// unchanged by the next freeze of the same draw.
package promo

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/mod/sumdb/tlog"

	"tirage.fr/tirage/rngd/internal/boundedfile"
	"tirage.fr/tirage/transparency"
	"tirage.fr/tirage/transparency/atomicfile"
	"tirage.fr/tirage/verifier/promo"
	"tirage.fr/tirage/verifier/record"
)

// Config configures an Appliance.
type Config struct {
	// Dir holds the draws' state (see the package doc), e.g. <data dir>/promo.
	Dir string
	// Log is the transparency log the records go to.
	Log transparency.Log
	// Prover holds the VRF key (an hsm.VRFProver).
	Prover promo.Prover
	// KeyID is the VRF key's id in the key announcement.
	KeyID string
	// KeysIndex is the log index of the key announcement naming the VRF
	// key; certificates carry it with its inclusion proof. -1: none.
	KeysIndex int64
	// Entropy is the appliance's DRBG (rngd/entropy.Generator). A failed
	// read refuses the freeze.
	Entropy io.Reader
	// Clock gives the time of records (default time.Now).
	Clock func() time.Time
	// Logger receives operational messages (never r, K or account ids).
	Logger *slog.Logger
}

// Appliance runs freezes, ceremonies and certificates.
type Appliance struct {
	cfg Config

	mu      sync.Mutex
	appends map[tlog.Hash]*leafAppend // guarded by mu; see appendOnce
	indexed bool                      // guarded by mu: promos holds the log's records (indexLog)
	promos  map[string]*loggedPromo   // guarded by mu: the log's promo records by draw id
	busy    map[string]bool           // guarded by mu: draws a Freeze of this Appliance is working on

	indexMu sync.Mutex // held by indexLog while it reads the log: one reading at a time
}

// loggedPromo is what the log holds of one draw id.
type loggedPromo struct {
	freezes, draws []loggedLeaf // by log index
}

// loggedLeaf is a record in the log: its index and leaf hash.
type loggedLeaf struct {
	index uint64
	hash  [32]byte
}

// New checks cfg and returns an Appliance.
func New(cfg Config) (*Appliance, error) {
	switch {
	case cfg.Dir == "":
		return nil, errors.New("promo: Config.Dir is empty")
	case cfg.Log == nil || cfg.Prover == nil || cfg.Entropy == nil:
		return nil, errors.New("promo: Config needs Log, Prover and Entropy")
	case cfg.KeyID == "":
		return nil, errors.New("promo: Config.KeyID is empty")
	}
	if cfg.Clock == nil {
		cfg.Clock = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return &Appliance{cfg: cfg, appends: map[tlog.Hash]*leafAppend{}, promos: map[string]*loggedPromo{}, busy: map[string]bool{}}, nil
}

// indexLog reads the promo_freeze and promo_draw records of the whole log
// into a.promos, once: afterwards the Appliance's appends keep it up to
// date (note). A log that counts its leaves (transparency.Sequencer) is
// read up to a checkpoint covering them all; another up to its latest
// checkpoint. It fails closed: a log that cannot be read refuses the
// operation that needs it.
func (a *Appliance) indexLog(ctx context.Context) error {
	a.indexMu.Lock()
	defer a.indexMu.Unlock()
	a.mu.Lock()
	done := a.indexed
	a.mu.Unlock()
	if done {
		return nil
	}
	var size uint64
	if seq, ok := a.cfg.Log.(transparency.Sequencer); ok {
		cp, err := a.cfg.Log.AwaitCheckpoint(ctx, seq.Sequenced())
		if err != nil {
			return fmt.Errorf("couldn't get a checkpoint covering the log, to look for earlier promotion records: %w", err)
		}
		size = cp.Size
	} else {
		cp, err := a.cfg.Log.Checkpoint(ctx)
		if err != nil {
			return fmt.Errorf("couldn't read the log's checkpoint, to look for earlier promotion records: %w", err)
		}
		size = cp.Size
	}
	for start := uint64(0); start < size; {
		es, err := a.cfg.Log.Entries(ctx, start, min(start+transparency.MaxEntries, size), size)
		if err != nil {
			return fmt.Errorf("couldn't read the log's records from %d, to look for earlier promotion records: %w", start, err)
		}
		if len(es) == 0 {
			return fmt.Errorf("the log returned no record from %d of %d", start, size)
		}
		for j, e := range es {
			a.note(start+uint64(j), e)
		}
		start += uint64(len(es))
	}
	a.mu.Lock()
	a.indexed = true
	a.mu.Unlock()
	return nil
}

// promoKind is in every promo_freeze and promo_draw record (canonical
// encoding): note parses only the leaves that hold it.
var promoKind = []byte(`"kind":"promo_`)

// note indexes leaf, at log index i, if it is a promo record.
func (a *Appliance) note(i uint64, leaf []byte) {
	if !bytes.Contains(leaf, promoKind) {
		return
	}
	rec, err := record.Parse(leaf)
	if err != nil {
		return // auditors report it; it is no record of a draw
	}
	var draw string
	switch r := rec.(type) {
	case *record.PromoFreeze:
		draw = r.Draw
	case *record.PromoDraw:
		draw = r.Draw
	default:
		return
	}
	l := loggedLeaf{index: i, hash: record.LeafHash(leaf)}
	a.mu.Lock()
	defer a.mu.Unlock()
	p := a.promos[draw]
	if p == nil {
		p = &loggedPromo{}
		a.promos[draw] = p
	}
	list := &p.freezes
	if rec.Kind() == record.KindPromoDraw {
		list = &p.draws
	}
	k := 0
	for k < len(*list) && (*list)[k].index < i {
		k++
	}
	if k < len(*list) && (*list)[k].index == i {
		return // noted already (an append read again by indexLog)
	}
	*list = append(*list, loggedLeaf{})
	copy((*list)[k+1:], (*list)[k:])
	(*list)[k] = l
}

// logged returns what the log holds of draw (a copy), reading the log
// first if it was not yet read.
func (a *Appliance) logged(ctx context.Context, draw string) (loggedPromo, error) {
	if err := a.indexLog(ctx); err != nil {
		return loggedPromo{}, fmt.Errorf("%s: %w; nothing done", draw, err)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	p := a.promos[draw]
	if p == nil {
		return loggedPromo{}, nil
	}
	return loggedPromo{freezes: append([]loggedLeaf(nil), p.freezes...), draws: append([]loggedLeaf(nil), p.draws...)}, nil
}

// unlike is the refusal of draw whose directory dir holds its record of
// kind at log index at, when the log holds l of that kind instead or too.
func unlike(draw string, kind record.Kind, dir string, l loggedLeaf, at uint64) error {
	if l.index == at {
		return fmt.Errorf("%s: the %s record in %s is not the one the log holds at index %d: inspect the draw directory", draw, kind, dir, at)
	}
	return fmt.Errorf("%s: %w: %s records at index %d and %d", draw, ErrLoggedTwice, kind, min(l.index, at), max(l.index, at))
}

// other returns the first record of ls that is not leaf (leaf nil: the
// first record). A copy of leaf at another index is no other record: it
// draws nothing new (auditors report only a record of other bytes).
func other(ls []loggedLeaf, leaf []byte) (loggedLeaf, bool) {
	var h [32]byte
	if leaf != nil {
		h = record.LeafHash(leaf)
	}
	for _, l := range ls {
		if leaf == nil || l.hash != h {
			return l, true
		}
	}
	return loggedLeaf{}, false
}

// UndefinedDrawError is a draw id none of its operation's rules define (a
// mistyped --draw), as the rules frozen with the operation's other draws
// state them. It is not frozen either: errors.Is(err, ErrNotFrozen) holds.
type UndefinedDrawError struct {
	Draw      string   // the draw id asked for, <operation>/<id>
	Operation string   // its operation
	Defined   []string // the ids of the draws its rules define, in order
}

// maxListedDraws is how many draw ids an UndefinedDrawError lists.
const maxListedDraws = 10

func (e *UndefinedDrawError) Error() string {
	ids := e.Defined
	more := ""
	if len(ids) > maxListedDraws {
		ids, more = ids[:maxListedDraws], fmt.Sprintf(", … (%d draws)", len(e.Defined))
	}
	return fmt.Sprintf("%s is not a draw of the rules of %s: they define %s%s", e.Draw, e.Operation, strings.Join(ids, ", "), more)
}

// Is makes an undefined draw a draw not frozen (ErrNotFrozen).
func (e *UndefinedDrawError) Is(target error) bool { return target == ErrNotFrozen }

// undefinedDraw returns an UndefinedDrawError when the rules frozen with
// another draw of draw's operation (its rules.yaml) define no draw id; nil
// when they define it, or when no draw of the operation was frozen here (the
// rules are not known).
func (a *Appliance) undefinedDraw(draw string) error {
	op, id, _ := strings.Cut(draw, "/")
	ents, err := os.ReadDir(filepath.Join(a.cfg.Dir, op))
	if err != nil {
		return nil
	}
	var defined []string
	known := false
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(a.cfg.Dir, op, e.Name(), "rules.yaml"))
		if err != nil {
			continue
		}
		r, err := promo.ParseRules(b)
		if err != nil || r.Operation != op {
			continue
		}
		known = true
		for _, d := range r.Draws {
			if d.ID == id {
				return nil
			}
			if !slices.Contains(defined, d.ID) {
				defined = append(defined, d.ID)
			}
		}
	}
	if !known {
		return nil
	}
	return &UndefinedDrawError{Draw: draw, Operation: op, Defined: defined}
}

// Errors a caller may act on.
var (
	// ErrFrozen: the draw was frozen already; its list cannot change.
	ErrFrozen = errors.New("draw already frozen")
	// ErrNotFrozen: no freeze for this draw: freeze it first.
	ErrNotFrozen = errors.New("draw not frozen")
	// ErrDrawn: the draw was run already; there is no second draw.
	ErrDrawn = errors.New("draw already run: there is no second draw")
	// ErrLoggedTwice: the log holds two promo_freeze or two promo_draw
	// records of one draw id, which auditors report as the appliance's
	// misbehaviour; nothing more is done for that draw id: report it.
	ErrLoggedTwice = errors.New("the log holds a second record of the draw")
	// ErrKeyAfterFreeze: the VRF key was not announced before the draw's
	// freeze (a key rotated since): the ceremony needs the freeze's key.
	ErrKeyAfterFreeze = errors.New("VRF key announced after the freeze")
	// ErrKeyNotFrozen (promo.ErrKeyNotFrozen): the VRF key is not the one
	// the draw's freeze names; hold the ceremony with that key (the error
	// names both). Nothing was drawn.
	ErrKeyNotFrozen = promo.ErrKeyNotFrozen
	// ErrNotFreezeInputs: the rules file, entrant list or number of
	// withheld participants given to re-issue a freeze's receipt is not
	// what the freeze committed to; give the freeze's very inputs (rules,
	// stake files, closed accounts). Nothing was issued.
	ErrNotFreezeInputs = errors.New("not the inputs of the freeze")
)

// Meta is what the documents of a draw show besides the records.
type Meta struct {
	Operation    string   `json:"operation"`
	OpTitle      string   `json:"operation_title"`
	Draw         string   `json:"draw"` // operation/id
	Title        string   `json:"title"`
	Prize        string   `json:"prize"`
	ValueCents   int64    `json:"value_cents"`
	Currency     string   `json:"currency"`
	Date         string   `json:"date"`                  // the scheduled day of the ceremony (rules' date)
	LatestDate   string   `json:"latest_date,omitempty"` // the last day it may be postponed to (rules)
	Timezone     string   `json:"timezone,omitempty"`    // the rules' zone, of the dates
	Days         []string `json:"days"`
	Reserves     int      `json:"reserves"`
	Beacon       string   `json:"beacon,omitempty"`
	RulesHash    string   `json:"rules_sha256"`
	Participants int      `json:"participants"` // accounts that met a feeding day's minimum
	Withheld     int      `json:"withheld_closed"`
	Entrants     int      `json:"entrants"`
	Rejected     int64    `json:"rejected_rows"` // of the stake ingestion feeding the freeze
	Rows         int64    `json:"rows"`
	// Excluded counts valid stake rows that did not count, by reason.
	Excluded map[string]int64 `json:"excluded_rows,omitempty"`
	// Inputs are the files the entrant list was computed from, whose
	// roles and SHA-256s the freeze binds (promo_freeze inputs), with
	// their names as given: what the receipt lists. None for a freeze
	// made before freezes bound them.
	Inputs []promo.InputFile `json:"inputs,omitempty"`
}

// FreezeRequest freezes one draw.
type FreezeRequest struct {
	Rules     *promo.Rules
	RulesFile []byte
	DrawIndex int                        // index in Rules.Draws
	Entrants  []string                   // canonical (Eligibility.Entrants[j])
	Withheld  int                        // participants left out (closed accounts)
	Rows      int64                      // stake rows read, for the documents
	Rejected  int64                      // stake rows rejected, for the documents
	Excluded  [promo.NumExclusions]int64 // valid rows not counted, by reason (IngestStats.Excluded)
	// ShareCommitment is the bailiff's commitment to their share
	// (promo.ShareCommitment, computed by rngverify share-commitment):
	// required when the rules announce a beacon round for the draw
	// (promo.ErrNoShareCommitment), optional otherwise.
	ShareCommitment [32]byte
	// Inputs are the files Entrants was computed from, each hashed as it
	// was read: the stake files in the order read, then the closed
	// accounts (promo.InputsDigest). The freeze binds them; a re-issue
	// (ReissueReceipt) must give the same. None: the freeze binds no
	// input file.
	Inputs []promo.InputFile
}

// Frozen is a logged freeze.
type Frozen struct {
	Meta   Meta
	Leaf   []byte
	Index  uint64
	Record *record.PromoFreeze
}

func (a *Appliance) drawDir(draw string) (string, error) {
	op, id, ok := strings.Cut(draw, "/")
	if !ok || op == "" || id == "" || strings.ContainsAny(op+id, `/\.`) {
		return "", fmt.Errorf("draw id %q is not <operation>/<id>", draw)
	}
	return filepath.Join(a.cfg.Dir, op, id), nil
}

// Freeze commits a draw's entrant list: the promo_freeze record is appended
// to the log and the private list and r are kept for the ceremony.
func (a *Appliance) Freeze(ctx context.Context, req FreezeRequest) (*Frozen, error) {
	r := req.Rules
	d := r.Draws[req.DrawIndex]
	draw := r.FullDrawID(req.DrawIndex)
	dir, err := a.drawDir(draw)
	if err != nil {
		return nil, err
	}
	// One Freeze of a draw at a time: a second would take the first's
	// directory, still being written, for one left unsent and discard it.
	// (Another process cannot run one: the log directory is locked.)
	a.mu.Lock()
	if a.busy[draw] {
		a.mu.Unlock()
		return nil, fmt.Errorf("%s: a freeze of this draw is under way", draw)
	}
	a.busy[draw] = true
	a.mu.Unlock()
	defer func() {
		a.mu.Lock()
		delete(a.busy, draw)
		a.mu.Unlock()
	}()
	lp, err := a.logged(ctx, draw)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
		return nil, fmt.Errorf("couldn't make the promotion directory: %w", err)
	}
	err = os.Mkdir(dir, 0o700)
	if errors.Is(err, fs.ErrExist) && unsent(dir) {
		// A freeze made but never sent (a crash or an interrupt before
		// its first sending): nowhere but here, it is made anew, timed
		// now, rather than re-sent with its old time.
		if err := discard(dir); err != nil {
			return nil, fmt.Errorf("%s: an earlier freeze that was never sent to the log is in %s, and %w", draw, dir, err)
		}
		a.cfg.Logger.Info("an earlier freeze that was never sent to the log discarded: freezing anew", "draw", draw)
		err = os.Mkdir(dir, 0o700)
	}
	if errors.Is(err, fs.ErrExist) {
		return a.resumeFreeze(ctx, draw, dir, lp)
	} else if err != nil {
		return nil, fmt.Errorf("couldn't make the draw directory: %w", err)
	}
	abandon := func(err error) (*Frozen, error) {
		discard(dir) // nothing was sent to the log
		return nil, err
	}
	// A draw id is frozen once, in the log: its state directory gone (its
	// list and r with it), the draw cannot be held, and a new freeze would
	// be a second list and a second commitment for it.
	if l, ok := other(lp.freezes, nil); ok {
		return abandon(fmt.Errorf("%s: %w: the log holds its promo_freeze record at index %d, but its state directory %s was missing; "+
			"a draw id is frozen once: restore that directory (its list and secret) to hold the ceremony", draw, ErrFrozen, l.index, dir))
	}
	if l, ok := other(lp.draws, nil); ok {
		return abandon(fmt.Errorf("%s: %w: the log holds its promo_draw record at index %d; nothing frozen", draw, ErrDrawn, l.index))
	}
	// The list is frozen once the participation period is over, or it
	// could miss its last stakes; now is the freeze record's time.
	now := a.cfg.Clock().UTC().Truncate(time.Second)
	if from := r.FreezeFrom(req.DrawIndex); now.Before(from) {
		return abandon(fmt.Errorf("%s: freeze refused at %s: the participation period ends on %s at 24:00 %s time (%s); freeze after it",
			draw, promo.FormatTime(now), r.FreezeAfter(req.DrawIndex), r.Timezone, promo.FormatTime(from)))
	}
	// Nor once the last day the rules allow its ceremony is over: that
	// list could never be drawn.
	if _, until := r.DrawWindow(req.DrawIndex); !now.Before(until) {
		return abandon(fmt.Errorf("%s: freeze refused at %s: the rules allow its ceremony until %s inclusive, %s time (%s), so a list frozen now could never be drawn",
			draw, promo.FormatTime(now), r.LatestDate(req.DrawIndex), r.Timezone, promo.FormatTime(until)))
	}
	var secret [64]byte // K || r
	if _, err := io.ReadFull(a.cfg.Entropy, secret[:]); err != nil {
		return abandon(fmt.Errorf("entropy failure, freeze refused: %w", err))
	}
	defer clear(secret[:])
	// New freezes commit under scheme 2: each entrant can be given their
	// own opening (EntrantProof) without revealing anyone else.
	list := &promo.EntrantList{Draw: draw, Accounts: req.Entrants, Scheme: promo.EntrantSchemeNew}
	copy(list.Key[:], secret[:32])
	var rv [32]byte
	copy(rv[:], secret[32:])
	tree, err := list.Tree()
	if err != nil {
		return abandon(err)
	}
	beacon := ""
	if d.Beacon != nil {
		ref, _, err := d.Beacon.Ref()
		if err != nil {
			return abandon(fmt.Errorf("draws[%d].beacon: %w", req.DrawIndex, err))
		}
		beacon = ref.String()
	}
	rec, err := promo.NewFreeze(promo.FreezeInput{
		Operation: r.Operation, RulesHash: promo.RulesHash(req.RulesFile), Draw: draw, Tree: tree,
		Reserves: d.Reserves, Beacon: beacon, KeyID: a.cfg.KeyID, ShareCommitment: req.ShareCommitment, R: rv, Now: now,
		Inputs: req.Inputs,
	})
	if err != nil {
		return abandon(err)
	}
	leaf, err := record.Format(rec)
	if err != nil {
		return abandon(err)
	}
	participants := len(req.Entrants) + req.Withheld
	meta := Meta{
		Operation: r.Operation, OpTitle: r.Title, Draw: draw, Title: d.Title, Prize: d.Prize, ValueCents: d.ValueCents,
		Currency: r.Currency, Date: d.Date, LatestDate: r.LatestDate(req.DrawIndex), Timezone: r.Timezone, Reserves: d.Reserves, Beacon: beacon,
		Participants: participants, Withheld: req.Withheld, Entrants: len(req.Entrants),
		Rejected: req.Rejected, Rows: req.Rows, Inputs: req.Inputs,
	}
	for i, n := range req.Excluded {
		if i > 0 && n > 0 {
			if meta.Excluded == nil {
				meta.Excluded = map[string]int64{}
			}
			meta.Excluded[promo.Exclusion(i).String()] = n
		}
	}
	_, meta.RulesHash, _ = promo.FreezeRules(rec)
	for _, i := range r.DrawDays(req.DrawIndex) {
		meta.Days = append(meta.Days, r.Days[i].Date)
	}
	mj, _ := json.MarshalIndent(meta, "", "  ")
	if int64(len(mj)+1) > maxMetaFile {
		// It could not be read back (readJSON): the draw, once frozen,
		// could never be drawn.
		return abandon(fmt.Errorf("%s: freeze refused: its meta.json would be %d bytes, over %d (the rules' titles and prize are too long)", draw, len(mj)+1, maxMetaFile))
	}
	for _, f := range []struct {
		name string
		data []byte
		mode os.FileMode
	}{
		{unsentMarker, []byte("this freeze has not been sent to the log\n"), 0o644}, // first: see unsent
		{"meta.json", append(mj, '\n'), 0o644},
		{"rules.yaml", req.RulesFile, 0o644},
		{"entrants.txt", list.Format(), 0o600},
		{"secret", []byte(hex.EncodeToString(rv[:]) + "\n"), 0o600},
		{"freeze.leaf", leaf, 0o644},
	} {
		if err := atomicfile.Write(filepath.Join(dir, f.name), f.data, f.mode); err != nil {
			return abandon(err)
		}
	}
	return a.appendFreeze(ctx, dir, meta, leaf, rec, true)
}

// resumeFreeze handles a draw directory that exists: frozen (ErrFrozen), or
// a freeze whose append did not complete, which is re-sent unchanged.
func (a *Appliance) resumeFreeze(ctx context.Context, draw, dir string, lp loggedPromo) (*Frozen, error) {
	if i, err := readIndex(filepath.Join(dir, "freeze.idx")); err == nil {
		return nil, fmt.Errorf("%s: %w (log index %d)", draw, ErrFrozen, i)
	} else if _, err := os.Stat(filepath.Join(dir, "freeze.idx")); err == nil {
		return nil, fmt.Errorf("%s: %w", draw, ErrFrozen)
	}
	leaf, err := os.ReadFile(filepath.Join(dir, "freeze.leaf"))
	if err != nil {
		return nil, fmt.Errorf("%s: incomplete draw directory without a freeze record; inspect %s: %w", draw, dir, err)
	}
	rec, err := record.Parse(leaf)
	fr, ok := rec.(*record.PromoFreeze)
	if err != nil || !ok {
		return nil, fmt.Errorf("%s: freeze.leaf is not a promo_freeze record", draw)
	}
	// A freeze timed from ShareCommitmentsRequired on announcing a beacon
	// holds the share commitment (NewFreeze): one without, made by an older
	// rngctl or by hand, is not sent.
	if err := promo.CheckShareCommitted(fr); err != nil {
		return nil, fmt.Errorf("%s: freeze.leaf is not re-sent (inspect %s): %w", draw, dir, err)
	}
	// Only this very record is re-sent: the log holding another freeze or
	// a draw of the id, this one would be a second.
	if l, ok := other(lp.freezes, leaf); ok {
		return nil, fmt.Errorf("%s: %w: the log holds another promo_freeze record of it at index %d; freeze.leaf is not re-sent (inspect %s)", draw, ErrFrozen, l.index, dir)
	}
	if l, ok := other(lp.draws, nil); ok {
		return nil, fmt.Errorf("%s: %w: the log holds its promo_draw record at index %d; freeze.leaf is not re-sent (inspect %s)", draw, ErrDrawn, l.index, dir)
	}
	var meta Meta
	if err := readJSON(filepath.Join(dir, "meta.json"), &meta); err != nil {
		return nil, err
	}
	// The receipt lists meta.json's input files: they must be those the
	// record binds.
	if err := checkMetaInputs(fr, meta); err != nil {
		return nil, fmt.Errorf("%s: freeze.leaf is not re-sent (inspect %s): %w", draw, dir, err)
	}
	// The record was checked against the rules when it was made; it is
	// checked again before it is sent, as before it is drawn (Draw): a file
	// changed meanwhile must not reach the log.
	rulesFile, err := os.ReadFile(filepath.Join(dir, "rules.yaml"))
	if err != nil {
		return nil, fmt.Errorf("%s: incomplete draw directory without its rules; inspect %s: %w", draw, dir, err)
	}
	r, j, err := promo.RulesOfFreeze(rulesFile, fr)
	if err == nil {
		err = r.CheckFreeze(j, fr, time.Time{})
	}
	if err != nil {
		return nil, fmt.Errorf("%s: freeze.leaf contradicts the draw's rules.yaml, not re-sent; inspect %s: %w", draw, dir, err)
	}
	a.cfg.Logger.Warn("re-sending a freeze whose append did not complete", "draw", draw)
	return a.appendFreeze(ctx, dir, meta, leaf, fr, false)
}

// unsentMarker is the file of a draw directory whose freeze has not been
// sent to the log: written first, removed (durably) just before the first
// sending. A directory with it holds a freeze nowhere else, which Freeze
// discards and makes anew; without it, the freeze may be in the log, and
// is re-sent unchanged (resumeFreeze).
const unsentMarker = "freeze.unsent"

func unsent(dir string) bool {
	_, err := os.Lstat(filepath.Join(dir, unsentMarker))
	return err == nil
}

// discard removes draw directory dir as one step: renamed aside first, so
// that a removal stopped part way leaves no draw directory (and no
// freeze.leaf to re-send) behind, only a directory whose name no draw id
// takes.
func discard(dir string) error {
	aside := fmt.Sprintf("%s.discarded-%d", dir, time.Now().UnixNano())
	if err := os.Rename(dir, aside); err != nil {
		return fmt.Errorf("couldn't discard it: %w", err)
	}
	if err := atomicfile.SyncDir(filepath.Dir(dir)); err != nil {
		return fmt.Errorf("couldn't discard it: %w", err)
	}
	if err := os.RemoveAll(aside); err != nil {
		return fmt.Errorf("couldn't remove %s (set aside, no longer a draw's; remove it by hand): %w", aside, err)
	}
	return nil
}

// appendFreeze sends the freeze record in dir to the log; first says this
// is its first sending.
func (a *Appliance) appendFreeze(ctx context.Context, dir string, meta Meta, leaf []byte, rec *record.PromoFreeze, first bool) (*Frozen, error) {
	if first {
		err := os.Remove(filepath.Join(dir, unsentMarker))
		if err == nil {
			err = atomicfile.SyncDir(dir)
		}
		if err != nil {
			discard(dir)
			return nil, fmt.Errorf("couldn't mark the freeze as sent before sending it; nothing frozen, run the freeze again: %w", err)
		}
	}
	idx, err := a.appendOnce(ctx, leaf)
	if first && errors.Is(err, transparency.ErrNotAppended) {
		// Refused before the log took it, at its first sending: the
		// freeze is nowhere but in dir. Forgotten, the next run freezes
		// anew, timed then; re-sent after a long outage, this record
		// would keep its first time, out of order among the records
		// logged meanwhile (the audit times freezes by their log
		// position). After an earlier sending of unknown outcome, that
		// one may still land: the record is kept and re-sent unchanged.
		if derr := discard(dir); derr != nil {
			return nil, fmt.Errorf("the log refused the freeze before taking it, and its draw directory %s %w; then run the freeze again: %w", dir, derr, err)
		}
		return nil, fmt.Errorf("the log refused the freeze before taking it; nothing frozen, run the freeze again: %w", err)
	}
	if err != nil {
		return nil, fmt.Errorf("log append failed, freeze not published (run the freeze again to re-send it unchanged): %w", err)
	}
	a.note(idx, leaf)
	if err := atomicfile.Write(filepath.Join(dir, "freeze.idx"), formatIndex(idx), 0o644); err != nil {
		return nil, err
	}
	a.cfg.Logger.Info("draw frozen", "draw", meta.Draw, "entrants", meta.Entrants, "log_index", idx)
	return &Frozen{Meta: meta, Leaf: leaf, Index: idx, Record: rec}, nil
}

// appendOnce appends leaf unless the log already holds it: a retry after an
// append whose acknowledgement was lost must not log the record twice (the
// auditor reports a second promo_freeze or promo_draw of a draw as the
// appliance's misbehaviour). It fails closed: only a lookup answering "not
// found" lets the append go ahead; any other lookup failure is returned.
//
// A log that counts the leaves it holds (transparency.Sequencer: the
// embedded log's journal) is first waited for until a checkpoint covers all
// of them, so the lookup sees a leaf acknowledged or journaled but not yet
// in the published checkpoint. A leaf still in its queue is not counted
// yet: appends of this Appliance are therefore tracked until the log
// answers (see leafAppend), and a retry in the same process waits for the
// earlier append instead of sending the leaf again. No other process can
// hold one queued: the log directory is locked to one process, and Close
// journals the queue.
//
// A log that is not a Sequencer (Trillian, whose signer drains its queue on
// its own) is looked up in its latest checkpoint; a leaf queued but not yet
// in it is deduplicated by the backend: Trillian keeps one leaf per leaf
// identity, and transparency/trillian's Append of a duplicate returns the
// index of the leaf already there (waiting for it to be integrated) rather
// than appending it again.
//
// An error raised before this call sent the leaf, or waited for a sending
// of it, is marked transparency.NotAppended: it did not send it (whether an
// earlier sending reached the log is the caller's to know, appendFreeze).
func (a *Appliance) appendOnce(ctx context.Context, leaf []byte) (uint64, error) {
	sent := false // this call sent the leaf or waited for an append of it
	notSent := func(err error) error {
		if sent {
			return err
		}
		return transparency.NotAppended(err)
	}
	if err := ctx.Err(); err != nil {
		return 0, notSent(fmt.Errorf("record not sent to the log: %w", err))
	}
	h := tlog.Hash(record.LeafHash(leaf))
	seq, ok := a.cfg.Log.(transparency.Sequencer)
	if !ok {
		cp, err := a.cfg.Log.Checkpoint(ctx)
		if err != nil {
			return 0, notSent(fmt.Errorf("couldn't read the log's checkpoint to look for the record before sending it: %w", err))
		}
		if i, found, err := a.lookup(ctx, h, cp.Size); found || err != nil {
			return i, notSent(err)
		}
		return a.cfg.Log.Append(ctx, leaf)
	}
	for {
		if p := a.pendingAppend(h); p != nil {
			sent = true
			select {
			case <-p.done:
			case <-ctx.Done():
				return 0, fmt.Errorf("an earlier append of this record is not yet acknowledged by the log (a retry waits for it): %w", ctx.Err())
			}
			if p.err == nil {
				return p.index, nil
			}
			// It was refused, so not acknowledged: look it up again.
		}
		n := seq.Sequenced()
		cp, err := a.cfg.Log.AwaitCheckpoint(ctx, n)
		if err != nil {
			return 0, notSent(fmt.Errorf("couldn't get a checkpoint covering the log's %d sequenced records, to look for the record before sending it: %w", n, err))
		}
		if i, found, err := a.lookup(ctx, h, cp.Size); found || err != nil {
			return i, notSent(err)
		}
		a.mu.Lock()
		if a.appends[h] != nil { // a concurrent call sent it meanwhile
			a.mu.Unlock()
			continue
		}
		p := &leafAppend{done: make(chan struct{})}
		a.appends[h] = p
		a.mu.Unlock()
		sent = true
		go a.runAppend(context.WithoutCancel(ctx), h, leaf, p)
		select {
		case <-p.done:
			return p.index, p.err
		case <-ctx.Done():
			return 0, fmt.Errorf("the log has not acknowledged the record yet; it may still be appended (a retry finds it or waits for it): %w", ctx.Err())
		}
	}
}

// leafAppend is an append of this Appliance to a transparency.Sequencer
// log. It runs until the log answers, even when its caller gives up (the
// embedded log answers every queued leaf, at the latest when it is
// closed): acknowledged, it stays in Appliance.appends, which a retry
// consults before looking the leaf up; refused, it is removed.
type leafAppend struct {
	done  chan struct{} // closed once index and err are set
	index uint64
	err   error
}

func (a *Appliance) pendingAppend(h tlog.Hash) *leafAppend {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.appends[h]
}

func (a *Appliance) runAppend(ctx context.Context, h tlog.Hash, leaf []byte, p *leafAppend) {
	p.index, p.err = a.cfg.Log.Append(ctx, leaf)
	if p.err != nil {
		a.mu.Lock()
		delete(a.appends, h)
		a.mu.Unlock()
	} else {
		a.note(p.index, leaf) // also when its caller gave up waiting
	}
	close(p.done)
}

// lookup finds the leaf of hash h in the log's tree of size leaves. Only
// "not found" means absent; any other failure (log unavailable, security
// error, context done) is returned: the record may be there, and sending it
// again could log it twice.
func (a *Appliance) lookup(ctx context.Context, h tlog.Hash, size uint64) (uint64, bool, error) {
	if size == 0 {
		return 0, false, nil
	}
	i, _, err := a.cfg.Log.InclusionProofByHash(ctx, h, size)
	switch {
	case err == nil:
		return i, true, nil
	case errors.Is(err, transparency.ErrNotFound) && !errors.Is(err, transparency.ErrSecurity) && !errors.Is(err, transparency.ErrUnavailable):
		return 0, false, nil
	}
	return 0, false, fmt.Errorf("couldn't look the record up in the log's tree of %d records, so it is not sent again (it may be there already): %w", size, err)
}

// DrawRequest is the ceremony's input.
type DrawRequest struct {
	Draw        string // operation/id
	Share       string // normalised (promo.ShareFromText / ShareFromDice)
	BeaconValue []byte // the announced drand round's value (its signature; chained chains: previous signature then signature), if any
}

// Drawn is a logged draw.
type Drawn struct {
	Meta   Meta
	Leaf   []byte
	Index  uint64
	Record *record.PromoDraw
}

// Draw runs the ceremony of a frozen draw, once.
func (a *Appliance) Draw(ctx context.Context, req DrawRequest) (*Drawn, error) {
	return a.draw(ctx, req, false)
}

// CheckDraw runs, before the bailiff is asked for the share, the checks of
// Draw that do not need it, with Draw's errors: a draw already run
// (ErrDrawn), not frozen, frozen in the log with another list, outside the
// rules' dates, a beacon value not the announced round's, a VRF key
// announced after the freeze or not the one it names. A draw whose record
// was made but not yet sent passes: it is re-sent only with the share
// entered then. Nothing is locked or appended.
func (a *Appliance) CheckDraw(ctx context.Context, draw string, beaconValue []byte) error {
	_, err := a.draw(ctx, DrawRequest{Draw: draw, BeaconValue: beaconValue}, true)
	return err
}

// draw is Draw, or with check CheckDraw: it returns before the first step
// that needs the share.
func (a *Appliance) draw(ctx context.Context, req DrawRequest, check bool) (*Drawn, error) {
	if _, err := a.drawDir(req.Draw); err != nil {
		return nil, err
	}
	lp, err := a.logged(ctx, req.Draw)
	if err != nil {
		return nil, err
	}
	st, err := a.load(req.Draw)
	if err != nil {
		if l, ok := other(lp.draws, nil); ok {
			return nil, fmt.Errorf("%s: %w: the log holds its promo_draw record at index %d (%w)", req.Draw, ErrDrawn, l.index, err)
		}
		if l, ok := other(lp.freezes, nil); ok && errors.Is(err, ErrNotFrozen) {
			return nil, fmt.Errorf("the log holds the promo_freeze record of %s at index %d, but its state directory is missing or incomplete: %w", req.Draw, l.index, err)
		}
		return nil, err
	}
	dir := st.dir
	// The log, not the state directory, says whether the draw was frozen
	// with this list and drawn already.
	if l, ok := other(lp.freezes, st.freezeLeaf); ok {
		return nil, fmt.Errorf("%w; nothing drawn", unlike(req.Draw, record.KindPromoFreeze, dir, l, st.freezeIdx))
	}
	if st.drawLeaf != nil {
		if st.drawIdx >= 0 {
			return nil, fmt.Errorf("%s: %w (log index %d)", req.Draw, ErrDrawn, st.drawIdx)
		}
		// The append of this very record did not complete: re-send it, never a new one.
		if check {
			return nil, nil
		}
		if string(st.draw.Share) != req.Share {
			return nil, fmt.Errorf("%s: %w; its record (with the share entered then) was not yet published and is re-sent only with that same share", req.Draw, ErrDrawn)
		}
		if l, ok := other(lp.draws, st.drawLeaf); ok {
			return nil, fmt.Errorf("%s: %w: the log holds another promo_draw record of it at index %d; draw.leaf is not re-sent (inspect %s)", req.Draw, ErrDrawn, l.index, dir)
		}
		return a.appendDraw(ctx, dir, st, st.drawLeaf, st.draw)
	}
	if l, ok := other(lp.draws, nil); ok {
		return nil, fmt.Errorf("%s: %w: the log holds its promo_draw record at index %d (the draw directory %s has lost its draw.leaf)", req.Draw, ErrDrawn, l.index, dir)
	}
	// The beacon value must be the announced round's before anything is
	// locked: a mistyped value changes nothing.
	if _, err := promo.VerifyBeacon(st.freeze.Beacon, req.BeaconValue); err != nil {
		return nil, fmt.Errorf("%s: beacon_value: %w", req.Draw, err)
	}
	// The ceremony is held on the draw's date or, failing that, by its
	// latest date (rules.yaml, the file the freeze binds); now is the draw
	// record's time. A refusal locks nothing.
	now := a.cfg.Clock().UTC().Truncate(time.Second)
	r, j, err := promo.RulesOfFreeze(st.rulesFile, st.freeze)
	if err != nil {
		return nil, fmt.Errorf("%s: rules.yaml: %w", req.Draw, err)
	}
	if from, until := r.DrawWindow(j); now.Before(from) || !now.Before(until) {
		return nil, fmt.Errorf("%s: ceremony refused at %s (%s, %s time): the rules allow it from %s to %s inclusive (%s to %s)",
			req.Draw, promo.FormatTime(now), now.In(r.Location()).Format("2006-01-02"), r.Timezone,
			r.Draws[j].Date, r.LatestDate(j), promo.FormatTime(from), promo.FormatTime(until))
	}
	// The VRF key must have been announced before the freeze: auditors
	// (and the certificate's verifier) count a draw only under keys
	// announced before its freeze, so that no key can be made for one
	// draw. After a rotation the ceremony is held with the key of the
	// freeze (rngd refuses to rotate while a freeze awaits its ceremony).
	if !KeyBeforeFreeze(a.cfg.KeysIndex, int64(st.freezeIdx)) {
		at := "is not announced in the log"
		if a.cfg.KeysIndex >= 0 {
			at = fmt.Sprintf("was announced at record %d, after the freeze", a.cfg.KeysIndex)
		}
		use := "the VRF key in use at the freeze"
		if k := st.freeze.Key; k != "" {
			use = fmt.Sprintf("VRF key %q, the one the freeze names", k)
		}
		return nil, fmt.Errorf("%s: %w: VRF key %q %s (record %d); an auditor counts a draw only under a key announced before its freeze. "+
			"Hold the ceremony with %s (rngctl promo draw --vrf-label LABEL); nothing was drawn",
			req.Draw, ErrKeyAfterFreeze, a.cfg.KeyID, at, st.freezeIdx, use)
	}
	// The VRF key must be the one the freeze names: it was bound before
	// the bailiff's share existed, so that the appliance cannot prove α
	// under each of its keys and keep the ranking it prefers. Auditors
	// count a draw under another key as misbehaviour.
	if k := st.freeze.Key; k != "" && k != a.cfg.KeyID {
		return nil, fmt.Errorf("%s: %w: this ceremony is on VRF key %q, the freeze (record %d) names VRF key %q; "+
			"hold it with that key (rngctl promo draw --vrf-label LABEL, the label of key %q); nothing was drawn",
			req.Draw, ErrKeyNotFrozen, a.cfg.KeyID, st.freezeIdx, k, k)
	}
	if check {
		return nil, nil
	}
	// The freeze must be in a published checkpoint before anything is drawn.
	if _, err := a.cfg.Log.AwaitCheckpoint(ctx, st.freezeIdx+1); err != nil {
		return nil, fmt.Errorf("the freeze is not yet in a checkpoint: %w", err)
	}
	c := &promo.Ceremony{
		Freeze: st.freeze, Tree: st.tree, R: st.r, Share: req.Share, BeaconValue: req.BeaconValue,
		KeyID: a.cfg.KeyID, Prover: a.cfg.Prover, Now: now, RulesFile: st.rulesFile,
	}
	// What the ceremony checks of the draw directory (entrants.txt and
	// secret the frozen ones) and of the share, checked before the lock:
	// a refusal locks nothing.
	if err := c.Check(); err != nil {
		return nil, fmt.Errorf("%s: ceremony refused, nothing drawn: %w", req.Draw, err)
	}
	lock, err := os.OpenFile(filepath.Join(dir, "draw.lock"), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return nil, fmt.Errorf("%s: %w (a ceremony started before; see draw.lock)", req.Draw, ErrDrawn)
	} else if err != nil {
		return nil, fmt.Errorf("couldn't take the draw lock: %w", err)
	}
	fmt.Fprintf(lock, "ceremony started %s\n", promo.FormatTime(now))
	if err := lock.Sync(); err != nil {
		lock.Close()
		return nil, err
	}
	lock.Close()
	d, err := c.Run()
	if err != nil {
		// Nothing was proven that anyone saw; the lock stays: the operator
		// inspects and, if nothing was drawn, removes it by hand (logged).
		return nil, fmt.Errorf("ceremony refused, nothing drawn: %w (remove draw.lock to run it again)", err)
	}
	leaf, err := record.Format(d)
	if err != nil {
		return nil, err
	}
	if err := atomicfile.Write(filepath.Join(dir, "draw.leaf"), leaf, 0o644); err != nil {
		return nil, err
	}
	return a.appendDraw(ctx, dir, st, leaf, d)
}

func (a *Appliance) appendDraw(ctx context.Context, dir string, st *drawState, leaf []byte, d *record.PromoDraw) (*Drawn, error) {
	idx, err := a.appendOnce(ctx, leaf)
	if err != nil {
		return nil, fmt.Errorf("log append failed, draw not published (run the ceremony again with the same share to re-send this same record): %w", err)
	}
	a.note(idx, leaf)
	if err := atomicfile.Write(filepath.Join(dir, "draw.idx"), formatIndex(idx), 0o644); err != nil {
		return nil, err
	}
	a.cfg.Logger.Info("draw published", "draw", d.Draw, "log_index", idx)
	return &Drawn{Meta: st.meta, Leaf: leaf, Index: idx, Record: d}, nil
}

// drawState is a draw directory loaded and checked.
type drawState struct {
	dir        string
	meta       Meta
	list       *promo.EntrantList
	tree       *promo.EntrantTree
	r          [32]byte
	rulesFile  []byte // rules.yaml: the rules file the freeze binds
	freezeLeaf []byte
	freeze     *record.PromoFreeze
	freezeIdx  uint64
	drawLeaf   []byte
	draw       *record.PromoDraw
	drawIdx    int64 // -1 until published
}

func (a *Appliance) load(draw string) (*drawState, error) {
	dir, err := a.drawDir(draw)
	if err != nil {
		return nil, err
	}
	st := &drawState{dir: dir, drawIdx: -1}
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		if err := a.undefinedDraw(draw); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("%s: %w", draw, ErrNotFrozen)
	}
	idx, err := readIndex(filepath.Join(dir, "freeze.idx"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w (the freeze was not published; run the freeze again)", draw, ErrNotFrozen)
	} else if err != nil {
		return nil, err
	}
	st.freezeIdx = uint64(idx)
	if err := readJSON(filepath.Join(dir, "meta.json"), &st.meta); err != nil {
		return nil, err
	}
	if st.freezeLeaf, err = os.ReadFile(filepath.Join(dir, "freeze.leaf")); err != nil {
		return nil, err
	}
	if st.rulesFile, err = os.ReadFile(filepath.Join(dir, "rules.yaml")); err != nil {
		return nil, err
	}
	rec, err := record.Parse(st.freezeLeaf)
	fr, ok := rec.(*record.PromoFreeze)
	if err != nil || !ok {
		return nil, fmt.Errorf("%s: freeze.leaf is not a promo_freeze record", draw)
	}
	st.freeze = fr
	lb, err := os.ReadFile(filepath.Join(dir, "entrants.txt"))
	if err != nil {
		return nil, err
	}
	if st.list, err = promo.ParseEntrantList(lb); err != nil {
		return nil, err
	}
	// The list's leaves are of the scheme its freeze states.
	st.list.Scheme = fr.EntrantScheme
	if st.tree, err = st.list.Tree(); err != nil {
		return nil, err
	}
	sb, err := os.ReadFile(filepath.Join(dir, "secret"))
	if err != nil {
		return nil, err
	}
	if n, err := hex.Decode(st.r[:], bytes.TrimSpace(sb)); err != nil || n != 32 {
		return nil, fmt.Errorf("%s: the secret file is damaged", draw)
	}
	if st.drawLeaf, err = os.ReadFile(filepath.Join(dir, "draw.leaf")); err == nil {
		rec, err := record.Parse(st.drawLeaf)
		d, ok := rec.(*record.PromoDraw)
		if err != nil || !ok {
			return nil, fmt.Errorf("%s: draw.leaf is not a promo_draw record", draw)
		}
		st.draw = d
		if st.drawIdx, err = readIndex(filepath.Join(dir, "draw.idx")); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		} else if err != nil {
			st.drawIdx = -1
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	return st, nil
}

// Certificate is a certified draw's documents.
type Certificate struct {
	Meta     Meta
	JSON     []byte // the certificate file
	Verified *promo.Verified
	List     *promo.EntrantList
}

// Certify builds the certificate of a published draw, writes it to
// certificate.json in the draw's directory and checks it with the verifier
// (bailiff's path) before returning it.
func (a *Appliance) Certify(ctx context.Context, draw string) (*Certificate, error) {
	st, err := a.load(draw)
	if err != nil {
		return nil, err
	}
	dir := st.dir
	lp, err := a.logged(ctx, draw)
	if err != nil {
		return nil, err
	}
	if st.drawIdx < 0 && st.drawLeaf != nil {
		// Appended, but stopped before draw.idx was written: the log
		// says where.
		h := record.LeafHash(st.drawLeaf)
		for _, l := range lp.draws {
			if l.hash == h {
				if err := atomicfile.Write(filepath.Join(dir, "draw.idx"), formatIndex(l.index), 0o644); err != nil {
					return nil, err
				}
				st.drawIdx = int64(l.index)
				break
			}
		}
	}
	if st.drawIdx < 0 {
		return nil, fmt.Errorf("%s: the draw was not published yet", draw)
	}
	// The certificate holds one freeze and one draw, and the verifier sees
	// no other: the appliance, which holds the log, refuses to certify a
	// draw id the log holds a second freeze or draw of (misbehaviour that
	// auditors report).
	if l, ok := other(lp.freezes, st.freezeLeaf); ok {
		return nil, fmt.Errorf("%w; no certificate", unlike(draw, record.KindPromoFreeze, dir, l, st.freezeIdx))
	}
	if l, ok := other(lp.draws, st.drawLeaf); ok {
		return nil, fmt.Errorf("%w; no certificate", unlike(draw, record.KindPromoDraw, dir, l, uint64(st.drawIdx)))
	}
	cp, err := a.cfg.Log.AwaitCheckpoint(ctx, uint64(st.drawIdx)+1)
	if err != nil {
		return nil, fmt.Errorf("couldn't get a checkpoint including the draw: %w", err)
	}
	logged := func(idx uint64, leaf []byte) (*promo.LoggedRecord, error) {
		p, err := a.cfg.Log.InclusionProof(ctx, idx, cp.Size)
		if err != nil {
			return nil, fmt.Errorf("couldn't prove record %d: %w", idx, err)
		}
		return &promo.LoggedRecord{Index: idx, Record: string(leaf), Proof: promo.ProofHex(p)}, nil
	}
	in := promo.CertificateInput{
		Title: st.meta.Title, Prize: st.meta.Prize, Days: st.meta.Days, Withheld: uint64(st.meta.Withheld),
		Checkpoint: cp.Note, LogKeys: a.cfg.Log.VerifierKeys(), Tree: st.tree, VRFKey: a.cfg.Prover.PublicKey(),
	}
	hex.Decode(in.RulesHash[:], []byte(st.meta.RulesHash))
	if in.Freeze, err = logged(st.freezeIdx, st.freezeLeaf); err != nil {
		return nil, err
	}
	if in.Draw, err = logged(uint64(st.drawIdx), st.drawLeaf); err != nil {
		return nil, err
	}
	if a.cfg.KeysIndex >= 0 {
		es, err := a.cfg.Log.Entries(ctx, uint64(a.cfg.KeysIndex), uint64(a.cfg.KeysIndex)+1, cp.Size)
		if err != nil || len(es) != 1 {
			return nil, fmt.Errorf("couldn't read the key announcement at %d: %v", a.cfg.KeysIndex, err)
		}
		if in.Keys, err = logged(uint64(a.cfg.KeysIndex), es[0]); err != nil {
			return nil, err
		}
	}
	c, err := promo.NewCertificate(in)
	if err != nil {
		return nil, err
	}
	if st.meta.Timezone == "" || st.meta.LatestDate == "" { // a meta.json of an older rngd
		if r, j, err := promo.RulesOfFreeze(st.rulesFile, st.freeze); err == nil {
			st.meta.Timezone, st.meta.LatestDate = r.Timezone, r.LatestDate(j)
		}
	}
	js := promo.CertificateJSON(c)
	v, err := promo.Verify(js, st.list, promo.Anchors{LogKeys: a.cfg.Log.VerifierKeys(), Rules: st.rulesFile, Reserves: st.meta.Reserves})
	if err != nil {
		return nil, fmt.Errorf("the certificate just made does not verify: %w", err)
	}
	if err := atomicfile.Write(filepath.Join(dir, "certificate.json"), js, 0o644); err != nil {
		return nil, err
	}
	return &Certificate{Meta: st.meta, JSON: js, Verified: v, List: st.list}, nil
}

// FreezeReceipt is the bailiff's receipt of a freeze (promo.FreezeReceipt,
// the verifier's type: rngverify freeze checks it).
type FreezeReceipt = promo.FreezeReceipt

// ReceiptJSON is the receipt file's bytes (indented JSON); the PDF prints their SHA-256.
func ReceiptJSON(r *FreezeReceipt) []byte { return promo.FreezeReceiptJSON(r) }

// Receipt returns the freeze receipt of a frozen draw (waiting for a
// checkpoint that includes the freeze).
func (a *Appliance) Receipt(ctx context.Context, draw string) (*FreezeReceipt, error) {
	st, err := a.load(draw)
	if err != nil {
		return nil, err
	}
	return a.receipt(ctx, draw, st)
}

// EntrantProof returns the entrant proof of account in the frozen draw
// (promo.EntrantProof: its opening under the freeze key, its inclusion
// proof in the frozen root, and the freeze receipt against the log's
// latest checkpoint), verified before it is returned. Nothing is appended.
// Refused with promo.ErrNotEntrant when the account is not in the frozen
// list, promo.ErrEntrantSchemeV1 for a freeze made before entrant proofs
// existed (scheme 1), ErrNotFrozen when the draw was not frozen here.
func (a *Appliance) EntrantProof(ctx context.Context, draw, account string) (*promo.EntrantProof, []byte, error) {
	st, err := a.load(draw)
	if err != nil {
		return nil, nil, err
	}
	if st.list.Scheme != promo.EntrantSchemeV2 {
		return nil, nil, fmt.Errorf("%s: %w", draw, promo.ErrEntrantSchemeV1)
	}
	// Refused before waiting for a checkpoint.
	if _, in := slices.BinarySearch(st.list.Accounts, account); !in {
		return nil, nil, fmt.Errorf("%s: account %q: %w (%d entrants); nothing written", draw, account, promo.ErrNotEntrant, len(st.list.Accounts))
	}
	rc, err := a.receipt(ctx, draw, st)
	if err != nil {
		return nil, nil, err
	}
	p, err := promo.NewEntrantProof(st.list, st.tree, promo.FreezeReceiptJSON(rc), account)
	if err != nil {
		return nil, nil, err
	}
	file := promo.EntrantProofJSON(p)
	if _, err := promo.VerifyEntrantProof(file, promo.Anchors{LogKeys: a.cfg.Log.VerifierKeys(), Reserves: -1}); err != nil {
		return nil, nil, fmt.Errorf("%s: the entrant proof made does not verify: %w", draw, err)
	}
	return p, file, nil
}

// ReissueReceipt returns again the receipt of a freeze the log holds
// already (its publication failed, or it was lost), given the request that
// made it; nothing is appended. It is refused with ErrNotFrozen when the
// log holds no promo_freeze record of the draw, ErrLoggedTwice when it
// holds two, and ErrNotFreezeInputs when req is not what the freeze
// committed to. The receipt is Receipt's: against the log's latest
// checkpoint, so byte for byte the one made at the freeze while the log has
// published no checkpoint since (it publishes one as it grows), and
// otherwise another checkpoint and inclusion proof of the same record (the
// freeze's leaf hash, root and count, and the private list, do not change).
func (a *Appliance) ReissueReceipt(ctx context.Context, req FreezeRequest) (*FreezeReceipt, error) {
	draw := req.Rules.FullDrawID(req.DrawIndex)
	dir, err := a.drawDir(draw)
	if err != nil {
		return nil, err
	}
	lp, err := a.logged(ctx, draw)
	if err != nil {
		return nil, err
	}
	if len(lp.freezes) == 0 {
		return nil, fmt.Errorf("%s: %w: the log holds no promo_freeze record of it; no receipt", draw, ErrNotFrozen)
	}
	at := lp.freezes[0].index
	if len(req.Entrants) == 0 {
		return nil, fmt.Errorf("%s: %w: no entrant given, but the log holds its promo_freeze record at index %d; no receipt", draw, ErrNotFreezeInputs, at)
	}
	st, err := a.load(draw)
	if err != nil {
		return nil, fmt.Errorf("the log holds the promo_freeze record of %s at index %d, but its state directory %s is missing or incomplete; no receipt: %w", draw, at, dir, err)
	}
	if l, ok := other(lp.freezes, st.freezeLeaf); ok {
		return nil, fmt.Errorf("%w; no receipt", unlike(draw, record.KindPromoFreeze, dir, l, st.freezeIdx))
	}
	if !slices.ContainsFunc(lp.freezes, func(l loggedLeaf) bool { return l.index == st.freezeIdx }) {
		return nil, fmt.Errorf("%s: freeze.idx says %d, the log holds the record of freeze.leaf at index %d; inspect %s; no receipt", draw, st.freezeIdx, at, dir)
	}
	f := st.freeze
	_, frozenRules, err := promo.FreezeRules(f)
	if err != nil {
		return nil, fmt.Errorf("%s: freeze.leaf: %w", draw, err)
	}
	if h := promo.RulesHash(req.RulesFile); hex.EncodeToString(h[:]) != frozenRules {
		return nil, fmt.Errorf("%s: %w: the rules file given (sha256 %x) is not the one the freeze binds (sha256 %s); no receipt", draw, ErrNotFreezeInputs, h, frozenRules)
	}
	// The input files given are the freeze's (a freeze binding none, made
	// before freezes did, cannot tell: its list decides), named when one
	// differs: before the list, which another file changes too.
	if st.freeze.Inputs != ([32]byte{}) {
		if err := sameInputs(draw, st.meta.Inputs, req.Inputs); err != nil {
			return nil, err
		}
	}
	// The root of the list given under the draw's key K, so that any other
	// list is told from the frozen one by the log's record itself.
	list := &promo.EntrantList{Draw: draw, Key: st.list.Key, Accounts: req.Entrants, Scheme: f.EntrantScheme}
	tree, err := list.Tree()
	if err != nil {
		return nil, fmt.Errorf("%s: the entrant list given: %w", draw, err)
	}
	if root := tree.Root(); uint64(tree.Size()) != f.Count || root != f.Root {
		return nil, fmt.Errorf("%s: %w: the entrant list given (%d entrants, root %x) is not the frozen one (%d entrants, root %x, log index %d); no receipt",
			draw, ErrNotFreezeInputs, tree.Size(), root[:8], f.Count, f.Root[:8], at)
	}
	if req.Withheld != st.meta.Withheld {
		return nil, fmt.Errorf("%s: %w: %d participants withheld (closed accounts), the freeze's documents say %d; no receipt", draw, ErrNotFreezeInputs, req.Withheld, st.meta.Withheld)
	}
	if !bytes.Equal(list.Format(), st.list.Format()) {
		return nil, fmt.Errorf("%s: entrants.txt in %s is not the frozen list; inspect it; no receipt", draw, dir)
	}
	return a.receipt(ctx, draw, st)
}

// sameInputs returns an ErrNotFreezeInputs error naming the first of the
// files given that is not the freeze's (frozen: its meta.json's, which
// the record binds), or the role whose number of files differs; nil when
// they are the same files, in the same order (names aside).
func sameInputs(draw string, frozen, given []promo.InputFile) error {
	if err := promo.CompareInputFiles(frozen, given); err != nil {
		var ce *promo.CheckError
		if errors.As(err, &ce) {
			err = ce.Err
		}
		return fmt.Errorf("%s: %w: %w; no receipt", draw, ErrNotFreezeInputs, err)
	}
	return nil
}

// checkMetaInputs: the input files meta.json lists (which the receipt
// shows) are those the freeze record f binds, or none when it binds none.
func checkMetaInputs(f *record.PromoFreeze, meta Meta) error {
	if f.Inputs == ([32]byte{}) {
		if len(meta.Inputs) > 0 {
			return fmt.Errorf("meta.json lists %d input files, the freeze record binds none", len(meta.Inputs))
		}
		return nil
	}
	d, err := promo.InputsDigest(meta.Inputs)
	if err == nil && d != f.Inputs {
		err = fmt.Errorf("they encode to %x, the record binds %x", d, f.Inputs)
	}
	if err != nil {
		return fmt.Errorf("meta.json's input files are not those the freeze record binds: %w", err)
	}
	return nil
}

// receipt is the receipt of draw, whose state is st, against the log's
// latest checkpoint.
func (a *Appliance) receipt(ctx context.Context, draw string, st *drawState) (*FreezeReceipt, error) {
	cp, err := a.cfg.Log.AwaitCheckpoint(ctx, st.freezeIdx+1)
	if err != nil {
		return nil, fmt.Errorf("couldn't get a checkpoint including the freeze: %w", err)
	}
	p, err := a.cfg.Log.InclusionProof(ctx, st.freezeIdx, cp.Size)
	if err != nil {
		return nil, err
	}
	f := st.freeze
	if err := checkMetaInputs(f, st.meta); err != nil {
		return nil, fmt.Errorf("%s: %w; inspect %s", draw, err, st.dir)
	}
	lh := sha256.Sum256(st.list.Format())
	fl := record.LeafHash(st.freezeLeaf)
	return &FreezeReceipt{
		V: 1, Draw: draw, Title: st.meta.Title, RulesHash: st.meta.RulesHash, Days: st.meta.Days,
		Count: f.Count, Root: hex.EncodeToString(f.Root[:]), Commitment: hex.EncodeToString(f.Commit[:]),
		Reserves: f.Reserves, Beacon: f.Beacon, ShareCommitment: promo.ShareCommitmentHex(f), FrozenAt: promo.FormatTime(f.Time),
		Withheld: st.meta.Withheld, Participants: st.meta.Participants,
		Freeze:         promo.LoggedRecord{Index: st.freezeIdx, Record: string(st.freezeLeaf), Proof: promo.ProofHex(p)},
		FreezeLeafHash: hex.EncodeToString(fl[:]),
		Checkpoint:     string(cp.Note), LogKeys: a.cfg.Log.VerifierKeys(),
		EntrantsFile: hex.EncodeToString(lh[:]), Inputs: st.meta.Inputs,
	}, nil
}

// UndrawnDraw is a frozen draw whose ceremony has not drawn yet.
type UndrawnDraw struct {
	// Draw is "<operation>/<id>".
	Draw string
	// FreezeIndex is the freeze record's log index, -1 while the freeze is
	// not published (no freeze.idx: a crash after its append, or a failed
	// append; the next freeze of the draw publishes it).
	FreezeIndex int64
	// Key is the id of the VRF key the freeze names, the only one that can
	// draw it; "" for a freeze made before freezes named their key (or
	// whose freeze.leaf cannot be read).
	Key string
}

// DrawableBy reports whether the VRF key keyID, first announced at log
// index keysIndex (-1: not announced), can hold d's ceremony, as Draw
// decides: the key its freeze names, announced before the freeze
// (KeyBeforeFreeze).
func (d UndrawnDraw) DrawableBy(keyID string, keysIndex int64) bool {
	return (d.Key == "" || d.Key == keyID) && KeyBeforeFreeze(keysIndex, d.FreezeIndex)
}

// Undrawn lists the draws of the state directory dir (Config.Dir) whose
// freeze was made, published or not, and whose ceremony has not drawn yet
// (no draw.leaf), in the order of their directories: their draw must be
// proven with the VRF key the freeze names, announced before the freeze
// (DrawableBy).
// A draw whose ceremony window (the rules the freeze binds, DrawWindow)
// has closed by now is left out: Draw refuses it under any key, for ever.
// A draw whose rules cannot be read is listed. A missing dir has none.
func Undrawn(dir string, now time.Time) ([]UndrawnDraw, error) {
	leaves, err := filepath.Glob(filepath.Join(dir, "*", "*", "freeze.leaf"))
	if err != nil {
		return nil, err
	}
	var draws []UndrawnDraw
	for _, l := range leaves {
		d := filepath.Dir(l)
		if strings.Contains(filepath.Base(d), ".") || unsent(d) {
			continue // set aside by discard (no draw id has a '.'), or never sent
		}
		switch _, err := os.Stat(filepath.Join(d, "draw.leaf")); {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			return nil, err
		default:
			continue // drawn (published or being re-sent)
		}
		if windowClosed(d, now) {
			continue
		}
		idx, err := readIndex(filepath.Join(d, "freeze.idx"))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		draws = append(draws, UndrawnDraw{Draw: filepath.Base(filepath.Dir(d)) + "/" + filepath.Base(d), FreezeIndex: idx, Key: freezeKey(l)})
	}
	return draws, nil
}

// freezeKey is the VRF key id the freeze record in the file leaf names, ""
// when it names none or cannot be read.
func freezeKey(leaf string) string {
	b, err := os.ReadFile(leaf)
	if err != nil {
		return ""
	}
	rec, err := record.Parse(b)
	if fr, ok := rec.(*record.PromoFreeze); err == nil && ok {
		return fr.Key
	}
	return ""
}

// windowClosed reports whether the ceremony window of the draw in dir has
// closed at now, by the rules file its freeze binds (as Draw decides).
func windowClosed(dir string, now time.Time) bool {
	leaf, err := os.ReadFile(filepath.Join(dir, "freeze.leaf"))
	if err != nil {
		return false
	}
	rulesFile, err := os.ReadFile(filepath.Join(dir, "rules.yaml"))
	if err != nil {
		return false
	}
	rec, err := record.Parse(leaf)
	fr, ok := rec.(*record.PromoFreeze)
	if err != nil || !ok {
		return false
	}
	r, j, err := promo.RulesOfFreeze(rulesFile, fr)
	if err != nil {
		return false
	}
	_, until := r.DrawWindow(j)
	return !now.UTC().Truncate(time.Second).Before(until)
}

// KeyBeforeFreeze reports whether a VRF key whose (first) announcement is
// at log index keysIndex (-1: not announced) may prove the draw of a
// freeze at freezeIndex (-1: not yet published): auditors count a draw
// only under a key announced before its freeze. An unpublished freeze is
// published after every record now in the log, unless its append went
// through before a crash: an announced key is taken to precede it, a key
// not yet announced not. Draw refuses what this refuses (ErrKeyAfterFreeze).
func KeyBeforeFreeze(keysIndex, freezeIndex int64) bool {
	if keysIndex < 0 {
		return false
	}
	return freezeIndex < 0 || keysIndex <= freezeIndex
}

// EntrantsFile returns the path of a draw's private entrant list.
func (a *Appliance) EntrantsFile(draw string) (string, error) {
	dir, err := a.drawDir(draw)
	return filepath.Join(dir, "entrants.txt"), err
}

// formatIndex is the content of an index file (freeze.idx, draw.idx,
// announcement.idx): a log index in decimal and a newline.
func formatIndex(i uint64) []byte {
	return []byte(strconv.FormatUint(i, 10) + "\n")
}

// parseIndex reads the content b of index file name (formatIndex), with or
// without its newline.
func parseIndex(name string, b []byte) (int64, error) {
	n, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 63)
	if err != nil {
		return -1, fmt.Errorf("%s is damaged", name)
	}
	return int64(n), nil
}

// The state files' bounds: an index file holds a decimal below 2^63
// (formatIndex), meta.json a few strings and counts from the rules, and
// the days of a draw (at most a year's).
const (
	maxIndexFile = 64
	maxMetaFile  = 1 << 20
)

func readIndex(path string) (int64, error) {
	b, err := readState(path, maxIndexFile)
	if err != nil {
		return -1, err
	}
	return parseIndex(filepath.Base(path), b)
}

// decodeJSON decodes the content b of state file name into v. A Meta
// that names no draw (null, {}) is damaged: Freeze writes it with one.
func decodeJSON(name string, b []byte, v any) error {
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s is damaged: %w", name, err)
	}
	if m, ok := v.(*Meta); ok && m.Draw == "" {
		return fmt.Errorf("%s is damaged: it names no draw", name)
	}
	return nil
}

func readJSON(path string, v any) error {
	b, err := readState(path, maxMetaFile)
	if err != nil {
		return err
	}
	return decodeJSON(filepath.Base(path), b, v)
}

// readState reads state file path of at most limit bytes: a larger one is
// damaged. Its other errors name the path, and wrap fs.ErrNotExist for a
// file that is not there.
func readState(path string, limit int64) ([]byte, error) {
	b, err := boundedfile.Read(path, limit)
	var large *boundedfile.TooLargeError
	switch {
	case errors.As(err, &large):
		return nil, fmt.Errorf("%s is damaged: %w", filepath.Base(path), err)
	case err != nil:
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return b, nil
}
