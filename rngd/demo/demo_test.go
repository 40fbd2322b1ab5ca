package demo

import (
	"bytes"
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	"tirage.fr/tirage/rngd"
	adminv1 "tirage.fr/tirage/rngd/api/tirage/admin/v1"
	"tirage.fr/tirage/rngd/rngdtest"
)

// The demo of make run, against a real daemon on free ports: it plays its
// games and every verification passes; a second run plays new tickets.
func TestDemo(t *testing.T) {
	d := rngdtest.Start(t, "client")
	data := d.DataDir
	for run := 0; run < 2; run++ {
		var out bytes.Buffer
		err := Run(context.Background(), Config{GRPC: d.GRPC, AdminSocket: d.Admin, PKI: d.PKI, Client: "client",
			Emission: "DEMO", Closure: "2099-12-31", Tickets: 50, Games: 3, Seed: []byte("demo test"), TranscriptDir: filepath.Join(data, "transcripts"), Out: &out})
		if err != nil {
			t.Fatalf("run %d: %v\n%s", run, err, out.String())
		}
		if testing.Verbose() {
			t.Log(out.String())
		}
		quit := "QUITTER on the last ticket, keeps"
		if run > 0 {
			quit = "QUITTER on the last ticket was sealed by an earlier run"
		}
		if !strings.Contains(out.String(), "verification summary: 3 games") || !strings.Contains(out.String(), "(always continue, its calls on a Play stream)") || strings.Count(out.String(), "VERDICT: every check passed") != 3 ||
			!strings.Contains(out.String(), quit) || !strings.Contains(out.String(), "CONTINUER on it afterwards: refused, TICKET_QUIT FailedPrecondition") ||
			!regexp.MustCompile(`quit receipt \(GetQuit\) verified: ticket_quit of emission DEMO keeping [0-9.]+ €, log index [0-9]+, included in the signed checkpoint of [1-9][0-9]* records`).MatchString(out.String()) {
			t.Fatalf("run %d output:\n%s", run, out.String())
		}
	}
	if m, _ := filepath.Glob(filepath.Join(data, "transcripts", "*.json")); len(m) != 6 {
		t.Fatalf("%d transcripts, want 6", len(m))
	}
}

// Once earlier runs have played the demo emission's tickets, a run that
// cannot play the games asked for fails, naming how many it played: it
// does not report a verification of fewer games (none) as a success.
func TestDemoTicketsUsedUp(t *testing.T) {
	d := rngdtest.Start(t, "client")
	cfg := Config{GRPC: d.GRPC, AdminSocket: d.Admin, PKI: d.PKI, Client: "client",
		Emission: "DEMO", Closure: "2099-12-31", Tickets: 4, Games: 2, Seed: []byte("demo test")} // the 4th: QUITTER
	var out bytes.Buffer
	cfg.Out = &out
	if err := Run(context.Background(), cfg); err != nil {
		t.Fatalf("first run: %v\n%s", err, out.String())
	}
	for _, want := range []string{"played 1 of the 2 games asked for", "played 0 of the 2 games asked for"} {
		out.Reset()
		err := Run(context.Background(), cfg)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), `emission "DEMO"`) {
			t.Fatalf("run with tickets used up: %v, want an error saying %q and naming the emission\n%s", err, want, out.String())
		}
	}
}

// A run asked for no game (DEMO_GAMES=0 make run) is refused before
// anything is sent: it would verify nothing and say OK.
func TestDemoNoGames(t *testing.T) {
	for _, n := range []int{0, -1} {
		var out bytes.Buffer
		err := Run(context.Background(), Config{GRPC: "127.0.0.1:1", AdminSocket: filepath.Join(t.TempDir(), "none.sock"),
			Client: "client", Emission: "DEMO", Closure: "2099-12-31", Tickets: 10, Games: n, Out: &out})
		if err == nil || !strings.Contains(err.Error(), "games") || strings.Contains(err.Error(), "admin") {
			t.Errorf("games %d: %v, want an error naming games, before any call\n%s", n, err, out.String())
		}
	}
}

// make run's demo manifest (the public demo seed, no Config.Seed) is refused
// by a production rngd (rngdtest's is not in dev mode): its codes are
// public. Nothing is imported, and no game is played.
func TestDemoManifestRefusedInProduction(t *testing.T) {
	d := rngdtest.Start(t, "client")
	var out bytes.Buffer
	err := Run(context.Background(), Config{GRPC: d.GRPC, AdminSocket: d.Admin, PKI: d.PKI, Client: "client",
		Emission: "DEMO", Closure: "2099-12-31", Tickets: 10, Games: 1, Out: &out})
	if status.Code(err) != codes.InvalidArgument || rngd.RefusalReason(err) != "MANIFEST_INVALID" || !strings.Contains(err.Error(), "tickets[1]: a demo ticket") {
		t.Fatalf("demo against a production rngd: %v, want MANIFEST_INVALID naming tickets[1], a demo ticket\n%s", err, out.String())
	}
	r, err := admin(t, d).ListEmissions(context.Background(), &adminv1.ListEmissionsRequest{})
	if err != nil || len(r.Emissions) != 1 || r.Emissions[0].Tickets != 0 {
		t.Fatalf("after the refusal: %v %v, want emission DEMO with no ticket", r, err)
	}
}

// The emission and its tickets created already by other requests (another
// operator's, or an earlier demo with other request ids): rngd answers
// EMISSION_EXISTS and TICKET_IMPORTED (ALREADY_EXISTS), and the demo plays
// on.
func TestDemoEmissionExists(t *testing.T) {
	d := rngdtest.Start(t, "client")
	ctx := context.Background()
	adm := admin(t, d)
	seed := []byte("demo test")
	if _, err := adm.CreateEmission(ctx, &adminv1.CreateEmissionRequest{RequestId: "other-em", EmissionId: "DEMO", ClosureDate: "2099-12-31"}); err != nil {
		t.Fatal(err)
	}
	_, tickets := rngd.DemoTickets("DEMO", seed, 20)
	if _, err := rngd.ImportTickets(ctx, adm, "other-mf", "DEMO", tickets); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	err := Run(ctx, Config{GRPC: d.GRPC, AdminSocket: d.Admin, PKI: d.PKI, Client: "client",
		Emission: "DEMO", Closure: "2099-12-30", Tickets: 20, Games: 1, Seed: seed, Out: &out})
	if err != nil || !strings.Contains(out.String(), "verification summary: 1 games") {
		t.Fatalf("demo: %v\n%s", err, out.String())
	}
}

func admin(t *testing.T, d *rngdtest.Daemon) adminv1.AdminClient {
	cc, err := grpc.NewClient("unix:"+d.Admin, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cc.Close() })
	return adminv1.NewAdminClient(cc)
}
