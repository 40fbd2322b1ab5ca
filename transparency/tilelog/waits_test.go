package tilelog

import (
	"testing"
	"time"
)

// waits measures each leaf's wait from the check that first saw it, not
// the batch's from the check after the previous checkpoint; it does not
// count a pause of the process; it keeps at most maxMarks marks.
func TestWaits(t *testing.T) {
	const (
		period = 50 * time.Millisecond
		pause  = 500 * time.Millisecond // timeout/2
		marks  = 22                     // timeout/period + 2
	)
	t0 := time.Unix(1_700_000_000, 0)
	at := func(n int) time.Time { return t0.Add(time.Duration(n) * period) }
	type check struct {
		n                     int // time in check periods
		integrated, published uint64
		want                  mark
	}
	for _, tc := range []struct {
		name   string
		pause  time.Duration
		checks []check
	}{
		{"covered", pause, []check{
			{0, 5, 5, mark{}},
			{1, 5, 5, mark{}},
		}},
		{"per leaf", time.Hour, []check{
			// A slow signer: the checkpoint of 10 leaves, begun at 0,
			// is published at 17; leaves 10..19, first seen at 1, still
			// count from there, not from 17.
			{0, 10, 1, mark{10, at(0)}},
			{1, 15, 1, mark{10, at(0)}},
			{2, 20, 1, mark{10, at(0)}},
			{17, 25, 10, mark{15, at(1)}},
			{18, 25, 20, mark{25, at(17)}},
			{19, 25, 25, mark{}},
		}},
		{"pause", pause, []check{
			// Checks end at n (checked below): a gap of 30 periods, past
			// pause, is not counted; one of 8, under it, is.
			{0, 10, 1, mark{10, at(0)}},
			{30, 10, 1, mark{10, at(30)}},
			{38, 12, 1, mark{10, at(30)}},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var w waits
			for _, c := range tc.checks {
				got := w.observe(at(c.n), c.integrated, c.published, tc.pause, marks)
				w.checked = at(c.n)
				if got != c.want {
					t.Fatalf("check at %d (integrated %d, published %d) = %+v, want %+v", c.n, c.integrated, c.published, got, c.want)
				}
			}
		})
	}

	// A full ring merges its two oldest marks, keeping the older time.
	var w waits
	for n := range 3 * marks {
		got := w.observe(at(n), uint64(n+2), 1, pause, marks)
		w.checked = at(n)
		if got.seen != t0 || len(w.marks) > marks {
			t.Fatalf("check %d: oldest %+v, %d marks; want since t0, at most %d", n, got, len(w.marks), marks)
		}
	}
	if got := w.observe(at(3*marks), 0, 3*marks-10, pause, marks); got.seen.IsZero() || got.seen.After(at(3*marks-10)) {
		t.Fatalf("after a partial checkpoint: oldest %+v, want seen no later than when leaf %d was", got, 3*marks-10)
	}
}
