// Command rngd is Tirage's draw daemon: flags → config → rngd.Run.
//
// Exit codes: 0 after a clean stop (SIGTERM, SIGINT, during the start too)
// or --help; 1 when the daemon could not start (a certificate, key, device
// or address, the log) or failed while serving; 2 for a usage or config
// error (a bad flag, a positional argument, no --config outside dev mode, a
// config file that does not parse or does not validate): then nothing was
// created or changed. A second SIGTERM or SIGINT during the shutdown ends
// the process at once (killed by the signal).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"

	"tirage.fr/tirage/rngd"
)

const (
	exitFailure = 1
	exitUsage   = 2
)

func main() {
	if err := rngd.ProtectProcess(); err != nil {
		fmt.Fprintln(os.Stderr, "rngd:", err)
		os.Exit(exitFailure)
	}
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is rngd with its arguments; it returns the exit code.
func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("rngd", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: rngd --config FILE [--dev]")
		fs.PrintDefaults()
		fmt.Fprintln(stderr, "exit codes: 0 stopped cleanly, 1 start or serve failure, 2 usage or config error")
	}
	config := fs.String("config", "", "config file (TOML, see examples/rngd.toml)")
	dev := fs.Bool("dev", false, "dev mode: embedded dev defaults, generated certificates (binaries built with -tags tirage_dev only)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return exitUsage
	}
	if fs.NArg() > 0 {
		// Not echoed: it may be a secret typed at the wrong place.
		fmt.Fprintf(stderr, "rngd: %d unexpected argument(s): rngd takes flags only (--config FILE, --dev)\n", fs.NArg())
		return exitUsage
	}
	if *config == "" && !*dev {
		// Not left to the config check: with no file, it would name the
		// first required key it misses (grpc.cert_file…), not the flag.
		fmt.Fprintln(stderr, "rngd: --config FILE is required (see docs/rngd.md; examples/rngd.toml)")
		fs.Usage()
		return exitUsage
	}
	cfg, err := rngd.ConfigFromFlags(*config, *dev)
	if err != nil {
		fmt.Fprintln(stderr, "rngd:", err)
		return exitUsage
	}
	rngd.TuneRuntime()
	cfg.Logger = slog.New(slog.NewJSONHandler(stderr, &slog.HandlerOptions{Level: cfg.LogLevel}))
	rngd.RouteGRPCLogs(cfg.Logger)
	cfg.Banner = stdout
	ctx, stop := rngd.SignalContext()
	defer stop()
	if err := rngd.Run(ctx, cfg); err != nil {
		if ctx.Err() != nil && errors.Is(err, context.Canceled) {
			// The signal cut the start short (waiting for a passphrase
			// file, a device): a clean stop, nothing was served.
			fmt.Fprintln(stderr, "rngd: stopped before it started (SIGTERM or SIGINT during the start)")
			return 0
		}
		fmt.Fprintln(stderr, "rngd:", err)
		return exitFailure
	}
	return 0
}
