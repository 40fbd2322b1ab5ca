// Package demo is the demo game server of make run: as the operator it
// registers a demo emission and imports its manifest (over the admin
// socket), then, as a game server with its own client certificate, it plays
// a few games of Quitte ou Double over mutual TLS, prints their receipts and
// verifies every one of them offline with the verifier code (VRF proofs,
// state machine replay, inclusion in a signed checkpoint).
package demo

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
	_ "time/tzdata"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	"tirage.fr/tirage/rngd"
	adminv1 "tirage.fr/tirage/rngd/api/tirage/admin/v1"
	qodv1 "tirage.fr/tirage/rngd/api/tirage/qod/v1"
	"tirage.fr/tirage/rngd/playstream"
	"tirage.fr/tirage/verifier/checkpoint"
	"tirage.fr/tirage/verifier/receipt"
	"tirage.fr/tirage/verifier/record"
)

// Config says where the daemon is and how many games to play.
type Config struct {
	GRPC        string // "127.0.0.1:7443"
	AdminSocket string // "data/admin.sock"
	PKI         rngd.DevPKI
	Client      string // the client certificate's name in PKI ("client")
	Emission    string // demo emission id
	Closure     string // its closure date, YYYY-MM-DD
	Tickets     int    // tickets in the demo manifest
	Games       int
	// Seed, if set, derives the tickets' codes (rngd.DemoTickets) instead
	// of rngd's public demo seed (rngd.DemoManifest), whose manifest only
	// an rngd in dev mode imports, as make run's: a test against a
	// production rngd sets one.
	Seed []byte
	// TranscriptDir, if set, receives each game's transcript document.
	TranscriptDir string
	Out           io.Writer
}

// Run plays the demo and returns an error if any check failed.
func Run(ctx context.Context, c Config) error {
	if c.Games < 1 {
		return fmt.Errorf("games %d: want 1 or more", c.Games)
	}
	if c.Tickets < 2 {
		return fmt.Errorf("tickets %d: want 2 or more (one to play, the last to quit)", c.Tickets)
	}
	out := c.Out
	adm, err := grpc.NewClient("unix:"+c.AdminSocket, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return err
	}
	defer adm.Close()
	admin := adminv1.NewAdminClient(adm)
	st, err := admin.Status(ctx, &adminv1.StatusRequest{})
	if err != nil {
		return fmt.Errorf("admin status: %w", err)
	}
	if len(st.LogVerifierKeys) == 0 {
		return errors.New("the daemon announced no log verifier key")
	}
	fmt.Fprintf(out, "== operator: rngd %s, VRF key %s (%s), log %s, %d records\n", st.Version, st.VrfKeyId, st.VrfSuite, st.LogOrigin, st.LogSize)

	// The operator registers the emission and imports its manifest. Both
	// carry fixed request ids: running the demo again replays them.
	em, err := admin.CreateEmission(ctx, &adminv1.CreateEmissionRequest{RequestId: "demo-emission-" + c.Emission, EmissionId: c.Emission, ClosureDate: c.Closure})
	switch {
	case err == nil:
		fmt.Fprintf(out, "== operator: emission %s, closure %s, stage 2 may start until %s (log index %d)\n",
			c.Emission, c.Closure, em.Emission.StartDeadline.AsTime().Format(time.RFC3339), em.Receipt.LogIndex)
	case rngd.RefusalReason(err) == "EMISSION_EXISTS": // created by an earlier run
	default:
		return fmt.Errorf("create emission: %w", err)
	}
	ticketCodes, tickets := rngd.DemoManifest(c.Emission, c.Tickets)
	if c.Seed != nil {
		ticketCodes, tickets = rngd.DemoTickets(c.Emission, c.Seed, c.Tickets)
	}
	mf, err := rngd.ImportTickets(ctx, admin, "demo-manifest-"+c.Emission, c.Emission, tickets)
	switch {
	case err == nil:
		fmt.Fprintf(out, "== operator: manifest of %d tickets imported, root %s (log index %d)\n", mf.Count, hex.EncodeToString(mf.Root), mf.Receipt.LogIndex)
	case rngd.RefusalReason(err) == "TICKET_IMPORTED": // imported by an earlier run
	default:
		return fmt.Errorf("import manifest: %w", err)
	}

	tc, err := rngd.ClientTLS(c.PKI.ClientCert(c.Client), c.PKI.ClientKey(c.Client), c.PKI.CA())
	if err != nil {
		return err
	}
	cc, err := grpc.NewClient(c.GRPC, grpc.WithTransportCredentials(credentials.NewTLS(tc)))
	if err != nil {
		return err
	}
	defer cc.Close()
	gs := qodv1.NewQuitteOuDoubleClient(cc)
	// The always-continue games go as calls on a Play stream, as a busy
	// game server's would: the same replies and receipts.
	stream := playstream.New(cc)
	defer stream.Close(ctx)

	// Strategies: stop at tier 1, stop at tier 2, then always continue.
	strategies := []int{1, 2, 4}
	var total summary
	played := 0
	run := time.Now().UnixNano()
	// The manifest's last ticket is kept for the player who clicks QUITTER.
	for i := 0; i < len(ticketCodes)-1 && played < c.Games; i++ {
		stopAt := strategies[min(played, len(strategies)-1)]
		gs := gs
		if stopAt >= 4 {
			gs = stream
		}
		reply, err := gs.StartGame(ctx, &qodv1.StartGameRequest{RequestId: fmt.Sprintf("demo-%d-start-%d", run, i), Code: ticketCodes[i]})
		if rngd.RefusalReason(err) == "CODE_PLAYED" {
			continue // played by an earlier run
		}
		if err != nil {
			return fmt.Errorf("start: %w", err)
		}
		g, err := play(ctx, gs, reply.Game, stopAt)
		if err != nil {
			return err
		}
		played++
		rs, err := gs.GetReceipts(ctx, &qodv1.GetReceiptsRequest{GameId: g.GameId})
		if err != nil {
			return fmt.Errorf("receipts: %w", err)
		}
		printGame(out, g, rs.Receipts, stopAt)
		v, err := rngd.VerifyReceipts(rs.Receipts, st.LogVerifierKeys[0], nil, nil)
		if err != nil {
			return fmt.Errorf("game %s does not verify: %w", g.GameId, err)
		}
		fmt.Fprintf(out, "   receipts: %d records, %d VRF proofs, %d inclusion proofs (checkpoint of %d), replay: %s %s\n",
			v.Records, v.Proofs, v.Included, v.CheckpointSize, v.Game.Phase, money(v.Game.Win))
		total.add(v)
		if err := c.transcript(ctx, gs, g.GameId, st, out); err != nil {
			return err
		}
	}
	if played < c.Games {
		return fmt.Errorf("played %d of the %d games asked for: earlier runs played the other tickets of emission %q (%d tickets)", played, c.Games, c.Emission, len(ticketCodes))
	}
	fmt.Fprintf(out, "\n== verification summary: %d games, %d records, %d VRF proofs verified, %d records proven in signed checkpoints, every game replayed by verifier/qod: OK\n",
		total.games, total.records, total.proofs, total.included)
	if err := quit(ctx, gs, ticketCodes[len(ticketCodes)-1], run, st, out); err != nil {
		return err
	}
	if c.TranscriptDir != "" {
		vkey := filepath.Join(c.TranscriptDir, "log.vkey")
		if err := os.WriteFile(vkey, []byte(strings.Join(st.LogVerifierKeys, "\n")+"\n"), 0o644); err != nil {
			return err
		}
		fmt.Fprintf(out, "   re-check offline: bin/rngverify game %s/<game>.json --log-key %s\n", c.TranscriptDir, vkey)
	}
	for _, a := range st.ListenAddresses {
		if h, ok := strings.CutPrefix(a, "http "); ok && h != "" {
			fmt.Fprintf(out, "   auditors: curl http://%s/log/checkpoint ; metrics: curl http://%s/metrics\n", h, h)
		}
		if h, ok := strings.CutPrefix(a, "audit "); ok && h != "" {
			fmt.Fprintf(out, "   auditors over gRPC (no client certificate): go tool grpcurl -cacert %s %s tirage.transparency.audit.v1.Audit/Checkpoint\n", c.PKI.CA(), h)
		}
	}
	return nil
}

// quit shows QUITTER on code: the player keeps S, the choice is sealed,
// its receipt — fetched with GetQuit, with the signed checkpoint and the
// inclusion proof that Quit's reply lacks without log.receipt_wait — is
// checked offline, and the ticket can no longer start. An earlier run's
// quit is shown by the refusal and its receipt.
func quit(ctx context.Context, gs qodv1.QuitteOuDoubleClient, code string, run int64, st *adminv1.StatusResponse, out io.Writer) error {
	reply, err := gs.Quit(ctx, &qodv1.QuitRequest{RequestId: fmt.Sprintf("demo-%d-quit", run), Code: code})
	switch {
	case rngd.RefusalReason(err) == "TICKET_QUIT":
		fmt.Fprintf(out, "\n== player: QUITTER on the last ticket was sealed by an earlier run (%v)\n", status.Convert(err).Message())
	case err != nil:
		return fmt.Errorf("quit: %w", err)
	default:
		fmt.Fprintf(out, "\n== player: QUITTER on the last ticket, keeps %s (log index %d)\n", money(reply.StakeCents), reply.Receipt.LogIndex)
	}
	proven, err := gs.GetQuit(ctx, &qodv1.GetQuitRequest{Code: code})
	if err != nil {
		return fmt.Errorf("get quit: %w", err)
	}
	if reply != nil && (proven.Receipt.LogIndex != reply.Receipt.LogIndex || !bytes.Equal(proven.Receipt.Record, reply.Receipt.Record)) {
		return fmt.Errorf("GetQuit's receipt (log index %d) is not the one Quit replied (log index %d)", proven.Receipt.LogIndex, reply.Receipt.LogIndex)
	}
	v, err := rngd.VerifyQuitReceipt(proven.Receipt, st.LogVerifierKeys[0])
	if err != nil {
		return fmt.Errorf("the quit does not verify: %w", err)
	}
	if v.CheckpointSize == 0 {
		return fmt.Errorf("the quit's receipt (GetQuit) carries no signed checkpoint")
	}
	fmt.Fprintf(out, "   quit receipt (GetQuit) verified: ticket_quit of emission %s keeping %s, log index %d, included in the signed checkpoint of %d records\n",
		v.Quit.Emission, money(v.Quit.Stake), proven.Receipt.LogIndex, v.CheckpointSize)
	_, err = gs.StartGame(ctx, &qodv1.StartGameRequest{RequestId: fmt.Sprintf("demo-%d-start-quit", run), Code: code})
	if r := rngd.RefusalReason(err); r != "TICKET_QUIT" {
		return fmt.Errorf("CONTINUER after QUITTER: %v (reason %q), want refused TICKET_QUIT", err, r)
	}
	fmt.Fprintf(out, "   CONTINUER on it afterwards: refused, %s %s\n", rngd.RefusalReason(err), status.Code(err))
	return nil
}

// transcript fetches the game's transcript, keeps it in TranscriptDir and
// checks it with the standalone verifier's code (what rngverify runs),
// trusting only the log key and the VRF key the operator announced.
func (c Config) transcript(ctx context.Context, gs qodv1.QuitteOuDoubleClient, id string, st *adminv1.StatusResponse, out io.Writer) error {
	tr, err := gs.GetTranscript(ctx, &qodv1.GetTranscriptRequest{GameId: id})
	if err != nil {
		return fmt.Errorf("transcript: %w", err)
	}
	if c.TranscriptDir != "" {
		if err := os.MkdirAll(c.TranscriptDir, 0o755); err != nil {
			return err
		}
		path := filepath.Join(c.TranscriptDir, strings.ReplaceAll(id, "/", "_")+".json")
		if err := os.WriteFile(path, tr.Document, 0o644); err != nil {
			return err
		}
		fmt.Fprintf(out, "   transcript: %s\n", path)
	}
	keys, err := checkpoint.ParseKeys(strings.Join(st.LogVerifierKeys, "\n"))
	if err != nil {
		return err
	}
	v := receipt.VerifyTranscript(tr.Document, receipt.Anchors{LogKeys: keys, Pins: []string{st.VrfSuite + ":" + st.VrfFingerprint}, Location: paris})
	fmt.Fprintf(out, "   verifier: %s\n", v.Summary("en"))
	if err := v.Err(); err != nil {
		return fmt.Errorf("transcript of %s: %w", id, err)
	}
	return nil
}

var paris, _ = time.LoadLocation("Europe/Paris")

type summary struct{ games, records, proofs, included int }

func (s *summary) add(v rngd.VerifiedGame) {
	s.games++
	s.records += v.Records
	s.proofs += v.Proofs
	s.included += v.Included
}

// play picks numbers in a fixed order, continuing until tier stopAt.
func play(ctx context.Context, gs qodv1.QuitteOuDoubleClient, g *qodv1.Game, stopAt int) (*qodv1.Game, error) {
	order := []uint64{7, 13, 21, 2, 28, 16, 9, 30, 4, 11, 25, 18, 1, 23, 14, 6, 27, 19, 10, 3, 29, 12, 22, 5, 17, 26, 8, 24, 15, 20}
	next := 0
	for n := 0; ; n++ {
		var r *qodv1.GameReply
		var err error
		rid := fmt.Sprintf("demo-%s-%d", g.GameId, n)
		switch g.Status {
		case qodv1.Status_STATUS_PLAYING:
			r, err = gs.Pick(ctx, &qodv1.PickRequest{RequestId: rid, GameId: g.GameId, Number: order[next]})
			next++
		case qodv1.Status_STATUS_AT_TIER:
			d := qodv1.Decision_DECISION_CONTINUE
			if int(g.Tier) >= stopAt {
				d = qodv1.Decision_DECISION_STOP
			}
			r, err = gs.Decide(ctx, &qodv1.DecideRequest{RequestId: rid, GameId: g.GameId, Decision: d})
		default:
			return g, nil
		}
		if err != nil {
			return g, fmt.Errorf("game %s: %w", g.GameId, err)
		}
		g = r.Game
	}
}

func money(c int64) string { return fmt.Sprintf("%d.%02d €", c/100, c%100) }

func short(b []byte) string {
	h := hex.EncodeToString(b)
	if len(h) > 16 {
		return h[:16] + "…"
	}
	return h
}

func printGame(out io.Writer, g *qodv1.Game, rs []*qodv1.Receipt, stopAt int) {
	var tiers []string
	for i, a := range g.TierAmountsCents {
		tiers = append(tiers, fmt.Sprintf("×%d→%s", g.Multipliers[i], money(a)))
	}
	strategy := fmt.Sprintf("stop at tier %d", stopAt)
	if stopAt >= 4 {
		strategy = "always continue, its calls on a Play stream"
	}
	fmt.Fprintf(out, "\n-- game %s  stake %s  tiers %s  (%s)\n", g.GameId, money(g.StakeCents), strings.Join(tiers, " "), strategy)
	for _, r := range rs {
		rec, err := record.Parse(r.Record)
		if err != nil {
			fmt.Fprintf(out, "   #%-5d unreadable record: %v\n", r.LogIndex, err)
			continue
		}
		line := ""
		switch v := rec.(type) {
		case *record.GameStart:
			line = fmt.Sprintf("start     H(r) %s", short(v.Commit[:]))
		case *record.Pick:
			line = fmt.Sprintf("pick %2d   %-6s", v.Number, v.Outcome)
		case *record.Decision:
			line = fmt.Sprintf("tier %d    %s", v.Tier, v.Choice)
		case *record.GameEnd:
			line = fmt.Sprintf("end       %s %s, r revealed %s", v.Result, money(v.Win), short(v.Secret[:]))
		}
		if len(r.VrfProof) > 0 {
			line = fmt.Sprintf("%-44s π %s β %s", line, short(r.VrfProof), short(r.VrfOutput))
		}
		fmt.Fprintf(out, "   #%-5d %s\n", r.LogIndex, line)
	}
	fmt.Fprintf(out, "   result: %s, prize %s\n", strings.TrimPrefix(g.Status.String(), "STATUS_"), money(g.PrizeCents))
}
