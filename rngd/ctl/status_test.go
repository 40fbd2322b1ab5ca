package ctl

import (
	"context"
	"net"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/grpc"

	adminv1 "tirage.fr/tirage/rngd/api/tirage/admin/v1"
)

// statusOnly answers Status with a fixed reply (the daemon's own answer,
// a log failed closed, is tested in rngd: TestTrillianOutageRecovers).
type statusOnly struct {
	adminv1.UnimplementedAdminServer
	r *adminv1.StatusResponse
}

func (s statusOnly) Status(context.Context, *adminv1.StatusRequest) (*adminv1.StatusResponse, error) {
	return s.r, nil
}

// qod status says when the log has failed closed and why: the log size
// alone (0 when its checkpoint cannot be read) said nothing of it.
func TestQoDStatusLogFailure(t *testing.T) {
	for _, c := range []struct {
		failure string
		want    string
	}{
		{"", "log tirage.test/log size 7\nunfinished games 2\n"},
		{"trillian: transparency log unavailable: leaf not integrated within 30s",
			"log tirage.test/log size 7\nlog FAILED CLOSED, every draw refused: trillian: transparency log unavailable: leaf not integrated within 30s\nunfinished games 2\n"},
	} {
		sock := filepath.Join(t.TempDir(), "admin.sock")
		l, err := net.Listen("unix", sock)
		if err != nil {
			t.Fatal(err)
		}
		srv := grpc.NewServer()
		adminv1.RegisterAdminServer(srv, statusOnly{r: &adminv1.StatusResponse{Version: "test", LogOrigin: "tirage.test/log", LogSize: 7,
			GamesUnfinished: 2, LogFailure: c.failure}})
		go srv.Serve(l)
		code, out, errs := rngctlEnv(nil, "qod", "status", "--socket", sock)
		srv.Stop()
		if code != ExitOK || !strings.Contains(out, c.want) {
			t.Errorf("log failure %q: exit %d\n%s%s\nwant %q", c.failure, code, out, errs, c.want)
		}
	}
}
