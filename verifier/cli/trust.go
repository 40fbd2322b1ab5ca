package cli

import (
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
	_ "time/tzdata" // the rules' time zone (Europe/Paris) without relying on the host's zoneinfo

	"tirage.fr/tirage/verifier/announce"
	"tirage.fr/tirage/verifier/checkpoint"
	"tirage.fr/tirage/verifier/receipt"
	"tirage.fr/tirage/verifier/record"
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
}

const trustUsage = `Trust (never taken from the material being verified):
  --log-key FILE   the log's verifier key(s), one per line, as served at /log/vkey, or the key
                   text itself, or the log's key announcement record (JSON; checked as below) (repeatable)
  --vrf-key FILE   the VRF public key: lines "SUITE HEX" (HEX as rngverify vrf --pk takes it),
                   or the log's key announcement record (JSON): every key in it must prove
                   possession (its DSSE signatures), then its keys are all pinned (repeatable)
  --pin SHA256     pin a key by fingerprint: lower-case hex SHA-256 of a VRF public key,
                   or of the log's Ed25519 key as DER SubjectPublicKeyInfo (as rngd prints them) (repeatable)
  --state FILE     the trust state kept by rngverify log (default %s):
                   its log keys are trusted and its last checkpoint is compared

Output:
  --lang fr|en     language of the verdict (default en)
  --json           print the verdict as JSON
  --tz ZONE        the operator's legal time zone for the game rules (default Europe/Paris)
`

func newCommon(name string) *common {
	c := &common{name: name, fs: flag.NewFlagSet("rngverify "+name, flag.ContinueOnError)}
	c.fs.SetOutput(io.Discard)
	c.fs.Var(&c.logKeys, "log-key", "")
	c.fs.Var(&c.vrfKeys, "vrf-key", "")
	c.fs.Var(&c.pins, "pin", "")
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
	if *c.lang != "fr" && *c.lang != "en" {
		return nil, fmt.Errorf("--lang: %q, want fr or en", *c.lang)
	}
	for _, p := range c.pins {
		if b, err := hex.DecodeString(p); err != nil || len(b) != 32 {
			return nil, fmt.Errorf("--pin %q: want 64 hex digits (a SHA-256 fingerprint)", p)
		}
	}
	return pos, nil
}

func (c *common) statePath() string {
	if *c.state != "" {
		return *c.state
	}
	return defaultStatePath()
}

// loadState reads the trust state; a missing file is an empty state.
func (c *common) loadState() (*checkpoint.State, error) {
	b, err := os.ReadFile(c.statePath())
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
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
		return a, fmt.Errorf("--tz %q: %w", *c.tz, err)
	}
	a.Location = loc
	a.Pins = append(a.Pins, c.pins...)
	for _, f := range c.logKeys {
		b, err := os.ReadFile(f)
		if err != nil {
			// The key text itself (a verifier key is public).
			if k, kerr := checkpoint.ParseKey(f); kerr == nil {
				a.LogKeys = append(a.LogKeys, k)
				continue
			}
			return a, fmt.Errorf("--log-key: neither a key nor a readable file: %w", err)
		}
		if isAnnouncement(b) {
			_, pins, err := announcedKeys(b)
			if err != nil {
				return a, fmt.Errorf("--log-key %s: %w", f, err)
			}
			a.Pins = append(a.Pins, pins...)
			continue
		}
		keys, err := checkpoint.ParseKeys(string(b))
		if err != nil {
			return a, fmt.Errorf("--log-key %s: %w", f, err)
		}
		a.LogKeys = append(a.LogKeys, keys...)
	}
	for _, f := range c.vrfKeys {
		b, err := os.ReadFile(f)
		if err != nil {
			return a, fmt.Errorf("--vrf-key: %w", err)
		}
		keys, pins, err := parseVRFKeyFile(b)
		if err != nil {
			return a, fmt.Errorf("--vrf-key %s: %w", f, err)
		}
		a.VRFKeys, a.Pins = append(a.VRFKeys, keys...), append(a.Pins, pins...)
	}
	if *c.state != "" {
		s, err := c.loadState()
		if err != nil {
			return a, fmt.Errorf("--state: %w", err)
		}
		for _, l := range s.Logs {
			keys, _ := l.TrustedKeys()
			a.LogKeys = append(a.LogKeys, keys...)
			if last, err := l.Last(); err == nil && last != nil {
				a.Last = append(a.Last, last)
			}
		}
	}
	return a, nil
}

func isAnnouncement(b []byte) bool { return strings.HasPrefix(strings.TrimSpace(string(b)), "{") }

// announcedKeys reads the log's key announcement record, checks that every
// key in it proved possession (verifier/announce), and returns its VRF keys
// and the fingerprints of all its keys. A tampered announcement is refused
// with the failing check named.
func announcedKeys(b []byte) ([]*vrf.PublicKey, []string, error) {
	ka, err := announce.Parse([]byte(strings.TrimSpace(string(b))))
	if err != nil {
		return nil, nil, err
	}
	var keys []*vrf.PublicKey
	var pins []string
	for _, k := range ka.Keys {
		pins = append(pins, record.Hex(k.Fingerprint))
		if s, err := vrf.ParseSuite(k.Suite); err == nil && k.Use == announce.UseVRF {
			if pk, err := vrf.ParsePublicKey(s, k.PublicKey); err == nil {
				keys = append(keys, pk)
			}
		}
	}
	return keys, pins, nil
}

// parseVRFKeyFile reads "SUITE HEX" lines or a key announcement record.
func parseVRFKeyFile(b []byte) ([]*vrf.PublicKey, []string, error) {
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
		if !ok {
			return nil, nil, fmt.Errorf("line %d: want \"SUITE HEX\"", i+1)
		}
		s, err := vrf.ParseSuite(suite)
		if err != nil {
			return nil, nil, fmt.Errorf("line %d: %w", i+1, err)
		}
		raw, err := hex.DecodeString(strings.TrimSpace(h))
		if err != nil {
			return nil, nil, fmt.Errorf("line %d: the key is not hex", i+1)
		}
		pk, err := vrf.ParsePublicKey(s, raw)
		if err != nil {
			return nil, nil, fmt.Errorf("line %d: %w", i+1, err)
		}
		keys = append(keys, pk)
	}
	if len(keys) == 0 {
		return nil, nil, errors.New("no key found")
	}
	return keys, nil, nil
}

// report prints a verdict and returns the exit code: 0 pass, 1 a check
// failed (with a one-line reason on stderr, worded differently for
// misbehaviour), 2 when the input was unreadable (the format check failed).
func (c *common) report(env Env, v *verdict.Verdict, extra func(w io.Writer)) int {
	if *c.json {
		env.Stdout.Write(v.JSON())
	} else {
		io.WriteString(env.Stdout, v.Text(*c.lang))
		if extra != nil {
			extra(env.Stdout)
		}
	}
	first := v.First()
	switch {
	case v.Status() == verdict.StatusPass:
		return ExitOK
	case first != nil && first.Name == verdict.CheckFormat:
		c.conclude(env, verdict.MsgCLIUnreadable, c.name, first.Reason(*c.lang))
		return ExitUsage
	case v.Status() == verdict.StatusMisbehaviour:
		c.conclude(env, verdict.MsgCLIMisbehaviour, c.name, first.Name, first.Reason(*c.lang))
	case first != nil:
		c.conclude(env, verdict.MsgCLINotVerified, c.name, first.Name, first.Reason(*c.lang))
	default:
		c.conclude(env, verdict.MsgCLINoCheck, c.name)
	}
	return ExitFail
}

// conclude prints the verdict's one-line conclusion on stderr, in --lang.
func (c *common) conclude(env Env, id verdict.MsgID, args ...any) {
	fmt.Fprintln(env.Stderr, verdict.M(id, args...).Text(*c.lang))
}

func (c *common) usageErr(env Env, format string, args ...any) int {
	fmt.Fprintf(env.Stderr, "rngverify %s: %s (rngverify %s -h for usage)\n", c.name, fmt.Sprintf(format, args...), c.name)
	return ExitUsage
}

// readInput reads FILE, or stdin for "-".
func readInput(env Env, path string) ([]byte, error) {
	if path == "-" {
		return io.ReadAll(io.LimitReader(env.Stdin, receipt.MaxSize+1))
	}
	return os.ReadFile(path)
}

// multiFlag is a repeatable string flag.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, " ") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }
