// Command rngd is Tirage's draw daemon: flags → config → rngd.Run.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"tirage.fr/tirage/rngd"
)

func main() {
	if err := rngd.ProtectProcess(); err != nil {
		fmt.Fprintln(os.Stderr, "rngd:", err)
		os.Exit(1)
	}
	config := flag.String("config", "", "config file (TOML, see examples/rngd.toml)")
	dev := flag.Bool("dev", false, "dev mode: embedded dev defaults, generated certificates (binaries built with -tags tirage_dev only)")
	flag.Parse()
	cfg, err := rngd.ConfigFromFlags(*config, *dev)
	if err != nil {
		fmt.Fprintln(os.Stderr, "rngd:", err)
		os.Exit(2)
	}
	rngd.TuneRuntime()
	cfg.Logger = slog.New(slog.NewJSONHandler(os.Stderr, nil))
	cfg.Banner = os.Stdout
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := rngd.Run(ctx, cfg); err != nil {
		fmt.Fprintln(os.Stderr, "rngd:", err)
		os.Exit(1)
	}
}
