package rngd

import (
	"bytes"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"

	"golang.org/x/sys/unix"
)

// policies counts the process's threads by scheduling policy, and returns
// the nice value of thread tid.
func policies(t *testing.T, tid int) (map[uint32]int, int32) {
	t.Helper()
	tids, err := threadIDs()
	if err != nil {
		t.Fatal(err)
	}
	by := map[uint32]int{}
	var nice int32
	for _, id := range tids {
		a, err := unix.SchedGetAttr(id, 0)
		if err != nil {
			continue // ended meanwhile
		}
		by[a.Policy]++
		if id == tid {
			nice = a.Nice
		}
	}
	return by, nice
}

// newThreads makes the Go runtime start more threads: n goroutines locked
// to their threads at once, all alive until the returned func (the
// runtime may give some of them idle threads it had).
func newThreads(n int) (stop func()) {
	var ready sync.WaitGroup
	release := make(chan struct{})
	var done sync.WaitGroup
	ready.Add(n)
	done.Add(n)
	for range n {
		go func() {
			defer done.Done()
			runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
			ready.Done()
			<-release
		}()
	}
	ready.Wait()
	return func() { close(release); done.Wait() }
}

// scheduling = "batch" moves every SCHED_OTHER thread of the process under
// SCHED_BATCH, nice values kept, and threads started afterwards inherit
// it; "inherit" changes nothing. (In a child process, whose threads are
// first put back under SCHED_OTHER: the test process's are left as they
// are.)
func TestApplyScheduling(t *testing.T) {
	if policy := os.Getenv("TIRAGE_SCHED_CHILD"); policy != "" {
		runtime.LockOSThread() // this thread's nice is checked
		tid := unix.Gettid()
		if _, err := setThreadsPolicy(unix.SCHED_BATCH, unix.SCHED_NORMAL); err != nil {
			fmt.Println("error:", err)
			return
		}
		if err := unix.Setpriority(unix.PRIO_PROCESS, tid, 3); err != nil {
			fmt.Println("error:", err)
			return
		}
		before, _ := policies(t, tid)
		desc, err := applyScheduling(policy)
		if err != nil {
			fmt.Println("error:", err)
			return
		}
		after, nice := policies(t, tid)
		stop := newThreads(8)
		later, _ := policies(t, tid)
		stop()
		fmt.Printf("before other=%d batch=%d\n", before[unix.SCHED_NORMAL], before[unix.SCHED_BATCH])
		fmt.Printf("after other=%d batch=%d nice=%d\n", after[unix.SCHED_NORMAL], after[unix.SCHED_BATCH], nice)
		fmt.Printf("later other=%d batch=%d\n", later[unix.SCHED_NORMAL], later[unix.SCHED_BATCH])
		fmt.Printf("banner: %s\n", desc)
		return
	}
	// child runs the test in a child process with the policy and returns
	// its counts: threads under SCHED_OTHER and SCHED_BATCH before the
	// call, after it, and after newThreads(8); the nice value after it;
	// and the banner's description.
	type counts struct{ other, batch int }
	child := func(policy string) (before, after, later counts, nice int, banner string) {
		s := childTest(t, "TestApplyScheduling", "TIRAGE_SCHED_CHILD="+policy)
		if strings.Contains(s, "error: ") && strings.Contains(s, unix.EPERM.Error()) {
			// A sandbox (seccomp, a container) that forbids
			// sched_setattr: the daemon then logs a warning and serves.
			t.Skipf("sched_setattr not permitted here:\n%s", s)
		}
		i, j, k, l := strings.Index(s, "before "), strings.Index(s, "after "), strings.Index(s, "later "), strings.Index(s, "banner: ")
		if i < 0 || j < 0 || k < 0 || l < 0 {
			t.Fatalf("scheduling = %s: child output:\n%s", policy, s)
		}
		n1, _ := fmt.Sscanf(s[i:], "before other=%d batch=%d", &before.other, &before.batch)
		n2, _ := fmt.Sscanf(s[j:], "after other=%d batch=%d nice=%d", &after.other, &after.batch, &nice)
		n3, _ := fmt.Sscanf(s[k:], "later other=%d batch=%d", &later.other, &later.batch)
		if n1+n2+n3 != 7 {
			t.Fatalf("scheduling = %s: child output:\n%s", policy, s)
		}
		banner, _, _ = strings.Cut(s[l+len("banner: "):], "\n")
		return before, after, later, nice, banner
	}

	before, after, later, nice, banner := child(SchedBatch)
	if before.other < 2 || before.batch != 0 {
		t.Fatalf("before the call, want every thread (at least 2) under SCHED_OTHER: %+v", before)
	}
	if after != (counts{0, before.other}) || nice != 3 {
		t.Errorf("scheduling = batch: after the call %+v, nice %d; want {other:0 batch:%d}, nice 3 (kept)", after, nice, before.other)
	}
	if later.other != 0 || later.batch <= before.other {
		t.Errorf("scheduling = batch: after more threads were started %+v; want {other:0 batch:more than %d}", later, before.other)
	}
	if want := fmt.Sprintf("SCHED_BATCH (scheduling = \"batch\"; %d threads changed", before.other); !strings.HasPrefix(banner, want) {
		t.Errorf("scheduling = batch: banner %q, want it to begin %q", banner, want)
	}

	before, after, later, nice, banner = child(SchedInherit)
	if after != before || later.batch != 0 || later.other <= before.other || nice != 3 || !strings.HasPrefix(banner, "inherited") {
		t.Errorf("scheduling = inherit: before %+v, after %+v, after more threads were started %+v, nice %d, banner %q; want every thread left under SCHED_OTHER", before, after, later, nice, banner)
	}
}

// The banner says which scheduling policy the daemon set, and the start's
// log line carries it.
func TestSchedulingBanner(t *testing.T) {
	for policy, want := range map[string]string{
		SchedBatch:   "  scheduling    SCHED_BATCH (scheduling = \"batch\"; ",
		SchedInherit: "  scheduling    inherited (scheduling = \"inherit\")\n",
	} {
		var banner bytes.Buffer
		td := newTestDaemon(t, func(c *Config) { c.Banner = &banner; c.Scheduling = policy })
		if !strings.Contains(banner.String(), want) {
			t.Errorf("scheduling = %q: banner lacks %q:\n%s", policy, want, banner.String())
		}
		if !bytes.Contains(td.logs(), []byte(`msg="rngd started"`)) || !bytes.Contains(td.logs(), []byte(`scheduling=`)) {
			t.Errorf("scheduling = %q: the start's log line lacks it:\n%s", policy, td.logs())
		}
	}
}
