// Command rngdemo is the demo game server of make run: flags → demo.Run.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"time"

	"tirage.fr/tirage/rngd"
	"tirage.fr/tirage/rngd/demo"
)

func main() {
	data := flag.String("data", "data", "the daemon's data directory (dev PKI in DATA/dev, admin socket DATA/admin.sock)")
	addr := flag.String("grpc", "127.0.0.1:7443", "rngd's game-server address")
	games := flag.Int("games", 4, "games to play")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	// A demo emission per month, closing at the end of the next month.
	now := time.Now()
	closure := time.Date(now.Year(), now.Month()+2, 0, 0, 0, 0, 0, time.UTC)
	err := demo.Run(ctx, demo.Config{
		GRPC: *addr, AdminSocket: filepath.Join(*data, "admin.sock"), PKI: rngd.DevPKI{Dir: filepath.Join(*data, "dev")},
		Client: "client", Emission: "DEMO-" + now.Format("2006-01"), Closure: closure.Format(time.DateOnly), Tickets: 700, Games: *games, Out: os.Stdout,
		TranscriptDir: filepath.Join(*data, "transcripts"),
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "rngdemo:", err)
		os.Exit(1)
	}
}
