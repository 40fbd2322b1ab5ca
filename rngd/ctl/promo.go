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
	"log/slog"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"tirage.fr/tirage/hsm/pkcs11"
	"tirage.fr/tirage/rngd"
	"tirage.fr/tirage/rngd/entropy"
	rpromo "tirage.fr/tirage/rngd/promo"
	"tirage.fr/tirage/verifier/promo"
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
  draw                the bailiff's ceremony for one frozen draw (once), then its certificate
  certificate         re-issue a drawn draw's certificate and documents

gen:
  --rules FILE --out FILE [--rows N] [--accounts N] [--seed S] [--format csv|jsonl]
  [--defects] [--closed FILE]

eligibility and freeze:
  --rules FILE          the operation's rules (YAML)
  --stakes FILE         stake file, CSV or JSON Lines (.jsonl), - for standard input;
                        repeat the flag for several files
  --closed FILE         closed accounts (CSV: account[,closed_at])
  --out DIR             where to write e-credits.csv, rejected.txt, summary.json
                        and (freeze) each draw's receipt and private entrant list
  --quiet               no progress bar
freeze, draw and certificate (the offline ceremony on the appliance):
  --data DIR            data directory: log/ (embedded tile log) and promo/ (draw state)
  --origin NAME         the log's origin (checkpoint name), e.g. tirage.fr/promo/<appliance>
  --draw ID             draw id, e.g. bonus-crescendo/1 (freeze: default every draw)
  --backend software|pkcs11, --keys DIR, --passphrase-file FILE, --passphrase-fd N,
  --module PATH, --token-label L, --pin-file FILE, --pin-fd N
                        key custody, as for rngctl keys (secrets never from a flag)
  --vrf-label L         VRF key (default vrf); --log-label L: log key (default log)
  --entropy KIND        hwrng (default), rdseed or tpm, mixed with getrandom;
  --min-entropy H       its declared min-entropy per byte (default 4)
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
is shown: it is typed at the ceremony, never put on a command line.

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
	rows                                   int64
	accounts                               int
	seed                                   uint64
	genClosed                              string
}

type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

func runPromo(ctx context.Context, env Env) int {
	if code, done := groupHelp(env, promoUsage); done {
		return code
	}
	c := &promoCmd{env: env, name: "rngctl promo " + env.Args[0]}
	c.keys = keysCmd{env: env, name: c.name, dirFlag: "--keys"}
	fs := newFlags(c.name)
	c.fs = fs
	var run func(context.Context) error
	logFlags := func() {
		fs.StringVar(&c.data, "data", "", "")
		fs.StringVar(&c.origin, "origin", "", "")
		fs.StringVar(&c.draw, "draw", "", "")
		fs.StringVar(&c.keys.backend, "backend", "software", "")
		fs.StringVar(&c.keys.dir, "keys", "", "")
		fs.StringVar(&c.keys.passFile, "passphrase-file", "", "")
		fs.StringVar(&c.keys.passFD, "passphrase-fd", "", "")
		fs.StringVar(&c.keys.module, "module", pkcs11.DefaultModule, "")
		fs.StringVar(&c.keys.tokenLabel, "token-label", "", "")
		fs.StringVar(&c.keys.pinFile, "pin-file", "", "")
		fs.StringVar(&c.keys.pinFD, "pin-fd", "", "")
		fs.StringVar(&c.vrfLabel, "vrf-label", "vrf", "")
		fs.StringVar(&c.logLabel, "log-label", "log", "")
		fs.StringVar(&c.entropyKind, "entropy", "hwrng", "")
		fs.Float64Var(&c.minEntropy, "min-entropy", 4, "")
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
		run = func(ctx context.Context) error { _, err := c.eligibility(ctx); return err }
	case "freeze":
		stakeFlags()
		logFlags()
		run = c.freeze
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
	default:
		return usageError(env, "promo", "promo: unknown subcommand %q", env.Args[0])
	}
	if code, ok := parseArgs(env, fs, env.Args[1:], strings.TrimPrefix(c.name, "rngctl "), promoUsage, env.Args[0] == "check"); !ok {
		return code
	}
	if err := run(ctx); err != nil {
		fmt.Fprintf(env.Stderr, "%s: %s\n", c.name, strings.ReplaceAll(err.Error(), "\n", "; "))
		if errors.Is(err, errUsage) {
			return ExitUsage
		}
		return ExitFail
	}
	return ExitOK
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

func (c *promoCmd) gen(context.Context) error {
	r, _, err := loadRules(c.rules)
	if err != nil {
		return err
	}
	if c.out == "" {
		return usagef("--out FILE is required")
	}
	if c.format != rpromo.FormatCSV && c.format != rpromo.FormatJSONL {
		return usagef("--format must be csv or jsonl")
	}
	accounts := c.accounts
	if accounts <= 0 {
		accounts = max(1, int(c.rows/8))
	}
	if err := writeWith(c.out, func(w io.Writer) error {
		return rpromo.Generate(w, r, rpromo.GenConfig{Rows: c.rows, Accounts: accounts, Seed: c.seed, Format: c.format, Defects: c.defects})
	}); err != nil {
		return err
	}
	// What was written goes to standard error, as the progress of
	// eligibility does: the data is in the files.
	defects := ""
	if c.defects {
		defects = ", with malformed and duplicate rows"
	}
	fmt.Fprintf(c.env.Stderr, "wrote %s: %d synthetic stake rows (%s%s) of %d accounts for %s, seed %d\n", c.out, c.rows, c.format, defects, accounts, r.Operation, c.seed)
	if c.genClosed != "" {
		if err := writeWith(c.genClosed, func(w io.Writer) error { return rpromo.GenerateClosed(w, r, accounts, c.seed) }); err != nil {
			return err
		}
		fmt.Fprintf(c.env.Stderr, "wrote %s: closed accounts (CSV account,closed_at)\n", c.genClosed)
	}
	return nil
}

func writeWith(path string, fn func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := fn(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// eligibilityResult is what eligibility computed.
type eligibilityResult struct {
	rules     *promo.Rules
	rulesFile []byte
	el        *promo.Eligibility
	stats     rpromo.IngestStats
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

func (c *promoCmd) eligibility(ctx context.Context) (*eligibilityResult, error) {
	// Millions of rows: keep the heap well under the appliance's 2 GiB budget
	// (a soft limit; GOMEMLIMIT in the environment wins).
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(1536 << 20)
	}
	r, data, err := loadRules(c.rules)
	if err != nil {
		return nil, err
	}
	if len(c.stakes) == 0 {
		return nil, usagef("--stakes FILE is required")
	}
	if c.out == "" {
		return nil, usagef("--out DIR is required")
	}
	if err := os.MkdirAll(c.out, 0o700); err != nil {
		return nil, err
	}
	var closed promo.Closed
	if c.closed != "" {
		f, err := os.Open(c.closed)
		if err != nil {
			return nil, fmt.Errorf("couldn't open the closed accounts: %w", err)
		}
		closed, err = rpromo.ReadClosed(f)
		f.Close()
		if err != nil {
			return nil, err
		}
	}
	rej, err := os.Create(filepath.Join(c.out, "rejected.txt"))
	if err != nil {
		return nil, err
	}
	defer rej.Close()
	t := promo.NewTally(r)
	var total rpromo.IngestStats
	for _, name := range c.stakes {
		st, err := c.ingest(ctx, name, t, rej)
		total.Lines += st.Lines
		total.Rejected += st.Rejected
		total.Counted += st.Counted
		for i, n := range st.Excluded {
			total.Excluded[i] += n
		}
		if err != nil {
			return nil, err
		}
	}
	if err := rej.Close(); err != nil {
		return nil, err
	}
	el := t.Eligibility(closed)
	var sum Summary
	if err := writeWith(filepath.Join(c.out, "e-credits.csv"), func(w io.Writer) error {
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
	if err := os.WriteFile(filepath.Join(c.out, "summary.json"), append(js, '\n'), 0o644); err != nil {
		return nil, err
	}
	var excluded int64
	for _, n := range sum.Excluded {
		excluded += n
	}
	fmt.Fprintf(c.env.Stdout, "%d lines: %d counted, %d excluded (by reason in summary.json), %d rejected (see rejected.txt); %d e-credits, %s %s in all\n",
		sum.Lines, sum.Counted, excluded, sum.Rejected, sum.ECredits, centsString(sum.ECreditCents), r.Currency)
	for _, d := range sum.Draws {
		fmt.Fprintf(c.env.Stdout, "draw %s: %d entrants (%d withheld: closed accounts)\n", d.Draw, d.Entrants, d.Withheld)
	}
	return &eligibilityResult{rules: r, rulesFile: data, el: el, stats: total}, nil
}

func centsString(c int64) string { return fmt.Sprintf("%d.%02d", c/100, c%100) }

// ingest reads one stake file with a progress bar on standard error; its
// rejections go to rejects as "<file>:<line>: <field>: <reason>".
func (c *promoCmd) ingest(ctx context.Context, name string, t *promo.Tally, rejects io.Writer) (rpromo.IngestStats, error) {
	var in io.Reader = c.env.Stdin
	var size int64
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return rpromo.IngestStats{}, fmt.Errorf("couldn't open the stakes: %w", err)
		}
		defer f.Close()
		if fi, err := f.Stat(); err == nil {
			size = fi.Size()
			// Stake rows are about 75 (CSV) or 125 (JSON Lines) bytes.
			perRow := int64(70)
			if rpromo.FormatOf(name) == rpromo.FormatJSONL {
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
	st, err := rpromo.IngestFile(ctx, label, in, rpromo.FormatOf(name), t, rejects, progress)
	if progress != nil {
		fmt.Fprintln(c.env.Stderr)
	}
	if err != nil {
		return st, fmt.Errorf("%s: %w", filepath.Base(name), err)
	}
	return st, nil
}

// open opens the keys, the entropy generator and the log.
func (c *promoCmd) open(ctx context.Context) (*rpromo.Appliance, func(), error) {
	if c.data == "" || c.origin == "" {
		return nil, nil, usagef("--data DIR and --origin NAME are required")
	}
	keys, err := c.keys.open()
	if err != nil {
		return nil, nil, err
	}
	var src entropy.SourceConfig
	switch c.entropyKind {
	case "hwrng", "rdseed", "tpm":
		src = entropy.SourceConfig{Kind: c.entropyKind, MinEntropy: c.minEntropy}
	default:
		keys.Close()
		return nil, nil, usagef("--entropy must be hwrng, rdseed or tpm")
	}
	log := slog.New(slog.NewTextHandler(c.env.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	gen, err := entropy.New(entropy.Config{Sources: []entropy.SourceConfig{src, {Kind: "getrandom"}},
		Personalization: []byte("tirage rngctl promo " + c.origin), Logger: log})
	if err != nil {
		keys.Close()
		return nil, nil, fmt.Errorf("couldn't start the entropy generator: %w", err)
	}
	a, lg, err := rpromo.OpenOffline(ctx, rpromo.OfflineConfig{
		DataDir: c.data, Origin: c.origin, Keys: keys, VRFLabel: c.vrfLabel, LogLabel: c.logLabel,
		Entropy: gen, Clock: promoNow, Logger: log,
	})
	if err != nil {
		gen.Close()
		keys.Close()
		return nil, nil, err
	}
	return a, func() { lg.Close(); gen.Close(); keys.Close() }, nil
}

func (c *promoCmd) freeze(ctx context.Context) error {
	if c.data == "" || c.origin == "" {
		return usagef("--data DIR and --origin NAME are required")
	}
	res, err := c.eligibility(ctx)
	if err != nil {
		return err
	}
	r := res.rules
	var draws []int
	for j := range r.Draws {
		if c.draw == "" || c.draw == r.FullDrawID(j) || c.draw == r.Draws[j].ID {
			draws = append(draws, j)
		}
	}
	if len(draws) == 0 {
		return usagef("--draw %q is not a draw of %s", c.draw, r.Operation)
	}
	a, closeAll, err := c.open(ctx)
	if err != nil {
		return err
	}
	defer closeAll()
	var empty []string
	for _, j := range draws {
		draw := r.FullDrawID(j)
		if len(res.el.Entrants[j]) == 0 {
			empty = append(empty, draw)
			continue
		}
		fz, err := a.Freeze(ctx, rpromo.FreezeRequest{
			Rules: r, RulesFile: res.rulesFile, DrawIndex: j, Entrants: res.el.Entrants[j], Withheld: res.el.WithheldEntries[j],
			Rows: res.stats.Lines, Rejected: res.stats.Rejected, Excluded: res.stats.Excluded,
		})
		if err != nil {
			return fmt.Errorf("draw %s: %w", draw, err)
		}
		rc, err := a.Receipt(ctx, draw)
		if err != nil {
			return err
		}
		base := filepath.Join(c.out, strings.ReplaceAll(draw, "/", "-"))
		if err := os.WriteFile(base+"-receipt.json", rpromo.ReceiptJSON(rc), 0o644); err != nil {
			return err
		}
		if err := writeWith(base+"-receipt.pdf", func(w io.Writer) error { return rpromo.WriteReceiptPDF(w, rc) }); err != nil {
			return err
		}
		lf, _ := a.EntrantsFile(draw)
		lb, err := os.ReadFile(lf)
		if err != nil {
			return err
		}
		if err := os.WriteFile(base+"-entrants.txt", lb, 0o600); err != nil {
			return err
		}
		fmt.Fprintf(c.env.Stdout, "frozen %s: %d entrants, root %x, log index %d; receipt %s-receipt.pdf (sha256:%x of the .json), private list %s-entrants.txt (for the bailiff)\n",
			draw, fz.Record.Count, fz.Record.Root[:8], fz.Index, base, sha256.Sum256(rpromo.ReceiptJSON(rc)), base)
	}
	if len(empty) > 0 {
		return fmt.Errorf("no entrant, nothing frozen for %s (the other draws are frozen)", strings.Join(empty, ", "))
	}
	return nil
}

func (c *promoCmd) runDraw(ctx context.Context) error {
	if c.draw == "" || c.out == "" {
		return usagef("--draw ID and --out DIR are required")
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
	// The beacon value is checked before the bailiff types anything.
	br, err := promo.VerifyBeacon(rc.Beacon, beacon)
	if err != nil {
		return fmt.Errorf("--beacon: %w", err)
	}
	if br.Verified() {
		fmt.Fprintf(c.env.Stderr, "beacon: %s round %d, signature verified; randomness %x\n", br.Chain, br.Round, br.Randomness)
	}
	what := "bailiff's share (typed text, 8 to 256 bytes)"
	if c.dice {
		what = fmt.Sprintf("bailiff's dice rolls (at least %d digits 1-6)", promo.MinDiceRolls)
	}
	var raw []byte
	if c.shareFile != "" {
		raw, err = os.ReadFile(c.shareFile)
		if err != nil {
			return fmt.Errorf("couldn't read the share file: %w", rngd.Pathless(err))
		}
		raw = rngd.TrimNewline(raw)
	} else {
		fmt.Fprintf(c.env.Stderr, "%s: ", what)
		if raw, err = readLine(c.env.Stdin); err != nil {
			return err
		}
	}
	var share string
	if c.dice {
		share, err = promo.ShareFromDice(string(raw))
	} else {
		share, err = promo.ShareFromText(string(raw))
	}
	if err != nil {
		return usagef("share: %v", err)
	}
	d, err := a.Draw(ctx, rpromo.DrawRequest{Draw: c.draw, Share: share, BeaconValue: beacon})
	if err != nil {
		return err
	}
	fmt.Fprintf(c.env.Stdout, "drawn %s: log index %d\n", c.draw, d.Index)
	return c.writeCertificate(ctx, a)
}

func (c *promoCmd) certificate(ctx context.Context) error {
	if c.draw == "" || c.out == "" {
		return usagef("--draw ID and --out DIR are required")
	}
	a, closeAll, err := c.open(ctx)
	if err != nil {
		return err
	}
	defer closeAll()
	return c.writeCertificate(ctx, a)
}

func (c *promoCmd) writeCertificate(ctx context.Context, a *rpromo.Appliance) error {
	cert, err := a.Certify(ctx, c.draw)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(c.out, 0o700); err != nil {
		return err
	}
	base := filepath.Join(c.out, strings.ReplaceAll(c.draw, "/", "-"))
	if err := os.WriteFile(base+"-certificate.json", cert.JSON, 0o644); err != nil {
		return err
	}
	if err := writeWith(base+"-proces-verbal.pdf", func(w io.Writer) error { return rpromo.WriteProcesVerbalPDF(w, cert) }); err != nil {
		return err
	}
	annex, err := os.OpenFile(base+"-annexe-privee.pdf", os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	if err := rpromo.WriteAnnexPDF(annex, cert); err != nil {
		annex.Close()
		return err
	}
	if err := annex.Close(); err != nil {
		return err
	}
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

// readLine reads one line from r byte by byte (nothing after it is consumed).
func readLine(r io.Reader) ([]byte, error) {
	var b []byte
	var one [1]byte
	for len(b) <= 4096 {
		n, err := r.Read(one[:])
		if n == 1 {
			if one[0] == '\n' {
				return rngd.TrimNewline(append(b, '\n')), nil
			}
			b = append(b, one[0])
		}
		if err == io.EOF {
			if len(b) == 0 {
				return nil, errors.New("no share entered")
			}
			return b, nil
		}
		if err != nil {
			return nil, err
		}
	}
	return nil, errors.New("share longer than 4096 bytes")
}
