package loadtest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tirage.fr/tirage/rngd"
)

// The rngd binary writes its slog records at log_level and above: each
// game's start and end at debug only; its start-up lines at info.
func TestLogLevel(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the rngd binary")
	}
	bin := daemonBinary(t)
	for _, tc := range []struct {
		top        string
		gameLines  bool
		startLines bool
	}{
		{"", false, true},
		{`log_level = "debug"`, true, true},
		{`log_level = "warn"`, false, false},
	} {
		d := startDaemonWith(t, bin, t.TempDir(), tc.top)
		codes := emission(t, d.admin, "LOG", 40)
		conns, hangUp := dialPlay(t, d.grpc, rngd.DevPKI{Dir: filepath.Join(d.data, "dev")}, "client", 1, false)
		r, err := Run(context.Background(), Config{Conns: conns, Codes: codes, Sessions: 2, Draws: 40})
		if err != nil {
			t.Fatalf("%q: %v", tc.top, err)
		}
		hangUp()
		if tc.startLines {
			d.stop(t) // which checks the drain's INFO line
		} else {
			d.terminate(t)
		}
		b, err := os.ReadFile(d.logPath)
		if err != nil {
			t.Fatal(err)
		}
		log := string(b)
		starts := r.Draws - r.Picks
		if got := strings.Count(log, `"msg":"game started"`); (got > 0) != tc.gameLines || tc.gameLines && int64(got) != starts {
			t.Errorf("%q: %d \"game started\" lines for %d starts", tc.top, got, starts)
		}
		if got := strings.Contains(log, `"msg":"game ended"`); got != tc.gameLines {
			t.Errorf("%q: \"game ended\" lines: %v, want %v", tc.top, got, tc.gameLines)
		}
		if got := strings.Contains(log, `"level":"INFO"`); got != tc.startLines {
			t.Errorf("%q: INFO lines: %v, want %v\n%s", tc.top, got, tc.startLines, log)
		}
	}
}
