package ctl

import (
	"context"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	adminv1 "tirage.fr/tirage/rngd/api/tirage/admin/v1"
	qodv1 "tirage.fr/tirage/rngd/api/tirage/qod/v1"
)

// fixedAdmin answers Status and ListExpiredGames with fixed replies (the
// daemon's own answers are tested in rngd: TestTrillianOutageRecovers,
// TestRefundGraceCounted).
type fixedAdmin struct {
	adminv1.UnimplementedAdminServer
	status  *adminv1.StatusResponse
	expired *adminv1.ListExpiredGamesResponse
}

func (s fixedAdmin) Status(context.Context, *adminv1.StatusRequest) (*adminv1.StatusResponse, error) {
	return s.status, nil
}

func (s fixedAdmin) ListExpiredGames(context.Context, *adminv1.ListExpiredGamesRequest) (*adminv1.ListExpiredGamesResponse, error) {
	return s.expired, nil
}

// runFixed runs rngctl args against an admin socket that a answers.
func runFixed(t *testing.T, a fixedAdmin, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	sock := filepath.Join(t.TempDir(), "admin.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	adminv1.RegisterAdminServer(srv, a)
	go srv.Serve(l)
	defer srv.Stop()
	return rngctlEnv(nil, append(args, "--socket", sock)...)
}

// qod status says when the log has failed closed and why: the log size
// alone (0 when its checkpoint cannot be read) said nothing of it. It
// says how many unfinished games are past their deadline, in their refund
// grace.
func TestQoDStatusLogFailure(t *testing.T) {
	for _, c := range []struct {
		failure string
		want    string
	}{
		{"", "log tirage.test/log size 7\nunfinished games 2, of which 1 past their deadline in their refund grace (rngctl qod list-expired)\n"},
		{"trillian: transparency log unavailable: leaf not integrated within 30s",
			"log tirage.test/log size 7\nlog FAILED, every draw refused: trillian: transparency log unavailable: leaf not integrated within 30s\nunfinished games 2, of which 1 past their deadline in their refund grace (rngctl qod list-expired)\n"},
	} {
		code, out, errs := runFixed(t, fixedAdmin{status: &adminv1.StatusResponse{Version: "test", LogOrigin: "tirage.test/log", LogSize: 7,
			GamesUnfinished: 2, GamesInRefundGrace: 1, LogFailure: c.failure}}, "qod", "status")
		if code != ExitOK || !strings.Contains(out, c.want) {
			t.Errorf("log failure %q: exit %d\n%s%s\nwant %q", c.failure, code, out, errs, c.want)
		}
	}
}

// qod list-expired prints, one line each, the games a refund still takes
// past their deadline, with when it stops taking them (deadline +
// game.refund_grace), so that the operator can pick those an incident hit
// and refund them.
func TestQoDListExpired(t *testing.T) {
	deadline := time.Date(2027, 1, 12, 9, 30, 0, 0, time.UTC)
	code, out, errs := runFixed(t, fixedAdmin{expired: &adminv1.ListExpiredGamesResponse{
		RefundGrace: durationpb.New(168 * time.Hour),
		Games: []*qodv1.Game{{GameId: "server-b/01a2", Server: "server-b", EmissionId: "E1", Status: qodv1.Status_STATUS_EXPIRED,
			StakeCents: 300, GoodCount: 2, Tier: 1, ExpiresAt: timestamppb.New(deadline)}},
	}}, "qod", "list-expired")
	want := "1 games past their deadline, not ended: rngctl qod refund --game ID --reason TEXT takes each before its deadline + game.refund_grace (168h0m0s)\n" +
		"server-b/01a2\tserver server-b\temission E1\tdeadline 2027-01-12T09:30:00Z\trefund before 2027-01-19T09:30:00Z\tstake 300 cents\tgood 2 tier 1\n"
	if code != ExitOK || out != want {
		t.Errorf("qod list-expired: exit %d\n%s%s\nwant\n%s", code, out, errs, want)
	}
}

// qod status names each witness of the log with what rngd saw of it: the
// operator sees a witness that stopped cosigning before the log stalls,
// one whose requests are all called off (it no longer replies, the quorum
// met without it) too.
func TestQoDStatusWitnesses(t *testing.T) {
	last := time.Date(2026, 12, 3, 16, 40, 5, 0, time.UTC)
	code, out, errs := runFixed(t, fixedAdmin{status: &adminv1.StatusResponse{Version: "test", LogOrigin: "tirage.test/log", LogSize: 7,
		Witnesses: []*adminv1.WitnessStatus{
			{Name: "huissier.example/witness", Url: "http://192.0.2.10:7490/add-checkpoint", Cosignatures: 12, Conflicts: 1, LastCosigned: timestamppb.New(last)},
			{Name: "auditor.example/witness", Url: "http://192.0.2.11:7490/add-checkpoint", Failures: 4, CalledOff: 30},
		}}}, "qod", "status")
	want := "log tirage.test/log size 7\n" +
		"witness huissier.example/witness http://192.0.2.10:7490/add-checkpoint: 12 cosignatures (last 2026-12-03T16:40:05Z), 1 conflicts, 0 failures, 0 called off (the quorum met without it)\n" +
		"witness auditor.example/witness http://192.0.2.11:7490/add-checkpoint: 0 cosignatures (none since rngd started), 0 conflicts, 4 failures, 30 called off (the quorum met without it)\n"
	if code != ExitOK || !strings.Contains(out, want) {
		t.Errorf("qod status: exit %d\n%s%s\nwant %q", code, out, errs, want)
	}
}
