package ctl

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"tirage.fr/tirage/rngd"
	"tirage.fr/tirage/rngd/entropy"
	"tirage.fr/tirage/rngd/internal/witnesspolicy"
	rpromo "tirage.fr/tirage/rngd/promo"
	"tirage.fr/tirage/verifier/promo"
	"tirage.fr/tirage/verifier/promo/stakes"
	"tirage.fr/tirage/verifier/record"
	"tirage.fr/tirage/verifier/verdict"
)

func init() {
	register("promo", Command{Summary: "promotions: rules, stakes, e-credits, freeze, bailiff ceremony, certificates", Run: runPromo})
}

// promoNow is the clock of freezes and ceremonies; tests set it.
var promoNow = time.Now

const promoUsage = `usage: rngctl promo SUBCOMMAND [FLAGS]

  check RULES         validate a rules file (each error names its line and field)
  gen                 write a synthetic stake file (and a closed-accounts file)
  eligibility         read stakes, write the e-credit report and rejections; no log
  freeze              eligibility, then freeze each draw's entrant list into the log
  receipts            re-issue the receipts of draws frozen already (freeze's flags
                        and its very input files; nothing appended to the log)
  draw                the bailiff's ceremony for one frozen draw (once), then its certificate
  certificate         re-issue a drawn draw's certificate and documents
  entrant-proof       write one player's proof of their entry in a frozen draw
                        (rngverify entrant checks it; no other entrant revealed)

gen:
  --rules FILE --out FILE [--rows N] [--accounts N] [--seed S] [--format csv|jsonl]
  [--defects] [--closed FILE]

eligibility, freeze and receipts:
  --rules FILE          the operation's rules (YAML)
  --stakes FILE         stake file, CSV or JSON Lines (.jsonl), - for standard input;
                        repeat the flag for several files
  --closed FILE         closed accounts (CSV: account[,closed_at])
                        each file's SHA-256 is printed ("input ROLE NAME sha256:HEX");
                        freeze binds them, in order; receipts refuses other files
  --out DIR             where to write e-credits.csv, rejected.txt, summary.json
                        and (freeze, receipts) each draw's receipt and private entrant list
  --quiet               no progress bar
freeze:
  --share-commitment [DRAW=]HEX
                        the bailiff's commitment to their share, as rngverify
                        share-commitment --draw DRAW printed it; required for
                        each draw whose rules announce a beacon round (else
                        optional); DRAW= may be left out when one draw is frozen;
                        repeat the flag for several draws
entrant-proof:
  --draw ID --account ACCOUNT --out FILE
                        the account's opening, index and inclusion proof in the
                        frozen root, with the freeze receipt (a new FILE, mode 0600);
                        an account not in the frozen list is refused (exit 1),
                        as is a freeze made before entrant proofs existed
freeze, receipts, draw, certificate and entrant-proof (the offline ceremony on the appliance):
  --data DIR            data directory: log/ (embedded tile log) and promo/ (draw state);
                        freeze creates the log, the others refuse a DIR without one
  --origin NAME         the log's origin (checkpoint name), e.g. tirage.fr/promo/<appliance>
  --draw ID             draw id, e.g. bonus-crescendo/1 (freeze, receipts: default every draw)
  --backend pkcs11|software, --allow-software, --keys DIR, --passphrase-file FILE,
  --passphrase-fd N, --module PATH, --token-label L, --pin-file FILE, --pin-fd N
                        key custody, as for rngctl keys (secrets never from a flag):
                        --backend and, for pkcs11, --module are required, and
                        software keys need --allow-software (a dev build defaults
                        to --backend software)
  --witness-policy FILE witnesses that must cosign each checkpoint of the log before
                        it is published (as rngd's log.witness_policy; see
                        examples/witnesses.policy): a freeze receipt's checkpoint then
                        carries their times, which rngverify freeze --witness holds
                        against the announced beacon round. Owned by root or you, not
                        writable by group or others (0600 with credentials in its
                        URLs), in a directory alike, as rngd checks it
  --vrf-label L         VRF key (default vrf): a freeze names it; draw: the key the freeze names, any other is refused; --log-label L: log key (default log)
  --entropy KIND        hwrng (default), rdseed or tpm, mixed with getrandom;
  --min-entropy H       its declared min-entropy per byte, 0 < H <= 8 (default 4)
draw:
  --dice                the bailiff's share is dice rolls (digits 1-6), else typed text
  --share-file FILE     read the share from FILE instead of standard input
  --beacon HEX          the signature of the drand round announced in the rules, hex,
                        as published (https://api.drand.sh/<chain hash>/public/<round>,
                        "signature"); checked against the pinned chain key before
                        the share is asked for
  --beacon-previous HEX chained chains (drand default): the round's "previous_signature"
  --out DIR             where to write certificate.json, proces-verbal.pdf, annexe-privee.pdf

The share is read from standard input after the freeze receipt's fingerprint
is shown, and only for a draw that can be held (not run already, within the
rules' dates, under the VRF key its freeze names): it is typed at the
ceremony, never put on a command line. An
interrupt (Ctrl-C) at the share, passphrase or PIN prompt draws nothing: what
was typed is not used. --stakes - is refused when the passphrase or PIN would
be read from standard input too.

No output file is ever overwritten: an existing one is a usage error, found
before anything is read or written; a failure or an interrupt leaves no
partial output (--out DIR as it was).

Exit status: 0 done, 1 the operation failed or was refused (one line says
why), 2 usage error.
`

type promoCmd struct {
	env  Env
	name string
	fs   *flag.FlagSet
	keys keysCmd

	rules, closed, out, data, origin, draw string
	stakes                                 stringList
	quiet, dice, defects                   bool
	vrfLabel, logLabel, entropyKind        string
	minEntropy                             float64
	shareFile, beacon, beaconPrev, format  string
	shareCommitments                       stringList
	account                                string
	witnessPolicy                          string
	rows                                   int64
	accounts                               int
	seed                                   uint64
	genClosed                              string
	// nothing says, after an interrupt, what the subcommand did not do.
	nothing string
}

type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

func runPromo(ctx context.Context, env Env) int {
	if code, done := groupHelp(env, promoUsage); done {
		return code
	}
	c := &promoCmd{env: env, name: "rngctl promo " + env.Args[0], nothing: nothingDone(env.Args[0])}
	c.keys = keysCmd{env: env, name: c.name, dirFlag: "--keys", ctx: ctx}
	fs := newFlags(c.name)
	c.fs = fs
	var run func(context.Context) error
	logFlags := func() {
		fs.StringVar(&c.data, "data", "", "")
		fs.StringVar(&c.origin, "origin", "", "")
		fs.StringVar(&c.draw, "draw", "", "")
		c.keys.custodyFlags(fs)
		fs.StringVar(&c.vrfLabel, "vrf-label", "vrf", "")
		fs.StringVar(&c.logLabel, "log-label", "log", "")
		fs.StringVar(&c.entropyKind, "entropy", "hwrng", "")
		fs.Float64Var(&c.minEntropy, "min-entropy", 4, "")
		fs.StringVar(&c.witnessPolicy, "witness-policy", "", "")
	}
	stakeFlags := func() {
		fs.StringVar(&c.rules, "rules", "", "")
		fs.Var(&c.stakes, "stakes", "")
		fs.StringVar(&c.closed, "closed", "", "")
		fs.StringVar(&c.out, "out", "", "")
		fs.BoolVar(&c.quiet, "quiet", false, "")
	}
	switch env.Args[0] {
	case "check":
		run = c.check
	case "gen":
		fs.StringVar(&c.rules, "rules", "", "")
		fs.StringVar(&c.out, "out", "", "")
		fs.Int64Var(&c.rows, "rows", 100_000, "")
		fs.IntVar(&c.accounts, "accounts", 0, "")
		fs.Uint64Var(&c.seed, "seed", 1, "")
		fs.StringVar(&c.format, "format", "csv", "")
		fs.BoolVar(&c.defects, "defects", false, "")
		fs.StringVar(&c.genClosed, "closed", "", "")
		run = c.gen
	case "eligibility":
		stakeFlags()
		run = c.runEligibility
	case "freeze":
		stakeFlags()
		logFlags()
		fs.Var(&c.shareCommitments, "share-commitment", "")
		run = c.freeze
	case "receipts":
		stakeFlags()
		logFlags()
		run = c.receipts
	case "draw":
		logFlags()
		fs.BoolVar(&c.dice, "dice", false, "")
		fs.StringVar(&c.shareFile, "share-file", "", "")
		fs.StringVar(&c.beacon, "beacon", "", "")
		fs.StringVar(&c.beaconPrev, "beacon-previous", "", "")
		fs.StringVar(&c.out, "out", "", "")
		run = c.runDraw
	case "certificate":
		logFlags()
		fs.StringVar(&c.out, "out", "", "")
		run = c.certificate
	case "entrant-proof":
		logFlags()
		fs.StringVar(&c.account, "account", "", "")
		fs.StringVar(&c.out, "out", "", "")
		run = c.entrantProof
	default:
		return usageError(env, "promo", "promo: unknown subcommand %q", env.Args[0])
	}
	if code, ok := parseArgs(env, fs, env.Args[1:], strings.TrimPrefix(c.name, "rngctl "), promoUsage, env.Args[0] == "check"); !ok {
		return code
	}
	err := c.checkFlags(env.Args[0])
	if err == nil {
		err = run(ctx)
	}
	// A --draw the rules do not define is the flag's mistake, not a draw
	// left to freeze.
	if ude := (*rpromo.UndefinedDrawError)(nil); errors.As(err, &ude) {
		err = usagef("--draw: %v", ude)
	}
	if err != nil {
		fmt.Fprintf(env.Stderr, "%s: %s\n", c.name, strings.ReplaceAll(err.Error(), "\n", "; "))
		if errors.Is(err, errUsage) {
			return ExitUsage
		}
		return ExitFail
	}
	return ExitOK
}

// errInterrupted is an interrupt (Ctrl-C) seen after an interactive read
// (a passphrase, a PIN, the bailiff's share): what was read is not used.
var errInterrupted = errors.New("interrupted")

// nothingDone says, after an interrupt, what subcommand sub did not do.
func nothingDone(sub string) string {
	switch sub {
	case "freeze":
		return "nothing frozen"
	case "draw":
		return "nothing drawn"
	}
	return "nothing written"
}

// checkFlags checks, right after the flags are parsed and before anything
// is read, opened or written, what the flags alone decide for subcommand
// sub: the entropy flags of the commands that open the log; that standard
// input is not asked for both the stakes and a passphrase or PIN; and that
// the --data of receipts, draw and certificate holds a log (only freeze
// creates one: opening a mistyped --data would create a second log,
// signed by the same key under the same origin).
func (c *promoCmd) checkFlags(sub string) error {
	switch sub {
	case "freeze", "receipts", "draw", "certificate", "entrant-proof":
	default:
		return nil
	}
	if err := checkEntropyFlags(c.entropyKind, c.minEntropy); err != nil {
		return err
	}
	if slices.Contains(c.stakes, "-") {
		if what, fileFlag, fdFlag := c.stdinSecret(); what != "" {
			return usagef("--stakes - and the %s both from standard input: give the %s with %s FILE or %s N", what, what, fileFlag, fdFlag)
		}
	}
	if sub != "freeze" && c.data != "" {
		// The custody flags first, as before this check: they are flags
		// too (keysCmd.open checks them again).
		if err := c.keys.checkBackend(); err != nil {
			return err
		}
		if fi, err := os.Stat(filepath.Join(c.data, "log")); err != nil || !fi.IsDir() {
			return usagef("--data %s holds no log: nothing was frozen there (is --data right? only freeze creates the log)", c.data)
		}
	}
	return nil
}

// stdinSecret names the secret the key custody flags leave to standard
// input (what: "passphrase" or "PIN", and the flags that would give it
// otherwise), or none ("").
func (c *promoCmd) stdinSecret() (what, fileFlag, fdFlag string) {
	k := &c.keys
	switch {
	case k.backend == "software" && k.passFile == "" && k.passFD == "":
		return "passphrase", "--passphrase-file", "--passphrase-fd"
	case k.backend == "pkcs11" && k.pinFile == "" && k.pinFD == "":
		return "PIN", "--pin-file", "--pin-fd"
	}
	return "", "", ""
}

// checkEntropyFlags checks --entropy and --min-entropy as entropy.New will
// take them: a physical source of 8-bit samples (the default sample size)
// with 0 < H <= 8, which its health tests can test (entropy.NewHealthTest
// says why not) and whose seed is at most entropy.MaxSeedBytes raw bytes.
func checkEntropyFlags(kind string, h float64) error {
	switch kind {
	case entropy.KindHWRNG, entropy.KindRDSEED, entropy.KindTPM:
	default:
		return usagef("--entropy %q: want hwrng, rdseed or tpm", kind)
	}
	const sampleBits = 8
	if !(h > 0 && h <= sampleBits) {
		return usagef("--min-entropy %g: want 0 < H <= %d (bits per byte)", h, sampleBits)
	}
	if _, err := entropy.NewHealthTest(kind, sampleBits, h, entropy.DefaultAlpha); err != nil {
		return usagef("--min-entropy %g: %v", h, err)
	}
	if entropy.DefaultSeedBytes(entropy.DefaultRequiredEntropy, h) > entropy.MaxSeedBytes {
		return usagef("--min-entropy %g: too low: a seed would take more than %d raw bytes", h, entropy.MaxSeedBytes)
	}
	return nil
}

func (c *promoCmd) check(context.Context) error {
	if c.fs.NArg() != 1 {
		return usagef("check takes one rules file")
	}
	r, data, err := loadRules(c.fs.Arg(0))
	if err != nil {
		return err
	}
	h := promo.RulesHash(data)
	fmt.Fprintf(c.env.Stdout, "%s: %d days, %d draws, rules sha256 %x\n", r.Operation, len(r.Days), len(r.Draws), h)
	for i, d := range r.Draws {
		if d.Beacon == nil {
			continue
		}
		// Validated by ParseRules: a round of a pinned chain.
		ref, ch, _ := d.Beacon.Ref()
		fmt.Fprintf(c.env.Stdout, "%s: beacon %s round %d, published at %s (freeze before it); logged as %s\n",
			r.FullDrawID(i), ch, ref.Round, promo.FormatTime(ch.RoundTime(ref.Round)), ref)
	}
	return nil
}

// loadRules reads and validates a rules file; every problem is reported,
// each with its line and field.
func loadRules(path string) (*promo.Rules, []byte, error) {
	if path == "" {
		return nil, nil, usagef("--rules FILE is required")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("couldn't read the rules: %w", err)
	}
	r, err := promo.ParseRules(data)
	if err != nil {
		var msgs []string
		for _, e := range promo.RulesErrors(err) {
			msgs = append(msgs, filepath.Base(path)+": "+e.Error())
		}
		return nil, nil, fmt.Errorf("invalid rules file: %s", strings.Join(msgs, "; "))
	}
	return r, data, nil
}

// gen writes the stake file (and the closed accounts): every flag is
// checked and neither file may exist before anything is written, and both
// appear, complete, or neither.
func (c *promoCmd) gen(ctx context.Context) error {
	if c.out == "" {
		return usagef("--out FILE is required")
	}
	if c.rows < 0 {
		return usagef("--rows %d: want 0 or more", c.rows)
	}
	if c.accounts < 0 {
		return usagef("--accounts %d: want 1 or more (0: one per 8 rows)", c.accounts)
	}
	if c.format != stakes.FormatCSV && c.format != stakes.FormatJSONL {
		return usagef("--format must be csv or jsonl")
	}
	if c.genClosed != "" && filepath.Clean(c.genClosed) == filepath.Clean(c.out) {
		return usagef("--out and --closed are the same file")
	}
	r, _, err := loadRules(c.rules)
	if err != nil {
		return err
	}
	if err := checkNewOutput("--out", c.out); err != nil {
		return err
	}
	if c.genClosed != "" {
		if err := checkNewOutput("--closed", c.genClosed); err != nil {
			return err
		}
	}
	accounts := c.accounts
	if accounts == 0 {
		accounts = max(1, int(c.rows/8))
	}
	stakes, err := stageFile(ctx, "--out", c.out, 0o644, func(w io.Writer) error {
		return rpromo.Generate(w, r, rpromo.GenConfig{Rows: c.rows, Accounts: accounts, Seed: c.seed, Format: c.format, Defects: c.defects})
	})
	if err != nil {
		return err
	}
	defer os.Remove(stakes)
	var closed string
	if c.genClosed != "" {
		if closed, err = stageFile(ctx, "--closed", c.genClosed, 0o644, func(w io.Writer) error { return rpromo.GenerateClosed(w, r, accounts, c.seed) }); err != nil {
			return err
		}
		defer os.Remove(closed)
	}
	if err := renameNew(stakes, c.out); err != nil {
		return fmt.Errorf("--out %s: %w", c.out, rngd.Pathless(err))
	}
	if c.genClosed != "" {
		if err := renameNew(closed, c.genClosed); err != nil {
			os.Remove(c.out) // both or neither
			return fmt.Errorf("--closed %s: %w", c.genClosed, rngd.Pathless(err))
		}
	}
	// What was written goes to standard error, as the progress of
	// eligibility does: the data is in the files.
	defects := ""
	if c.defects {
		defects = ", with malformed and duplicate rows"
	}
	fmt.Fprintf(c.env.Stderr, "wrote %s: %d synthetic stake rows (%s%s) of %d accounts for %s, seed %d\n", c.out, c.rows, c.format, defects, accounts, r.Operation, c.seed)
	if c.genClosed != "" {
		fmt.Fprintf(c.env.Stderr, "wrote %s: closed accounts (CSV account,closed_at)\n", c.genClosed)
	}
	return nil
}

// checkNewOutput is checkNewFile as a usage error: an output file the
// operator names must not exist (it is never overwritten).
func checkNewOutput(flag, path string) error {
	if err := checkNewFile(flag, path); err != nil {
		return fmt.Errorf("%w: %w", errUsage, err)
	}
	return nil
}

// stageFile writes the output file path (named by flag) with fn into a
// temporary file beside it, which it returns for renameNew; on failure,
// including an interrupt (ctx), nothing is left.
func stageFile(ctx context.Context, flag, path string, mode os.FileMode, fn func(io.Writer) error) (string, error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return "", fmt.Errorf("%s %s: %w", flag, path, rngd.Pathless(err))
	}
	err = f.Chmod(mode)
	if err == nil {
		err = fn(ctxWriter{ctx, f})
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", fmt.Errorf("%s %s: %w", flag, path, err)
	}
	return f.Name(), nil
}

// ctxWriter stops writing once ctx is done (an interrupt).
type ctxWriter struct {
	ctx context.Context
	w   io.Writer
}

func (w ctxWriter) Write(p []byte) (int, error) {
	if err := w.ctx.Err(); err != nil {
		return 0, fmt.Errorf("interrupted: %w", err)
	}
	return w.w.Write(p)
}

// renameNew renames oldpath to newpath, which must not exist: it is never
// replaced (RENAME_NOREPLACE; on a file system without it, a check just
// before the rename).
func renameNew(oldpath, newpath string) error {
	err := unix.Renameat2(unix.AT_FDCWD, oldpath, unix.AT_FDCWD, newpath, unix.RENAME_NOREPLACE)
	if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) {
		if _, lerr := os.Lstat(newpath); lerr == nil {
			err = fs.ErrExist
		} else {
			return os.Rename(oldpath, newpath)
		}
	}
	if err != nil {
		return &os.LinkError{Op: "rename", Old: oldpath, New: newpath, Err: err}
	}
	return nil
}

// outDir is an output directory (--out DIR) filled all at once: the files
// are written in a temporary directory and moved in when the command
// succeeded, never over a file already there; a failure leaves the
// directory as it was (or absent).
type outDir struct {
	flag, dir string
	fresh     bool   // dir did not exist: tmp is renamed to it
	tmp       string // the staging directory, once made
	published bool
}

// newOutDir checks, before anything is made, that the files names can be
// written in dir: dir is a directory or can be made, and holds none of them.
func newOutDir(flag, dir string, names []string) (*outDir, error) {
	if dir == "" {
		return nil, usagef("%s DIR is required", flag)
	}
	o := &outDir{flag: flag, dir: dir}
	fi, err := os.Stat(dir)
	switch {
	case err == nil && !fi.IsDir():
		return nil, usagef("%s %s is not a directory", flag, dir)
	case err == nil:
		for _, n := range names {
			if _, err := os.Lstat(filepath.Join(dir, n)); err == nil {
				return nil, usagef("%s %s holds %s already: it is never overwritten (choose another directory)", flag, dir, n)
			}
		}
	case errors.Is(err, fs.ErrNotExist):
		o.fresh = true // its parents are made by stage, as before
	default:
		return nil, fmt.Errorf("%s %s: %w", flag, dir, rngd.Pathless(err))
	}
	return o, nil
}

// stage makes the staging directory: inside dir (the same file system), or
// beside it when dir is to be made.
func (o *outDir) stage() error {
	parent, pattern := o.dir, ".tmp-*"
	if o.fresh {
		parent, pattern = filepath.Dir(o.dir), "."+filepath.Base(o.dir)+".tmp-*"
		if err := os.MkdirAll(parent, 0o755); err != nil {
			return fmt.Errorf("%s %s: %w", o.flag, o.dir, rngd.Pathless(err))
		}
	}
	tmp, err := os.MkdirTemp(parent, pattern)
	if err != nil {
		return fmt.Errorf("%s %s: %w", o.flag, o.dir, rngd.Pathless(err))
	}
	o.tmp = tmp
	return nil
}

// create creates the staged file name.
func (o *outDir) create(name string, mode os.FileMode) (*os.File, error) {
	f, err := os.OpenFile(filepath.Join(o.tmp, name), os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", o.flag, o.dir, rngd.Pathless(err))
	}
	return f, nil
}

// write writes the staged file name with fn.
func (o *outDir) write(ctx context.Context, name string, mode os.FileMode, fn func(io.Writer) error) error {
	f, err := o.create(name, mode)
	if err != nil {
		return err
	}
	err = fn(ctxWriter{ctx, f})
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		o.drop(name)
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// drop removes the staged files names (those of a step that failed), so
// that publish moves none of them.
func (o *outDir) drop(names ...string) {
	for _, n := range names {
		os.Remove(filepath.Join(o.tmp, n))
	}
}

// path is where the file name will be once published.
func (o *outDir) path(name string) string { return filepath.Join(o.dir, name) }

// publish moves every staged file into dir (or the staging directory to
// dir): all of them, or, if one cannot be, none.
func (o *outDir) publish() error {
	if o.fresh {
		if err := renameNew(o.tmp, o.dir); err != nil {
			return fmt.Errorf("%s %s: %w", o.flag, o.dir, rngd.Pathless(err))
		}
		o.published = true
		return nil
	}
	entries, err := os.ReadDir(o.tmp)
	if err != nil {
		return err
	}
	var moved []string
	for _, e := range entries {
		dst := filepath.Join(o.dir, e.Name())
		if err := renameNew(filepath.Join(o.tmp, e.Name()), dst); err != nil {
			for _, m := range moved {
				os.Remove(m) // made just now by this run
			}
			return fmt.Errorf("%s %s: %s: %w", o.flag, o.dir, e.Name(), rngd.Pathless(err))
		}
		moved = append(moved, dst)
	}
	o.published = true
	return os.Remove(o.tmp)
}

// discard removes what was staged and not published.
func (o *outDir) discard() {
	if o.tmp != "" && !o.published {
		os.RemoveAll(o.tmp)
	}
}

// eligibilityResult is what eligibility computed.
type eligibilityResult struct {
	rules     *promo.Rules
	rulesFile []byte
	el        *promo.Eligibility
	stats     stakes.IngestStats
	summary   Summary
	// inputs are the input files, hashed as they were read: the stake
	// files in order, then the closed accounts (the freeze binds them).
	inputs []promo.InputFile
}

// Summary is summary.json: the counts of an eligibility run.
type Summary struct {
	Operation    string           `json:"operation"`
	RulesHash    string           `json:"rules_sha256"`
	Lines        int64            `json:"lines"`
	Rejected     int64            `json:"rejected"`
	Counted      int64            `json:"counted"`
	Excluded     map[string]int64 `json:"excluded"`
	Accounts     int              `json:"accounts_with_counted_stakes"`
	Days         []SummaryDay     `json:"days"`
	Draws        []SummaryDraw    `json:"draws"`
	ECredits     int64            `json:"e_credits"`
	ECreditCents int64            `json:"e_credit_cents"`
	// Inputs are the files read, with their SHA-256s: what a freeze of
	// them binds (promo.InputsDigest) and its receipt lists.
	Inputs []promo.InputFile `json:"inputs"`
}

// SummaryDay is one participation day's counts.
type SummaryDay struct {
	Date         string `json:"date"`
	Participants int    `json:"participants"`
	Withheld     int    `json:"e_credits_withheld_closed"`
}

// SummaryDraw is one draw's counts.
type SummaryDraw struct {
	Draw     string `json:"draw"`
	Entrants int    `json:"entrants"`
	Withheld int    `json:"withheld_closed"`
}

// reportFiles are the files eligibility (and freeze) writes in --out.
var reportFiles = []string{"e-credits.csv", "rejected.txt", "summary.json"}

// eligibilityInputs are eligibility's inputs, every one checked or opened
// before anything is written.
type eligibilityInputs struct {
	rules     *promo.Rules
	rulesFile []byte
	closed    promo.Closed
	// closedFile is the closed accounts' input file (its SHA-256 as
	// read), nil without --closed.
	closedFile *promo.InputFile
	stakes     []*os.File // as c.stakes; nil for standard input
}

func (in *eligibilityInputs) close() {
	for _, f := range in.stakes {
		if f != nil {
			f.Close()
		}
	}
}

// openInputs checks eligibility's flags, reads the rules and the closed
// accounts and opens every stake file.
func (c *promoCmd) openInputs() (*eligibilityInputs, error) {
	if len(c.stakes) == 0 {
		return nil, usagef("--stakes FILE is required")
	}
	if c.out == "" {
		return nil, usagef("--out DIR is required")
	}
	stdin := 0
	for _, name := range c.stakes {
		if name == "-" {
			stdin++
		}
	}
	if stdin > 1 {
		return nil, usagef("--stakes - (standard input) given %d times", stdin)
	}
	in := &eligibilityInputs{}
	var err error
	if in.rules, in.rulesFile, err = loadRules(c.rules); err != nil {
		return nil, err
	}
	if c.closed != "" {
		f, err := os.Open(c.closed)
		if err != nil {
			return nil, fmt.Errorf("--closed %s: couldn't open the closed accounts: %w", c.closed, rngd.Pathless(err))
		}
		// Hashed as it is read, to its end (the freeze binds it).
		sum, err := stakes.Hashed(f, func(r io.Reader) (err error) {
			in.closed, err = stakes.ReadClosed(r)
			return err
		})
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("--closed %s: %w", c.closed, err)
		}
		closedFile := promo.NewInputFile(promo.InputClosed, c.closed, sum)
		in.closedFile = &closedFile
	}
	for _, name := range c.stakes {
		var f *os.File
		if name != "-" {
			if f, err = os.Open(name); err != nil {
				in.close()
				return nil, fmt.Errorf("--stakes %s: couldn't open the stakes: %w", name, rngd.Pathless(err))
			}
		}
		in.stakes = append(in.stakes, f)
	}
	return in, nil
}

// runEligibility is rngctl promo eligibility: the report appears in --out
// whole, or nothing changes.
func (c *promoCmd) runEligibility(ctx context.Context) error {
	in, err := c.openInputs()
	if err != nil {
		return err
	}
	defer in.close()
	o, res, err := c.stagedEligibility(ctx, in, reportFiles)
	if err != nil {
		return err
	}
	defer o.discard()
	if err := o.publish(); err != nil {
		return err
	}
	c.printSummary(res)
	return nil
}

// stagedEligibility checks --out for the files names (newOutDir), stages
// it and computes the eligibility report into the staging directory; on an
// error nothing is left staged. The caller publishes or discards o.
func (c *promoCmd) stagedEligibility(ctx context.Context, in *eligibilityInputs, names []string) (*outDir, *eligibilityResult, error) {
	o, err := newOutDir("--out", c.out, names)
	if err != nil {
		return nil, nil, err
	}
	if err := o.stage(); err != nil {
		return nil, nil, err
	}
	res, err := c.eligibility(ctx, in, o)
	if err != nil {
		o.discard()
		return nil, nil, err
	}
	return o, res, nil
}

// eligibility ingests the stakes and writes the report into o's staging
// directory.
func (c *promoCmd) eligibility(ctx context.Context, in *eligibilityInputs, o *outDir) (*eligibilityResult, error) {
	// Millions of rows: keep the heap well under the appliance's 2 GiB budget
	// (a soft limit; GOMEMLIMIT in the environment wins).
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(1536 << 20)
	}
	r, data := in.rules, in.rulesFile
	rej, err := o.create("rejected.txt", 0o644)
	if err != nil {
		return nil, err
	}
	defer rej.Close()
	t := promo.NewTally(r)
	var total stakes.IngestStats
	var inputs []promo.InputFile
	for i, name := range c.stakes {
		st, sum, err := c.ingest(ctx, name, in.stakes[i], t, rej)
		shown := name
		if name == "-" {
			shown = "stdin" // as rejected.txt names it
		}
		inputs = append(inputs, promo.NewInputFile(promo.InputStakes, shown, sum))
		total.Add(st)
		if err != nil {
			return nil, err
		}
	}
	if err := rej.Close(); err != nil {
		return nil, fmt.Errorf("rejected.txt: %w", err)
	}
	if in.closedFile != nil {
		inputs = append(inputs, *in.closedFile)
	}
	el := t.Eligibility(in.closed)
	sum := Summary{Inputs: inputs}
	if err := o.write(ctx, "e-credits.csv", 0o644, func(w io.Writer) error {
		var err error
		sum.ECredits, sum.ECreditCents, err = rpromo.WriteECredits(w, el)
		return err
	}); err != nil {
		return nil, err
	}
	h := promo.RulesHash(data)
	sum.Operation, sum.RulesHash = r.Operation, fmt.Sprintf("%x", h)
	sum.Lines, sum.Rejected, sum.Counted, sum.Accounts = total.Lines, total.Rejected, total.Counted, t.Accounts()
	sum.Excluded = map[string]int64{}
	for i, n := range total.Excluded {
		if i > 0 && n > 0 {
			sum.Excluded[promo.Exclusion(i).String()] = n
		}
	}
	for i, d := range r.Days {
		sum.Days = append(sum.Days, SummaryDay{Date: d.Date, Participants: el.Participants[i], Withheld: el.WithheldECredits[i]})
	}
	for j := range r.Draws {
		sum.Draws = append(sum.Draws, SummaryDraw{Draw: r.FullDrawID(j), Entrants: len(el.Entrants[j]), Withheld: el.WithheldEntries[j]})
	}
	js, _ := json.MarshalIndent(sum, "", "  ")
	if err := o.write(ctx, "summary.json", 0o644, func(w io.Writer) error { _, err := w.Write(append(js, '\n')); return err }); err != nil {
		return nil, err
	}
	return &eligibilityResult{rules: r, rulesFile: data, el: el, stats: total, summary: sum, inputs: inputs}, nil
}

// printSummary prints eligibility's counts, once its report is in place.
func (c *promoCmd) printSummary(res *eligibilityResult) {
	sum := res.summary
	var excluded int64
	for _, n := range sum.Excluded {
		excluded += n
	}
	fmt.Fprintf(c.env.Stdout, "%d lines: %d counted, %d excluded (by reason in summary.json), %d rejected (see rejected.txt); %d e-credits, %s %s in all\n",
		sum.Lines, sum.Counted, excluded, sum.Rejected, sum.ECredits, centsString(sum.ECreditCents), res.rules.Currency)
	for _, d := range sum.Draws {
		fmt.Fprintf(c.env.Stdout, "draw %s: %d entrants (%d withheld: closed accounts)\n", d.Draw, d.Entrants, d.Withheld)
	}
	// What a freeze of these files binds, and the bailiff compares
	// (rngverify freeze --stakes … --closed …).
	for _, in := range sum.Inputs {
		fmt.Fprintf(c.env.Stdout, "input %s %s sha256:%s\n", in.Role, in.Name, in.SHA256)
	}
}

func centsString(c int64) string { return fmt.Sprintf("%d.%02d", c/100, c%100) }

// ingest reads one stake file with a progress bar on standard error; its
// rejections go to rejects as "<file>:<line>: <field>: <reason>". It
// returns the file's SHA-256, of the bytes read (standard input too: what
// was streamed), to their end.
func (c *promoCmd) ingest(ctx context.Context, name string, f *os.File, t *promo.Tally, rejects io.Writer) (stakes.IngestStats, [32]byte, error) {
	var in io.Reader = c.env.Stdin
	var size int64
	if f != nil {
		if fi, err := f.Stat(); err == nil {
			size = fi.Size()
			// Stake rows are about 75 (CSV) or 125 (JSON Lines) bytes.
			perRow := int64(70)
			if stakes.FormatOf(name) == stakes.FormatJSONL {
				perRow = 115
			}
			t.Grow(int(size / perRow))
		}
		in = f
	}
	var progress func(lines, n int64)
	if !c.quiet {
		start := time.Now()
		progress = func(lines, n int64) {
			pct := ""
			if size > 0 {
				pct = fmt.Sprintf(" %3d%%", n*100/size)
			}
			fmt.Fprintf(c.env.Stderr, "\r%s:%s %d lines, %d MB, %.0fs", filepath.Base(name), pct, lines, n>>20, time.Since(start).Seconds())
		}
	}
	// rejected.txt names the file of every rejection as given on the
	// command line (two --stakes files may share a base name).
	label := name
	if name == "-" {
		label = "stdin"
	}
	var st stakes.IngestStats
	sum, err := stakes.Hashed(in, func(r io.Reader) (err error) {
		st, err = stakes.IngestFile(ctx, label, r, stakes.FormatOf(name), t, rejects, progress)
		return err
	})
	if progress != nil {
		fmt.Fprintln(c.env.Stderr)
	}
	if err != nil {
		return st, sum, fmt.Errorf("--stakes %s: %w", name, err)
	}
	return st, sum, nil
}

// open opens the keys, the entropy generator and the log.
func (c *promoCmd) open(ctx context.Context) (*rpromo.Appliance, func(), error) {
	if c.data == "" || c.origin == "" {
		return nil, nil, usagef("--data DIR and --origin NAME are required")
	}
	var policy []byte
	if c.witnessPolicy != "" {
		// Read with rngd's log.witness_policy checks: owner, mode, and
		// the directory holding it.
		b, err := witnesspolicy.Read(c.witnessPolicy)
		if err != nil {
			return nil, nil, usagef("--witness-policy %s: %v", c.witnessPolicy, err)
		}
		policy = b
	}
	keys, err := c.keys.open()
	if errors.Is(err, errInterrupted) {
		return nil, nil, fmt.Errorf("%w: %s", errInterrupted, c.nothing)
	}
	if err != nil {
		return nil, nil, err
	}
	// An interrupt while the passphrase or PIN was typed: nothing is
	// opened with it.
	if ctx.Err() != nil {
		keys.Close()
		return nil, nil, fmt.Errorf("%w: %s", errInterrupted, c.nothing)
	}
	// --entropy and --min-entropy were checked by checkFlags.
	src := entropy.SourceConfig{Kind: c.entropyKind, MinEntropy: c.minEntropy}
	log := slog.New(slog.NewTextHandler(c.env.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	gen, err := entropy.New(entropy.Config{Sources: []entropy.SourceConfig{src, {Kind: "getrandom"}},
		Personalization: []byte("tirage rngctl promo " + c.origin), Logger: log})
	if err != nil {
		keys.Close()
		return nil, nil, fmt.Errorf("couldn't start the entropy generator: %w", err)
	}
	a, lg, err := rpromo.OpenOffline(ctx, rpromo.OfflineConfig{
		DataDir: c.data, Origin: c.origin, Keys: keys, VRFLabel: c.vrfLabel, LogLabel: c.logLabel,
		Entropy: gen, Clock: promoNow, Logger: log, WitnessPolicy: policy,
	})
	if err != nil {
		gen.Close()
		keys.Close()
		return nil, nil, err
	}
	return a, func() { lg.Close(); gen.Close(); keys.Close() }, nil
}

// receiptFiles are the files the receipt of draw is written as.
func receiptFiles(draw string) []string {
	base := strings.ReplaceAll(draw, "/", "-")
	return []string{base + "-receipt.json", base + "-receipt.pdf", base + "-entrants.txt"}
}

// freezeRun is what freeze and receipts work on: the draws --draw names
// (every draw without it), their eligibility report staged in o, and the
// appliance. done closes it all and discards what o did not publish.
type freezeRun struct {
	draws []int
	o     *outDir
	res   *eligibilityResult
	a     *rpromo.Appliance
	done  func()
	// shares are the bailiff's share commitments by draw index (freeze).
	shares map[int][32]byte
}

// openFreezeRun opens freeze's (and receipts') inputs, checks that --out
// can take the report and each draw's receipt and, freezing, the share
// commitments, stages the report and opens the appliance.
func (c *promoCmd) openFreezeRun(ctx context.Context, freezing bool) (*freezeRun, error) {
	if c.data == "" || c.origin == "" {
		return nil, usagef("--data DIR and --origin NAME are required")
	}
	in, err := c.openInputs()
	if err != nil {
		return nil, err
	}
	r := in.rules
	var draws []int
	names := slices.Clone(reportFiles)
	for j := range r.Draws {
		if c.draw == "" || c.draw == r.FullDrawID(j) || c.draw == r.Draws[j].ID {
			draws = append(draws, j)
			names = append(names, receiptFiles(r.FullDrawID(j))...)
		}
	}
	if len(draws) == 0 {
		in.close()
		return nil, usagef("--draw %q is not a draw of %s", c.draw, r.Operation)
	}
	var shares map[int][32]byte
	if freezing {
		if shares, err = c.shareCommitmentFlags(r, draws); err != nil {
			in.close()
			return nil, err
		}
	}
	o, res, err := c.stagedEligibility(ctx, in, names)
	if err != nil {
		in.close()
		return nil, err
	}
	a, closeAll, err := c.open(ctx)
	if err != nil {
		o.discard()
		in.close()
		return nil, err
	}
	return &freezeRun{draws: draws, shares: shares, o: o, res: res, a: a, done: func() { closeAll(); o.discard(); in.close() }}, nil
}

// shareCommitmentFlags reads freeze's --share-commitment [DRAW=]HEX flags
// for the draws frozen (indices of r.Draws): one commitment at most per
// draw, and one for every draw whose rules announce a beacon round (its
// share must be fixed before the round is published). A refusal is a
// usage error, found before the stakes are read; nothing is frozen.
func (c *promoCmd) shareCommitmentFlags(r *promo.Rules, draws []int) (map[int][32]byte, error) {
	out := map[int][32]byte{}
	for _, v := range c.shareCommitments {
		id, hx, named := strings.Cut(v, "=")
		j := -1
		switch {
		case !named && len(draws) != 1:
			return nil, usagef("--share-commitment %s: this freeze freezes %d draws: give DRAW=HEX, one flag per draw", v, len(draws))
		case !named:
			j, hx = draws[0], v
		default:
			for _, k := range draws {
				if id == r.FullDrawID(k) || id == r.Draws[k].ID {
					j = k
				}
			}
			if j < 0 {
				return nil, usagef("--share-commitment %s=…: %q is not a draw this freeze freezes", id, id)
			}
		}
		var sc [32]byte
		b, err := hex.DecodeString(hx)
		if err != nil || len(b) != len(sc) {
			return nil, usagef("--share-commitment %s: not a share commitment (64 hex digits, as rngverify share-commitment prints it)", v)
		}
		copy(sc[:], b)
		if sc == ([32]byte{}) {
			// No SHA-256 output: the freeze would log none (and, with a
			// beacon, refuse only once the stakes are read).
			return nil, usagef("--share-commitment %s: all zero, not a share commitment (as rngverify share-commitment prints it)", v)
		}
		if _, twice := out[j]; twice {
			return nil, usagef("--share-commitment: two commitments for draw %s", r.FullDrawID(j))
		}
		out[j] = sc
	}
	for _, j := range draws {
		if _, ok := out[j]; !ok && r.Draws[j].Beacon != nil {
			return nil, usagef("--share-commitment: draw %s announces a beacon round: give the bailiff's share commitment "+
				"(rngverify share-commitment --draw %s), made before the round is published; nothing frozen", r.FullDrawID(j), r.FullDrawID(j))
		}
	}
	return out, nil
}

// freezeRequest is the freeze of draw j by the eligibility res, for Freeze
// and, again, for ReissueReceipt.
func freezeRequest(res *eligibilityResult, j int) rpromo.FreezeRequest {
	return rpromo.FreezeRequest{
		Rules: res.rules, RulesFile: res.rulesFile, DrawIndex: j, Entrants: res.el.Entrants[j], Withheld: res.el.WithheldEntries[j],
		Rows: res.stats.Lines, Rejected: res.stats.Rejected, Excluded: res.stats.Excluded, Inputs: res.inputs,
	}
}

// writeReceipt stages the receipt rc of draw (JSON and PDF) and the draw's
// private entrant list into o: all three, or none of them (a partial
// receipt is no receipt). It returns the line that says what was written.
func writeReceipt(ctx context.Context, a *rpromo.Appliance, o *outDir, draw string, rc *rpromo.FreezeReceipt) (string, error) {
	names := receiptFiles(draw)
	js := rpromo.ReceiptJSON(rc)
	lf, _ := a.EntrantsFile(draw)
	lb, err := os.ReadFile(lf)
	if err == nil {
		err = o.write(ctx, names[0], 0o644, func(w io.Writer) error { _, err := w.Write(js); return err })
	}
	if err == nil {
		err = o.write(ctx, names[1], 0o644, func(w io.Writer) error { return rpromo.WriteReceiptPDF(w, rc) })
	}
	if err == nil {
		err = o.write(ctx, names[2], 0o600, func(w io.Writer) error { _, err := w.Write(lb); return err })
	}
	if err != nil {
		o.drop(names...)
		return "", fmt.Errorf("its receipt: %w", err)
	}
	p := o.path(strings.ReplaceAll(draw, "/", "-"))
	return fmt.Sprintf("%s: %d entrants, root %.16s, log index %d; receipt %s-receipt.pdf (sha256:%x of the .json), private list %s-entrants.txt (for the bailiff)\n",
		draw, rc.Count, rc.Root, rc.Freeze.Index, p, sha256.Sum256(js), p), nil
}

// freeze is eligibility, then each draw's freeze. The report and the
// receipts appear in --out once done; if a draw fails after others were
// frozen (the log has them), the report and their receipts still do. A
// receipt that could not be written is re-issued by receipts.
func (c *promoCmd) freeze(ctx context.Context) error {
	fr, err := c.openFreezeRun(ctx, true)
	if err != nil {
		return err
	}
	defer fr.done()
	a, o, res, r := fr.a, fr.o, fr.res, fr.res.rules
	var empty, frozen []string
	err = func() error {
		for _, j := range fr.draws {
			draw := r.FullDrawID(j)
			if len(res.el.Entrants[j]) == 0 {
				empty = append(empty, draw)
				continue
			}
			req := freezeRequest(res, j)
			req.ShareCommitment = fr.shares[j]
			if _, err := a.Freeze(ctx, req); err != nil {
				return fmt.Errorf("draw %s: %w", draw, err)
			}
			// The freeze is in the log: what follows is its receipt, which
			// is published even if a later draw fails. The context is
			// not the interrupt's: the receipt of a freeze made is written.
			wctx := context.WithoutCancel(ctx)
			rc, err := a.Receipt(wctx, draw)
			if err != nil {
				return fmt.Errorf("draw %s frozen, its receipt: %w%s", draw, err, reissueHint)
			}
			line, err := writeReceipt(wctx, a, o, draw, rc)
			if err != nil {
				return fmt.Errorf("draw %s frozen, %w%s", draw, err, reissueHint)
			}
			frozen = append(frozen, "frozen "+line)
		}
		return nil
	}()
	if err != nil && len(frozen) == 0 {
		return err
	}
	if perr := o.publish(); perr != nil {
		// The freezes are in the log; their receipts are not lost.
		return errors.Join(err, fmt.Errorf("frozen, but %w%s", perr, reissueHint))
	}
	c.printSummary(res)
	for _, l := range frozen {
		io.WriteString(c.env.Stdout, l)
	}
	if err != nil {
		return err
	}
	if len(empty) > 0 {
		return fmt.Errorf("no entrant, nothing frozen for %s (the other draws are frozen)", strings.Join(empty, ", "))
	}
	return nil
}

// reissueHint ends the error of a freeze whose receipt was not published.
const reissueHint = " (rngctl promo receipts, with the freeze's flags, re-issues the receipts)"

// receipts re-issues the receipts of draws frozen already, as freeze wrote
// them: from the same flags and inputs, the report and, for each draw, its
// receipt and private entrant list, in --out once done, or nothing.
// Nothing is appended to the log. A draw the log holds no freeze of, or
// inputs that are not the freeze's (rpromo.ErrNotFreezeInputs), refuse the
// whole command; a draw with no entrant was not frozen and has no receipt.
func (c *promoCmd) receipts(ctx context.Context) error {
	fr, err := c.openFreezeRun(ctx, false)
	if err != nil {
		return err
	}
	defer fr.done()
	a, o, res, r := fr.a, fr.o, fr.res, fr.res.rules
	var empty, lines []string
	for _, j := range fr.draws {
		draw := r.FullDrawID(j)
		rc, err := a.ReissueReceipt(ctx, freezeRequest(res, j))
		switch {
		case err != nil && len(res.el.Entrants[j]) == 0 && errors.Is(err, rpromo.ErrNotFrozen):
			empty = append(empty, draw)
			continue
		case errors.Is(err, rpromo.ErrNotFreezeInputs):
			return fmt.Errorf("%w (--rules, --stakes and --closed must be the freeze's)", err)
		case err != nil:
			return err
		}
		line, err := writeReceipt(ctx, a, o, draw, rc)
		if err != nil {
			return fmt.Errorf("draw %s: %w", draw, err)
		}
		lines = append(lines, "re-issued "+line)
	}
	if len(lines) == 0 {
		return fmt.Errorf("no entrant, nothing frozen for %s: no receipt", strings.Join(empty, ", "))
	}
	if err := o.publish(); err != nil {
		return err
	}
	c.printSummary(res)
	for _, l := range lines {
		io.WriteString(c.env.Stdout, l)
	}
	if len(empty) > 0 {
		fmt.Fprintf(c.env.Stdout, "no entrant, nothing frozen for %s: no receipt\n", strings.Join(empty, ", "))
	}
	return nil
}

// certificateFiles are the files a certificate of draw is written as.
func certificateFiles(draw string) []string {
	base := strings.ReplaceAll(draw, "/", "-")
	return []string{base + "-certificate.json", base + "-proces-verbal.pdf", base + "-annexe-privee.pdf"}
}

func (c *promoCmd) runDraw(ctx context.Context) error {
	if c.draw == "" || c.out == "" {
		return usagef("--draw ID and --out DIR are required")
	}
	// Checked before the ceremony, which happens once.
	o, err := newOutDir("--out", c.out, certificateFiles(c.draw))
	if err != nil {
		return err
	}
	var beacon []byte
	if c.beacon != "" {
		prev, err := hex.DecodeString(strings.TrimSpace(c.beaconPrev))
		if err != nil {
			return usagef("--beacon-previous: not hex: %v", err)
		}
		sig, err := hex.DecodeString(strings.TrimSpace(c.beacon))
		if err != nil {
			return usagef("--beacon: not hex: %v", err)
		}
		beacon = append(prev, sig...)
	} else if c.beaconPrev != "" {
		return usagef("--beacon-previous goes with --beacon")
	}
	a, closeAll, err := c.open(ctx)
	if err != nil {
		return err
	}
	defer closeAll()
	rc, err := a.Receipt(ctx, c.draw)
	if err != nil {
		return err
	}
	fmt.Fprintf(c.env.Stderr, "draw %s: %d entrants frozen at %s, root %s\nfreeze record: log index %d, leaf hash %s (as on the receipt)\n",
		c.draw, rc.Count, rc.FrozenAt, rc.Root, rc.Freeze.Index, rc.FreezeLeafHash)
	if rc.ShareCommitment != "" {
		fmt.Fprintf(c.env.Stderr, "share commitment %s (as on the receipt): the share entered must open it\n", rc.ShareCommitment)
	}
	// The beacon value is checked before the bailiff types anything.
	br, err := promo.VerifyBeacon(rc.Beacon, beacon)
	if err != nil {
		return fmt.Errorf("--beacon: %w", err)
	}
	if br.Verified() {
		fmt.Fprintf(c.env.Stderr, "beacon: %s round %d, signature verified; randomness %x\n", br.Chain, br.Round, br.Randomness)
	}
	// What the ceremony refuses whatever the share (a draw run already,
	// outside the rules' dates, another key), refused before the bailiff
	// types it.
	if err := a.CheckDraw(ctx, c.draw, beacon); err != nil {
		return err
	}
	// The prompt of rngverify share-commitment, which reads the share as
	// this ceremony does.
	prompt := verdict.M(verdict.MsgCLISharePromptText)
	if c.dice {
		prompt = verdict.M(verdict.MsgCLISharePromptDice, promo.MinDiceRolls)
	}
	var raw []byte
	if c.shareFile != "" {
		raw, err = os.ReadFile(c.shareFile)
		if err != nil {
			return fmt.Errorf("couldn't read the share file: %w", rngd.Pathless(err))
		}
	} else {
		io.WriteString(c.env.Stderr, prompt.Text("en"))
		if raw, err = readLineCtx(ctx, c.env.Stdin); err != nil {
			if errors.Is(err, errInterrupted) {
				fmt.Fprintln(c.env.Stderr)
				return fmt.Errorf("%w: %s", err, c.nothing)
			}
			return err
		}
	}
	// An interrupt during the reading: the share read is not used (the
	// bailiff's share is for the ceremony run again).
	if ctx.Err() != nil {
		return fmt.Errorf("%w: %s", errInterrupted, c.nothing)
	}
	share, err := promo.ShareFromInput(raw, c.dice)
	if err != nil {
		return usagef("share: %v", err)
	}
	// The share must open the commitment the freeze holds, if any: a
	// refusal before anything is locked, as for a malformed share.
	if f, err := record.Parse([]byte(rc.Freeze.Record)); err == nil {
		if fr, ok := f.(*record.PromoFreeze); ok {
			if err := promo.VerifyShareCommitment(fr, share); err != nil {
				return usagef("share: %v; nothing drawn", err)
			}
		}
	}
	d, err := a.Draw(ctx, rpromo.DrawRequest{Draw: c.draw, Share: share, BeaconValue: beacon})
	if err != nil {
		return err
	}
	fmt.Fprintf(c.env.Stdout, "drawn %s: log index %d\n", c.draw, d.Index)
	// The draw is in the log: its certificate is written whatever the
	// interrupt; if it cannot be, rngctl promo certificate re-issues it.
	if err := c.writeCertificate(context.WithoutCancel(ctx), a, o); err != nil {
		return fmt.Errorf("drawn, but the certificate: %w (rngctl promo certificate re-issues it)", err)
	}
	return nil
}

func (c *promoCmd) certificate(ctx context.Context) error {
	if c.draw == "" || c.out == "" {
		return usagef("--draw ID and --out DIR are required")
	}
	o, err := newOutDir("--out", c.out, certificateFiles(c.draw))
	if err != nil {
		return err
	}
	a, closeAll, err := c.open(ctx)
	if err != nil {
		return err
	}
	defer closeAll()
	return c.writeCertificate(ctx, a, o)
}

// entrantProof writes the entrant proof of --account in --draw into the
// new file --out (mode 0600: it names the player's account), for that
// player to check with rngverify entrant. An account not in the frozen
// list is refused (exit 1), nothing written.
func (c *promoCmd) entrantProof(ctx context.Context) error {
	if c.draw == "" || c.account == "" || c.out == "" {
		return usagef("--draw ID, --account ACCOUNT and --out FILE are required")
	}
	if !promo.ValidDrawID(c.draw) {
		return usagef("--draw %q: want <operation>/<id>", c.draw)
	}
	if err := promo.CheckAccount(c.account); err != nil {
		return usagef("--account: %v", err)
	}
	if err := checkNewOutput("--out", c.out); err != nil {
		return err
	}
	a, closeAll, err := c.open(ctx)
	if err != nil {
		return err
	}
	defer closeAll()
	p, file, err := a.EntrantProof(ctx, c.draw, c.account)
	if err != nil {
		return err
	}
	tmp, err := stageFile(ctx, "--out", c.out, 0o600, func(w io.Writer) error { _, err := w.Write(file); return err })
	if err != nil {
		return err
	}
	if err := renameNew(tmp, c.out); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("--out %s: %w", c.out, rngd.Pathless(err))
	}
	fmt.Fprintf(c.env.Stdout, "entrant proof %s: %s is entrant %d of %d of %s; the player checks it with rngverify entrant %s --log-key …\n",
		c.out, c.account, p.Index+1, p.Count, c.draw, filepath.Base(c.out))
	return nil
}

// writeCertificate writes the certificate of c.draw and its documents
// into o, all three or none.
func (c *promoCmd) writeCertificate(ctx context.Context, a *rpromo.Appliance, o *outDir) error {
	cert, err := a.Certify(ctx, c.draw)
	if err != nil {
		return err
	}
	if err := o.stage(); err != nil {
		return err
	}
	defer o.discard()
	names := certificateFiles(c.draw)
	if err := o.write(ctx, names[0], 0o644, func(w io.Writer) error { _, err := w.Write(cert.JSON); return err }); err != nil {
		return err
	}
	if err := o.write(ctx, names[1], 0o644, func(w io.Writer) error { return rpromo.WriteProcesVerbalPDF(w, cert) }); err != nil {
		return err
	}
	if err := o.write(ctx, names[2], 0o600, func(w io.Writer) error { return rpromo.WriteAnnexPDF(w, cert) }); err != nil {
		return err
	}
	if err := o.publish(); err != nil {
		return err
	}
	base := o.path(strings.ReplaceAll(c.draw, "/", "-"))
	for _, p := range cert.Verified.Picks {
		role := "winner"
		if p.Rank > 1 {
			role = "reserve " + strconv.Itoa(p.Rank-1)
		}
		fmt.Fprintf(c.env.Stdout, "%-10s %s (entrant %d of %d)\n", role, p.Pseudonym, p.Index+1, cert.Verified.Count)
	}
	fmt.Fprintf(c.env.Stdout, "certificate %s-certificate.json, fingerprint %s\n", base, promo.Fingerprint(cert.JSON))
	fmt.Fprintf(c.env.Stdout, "procès-verbal %s-proces-verbal.pdf; private annex (account ids) %s-annexe-privee.pdf\n", base, base)
	return nil
}

// readLineCtx is promo.ReadShareLine given up at an interrupt (ctx done):
// the read itself cannot be stopped and goes on until rngctl exits, but
// what it reads is not used.
func readLineCtx(ctx context.Context, r io.Reader) ([]byte, error) {
	type result struct {
		b   []byte
		err error
	}
	done := make(chan result, 1)
	go func() {
		b, err := promo.ReadShareLine(r)
		done <- result{b, err}
	}()
	select {
	case res := <-done:
		if ctx.Err() != nil {
			return nil, errInterrupted
		}
		return res.b, res.err
	case <-ctx.Done():
		return nil, errInterrupted
	}
}
