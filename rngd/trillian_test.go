package rngd

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	tpb "github.com/google/trillian"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"tirage.fr/tirage/internal/peertest"
	adminv1 "tirage.fr/tirage/rngd/api/tirage/admin/v1"
	qodv1 "tirage.fr/tirage/rngd/api/tirage/qod/v1"
	"tirage.fr/tirage/transparency/trillian"
)

// trillianEnv reads .run/trillian.env, written by scripts/trillian.sh up
// (make test starts the MariaDB + Trillian stack). Without it the test
// skips locally and fails in CI ([peertest.Absent]).
func trillianEnv(t *testing.T) map[string]string {
	f, err := os.Open(filepath.Join("..", ".run", "trillian.env"))
	if err != nil {
		peertest.Absent(t, "Trillian stack not running (no .run/trillian.env): bash scripts/trillian.sh up (make test does)")
	}
	defer f.Close()
	env := map[string]string{}
	for s := bufio.NewScanner(f); s.Scan(); {
		if k, v, ok := strings.Cut(s.Text(), "="); ok {
			env[k] = v
		}
	}
	return env
}

// trillianTree creates a tree on the test stack's Trillian (deleted after
// the test) and returns the log server's address and the tree's id.
func trillianTree(t *testing.T) (addr string, tree int64) {
	t.Helper()
	addr = trillianEnv(t)["TRILLIAN_LOG_ADDR"]
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tree, err = trillian.CreateTree(ctx, conn, "rngd-"+strconv.Itoa(os.Getpid()))
	if err != nil {
		conn.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		tpb.NewTrillianAdminClient(conn).DeleteTree(context.Background(), &tpb.DeleteTreeRequest{TreeId: tree})
		conn.Close()
	})
	return addr, tree
}

// The daemon on the scale-out backend: a Trillian v1.8 tree on MariaDB,
// checkpoints signed by the appliance; games played and verified offline.
func TestE2ETrillian(t *testing.T) {
	addr, tree := trillianTree(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	td := newTestDaemon(t, func(c *Config) {
		// The test stack's Trillian is plaintext on loopback: opted in.
		c.Log = LogConfig{Backend: "trillian", TrillianAddress: addr, TrillianTreeID: tree, TrillianPlaintext: true}
	})
	codes := td.emission("TRL", "2026-12-31", 20)
	a := td.client("server-a")
	for _, code := range codes[1:3] {
		g := playUntil(t, a, start(t, a, code).Game, func(*qodv1.Game) bool { return false })
		verifyGame(t, td, a, g)
	}
	td.restart()
	if _, err := td.client("server-a").ListUnfinishedGames(context.Background(), &qodv1.ListUnfinishedGamesRequest{}); err != nil {
		t.Fatal(err)
	}
	// The last checkpoint signed is kept in the data directory, for the
	// rollback check at the next start: it covers every record appended.
	note, err := os.ReadFile(filepath.Join(td.cfg.DataDir, trillianStateFile))
	if err != nil {
		t.Fatal(err)
	}
	st, err := td.admin().Status(ctx, &adminv1.StatusRequest{})
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitN(string(note), "\n", 3)
	if len(lines) < 3 || lines[1] != strconv.FormatUint(st.LogSize, 10) || st.LogSize < 7 {
		t.Errorf("state file's checkpoint, the log's checkpoint of %d leaves:\n%s", st.LogSize, note)
	}
}

// A start refused for the tree log.trillian_tree_id names says which keys
// chose it: another tree (whose root does not extend the data directory's
// trillian-checkpoint: refused as a rollback) is most often a wrong id, not
// a rolled-back database.
func TestTrillianWrongTreeNamesKeys(t *testing.T) {
	addr, tree := trillianTree(t)
	td := newTestDaemon(t, func(c *Config) {
		c.Log = LogConfig{Backend: "trillian", TrillianAddress: addr, TrillianTreeID: tree, TrillianPlaintext: true}
	})
	td.stop()
	_, other := trillianTree(t)
	for _, c := range []struct {
		tree int64
		want []string
	}{
		{other, []string{"log.trillian_tree_id " + strconv.FormatInt(other, 10), "log.trillian_address " + addr, "set them back", trillianStateFile}},
		{tree + 1, []string{"log.trillian_tree_id " + strconv.FormatInt(tree+1, 10), "no tree"}},
	} {
		td.cfg.Log.TrillianTreeID = c.tree
		err := td.tryStart()
		if err == nil {
			td.stop()
			t.Fatalf("tree %d: started", c.tree)
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("tree %d: error %q lacks %q", c.tree, err, w)
			}
		}
	}
}
