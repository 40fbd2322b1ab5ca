package entropy

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"tirage.fr/tirage/internal/peertest"
	"tirage.fr/tirage/rngd/entropy/entropytest"
)

// result is what a Read or Retest run on its own goroutine returned.
type result struct {
	n   int
	err error
}

// await returns the result of an operation the test started, failing the
// test rather than hanging when the generator never answers. (A safety net
// only: no test waits for this time to pass.)
func await(t *testing.T, ch <-chan result, what string) result {
	t.Helper()
	select {
	case r := <-ch:
		return r
	case <-time.After(time.Minute):
		// Not t.Fatal: the generator's lock is held by the hung call, so
		// the test's deferred Close would hang too. Die with the stacks.
		panic(what + " hangs: the read deadline did not fire")
	}
}

func goRead(g *Generator, buf []byte) <-chan result {
	ch := make(chan result, 1)
	go func() {
		n, err := g.Read(buf)
		ch <- result{n, err}
	}()
	return ch
}

func goRetest(g *Generator) <-chan result {
	ch := make(chan result, 1)
	go func() { ch <- result{0, g.Retest(context.Background())} }()
	return ch
}

// expire waits for the k-th timer since armed to be created — the deadline
// of the read of the source that stalls — and advances the injected clock to
// it.
func expire(t *testing.T, c *fakeClock, armed, k int) {
	t.Helper()
	tm := c.awaitTimers(armed + k)
	c.advance(tm.at.Sub(c.Now()))
}

// checkTimeout checks that err refuses the draw because source name timed
// out.
func checkTimeout(t *testing.T, err error, name string) {
	t.Helper()
	var he *HealthError
	if !errors.Is(err, ErrUnhealthy) || !errors.Is(err, ErrTimeout) || !errors.As(err, &he) {
		t.Fatalf("error %v: want ErrUnhealthy, ErrTimeout and a *HealthError", err)
	}
	if he.Source != name || he.Test != TestTimeout {
		t.Fatalf("HealthError source %q test %q, want %q and %q", he.Source, he.Test, name, TestTimeout)
	}
	if want := "entropy source " + name + " timed out"; !strings.Contains(err.Error(), want) {
		t.Fatalf("error %q does not say %q", err, want)
	}
}

// TestStalledSourceRefusesDraws: the only physical source stalls (Read
// blocks). The reseed waits exactly ReadTimeout on the injected clock, then
// the draw is refused with a timeout error naming the source, the alarm
// rises, and the stalled read is never duplicated however many draws and
// retests follow. Once the source answers again, Retest brings it back.
func TestStalledSourceRefusesDraws(t *testing.T) {
	h := newHarness(t, 1, nil)
	src := h.srcs[0]
	t.Cleanup(src.resume)
	buf := make([]byte, 32)
	if _, err := h.g.Read(buf); err != nil {
		t.Fatal(err)
	}
	base := runtime.NumGoroutine()

	src.stall()
	h.clock.advance(DefaultReseedInterval) // the next Read reseeds
	armed := h.clock.timersArmed()
	for i := range buf {
		buf[i] = 0xee
	}
	res := goRead(h.g, buf)
	tm := h.clock.awaitTimers(armed + 1) // faultA is read first
	if d := tm.at.Sub(h.clock.Now()); d != DefaultReadTimeout {
		t.Fatalf("the reseed waits %v for the source, want the default %v", d, DefaultReadTimeout)
	}
	h.clock.advance(DefaultReadTimeout - time.Nanosecond)
	if !h.clock.pending(tm) {
		t.Fatal("the deadline fired early")
	}
	h.clock.advance(time.Nanosecond)
	r := await(t, res, "Read over a stalled source")
	if r.n != 0 {
		t.Errorf("refused Read returned %d bytes", r.n)
	}
	checkTimeout(t, r.err, "faultA")
	if !bytes.Equal(buf, make([]byte, 32)) {
		t.Error("refused Read left bytes in the buffer")
	}
	checkAlarm(t, h.g, "faultA", TestTimeout)
	logs := h.logs.String()
	for _, want := range []string{`"test":"timeout"`, `"entropy_source":"faultA"`, "draws refused until an operator retest"} {
		if !strings.Contains(logs, want) {
			t.Errorf("logs lack %s: %s", want, logs)
		}
	}

	// Many refused draws, some of them concurrent, and retests while the
	// source is still stalled: each retest waits for the one read still
	// outstanding, never starts another.
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 25 {
				if _, err := h.g.Read(make([]byte, 32)); !errors.Is(err, ErrTimeout) {
					t.Errorf("Read while stalled: %v", err)
					return
				}
			}
		})
	}
	wg.Wait()
	for range 20 {
		armed := h.clock.timersArmed()
		res := goRetest(h.g)
		expire(t, h.clock, armed, 1)
		err := await(t, res, "Retest over a stalled source").err
		checkTimeout(t, err, "faultA")
		if !strings.Contains(err.Error(), "has still not returned") {
			t.Errorf("retest error %q does not say the earlier read is still outstanding", err)
		}
	}
	if now, most := src.blockedReads(); now != 1 || most != 1 {
		t.Errorf("reads blocked in the source: %d now, %d at most; want 1 and 1", now, most)
	}
	// 200 refused draws and 20 retests later: the one stalled read, no more.
	// Slack for goroutines of the test that are still exiting.
	if n := runtime.NumGoroutine(); n > base+1+4 {
		t.Errorf("%d goroutines, %d before the stall: a stalled source must hold at most one", n, base)
	}
	if v := metricValue(t, h.g, "tirage_entropy_refused_reads_total"); v != 201 {
		t.Errorf("refused_reads_total = %v, want 201", v)
	}

	// No recovery by itself: the source answers again, time passes.
	src.resume()
	h.clock.advance(time.Hour)
	if _, err := h.g.Read(buf); !errors.Is(err, ErrTimeout) {
		t.Fatalf("recovered without an operator: %v", err)
	}
	// The operator's retest: the stalled read came back; its late samples
	// are dropped and the start-up tests run on fresh ones.
	if err := h.g.Retest(context.Background()); err != nil {
		t.Fatalf("Retest after the source resumed: %v", err)
	}
	if _, err := h.g.Read(buf); err != nil || bytes.Equal(buf, make([]byte, 32)) {
		t.Fatalf("Read after Retest: %v", err)
	}
	if v := metricValue(t, h.g, "tirage_entropy_generator_healthy"); v != 1 {
		t.Errorf("generator_healthy after Retest = %v, want 1", v)
	}
	if v := metricValue(t, h.g, "tirage_entropy_source_healthy", "source", "faultA"); v != 1 {
		t.Errorf("source_healthy{faultA} after Retest = %v, want 1", v)
	}
	if now, _ := src.blockedReads(); now != 0 {
		t.Errorf("%d reads still blocked after resume", now)
	}
}

// TestStalledRedundantSource: with two sources each crediting the
// requirement, one stalling leaves draws going on the other; the stalled
// one is reported as timed out.
func TestStalledRedundantSource(t *testing.T) {
	h := newHarness(t, 2, func(c *Config) { c.PredictionResistance = true; c.ReadTimeout = 5 * time.Second })
	t.Cleanup(h.srcs[1].resume)
	h.srcs[1].stall()
	buf := make([]byte, 32)
	armed := h.clock.timersArmed()
	res := goRead(h.g, buf)
	tm := h.clock.awaitTimers(armed + 2) // faultA's read, then faultB's
	if d := tm.at.Sub(h.clock.Now()); d != 5*time.Second {
		t.Fatalf("deadline %v, want the configured 5s", d)
	}
	h.clock.advance(5 * time.Second)
	if r := await(t, res, "Read"); r.err != nil || r.n != 32 {
		t.Fatalf("one of two sources stalled: Read = %d, %v", r.n, r.err)
	}
	st := h.g.Status()
	if st[0].Failure != nil || st[1].Failure == nil || st[1].Failure.Test != TestTimeout {
		t.Fatalf("status after faultB stalled: %+v", st)
	}
	// faultB is no longer read: the next draws register no deadline for it
	// and never block.
	for range 5 {
		if _, err := h.g.Read(buf); err != nil {
			t.Fatal(err)
		}
	}
	if now, most := h.srcs[1].blockedReads(); now != 1 || most != 1 {
		t.Errorf("reads blocked in faultB: %d now, %d at most; want 1 and 1", now, most)
	}
}

// TestStartupTimeout: a source that stalls before its start-up tests fails
// New with the timeout error (the source is never used).
func TestStartupTimeout(t *testing.T) {
	clock := newFakeClock()
	src := newFaultSource("slow", 1)
	src.stall()
	t.Cleanup(src.resume)
	res := make(chan result, 1)
	go func() {
		g, err := New(Config{Sources: []SourceConfig{{Source: src, MinEntropy: 6}}, Clock: clock.Now, After: clock.After})
		if g != nil {
			g.Close()
		}
		res <- result{0, err}
	}()
	expire(t, clock, 0, 1)
	checkTimeout(t, await(t, res, "New").err, "slow")
}

// newClocked returns a Generator over the one source sc on a fake clock,
// closed at the end of the test.
func newClocked(t *testing.T, sc SourceConfig) (*Generator, *fakeClock) {
	t.Helper()
	clock := newFakeClock()
	g, err := New(Config{Sources: []SourceConfig{sc}, Clock: clock.Now, After: clock.After})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	return g, clock
}

// silentFIFO makes a FIFO whose writer end the test holds open: a reader
// opens it without blocking, and reads block until the test writes.
func silentFIFO(t *testing.T) (path string, w *os.File) {
	t.Helper()
	path = filepath.Join(t.TempDir(), "hwrng")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		peertest.Absent(t, "mkfifo: %v (the FIFO test needs one)", err)
	}
	// O_RDWR never blocks on Linux and counts as a writer.
	w, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return path, w
}

// TestStalledDevice runs the real device source (OpenDevice, the code of
// kind "hwrng") over a FIFO: it delivers the start-up samples and one seed,
// then falls silent, so the reseed's read blocks in the kernel. The draw is
// refused at the deadline; once bytes flow again, Retest restores it, and
// Close does not wait for the device.
func TestStalledDevice(t *testing.T) {
	path, w := silentFIFO(t)
	rng := rand.New(rand.NewChaCha8([32]byte{42}))
	feed := func(n int) {
		t.Helper()
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		if _, err := w.Write(b); err != nil {
			t.Fatal(err)
		}
	}
	const seedBytes = 64 // ⌈384 / 6⌉
	feed(startupSamples + seedBytes)
	g, clock := newClocked(t, SourceConfig{Kind: KindHWRNG, Path: path, MinEntropy: 6})

	clock.advance(DefaultReseedInterval)
	armed := clock.timersArmed()
	res := goRead(g, make([]byte, 32))
	expire(t, clock, armed, 1)
	checkTimeout(t, await(t, res, "Read over a silent device").err, KindHWRNG)

	// Retest while still silent: refused again, and still one read.
	armed = clock.timersArmed()
	res = goRetest(g)
	expire(t, clock, armed, 1)
	checkTimeout(t, await(t, res, "Retest over a silent device").err, KindHWRNG)

	// The device answers again: the abandoned read gets its 64 bytes (then
	// dropped), the retest its 1,024 and the fresh seed 64.
	feed(seedBytes + startupSamples + seedBytes)
	if err := g.Retest(context.Background()); err != nil {
		t.Fatalf("Retest once the device answers: %v", err)
	}
	if _, err := g.Read(make([]byte, 32)); err != nil {
		t.Fatalf("Read after Retest: %v", err)
	}

	// Silent again; Close returns while the read is blocked.
	clock.advance(DefaultReseedInterval)
	armed = clock.timersArmed()
	res = goRead(g, make([]byte, 32))
	expire(t, clock, armed, 1)
	checkTimeout(t, await(t, res, "Read").err, KindHWRNG)
	done := make(chan result, 1)
	go func() { done <- result{0, g.Close()} }()
	if err := await(t, done, "Close with a read blocked in the device").err; err != nil {
		t.Fatal(err)
	}
}

// TestStalledDeviceRealClock: the defaults (time.After) over a device that
// never delivers: New fails with the timeout at a short ReadTimeout.
func TestStalledDeviceRealClock(t *testing.T) {
	path, _ := silentFIFO(t)
	_, err := New(Config{Sources: []SourceConfig{{Kind: KindHWRNG, Path: path, MinEntropy: 6}}, ReadTimeout: 20 * time.Millisecond})
	checkTimeout(t, err, KindHWRNG)
	if !strings.Contains(err.Error(), "no samples within 20ms during start-up tests") {
		t.Errorf("error %q does not give the deadline", err)
	}
}

func TestReadTimeoutConfig(t *testing.T) {
	_, err := New(Config{Sources: []SourceConfig{{Source: newFaultSource("s", 1), MinEntropy: 6}}, ReadTimeout: -time.Second})
	if err == nil || !strings.Contains(err.Error(), "ReadTimeout") {
		t.Errorf("negative ReadTimeout: %v", err)
	}
}

// TestStalledTPM: a real TPM (swtpm) stops answering — the process is
// frozen with SIGSTOP while the Generator runs. The reseed's TPM2_GetRandom
// gets no reply; the draw is refused at the deadline. After SIGCONT the
// TPM answers the command it was holding, and Retest restores the source.
func TestStalledTPM(t *testing.T) {
	addr, proc := entropytest.StartSwtpmProcess(t)
	g, clock := newClocked(t, SourceConfig{Kind: KindTPM, Address: addr, MinEntropy: 4})
	if _, err := g.Read(make([]byte, 32)); err != nil {
		t.Fatal(err)
	}

	if err := proc.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { proc.Signal(syscall.SIGCONT) })
	awaitStopped(t, proc.Pid)
	clock.advance(DefaultReseedInterval)
	armed := clock.timersArmed()
	res := goRead(g, make([]byte, 32))
	expire(t, clock, armed, 1)
	checkTimeout(t, await(t, res, "Read over a frozen TPM").err, KindTPM)

	if err := proc.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	if err := g.Retest(context.Background()); err != nil {
		t.Fatalf("Retest once the TPM answers: %v", err)
	}
	if _, err := g.Read(make([]byte, 32)); err != nil {
		t.Fatalf("Read after Retest: %v", err)
	}
}

// awaitStopped waits until the kernel reports process pid stopped (state T
// in /proc/PID/stat): SIGSTOP is delivered asynchronously.
func awaitStopped(t *testing.T, pid int) {
	t.Helper()
	path := filepath.Join("/proc", strconv.Itoa(pid), "stat")
	for range 100000 {
		b, err := os.ReadFile(path)
		if err != nil {
			peertest.Absent(t, "cannot read %s: %v", path, err)
		}
		// The state follows the command name, which is in parentheses.
		if i := bytes.LastIndexByte(b, ')'); i >= 0 && i+2 < len(b) && b[i+2] == 'T' {
			return
		}
		runtime.Gosched()
	}
	t.Fatalf("process %d did not stop after SIGSTOP", pid)
}

// TestWithReadTimeout: the wrapper for code that reads a source directly.
// Over a FIFO that falls silent, a Read times out; once bytes flow, the next
// Read first lets the stalled read finish and drops its samples, then
// returns fresh ones.
func TestWithReadTimeout(t *testing.T) {
	path, w := silentFIFO(t)
	dev, err := OpenDevice("fifo", path)
	if err != nil {
		t.Fatal(err)
	}
	clock := newFakeClock()
	src := newTimedSource(dev, time.Second, clock.After)
	defer src.Close()
	if src.Name() != "fifo" || !src.Physical() {
		t.Errorf("Name, Physical = %q, %v", src.Name(), src.Physical())
	}
	res := make(chan result, 1)
	go func() {
		n, err := src.Read(make([]byte, 64))
		res <- result{n, err}
	}()
	expire(t, clock, 0, 1)
	r := await(t, res, "Read")
	var he *HealthError
	if r.n != 0 || !errors.Is(r.err, ErrTimeout) || !errors.As(r.err, &he) || he.Source != "fifo" ||
		r.err.Error() != "entropy source fifo timed out: no samples within 1s" {
		t.Fatalf("Read over a silent FIFO = %d, %v", r.n, r.err)
	}
	data := make([]byte, 64+16)
	for i := range data {
		data[i] = byte(i)
	}
	if _, err := w.Write(data); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, 16)
	if n, err := src.Read(got); n != 16 || err != nil || !bytes.Equal(got, data[64:]) {
		t.Fatalf("Read after the FIFO resumed = %d, %v, % x; want the 16 bytes after the 64 the stalled read took", n, err, got)
	}

	// The exported constructor uses the real clock.
	path2, _ := silentFIFO(t)
	dev2, err := OpenDevice("fifo2", path2)
	if err != nil {
		t.Fatal(err)
	}
	src2 := WithReadTimeout(dev2, 10*time.Millisecond)
	defer src2.(io.Closer).Close()
	if _, err := src2.Read(make([]byte, 8)); !errors.Is(err, ErrTimeout) {
		t.Fatalf("WithReadTimeout over a silent FIFO: %v", err)
	}
}

// TestRetestCancelledWhileStalled: an operator who gives up on a retest
// over a stalled source (context cancelled) gets the context's error at
// once; the source stays failed, still with its one outstanding read.
func TestRetestCancelledWhileStalled(t *testing.T) {
	h := newHarness(t, 1, nil)
	src := h.srcs[0]
	t.Cleanup(src.resume)
	src.stall()
	h.clock.advance(DefaultReseedInterval)
	armed := h.clock.timersArmed()
	res := goRead(h.g, make([]byte, 32))
	expire(t, h.clock, armed, 1)
	checkTimeout(t, await(t, res, "Read").err, "faultA")

	ctx, cancel := context.WithCancel(context.Background())
	armed = h.clock.timersArmed()
	done := make(chan result, 1)
	go func() { done <- result{0, h.g.Retest(ctx)} }()
	h.clock.awaitTimers(armed + 1) // the retest waits for faultA
	cancel()
	if err := await(t, done, "cancelled Retest").err; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled Retest: %v", err)
	}
	if st := h.g.Status(); st[0].Failure == nil || st[0].Failure.Test != TestTimeout {
		t.Fatalf("status after a cancelled retest: %+v", st[0])
	}
	if now, most := src.blockedReads(); now != 1 || most != 1 {
		t.Errorf("reads blocked: %d now, %d at most; want 1 and 1", now, most)
	}
	src.resume()
	if err := h.g.Retest(context.Background()); err != nil {
		t.Fatalf("Retest after resume: %v", err)
	}
}
