package ctl

import (
	"context"
	"fmt"

	"tirage.fr/tirage/rngd"
)

func init() {
	register("state", Command{Summary: "rngd's state store: rebuild it from the log (rngd stopped)", Run: runState})
}

const stateUsage = `usage: rngctl state rebuild --config FILE [--dev]

  rebuild   replace the state store (DATA/state.db) with what the log says:
            emissions, manifests (from DATA/manifests), every game replayed by
            verifier/qod. rngd must be stopped. Replies to request ids are
            kept; the secrets of unfinished games, which the log does not
            hold, are in DATA/secrets.db, which the rebuild leaves alone.
  --config FILE   rngd's config file
  --dev           dev mode, as rngd --dev (dev builds only)
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
	cfg, err := rngd.ConfigFromFlags(*config, *dev)
	if err != nil {
		return fail(env, err)
	}
	n, err := rngd.Rebuild(ctx, cfg)
	if err != nil {
		return fail(env, err)
	}
	fmt.Fprintf(env.Stdout, "state store rebuilt from %d log records\n", n)
	return ExitOK
}
