package loadtest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/transparency-dev/tessera/api"
	"github.com/transparency-dev/tessera/api/layout"
	bolt "go.etcd.io/bbolt"
	"google.golang.org/protobuf/proto"

	"tirage.fr/tirage/rngd"
	qodv1 "tirage.fr/tirage/rngd/api/tirage/qod/v1"
	"tirage.fr/tirage/transparency/checkpoint"
	"tirage.fr/tirage/transparency/logtest"
	"tirage.fr/tirage/verifier/cli"
)

// Bounds of the soak run.
const (
	// soakObsoletePartials bounds the partial tiles and bundles a
	// published checkpoint made obsolete. Tessera's collector removes them
	// within a tenth of a second (tilelog's gcInterval), so a sample finds
	// only those of the checkpoint just published: at 300 draws/s those
	// of a bundle and its level-0 tile (0 to 26 files), and, when the
	// checkpoint completes a level-1 tile (every 65,536 leaves), its 255
	// partials too (279 files seen at 65,559 leaves). With tessera's
	// default collection (once a minute) a sample found 996 to 1,971 at
	// that rate (2026-12-04), and past 430 leaves/s (some 350 draws/s)
	// they pile up without bound. Whatever their number, none may be left
	// at the next sample (checkSoak).
	soakObsoletePartials = 1024
	// soakPartials bounds every partial file: the obsolete ones, and up
	// to 255 widths of each of the few resources at the tree's right edge
	// (the entry bundle and a tile per level).
	soakPartials = 4096
	// soakGoroutineSlack and soakFDSlack are how many more goroutines and
	// open files the second half of the run may show than the first.
	soakGoroutineSlack = 32
	soakFDSlack        = 16
	// soakKeepEvery: one answered call in soakKeepEvery is kept whole,
	// and sent again (the same request id) at the next sample and after
	// the restart.
	soakKeepEvery = 97
)

// soakSample is the daemon and its data directory at one time.
type soakSample struct {
	at                 time.Duration // since the load started
	draws, calls       int64         // answered so far: draws (starts, picks); calls (with decisions)
	logSize            uint64        // published checkpoint
	rss, heap          int64         // bytes: VmRSS, go_memstats_heap_inuse_bytes
	rssAnon, rssFile   int64         // bytes: VmRSS's anonymous and file-backed (bbolt's mmap) parts
	goroutines, fds    int
	stateDB, leafDB    int64 // bytes (file size)
	tiles, tilesDisk   int64 // bytes under log/tiles: file sizes, blocks allocated
	tileFiles          int
	partials, obsolete int // partial tiles and bundles under log/tiles: all, made obsolete by the checkpoint
	obsoleteFiles      []string
}

// TestSoak runs the real rngd binary (dev mode, built as make run does) for
// TIRAGE_SOAK (a duration: "20m") at a fixed rate of draws, TIRAGE_SOAK_RATE
// per second (default 300), played as BenchmarkDaemonProcess plays them (64
// game servers' sessions: starts, picks, decisions to continue). It is not
// part of make test:
//
//	TIRAGE_SOAK=20m go test ./rngd/loadtest -run TestSoak -timeout 40m -v
//
// Every 30 s (a quarter of shorter runs) it samples the daemon's RSS, Go
// heap and goroutines (its /metrics), open files (/proc/<pid>/fd), the sizes
// of state.db, log/tiles and log/leafhash/, and the partial tiles and
// bundles under log/tiles, and sends again a sample of the calls answered
// since (one in 97, same request id: the same reply is owed). It checks
// that partial files stay bounded and that those a checkpoint made
// obsolete are gone by the next sample (tessera's garbage collector keeps
// up), that goroutines and open files do not grow, that every
// answered call's record is in the log at the index its receipt gave; it
// measures a graceful stop (SIGTERM) and a restart, sends every kept call
// again after it, and runs the offline audit (rngverify audit --dir) over
// the whole log. It prints the samples as a table.
func TestSoak(t *testing.T) {
	v := os.Getenv("TIRAGE_SOAK")
	if v == "" {
		t.Skip("set TIRAGE_SOAK=<duration> (20m) to run the soak test")
	}
	dur, err := time.ParseDuration(v)
	if err != nil || dur < time.Minute {
		t.Fatalf("TIRAGE_SOAK=%q: want a duration of a minute or more", v)
	}
	pace := 300.0
	if v := os.Getenv("TIRAGE_SOAK_RATE"); v != "" {
		if pace, err = strconv.ParseFloat(v, 64); err != nil || pace <= 0 {
			t.Fatalf("TIRAGE_SOAK_RATE=%q: want draws per second", v)
		}
	}
	const sessions = 64
	every := min(30*time.Second, dur/4)
	target := int64(pace * dur.Seconds())

	bin := daemonBinary(t)
	dir := t.TempDir()
	d := startDaemonIn(t, bin, dir)
	codes := emission(t, d.admin, "SOAK", int(target/5)+2*sessions) // a game is 8 draws or so
	pki := rngd.DevPKI{Dir: filepath.Join(d.data, "dev")}
	conns, hangUp := dial(t, d.grpc, pki, "client", 8)
	vkey := filepath.Join(dir, "log.vkey")
	if err := os.WriteFile(vkey, httpGet(t, "http://"+d.http+"/log/vkey"), 0o600); err != nil {
		t.Fatal(err)
	}

	// What was answered: every record's hash by its log index, and one call
	// in soakKeepEvery whole.
	var (
		mu           sync.Mutex
		records      = map[uint64][sha256.Size]byte{}
		kept         []keptCall
		recordErr    error
		draws, calls atomic.Int64
	)
	onReply := func(req proto.Message, r *qodv1.GameReply) {
		if _, ok := req.(*qodv1.DecideRequest); !ok {
			draws.Add(1)
		}
		n := calls.Add(1)
		mu.Lock()
		defer mu.Unlock()
		for _, rc := range []*qodv1.Receipt{r.Receipt, r.EndReceipt} {
			if rc == nil {
				continue
			}
			h := sha256.Sum256(rc.Record)
			if old, ok := records[rc.LogIndex]; ok && old != h && recordErr == nil {
				recordErr = fmt.Errorf("two records answered at log index %d", rc.LogIndex)
			}
			records[rc.LogIndex] = h
		}
		if r.Receipt == nil && recordErr == nil {
			recordErr = fmt.Errorf("%T %v answered without a receipt", req, req)
		}
		if n%soakKeepEvery == 0 {
			kept = append(kept, keptCall{req: req, reply: r})
		}
	}

	var samples []soakSample
	start := time.Now()
	sample := func() {
		s, err := d.sample(time.Since(start))
		if err != nil {
			t.Errorf("sample: %v", err)
			return
		}
		s.draws, s.calls = draws.Load(), calls.Load()
		samples = append(samples, s)
		t.Logf("%v: %d draws, log %d, RSS %s (anon %s, file %s), heap %s, %d goroutines, %d fds, state.db %s, tiles %s (%d files), leafhash %s, partials %d (obsolete %d)",
			s.at.Round(time.Second), s.draws, s.logSize, mib(s.rss), mib(s.rssAnon), mib(s.rssFile), mib(s.heap), s.goroutines, s.fds, mib(s.stateDB), mib(s.tiles), s.tileFiles, mib(s.leafDB), s.partials, s.obsolete)
	}
	resent := 0
	resend := func(cs []keptCall, c qodv1.QuitteOuDoubleClient) {
		for _, k := range cs {
			if err := k.again(context.Background(), c); err != nil {
				t.Error(err)
			}
		}
		resent += len(cs)
	}
	sample()

	ctx, cancel := context.WithTimeout(context.Background(), dur+dur/4+time.Minute)
	defer cancel()
	ran := make(chan struct{})
	var res Result
	var runErr error
	go func() {
		defer close(ran)
		res, runErr = Run(ctx, Config{Conns: conns, Codes: codes, Sessions: sessions, Draws: target, Rate: pace, RequestPrefix: "soak-", Reply: onReply})
	}()
	tick := time.NewTicker(every)
	done := 0 // kept calls sent again so far
	for running := true; running; {
		select {
		case <-ran:
			running = false
		case <-tick.C:
		}
		sample()
		mu.Lock()
		fresh := kept[done:]
		mu.Unlock()
		resend(fresh, conns[0])
		done += len(fresh)
	}
	tick.Stop()
	if runErr != nil && ctx.Err() == nil {
		t.Fatalf("load: %v", runErr)
	}
	if recordErr != nil {
		t.Error(recordErr)
	}
	t.Logf("load: %d draws (%d picks) in %v: %.0f draws/s, asked %.0f; p50 %v, p99 %v; %d calls answered",
		res.Draws, res.Picks, res.Elapsed.Round(time.Millisecond), res.DrawsPerSecond(), pace, res.P50(), res.P99(), calls.Load())
	if runErr != nil {
		t.Logf("the rate was not sustained: the load was cut after %v (%v)", dur+dur/4+time.Minute, runErr)
	}

	hangUp()
	t0 := time.Now()
	d.stop(t)
	shutdown := time.Since(t0)
	t0 = time.Now()
	d = startDaemonIn(t, bin, dir)
	banner := time.Since(t0)
	conns, _ = dial(t, d.grpc, pki, "client", 1)
	serving := time.Since(t0)
	resend(kept, conns[0])
	d.stop(t)

	tiles := filepath.Join(d.data, "log", "tiles")
	size, err := checkLogged(tiles, records)
	if err != nil {
		t.Error(err)
	}
	t0 = time.Now()
	var out, errs bytes.Buffer
	code := cli.Run(cli.Env{Args: []string{"audit", "--dir", tiles, "--log-key", vkey, "--state", filepath.Join(dir, "rngverify-state.json"), "--quiet"},
		Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errs})
	audit := time.Since(t0)
	if code != cli.ExitOK {
		t.Errorf("rngverify audit --dir %s: exit %d\n%s%s", tiles, code, out.String(), errs.String())
	}

	checkSoak(t, samples)
	t.Logf("samples (sizes in MiB):\n%s", soakTable(samples))
	first, last := samples[0], samples[len(samples)-1]
	per := func(a, b int64) string {
		return fmt.Sprintf("%.0f B/draw", float64(b-a)/float64(max(1, last.draws-first.draws)))
	}
	if st, err := storeUse(filepath.Join(d.data, "state.db")); err != nil {
		t.Error(err)
	} else {
		t.Logf("state.db: %s", st)
	}
	t.Logf("%d draws, %d calls answered, %d records (log of %d leaves, %.2f a draw); RSS %s → %s MiB; state.db %s, tiles %s (%s on disk), leafhash %s",
		last.draws, last.calls, len(records), size, float64(size)/float64(max(1, last.draws)), mib(first.rss), mib(last.rss),
		per(first.stateDB, last.stateDB), per(first.tiles, last.tiles), per(first.tilesDisk, last.tilesDisk), per(first.leafDB, last.leafDB))
	if !t.Failed() {
		t.Logf("every answered call's record in the log at its index; %d kept calls sent again, each answered the same (during the run and after the restart)", resent)
	}
	load := samples[1:]
	span := func(f func(soakSample) int64, unit func(int64) string) string {
		lo, hi := f(load[0]), f(load[0])
		for _, s := range load {
			lo, hi = min(lo, f(s)), max(hi, f(s))
		}
		return unit(lo) + "–" + unit(hi)
	}
	n := func(v int64) string { return strconv.FormatInt(v, 10) }
	t.Logf("under load (MiB): RSS %s (anonymous %s, file-backed %s), heap in use %s; goroutines %s, open files %s; partial files %s, obsolete %s",
		span(func(s soakSample) int64 { return s.rss }, mib), span(func(s soakSample) int64 { return s.rssAnon }, mib),
		span(func(s soakSample) int64 { return s.rssFile }, mib), span(func(s soakSample) int64 { return s.heap }, mib),
		span(func(s soakSample) int64 { return int64(s.goroutines) }, n), span(func(s soakSample) int64 { return int64(s.fds) }, n),
		span(func(s soakSample) int64 { return int64(s.partials) }, n), span(func(s soakSample) int64 { return int64(s.obsolete) }, n))
	t.Logf("SIGTERM to exit: %v; restart: banner after %v, serving after %v; audit of %d leaves: %v", shutdown.Round(time.Millisecond),
		banner.Round(time.Millisecond), serving.Round(time.Millisecond), size, audit.Round(time.Millisecond))
	verdict, _, _ := strings.Cut(out.String(), "\n\n") // before the statistics table
	t.Logf("rngverify audit:\n%s", verdict)
}

// keptCall is an answered call, to be sent again with its request id.
type keptCall struct {
	req   proto.Message
	reply *qodv1.GameReply
}

// again sends the call again and requires the very reply it first got.
func (k keptCall) again(ctx context.Context, c qodv1.QuitteOuDoubleClient) error {
	var r *qodv1.GameReply
	var err error
	switch req := k.req.(type) {
	case *qodv1.StartGameRequest:
		r, err = c.StartGame(ctx, req)
	case *qodv1.PickRequest:
		r, err = c.Pick(ctx, req)
	case *qodv1.DecideRequest:
		r, err = c.Decide(ctx, req)
	default:
		return fmt.Errorf("kept call %T", req)
	}
	if err != nil {
		return fmt.Errorf("%T %v sent again: %w", k.req, k.req, err)
	}
	if !proto.Equal(r, k.reply) {
		return fmt.Errorf("%T %v sent again:\n%v\nfirst answered\n%v", k.req, k.req, r, k.reply)
	}
	return nil
}

// checkSoak checks the samples taken under load: partials bounded, and
// those obsolete at one sample gone at the next; goroutines and open
// files not growing from the first half to the second.
func checkSoak(t *testing.T, samples []soakSample) {
	t.Helper()
	load := samples[1:] // the first is before the load
	if len(load) < 4 {
		t.Errorf("%d samples under load: too few to tell a trend", len(load))
		return
	}
	for i, s := range load {
		if s.obsolete > soakObsoletePartials || s.partials > soakPartials {
			t.Errorf("at %v: %d partial files under log/tiles, %d of them obsolete (below the published size %d): want at most %d and %d (tessera's collector falls behind)",
				s.at.Round(time.Second), s.partials, s.obsolete, s.logSize, soakPartials, soakObsoletePartials)
		}
		if i == 0 {
			continue
		}
		// Obsolete then, obsolete now (the tree only grows): removed
		// meanwhile, unless the collector does not keep up.
		prev := load[i-1]
		before := make(map[string]bool, len(prev.obsoleteFiles))
		for _, p := range prev.obsoleteFiles {
			before[p] = true
		}
		var left []string
		for _, p := range s.obsoleteFiles {
			if before[p] {
				left = append(left, p)
			}
		}
		if len(left) > 0 {
			t.Errorf("at %v: %d partial files obsolete at %v are still under log/tiles, e.g. %s (tessera's collector falls behind)",
				s.at.Round(time.Second), len(left), prev.at.Round(time.Second), left[0])
		}
	}
	half := len(load) / 2
	most := func(ss []soakSample, f func(soakSample) int) int {
		m := 0
		for _, s := range ss {
			m = max(m, f(s))
		}
		return m
	}
	for _, c := range []struct {
		what  string
		f     func(soakSample) int
		slack int
	}{
		{"goroutines", func(s soakSample) int { return s.goroutines }, soakGoroutineSlack},
		{"open files", func(s soakSample) int { return s.fds }, soakFDSlack},
	} {
		if a, b := most(load[:half], c.f), most(load[half:], c.f); b > a+c.slack {
			t.Errorf("%s grow: at most %d in the first half of the run, %d in the second", c.what, a, b)
		}
	}
}

// checkLogged reads the log's entry bundles under tiles up to its
// checkpoint's size and requires every record of records (by log index)
// to be there; it returns the size.
func checkLogged(tiles string, records map[uint64][sha256.Size]byte) (uint64, error) {
	size, err := checkpointSize(tiles)
	if err != nil {
		return 0, err
	}
	found := 0
	for b := uint64(0); b*layout.EntryBundleWidth < size; b++ {
		raw, err := os.ReadFile(filepath.Join(tiles, layout.EntriesPath(b, layout.PartialTileSize(0, b, size))))
		if err != nil {
			return size, err
		}
		var eb api.EntryBundle
		if err := eb.UnmarshalText(raw); err != nil {
			return size, fmt.Errorf("entry bundle %d: %w", b, err)
		}
		for i, e := range eb.Entries {
			idx := b*layout.EntryBundleWidth + uint64(i)
			if h, ok := records[idx]; ok {
				if sha256.Sum256(e) != h {
					return size, fmt.Errorf("log entry %d is not the record answered at that index", idx)
				}
				found++
			}
		}
	}
	if found != len(records) {
		return size, fmt.Errorf("%d of the %d records answered are missing from the log of %d leaves", len(records)-found, len(records), size)
	}
	return size, nil
}

// checkpointSize is the size of the checkpoint published under tiles.
func checkpointSize(tiles string) (uint64, error) {
	raw, err := os.ReadFile(filepath.Join(tiles, layout.CheckpointPath))
	if err != nil {
		return 0, err
	}
	text, _, _ := strings.Cut(string(raw), "\n\n")
	_, size, _, err := checkpoint.ParseText(text + "\n")
	return size, err
}

// sample measures the daemon and its data directory.
func (d *daemon) sample(at time.Duration) (soakSample, error) {
	s := soakSample{at: at}
	pid := d.cmd.Process.Pid
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return s, err
	}
	fields := map[string]*int64{"VmRSS:": &s.rss, "RssAnon:": &s.rssAnon, "RssFile:": &s.rssFile}
	for line := range strings.Lines(string(status)) {
		if f := strings.Fields(line); len(f) == 3 && fields[f[0]] != nil && f[2] == "kB" {
			kb, err := strconv.ParseInt(f[1], 10, 64)
			if err != nil {
				return s, fmt.Errorf("/proc/%d/status: %s: %w", pid, strings.TrimSpace(line), err)
			}
			*fields[f[0]] = kb << 10
		}
	}
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		return s, err
	}
	s.fds = len(fds)
	m, err := d.metrics()
	if err != nil {
		return s, err
	}
	s.heap, s.goroutines = int64(m["go_memstats_heap_inuse_bytes"]), int(m["go_goroutines"])
	if s.stateDB, err = fileSize(filepath.Join(d.data, "state.db")); err != nil {
		return s, err
	}
	logDir := filepath.Join(d.data, "log")
	if s.leafDB, err = dirSize(filepath.Join(logDir, "leafhash")); err != nil {
		return s, err
	}
	tiles := filepath.Join(logDir, "tiles")
	if s.logSize, err = checkpointSize(tiles); err != nil {
		return s, err
	}
	err = filepath.WalkDir(tiles, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			if os.IsNotExist(err) {
				return nil // removed since listed (the collector)
			}
			return err
		}
		fi, err := e.Info()
		if err != nil {
			if os.IsNotExist(err) {
				return nil
			}
			return err
		}
		s.tileFiles++
		s.tiles += fi.Size()
		if st, ok := fi.Sys().(*syscall.Stat_t); ok {
			s.tilesDisk += st.Blocks * 512
		}
		return nil
	})
	if err != nil {
		return s, err
	}
	all, obsolete, err := logtest.Partials(tiles, s.logSize)
	s.partials, s.obsolete, s.obsoleteFiles = len(all), len(obsolete), obsolete
	return s, err
}

// storeUse says how much of the bbolt file at path (closed) its data
// uses: its size, its free pages, and each top-level bucket's keys and
// pages in use.
func storeUse(path string) (string, error) {
	db, err := bolt.Open(path, 0o400, &bolt.Options{ReadOnly: true, Timeout: time.Second})
	if err != nil {
		return "", err
	}
	defer db.Close()
	var b strings.Builder
	err = db.View(func(tx *bolt.Tx) error {
		page := int64(db.Info().PageSize)
		st := db.Stats()
		fmt.Fprintf(&b, "%s MiB, %d pages of %d bytes, %d free (%s MiB)", mib(tx.Size()), tx.Size()/page, page, st.FreePageN+st.PendingPageN, mib(int64(st.FreePageN+st.PendingPageN)*page))
		return tx.ForEach(func(name []byte, bk *bolt.Bucket) error {
			bs := bk.Stats()
			fmt.Fprintf(&b, "; %s: %d keys, %s MiB in use of %s allocated", name, bs.KeyN, mib(int64(bs.LeafInuse+bs.BranchInuse)), mib(int64(bs.LeafAlloc+bs.BranchAlloc)))
			return nil
		})
	})
	return b.String(), err
}

// dirSize is the size of the files directly in directory p (the leaf
// index's runs; one merged away meanwhile is not counted).
func dirSize(p string) (int64, error) {
	des, err := os.ReadDir(p)
	if err != nil {
		return 0, err
	}
	var n int64
	for _, de := range des {
		if fi, err := de.Info(); err == nil {
			n += fi.Size()
		}
	}
	return n, nil
}

func fileSize(p string) (int64, error) {
	fi, err := os.Stat(p)
	if err != nil {
		return 0, err
	}
	return fi.Size(), nil
}

// soakTable is the samples as a table.
func soakTable(samples []soakSample) string {
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "t\tdraws\tdraws/s\tlog size\tRSS\tanon\tfile\theap\tgoroutines\tfds\tstate.db\ttiles\ttiles disk\ttile files\tleafhash\tpartials\tobsolete\t")
	for i, s := range samples {
		rate := 0.0
		if i > 0 {
			p := samples[i-1]
			rate = float64(s.draws-p.draws) / (s.at - p.at).Seconds()
		}
		fmt.Fprintf(w, "%v\t%d\t%.0f\t%d\t%s\t%s\t%s\t%s\t%d\t%d\t%s\t%s\t%s\t%d\t%s\t%d\t%d\t\n", s.at.Round(time.Second), s.draws, rate, s.logSize,
			mib(s.rss), mib(s.rssAnon), mib(s.rssFile), mib(s.heap), s.goroutines, s.fds, mib(s.stateDB), mib(s.tiles), mib(s.tilesDisk), s.tileFiles, mib(s.leafDB), s.partials, s.obsolete)
	}
	w.Flush()
	return b.String()
}

func mib(n int64) string { return fmt.Sprintf("%.1f", float64(n)/(1<<20)) }

// httpGet is the body of a GET that must answer 200.
func httpGet(t *testing.T, url string) []byte {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s %v", url, resp.Status, err)
	}
	return b
}
