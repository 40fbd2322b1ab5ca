package loadtest

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"tirage.fr/tirage/rngd"
	qodv1 "tirage.fr/tirage/rngd/api/tirage/qod/v1"
)

// acked is a call the daemon answered, and how to send it again.
type acked struct {
	what  string
	send  func(ctx context.Context, c qodv1.QuitteOuDoubleClient) (*qodv1.GameReply, error)
	reply *qodv1.GameReply
}

// Nothing acknowledged is ever lost, with the real rngd binary killed with
// SIGKILL under load: game servers play until the kill; after the restart
// (the store caught up with the log), every call the daemon had answered
// gets, sent again with its request id, the very reply it got — the same
// records, proofs and log indices — every game reads back, and no game in
// play lost its secret.
func TestKillUnderLoad(t *testing.T) { testKillUnderLoad(t, false) }

// TestKillUnderLoadPlay is TestKillUnderLoad with the game calls on Play
// streams, before the kill and after the restart.
func TestKillUnderLoadPlay(t *testing.T) { testKillUnderLoad(t, true) }

func testKillUnderLoad(t *testing.T, play bool) {
	if testing.Short() {
		t.Skip("builds and runs the rngd binary")
	}
	bin := daemonBinary(t)
	dir := t.TempDir()
	d := startDaemonIn(t, bin, dir)
	codes := emission(t, d.admin, "KILL", 4000)
	pki := rngd.DevPKI{Dir: filepath.Join(d.data, "dev")}
	conns, hangUp := dialPlay(t, d.grpc, pki, "client", 4, play)

	var mu sync.Mutex
	var acks []acked
	ack := func(a acked) {
		mu.Lock()
		acks = append(acks, a)
		mu.Unlock()
	}
	// call sends req until the daemon dies; true while it answers.
	call := func(what string, c qodv1.QuitteOuDoubleClient, send func(ctx context.Context, c qodv1.QuitteOuDoubleClient) (*qodv1.GameReply, error)) (*qodv1.GameReply, bool) {
		r, err := send(context.Background(), c)
		if err != nil {
			return nil, false
		}
		ack(acked{what: what, send: send, reply: r})
		return r, true
	}
	var wg sync.WaitGroup
	for s := range 32 {
		c := conns[s%len(conns)]
		wg.Go(func() {
			for n := 0; ; n++ {
				var code string
				select {
				case code = <-codes:
				default:
					return
				}
				start := &qodv1.StartGameRequest{RequestId: fmt.Sprintf("kill-%d-%d", s, n), Code: code}
				r, ok := call("start", c, func(ctx context.Context, c qodv1.QuitteOuDoubleClient) (*qodv1.GameReply, error) {
					return c.StartGame(ctx, start)
				})
				for i := 0; ok; i++ {
					g := r.Game
					id := fmt.Sprintf("kill-%d-%d-%d", s, n, i)
					switch g.Status {
					case qodv1.Status_STATUS_PLAYING:
						p := &qodv1.PickRequest{RequestId: id, GameId: g.GameId, Number: NextNumber(g)}
						r, ok = call("pick", c, func(ctx context.Context, c qodv1.QuitteOuDoubleClient) (*qodv1.GameReply, error) {
							return c.Pick(ctx, p)
						})
					case qodv1.Status_STATUS_AT_TIER:
						q := &qodv1.DecideRequest{RequestId: id, GameId: g.GameId, Decision: qodv1.Decision_DECISION_CONTINUE}
						r, ok = call("decide", c, func(ctx context.Context, c qodv1.QuitteOuDoubleClient) (*qodv1.GameReply, error) {
							return c.Decide(ctx, q)
						})
					default:
						ok = false
					}
				}
				if r == nil {
					return // the daemon is gone
				}
			}
		})
	}
	// Kill once the load is well under way.
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
		mu.Lock()
		n := len(acks)
		mu.Unlock()
		if n >= 1500 || time.Now().After(deadline) {
			break
		}
	}
	if err := d.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-d.done
	d.stopped = true
	wg.Wait()
	hangUp()
	if len(acks) < 100 {
		t.Fatalf("only %d calls answered before the kill", len(acks))
	}

	d = startDaemonIn(t, bin, dir)
	conns, _ = dialPlay(t, d.grpc, pki, "client", 1, play)
	ctx := context.Background()
	games := map[string]bool{}
	for i, a := range acks {
		r, err := a.send(ctx, conns[0])
		if err != nil {
			t.Fatalf("%s %d of %d, sent again after the restart: %v", a.what, i, len(acks), err)
		}
		if !proto.Equal(r, a.reply) {
			t.Fatalf("%s %d of %d, sent again after the restart:\n%v\nfirst answered\n%v", a.what, i, len(acks), r, a.reply)
		}
		games[r.Game.GameId] = true
	}
	for id := range games {
		if _, err := conns[0].GetGame(ctx, &qodv1.GetGameRequest{GameId: id}); err != nil {
			t.Fatalf("game %s after the restart: %v", id, err)
		}
	}
	t.Logf("%d calls answered before the kill, each answered the same after the restart (%d games)", len(acks), len(games))
	for _, line := range strings.Split(d.logTail(), "\n") {
		if strings.Contains(line, "state store") || strings.Contains(line, "from the reserve") {
			t.Log(line) // how the store caught up, the secrets whose move the kill lost
		}
		// A start's secret is durable before it is drawn (in the secret
		// store's reserve, its move to the game committed behind): no game
		// the crash cut short lost it.
		if strings.Contains(line, "without its secret") || strings.Contains(line, "rebuilt from the log") {
			t.Errorf("after the kill: %s", line)
		}
	}
	d.stop(t)
}
