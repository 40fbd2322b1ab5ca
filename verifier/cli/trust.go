package cli

import (
	"bytes"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
	_ "time/tzdata" // the rules' time zone (Europe/Paris) without relying on the host's zoneinfo

	"tirage.fr/tirage/verifier/announce"
	"tirage.fr/tirage/verifier/checkpoint"
	"tirage.fr/tirage/verifier/promo"
	"tirage.fr/tirage/verifier/receipt"
	"tirage.fr/tirage/verifier/verdict"
	"tirage.fr/tirage/verifier/vrf"
)

// common holds the flags shared by the verifying commands: trust anchors
// and output.
type common struct {
	name    string
	fs      *flag.FlagSet
	logKeys multiFlag
	vrfKeys multiFlag
	pins    multiFlag
	state   *string
	lang    *string
	json    *bool
	tz      *string
	// witness (--witness) and quorum (--witness-quorum) are read by parse
	// into witnesses and witnessQuorum (0: all of them).
	witness       multiFlag
	quorum        *int
	witnesses     []*checkpoint.Witness
	witnessQuorum int
	// argLang is the language of --lang as found in the arguments, for
	// what is said before or instead of parsing them (help, usage errors).
	argLang string
	// stateNew: a --state file that does not exist is a new, empty state
	// (log and audit create it); for the commands that only read it, it is
	// an error (a mistyped path must not check without the state).
	stateNew bool
	// input is the document being checked (its path, "-" for stdin), named
	// when it is unreadable.
	input string
	// announcedLog is the flag and file of a key announcement given
	// ("--log-key", path) that pins a log key: by its fingerprint only, so
	// log and audit name it when the log's keys to match it with cannot be
	// read (set by anchors).
	announcedLog [2]string
}

func newCommon(name string) *common {
	c := &common{name: name, fs: flag.NewFlagSet("rngverify "+name, flag.ContinueOnError)}
	c.fs.SetOutput(io.Discard)
	c.fs.Var(&c.logKeys, "log-key", "")
	c.fs.Var(&c.vrfKeys, "vrf-key", "")
	c.fs.Var(&c.pins, "pin", "")
	c.fs.Var(&c.witness, "witness", "")
	c.quorum = c.fs.Int("witness-quorum", 0, "")
	c.state = c.fs.String("state", "", "")
	c.lang = c.fs.String("lang", "en", "")
	c.json = c.fs.Bool("json", false, "")
	c.tz = c.fs.String("tz", "Europe/Paris", "")
	return c
}

// defaultStatePath is where rngverify keeps its trust state.
func defaultStatePath() string {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "rngverify-state.json"
	}
	return filepath.Join(dir, "rngverify", "state.json")
}

// parse parses args, allowing positional arguments among the flags, and
// returns the positional arguments. err is a usage error (or flag.ErrHelp).
func (c *common) parse(args []string) ([]string, error) {
	c.argLang = langOf(args)
	var pos []string
	for {
		if err := c.fs.Parse(args); err != nil {
			return nil, err
		}
		if c.fs.NArg() == 0 {
			break
		}
		pos = append(pos, c.fs.Arg(0))
		args = c.fs.Args()[1:]
	}
	if err := checkLang(*c.lang); err != nil {
		return nil, err
	}
	for _, p := range c.pins {
		// A fingerprint, or SUITE:fingerprint for a VRF key (its suite fixed).
		if _, _, err := receipt.ParsePin(p); err != nil {
			return nil, err
		}
	}
	if err := c.readWitnesses(); err != nil {
		return nil, err
	}
	return pos, nil
}

// readWitnesses reads --witness (a witness's cosignature/v1 verifier key,
// or a file of them, one a line; the same key given twice counts once, and
// under two names is refused: checkpoint.AddWitness) and
// checks --witness-quorum: 1 to the number of witnesses, all of them when
// not given.
func (c *common) readWitnesses() error {
	for _, f := range c.witness {
		var ws []*checkpoint.Witness
		b, err := readFileMax(f, maxKeyFile, verdict.MsgLimitKeyFile)
		switch {
		case err == nil:
			if ws, err = checkpoint.ParseWitnesses(string(b)); err != nil {
				return verdict.Errorf(verdict.MsgCLIFlagFile, "--witness", f, err)
			}
		default:
			// The key text itself (a verifier key is public).
			w, kerr := checkpoint.ParseWitness(f)
			switch {
			case kerr == nil:
				ws = []*checkpoint.Witness{w}
			case errors.Is(err, fs.ErrNotExist) && strings.Count(f, "+") >= 2:
				// Shaped like a key: why the key is refused.
				return verdict.Errorf(verdict.MsgCLIFlagErr, "--witness", kerr)
			default:
				return verdict.Errorf(verdict.MsgCLIWitnessNeither, fileErr(err))
			}
		}
		for _, w := range ws {
			if c.witnesses, err = checkpoint.AddWitness(c.witnesses, w); err != nil {
				return verdict.Errorf(verdict.MsgCLIFlagErr, "--witness", err)
			}
		}
	}
	if !isSet(c.fs, "witness-quorum") {
		return nil
	}
	a := receipt.Anchors{Witnesses: c.witnesses}
	if err := a.SetQuorum(*c.quorum); err != nil {
		return err
	}
	c.witnessQuorum = a.WitnessQuorum
	return nil
}

// checkLang refuses a --lang other than fr or en.
func checkLang(lang string) error {
	if lang != "fr" && lang != "en" {
		return verdict.Errorf(verdict.MsgCLILangBad, lang)
	}
	return nil
}

// tofuWithKeys refuses --tofu with the keys given by flags ("--pin",
// "--log-key"…): trusting the keys served (or carried) on first use would
// take them alongside the keys given, and record them as pinned.
func (c *common) tofuWithKeys(tofu bool, flags ...string) error {
	if !tofu {
		return nil
	}
	var given []string
	for _, f := range flags {
		if isSet(c.fs, f) {
			given = append(given, "--"+f)
		}
	}
	if len(given) == 0 {
		return nil
	}
	return verdict.Errorf(verdict.MsgCLITOFUWithKeys, strings.Join(given, ", "))
}

// isSet reports whether the flag name was given on the command line.
func isSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

func (c *common) statePath() string {
	if *c.state != "" {
		return *c.state
	}
	return defaultStatePath()
}

// loadState reads the trust state; a missing file is an empty state for
// the commands that create it (stateNew: log, audit), an error for the
// others.
func (c *common) loadState() (*checkpoint.State, error) {
	b, err := readFileMax(c.statePath(), maxState, verdict.MsgLimitState)
	if err != nil && (!c.stateNew || !errors.Is(err, os.ErrNotExist)) {
		return nil, fileErr(err)
	}
	return checkpoint.ParseState(b)
}

// saveState writes the trust state atomically.
func (c *common) saveState(s *checkpoint.State) error {
	path := c.statePath()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".state-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(s.Marshal()); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// anchors reads the trust flags. A state file is read only when --state is
// given (receipt and game never change it).
func (c *common) anchors() (receipt.Anchors, error) {
	var a receipt.Anchors
	loc, err := time.LoadLocation(*c.tz)
	if err != nil {
		return a, verdict.Errorf(verdict.MsgCLITZ, *c.tz, err)
	}
	a.Location = loc
	a.Pins = append(a.Pins, c.pins...)
	a.Witnesses, a.WitnessQuorum = c.witnesses, c.witnessQuorum
	for _, f := range c.logKeys {
		b, err := readFileMax(f, maxKeyFile, verdict.MsgLimitKeyFile)
		if err != nil {
			// The key text itself (a verifier key is public).
			if k, kerr := checkpoint.ParseKey(f); kerr == nil {
				a.LogKeys = append(a.LogKeys, k)
				continue
			}
			return a, verdict.Errorf(verdict.MsgCLILogKeyNeither, fileErr(err))
		}
		if isAnnouncement(b) {
			_, pins, ids, err := announcedKeys(b)
			if err != nil {
				return a, verdict.Errorf(verdict.MsgCLIFlagFile, "--log-key", f, err)
			}
			a.Pins, a.Announced = append(a.Pins, pins...), append(a.Announced, ids...)
			c.noteAnnounced("--log-key", f, pins)
			continue
		}
		keys, err := checkpoint.ParseKeys(string(b))
		if err != nil {
			return a, verdict.Errorf(verdict.MsgCLIFlagFile, "--log-key", f, err)
		}
		a.LogKeys = append(a.LogKeys, keys...)
	}
	for _, f := range c.vrfKeys {
		b, err := readFileMax(f, maxKeyFile, verdict.MsgLimitKeyFile)
		if err != nil {
			return a, verdict.Errorf(verdict.MsgCLIFlagErr, "--vrf-key", fileErr(err))
		}
		keys, pins, ids, err := parseVRFKeyFile(b)
		if err != nil {
			return a, verdict.Errorf(verdict.MsgCLIFlagFile, "--vrf-key", f, err)
		}
		a.VRFKeys, a.Pins, a.Announced = append(a.VRFKeys, keys...), append(a.Pins, pins...), append(a.Announced, ids...)
		c.noteAnnounced("--vrf-key", f, pins)
	}
	if *c.state != "" {
		s, err := c.loadState()
		if err != nil {
			return a, verdict.Errorf(verdict.MsgCLIFlagErr, "--state", err)
		}
		if err := c.stateWitnesses(s, &a); err != nil {
			return a, err
		}
		for origin, l := range s.Logs {
			keys, _ := l.TrustedKeys() // ParseState checked them
			a.LogKeys = append(a.LogKeys, keys...)
			// A trusted checkpoint that no longer opens is refused, as
			// rngverify log refuses its log's (log and audit read that one
			// themselves, not Last): left out, a document's checkpoint
			// would not be compared with it.
			last, err := l.Last()
			if err != nil && !c.stateNew {
				return a, verdict.Errorf(verdict.MsgCLIFlagErr, "--state", verdict.Errorf(verdict.MsgStateLog, origin, verdict.Errorf(verdict.MsgStateLast, err)))
			}
			if err == nil && last != nil {
				a.Last = append(a.Last, last)
			}
		}
	}
	return a, nil
}

// noteAnnounced records the first key announcement, given with flag in
// file f, whose pins name a log key (a bare fingerprint: a VRF key's pin
// has its suite).
func (c *common) noteAnnounced(flag, f string, pins []string) {
	if c.announcedLog[0] != "" {
		return
	}
	for _, p := range pins {
		if s, _, err := receipt.ParsePin(p); err == nil && s == "" {
			c.announcedLog = [2]string{flag, f}
			return
		}
	}
}

// stateWitnesses applies the witnesses the state s requires to the
// commands that only read it (log and audit check their log's:
// logFlags.sameWitnesses): each log's to its own checkpoints
// (a.LogWitnesses), whatever --witness says. For the documents of other
// logs: without --witness, those of its logs, which must agree (the
// anchors hold one set of witnesses for them); with --witness, which must
// be a log's of the state, witnesses and quorum, as log refuses others.
func (c *common) stateWitnesses(s *checkpoint.State, a *receipt.Anchors) error {
	if c.stateNew {
		return nil
	}
	// Each log's, for its own checkpoints: the witnesses below, one set,
	// are for the documents of the logs that have none in the state.
	for origin, l := range s.Logs {
		if ws, q, _ := l.TrustedWitnesses(); len(ws) > 0 { // ParseState checked them
			if a.LogWitnesses == nil {
				a.LogWitnesses = map[string]receipt.WitnessRule{}
			}
			a.LogWitnesses[origin] = receipt.WitnessRule{Witnesses: ws, Quorum: q}
		}
	}
	var refused error
	var refusedWs []*checkpoint.Witness
	from := ""
	for _, origin := range slices.Sorted(maps.Keys(s.Logs)) {
		ws, q, _ := s.Logs[origin].TrustedWitnesses() // ParseState checked them
		switch {
		case len(ws) == 0:
		case len(c.witnesses) > 0:
			_, err := s.Witness(origin, c.witnesses, c.witnessQuorum, time.Time{})
			if err == nil {
				return nil // this log's
			}
			if refused == nil {
				refused, refusedWs = err, ws
			}
		case from == "":
			from, a.Witnesses, a.WitnessQuorum = origin, ws, q
		case !checkpoint.SameWitnesses(ws, a.Witnesses) || q != a.WitnessQuorum:
			return verdict.Errorf(verdict.MsgCLIFlagErr, "--state", verdict.Errorf(verdict.MsgCLIWitnessesDiffer, from, origin))
		}
	}
	if refused != nil {
		return c.witnessesRefused(refused, refusedWs)
	}
	return nil
}

// witnessesRefused is the error refusing --witness and --witness-quorum
// for a log whose state requires the witnesses ws (checkpoint.State.
// Witness's error why), naming --witness-quorum when it is the quorum only
// that differs.
func (c *common) witnessesRefused(why error, ws []*checkpoint.Witness) error {
	flag := "--witness"
	if isSet(c.fs, "witness-quorum") && checkpoint.SameWitnesses(ws, c.witnesses) {
		flag = "--witness-quorum"
	}
	return verdict.Errorf(verdict.MsgCLIFlagErr, flag, verdict.M(verdict.MsgCLIStateFile, c.statePath(), receipt.Cause(why)))
}

func isAnnouncement(b []byte) bool { return strings.HasPrefix(strings.TrimSpace(string(b)), "{") }

// announcedKeys reads the log's key announcement record, checks that every
// key in it proved possession (verifier/announce), and returns its VRF keys,
// the pins of its log and VRF keys, and its VRF keys with their ids — which
// key each id names (receipt.AnnouncedAnchors). A tampered announcement is
// refused with the failing check named.
func announcedKeys(b []byte) ([]*vrf.PublicKey, []string, []receipt.AnnouncedKey, error) {
	if d, ok := documentCommands[receipt.Detect(b)]; ok {
		// The document given to the key flag (the two swapped): not
		// "bad key announcement: record: …".
		return nil, nil, nil, verdict.Errorf(verdict.MsgCLIDocumentNotKeys, d.name)
	}
	ka, err := announce.Parse([]byte(strings.TrimSpace(string(b))))
	if err != nil {
		return nil, nil, nil, err
	}
	keys, pins, ids := receipt.AnnouncedAnchors(ka)
	return keys, pins, ids, nil
}

// parseVRFKeyFile reads "SUITE HEX" lines (keys without ids) or a key
// announcement record.
func parseVRFKeyFile(b []byte) ([]*vrf.PublicKey, []string, []receipt.AnnouncedKey, error) {
	if isAnnouncement(b) {
		return announcedKeys(b)
	}
	t := strings.TrimSpace(string(b))
	var keys []*vrf.PublicKey
	for i, line := range strings.Split(t, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		suite, h, ok := strings.Cut(line, " ")
		if k, err := checkpoint.ParseKey(line); !ok && err == nil {
			return nil, nil, nil, verdict.Errorf(verdict.MsgVRFKeyLineLogVKey, i+1, k.Name, k.Algorithm)
		}
		if !ok {
			return nil, nil, nil, verdict.Errorf(verdict.MsgVRFKeyLineForm, i+1)
		}
		s, err := vrf.ParseSuite(suite)
		if f := strings.Fields(line); err != nil && len(f) == 3 {
			// rngctl keys export-public's line, "LABEL ALGORITHM HEX":
			// the keystore's every key, the log's among them.
			if _, serr := vrf.ParseSuite(f[1]); serr == nil {
				return nil, nil, nil, verdict.Errorf(verdict.MsgVRFKeyLineExport, i+1, f[0], f[1])
			}
			return nil, nil, nil, verdict.Errorf(verdict.MsgVRFKeyLineNotVRF, i+1, f[0], f[1])
		}
		if err != nil {
			return nil, nil, nil, verdict.Errorf(verdict.MsgVRFKeyLineSuite, i+1, verdict.M(verdict.MsgUnknownSuite, suite))
		}
		raw, err := hex.DecodeString(strings.TrimSpace(h))
		if err != nil {
			return nil, nil, nil, verdict.Errorf(verdict.MsgVRFKeyLineHex, i+1)
		}
		pk, err := vrf.ParsePublicKey(s, raw)
		if err != nil {
			return nil, nil, nil, verdict.Errorf(verdict.MsgLineErr, i+1, err)
		}
		keys = append(keys, pk)
	}
	if len(keys) == 0 {
		return nil, nil, nil, verdict.Errorf(verdict.MsgNoKeyFound)
	}
	return keys, nil, nil, nil
}

// report prints a verdict and returns the exit code: 0 pass, 1 a check
// failed (with a one-line reason on stderr, worded differently for
// misbehaviour), 2 when the input was unreadable (its format check — a
// document's, a certificate's — failed): then, as for any exit 2, the one
// line on stderr is all that is printed — no verdict on stdout, with
// --json or without (docs/verifier.md).
func (c *common) report(env Env, v *verdict.Verdict, extra func(w io.Writer)) int {
	if ch := unreadable(v); ch != nil {
		why := ch.Reason(*c.lang)
		// The document named, unless the reason names it (a certificate
		// that is not one).
		if c.input != "" && (ch.Message == nil || ch.Message.ID != verdict.MsgNotCertificate) {
			why = verdict.M(verdict.MsgColon, c.input, why).Text(*c.lang)
		}
		c.conclude(env, verdict.MsgCLIUnreadable, c.name, why)
		return ExitUsage
	}
	first := v.First()
	if *c.json {
		env.Stdout.Write(v.JSON())
	} else {
		io.WriteString(env.Stdout, v.Text(*c.lang))
		if extra != nil {
			extra(env.Stdout)
		}
	}
	switch {
	case v.Status() == verdict.StatusPass:
		return ExitOK
	case v.Status() == verdict.StatusMisbehaviour:
		c.conclude(env, verdict.MsgCLIMisbehaviour, c.name, first.Name, first.Reason(*c.lang))
	case first != nil:
		c.conclude(env, verdict.MsgCLINotVerified, c.name, first.Name, first.Reason(*c.lang))
	default:
		c.conclude(env, verdict.MsgCLINoCheck, c.name)
	}
	return ExitFail
}

// unreadable returns v's format check (a document's, a certificate's) when
// it failed: the input was unreadable.
func unreadable(v *verdict.Verdict) *verdict.Check {
	for _, f := range []string{verdict.CheckFormat, promo.CheckFormat} {
		if ch := v.Find(f); ch != nil && ch.Status == verdict.StatusFail {
			return ch
		}
	}
	return nil
}

// conclude prints the verdict's one-line conclusion on stderr, in --lang.
func (c *common) conclude(env Env, id verdict.MsgID, args ...any) {
	fmt.Fprintln(env.Stderr, verdict.M(id, args...).Text(*c.lang))
}

// usageErr prints why the command line is refused, in --lang, and returns
// ExitUsage.
func (c *common) usageErr(env Env, why verdict.Msg) int {
	fmt.Fprintln(env.Stderr, verdict.M(verdict.MsgCLIUsageErr, c.name, why, c.name).Text(c.argLang))
	return ExitUsage
}

// help prints the command's usage (the catalog's usage), the trust flags
// and the exit codes, in --lang, and returns ExitOK.
func (c *common) help(env Env, usage verdict.MsgID) int {
	l := c.argLang
	io.WriteString(env.Stderr, verdict.M(usage).Text(l)+verdict.M(verdict.MsgUsageTrust, defaultStatePath()).Text(l)+verdict.M(verdict.MsgUsageExit).Text(l))
	return ExitOK
}

// fileErr names in the catalog a file that does not exist or may not be
// read (os's English text unchanged), so that it reads in French too.
func fileErr(err error) error {
	var pe *fs.PathError
	switch {
	case !errors.As(err, &pe):
		return err
	case errors.Is(err, fs.ErrNotExist):
		return verdict.Errorf(verdict.MsgFileNotExist, pe.Path, err)
	case errors.Is(err, fs.ErrPermission):
		return verdict.Errorf(verdict.MsgFilePermission, pe.Path, err)
	}
	return err
}

// readInput reads FILE, or stdin for "-", refusing either beyond
// maxDocument bytes with the same error (stdin is read up to the limit
// only, never parsed cut short).
func readInput(env Env, path string) ([]byte, error) {
	if path != "-" {
		return readFileMax(path, maxDocument, verdict.MsgLimitDocument)
	}
	b, err := io.ReadAll(io.LimitReader(env.Stdin, maxDocument+1))
	if err == nil && int64(len(b)) > maxDocument {
		return nil, verdict.Errorf(verdict.MsgFileTooLarge, path, maxDocument>>20, verdict.M(verdict.MsgLimitDocument))
	}
	return b, err
}

// The most rngverify reads of a file, by kind: a device (/dev/zero) or a
// file that is not what it claims is refused, not read into memory.
const (
	// maxDocument: a receipt, transcript or certificate, as on stdin.
	maxDocument = receipt.MaxSize
	// maxEntrants: a promotion's entrant list.
	maxEntrants = receipt.MaxEntrants
	// maxKeyFile: a key file or key announcement.
	maxKeyFile = receipt.MaxKeyFile
	// maxRules: an operation's rules file; maxState: the trust state.
	maxRules = receipt.MaxSize
	maxState = receipt.MaxSize
)

// readFileMax reads the file at path, refusing it when it holds more than
// limit bytes: the error names the file, the limit in MiB and what the
// limit is for (kind).
func readFileMax(path string, limit int64, kind verdict.MsgID) ([]byte, error) {
	return readFileHead(path, limit, kind, "")
}

// readFileHead is readFileMax for a file that must begin with head: one
// that does not is returned as soon as that is seen (its first len(head)
// bytes at most), for its parser to refuse, so that a device such as
// /dev/zero is not read up to a large limit.
func readFileHead(path string, limit int64, kind verdict.MsgID, head string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	tooLarge := verdict.Errorf(verdict.MsgFileTooLarge, path, limit>>20, verdict.M(kind))
	var buf bytes.Buffer
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
		if fi.Size() > limit {
			return nil, tooLarge
		}
		buf.Grow(int(fi.Size()) + 1)
	}
	start := make([]byte, len(head))
	n, err := io.ReadFull(f, start)
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return nil, err
	}
	if string(start[:n]) != head {
		return start[:n], nil
	}
	buf.Write(start)
	if _, err := buf.ReadFrom(io.LimitReader(f, limit+1-int64(n))); err != nil {
		return nil, err
	}
	if int64(buf.Len()) > limit {
		return nil, tooLarge
	}
	return buf.Bytes(), nil
}

// multiFlag is a repeatable string flag.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, " ") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }
