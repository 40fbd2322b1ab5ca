package ctl

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"tirage.fr/tirage/rngd"
)

func init() {
	register("state", Command{Summary: "rngd's state store: rebuild it from the log (rngd stopped)", Run: runState})
}

const stateUsage = `usage: rngctl state rebuild --config FILE
       rngctl state rebuild --dev      (an rngctl built with -tags tirage_dev)

  rebuild   replace the state store (DATA/state.db) with what the log says:
            emissions, manifests (from DATA/manifests), every game replayed by
            verifier/qod. rngd must be stopped. Replies to request ids are
            kept; the secrets of unfinished games, which the log does not
            hold, are in DATA/secrets.db, which the rebuild leaves alone.
  --config FILE   rngd's config file: data_dir, [log], [keys] and [entropy]
                  are used; [grpc]'s certificate files are not needed
  --dev           dev mode, as rngd --dev: the data directory of make run
                  (./data, dev keystore passphrase); only an rngctl built
                  with -tags tirage_dev has it (docs/rngd.md, Rebuild)

The data directory (data_dir, default ./data) must hold the log (DATA/log
for the embedded log) or, for a trillian log, exist: a rebuild creates
nothing where there is no log to rebuild from.

Exit status: 0 rebuilt, 1 the rebuild failed or was refused, 2 usage error
(including a config file that is missing or does not parse, as for rngd).
`

func runState(ctx context.Context, env Env) int {
	if code, done := groupHelp(env, stateUsage); done {
		return code
	}
	if env.Args[0] != "rebuild" {
		return usageError(env, "state", "state: unknown subcommand %q, the only one is rebuild", env.Args[0])
	}
	fs := newFlags("state rebuild")
	config := fs.String("config", "", "rngd's config file")
	dev := fs.Bool("dev", false, "dev mode")
	if code, ok := parseArgs(env, fs, env.Args[1:], fs.Name(), stateUsage, false); !ok {
		return code
	}
	if *config == "" && !*dev {
		return usageError(env, "state", "state rebuild: --config is required")
	}
	cfg, err := loadRebuildConfig(*config, *dev)
	if err != nil {
		// As rngd: a config that cannot be read is a usage error.
		fmt.Fprintf(env.Stderr, "rngctl: state rebuild: %s\n", strings.ReplaceAll(err.Error(), "\n", " "))
		return ExitUsage
	}
	if err := checkDataDir(cfg); err != nil {
		return fail(env, err)
	}
	n, err := rngd.Rebuild(ctx, cfg)
	if err != nil {
		return fail(env, err)
	}
	fmt.Fprintf(env.Stdout, "state store rebuilt from %d log records\n", n)
	return ExitOK
}

// checkDataDir refuses a rebuild where there is nothing to rebuild from (a
// mistyped data_dir), before rngd.Rebuild would create an empty log and
// store there.
func checkDataDir(cfg rngd.Config) error {
	dir := cfg.DataDir
	if dir == "" {
		dir = "./data" // rngd's default
	}
	fi, err := os.Stat(dir)
	if err != nil || !fi.IsDir() {
		return fmt.Errorf("state rebuild: data_dir %s: no such directory: nothing to rebuild from (is data_dir right?)", dir)
	}
	if cfg.Log.Backend == "trillian" {
		return nil // the log is the trillian tree
	}
	log := filepath.Join(dir, "log")
	if fi, err := os.Stat(log); err != nil || !fi.IsDir() {
		what := "no log"
		if _, err := os.Stat(filepath.Join(dir, "state.db")); err == nil {
			what = "a state store but no log"
		}
		return fmt.Errorf("state rebuild: data_dir %s has %s (%s): nothing to rebuild from (is data_dir right?)", dir, what, log)
	}
	return nil
}

// loadRebuildConfig is the config of a rebuild: the file at path (if any), in
// dev mode with dev, checked as rngd checks it, except that the game
// servers' certificate files, which a rebuild does not read, may be left out
// (rngd.ConfigForRebuild). Errors name the flag that was given.
func loadRebuildConfig(path string, dev bool) (rngd.Config, error) {
	if dev && !devBuild {
		return rngd.Config{}, errors.New("--dev: this rngctl was built without dev mode: use an rngctl built with -tags tirage_dev " +
			"(go build -tags tirage_dev -o bin/rngctl-dev ./cmd/rngctl), or --config FILE (docs/rngd.md, Rebuild)")
	}
	if path == "" {
		cfg, err := rngd.ConfigForRebuild("", dev)
		if err != nil {
			return cfg, fmt.Errorf("--dev: %w", err)
		}
		return cfg, nil
	}
	file, err := rngd.LoadConfig(path)
	if err != nil {
		return file, fmt.Errorf("--config: %w", err) // names path
	}
	if file.Dev && !devBuild {
		// Before rngd's check, whose error names rngd.
		return file, fmt.Errorf("--config %s: dev = true, but this rngctl was built without dev mode: use an rngctl built with -tags tirage_dev "+
			"(go build -tags tirage_dev -o bin/rngctl-dev ./cmd/rngctl), or a config without dev (docs/rngd.md, Rebuild)", path)
	}
	cfg, err := rngd.ConfigForRebuild(path, dev)
	if err != nil {
		return cfg, fmt.Errorf("--config: %w", err) // names path
	}
	return cfg, nil
}
