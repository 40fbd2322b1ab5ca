package ctl

import (
	"context"
	"fmt"
	"net"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	adminv1 "tirage.fr/tirage/rngd/api/tirage/admin/v1"
	qodv1 "tirage.fr/tirage/rngd/api/tirage/qod/v1"
)

// pagedAdmin serves n expired games in ListExpiredGames' pages of size
// games; its tokens are the index of the next game. Page fail, when not 0,
// fails; with empty, every page after the first is empty and has a token.
type pagedAdmin struct {
	fixedAdmin
	n, size, fail int
	empty         bool
}

func (s pagedAdmin) ListExpiredGames(_ context.Context, req *adminv1.ListExpiredGamesRequest) (*adminv1.ListExpiredGamesResponse, error) {
	from := 0
	if req.PageToken != "" {
		var err error
		if from, err = strconv.Atoi(req.PageToken); err != nil {
			return nil, fmt.Errorf("bad token %q", req.PageToken)
		}
	}
	if s.fail != 0 && from/s.size+1 == s.fail {
		return nil, fmt.Errorf("page %d failed", s.fail)
	}
	r := &adminv1.ListExpiredGamesResponse{RefundGrace: durationpb.New(168 * time.Hour)}
	deadline := time.Date(2027, 1, 12, 9, 30, 0, 0, time.UTC)
	end := min(s.n, from+s.size)
	if s.empty && from > 0 {
		end = from
	}
	for i := from; i < end; i++ {
		r.Games = append(r.Games, &qodv1.Game{GameId: fmt.Sprintf("server-a/%04d", i), Server: "server-a", EmissionId: "E1",
			Status: qodv1.Status_STATUS_EXPIRED, StakeCents: 300, ExpiresAt: timestamppb.New(deadline)})
	}
	if end < s.n || s.empty {
		r.NextPageToken = strconv.Itoa(max(end, from+s.size))
	}
	return r, nil
}

// qod list-expired follows ListExpiredGames' pages: every game of every
// page is printed, in order, once, after the count of them all. A failed
// page fails the command (nothing printed), and so does a daemon whose
// pages never end.
func TestQoDListExpiredPages(t *testing.T) {
	srv := pagedAdmin{n: 2345, size: 1000}
	code, out, errs := runPaged(t, srv)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if code != ExitOK || len(lines) != srv.n+1 || !strings.HasPrefix(lines[0], "2345 games past their deadline") {
		t.Fatalf("exit %d, %d lines (first %q)\n%s", code, len(lines), lines[0], errs)
	}
	for i, l := range lines[1:] {
		if want := fmt.Sprintf("server-a/%04d\t", i); !strings.HasPrefix(l, want) {
			t.Fatalf("line %d: %q, want game %q", i+1, l, want)
		}
	}

	for name, srv := range map[string]pagedAdmin{
		"a failed second page": {n: 2345, size: 1000, fail: 2},
		"pages without end":    {n: 2345, size: 1000, empty: true},
	} {
		code, out, errs := runPaged(t, srv)
		if code != ExitFail || out != "" || errs == "" {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want %d, nothing printed and why", name, code, out, errs, ExitFail)
		}
	}
}

// runPaged runs rngctl qod list-expired against an admin socket that a
// answers.
func runPaged(t *testing.T, a pagedAdmin) (code int, stdout, stderr string) {
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
	return rngctlEnv(nil, "qod", "list-expired", "--socket", sock)
}
