package ctl

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"tirage.fr/tirage/rngd"
	"tirage.fr/tirage/rngd/internal/boundedfile"
	"tirage.fr/tirage/transparency/witness"
	vcheckpoint "tirage.fr/tirage/verifier/checkpoint"
)

func init() {
	register("witness", Command{Summary: "a C2SP tlog-witness of Tirage's log (and others'): keygen, vkey, serve", Run: runWitness})
}

const witnessUsage = `usage: rngctl witness keygen|vkey|serve [FLAGS]

  keygen  make a new Ed25519 witness key: the private key is written to --key
          (mode 0600; an existing file is never overwritten), its
          cosignature/v1 verifier key printed on stdout (give it to the logs)
          --name NAME --key FILE
  vkey    print the verifier key of a witness key (refused if the key file
          is open to others)
          --key FILE
  serve   cosign the checkpoints of the logs whose verifier keys are in the
          --log files (each as the log serves /log/vkey: one key a line,
          every key of a log must sign), c2sp.org/tlog-witness
          POST /add-checkpoint on --listen, until SIGINT or SIGTERM
          --key FILE --log VKEYFILE [--log VKEYFILE ...] --state DIR --listen ADDR

serve speaks plain HTTP, as the protocol expects: what it receives and what
it returns is signed. A log's witness policy (rngd's log.witness_policy,
rngctl promo --witness-policy; examples/witnesses.policy) names it by its
verifier key and root URL: witness NAME VKEY http://HOST:PORT. --state
keeps the last checkpoint cosigned for each log (DIR/<hex SHA-256 of the
origin>.checkpoint); losing it lets a log fork past this witness. A flag
the subcommand does not use is a usage error (exit 2).
`

// witnessFlags names each subcommand's flags.
var witnessFlags = map[string][]string{
	"keygen": {"name", "key"},
	"vkey":   {"key"},
	"serve":  {"key", "log", "state", "listen"},
}

// maxVKeyFile bounds a --log file: a few verifier keys (an ML-DSA-44 one
// is about 1.8 KB of text).
const maxVKeyFile = 64 << 10

func runWitness(ctx context.Context, env Env) int {
	if code, done := groupHelp(env, witnessUsage); done {
		return code
	}
	sub := env.Args[0]
	used, known := witnessFlags[sub]
	if !known {
		return usageError(env, "witness", "witness: unknown subcommand %q", sub)
	}
	fs := newFlags("witness " + sub)
	name := fs.String("name", "", "the witness's name")
	keyFile := fs.String("key", "", "the witness's private key file")
	var logs stringList
	fs.Var(&logs, "log", "a log's verifier key file (repeatable)")
	state := fs.String("state", "", "the state directory")
	listen := fs.String("listen", "", "the address to serve on")
	if code, ok := parseArgs(env, fs, env.Args[1:], fs.Name(), witnessUsage, false); !ok {
		return code
	}
	if code, ok := onlyFlags(env, fs, used...); !ok {
		return code
	}
	var missing []string
	for _, f := range used {
		if fs.Lookup(f).Value.String() == "" {
			missing = append(missing, "--"+f)
		}
	}
	if len(missing) > 0 {
		return usageError(env, fs.Name(), "%s: %s required", fs.Name(), strings.Join(missing, ", "))
	}
	switch sub {
	case "keygen":
		skey, vkey, err := witness.GenerateKey(*name)
		if err != nil {
			return usageError(env, fs.Name(), "%s: --name: %v", fs.Name(), err)
		}
		if err := writeNew(*keyFile, skey+"\n", 0o600); err != nil {
			return fail(env, fmt.Errorf("witness keygen: couldn't write --key: %w", err))
		}
		fmt.Fprintln(env.Stdout, vkey)
	case "vkey":
		skey, err := readWitnessKey(*keyFile)
		if err != nil {
			return fail(env, fmt.Errorf("witness vkey: %w", err))
		}
		vkey, err := witness.VerifierKey(skey)
		if err != nil {
			return fail(env, fmt.Errorf("witness vkey: --key: %w", err))
		}
		fmt.Fprintln(env.Stdout, vkey)
	case "serve":
		if err := serveWitness(ctx, env, *keyFile, logs, *state, *listen); err != nil {
			return fail(env, fmt.Errorf("witness serve: %w", err))
		}
	}
	return ExitOK
}

// readWitnessKey reads a witness's private key file, refusing one that
// others may read, as ssh does.
func readWitnessKey(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("couldn't open --key: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", fmt.Errorf("couldn't read --key: %w", err)
	}
	if rngd.SecretFileOpen(fi) {
		return "", fmt.Errorf("--key %s is open to others (mode %04o): chmod 600 it", path, fi.Mode().Perm())
	}
	b, err := rngd.ReadSecretFrom(f)
	if err != nil {
		return "", fmt.Errorf("couldn't read --key: %w", err)
	}
	defer clear(b)
	return strings.TrimSpace(string(b)), nil
}

// readLogKeys reads the --log files: each a log's /log/vkey.
func readLogKeys(files []string) ([]*vcheckpoint.Key, error) {
	var keys []*vcheckpoint.Key
	for _, file := range files {
		b, err := boundedfile.Read(file, maxVKeyFile)
		if err != nil {
			return nil, fmt.Errorf("couldn't read --log %s: %w", file, err)
		}
		k, err := vcheckpoint.ParseKeys(string(b))
		if err != nil {
			return nil, fmt.Errorf("--log %s: %w", file, err)
		}
		keys = append(keys, k...)
	}
	return keys, nil
}

// serveWitness serves the witness until ctx is done (SIGINT, SIGTERM),
// then lets the calls in progress finish.
func serveWitness(ctx context.Context, env Env, keyFile string, logFiles []string, state, listen string) error {
	skey, err := readWitnessKey(keyFile)
	if err != nil {
		return err
	}
	signer, err := witness.NewSigner(skey)
	if err != nil {
		return fmt.Errorf("--key: %w", err)
	}
	vkey, err := witness.VerifierKey(skey)
	if err != nil {
		return fmt.Errorf("--key: %w", err)
	}
	keys, err := readLogKeys(logFiles)
	if err != nil {
		return err
	}
	logger := slog.New(slog.NewTextHandler(env.Stderr, nil))
	w, err := witness.New(witness.Config{Signer: signer, Logs: keys, StateDir: state, Logger: logger})
	if err != nil {
		return fmt.Errorf("--state: %w", err)
	}
	defer w.Close()
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return fmt.Errorf("--listen: %w", err)
	}
	for _, k := range keys {
		logger.Info("witness: witnessing", "origin", k.Name, "key", k.String())
	}
	logger.Info("witness: serving POST /add-checkpoint", "addr", ln.Addr().String(), "vkey", vkey)
	srv := &http.Server{
		Handler:           w,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    16 << 10,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return fmt.Errorf("--listen: %w", err)
	case <-ctx.Done():
	}
	logger.Info("witness: stopping")
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return fmt.Errorf("couldn't stop gracefully: %w", err)
	}
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	logger.Info("witness: stopped")
	return nil
}
