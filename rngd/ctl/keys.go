package ctl

import (
	"context"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/term"

	"tirage.fr/tirage/hsm"
	"tirage.fr/tirage/hsm/keystore"
	"tirage.fr/tirage/hsm/pkcs11"
	"tirage.fr/tirage/verifier/record"
	"tirage.fr/tirage/verifier/vrf"
)

func init() {
	register("keys", Command{Summary: "key ceremony: init, show, export-public, announce", Run: runKeys})
}

// keysNow is the ceremony's clock (the announcement's time); tests set it.
var keysNow = time.Now

const keysUsage = `usage: rngctl keys init|show|export-public|announce [FLAGS]

  init           generate the VRF, log and attestation keys in the backend and
                 write the signed key announcement (the log's first record)
  show           list the backend's keys with their SHA-256 fingerprints
  export-public  print public keys (hex, or PEM for DER SubjectPublicKeyInfo keys)
  announce       write the signed key announcement for existing keys

backend flags (all subcommands):
  --backend software|pkcs11   key custody (default software: development only)
  --dir DIR                   software: keystore directory (mode 0700)
  --passphrase-file FILE      software: read the passphrase from FILE (mode 0600)
  --passphrase-fd N           software: read the passphrase from file descriptor N
  --module PATH               pkcs11: module (default /usr/lib/softhsm/libsofthsm2.so)
  --token-label LABEL         pkcs11: token label
  --pin-file FILE             pkcs11: read the user PIN from FILE (mode 0600)
  --pin-fd N                  pkcs11: read the user PIN from file descriptor N
  Without a file or descriptor the secret is read from standard input after a
  prompt (without echo on a terminal). A secret is never taken from a flag.

init and announce:
  --announcement FILE         where to write the announcement leaf (required; never overwritten)
  --vrf-label L               VRF key label (default vrf)
  --log-label L               checkpoint signing key label (default log)
  --attestation-label L       attestation signing key label (default attestation)
init only:
  --vrf-suite SUITE           default ECVRF-P256-SHA256-SSWU (software), RSA-FDH-VRF-SHA256 (pkcs11)
  --sign-alg ALG              Ed25519 or ECDSA-P256-SHA256 (default: Ed25519 where supported)
  --rsa-bits N                pkcs11: RSA-FDH-VRF modulus size, 2048 to 8192 (default 2048)
  --kdf-time N, --kdf-memory-mib N, --kdf-threads N
                              software: Argon2id cost of the new key files (default 3, 64, 4)
export-public:
  --label L                   one key only, its public key alone on a line
  --format hex|pem            default hex
`

// keysCmd holds the flags of a keys subcommand.
type keysCmd struct {
	env  Env
	name string
	fs   *flag.FlagSet

	backend, dir, module, tokenLabel  string
	passFile, passFD, pinFile, pinFD  string
	announcement                      string
	vrfLabel, logLabel, attLabel      string
	vrfSuite, signAlg                 string
	kdfTime, kdfMemoryMiB, kdfThreads uint
	rsaBits                           int
	label, format                     string
}

// errUsage marks errors that are the operator's invocation.
var errUsage = errors.New("usage")

func runKeys(ctx context.Context, env Env) int {
	if code, done := groupHelp(env, keysUsage); done {
		return code
	}
	c := &keysCmd{env: env, name: "rngctl keys " + env.Args[0]}
	c.fs = newFlags(c.name)
	fs := c.fs
	fs.StringVar(&c.backend, "backend", "software", "")
	fs.StringVar(&c.dir, "dir", "", "")
	fs.StringVar(&c.passFile, "passphrase-file", "", "")
	fs.StringVar(&c.passFD, "passphrase-fd", "", "")
	fs.StringVar(&c.module, "module", pkcs11.DefaultModule, "")
	fs.StringVar(&c.tokenLabel, "token-label", "", "")
	fs.StringVar(&c.pinFile, "pin-file", "", "")
	fs.StringVar(&c.pinFD, "pin-fd", "", "")
	var run func() error
	switch env.Args[0] {
	case "init", "announce":
		fs.StringVar(&c.announcement, "announcement", "", "")
		fs.StringVar(&c.vrfLabel, "vrf-label", "vrf", "")
		fs.StringVar(&c.logLabel, "log-label", "log", "")
		fs.StringVar(&c.attLabel, "attestation-label", "attestation", "")
		run = c.announce
		if env.Args[0] == "init" {
			fs.StringVar(&c.vrfSuite, "vrf-suite", "", "")
			fs.StringVar(&c.signAlg, "sign-alg", "", "")
			fs.UintVar(&c.kdfTime, "kdf-time", uint(keystore.DefaultKDF.Time), "")
			fs.UintVar(&c.kdfMemoryMiB, "kdf-memory-mib", uint(keystore.DefaultKDF.MemoryKiB/1024), "")
			fs.UintVar(&c.kdfThreads, "kdf-threads", uint(keystore.DefaultKDF.Threads), "")
			fs.IntVar(&c.rsaBits, "rsa-bits", 0, "")
			run = c.init
		}
	case "show":
		run = c.show
	case "export-public":
		fs.StringVar(&c.label, "label", "", "")
		fs.StringVar(&c.format, "format", "hex", "")
		run = c.exportPublic
	default:
		return usageError(env, "keys", "keys: unknown subcommand %q", env.Args[0])
	}
	if code, ok := parseArgs(env, fs, env.Args[1:], strings.TrimPrefix(c.name, "rngctl "), keysUsage, false); !ok {
		return code
	}
	if err := run(); err != nil {
		fmt.Fprintf(env.Stderr, "%s: %s\n", c.name, strings.ReplaceAll(err.Error(), "\n", " "))
		if errors.Is(err, errUsage) {
			return ExitUsage
		}
		return ExitFail
	}
	return ExitOK
}

func usagef(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{errUsage}, args...)...)
}

// open opens the chosen backend, reading its secret as the flags say.
func (c *keysCmd) open() (hsm.Backend, error) {
	log := slog.New(slog.NewTextHandler(c.env.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	switch c.backend {
	case "software":
		if c.pinFile != "" || c.pinFD != "" || c.tokenLabel != "" {
			return nil, usagef("--pin-file, --pin-fd and --token-label are for --backend pkcs11")
		}
		if c.dir == "" {
			return nil, usagef("--dir is required with --backend software")
		}
		pass, err := c.secret("passphrase", c.passFile, c.passFD, c.name == "rngctl keys init")
		if err != nil {
			return nil, err
		}
		defer clear(pass)
		kdf := keystore.KDFParams{Time: uint32(c.kdfTime), MemoryKiB: uint32(c.kdfMemoryMiB) * 1024, Threads: uint8(min(c.kdfThreads, 255))}
		fmt.Fprintln(c.env.Stderr, "WARNING: software keystore: the keys are held in files and in this process's memory; for development only, use --backend pkcs11 in production")
		return keystore.Open(keystore.Config{Dir: c.dir, Passphrase: pass, KDF: kdf, Logger: log})
	case "pkcs11":
		if c.passFile != "" || c.passFD != "" || c.dir != "" {
			return nil, usagef("--passphrase-file, --passphrase-fd and --dir are for --backend software")
		}
		if c.tokenLabel == "" {
			return nil, usagef("--token-label is required with --backend pkcs11")
		}
		pin, err := c.secret("PIN", c.pinFile, c.pinFD, false)
		if err != nil {
			return nil, err
		}
		defer clear(pin)
		return pkcs11.Open(pkcs11.Config{Module: c.module, TokenLabel: c.tokenLabel, PIN: pin, RSABits: c.rsaBits, Logger: log})
	}
	return nil, usagef("--backend %q: want software or pkcs11", c.backend)
}

// maxSecret bounds a PIN or passphrase read from a file or descriptor.
const maxSecret = 4096

// secret reads a PIN or passphrase from a file, a descriptor or a prompt.
// Messages name the flag, never the value or (for files) the path, in case
// an operator typed the secret where the path belongs.
func (c *keysCmd) secret(what, file, fd string, confirm bool) ([]byte, error) {
	var b []byte
	switch {
	case file != "" && fd != "":
		return nil, usagef("give the %s by file or by descriptor, not both", what)
	case file != "":
		f, err := os.Open(file)
		if err != nil {
			return nil, fmt.Errorf("couldn't open the %s file: %w", what, pathless(err))
		}
		defer f.Close()
		fi, err := f.Stat()
		if err != nil {
			return nil, fmt.Errorf("couldn't read the %s file: %w", what, pathless(err))
		}
		if fi.Mode().IsRegular() && fi.Mode().Perm()&0o077 != 0 {
			return nil, fmt.Errorf("the %s file is readable by others (mode %04o): chmod 600 it", what, fi.Mode().Perm())
		}
		if b, err = readLimited(f); err != nil {
			return nil, fmt.Errorf("couldn't read the %s file: %w", what, pathless(err))
		}
	case fd != "":
		n, err := strconv.Atoi(fd)
		if err != nil || n < 0 {
			return nil, usagef("the %s descriptor flag takes a file descriptor number", what)
		}
		f := os.NewFile(uintptr(n), what)
		if f == nil {
			return nil, fmt.Errorf("file descriptor %d is not open", n)
		}
		defer f.Close()
		if b, err = readLimited(f); err != nil {
			return nil, fmt.Errorf("couldn't read the %s from descriptor %d: %w", what, n, pathless(err))
		}
	default:
		var err error
		if b, err = c.prompt(what); err != nil {
			return nil, err
		}
		if confirm && c.isTerminal() {
			again, err := c.prompt(what + " (again)")
			if err != nil {
				clear(b)
				return nil, err
			}
			same := string(again) == string(b)
			clear(again)
			if !same {
				clear(b)
				return nil, fmt.Errorf("the two %ss differ", what)
			}
		}
	}
	b = trimNewline(b)
	if len(b) == 0 {
		return nil, fmt.Errorf("empty %s", what)
	}
	return b, nil
}

func readLimited(r io.Reader) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, maxSecret+1))
	if err != nil {
		clear(b)
		return nil, err
	}
	if len(b) > maxSecret {
		clear(b)
		return nil, fmt.Errorf("longer than %d bytes", maxSecret)
	}
	return b, nil
}

func trimNewline(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b = b[:n-1]
		if n := len(b); n > 0 && b[n-1] == '\r' {
			b = b[:n-1]
		}
	}
	return b
}

// pathless drops the path from an *os.PathError.
func pathless(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func (c *keysCmd) isTerminal() bool {
	f, ok := c.env.Stdin.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// prompt reads one line from standard input, without echo on a terminal.
func (c *keysCmd) prompt(what string) ([]byte, error) {
	fmt.Fprintf(c.env.Stderr, "%s: ", what)
	if c.isTerminal() {
		b, err := term.ReadPassword(int(c.env.Stdin.(*os.File).Fd()))
		fmt.Fprintln(c.env.Stderr)
		if err != nil {
			return nil, fmt.Errorf("couldn't read the %s: %w", what, err)
		}
		return b, nil
	}
	// Byte by byte: nothing after the line is consumed.
	var b []byte
	var one [1]byte
	for len(b) <= maxSecret {
		n, err := c.env.Stdin.Read(one[:])
		if n == 1 {
			if one[0] == '\n' {
				return b, nil
			}
			b = append(b, one[0])
		}
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			clear(b)
			return nil, fmt.Errorf("couldn't read the %s: %w", what, err)
		}
	}
	clear(b)
	return nil, fmt.Errorf("%s longer than %d bytes", what, maxSecret)
}

func (c *keysCmd) init() error {
	if c.announcement == "" {
		return usagef("--announcement FILE is required")
	}
	suite := vrf.SuiteP256SSWU
	if c.backend == "pkcs11" {
		suite = vrf.SuiteRSAFDH256
	}
	if c.vrfSuite != "" {
		s, err := vrf.ParseSuite(c.vrfSuite)
		if err != nil {
			return usagef("--vrf-suite: %s", err)
		}
		suite = s
	}
	if err := checkNew(c.announcement); err != nil {
		return err
	}
	b, err := c.open()
	if err != nil {
		return err
	}
	defer b.Close()
	if _, err := b.GenerateVRF(c.vrfLabel, suite); err != nil {
		return fmt.Errorf("couldn't make the VRF key: %w", err)
	}
	for _, l := range []string{c.logLabel, c.attLabel} {
		if _, err := b.GenerateSigner(l, c.signAlg); err != nil {
			return fmt.Errorf("couldn't make signing key %q: %w", l, err)
		}
	}
	return c.writeAnnouncement(b)
}

func (c *keysCmd) announce() error {
	if c.announcement == "" {
		return usagef("--announcement FILE is required")
	}
	if err := checkNew(c.announcement); err != nil {
		return err
	}
	b, err := c.open()
	if err != nil {
		return err
	}
	defer b.Close()
	return c.writeAnnouncement(b)
}

func checkNew(name string) error {
	if _, err := os.Lstat(name); err == nil {
		return fmt.Errorf("announcement file %s exists: the announcement is never overwritten", name)
	}
	return nil
}

func (c *keysCmd) writeAnnouncement(b hsm.Backend) error {
	p, err := b.VRFProver(c.vrfLabel)
	if err != nil {
		return err
	}
	keys := []hsm.AnnouncedKey{{Use: hsm.UseVRF, Label: c.vrfLabel, Prover: p}}
	for _, k := range []struct{ use, label string }{{hsm.UseLog, c.logLabel}, {hsm.UseAttestation, c.attLabel}} {
		s, err := b.Signer(k.label)
		if err != nil {
			return err
		}
		keys = append(keys, hsm.AnnouncedKey{Use: k.use, Label: k.label, Signer: s})
	}
	leaf, err := hsm.Announce(keysNow(), keys)
	if err != nil {
		return err
	}
	if _, err := hsm.CheckAnnouncement(leaf); err != nil {
		return fmt.Errorf("the announcement just made does not check: %w", err)
	}
	f, err := os.OpenFile(c.announcement, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fmt.Errorf("couldn't create the announcement file: %w", err)
	}
	if _, err := f.Write(leaf); err != nil {
		f.Close()
		return fmt.Errorf("couldn't write the announcement file: %w", err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := c.printKeys(b); err != nil {
		return err
	}
	h := record.LeafHash(leaf)
	fmt.Fprintf(c.env.Stdout, "announcement: %s (%d bytes, leaf hash %x)\n", c.announcement, len(leaf), h[:])
	fmt.Fprintln(c.env.Stdout, "append it as the log's first entry before any draw (rngd does so at its first start).")
	return nil
}

func (c *keysCmd) show() error {
	b, err := c.open()
	if err != nil {
		return err
	}
	defer b.Close()
	return c.printKeys(b)
}

func (c *keysCmd) printKeys(b hsm.Backend) error {
	keys, err := b.Keys()
	if err != nil {
		return err
	}
	where := "pkcs11 token " + strconv.Quote(c.tokenLabel)
	if b.Software() {
		where = "software keystore " + c.dir + " (development only)"
	}
	fmt.Fprintf(c.env.Stdout, "backend: %s, %d keys\n", where, len(keys))
	for _, k := range keys {
		fmt.Fprintf(c.env.Stdout, "\nkey %s\n  purpose:     %s\n  algorithm:   %s\n  fingerprint: SHA256:%s\n  public key:  %x\n",
			k.Label, k.Purpose, k.Algorithm, k.Fingerprint(), k.Public)
	}
	return nil
}

func (c *keysCmd) exportPublic() error {
	if c.format != "hex" && c.format != "pem" {
		return usagef("--format %q: want hex or pem", c.format)
	}
	b, err := c.open()
	if err != nil {
		return err
	}
	defer b.Close()
	keys, err := b.Keys()
	if err != nil {
		return err
	}
	found := false
	for _, k := range keys {
		if c.label != "" && k.Label != c.label {
			continue
		}
		found = true
		switch {
		case c.format == "pem":
			if k.Algorithm == string(vrf.SuiteP256SSWU) || k.Algorithm == string(vrf.SuiteP256TAI) {
				return fmt.Errorf("key %q is a compressed P-256 point, not a SubjectPublicKeyInfo: export it as hex", k.Label)
			}
			pem.Encode(c.env.Stdout, &pem.Block{Type: "PUBLIC KEY", Headers: map[string]string{"Label": k.Label, "Algorithm": k.Algorithm}, Bytes: k.Public})
		case c.label != "":
			fmt.Fprintln(c.env.Stdout, hex.EncodeToString(k.Public))
		default:
			fmt.Fprintf(c.env.Stdout, "%s %s %s\n", k.Label, k.Algorithm, hex.EncodeToString(k.Public))
		}
	}
	if !found {
		return fmt.Errorf("%w: no key labelled %q", hsm.ErrNotFound, c.label)
	}
	return nil
}
