package ctl

import (
	"context"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
	"golang.org/x/term"

	"tirage.fr/tirage/hsm"
	"tirage.fr/tirage/hsm/keystore"
	"tirage.fr/tirage/hsm/pkcs11"
	"tirage.fr/tirage/rngd"
	"tirage.fr/tirage/transparency/checkpoint"
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
  show           list the backend's keys with their SHA-256 fingerprints and the
                 VRF key's pin for auditors (SUITE:FINGERPRINT, rngverify --pin)
  export-public  print public keys (hex, or PEM for DER SubjectPublicKeyInfo keys),
                 or the log key's verifier key as /log/vkey serves it (--format vkey)
  announce       write the signed key announcement for existing keys

backend flags (all subcommands):
  --backend pkcs11|software   key custody (required; an rngctl built with -tags
                              tirage_dev defaults to software)
  --allow-software            software keys (--backend software, or a software
                              token such as SoftHSM2): keys in files on this
                              host, development only; required outside a dev
                              build, as rngd's keys.allow_software
  --dir DIR                   software: keystore directory (mode 0700)
  --passphrase-file FILE      software: read the passphrase from FILE (mode 0600)
  --passphrase-fd N           software: read the passphrase from file descriptor N
  --module PATH               pkcs11: the HSM's PKCS#11 library (required; an
                              rngctl built with -tags tirage_dev defaults to
                              SoftHSM2's, /usr/lib/softhsm/libsofthsm2.so)
  --token-label LABEL         pkcs11: token label
  --pin-file FILE             pkcs11: read the user PIN from FILE (mode 0600)
  --pin-fd N                  pkcs11: read the user PIN from file descriptor N
  Without a file or descriptor the secret is read from standard input: after a
  prompt, without echo, on a terminal; else one line, without a prompt (a pipe).
  A secret is never taken from a flag. Ctrl-C at the prompt stops the command
  (exit 1, nothing made or signed): what was typed after it is not used.
  show and export-public need no passphrase: a software keystore's public keys
  are in clear in its key files' headers, and are read from there when no
  passphrase flag is given. Those headers are authenticated only by the sealed
  keys, so keys read so are unchecked (show marks their fingerprints and pins,
  export-public says so on stderr): to check them, give --passphrase-file or
  --passphrase-fd (the keys are unsealed, which checks every header). Publish
  pins from such a run, not from the headers.
  Nor do they need a token's PIN: without --pin-file or --pin-fd the token is
  read without logging in, from its public key objects; its private keys are
  not seen then, so the keys are not matched to them: unchecked, and marked as
  above. Give --pin-file or --pin-fd to list its key pairs, checked. A key
  whose public key object is missing or private (shown only after login)
  would not be listed, so the expected keys must be shown, else it fails
  naming the label:
  --vrf-label L, --log-label L, --attestation-label L
                              pkcs11 without a PIN: the keys show and
                              export-public expect (default vrf, log and
                              attestation; export-public --label L expects L)

init and announce:
  --announcement FILE         where to write the announcement leaf (required; never overwritten)
  --vrf-label L               VRF key label (default vrf)
  --log-label L               checkpoint signing key label (default log)
  --attestation-label L       attestation signing key label (default attestation)
init only:
  --vrf-suite SUITE           default ECVRF-P256-SHA256-SSWU (software), RSA-FDH-VRF-SHA256 (pkcs11)
  --sign-alg ALG              the attestation key's algorithm: Ed25519 or
                              ECDSA-P256-SHA256 (default: Ed25519 where supported).
                              The log key is always Ed25519 (rngd signs checkpoints
                              with Ed25519 only): init refuses a token without EdDSA
  --rsa-bits N                pkcs11: RSA-FDH-VRF modulus size, 2048 to 8192 (default 2048)
  --kdf-time N, --kdf-memory-mib N, --kdf-threads N
                              software: Argon2id cost of the new key files (default 3, 64, 4;
                              1 to 16, 8 to 4096, 1 to 255)
export-public:
  --label L                   one key only, its public key alone on a line
  --format hex|pem|vkey       default hex; pem refuses, before printing any, a key
                              without a PEM form (a compressed P-256 VRF key);
                              vkey prints the log key's signed-note verifier key
                              as rngd serves it at /log/vkey (needs --origin NAME,
                              rngd's log.origin; the log key unless --label):
                              what a witness is given (rngctl witness serve
                              --log FILE) before a new log's first start

init checks every flag, the labels (three different ones), the
announcement's directory and that a token has EdDSA (its mechanism list)
before it makes anything; if it fails after making a key, it removes the
keys it made from a software keystore, and for a token (which rngctl cannot
delete keys from) says which it left and how to go on.
show, export-public and announce change nothing: the keystore (--dir) must
exist. announce refuses a log key that is not Ed25519.

Exit status: 0 done, 1 failed (one line says why), 2 usage error.
`

// keysCmd holds the flags of a keys subcommand.
type keysCmd struct {
	env  Env
	name string
	fs   *flag.FlagSet

	backend, dir, module, tokenLabel  string
	allowSoftware                     bool
	passFile, passFD, pinFile, pinFD  string
	announcement                      string
	vrfLabel, logLabel, attLabel      string
	vrfSuite, signAlg                 string
	kdfTime, kdfMemoryMiB, kdfThreads uint
	rsaBits                           int
	label, format                     string
	origin                            string // export-public --format vkey: the log's origin

	// dirFlag names the software keystore's flag in messages (promo calls
	// it --keys); create lets open make the keystore directory (init only:
	// every other command needs an existing keystore and creates nothing).
	dirFlag string
	create  bool

	// expect are the labels (VRF, log, attestation) whose public keys show
	// and export-public require of a token read without its PIN.
	expect [3]string

	// ctx is the command's: cancelled by an interrupt (Ctrl-C), after
	// which a PIN or passphrase read from standard input is not used.
	ctx context.Context
}

// custodyFlags registers the flags that open the key custody (the backend,
// the software keystore's directory under c.dirFlag's name, its passphrase;
// a PKCS#11 module, token and PIN): every command that signs or reads keys
// takes them alike.
//
// A production rngctl has no default backend nor module: the custody is
// always named on the command line, so that a command means the same in
// every build and a ceremony's transcript says which custody signed.
// Software keys (files on this host) need --allow-software there, as rngd
// needs keys.allow_software. A dev build (-tags tirage_dev) keeps the
// conveniences: --backend software and SoftHSM2's module by default.
func (c *keysCmd) custodyFlags(fs *flag.FlagSet) {
	backend, module := "", ""
	if devBuild {
		backend, module = "software", pkcs11.DefaultModule
	}
	fs.StringVar(&c.backend, "backend", backend, "")
	fs.BoolVar(&c.allowSoftware, "allow-software", false, "")
	fs.StringVar(&c.dir, strings.TrimPrefix(c.flagOfDir(), "--"), "", "")
	fs.StringVar(&c.passFile, "passphrase-file", "", "")
	fs.StringVar(&c.passFD, "passphrase-fd", "", "")
	fs.StringVar(&c.module, "module", module, "")
	fs.StringVar(&c.tokenLabel, "token-label", "", "")
	fs.StringVar(&c.pinFile, "pin-file", "", "")
	fs.StringVar(&c.pinFD, "pin-fd", "", "")
}

// openPKCS11 opens a PKCS#11 token; tests replace it.
var openPKCS11 = pkcs11.Open

// errUsage marks errors that are the operator's invocation.
var errUsage = errors.New("usage")

func runKeys(ctx context.Context, env Env) int {
	if code, done := groupHelp(env, keysUsage); done {
		return code
	}
	c := &keysCmd{env: env, name: "rngctl keys " + env.Args[0], dirFlag: "--dir", create: env.Args[0] == "init", ctx: ctx}
	c.fs = newFlags(c.name)
	fs := c.fs
	c.custodyFlags(fs)
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
	case "show", "export-public":
		fs.StringVar(&c.expect[0], "vrf-label", "vrf", "")
		fs.StringVar(&c.expect[1], "log-label", "log", "")
		fs.StringVar(&c.expect[2], "attestation-label", "attestation", "")
		run = c.show
		if env.Args[0] == "export-public" {
			fs.StringVar(&c.label, "label", "", "")
			fs.StringVar(&c.format, "format", "hex", "")
			fs.StringVar(&c.origin, "origin", "", "")
			run = c.exportPublic
		}
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

// checkBackend checks the backend flags: one backend's flags are refused
// with the other's, and what the backend needs must be given (the software
// keystore must exist, except for init; outside a dev build, the backend,
// --allow-software for software keys, and a token's module).
func (c *keysCmd) checkBackend() error {
	switch c.backend {
	case "":
		return usagef("--backend is required: pkcs11 (an HSM: --module, --token-label), or software with --allow-software (keys in files on this host: development only)")
	case "software":
		if !devBuild && !c.allowSoftware {
			return usagef("--backend software needs --allow-software: a software keystore keeps the keys in files on this host, for development only (use --backend pkcs11 in production)")
		}
		if c.pinFile != "" || c.pinFD != "" || c.tokenLabel != "" {
			return usagef("--pin-file, --pin-fd and --token-label are for --backend pkcs11")
		}
		if c.dir == "" {
			return usagef("%s is required with --backend software", c.flagOfDir())
		}
		return c.checkDir()
	case "pkcs11":
		if c.passFile != "" || c.passFD != "" || c.dir != "" {
			return usagef("--passphrase-file, --passphrase-fd and %s are for --backend software", c.flagOfDir())
		}
		if c.module == "" {
			return usagef("--module PATH (the HSM's PKCS#11 library) is required with --backend pkcs11")
		}
		if c.tokenLabel == "" {
			return usagef("--token-label is required with --backend pkcs11")
		}
		return nil
	}
	return usagef("--backend %q: want software or pkcs11", c.backend)
}

// logger logs the backend's warnings to standard error.
func (c *keysCmd) logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(c.env.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
}

// open opens the chosen backend, reading its secret as the flags say.
func (c *keysCmd) open() (hsm.Backend, error) {
	if err := c.checkBackend(); err != nil {
		return nil, err
	}
	log := c.logger()
	switch c.backend {
	case "software":
		pass, err := c.secret("passphrase", "--passphrase-file", c.passFile, "--passphrase-fd", c.passFD, c.name == "rngctl keys init")
		if err != nil {
			return nil, err
		}
		defer clear(pass)
		kdf := keystore.KDFParams{Time: uint32(c.kdfTime), MemoryKiB: uint32(c.kdfMemoryMiB) * 1024, Threads: uint8(min(c.kdfThreads, 255))}
		fmt.Fprintln(c.env.Stderr, "WARNING: software keystore: the keys are held in files and in this process's memory; for development only, use --backend pkcs11 in production")
		return keystore.Open(keystore.Config{Dir: c.dir, Passphrase: pass, KDF: kdf, Logger: log})
	default: // pkcs11
		pin, err := c.secret("PIN", "--pin-file", c.pinFile, "--pin-fd", c.pinFD, false)
		if err != nil {
			return nil, err
		}
		defer clear(pin)
		b, err := openPKCS11(pkcs11.Config{Module: c.module, TokenLabel: c.tokenLabel, PIN: pin, RSABits: c.rsaBits, Logger: log})
		if err != nil {
			return nil, err
		}
		if b.Software() && !devBuild && !c.allowSoftware {
			// As rngd refuses it without keys.allow_software.
			b.Close()
			return nil, usagef("--token-label %q is a software token (--module %s): its keys are files on this host, not in an HSM: use an HSM's module, or give --allow-software (development only)", c.tokenLabel, c.module)
		}
		return b, nil
	}
}

func (c *keysCmd) flagOfDir() string {
	if c.dirFlag == "" {
		return "--dir"
	}
	return c.dirFlag
}

// checkDir checks the software keystore directory: it must exist, except
// for init, which may create it (its parent must then exist).
func (c *keysCmd) checkDir() error {
	fi, err := os.Stat(c.dir)
	switch {
	case err == nil && !fi.IsDir():
		return fmt.Errorf("%s %s: not a directory", c.flagOfDir(), c.dir)
	case err == nil:
		return nil
	case !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s %s: %w", c.flagOfDir(), c.dir, rngd.Pathless(err))
	case !c.create:
		return fmt.Errorf("%s %s: no such directory, so no keystore there (rngctl keys init makes one)", c.flagOfDir(), c.dir)
	}
	parent := filepath.Dir(c.dir)
	if fi, err := os.Stat(parent); err != nil || !fi.IsDir() {
		return fmt.Errorf("%s %s: its parent directory %s does not exist", c.flagOfDir(), c.dir, parent)
	}
	return nil
}

// maxSecret bounds a PIN or passphrase read from a file or descriptor.
const maxSecret = rngd.MaxSecretFile

// secret reads a PIN or passphrase from a file (fileFlag), a descriptor
// (fdFlag), or standard input: after a prompt on a terminal, else a line
// without a prompt (a pipe). Messages name the flag, never the value or
// (for files) the path, in case an operator typed the secret where the path
// belongs.
func (c *keysCmd) secret(what, fileFlag, file, fdFlag, fd string, confirm bool) ([]byte, error) {
	var b []byte
	switch {
	case file != "" && fd != "":
		return nil, usagef("give the %s by file or by descriptor, not both", what)
	case file != "":
		f, err := os.Open(file)
		if err != nil {
			return nil, fmt.Errorf("couldn't open the %s file: %w", what, rngd.Pathless(err))
		}
		defer f.Close()
		fi, err := f.Stat()
		if err != nil {
			return nil, fmt.Errorf("couldn't read the %s file: %w", what, rngd.Pathless(err))
		}
		if rngd.SecretFileOpen(fi) {
			return nil, fmt.Errorf("the %s file is readable by others (mode %04o): chmod 600 it", what, fi.Mode().Perm())
		}
		if b, err = rngd.ReadSecretFrom(f); err != nil {
			return nil, fmt.Errorf("couldn't read the %s file: %w", what, rngd.Pathless(err))
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
		if b, err = rngd.ReadSecretFrom(f); err != nil {
			return nil, fmt.Errorf("couldn't read the %s from descriptor %d: %w", what, n, rngd.Pathless(err))
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
		// An interrupt while it was typed (the terminal's Ctrl-C stops
		// the command, not the reading): what was typed is not used.
		if c.ctx != nil && c.ctx.Err() != nil {
			clear(b)
			return nil, fmt.Errorf("%w at the %s prompt: what was typed is not used, nothing was done", errInterrupted, what)
		}
	}
	b = rngd.TrimNewline(b)
	if len(b) == 0 {
		if file == "" && fd == "" && !c.isTerminal() {
			// Nobody could type it: say how to give it.
			return nil, usagef("no %s: standard input is not a terminal and gave none: give it with %s FILE (mode 0600) or %s N", what, fileFlag, fdFlag)
		}
		return nil, fmt.Errorf("empty %s", what)
	}
	return b, nil
}

func (c *keysCmd) isTerminal() bool {
	f, ok := c.env.Stdin.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// prompt reads one line from standard input: on a terminal after a
// prompt, without echo; otherwise (a pipe, a file) without a prompt, as
// nobody is typing.
func (c *keysCmd) prompt(what string) ([]byte, error) {
	if c.isTerminal() {
		fmt.Fprintf(c.env.Stderr, "%s: ", what)
		b, err := term.ReadPassword(int(c.env.Stdin.(*os.File).Fd()))
		fmt.Fprintln(c.env.Stderr)
		if err != nil {
			return nil, fmt.Errorf("couldn't read the %s: %w", what, err)
		}
		return b, nil
	}
	// Byte by byte, so that nothing after the line is consumed, into one
	// buffer of the longest secret and a byte more, of which the secret is
	// a slice: wiping the secret wipes every byte read (a buffer grown by
	// append would leave each outgrown one, holding the start of the
	// secret, on the heap).
	buf := make([]byte, maxSecret+1)
	n := 0
	for n < len(buf) {
		m, err := c.env.Stdin.Read(buf[n : n+1])
		if m == 1 {
			if buf[n] == '\n' {
				buf[n] = 0
				return buf[:n], nil
			}
			n++
		}
		if err == io.EOF {
			return buf[:n], nil
		}
		if err != nil {
			clear(buf)
			return nil, fmt.Errorf("couldn't read the %s: %w", what, err)
		}
	}
	clear(buf)
	return nil, fmt.Errorf("%s longer than %d bytes", what, maxSecret)
}

// Argon2id bounds of the keystore's file format (hsm/keystore checks them
// too; here they are usage errors naming the flag).
const (
	minKDFTime, maxKDFTime           = 1, 16
	minKDFMemoryMiB, maxKDFMemoryMiB = 8, 4096
	minKDFThreads, maxKDFThreads     = 1, 255
)

// checkInitFlags checks every flag of init before anything is opened or made.
func (c *keysCmd) checkInitFlags() (vrf.Suite, error) {
	suite := vrf.SuiteP256SSWU
	if c.backend == "pkcs11" {
		suite = vrf.SuiteRSAFDH256
	}
	if c.vrfSuite != "" {
		s, err := vrf.ParseSuite(c.vrfSuite)
		if err != nil {
			return "", usagef("--vrf-suite: %s", err)
		}
		suite = s
	}
	switch c.signAlg {
	case "", hsm.Ed25519, hsm.ECDSAP256SHA256:
	default:
		return "", usagef("--sign-alg %q: want %s or %s", c.signAlg, hsm.Ed25519, hsm.ECDSAP256SHA256)
	}
	set := map[string]bool{}
	c.fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	switch c.backend {
	case "software":
		if set["rsa-bits"] {
			return "", usagef("--rsa-bits is for --backend pkcs11")
		}
		if c.kdfTime < minKDFTime || c.kdfTime > maxKDFTime {
			return "", usagef("--kdf-time %d: want %d to %d", c.kdfTime, minKDFTime, maxKDFTime)
		}
		if c.kdfMemoryMiB < minKDFMemoryMiB || c.kdfMemoryMiB > maxKDFMemoryMiB {
			return "", usagef("--kdf-memory-mib %d: want %d to %d", c.kdfMemoryMiB, minKDFMemoryMiB, maxKDFMemoryMiB)
		}
		if c.kdfThreads < minKDFThreads || c.kdfThreads > maxKDFThreads {
			return "", usagef("--kdf-threads %d: want %d to %d", c.kdfThreads, minKDFThreads, maxKDFThreads)
		}
	case "pkcs11":
		if set["kdf-time"] || set["kdf-memory-mib"] || set["kdf-threads"] {
			return "", usagef("--kdf-time, --kdf-memory-mib and --kdf-threads are for --backend software")
		}
		if c.rsaBits != 0 && (c.rsaBits < 2048 || c.rsaBits > 8192 || c.rsaBits%8 != 0) {
			return "", usagef("--rsa-bits %d: want a multiple of 8 from 2048 to 8192", c.rsaBits)
		}
	}
	return suite, nil
}

// checkLabels checks the three labels of init and announce: valid, and one
// per key.
func (c *keysCmd) checkLabels() error {
	flags := []struct{ name, label string }{{"--vrf-label", c.vrfLabel}, {"--log-label", c.logLabel}, {"--attestation-label", c.attLabel}}
	for i, f := range flags {
		if err := hsm.CheckLabel(f.label); err != nil {
			return usagef("%s: %s", f.name, err)
		}
		for _, g := range flags[:i] {
			if g.label == f.label {
				return usagef("%s and %s are both %q: each key needs its own label", g.name, f.name, f.label)
			}
		}
	}
	return nil
}

// checkAnnouncement checks, before anything is made, that the announcement
// can be written: named, not there yet, in an existing writable directory.
func (c *keysCmd) checkAnnouncement() error {
	if c.announcement == "" {
		return usagef("--announcement FILE is required")
	}
	if _, err := os.Lstat(c.announcement); err == nil {
		return usagef("--announcement %s exists: the announcement is never overwritten", c.announcement)
	}
	dir := filepath.Dir(c.announcement)
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("--announcement %s: directory %s: %w", c.announcement, dir, rngd.Pathless(err))
	}
	if !fi.IsDir() {
		return fmt.Errorf("--announcement %s: %s is not a directory", c.announcement, dir)
	}
	if err := unix.Access(dir, unix.W_OK|unix.X_OK); err != nil {
		return fmt.Errorf("--announcement %s: directory %s is not writable: %w", c.announcement, dir, err)
	}
	return nil
}

// existsHint is what to do when a key init would make exists already.
const existsHint = "init never replaces a key: rngctl keys show lists the keys, rngctl keys announce writes the announcement of existing ones"

func (c *keysCmd) init() (err error) {
	if err := c.checkAnnouncement(); err != nil {
		return err
	}
	if err := c.checkLabels(); err != nil {
		return err
	}
	suite, err := c.checkInitFlags()
	if err != nil {
		return err
	}
	dirExisted := true
	if c.backend == "software" {
		if _, err := os.Stat(c.dir); errors.Is(err, fs.ErrNotExist) {
			dirExisted = false
		}
	}
	b, err := c.open()
	if err != nil {
		return err
	}
	defer b.Close()
	labels := []string{c.vrfLabel, c.logLabel, c.attLabel}
	keys, err := b.Keys()
	if err != nil {
		return err
	}
	for _, l := range labels {
		for _, k := range keys {
			if k.Label == l {
				return fmt.Errorf("%w: %q (%s %s) in the %s: %s", hsm.ErrExists, l, k.Purpose, k.Algorithm, c.where(), existsHint)
			}
		}
	}
	// The log key must be Ed25519: a token that says it lacks EdDSA (its
	// mechanism list) is refused before anything is made.
	if t, ok := b.(interface{ EdDSA() bool }); ok && !t.EdDSA() {
		return fmt.Errorf("%w: the %s lacks EdDSA (CKM_EDDSA, CKM_EC_EDWARDS_KEY_PAIR_GEN): %s; nothing was made",
			hsm.ErrUnsupported, c.where(), logKeyEd25519)
	}

	// From here on, a failure undoes what this run made (or says what is
	// left). The VRF key is made first: a token refuses a suite it cannot
	// hold (ECVRF) before any key is made. The log key is Ed25519 whatever
	// --sign-alg says, which chooses the attestation key's algorithm.
	var made []string
	done := false
	defer func() {
		switch {
		case done:
		case len(made) > 0:
			err = c.undo(made, dirExisted, err)
		default:
			err = fmt.Errorf("%w; nothing was made", err)
		}
	}()
	if _, err := b.GenerateVRF(c.vrfLabel, suite); err != nil {
		return generateErr("the VRF key", c.vrfLabel, err)
	}
	made = append(made, c.vrfLabel)
	if _, err := b.GenerateSigner(c.logLabel, hsm.Ed25519); err != nil {
		if errors.Is(err, hsm.ErrUnsupported) {
			return fmt.Errorf("couldn't make the log key %q (%s): %w; %s", c.logLabel, hsm.Ed25519, err, logKeyEd25519)
		}
		return generateErr("the log key", c.logLabel, err)
	}
	made = append(made, c.logLabel)
	if _, err := b.GenerateSigner(c.attLabel, c.signAlg); err != nil {
		return generateErr("the attestation key", c.attLabel, err)
	}
	made = append(made, c.attLabel)
	leaf, err := c.makeAnnouncement(b)
	if err != nil {
		return err
	}
	if err := c.saveAnnouncement(leaf); err != nil {
		return err
	}
	done = true
	return c.reportAnnouncement(b, leaf)
}

// logKeyEd25519 says why the log key must be Ed25519.
const logKeyEd25519 = "the log key must be Ed25519 (rngd signs the log's checkpoints with Ed25519 only, and would not start with another): use a token with EdDSA"

func generateErr(what, label string, err error) error {
	if errors.Is(err, hsm.ErrExists) {
		return fmt.Errorf("couldn't make %s %q: %w; %s", what, label, err, existsHint)
	}
	return fmt.Errorf("couldn't make %s %q: %w", what, label, err)
}

// undo removes the keys a failed init made. The software keystore's files
// are removed (and its directory, if this run made it and it is empty);
// hsm.Backend has no way to delete a key, so keys on a token are left, and
// the error says which and how to go on.
func (c *keysCmd) undo(made []string, dirExisted bool, cause error) error {
	quoted := make([]string, len(made))
	for i, l := range made {
		quoted[i] = strconv.Quote(l)
	}
	list := strings.Join(quoted, ", ")
	if c.backend != "software" {
		next := "delete them (private and public key objects of those labels) with the token's tools, e.g. pkcs11-tool --delete-object, before running init again"
		if len(made) == 3 {
			next = "all three keys are there: write their announcement with rngctl keys announce (same labels), or delete them with the token's tools before running init again"
		}
		return fmt.Errorf("%w; this run made keys %s, which stay on the %s: %s", cause, list, c.where(), next)
	}
	var left []string
	for _, l := range made {
		name := filepath.Join(c.dir, l+".key")
		if err := os.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
			left = append(left, name)
		}
	}
	if len(left) > 0 {
		return fmt.Errorf("%w; couldn't remove the key files this run made: %s: remove them before running init again", cause, strings.Join(left, ", "))
	}
	if !dirExisted {
		os.Remove(c.dir) // only if empty
	}
	return fmt.Errorf("%w; the keys this run made (%s) were removed: nothing changed", cause, list)
}

// where names the software keystore or the token.
func (c *keysCmd) where() string {
	if c.backend == "software" {
		return "software keystore " + c.dir
	}
	return "pkcs11 token " + strconv.Quote(c.tokenLabel)
}

func (c *keysCmd) announce() error {
	if err := c.checkAnnouncement(); err != nil {
		return err
	}
	if err := c.checkLabels(); err != nil {
		return err
	}
	b, err := c.open()
	if err != nil {
		return err
	}
	defer b.Close()
	leaf, err := c.makeAnnouncement(b)
	if err != nil {
		return err
	}
	if err := c.saveAnnouncement(leaf); err != nil {
		return err
	}
	return c.reportAnnouncement(b, leaf)
}

// makeAnnouncement makes and checks the signed announcement of the keys.
func (c *keysCmd) makeAnnouncement(b hsm.Backend) ([]byte, error) {
	p, err := b.VRFProver(c.vrfLabel)
	if err != nil {
		return nil, err
	}
	keys := []hsm.AnnouncedKey{{Use: hsm.UseVRF, Label: c.vrfLabel, Prover: p}}
	for _, k := range []struct{ use, label string }{{hsm.UseLog, c.logLabel}, {hsm.UseAttestation, c.attLabel}} {
		s, err := b.Signer(k.label)
		if err != nil {
			return nil, err
		}
		if k.use == hsm.UseLog && s.Algorithm() != hsm.Ed25519 {
			return nil, fmt.Errorf("--log-label %q: the log key is %s, not %s: rngd signs the log's checkpoints with %s only, and would not start with it: give the label of an %s key",
				k.label, s.Algorithm(), hsm.Ed25519, hsm.Ed25519, hsm.Ed25519)
		}
		keys = append(keys, hsm.AnnouncedKey{Use: k.use, Label: k.label, Signer: s})
	}
	leaf, err := hsm.Announce(keysNow(), keys)
	if err != nil {
		return nil, err
	}
	if _, err := hsm.CheckAnnouncement(leaf); err != nil {
		return nil, fmt.Errorf("the announcement just made does not check: %w", err)
	}
	return leaf, nil
}

// saveAnnouncement writes the announcement file, which must not exist; a
// failed write leaves no file.
func (c *keysCmd) saveAnnouncement(leaf []byte) error {
	f, err := os.OpenFile(c.announcement, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fmt.Errorf("couldn't create the announcement file: %w", err)
	}
	_, err = f.Write(leaf)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(c.announcement)
		return fmt.Errorf("couldn't write the announcement file: %w", err)
	}
	return nil
}

func (c *keysCmd) reportAnnouncement(b hsm.Backend, leaf []byte) error {
	keys, err := b.Keys()
	if err != nil {
		return err
	}
	c.printKeys(keys, c.where(), b.Software(), false)
	h := record.LeafHash(leaf)
	fmt.Fprintf(c.env.Stdout, "announcement: %s (%d bytes, leaf hash %x)\n", c.announcement, len(leaf), h[:])
	fmt.Fprintln(c.env.Stdout, "set keys.announcement_file to it: rngd appends it as the log's first record at its first start, or, with a VRF key the log has not announced, at the start that rotates to that key (docs/keys.md).")
	return nil
}

func (c *keysCmd) show() error {
	keys, where, err := c.publicKeys()
	if err != nil {
		return err
	}
	c.printKeys(keys, where, c.backend == "software", c.unchecked())
	return nil
}

// What show and export-public say of keys read without the secret
// (unchecked): the note above them (on standard error for export-public),
// the mark ending each fingerprint line and the one ending each pin line.
// From a software keystore's clear headers, nothing has checked them
// against the sealed keys, which alone authenticate the headers, so a
// changed header would print another key (that rngd would refuse to open).
// From a token's public key objects, read without logging in, nothing has
// matched them to a private key (the logged-in listing lists only key
// pairs), so a stray public key object would print as a key. Pins for
// auditors come from a run with the secret, or from rngd.
const (
	uncheckedNote   = "public keys read from the key files' clear headers without the passphrase, not checked against the sealed keys: give --passphrase-file or --passphrase-fd to check them before publishing them"
	uncheckedFPMark = "from the header, unchecked"
	uncheckedMark   = uncheckedFPMark + ": give --passphrase-file or --passphrase-fd to check it"

	tokenUncheckedNote   = "public keys read from the token's public key objects without the PIN, not matched to its private keys: give --pin-file or --pin-fd to check them before publishing them"
	tokenUncheckedFPMark = "from the public key object, unchecked"
	tokenUncheckedMark   = tokenUncheckedFPMark + ": give --pin-file or --pin-fd to check it"
)

// uncheckedWords returns the note, fingerprint mark and pin mark of keys
// read unchecked from the chosen backend.
func (c *keysCmd) uncheckedWords() (note, fpMark, pinMark string) {
	if c.backend == "pkcs11" {
		return tokenUncheckedNote, tokenUncheckedFPMark, tokenUncheckedMark
	}
	return uncheckedNote, uncheckedFPMark, uncheckedMark
}

// unchecked reports whether show and export-public read the public keys
// without the backend's secret, as none is needed to read them: a software
// keystore's from its files' clear headers when no passphrase flag is
// given, a token's from its public key objects without logging in when no
// PIN flag is given.
func (c *keysCmd) unchecked() bool {
	switch c.backend {
	case "software":
		return c.passFile == "" && c.passFD == ""
	case "pkcs11":
		return c.pinFile == "" && c.pinFD == ""
	}
	return false
}

// expected returns the labels whose public keys a token read without its
// PIN must show: export-public --label's, else the ceremony's
// (--vrf-label, --log-label, --attestation-label). Those flags are refused
// where they are not used.
func (c *keysCmd) expected() ([]string, error) {
	set := false
	c.fs.Visit(func(f *flag.Flag) {
		set = set || f.Name == "vrf-label" || f.Name == "log-label" || f.Name == "attestation-label"
	})
	switch {
	case set && (c.backend != "pkcs11" || !c.unchecked()):
		return nil, usagef("--vrf-label, --log-label and --attestation-label are for --backend pkcs11 without --pin-file or --pin-fd (the keys the token must show)")
	case set && c.label != "":
		return nil, usagef("--vrf-label, --log-label and --attestation-label are not used with --label (the key the token must show)")
	case c.label != "":
		return []string{c.label}, nil
	}
	for i, name := range []string{"--vrf-label", "--log-label", "--attestation-label"} {
		if err := hsm.CheckLabel(c.expect[i]); err != nil {
			return nil, usagef("%s: %s", name, err)
		}
	}
	return c.expect[:], nil
}

// publicKeys lists the keys for show and export-public, and where they are.
// Without the backend's secret (unchecked) they are read where they are in
// clear: a software keystore's from its key files by keystore.PublicKeys
// (the sealed private keys are not opened, so the keys are not checked
// against them), a token's from its public key objects by
// pkcs11.PublicKeys, without logging in (the private keys are not seen, so
// the keys are not matched to them); show and export-public say so. With
// the secret the backend is opened and lists its keys.
func (c *keysCmd) publicKeys() ([]hsm.Key, string, error) {
	expect, err := c.expected()
	if err != nil {
		return nil, "", err
	}
	if !c.unchecked() {
		b, err := c.open()
		if err != nil {
			return nil, "", err
		}
		defer b.Close()
		keys, err := b.Keys()
		return keys, c.where(), err
	}
	if err := c.checkBackend(); err != nil {
		return nil, "", err
	}
	if c.backend == "software" {
		keys, err := keystore.PublicKeys(c.dir)
		return keys, c.where(), err
	}
	keys, err := pkcs11.PublicKeys(pkcs11.Config{Module: c.module, TokenLabel: c.tokenLabel, Logger: c.logger()}, expect...)
	switch {
	case errors.Is(err, hsm.ErrNotFound) && c.label == "":
		err = fmt.Errorf("%w; without a PIN the keys of --vrf-label, --log-label and --attestation-label (default vrf, log, attestation) must be shown: "+
			"give the token's labels, or its PIN (--pin-file, --pin-fd) to list its key pairs", err)
	case errors.Is(err, hsm.ErrNotFound):
		err = fmt.Errorf("%w; give the token's PIN (--pin-file, --pin-fd) to list its key pairs", err)
	}
	return keys, c.where(), err
}

// printKeys prints keys with their fingerprints and, for a VRF key, the pin
// auditors give rngverify (--pin SUITE:FINGERPRINT; a log key's pin is its
// bare fingerprint, printed when this run knows which key it is).
// unchecked says the keys were read without the backend's secret (see
// uncheckedWords): it is said once above the keys and again on every
// fingerprint and pin line, the lines operators copy.
func (c *keysCmd) printKeys(keys []hsm.Key, where string, software, unchecked bool) {
	if software {
		where += " (development only)"
	}
	fmt.Fprintf(c.env.Stdout, "backend: %s, %d keys\n", where, len(keys))
	fpMark, pinMark := "", ""
	if unchecked {
		note, fp, pin := c.uncheckedWords()
		fmt.Fprintln(c.env.Stdout, note)
		fpMark, pinMark = " ("+fp+")", "; "+pin
	}
	for _, k := range keys {
		fmt.Fprintf(c.env.Stdout, "\nkey %s\n  purpose:     %s\n  algorithm:   %s\n  fingerprint: SHA256:%s%s\n",
			k.Label, k.Purpose, k.Algorithm, k.Fingerprint(), fpMark)
		switch {
		case k.Purpose == hsm.PurposeVRF:
			fmt.Fprintf(c.env.Stdout, "  pin:         %s (rngverify --pin%s)\n", vrfPin(k), pinMark)
		case k.Purpose == hsm.PurposeSign && c.logLabel != "" && k.Label == c.logLabel:
			fmt.Fprintf(c.env.Stdout, "  pin:         %s (rngverify --pin: the log key%s)\n", k.Fingerprint(), pinMark)
		}
		fmt.Fprintf(c.env.Stdout, "  public key:  %x\n", k.Public)
	}
}

// vrfPin is a VRF key's pin, SUITE:FINGERPRINT, as rngverify --pin takes it
// (it fixes the key's bytes and its suite) and as rngd's banner and rngctl
// qod status print it.
func vrfPin(k hsm.Key) string { return k.Algorithm + ":" + k.Fingerprint() }

func (c *keysCmd) exportPublic() error {
	labelFlag := "--label" // names the key --format vkey refuses
	switch {
	case c.format != "hex" && c.format != "pem" && c.format != "vkey":
		return usagef("--format %q: want hex, pem or vkey", c.format)
	case c.format == "vkey" && c.origin == "":
		return usagef("--format vkey needs --origin NAME (rngd's log.origin: the name in the log's checkpoints)")
	case c.format != "vkey" && c.origin != "":
		return usagef("--origin is for --format vkey only")
	case c.format == "vkey" && c.label == "":
		c.label, labelFlag = c.expect[1], "--log-label" // the log key
	}
	keys, where, err := c.publicKeys()
	if err != nil {
		return err
	}
	var selected []hsm.Key
	for _, k := range keys {
		if c.label == "" || k.Label == c.label {
			selected = append(selected, k)
		}
	}
	if len(selected) == 0 {
		if c.label == "" {
			return fmt.Errorf("%w: the %s has no key", hsm.ErrNotFound, where)
		}
		return fmt.Errorf("%w: no key labelled %q", hsm.ErrNotFound, c.label)
	}
	// Every key is checked before any is printed: a failure prints nothing.
	if c.format == "pem" {
		for _, k := range selected {
			if k.Algorithm == string(vrf.SuiteP256SSWU) || k.Algorithm == string(vrf.SuiteP256TAI) {
				hint := "export it as hex"
				if c.label == "" {
					hint = "export the keys as hex, or the others one by one with --label"
				}
				return fmt.Errorf("key %q is a compressed P-256 point, not a SubjectPublicKeyInfo: %s", k.Label, hint)
			}
		}
	}
	// The log key's signed-note verifier key, as rngd serves it at
	// /log/vkey: what a witness is given (rngctl witness serve --log)
	// before rngd first starts, which it must for a new log to start with
	// a witness policy.
	var vkeys []string
	if c.format == "vkey" {
		for _, k := range selected {
			pub, err := x509.ParsePKIXPublicKey(k.Public)
			if err != nil {
				return fmt.Errorf("%s %q: key (%s) has no signed-note verifier key: not a log key", labelFlag, k.Label, k.Algorithm)
			}
			v, err := checkpoint.VerifierKey(c.origin, pub)
			if err != nil {
				return fmt.Errorf("--origin %q, key %q: %w", c.origin, k.Label, err)
			}
			vkeys = append(vkeys, v)
		}
	}
	// Standard output is the key material alone, whatever its source: that
	// the keys are unchecked goes to standard error, once they are printable.
	if c.unchecked() {
		note, _, _ := c.uncheckedWords()
		fmt.Fprintf(c.env.Stderr, "%s: note: %s\n", c.name, note)
	}
	for _, k := range selected {
		switch {
		case c.format == "vkey":
			fmt.Fprintln(c.env.Stdout, vkeys[0])
			vkeys = vkeys[1:]
		case c.format == "pem":
			pem.Encode(c.env.Stdout, &pem.Block{Type: "PUBLIC KEY", Headers: map[string]string{"Label": k.Label, "Algorithm": k.Algorithm}, Bytes: k.Public})
		case c.label != "":
			fmt.Fprintln(c.env.Stdout, hex.EncodeToString(k.Public))
		default:
			fmt.Fprintf(c.env.Stdout, "%s %s %s\n", k.Label, k.Algorithm, hex.EncodeToString(k.Public))
		}
	}
	return nil
}
