package ctl

import (
	"bytes"
	"context"
	"crypto/sha256"
	"debug/buildinfo"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"tirage.fr/tirage/attestations"
	"tirage.fr/tirage/hsm"
	"tirage.fr/tirage/rngd"
	adminv1 "tirage.fr/tirage/rngd/api/tirage/admin/v1"
	"tirage.fr/tirage/verifier/record"
)

func init() {
	register("attest", Command{Summary: "attestations: sign the paytable or a build, log one (docs/attestations.md)", Run: runAttest})
}

const attestUsage = `usage: rngctl attest paytable|build|log [FLAGS]

  paytable --out FILE    sign the paytable of Quitte ou Double and its PAR
                         sheet, computed from the game's rules
  build --binary PATH --config PATH --out FILE
                         sign the build attestation of the rngd executable
                         PATH (its Go build information and SHA-256) run with
                         the configuration file PATH (its SHA-256 only, never
                         its content) and the keys of the backend
  log FILE               send the signed attestation FILE to rngd, which
                         checks it and appends it to the log as an
                         attestation record; prints its log index and record

paytable and build sign with the appliance's attestation key (the one
rngctl keys init made and announced), in a DSSE envelope written to --out
(never overwritten: an existing file is a usage error; written whole or not
at all). Backend flags, as for rngctl keys:
  --backend pkcs11|software   key custody (required; an rngctl built with -tags
                              tirage_dev defaults to software)
  --allow-software            software keys (--backend software, or a software
                              token): development only; required outside a dev build
  --dir DIR                   software: keystore directory
  --passphrase-file FILE, --passphrase-fd N
                              software: the passphrase (else standard input)
  --module PATH               pkcs11: the HSM's PKCS#11 library (required; a dev
                              build defaults to SoftHSM2's)
  --token-label LABEL         pkcs11: token label
  --pin-file FILE, --pin-fd N pkcs11: the user PIN (else standard input)
  --attestation-label L       the attestation key (default attestation)
build only: the keys it lists are the backend's, as rngctl keys announce
announces them:
  --vrf-label L, --log-label L  (default vrf, log)

rngd logs a build attestation only of itself: the SHA-256 of its running
executable and of the configuration file it started with (rngd started
without --config: of the empty file, --config /dev/null), and the keys of
its log. A paytable whose figures are not the rules' is refused.

log flags:
` + adminSocketHelp + `  --request-id ID     default: derived from the envelope (the same command again
                      is a retry, which returns the first reply)

Exit status: 0 done, 1 failed (one line says why), 2 usage error.
`

// attestCmd holds the flags of an attest subcommand.
type attestCmd struct {
	env  Env
	fs   *flag.FlagSet
	keys keysCmd // the key custody flags and code of rngctl keys
	adm  adminFlags

	out, binary, config string
}

func runAttest(ctx context.Context, env Env) int {
	if code, done := groupHelp(env, attestUsage); done {
		return code
	}
	name := "rngctl attest " + env.Args[0]
	c := &attestCmd{env: env, fs: newFlags(name)}
	c.keys = keysCmd{env: env, name: name, fs: c.fs, ctx: ctx}
	fs := c.fs
	signing := func() {
		c.keys.custodyFlags(fs)
		fs.StringVar(&c.keys.attLabel, "attestation-label", "attestation", "")
		fs.StringVar(&c.out, "out", "", "")
	}
	var run func(context.Context) error
	switch env.Args[0] {
	case "paytable":
		signing()
		run = c.paytable
	case "build":
		signing()
		fs.StringVar(&c.keys.vrfLabel, "vrf-label", "vrf", "")
		fs.StringVar(&c.keys.logLabel, "log-label", "log", "")
		fs.StringVar(&c.binary, "binary", "", "")
		fs.StringVar(&c.config, "config", "", "")
		run = c.build
	case "log":
		c.adm.register(fs, env)
		run = c.log
	default:
		return usageError(env, "attest", "attest: unknown subcommand %q", env.Args[0])
	}
	if code, ok := parseArgs(env, fs, env.Args[1:], strings.TrimPrefix(name, "rngctl "), attestUsage, env.Args[0] == "log"); !ok {
		return code
	}
	if err := run(ctx); err != nil {
		var re rpcError
		if errors.As(err, &re) {
			return c.adm.fail(env, re.err)
		}
		fmt.Fprintf(env.Stderr, "%s: %s\n", name, strings.ReplaceAll(err.Error(), "\n", "; "))
		var exists existsError
		if errors.Is(err, errUsage) || errors.As(err, &exists) {
			return ExitUsage
		}
		return ExitFail
	}
	return ExitOK
}

// rpcError is a failed call to rngd, reported as the admin commands
// report one (adminFlags.fail).
type rpcError struct{ err error }

func (e rpcError) Error() string { return e.err.Error() }

// checkOut checks --out before anything is signed: named, not there.
func (c *attestCmd) checkOut() error {
	if c.out == "" {
		return usagef("--out FILE is required")
	}
	return checkNewFile("--out", c.out)
}

func (c *attestCmd) paytable(ctx context.Context) error {
	if err := c.checkOut(); err != nil {
		return err
	}
	if err := c.checkLabel("--attestation-label", c.keys.attLabel); err != nil {
		return err
	}
	st, err := attestations.NewPaytableStatement()
	if err != nil {
		return err
	}
	b, err := c.keys.open()
	if err != nil {
		return err
	}
	defer b.Close()
	return c.sign(ctx, b, st)
}

func (c *attestCmd) build(ctx context.Context) error {
	switch {
	case c.binary == "":
		return usagef("--binary PATH (the rngd executable) is required")
	case c.config == "":
		return usagef("--config PATH (rngd's configuration file; /dev/null for an rngd started without one) is required")
	}
	if err := c.checkOut(); err != nil {
		return err
	}
	if err := c.keys.checkLabels(); err != nil {
		return err
	}
	// rngd's build information, not this rngctl's.
	info, err := buildinfo.ReadFile(c.binary)
	if err != nil {
		return fmt.Errorf("--binary %s: no Go build information: %w", c.binary, rngd.Pathless(err))
	}
	exe, err := rngd.FileSHA256(c.binary)
	if err != nil {
		return fmt.Errorf("--binary %s: %w", c.binary, err)
	}
	config, err := rngd.FileSHA256(c.config)
	if err != nil {
		return fmt.Errorf("--config %s: %w", c.config, err)
	}
	b, err := c.keys.open()
	if err != nil {
		return err
	}
	defer b.Close()
	// The keys as rngctl keys announce announces them (id = label).
	leaf, err := c.keys.makeAnnouncement(b)
	if err != nil {
		return err
	}
	ann, err := hsm.CheckAnnouncement(leaf)
	if err != nil {
		return err
	}
	st, err := attestations.NewBuildStatement(attestations.BuildInput{Info: info, Executable: exe, Config: config, Keys: ann.Keys})
	if err != nil {
		return fmt.Errorf("couldn't make the build attestation: %w", err)
	}
	return c.sign(ctx, b, st)
}

// checkLabel checks a key label flag as rngctl keys does.
func (c *attestCmd) checkLabel(flag, label string) error {
	if err := hsm.CheckLabel(label); err != nil {
		return usagef("%s: %s", flag, err)
	}
	return nil
}

// sign signs st with the attestation key and writes the envelope to --out.
func (c *attestCmd) sign(ctx context.Context, b hsm.Backend, st *attestations.Statement) error {
	sg, err := b.Signer(c.keys.attLabel)
	if err != nil {
		return fmt.Errorf("--attestation-label %q: %w", c.keys.attLabel, err)
	}
	env, err := attestations.SignMessage(sg.Public(), c.keys.attLabel, st, sg.Sign)
	if err != nil {
		return err
	}
	tmp, err := stageFile(ctx, "--out", c.out, 0o644, func(w io.Writer) error {
		_, err := w.Write(append(env, '\n'))
		return err
	})
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
	if err := renameNew(tmp, c.out); err != nil {
		return fmt.Errorf("--out %s: %w", c.out, rngd.Pathless(err))
	}
	d := sha256.Sum256(env)
	fmt.Fprintf(c.env.Stdout, "wrote %s: %s attestation (%s), signed by key %s, envelope sha256 %x\n",
		c.out, st.Subject[0].Name, st.Type(), c.keys.attLabel, d[:])
	fmt.Fprintln(c.env.Stdout, "log it with rngctl attest log "+c.out)
	return nil
}

func (c *attestCmd) log(ctx context.Context) error {
	if c.fs.NArg() != 1 {
		return usagef("log takes one attestation FILE (rngctl attest paytable or build wrote it)")
	}
	file := c.fs.Arg(0)
	env, err := readAttestation(file)
	if err != nil {
		return err
	}
	req := &adminv1.LogAttestationRequest{Envelope: env}
	enc, err := encoding(req)
	if err != nil {
		return err
	}
	req.RequestId = c.adm.id("LogAttestation", enc)
	adm, done, err := c.adm.dial(ctx)
	if err != nil {
		return err
	}
	defer done()
	r, err := adm.LogAttestation(ctx, req)
	if err != nil {
		return rpcError{err}
	}
	fmt.Fprintf(c.env.Stdout, "attestation logged: %s (%s), key %s, envelope sha256 %x (log index %d)\n",
		r.Subject, r.PredicateType, r.KeyId, r.Digest, r.Receipt.LogIndex)
	fmt.Fprintf(c.env.Stdout, "record: %s\n", bytes.TrimSpace(r.Receipt.Record))
	if rec, err := record.Parse(r.Receipt.Record); err == nil {
		if a, ok := rec.(*record.Attestation); ok && len(a.Statement) == 0 {
			fmt.Fprintf(c.env.Stdout, "the record logs the envelope's digest only (too large to embed): publish %s beside the log for auditors (rngverify attestation)\n", file)
		}
	}
	return nil
}

// readAttestation reads an envelope file (at most attestations.MaxEnvelope
// bytes, the final newline rngctl attest writes left out) and checks its
// form, so that a wrong file is named here rather than refused by rngd.
func readAttestation(file string) ([]byte, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, rngd.Pathless(err))
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, attestations.MaxEnvelope+2))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	b = attestations.EnvelopeBytes(b)
	if _, err := attestations.ParseEnvelope(b); err != nil {
		return nil, fmt.Errorf("%w: %s: %w", errUsage, file, err)
	}
	return b, nil
}
