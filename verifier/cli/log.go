package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"golang.org/x/mod/sumdb/tlog"

	"tirage.fr/tirage/verifier/audit"
	"tirage.fr/tirage/verifier/checkpoint"
	"tirage.fr/tirage/verifier/receipt"
	"tirage.fr/tirage/verifier/verdict"
)

func init() {
	register("log", verdict.MsgCmdLog, runLog)
	register("audit", verdict.MsgCmdAudit, runAudit)
}

type logFlags struct {
	*common
	url, dir *string
	tofu     *bool
	// recorded: the witnesses given were recorded in the state (first
	// given for the log), to be said once the state is saved.
	recorded bool
	// unrecorded is the log-key reason when the keys were trusted by this
	// run (the state knew no such log) and are not recorded after all
	// (the state is saved only when the verdict passes): it then says
	// so, with no "since", as nothing was recorded.
	unrecorded *verdict.Msg
}

// logKeyRow is the log-key check of the verdict v reports: said not
// recorded when the keys were first trusted by this run and the state is
// not saved (saved: whether it is).
func (l *logFlags) logKeyRow(v *verdict.Verdict, saved bool) {
	if c := v.Find(verdict.CheckLogKey); c != nil && l.unrecorded != nil && !saved && c.Status == verdict.StatusPass {
		c.Set(verdict.StatusPass, *l.unrecorded)
	}
}

func newLogFlags(name string) *logFlags {
	c := newCommon(name)
	c.stateNew = true // created on the first pass
	return &logFlags{common: c, url: c.fs.String("url", "", ""), dir: c.fs.String("dir", "", ""), tofu: c.fs.Bool("tofu", false, "")}
}

func (l *logFlags) fetcher() (audit.Fetcher, error) {
	switch {
	case (*l.url == "") == (*l.dir == ""):
		return nil, verdict.Errorf(verdict.MsgCLIURLOrDir)
	case *l.dir != "":
		return dirFetcher(*l.dir), nil
	}
	return newHTTPFetcher(*l.url, verdict.MsgCLIURLBad)
}

// newHTTPFetcher reads the log's tile API at raw, an http(s) URL; bad names
// the flag in the refusal of any other.
func newHTTPFetcher(raw string, bad verdict.MsgID) (*httpFetcher, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, verdict.Errorf(bad, raw)
	}
	return &httpFetcher{base: strings.TrimSuffix(u.String(), "/"), client: &http.Client{Timeout: 60 * time.Second, CheckRedirect: sameHost}}, nil
}

// sameHost is the fetcher's redirect policy: a redirect is followed on the
// host the URL names (a path moved), never to another host nor from https
// to plain http, and at most 10 times. What the log serves is authenticated
// by its keys, but the command is asked to read the URL given, not
// whatever another host says.
func sameHost(req *http.Request, via []*http.Request) error {
	first := via[0].URL
	switch {
	case len(via) >= 10:
		return fmt.Errorf("stopped after %d redirects", len(via))
	case !strings.EqualFold(req.URL.Host, first.Host):
		return fmt.Errorf("redirect to another host (%s) refused: give --url on the host that serves the log", req.URL.Host)
	case first.Scheme == "https" && req.URL.Scheme != "https":
		return fmt.Errorf("redirect from https to %s refused", req.URL.Scheme)
	}
	return nil
}

// trust opens the log's checkpoint with the trusted keys, learning them
// (pinned or first use) when the state does not know the log. It returns the
// log's state entry (already in st) and the checkpoint; a nil checkpoint
// means the verdict records why.
func (l *logFlags) trust(ctx context.Context, env Env, f audit.Fetcher, st *checkpoint.State, v *verdict.Verdict) (*checkpoint.LogState, *checkpoint.Checkpoint, error) {
	note, err := f.Fetch(ctx, "checkpoint")
	if errors.Is(err, fs.ErrNotExist) {
		// Most likely not the log's address: say which one it is.
		return nil, nil, verdict.Errorf(verdict.MsgAuditCheckpointMissing, err)
	}
	if err != nil {
		return nil, nil, verdict.Errorf(verdict.MsgAuditCheckpointRead, err)
	}
	text, _, _ := strings.Cut(string(note), "\n\n")
	origin, _, _, err := checkpoint.ParseText(text + "\n")
	if err != nil {
		// Signed by nobody (a wrong URL, a proxy's error page, a damaged
		// copy): it proves nothing against the log.
		v.Fail(verdict.CheckSignature, verdict.MsgMalformedCheckpoint, receipt.Cause(err))
		return nil, nil, nil
	}
	a, err := l.anchors()
	if err != nil {
		return nil, nil, err
	}
	ls := st.Logs[origin]
	if ls != nil {
		if err := l.sameKeys(ls, origin, a); err != nil {
			return nil, nil, err
		}
	}
	fresh := ls == nil
	if ls == nil {
		// Keys given (--log-key, or pinned with --pin) or, with --tofu and
		// none given (runFollow refuses both), the keys served.
		keys, mode := a.LogKeys, checkpoint.TrustPinned
		if *l.tofu {
			keys, mode = nil, checkpoint.TrustFirstUse
		}
		// unpinned lists the keys of the log it serves that no pin matched,
		// to name them when no key is trusted: the user pinned a
		// fingerprint, just not one of these.
		var unpinned []string
		if *l.tofu || needServed(a) {
			served, err := f.Fetch(ctx, "vkey")
			if err != nil && l.announcedLog[0] != "" {
				// Not "give --log-key FILE": the user did, an announcement.
				return nil, nil, verdict.Errorf(verdict.MsgCLIKeysAnnounced, l.announcedLog[0], l.announcedLog[1], err)
			}
			if err != nil {
				return nil, nil, verdict.Errorf(verdict.MsgCLIKeysRead, err)
			}
			offered, err := checkpoint.ParseKeys(string(served))
			if err != nil {
				v.Fail(verdict.CheckLogKey, verdict.MsgUnreadableKeys, receipt.Cause(err))
				return nil, nil, nil
			}
			for _, k := range offered {
				if *l.tofu || pinnedFP(a.Pins, k.Fingerprint()) {
					keys = append(keys, k)
				} else if k.Name == origin {
					unpinned = append(unpinned, k.Algorithm+" "+k.Fingerprint())
				}
			}
		}
		var forLog []*checkpoint.Key
		for _, k := range keys {
			if k.Name == origin {
				forLog = append(forLog, k)
			}
		}
		if len(forLog) == 0 && len(unpinned) > 0 {
			v.Fail(verdict.CheckLogKey, verdict.MsgPinMatchesNoServedKey, origin, strings.Join(unpinned, ", "))
			return nil, nil, nil
		}
		if len(forLog) == 0 {
			v.Fail(verdict.CheckLogKey, verdict.MsgNoKeyForLog, origin)
			return nil, nil, nil
		}
		if ls, err = st.Trust(origin, forLog, mode, time.Now()); err != nil {
			return nil, nil, err
		}
		if mode == checkpoint.TrustFirstUse {
			l.conclude(env, verdict.MsgCLITOFULog, l.name, origin)
			for _, k := range forLog {
				l.conclude(env, verdict.MsgCLITOFUKey, k.Algorithm, k.Fingerprint())
			}
			l.conclude(env, verdict.MsgCLITOFUCompare, l.statePath())
		}
	}
	if err := l.sameWitnesses(st, origin); err != nil {
		return nil, nil, err
	}
	keys, err := ls.TrustedKeys()
	if err != nil {
		return nil, nil, fmt.Errorf("state file: %w", err)
	}
	fps := []string{}
	for _, k := range keys {
		fps = append(fps, k.Algorithm+" "+k.Fingerprint())
	}
	v.Pass(verdict.CheckLogKey, verdict.MsgLogKeyTrust, strings.Join(fps, ", "), verdict.Term(ls.Trust), ls.Since)
	if fresh {
		m := verdict.M(verdict.MsgLogKeyTrustUnrecorded, strings.Join(fps, ", "), verdict.Term(ls.Trust))
		l.unrecorded = &m
	}
	cp, err := checkpoint.Open(note, keys)
	if err != nil {
		v.Fail(verdict.CheckSignature, verdict.MsgSame, receipt.Cause(err))
		return ls, nil, nil
	}
	v.Pass(verdict.CheckSignature, verdict.MsgSame, receipt.CheckpointMsg(cp))
	return ls, cp, nil
}

// sameKeys refuses keys given for a log the state already trusts with
// other keys: a --log-key key of the log not among them, or (log, where a
// bare pin names a log key; audit's may name a VRF key) a --pin matching
// none of them. The state is changed deliberately, by editing the file,
// never by a flag whose keys would be silently ignored.
func (l *logFlags) sameKeys(ls *checkpoint.LogState, origin string, a receipt.Anchors) error {
	trusted, err := ls.TrustedKeys()
	if err != nil {
		return fmt.Errorf("state file: %w", err)
	}
	known := func(fp string) bool {
		return slices.ContainsFunc(trusted, func(k *checkpoint.Key) bool { return strings.EqualFold(k.Fingerprint(), fp) })
	}
	given := ""
	for _, k := range a.LogKeys {
		if k.Name == origin && !known(k.Fingerprint()) {
			given = "--log-key"
		}
	}
	if l.name == "log" {
		for _, p := range l.pins {
			if s, fp, err := receipt.ParsePin(p); err == nil && s == "" && !known(fp) {
				given = "--pin"
			}
		}
	}
	if given == "" {
		return nil
	}
	return verdict.Errorf(verdict.MsgCLIFlagErr, given, verdict.M(verdict.MsgCLIStateFile, l.statePath(), verdict.M(verdict.MsgStateOtherKeys, origin, ls.Since)))
}

// sameWitnesses records --witness and --witness-quorum in the state of
// the log origin when it has no witnesses yet (l.recorded), or refuses
// them when it has others, naming the flag: as for its keys, the state is
// changed deliberately, by editing the file, never by a flag silently
// ignored or obeyed.
func (l *logFlags) sameWitnesses(st *checkpoint.State, origin string) error {
	var err error
	if l.recorded, err = st.Witness(origin, l.witnesses, l.witnessQuorum, time.Now()); err == nil {
		return nil
	}
	ws, _, _ := st.Logs[origin].TrustedWitnesses()
	return l.witnessesRefused(err, ws)
}

// needServed reports whether a pin may name a log key that only the log
// serves: a bare pin (a SUITE: pin is a VRF key's, never a log key's) that
// no --log-key key has. Other pins need no vkey (a tile directory, --dir,
// has none): the keys given already hold what they pin.
func needServed(a receipt.Anchors) bool {
	for _, p := range a.Pins {
		s, fp, err := receipt.ParsePin(p)
		if err != nil || s != "" {
			continue
		}
		if !slices.ContainsFunc(a.LogKeys, func(k *checkpoint.Key) bool { return strings.EqualFold(fp, k.Fingerprint()) }) {
			return true
		}
	}
	return false
}

// pinnedFP reports whether a log key's fingerprint fp is pinned: by a bare
// fingerprint (a SUITE:FP pin names a VRF key).
func pinnedFP(pins []string, fp string) bool {
	for _, p := range pins {
		if s, f, err := receipt.ParsePin(p); err == nil && s == "" && strings.EqualFold(f, fp) {
			return true
		}
	}
	return false
}

// maxWorkers bounds audit --workers (the audit queues 4 jobs a worker).
const maxWorkers = 1024

func runLog(env Env) int { return runFollow(env, false) }

func runAudit(env Env) int { return runFollow(env, true) }

func runFollow(env Env, full bool) int {
	name, usage := "log", verdict.MsgUsageLog
	if full {
		name, usage = "audit", verdict.MsgUsageAudit
	}
	l := newLogFlags(name)
	workers := l.fs.Int("workers", 0, "")
	quiet := l.fs.Bool("quiet", false, "")
	follow := l.fs.Duration("follow", 0, "")
	var rulesFiles, manifestFiles multiFlag
	skew := new(time.Duration)
	if full {
		l.fs.Var(&rulesFiles, "rules", "")
		l.fs.Var(&manifestFiles, "manifest", "")
		l.fs.DurationVar(skew, "time-skew", audit.MaxTimeSkew, "")
	}
	pos, err := l.parse(env.Args)
	if errors.Is(err, flag.ErrHelp) {
		if full {
			lang := l.argLang
			io.WriteString(env.Stderr, verdict.M(usage).Text(lang)+verdict.M(verdict.MsgUsageAuditRules).Text(lang)+verdict.M(verdict.MsgUsageAuditManifest).Text(lang)+
				verdict.M(verdict.MsgUsageTrust, defaultStatePath()).Text(lang)+verdict.M(verdict.MsgUsageExit).Text(lang))
			return ExitOK
		}
		return l.help(env, usage)
	}
	if err != nil {
		return l.usageErr(env, flagError(err))
	}
	if len(pos) > 0 {
		return l.usageErr(env, verdict.M(verdict.MsgCLIUnexpected, pos[0]))
	}
	if err := l.tofuWithKeys(*l.tofu, "pin", "log-key"); err != nil {
		return l.usageErr(env, receipt.Cause(err))
	}
	if isSet(l.fs, "workers") && (*workers < 1 || *workers > maxWorkers) {
		return l.usageErr(env, verdict.M(verdict.MsgCLIFlagRange, "--workers", *workers, 1, maxWorkers))
	}
	f, err := l.fetcher()
	if err != nil {
		return l.usageErr(env, receipt.Cause(err))
	}
	st, err := l.loadState()
	if err != nil {
		return l.usageErr(env, verdict.M(verdict.MsgCLIStateFile, l.statePath(), receipt.Cause(err)))
	}
	if *follow != 0 && (!full || *follow < time.Second) {
		return l.usageErr(env, verdict.M(verdict.MsgCLIFollowBad))
	}
	if full && (*skew < time.Second || *skew > 24*time.Hour) {
		return l.usageErr(env, verdict.M(verdict.MsgCLITimeSkewBad, skew.String()))
	}
	rules, err := readRules(rulesFiles)
	if err != nil {
		return l.usageErr(env, receipt.Cause(err))
	}
	manifests, err := readManifests(manifestFiles)
	if err != nil {
		return l.usageErr(env, receipt.Cause(err))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	v := verdict.New(name, verdict.MsgSubjectLog)
	ls, cp, err := l.trust(ctx, env, f, st, v)
	if err != nil {
		l.conclude(env, verdict.MsgCLIError, name, receipt.Cause(err))
		return ExitUsage
	}
	if cp == nil {
		l.logKeyRow(v, false)
		return l.report(env, v, nil)
	}
	last, err := ls.Last()
	if err != nil {
		// Named as receipt, game, certificate and freeze name it (trust.go):
		// the flag, the log, and that it is the last trusted checkpoint.
		return l.usageErr(env, receipt.Cause(verdict.Errorf(verdict.MsgCLIFlagErr, "--state",
			verdict.Errorf(verdict.MsgStateLog, cp.Origin, verdict.Errorf(verdict.MsgStateLast, err)))))
	}
	var extra func(io.Writer)
	var proof tlog.TreeProof
	if !full {
		v.SetSubject(verdict.MsgSubjectLogOrigin, cp.Origin)
		if last != nil {
			proof = audit.Consistency(ctx, f, last, cp, v)
		} else {
			v.Skip(verdict.CheckConsistent, verdict.MsgFirstCheckpoint)
		}
		// The root as the checkpoint spells it (base64), as every verdict does.
		v.Fact("checkpoint", verdict.MsgSame, receipt.CheckpointMsg(cp))
	} else {
		a, _ := l.anchors()
		cfg := audit.Config{Fetch: f, LogKeys: mustKeys(ls), Last: last, VRFPins: vrfPins(a, mustKeys(ls)), Location: a.Location, Workers: *workers, Follow: *follow,
			Rules: rules, Manifests: manifests, TimeSkew: *skew}
		if *follow > 0 {
			l.conclude(env, verdict.MsgCLIFollowing, follow.String())
		}
		var bar *progress
		if !*quiet {
			bar = &progress{w: env.Stderr, lang: *l.lang, start: time.Now()}
			cfg.Progress = bar.update
		}
		res, err := audit.Run(ctx, cfg)
		if bar != nil {
			bar.done()
		}
		if err != nil {
			l.conclude(env, verdict.MsgCLIError, name, receipt.Cause(err))
			if res == nil {
				return ExitUsage
			}
		}
		// The keys the log is checked with head the audit's verdict, as
		// they head log's.
		if c := v.Find(verdict.CheckLogKey); c != nil {
			res.Verdict.Checks = append([]verdict.Check{*c}, res.Verdict.Checks...)
		}
		v, proof = res.Verdict, res.Proof
		if res.Checkpoint != nil {
			cp = res.Checkpoint // the audit may have read a newer checkpoint
		}
		if last == nil && v.Find(verdict.CheckConsistent) == nil {
			v.Skip(verdict.CheckConsistent, verdict.MsgFirstCheckpoint)
		}
		v.Fact("records", verdict.MsgInt, res.Records)
		v.Fact("games", verdict.MsgInt, res.Games)
		v.Fact("vrf proofs", verdict.MsgInt, res.Proofs)
		if bar != nil && res.Records > 0 {
			el := time.Since(bar.start)
			v.Fact("throughput", verdict.MsgThroughput, float64(res.Records)/el.Seconds(), el.Round(time.Millisecond).String())
		}
		stats := res.Stats
		extra = func(w io.Writer) { io.WriteString(w, "\n"+stats.Table(*l.lang)) }
		if c := v.Find(verdict.CheckEntries); err != nil && (c == nil || c.Status == verdict.StatusPass) {
			// The audit's entries row says why it stopped (it was a second
			// row, after "0 entries match the signed tree").
			v.Fail(verdict.CheckEntries, verdict.MsgSame, receipt.Cause(err))
		}
	}
	// The checkpoint accepted, witnessed as the state requires (the
	// witnesses it records, or those --witness gives, recorded now): else
	// it does not become the state's.
	if ws, q, _ := ls.TrustedWitnesses(); len(ws) > 0 { // ParseState checked them
		a := receipt.Anchors{Witnesses: ws, WitnessQuorum: q}
		a.WitnessCheck(v, cp)
	}
	if v.Status() == verdict.StatusPass {
		if err := ls.Advance(cp, proof, time.Now()); err != nil {
			l.conclude(env, verdict.MsgCLIError, name, receipt.Cause(err))
			return ExitFail
		}
		if err := l.saveState(st); err != nil {
			l.conclude(env, verdict.MsgCLISaveState, name, receipt.Cause(fileErr(err)))
			return ExitUsage
		}
		v.Fact("trust state", verdict.MsgTrustState, l.statePath(), cp.Size)
		if l.recorded {
			var names []string
			for _, w := range l.witnesses {
				names = append(names, w.String())
			}
			l.conclude(env, verdict.MsgCLIWitnessRecorded, name, cp.Origin, l.statePath(), ls.Quorum, strings.Join(names, ", "))
		}
	}
	l.logKeyRow(v, v.Status() == verdict.StatusPass)
	return l.report(env, v, extra)
}

// readRules reads the rules files given with --rules (audit), each named by
// its path, and checks that each is a rules file (audit.CheckRules): a file
// that cannot be read or is not one is an error naming it.
func readRules(paths []string) ([]audit.RulesFile, error) {
	var out []audit.RulesFile
	for _, p := range paths {
		b, err := readFileMax(p, maxRules, verdict.MsgLimitRules)
		if err != nil {
			return nil, verdict.Errorf(verdict.MsgCLIReadRules, fileErr(err))
		}
		out = append(out, audit.RulesFile{Name: p, Data: b})
	}
	return out, audit.CheckRules(out)
}

// readManifests reads the ticket manifests given with --manifest (audit),
// each named by its path and streamed (audit.ReadManifest keeps each
// ticket's gain, not the file): a file that cannot be read or is not a
// manifest rngd would import is an error naming it.
func readManifests(paths []string) ([]*audit.Manifest, error) {
	var out []*audit.Manifest
	for _, p := range paths {
		m, err := readManifest(p)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}

func readManifest(path string) (*audit.Manifest, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, verdict.Errorf(verdict.MsgCLIReadManifest, fileErr(err))
	}
	defer f.Close()
	return audit.ReadManifest(path, f)
}

// vrfPins are the pins of the VRF keys the audit requires (audit.Config.
// VRFPins): the pins that are not a log key's (pinning the log's key trusts
// the log, not a VRF key), SUITE:FP pins with their suite, and the keys
// given with --vrf-key as suite pins (a key given fixes its suite). The
// audit accepts a key announced in the log under a suite pin's suite only;
// a bare pin, under the suite the log's announcement names.
func vrfPins(a receipt.Anchors, logKeys []*checkpoint.Key) []string {
	var pins []string
	for _, p := range a.Pins {
		s, fp, err := receipt.ParsePin(p)
		switch {
		case err != nil:
		case s != "":
			pins = append(pins, string(s)+":"+fp)
		case !slices.ContainsFunc(logKeys, func(k *checkpoint.Key) bool { return strings.EqualFold(fp, k.Fingerprint()) }):
			pins = append(pins, fp)
		}
	}
	for _, k := range a.VRFKeys {
		pins = append(pins, receipt.VRFPin(k))
	}
	return pins
}

func mustKeys(ls *checkpoint.LogState) []*checkpoint.Key {
	k, _ := ls.TrustedKeys()
	return k
}

// progress draws a progress bar on stderr.
type progress struct {
	w     io.Writer
	lang  string
	start time.Time
	last  time.Time
	drawn bool
}

func (p *progress) update(done, total int64) {
	now := time.Now()
	if done < total && now.Sub(p.last) < 100*time.Millisecond {
		return
	}
	p.last = now
	const width = 30
	fill := int(int64(width) * done / max(total, 1))
	rate := float64(done) / max(now.Sub(p.start).Seconds(), 1e-3)
	io.WriteString(p.w, verdict.M(verdict.MsgCLIProgress, strings.Repeat("#", fill), strings.Repeat(".", width-fill), done, total, 100*done/max(total, 1),
		verdict.Decimal{V: rate, Prec: 0}).Text(p.lang))
	p.drawn = true
}

func (p *progress) done() {
	if p.drawn {
		fmt.Fprintln(p.w)
	}
}

// httpFetcher reads the tile API over HTTP (no retry, no redirect to
// another host, bounded sizes).
type httpFetcher struct {
	base   string
	client *http.Client
}

const maxFetch = 32 << 20

func (h *httpFetcher) Fetch(ctx context.Context, path string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, h.base+"/"+path, nil)
	if err != nil {
		return nil, err
	}
	resp, err := h.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	// The URL, not the path alone: a --url that is not the log's prefix
	// (rngd's HTTP address without /log) shows here.
	if resp.StatusCode == http.StatusNotFound {
		return nil, fmt.Errorf("%s: %w (HTTP %s)", req.URL.Redacted(), fs.ErrNotExist, resp.Status)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s: HTTP %s", req.URL.Redacted(), resp.Status)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxFetch+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(b) > maxFetch {
		return nil, fmt.Errorf("%s: larger than %d bytes", path, maxFetch)
	}
	return b, nil
}

// dirFetcher reads the tile layout from a directory.
type dirFetcher string

func (d dirFetcher) Fetch(_ context.Context, path string) ([]byte, error) {
	if !fs.ValidPath(path) {
		return nil, fmt.Errorf("invalid path %q", path)
	}
	f, err := os.Open(filepath.Join(string(d), filepath.FromSlash(path)))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxFetch+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxFetch {
		return nil, fmt.Errorf("%s: larger than %d bytes", path, maxFetch)
	}
	return b, nil
}
