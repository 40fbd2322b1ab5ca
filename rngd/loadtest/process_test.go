package loadtest

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"tirage.fr/tirage/rngd"
	adminv1 "tirage.fr/tirage/rngd/api/tirage/admin/v1"
	qodv1 "tirage.fr/tirage/rngd/api/tirage/qod/v1"
)

// BenchmarkDaemonProcess is the load test as ghz would run it: the real
// rngd binary (built with -tags tirage_dev, as make run does) in a process
// of its own, in dev mode on a temporary data directory and kernel-chosen
// loopback ports, and the load generator (this package) in the test
// process. Each call starts a fresh daemon, registers an emission with
// TIRAGE_BENCH_TICKETS tickets through the admin socket (default: enough
// for b.N draws), connects 8 mTLS connections with the dev client
// certificate, plays b.N draws with TIRAGE_BENCH_CLIENTS sessions (default
// 256), paced at TIRAGE_BENCH_RATE draws/s when set, then stops the daemon
// with SIGTERM and checks that it drains and exits 0.
//
// Over exactly the measured window it reads the CPU time of the daemon
// process (utime + stime of /proc/<pid>/stat, all its threads) and of this
// process (getrusage RUSAGE_SELF: the load generator; the daemon is a child
// and is not counted). The metrics:
//
//	draws/s, picks/s           throughput seen by the load generator
//	p50-ms, p99-ms, max-ms     latency of a draw call
//	append-mean-ms             mean durable log append (the daemon's /metrics)
//	append-p99-ms              its p99, at most (the upper bound of the
//	                           histogram's bucket that holds it)
//	fsync-mean-ms, fsync-p99-ms the journal's fsyncs (one a group of
//	                           records, every reply waits for one): their
//	                           mean, and their p99 at most (likewise): the
//	                           disk's share of the appends
//	prove-p99-ms               a VRF proof's p99, at most (likewise): a
//	                           proof waits for no file, so a long one is a
//	                           core taken away (the machine's load)
//	pick-mean-ms, pick-p99-ms  a pick in the daemon (tirage_call_seconds
//	                           {method="Pick"}: from the call's start, in
//	                           its worker, to its result): its mean, and
//	                           its p99 at most (likewise); against p99-ms,
//	                           what of a draw's tail is in the daemon's
//	                           handler and what before or after it (the
//	                           transport, both processes' scheduling)
//	daemon-gc-cycles           the daemon's garbage collections in the
//	                           window (its go_gc_duration_seconds_count):
//	                           most of a sustained load's slowest draws
//	                           come with them, and a window too short to
//	                           hold any misses that tail (docs/rngd.md,
//	                           stop 48)
//	daemon-cpu-us/draw         daemon CPU per draw
//	daemon-sys-cpu-us/draw     of which in the kernel (system calls: the
//	                           sockets, the fsyncs and file writes; page
//	                           faults; what interrupts charge to it)
//	loadgen-cpu-us/draw        load generator CPU per draw
//	daemon-draws/s-all-cores   NumCPU · 10⁶ / daemon-cpu-us/draw: the draws
//	                           per second of the daemon with every core its
//	                           own (the game servers elsewhere, as in
//	                           production), to set beside the raw VRF bound
func BenchmarkDaemonProcess(b *testing.B) {
	sessions := 256
	if v, err := strconv.Atoi(os.Getenv("TIRAGE_BENCH_CLIENTS")); err == nil && v > 0 {
		sessions = v
	}
	tickets := b.N/2 + 2*sessions // a game is about six draws; 1 ticket in 7 is skipped
	if v, err := strconv.Atoi(os.Getenv("TIRAGE_BENCH_TICKETS")); err == nil && v > 0 {
		tickets = v
	}
	var pace float64
	if v, err := strconv.ParseFloat(os.Getenv("TIRAGE_BENCH_RATE"), 64); err == nil && v > 0 {
		pace = v
	}
	ctx := context.Background()
	d := startDaemon(b, daemonBinary(b))
	codes := emission(b, d.admin, "BENCH", tickets)
	conns, hangUp := dial(b, d.grpc, rngd.DevPKI{Dir: filepath.Join(d.data, "dev")}, "client", 8)

	w0 := d.window(b)
	cpu0, err := processCPU(d.cmd.Process.Pid)
	if err != nil {
		b.Fatal(err)
	}
	self0 := selfCPU()
	b.ResetTimer()
	r, runErr := Run(ctx, Config{Conns: conns, Codes: codes, Sessions: sessions, Draws: int64(b.N), Rate: pace})
	b.StopTimer()
	self1 := selfCPU()
	cpu1, err := processCPU(d.cmd.Process.Pid)
	if err != nil {
		b.Fatal(err)
	}
	w1 := d.window(b)
	if runErr != nil {
		b.Error(runErr)
	}

	perDraw := func(t time.Duration) float64 { return float64(t.Microseconds()) / math.Max(1, float64(r.Draws)) }
	used := cpu1.sub(cpu0)
	daemonUS := perDraw(used.total())
	b.ReportMetric(r.DrawsPerSecond(), "draws/s")
	b.ReportMetric(r.PicksPerSecond(), "picks/s")
	b.ReportMetric(Milliseconds(r.P50()), "p50-ms")
	b.ReportMetric(Milliseconds(r.P99()), "p99-ms")
	b.ReportMetric(Milliseconds(r.Quantile(1)), "max-ms")
	b.ReportMetric(mean(w0.append, w1.append), "append-mean-ms")
	b.ReportMetric(quantileBound(w0.append, w1.append, 0.99), "append-p99-ms")
	b.ReportMetric(mean(w0.fsync, w1.fsync), "fsync-mean-ms")
	b.ReportMetric(quantileBound(w0.fsync, w1.fsync, 0.99), "fsync-p99-ms")
	b.ReportMetric(quantileBound(w0.prove, w1.prove, 0.99), "prove-p99-ms")
	b.ReportMetric(mean(w0.pick, w1.pick), "pick-mean-ms")
	b.ReportMetric(quantileBound(w0.pick, w1.pick, 0.99), "pick-p99-ms")
	b.ReportMetric(w1.gcCycles-w0.gcCycles, "daemon-gc-cycles")
	b.ReportMetric(daemonUS, "daemon-cpu-us/draw")
	b.ReportMetric(perDraw(used.system), "daemon-sys-cpu-us/draw")
	b.ReportMetric(perDraw(self1-self0), "loadgen-cpu-us/draw")
	if daemonUS > 0 {
		b.ReportMetric(float64(runtime.NumCPU())*1e6/daemonUS, "daemon-draws/s-all-cores")
	}
	hangUp()
	d.stop(b)
	b.Logf("daemon CPU: %v in the window of %v; %v over its whole life (wait4 rusage)", used.total(), r.Elapsed, d.lifeCPU)
}

// BenchmarkDaemonProcessCall is the floor under every draw: the same rngd
// process, connections and sessions as BenchmarkDaemonProcess, each session
// asking GetGame for a game it started, b.N calls in all. A GetGame is a
// unary call over mTLS that the daemon answers from memory: no proof, no
// log append, no store write. Its daemon CPU per call is what the transport
// (gRPC, TLS, the network system calls) and the handler's framing cost
// before a draw does any work of its own. The metrics:
//
//	calls/s                   GetGame calls per second
//	daemon-cpu-us/call        daemon CPU per call
//	daemon-sys-cpu-us/call    of which in the kernel
//	loadgen-cpu-us/call       load generator CPU per call
func BenchmarkDaemonProcessCall(b *testing.B) {
	sessions := 256
	if v, err := strconv.Atoi(os.Getenv("TIRAGE_BENCH_CLIENTS")); err == nil && v > 0 {
		sessions = v
	}
	ctx := context.Background()
	d := startDaemon(b, daemonBinary(b))
	codes := emission(b, d.admin, "CALL", 2*sessions)
	conns, hangUp := dial(b, d.grpc, rngd.DevPKI{Dir: filepath.Join(d.data, "dev")}, "client", 8)
	games := make([]string, sessions)
	for i := range games {
		r, err := conns[i%len(conns)].StartGame(ctx, &qodv1.StartGameRequest{RequestId: fmt.Sprintf("call-%d", i), Code: <-codes})
		if err != nil {
			b.Fatal(err)
		}
		games[i] = r.Game.GameId
	}

	cpu0, err := processCPU(d.cmd.Process.Pid)
	if err != nil {
		b.Fatal(err)
	}
	self0 := selfCPU()
	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	var failed atomic.Pointer[error]
	var next atomic.Int64
	for i := range sessions {
		wg.Go(func() {
			c, req := conns[i%len(conns)], &qodv1.GetGameRequest{GameId: games[i]}
			for next.Add(1) <= int64(b.N) {
				if _, err := c.GetGame(ctx, req); err != nil {
					failed.CompareAndSwap(nil, &err)
					return
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	self1 := selfCPU()
	cpu1, err := processCPU(d.cmd.Process.Pid)
	if err != nil {
		b.Fatal(err)
	}
	if err := failed.Load(); err != nil {
		b.Fatal(*err)
	}
	perCall := func(t time.Duration) float64 { return float64(t.Microseconds()) / float64(b.N) }
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "calls/s")
	used := cpu1.sub(cpu0)
	b.ReportMetric(perCall(used.total()), "daemon-cpu-us/call")
	b.ReportMetric(perCall(used.system), "daemon-sys-cpu-us/call")
	b.ReportMetric(perCall(self1-self0), "loadgen-cpu-us/call")
	hangUp()
	d.stop(b)
}

// build holds the daemon binary, built once per test binary.
var build struct {
	once sync.Once
	dir  string
	bin  string
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if build.dir != "" {
		os.RemoveAll(build.dir)
	}
	os.Exit(code)
}

// daemonBinary builds cmd/rngd with dev mode compiled in. go test puts its
// own go first in PATH.
func daemonBinary(tb testing.TB) string {
	build.once.Do(func() {
		if build.dir, build.err = os.MkdirTemp("", "rngd-loadtest-bin-"); build.err != nil {
			return
		}
		build.bin = filepath.Join(build.dir, "rngd-dev")
		out, err := exec.Command("go", "build", "-tags", "tirage_dev", "-o", build.bin, "tirage.fr/tirage/cmd/rngd").CombinedOutput()
		if err != nil {
			build.err = fmt.Errorf("go build rngd: %w\n%s", err, out)
		}
	})
	if build.err != nil {
		tb.Fatal(build.err)
	}
	return build.bin
}

// daemon is an rngd process.
type daemon struct {
	cmd     *exec.Cmd
	data    string
	logPath string
	grpc    string // host:port of the game servers' listener
	http    string // host:port of /metrics
	admin   string // admin socket path
	done    chan error
	stopped bool
	lifeCPU time.Duration
}

// startDaemon starts bin in dev mode on a fresh data directory, with the
// gRPC and HTTP listeners on ports the kernel picks (the banner says which),
// and waits until it serves.
func startDaemon(tb testing.TB, bin string) *daemon {
	return startDaemonIn(tb, bin, benchDataDir(tb))
}

// benchDataDir is a fresh directory for a benchmark daemon's data: under
// TIRAGE_BENCH_DATA if set, kept (the bench removes that directory when it
// ends), else tb.TempDir, removed when the benchmark run ends. Kept, no
// measured run pays for the removal of the run before it: on ext4 without a
// journal, each file created in a block group skips the inodes freed there
// within the last minute or more (docs/rngd.md, stops 45 and 46).
func benchDataDir(tb testing.TB) string {
	root := os.Getenv("TIRAGE_BENCH_DATA")
	if root == "" {
		return tb.TempDir()
	}
	d, err := os.MkdirTemp(root, "rngd-")
	if err != nil {
		tb.Fatalf("TIRAGE_BENCH_DATA: %v", err)
	}
	return d
}

// startDaemonIn is startDaemon on dir, which may hold a daemon's data
// directory from before (its log is appended to).
func startDaemonIn(tb testing.TB, bin, dir string) *daemon {
	return startDaemonWith(tb, bin, dir, "")
}

// startDaemonWith is startDaemonIn with top, more top-level keys of the
// configuration (before its tables).
func startDaemonWith(tb testing.TB, bin, dir, top string) *daemon {
	d := &daemon{data: filepath.Join(dir, "data"), logPath: filepath.Join(dir, "rngd.log"), done: make(chan error, 1)}
	cfg := filepath.Join(dir, "rngd.toml")
	toml := top + "\n" + fmt.Sprintf("data_dir = %q\ndev = true\n\n[grpc]\nlisten = \"127.0.0.1:0\"\n\n[audit]\nlisten = \"127.0.0.1:0\"\n\n[http]\nlisten = \"127.0.0.1:0\"\n", d.data)
	// TIRAGE_BENCH_TOML: more of the daemon's configuration, its own
	// tables (e.g. "[log]\nbatch_max_age = \"200ms\""), to measure a setting.
	toml += "\n" + os.Getenv("TIRAGE_BENCH_TOML") + "\n"
	if err := os.WriteFile(cfg, []byte(toml), 0o600); err != nil {
		tb.Fatal(err)
	}
	logf, err := os.OpenFile(d.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		tb.Fatal(err)
	}
	d.cmd = exec.Command(bin, "--config", cfg)
	// TIRAGE_BENCH_DAEMON_ENV: VAR=value pairs for the daemon alone (e.g.
	// GOMAXPROCS=2), to measure a runtime setting.
	d.cmd.Env = append(os.Environ(), strings.Fields(os.Getenv("TIRAGE_BENCH_DAEMON_ENV"))...)
	d.cmd.Stderr = logf // slog JSON
	stdout, err := d.cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := d.cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	logf.Close()
	tb.Cleanup(func() {
		if !d.stopped {
			d.cmd.Process.Kill()
			<-d.done
		}
	})

	// The banner names the listeners; the rest of stdout is drained.
	addrs := make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			f := strings.Fields(sc.Text())
			switch {
			case len(f) >= 3 && f[0] == "grpc" && f[1] == "(mTLS)":
				d.grpc = f[2]
			case len(f) >= 2 && f[0] == "http":
				d.http = strings.TrimPrefix(f[1], "http://")
			case len(f) >= 2 && f[0] == "admin":
				d.admin = strings.TrimPrefix(f[1], "unix:")
				addrs <- nil // the banner's last line
				io.Copy(io.Discard, stdout)
				d.done <- d.cmd.Wait()
				return
			}
		}
		addrs <- errors.New("rngd ended its output without a banner")
		d.done <- d.cmd.Wait()
	}()
	select {
	case err = <-addrs:
	case <-time.After(2 * time.Minute):
		err = errors.New("no banner after 2 minutes")
	}
	if err == nil && (d.grpc == "" || d.http == "") {
		err = fmt.Errorf("banner without the listeners (grpc %q, http %q)", d.grpc, d.http)
	}
	if err != nil {
		tb.Fatalf("%v; rngd log:\n%s", err, d.logTail())
	}
	return d
}

// logTail is the end of the daemon's log, for failure messages.
func (d *daemon) logTail() string {
	log, _ := os.ReadFile(d.logPath)
	return string(log[max(0, len(log)-4000):])
}

// stop sends SIGTERM and requires a graceful exit (status 0) within a
// minute, and the drain's INFO line in the log.
func (d *daemon) stop(tb testing.TB) {
	d.terminate(tb)
	if !bytes.Contains([]byte(d.logTail()), []byte(`"msg":"stopped"`)) {
		tb.Errorf("rngd exited 0 without logging its drain; rngd log:\n%s", d.logTail())
	}
}

// terminate sends SIGTERM and requires a graceful exit (status 0) within a
// minute.
func (d *daemon) terminate(tb testing.TB) {
	if err := d.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		tb.Fatal(err)
	}
	var err error
	select {
	case err = <-d.done:
	case <-time.After(time.Minute):
		d.cmd.Process.Kill()
		err = errors.New("no exit a minute after SIGTERM")
		<-d.done
	}
	d.stopped = true
	if ru, ok := d.cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		d.lifeCPU = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	if err != nil {
		tb.Fatalf("rngd after SIGTERM: %v; rngd log:\n%s", err, d.logTail())
	}
}

// emission registers an emission with n demo tickets over the admin socket,
// as rngctl does, and returns the codes of those that draw multipliers
// (every 7th demo ticket is a 50,000 € one, which draws none).
func emission(tb testing.TB, adminSocket, id string, n int) chan string {
	tb.Helper()
	cc, err := grpc.NewClient("unix:"+adminSocket, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		tb.Fatal(err)
	}
	defer cc.Close()
	adm := adminv1.NewAdminClient(cc)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if _, err := adm.CreateEmission(ctx, &adminv1.CreateEmissionRequest{RequestId: "em-" + id, EmissionId: id, ClosureDate: "2099-12-31"}, grpc.WaitForReady(true)); err != nil {
		tb.Fatalf("create emission: %v", err)
	}
	all, tickets := rngd.DemoTickets(id, []byte("loadtest"), n)
	if _, err := rngd.ImportTickets(ctx, adm, "mf-"+id, id, tickets); err != nil {
		tb.Fatalf("import manifest: %v", err)
	}
	codes := make(chan string, len(all))
	for i, c := range all {
		if i%len(rngd.Stakes) != 0 {
			codes <- c
		}
	}
	return codes
}

// dial opens n mTLS connections to addr as the game server name of pki and
// waits until each serves (a health check completes its TLS handshake, so
// that none falls in a measured window). The connections close at the end
// of the test, or earlier by the returned func.
func dial(tb testing.TB, addr string, pki rngd.DevPKI, name string, n int) ([]qodv1.QuitteOuDoubleClient, func()) {
	tb.Helper()
	return dialPlay(tb, addr, pki, name, n, PlayFromEnv())
}

// dialPlay is dial, the game calls on Play streams when play is set.
func dialPlay(tb testing.TB, addr string, pki rngd.DevPKI, name string, n int, play bool) ([]qodv1.QuitteOuDoubleClient, func()) {
	tb.Helper()
	tc, err := rngd.ClientTLS(pki.ClientCert(name), pki.ClientKey(name), pki.CA())
	if err != nil {
		tb.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var out []qodv1.QuitteOuDoubleClient
	var ccs []*grpc.ClientConn
	closeAll := func() {
		for _, cc := range ccs {
			cc.Close()
		}
		ccs = nil
	}
	tb.Cleanup(closeAll)
	for range n {
		cc, err := grpc.NewClient(addr, grpc.WithTransportCredentials(credentials.NewTLS(tc)))
		if err != nil {
			tb.Fatal(err)
		}
		ccs = append(ccs, cc)
		h, err := healthpb.NewHealthClient(cc).Check(ctx, &healthpb.HealthCheckRequest{Service: qodv1.QuitteOuDouble_ServiceDesc.ServiceName}, grpc.WaitForReady(true))
		if err != nil {
			tb.Fatalf("health: %v", err)
		}
		if h.Status != healthpb.HealthCheckResponse_SERVING {
			tb.Fatalf("health: %v", h.Status)
		}
		out = append(out, Client(cc, play))
	}
	return out, closeAll
}

// histogram is a Prometheus histogram of the daemon's /metrics: its sum,
// its count and its cumulative bucket counts by upper bound.
type histogram struct {
	sum, count float64
	buckets    map[float64]float64
}

// window is what BenchmarkDaemonProcess reads of the daemon's /metrics
// at each end of its window, all from one scrape.
type window struct {
	append, prove histogram // tirage_log_append_seconds, tirage_vrf_prove_seconds
	fsync         histogram // tirage_log_journal_fsync_seconds
	pick          histogram // tirage_call_seconds{method="Pick"}
	gcCycles      float64   // garbage collections since the daemon started
}

// window scrapes the daemon's /metrics once.
func (d *daemon) window(b *testing.B) window {
	m, err := d.metrics()
	if err != nil {
		b.Fatal(err)
	}
	gc, ok := m["go_gc_duration_seconds_count"]
	if !ok {
		b.Fatal("/metrics: no go_gc_duration_seconds_count")
	}
	return window{
		append:   histogramOf(b, m, "tirage_log_append_seconds", ""),
		prove:    histogramOf(b, m, "tirage_vrf_prove_seconds", ""),
		fsync:    histogramOf(b, m, "tirage_log_journal_fsync_seconds", ""),
		pick:     histogramOf(b, m, "tirage_call_seconds", `method="Pick"`),
		gcCycles: gc,
	}
}

// histogramOf is the series of histogram name with labels (`method="Pick"`;
// empty: a histogram without labels) of the scraped metrics m.
func histogramOf(b *testing.B, m map[string]float64, name, labels string) histogram {
	series, prefix := "", name+`_bucket{le="`
	if labels != "" {
		series, prefix = "{"+labels+"}", name+`_bucket{`+labels+`,le="`
	}
	h := histogram{sum: m[name+"_sum"+series], count: m[name+"_count"+series], buckets: map[float64]float64{}}
	for k, v := range m {
		le, ok := strings.CutPrefix(k, prefix)
		if !ok {
			continue
		}
		bound, err := strconv.ParseFloat(strings.TrimSuffix(le, `"}`), 64)
		if err != nil {
			b.Fatalf("/metrics: %s: %v", k, err)
		}
		h.buckets[bound] = v
	}
	// A labelled series appears with its first observation: none yet at
	// the window's start is none to subtract.
	if len(h.buckets) == 0 && labels == "" {
		b.Fatalf("/metrics: no histogram %s", name)
	}
	return h
}

// mean is the mean observation between a and z, in milliseconds.
func mean(a, z histogram) float64 {
	return 1000 * (z.sum - a.sum) / math.Max(1, z.count-a.count)
}

// quantileBound is the upper bound, in milliseconds, of the first bucket
// that holds a fraction q of the observations between a and z: the
// quantile is at most that, and above the bucket before (+Inf: past the
// last finite bound, or no observation).
func quantileBound(a, z histogram, q float64) float64 {
	total := z.count - a.count
	for _, bound := range slices.Sorted(maps.Keys(z.buckets)) {
		if total > 0 && z.buckets[bound]-a.buckets[bound] >= q*total {
			return 1000 * bound
		}
	}
	return math.Inf(1)
}

// metrics reads the daemon's /metrics (Prometheus text format): every
// series by its name, labels included as written.
func (d *daemon) metrics() (map[string]float64, error) {
	resp, err := http.Get("http://" + d.http + "/metrics")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("/metrics: %s", resp.Status)
	}
	m := map[string]float64{}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		if i < 0 {
			return nil, fmt.Errorf("/metrics: %q: no value", line)
		}
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			return nil, fmt.Errorf("/metrics: %q: %w", line, err)
		}
		m[line[:i]] = v
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("/metrics: %w", err)
	}
	return m, nil
}

// userHZ is the unit of the CPU times in /proc/<pid>/stat: USER_HZ, which
// Linux fixes at 100 for user space on every architecture, whatever the
// kernel's own tick (sysconf(_SC_CLK_TCK) and `getconf CLK_TCK` return it).
// A reading is thus to 10 ms; over a benchmark window of several CPU seconds
// the error is under 1 %.
const userHZ = 100

// cpuTime is a process's CPU time so far, all threads: in user space, and
// in the kernel on its behalf (system calls, page faults).
type cpuTime struct{ user, system time.Duration }

func (c cpuTime) total() time.Duration { return c.user + c.system }

func (c cpuTime) sub(d cpuTime) cpuTime { return cpuTime{c.user - d.user, c.system - d.system} }

// processCPU is the CPU time a process used so far, from fields 14 (utime)
// and 15 (stime) of /proc/<pid>/stat.
func processCPU(pid int) (cpuTime, error) {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return cpuTime{}, err
	}
	// "pid (comm) state ppid ...": comm may hold spaces, so count after ')'.
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return cpuTime{}, fmt.Errorf("/proc/%d/stat: no ')'", pid)
	}
	f := strings.Fields(string(stat[i+1:]))
	if len(f) < 13 {
		return cpuTime{}, fmt.Errorf("/proc/%d/stat: %d fields after comm", pid, len(f))
	}
	var ticks [2]int64
	for j, s := range f[11:13] { // fields 14 (utime) and 15 (stime); f[0] is field 3
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return cpuTime{}, fmt.Errorf("/proc/%d/stat: %w", pid, err)
		}
		ticks[j] = n
	}
	return cpuTime{time.Duration(ticks[0]) * time.Second / userHZ, time.Duration(ticks[1]) * time.Second / userHZ}, nil
}

// selfCPU is the CPU time (user + system) this process used so far.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		panic(err) // EFAULT or EINVAL only: not with these arguments
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
