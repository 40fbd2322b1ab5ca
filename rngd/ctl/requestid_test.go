package ctl

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"

	"tirage.fr/tirage/rngd"
	qodv1 "tirage.fr/tirage/rngd/api/tirage/qod/v1"
	"tirage.fr/tirage/rngd/rngdtest"
)

// The request id rngctl derives when --request-id is not given covers the
// whole command: the same command again is a retry (the same result), and
// a command that differs in any field is a new request, which gets rngd's
// own answer — not "request_id … was already used for another request",
// naming an id the operator never gave.
func TestDerivedRequestIDs(t *testing.T) {
	d := rngdtest.Start(t, "gs")
	sock := d.Admin
	dir := t.TempDir()
	manifest := filepath.Join(dir, "m.csv")
	demoCodes := testManifest(t, manifest, "E2026-07", 3)
	steps := []struct {
		args   []string
		code   int
		output string
	}{
		{[]string{"emission", "create", "--id", "E2026-07", "--closure", "2199-11-15"}, ExitOK, "emission E2026-07 registered: closure 2199-11-15"},
		{[]string{"emission", "create", "--id", "E2026-07", "--closure", "2199-11-15"}, ExitOK, "emission E2026-07 registered: closure 2199-11-15"},
		{[]string{"emission", "create", "--id", "E2026-07", "--closure", "2199-11-16"}, ExitFail, `rngctl: emission_id: emission "E2026-07" is already registered`},
		{[]string{"emission", "import", "--id", "E2026-07", "--manifest", manifest}, ExitOK, "3 tickets, root"},
		{[]string{"emission", "import", "--id", "E2026-07", "--manifest", manifest}, ExitOK, "3 tickets, root"},
	}
	for _, s := range steps {
		code, out, errOut := rngctl(append(s.args, "--socket", sock)...)
		if code != s.code || !strings.Contains(out+errOut, s.output) || strings.Contains(errOut, "request_id") {
			t.Fatalf("rngctl %s: exit %d, %q %q; want %d and %q", strings.Join(s.args, " "), code, out, errOut, s.code, s.output)
		}
	}

	// A game, started as a game server starts one, then refunded.
	tc, err := rngd.ClientTLS(d.PKI.ClientCert("gs"), d.PKI.ClientKey("gs"), d.PKI.CA())
	if err != nil {
		t.Fatal(err)
	}
	cc, err := grpc.NewClient(d.GRPC, grpc.WithTransportCredentials(credentials.NewTLS(tc)))
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	reply, err := qodv1.NewQuitteOuDoubleClient(cc).StartGame(ctx, &qodv1.StartGameRequest{RequestId: "start-1", Code: demoCodes[0]})
	if err != nil {
		t.Fatal(err)
	}
	game := reply.GetGame().GetGameId()
	for _, s := range []struct {
		reason string
		code   int
		output string
	}{
		{"the draw machine failed", ExitOK, "game " + game + " refunded (log index"},
		{"the draw machine failed", ExitOK, "game " + game + " refunded (log index"}, // a retry: the same reply
		{"another reason", ExitFail, "(FailedPrecondition)"},                         // rngd's answer: the game is over
	} {
		code, out, errOut := rngctl("qod", "refund", "--socket", sock, "--game", game, "--reason", s.reason)
		if code != s.code || !strings.Contains(out+errOut, s.output) || strings.Contains(errOut, "request_id") {
			t.Errorf("qod refund --reason %q: exit %d, %q %q; want %d and %q", s.reason, code, out, errOut, s.code, s.output)
		}
	}
	// An explicit --request-id still names the request: reused for another
	// request, it is refused as such.
	if code, _, errOut := rngctl("qod", "refund", "--socket", sock, "--game", game, "--reason", "x", "--request-id", "r1"); code != ExitFail || strings.Contains(errOut, "request_id") {
		t.Errorf("refund --request-id r1: exit %d %q", code, errOut)
	}
	if code, _, errOut := rngctl("emission", "create", "--socket", sock, "--id", "E9", "--closure", "2199-01-01", "--request-id", "c1"); code != ExitOK {
		t.Errorf("create --request-id c1: exit %d %q", code, errOut)
	}
	if code, _, errOut := rngctl("emission", "create", "--socket", sock, "--id", "E10", "--closure", "2199-01-01", "--request-id", "c1"); code != ExitFail || !strings.Contains(errOut, `request_id "c1" was already used`) {
		t.Errorf("create --request-id c1 reused: exit %d %q", code, errOut)
	}
}

// The derived id changes with every field of the request, and only with
// them.
func TestDeriveRequestID(t *testing.T) {
	a := deriveRequestID("CreateEmission", []byte("x"))
	if a != deriveRequestID("CreateEmission", []byte("x")) || !strings.HasPrefix(a, "rngctl-") || len(a) != len("rngctl-")+32 {
		t.Fatalf("derived id %q is not stable", a)
	}
	for _, other := range []string{
		deriveRequestID("RefundGame", []byte("x")),
		deriveRequestID("CreateEmission", []byte("y")),
		deriveRequestID("CreateEmission", []byte("x"), nil),
		deriveRequestID("CreateEmission", []byte(""), []byte("x")),
		deriveRequestID("CreateEmissio", []byte("nx")),
	} {
		if other == a {
			t.Errorf("two requests share the id %s", a)
		}
	}
}
