package rngd

import (
	"errors"
	"fmt"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// The values of the config key scheduling.
const (
	// SchedBatch puts the daemon's threads under SCHED_BATCH (the default).
	SchedBatch = "batch"
	// SchedInherit leaves them under the policy rngd was started with.
	SchedInherit = "inherit"
)

// applyScheduling sets the scheduling policy of the process's threads as
// the config key scheduling says (why: Config.Scheduling), and describes
// the outcome for the banner. With SchedBatch, every thread under
// SCHED_OTHER (the kernel's SCHED_NORMAL) goes under SCHED_BATCH with its
// nice value kept; the threads the Go runtime starts later are cloned from
// these and inherit it. Threads under another policy (a real-time one,
// SCHED_IDLE) were put there by the operator and are left alone. An error
// leaves the daemon serving under the policies it had: this is
// throughput, not safety, and the caller logs it.
func applyScheduling(policy string) (string, error) {
	if policy != SchedBatch {
		return "inherited (scheduling = \"inherit\")", nil
	}
	n, err := setThreadsPolicy(unix.SCHED_NORMAL, unix.SCHED_BATCH)
	if err != nil {
		return fmt.Sprintf("SCHED_BATCH NOT SET, %d threads changed before: %v", n, err), err
	}
	return fmt.Sprintf("SCHED_BATCH (scheduling = \"batch\"; %d threads changed, later ones inherit it)", n), nil
}

// setThreadsPolicy moves every thread of the process under policy from to
// policy to, keeping its nice value, and returns how many it moved. A
// thread started during a pass may have been cloned from one not yet
// moved: passes go on until one moves none.
func setThreadsPolicy(from, to uint32) (int, error) {
	moved := 0
	for range 16 {
		tids, err := threadIDs()
		if err != nil {
			return moved, err
		}
		n := 0
		for _, tid := range tids {
			attr, err := unix.SchedGetAttr(tid, 0)
			if errors.Is(err, unix.ESRCH) {
				continue // the thread has ended
			}
			if err != nil {
				return moved, fmt.Errorf("sched_getattr of thread %d: %w", tid, err)
			}
			if attr.Policy != from {
				continue
			}
			set := unix.SchedAttr{Policy: to, Nice: attr.Nice, Flags: attr.Flags & unix.SCHED_FLAG_RESET_ON_FORK}
			err = unix.SchedSetAttr(tid, &set, 0)
			if errors.Is(err, unix.ESRCH) {
				continue
			}
			if err != nil {
				return moved, fmt.Errorf("sched_setattr of thread %d: %w", tid, err)
			}
			n++
		}
		moved += n
		if n == 0 {
			return moved, nil
		}
	}
	return moved, errors.New("threads kept starting under the old policy")
}

// threadIDs lists the process's threads (/proc/self/task).
func threadIDs() ([]int, error) {
	ents, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return nil, fmt.Errorf("couldn't list the process's threads: %w", err)
	}
	tids := make([]int, 0, len(ents))
	for _, e := range ents {
		if tid, err := strconv.Atoi(e.Name()); err == nil {
			tids = append(tids, tid)
		}
	}
	return tids, nil
}
