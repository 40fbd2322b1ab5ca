package ctl

import (
	"context"
	"flag"
	"fmt"
	"io"

	"tirage.fr/tirage/rngd"
)

func init() {
	register("state", Command{Summary: "rngd's state store: rebuild it from the log (rngd stopped)", Run: runState})
}

const stateUsage = `usage: rngctl state rebuild --config FILE [--dev]

  rebuild   replace the state store (DATA/state.db) with what the log says:
            emissions, manifests (from DATA/manifests), every game replayed by
            verifier/qod. rngd must be stopped. Replies to request ids and the
            secrets of unfinished games, which the log does not hold, are kept.
  --config FILE   rngd's config file
  --dev           dev mode, as rngd --dev (dev builds only)
`

func runState(ctx context.Context, env Env) int {
	if len(env.Args) == 0 || env.Args[0] != "rebuild" {
		return usageError(env, stateUsage, "state: the subcommand is rebuild")
	}
	fs := flag.NewFlagSet("state rebuild", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	config := fs.String("config", "", "rngd's config file")
	dev := fs.Bool("dev", false, "dev mode")
	if err := fs.Parse(env.Args[1:]); err != nil {
		return usageError(env, stateUsage, "state rebuild: %v", err)
	}
	if *config == "" && !*dev {
		return usageError(env, stateUsage, "state rebuild: --config is required")
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
