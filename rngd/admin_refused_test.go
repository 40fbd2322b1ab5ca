package rngd

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	reflectionpb "google.golang.org/grpc/reflection/grpc_reflection_v1"
	"google.golang.org/grpc/status"

	adminv1 "tirage.fr/tirage/rngd/api/tirage/admin/v1"
	qodv1 "tirage.fr/tirage/rngd/api/tirage/qod/v1"
	"tirage.fr/tirage/rngd/internal/testio"
	"tirage.fr/tirage/verifier/record"
)

// refusingDaemon is a test daemon whose admin.allowed_uids holds another
// uid than this process's, and a check that a call was refused for it:
// PERMISSION_DENIED naming the setting.
func refusingDaemon(t *testing.T) (*testDaemon, func(what string, err error)) {
	td := newTestDaemon(t, func(c *Config) { c.Admin.AllowedUIDs = []int{os.Getuid() + 4242} })
	wantMsg := fmt.Sprintf("uid %d is not in rngd's admin.allowed_uids", os.Getuid())
	return td, func(what string, err error) {
		t.Helper()
		st := status.Convert(err)
		if err == nil || st.Code() != codes.PermissionDenied || st.Message() != wantMsg {
			t.Errorf("%s: %v, want PermissionDenied %q", what, err, wantMsg)
		}
	}
}

// A uid not in admin.allowed_uids that connects to the admin socket (mode
// 0666) got "error reading server preface: connection reset by peer"
// (UNAVAILABLE), as if rngd were down, and rngd logged nothing. Now each of
// its calls, unary or streamed, the admin service's, health's or
// reflection's, is refused PERMISSION_DENIED naming its uid and the
// setting, before any handler runs (nothing is registered, nothing is
// observed); rngd logs one WARN line with the uid, the pid and the setting
// (rate-limited: a second connection within the minute is not logged), and
// counts every refused connection. The test process's own uid plays the
// refused user: admin.allowed_uids names only another.
func TestAdminRefusedUID(t *testing.T) {
	td, refused := refusingDaemon(t)
	self := os.Getuid()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	adm := td.admin()
	_, err := adm.Status(ctx, &adminv1.StatusRequest{})
	refused("Status", err)
	_, err = adm.CreateEmission(ctx, &adminv1.CreateEmissionRequest{RequestId: "em-R", EmissionId: "R", ClosureDate: "2026-12-15"})
	refused("CreateEmission", err)
	_, tickets := DemoTickets("R", []byte("test seed"), 3)
	_, err = ImportTickets(ctx, adm, "mf-R", "R", tickets)
	refused("ImportManifest", err)

	// A second connection: the same answers, counted, not logged again.
	adm2 := td.admin()
	_, err = adm2.Status(ctx, &adminv1.StatusRequest{})
	refused("Status on a second connection", err)
	cc := td.adminClientConn() // a third: health, reflection
	_, err = healthpb.NewHealthClient(cc).Check(ctx, &healthpb.HealthCheckRequest{})
	refused("health Check", err)
	w, err := healthpb.NewHealthClient(cc).Watch(ctx, &healthpb.HealthCheckRequest{})
	if err == nil {
		_, err = w.Recv()
	}
	refused("health Watch", err)
	rs, err := reflectionpb.NewServerReflectionClient(cc).ServerReflectionInfo(ctx)
	if err == nil {
		rs.Send(&reflectionpb.ServerReflectionRequest{MessageRequest: &reflectionpb.ServerReflectionRequest_ListServices{}})
		_, err = rs.Recv()
	}
	refused("reflection", err)

	// No handler ran: nothing registered, no call observed.
	if _, err := td.d.engine.emission("R"); status.Code(err) != codes.NotFound {
		t.Errorf("emission R after a refused CreateEmission: %v, want NotFound", err)
	}
	m := scrape(t, td)
	if lines := grepLines(m, `tirage_call_seconds_count{method="`); lines != "" {
		t.Errorf("refused calls were observed:\n%s", lines)
	}
	// One per refused connection: three (more only if a client
	// reconnected after refusedConnLifetime).
	var n int
	if _, err := fmt.Sscanf(grepLines(m, "tirage_admin_refused_total "), "tirage_admin_refused_total %d", &n); err != nil || n < 3 {
		t.Errorf("/metrics: %q (%v), want tirage_admin_refused_total 3 (one per refused connection)", grepLines(m, "tirage_admin_refused_total"), err)
	}

	// Logged once (rate-limited), naming the uid, the pid, the setting.
	logs := string(td.logs())
	var lines []string
	for _, l := range strings.Split(logs, "\n") {
		if strings.Contains(l, "admin socket: refused") {
			lines = append(lines, l)
		}
	}
	if len(lines) != 1 {
		t.Fatalf("%d log lines for the refused uid, want 1:\n%s", len(lines), strings.Join(lines, "\n"))
	}
	for _, want := range []string{"level=WARN", fmt.Sprintf(" uid=%d ", self), fmt.Sprintf(" pid=%d ", os.Getpid()),
		" setting=admin.allowed_uids ", " suppressed=0"} {
		if !strings.Contains(lines[0], want) {
			t.Errorf("log line %q lacks %q", lines[0], want)
		}
	}
	if strings.Contains(logs, "call refused") {
		t.Errorf("a refused peer's call reached the observer:\n%s", grepLines(logs, "time="))
	}
}

// A refused peer's unary call was refused by an interceptor, which gRPC
// runs only once it has read and decoded the whole request, on a goroutine
// of its own: on each of its connections (mode 0666 when admin.allowed_uids
// names another user) any local user could have rngd take in up to 4 MiB
// per stream, streams without bound, before answering PERMISSION_DENIED.
// Now the call is refused when its headers arrive (adminTap), before its
// body is read: a call whose body never comes is answered at once (it was
// left waiting for it), and one larger than any limit gRPC enforces on a
// body it reads (beyond its default 4 MiB, so beyond
// adminMaxRecvMsgSize too) is refused PERMISSION_DENIED, not
// RESOURCE_EXHAUSTED. Streams the same, on the one connection.
func TestAdminRefusedBeforeBody(t *testing.T) {
	td, refused := refusingDaemon(t)
	cc := td.adminClientConn()

	// A body larger than gRPC's default limit (4 MiB): refused for the
	// peer, not for the size.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	huge := strings.Repeat("x", 5<<20)
	_, err := adminv1.NewAdminClient(cc).CreateEmission(ctx, &adminv1.CreateEmissionRequest{RequestId: huge, EmissionId: "H", ClosureDate: "2026-12-15"})
	refused("CreateEmission of 5 MiB", err)
	_, err = adminv1.NewAdminClient(cc).CreateEmission(ctx, &adminv1.CreateEmissionRequest{RequestId: huge[:3<<20], EmissionId: "H", ClosureDate: "2026-12-15"})
	refused("CreateEmission of 3 MiB", err) // beyond adminMaxRecvMsgSize, within gRPC's default
	hs, err := adminv1.NewAdminClient(cc).ImportManifest(ctx)
	if err == nil {
		hs.Send(&adminv1.ImportManifestRequest{Part: &adminv1.ImportManifestRequest_Header{Header: &adminv1.ManifestHeader{RequestId: huge}}})
		_, err = hs.CloseAndRecv()
	}
	refused("ImportManifest of 5 MiB", err)

	// Many at once, on one connection: each refused, none waits for
	// another (no stream is taken in, so none counts against the
	// connection's streams).
	var wg sync.WaitGroup
	errs := make([]error, 4*adminMaxConcurrentStreams)
	for i := range errs {
		wg.Go(func() {
			_, errs[i] = adminv1.NewAdminClient(cc).CreateEmission(ctx, &adminv1.CreateEmissionRequest{RequestId: huge[:256<<10], EmissionId: "H", ClosureDate: "2026-12-15"})
		})
	}
	wg.Wait()
	bad := 0
	for _, err := range errs {
		if status.Code(err) != codes.PermissionDenied {
			if bad == 0 {
				refused("a concurrent CreateEmission", err)
			}
			bad++
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d concurrent CreateEmissions not refused PermissionDenied", bad, len(errs))
	}

	// Headers, no body: a unary method's stream left open (last: the
	// calls above find the connection within its refusedConnLifetime). Its
	// answer cannot wait for a request that never comes.
	for _, m := range []string{adminv1.Admin_Status_FullMethodName, adminv1.Admin_CreateEmission_FullMethodName, healthpb.Health_Check_FullMethodName} {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		st, err := cc.NewStream(ctx, &grpc.StreamDesc{ClientStreams: true, ServerStreams: true}, m)
		if err == nil {
			err = st.RecvMsg(new(adminv1.StatusResponse))
		}
		cancel()
		refused(m+" without its request", err)
	}

	if _, err := td.d.engine.emission("H"); status.Code(err) != codes.NotFound {
		t.Errorf("emission H after refused CreateEmissions: %v, want NotFound", err)
	}
}

// The admin server took requests of up to 4 MiB (gRPC's default) and any
// number of streams per connection. An admitted peer's request beyond
// adminMaxRecvMsgSize is refused RESOURCE_EXHAUSTED; a manifest's largest
// message (ImportTickets: a batch of 10,000 tickets) is well within it; a
// connection serves adminMaxConcurrentStreams streams at once, and a call
// beyond them waits for one to end (it is not refused).
func TestAdminLimits(t *testing.T) {
	td := newTestDaemon(t) // admin.allowed_uids: the test's uid
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cc := td.adminClientConn()
	adm := adminv1.NewAdminClient(cc)

	big := strings.Repeat("x", adminMaxRecvMsgSize+1)
	_, err := adm.CreateEmission(ctx, &adminv1.CreateEmissionRequest{RequestId: big, EmissionId: "L", ClosureDate: "2026-12-15"})
	if status.Code(err) != codes.ResourceExhausted {
		t.Errorf("CreateEmission of %d bytes: %v, want ResourceExhausted", len(big), err)
	}

	// A full batch and then some.
	if _, err := adm.CreateEmission(ctx, &adminv1.CreateEmissionRequest{RequestId: "em-L", EmissionId: "L", ClosureDate: "2026-12-15"}); err != nil {
		t.Fatal(err)
	}
	_, tickets := DemoTickets("L", []byte("test seed"), 10_001)
	if r, err := ImportTickets(ctx, adm, "mf-L", "L", tickets); err != nil || r.Count != 10_001 {
		t.Fatalf("ImportTickets of 10,001 tickets: %v, %v", r, err)
	}

	// adminMaxConcurrentStreams health Watch streams hold the connection's
	// streams; one more call waits until one of them ends.
	hc := healthpb.NewHealthClient(cc)
	wctx, stopWatches := context.WithCancel(ctx)
	defer stopWatches()
	cancels := make([]context.CancelFunc, adminMaxConcurrentStreams)
	for i := range cancels {
		var c context.Context
		c, cancels[i] = context.WithCancel(wctx)
		w, err := hc.Watch(c, &healthpb.HealthCheckRequest{})
		if err == nil {
			_, err = w.Recv() // the server has the stream
		}
		if err != nil {
			t.Fatalf("Watch %d: %v", i, err)
		}
	}
	short, cancelShort := context.WithTimeout(ctx, 500*time.Millisecond)
	_, err = hc.Check(short, &healthpb.HealthCheckRequest{})
	cancelShort()
	if status.Code(err) != codes.DeadlineExceeded {
		t.Errorf("Check beyond %d open streams: %v, want DeadlineExceeded (waiting for a stream)", adminMaxConcurrentStreams, err)
	}
	cancels[0]()
	if _, err := hc.Check(ctx, &healthpb.HealthCheckRequest{}); err != nil {
		t.Errorf("Check once a stream ended: %v", err)
	}
}

// adminClientConn is a new client connection to the admin socket.
func (td *testDaemon) adminClientConn() *grpc.ClientConn {
	td.t.Helper()
	cc, err := grpc.NewClient("unix:"+td.d.Addrs().Admin, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		td.t.Fatal(err)
	}
	td.t.Cleanup(func() { cc.Close() })
	return cc
}

// The "call refused" line carried the key "msg" twice (slog's message and
// the refusal's): {"msg":"call refused",…,"msg":"number: 31 is out of
// range 1..30"}. Now the refusal's is "detail". Every line the daemon logs
// in JSON (rngd's format) has each key once.
func TestLogKeysUnique(t *testing.T) {
	var buf testio.Buffer
	td := newTestDaemon(t, func(c *Config) {
		c.Logger = slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	})
	ctx := context.Background()
	codes1 := td.emission("K1", "2026-12-15", 2)
	a := td.client("server-a")
	g, err := a.StartGame(ctx, &qodv1.StartGameRequest{RequestId: "s1", Code: codes1[0]})
	if err != nil {
		t.Fatal(err)
	}
	_, err = a.Pick(ctx, &qodv1.PickRequest{RequestId: "p0", GameId: g.Game.GameId, Number: 31})
	wantStatus(t, err, codes.InvalidArgument, "31")
	td.stop()

	var refusal map[string]any
	for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		keys, err := topLevelKeys(line)
		if err != nil {
			t.Errorf("log line %q: %v", line, err)
			continue
		}
		seen := map[string]bool{}
		for _, k := range keys {
			if seen[k] {
				t.Errorf("log line with the key %q twice: %s", k, line)
			}
			seen[k] = true
		}
		var v map[string]any
		json.Unmarshal([]byte(line), &v)
		if v["msg"] == "call refused" && v["method"] == "Pick" {
			refusal = v
		}
	}
	if refusal == nil {
		t.Fatalf("no call refused line for Pick:\n%s", buf.String())
	}
	if d, _ := refusal["detail"].(string); !strings.Contains(d, "31") || refusal["reason"] != "NUMBER_RANGE" {
		t.Errorf("call refused line %v: want the refusal's message under detail", refusal)
	}
}

// topLevelKeys are a JSON object's keys in order, repeats included.
func topLevelKeys(line string) ([]string, error) {
	dec := json.NewDecoder(strings.NewReader(line))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, fmt.Errorf("not a JSON object: %v", err)
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil, err
		}
	}
	return keys, nil
}

// tirage_draws_total's help said "(start, pick, decision, end)": no kind
// label takes those values (game_start, game_end), and emission and
// manifest records are counted too. The help names every kind the daemon
// counts, and no record kind it does not; each outcome counted is one the
// help gives for its kind.
func TestDrawsHelp(t *testing.T) {
	td := newTestDaemon(t)
	ctx := context.Background()
	cs := td.emission("D1", "2026-12-15", 40)
	a := td.client("server-a")
	// The kinds and outcomes counted (kind -> outcomes), and the help as
	// /metrics serves it.
	var help string
	seen := func() map[string][]string {
		fams, err := td.d.engine.metrics.reg.Gather()
		if err != nil {
			t.Fatal(err)
		}
		out := map[string][]string{}
		for _, f := range fams {
			if f.GetName() != "tirage_draws_total" {
				continue
			}
			help = f.GetHelp()
			for _, m := range f.GetMetric() {
				out[label(m, "kind")] = append(out[label(m, "kind")], label(m, "outcome"))
			}
		}
		return out
	}
	// Games until one stopped at a tier: a decision and a won end.
	for i := 0; i < len(cs) && len(seen()[string(record.KindDecision)]) == 0; i++ {
		g := start(t, a, cs[i]).Game
		g = playUntil(t, a, g, func(g *qodv1.Game) bool { return g.Status == qodv1.Status_STATUS_AT_TIER })
		if g.Status == qodv1.Status_STATUS_AT_TIER {
			if _, err := a.Decide(ctx, &qodv1.DecideRequest{RequestId: rid(), GameId: g.GameId, Decision: qodv1.Decision_DECISION_STOP}); err != nil {
				t.Fatal(err)
			}
		}
	}
	// A ticket quit (QUITTER): nothing drawn, its outcome empty.
	if _, err := a.Quit(ctx, &qodv1.QuitRequest{RequestId: rid(), Code: cs[len(cs)-1]}); err != nil {
		t.Fatal(err)
	}
	counted := seen()
	for _, k := range []record.Kind{record.KindEmission, record.KindManifest, record.KindGameStart, record.KindTicketQuit, record.KindPick, record.KindDecision, record.KindGameEnd} {
		if len(counted[string(k)]) == 0 {
			t.Fatalf("no %s counted after a game to its end: %v", k, counted)
		}
	}

	word := func(w string) bool { return regexp.MustCompile(`\b` + regexp.QuoteMeta(w) + `\b`).MatchString(help) }
	for kind, outcomes := range counted {
		if !word(kind) {
			t.Errorf("help %q does not name the kind %q, counted", help, kind)
		}
		for _, o := range outcomes {
			switch {
			case kind == string(record.KindGameStart):
				if !regexp.MustCompile(`^x[23]{4}$`).MatchString(o) {
					t.Errorf("game_start outcome %q", o)
				}
			case o == "":
				if kind != string(record.KindEmission) && kind != string(record.KindManifest) && kind != string(record.KindTicketQuit) {
					t.Errorf("kind %s counted with an empty outcome", kind)
				}
			case !word(o):
				t.Errorf("help %q does not name the outcome %q of %s", help, o, kind)
			}
		}
	}
	for _, k := range []record.Kind{record.KindKey, record.KindPromoFreeze, record.KindPromoDraw, record.KindAttestation} {
		if word(string(k)) {
			t.Errorf("help %q names the kind %q, never counted", help, k)
		}
	}
	for _, w := range []string{"start", "end"} { // the old help's, no kind's
		if word(w) {
			t.Errorf("help %q names %q, no kind", help, w)
		}
	}
}

func label(m *dto.Metric, name string) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}
