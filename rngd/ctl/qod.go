package ctl

import (
	"context"
	"fmt"
	"strings"
	"time"

	adminv1 "tirage.fr/tirage/rngd/api/tirage/admin/v1"
	qodv1 "tirage.fr/tirage/rngd/api/tirage/qod/v1"
)

func init() {
	register("qod", Command{Summary: "Quitte ou Double games: show, refund, sweep expired; daemon status", Run: runQoD})
}

const qodUsage = `usage: rngctl qod status|show|list-expired|refund|sweep [FLAGS]

  status        the daemon's version, keys, log size and unfinished games (of
                which those past their deadline, in their refund grace)
  show          a game's exact state (any game server's)
                --game ID
  list-expired  the games past their 30-day deadline, not ended, that refund
                still takes (until game.refund_grace has passed), by deadline,
                any game server's: one line each, tab-separated
  refund        end an unfinished game with the ticket's refund (article 2.2.11)
                --game ID --reason TEXT
  sweep         end now every game whose 30 days ended game.refund_grace ago (rngd also does it on its own)

admin flags:
` + adminSocketHelp + `  --request-id ID     request id of refund (default: derived from the game and the
                      reason, so that running the same command again returns
                      the same result, and a different one gets rngd's answer)

A flag the subcommand does not use is a usage error (exit 2), as is a --game,
--reason or --request-id that is not UTF-8.
`

func runQoD(ctx context.Context, env Env) int {
	if code, done := groupHelp(env, qodUsage); done {
		return code
	}
	sub := env.Args[0]
	used, known := qodFlags[sub]
	if !known {
		return usageError(env, "qod", "qod: unknown subcommand %q", sub)
	}
	fs := newFlags("qod " + sub)
	var a adminFlags
	a.register(fs, env)
	game := fs.String("game", "", "game id")
	reason := fs.String("reason", "", "why the 30 days could not be honoured")
	if code, ok := parseArgs(env, fs, env.Args[1:], fs.Name(), qodUsage, false); !ok {
		return code
	}
	if code, ok := onlyFlags(env, fs, used...); !ok {
		return code
	}
	if code, ok := textFlags(env, fs, "game", "reason", "request-id"); !ok {
		return code
	}
	switch sub {
	case "show":
		if *game == "" {
			return usageError(env, "qod", "qod show: --game is required")
		}
	case "refund":
		if *game == "" || *reason == "" {
			return usageError(env, "qod", "qod refund: --game and --reason are required")
		}
	}
	var refund *adminv1.RefundGameRequest
	if sub == "refund" {
		refund = &adminv1.RefundGameRequest{GameId: *game, Reason: *reason}
		enc, err := encoding(refund)
		if err != nil {
			return fail(env, err)
		}
		refund.RequestId = a.id("RefundGame", enc)
	}
	adm, done, err := a.dial(ctx)
	if err != nil {
		return fail(env, err)
	}
	defer done()
	switch sub {
	case "status":
		s, err := adm.Status(ctx, &adminv1.StatusRequest{})
		if err != nil {
			return a.fail(env, err)
		}
		logState := ""
		if s.LogFailure != "" {
			logState = "\nlog FAILED, every draw refused: " + s.LogFailure
		}
		for _, f := range []struct{ what, why string }{
			{"entropy FAILED, every start refused (rngctl entropy status): ", s.EntropyFailure},
			{"keys FAILED, every draw refused until a proof succeeds (rngd tries once a second; a PKCS#11 token that is back is reopened by itself): ", s.KeysFailure},
			{"secret store FAILED, every start refused until rngd restarts: ", s.SecretsFailure},
		} {
			if f.why != "" {
				logState += "\n" + f.what + f.why
			}
		}
		for _, w := range s.Witnesses {
			last := "none since rngd started"
			if w.LastCosigned != nil {
				last = "last " + w.LastCosigned.AsTime().UTC().Format(time.RFC3339)
			}
			logState += fmt.Sprintf("\nwitness %s %s: %d cosignatures (%s), %d conflicts, %d failures, %d called off (the quorum met without it)", w.Name, w.Url, w.Cosignatures, last, w.Conflicts, w.Failures, w.CalledOff)
		}
		games := fmt.Sprintf("unfinished games %d, of which %d past their deadline in their refund grace (rngctl qod list-expired)", s.GamesUnfinished, s.GamesInRefundGrace)
		if s.StoreFailure != "" { // not counted: 0 is not none
			games = "unfinished games UNKNOWN, state store FAILED, every draw refused: " + s.StoreFailure
		}
		fmt.Fprintf(env.Stdout, "rngd %s dev_mode=%v\nvrf key %s %s fingerprint %s (rngverify --pin %s:%s)\nlog %s size %d%s\n%s\n%s\n",
			s.Version, s.DevMode, s.VrfKeyId, s.VrfSuite, s.VrfFingerprint, s.VrfSuite, s.VrfFingerprint, s.LogOrigin, s.LogSize, logState,
			games, strings.Join(s.ListenAddresses, "\n"))
	case "show":
		g, err := adm.GetGame(ctx, &qodv1.GetGameRequest{GameId: *game})
		if err != nil {
			return a.fail(env, err)
		}
		printGame(env, g)
	case "list-expired":
		games, grace, err := listExpired(ctx, adm)
		if err != nil {
			return a.fail(env, err)
		}
		fmt.Fprintf(env.Stdout, "%d games past their deadline, not ended: rngctl qod refund --game ID --reason TEXT takes each before its deadline + game.refund_grace (%s)\n", len(games), grace)
		for _, g := range games {
			deadline := g.ExpiresAt.AsTime()
			fmt.Fprintf(env.Stdout, "%s\tserver %s\temission %s\tdeadline %s\trefund before %s\tstake %d cents\tgood %d tier %d\n",
				g.GameId, g.Server, g.EmissionId, deadline.Format(time.RFC3339), deadline.Add(grace).Format(time.RFC3339), g.StakeCents, g.GoodCount, g.Tier)
		}
	case "refund":
		r, err := adm.RefundGame(ctx, refund)
		if err != nil {
			return a.fail(env, err)
		}
		fmt.Fprintf(env.Stdout, "game %s refunded (log index %d)\n", *game, r.EndReceipt.GetLogIndex())
	case "sweep":
		r, err := adm.SweepExpired(ctx, &adminv1.SweepExpiredRequest{})
		if err != nil {
			return a.fail(env, err)
		}
		fmt.Fprintf(env.Stdout, "%d expired games ended\n", len(r.ExpiredGameIds))
		for _, id := range r.ExpiredGameIds {
			fmt.Fprintln(env.Stdout, id)
		}
	}
	return ExitOK
}

// qodFlags are the flags each qod subcommand uses (onlyFlags).
var qodFlags = map[string][]string{
	"status":       {"socket"},
	"show":         {"socket", "game"},
	"list-expired": {"socket"},
	"refund":       {"socket", "request-id", "game", "reason"},
	"sweep":        {"socket"},
}

// maxExpiredPages bounds the pages list-expired follows: a daemon whose
// tokens never end the list is not followed forever (at the default page
// size, 50 million games).
const maxExpiredPages = 100_000

// listExpired follows ListExpiredGames' pages (each within gRPC's default
// message limit) and returns every game listed, in order, and
// game.refund_grace.
func listExpired(ctx context.Context, adm adminv1.AdminClient) ([]*qodv1.Game, time.Duration, error) {
	var games []*qodv1.Game
	req := &adminv1.ListExpiredGamesRequest{}
	for pages := 1; ; pages++ {
		r, err := adm.ListExpiredGames(ctx, req)
		if err != nil {
			return nil, 0, err
		}
		games = append(games, r.Games...)
		if r.NextPageToken == "" {
			return games, r.RefundGrace.AsDuration(), nil
		}
		if len(r.Games) == 0 || pages == maxExpiredPages {
			return nil, 0, fmt.Errorf("ListExpiredGames: page %d has %d games and a next_page_token: the list does not end", pages, len(r.Games))
		}
		req.PageToken = r.NextPageToken
	}
}

func printGame(env Env, g *qodv1.Game) {
	var picks []string
	for _, p := range g.Picks {
		s := fmt.Sprint(p.Number)
		if p.Losing {
			s += "(losing)"
		}
		picks = append(picks, s)
	}
	fmt.Fprintf(env.Stdout, "game %s\nserver %s\nemission %s\nstatus %s\nstake %d cents\nmultipliers %v\ntier amounts %v cents\npicks %s\ngood %d tier %d prize %d cents\nstarted %s expires %s\nlast log index %d\n",
		g.GameId, g.Server, g.EmissionId, strings.TrimPrefix(g.Status.String(), "STATUS_"), g.StakeCents, g.Multipliers, g.TierAmountsCents,
		strings.Join(picks, " "), g.GoodCount, g.Tier, g.PrizeCents, g.StartedAt.AsTime().Format(time.RFC3339), g.ExpiresAt.AsTime().Format(time.RFC3339), g.LastLogIndex)
}
