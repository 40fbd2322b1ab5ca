package tilelog

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tirage.fr/tirage/transparency"
)

// An integrated segment is kept as journal/reuse.seg and becomes the next
// segment, the same file written over from its start; the segment it
// follows is cut to its groups; reopened, the journal reads back every
// record and cuts the reused file's older bytes, logged at INFO.
func TestJournalReusesSegment(t *testing.T) {
	dir := t.TempDir()
	j, _, err := openJournal(dir, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	j.maxSegment = 150
	for g := range 4 { // segments 0 and 12, two groups each; 24 next
		if _, err := j.write(journalLeaves(g*6, 6)); err != nil {
			t.Fatal(err)
		}
	}
	old, err := os.Stat(filepath.Join(dir, segmentName(0)))
	if err != nil {
		t.Fatal(err)
	}
	if err := j.trim(24); err != nil {
		t.Fatal(err)
	}
	spare, err := os.Stat(filepath.Join(dir, reuseName))
	if err != nil || !os.SameFile(old, spare) {
		t.Fatalf("segment 0 not kept as %s: %v", reuseName, err)
	}
	if _, err := j.write(journalLeaves(24, 1)); err != nil { // starts segment 24
		t.Fatal(err)
	}
	reused, err := os.Stat(filepath.Join(dir, segmentName(24)))
	if err != nil || !os.SameFile(old, reused) {
		t.Fatalf("segment 24 is not segment 0's file reused: %v", err)
	}
	if reused.Size() != old.Size() {
		t.Fatalf("reused segment is %d bytes, want %d (its old length, written over)", reused.Size(), old.Size())
	}
	if _, err := os.Stat(filepath.Join(dir, reuseName)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("%s still there after its reuse: %v", reuseName, err)
	}
	// Segment 12 integrated is kept in turn; segment 25 reuses it, and
	// segment 24, left, is cut to its group.
	if err := j.trim(24); err != nil {
		t.Fatal(err)
	}
	j.maxSegment = 0
	if _, err := j.write(journalLeaves(25, 1)); err != nil {
		t.Fatal(err)
	}
	j.f.Close() // a crash: close would cut segment 25 to its group
	if fi, err := os.Stat(filepath.Join(dir, segmentName(24))); err != nil || fi.Size() != int64(len(appendGroup(nil, 24, journalLeaves(24, 1)))) {
		t.Fatalf("segment 24 not cut to its group when left: %v, %v", fi, err)
	}

	var buf bytes.Buffer
	j, recs, err := openJournal(dir, 24, slog.New(slog.NewTextHandler(&buf, nil)))
	if err != nil {
		t.Fatal(err)
	}
	j.close()
	checkTail(t, recs, 24, 2)
	if out := buf.String(); !strings.Contains(out, "level=INFO") || !strings.Contains(out, "older groups cut off") ||
		!strings.Contains(out, "segment="+segmentName(25)) || !strings.Contains(out, "index=26") {
		t.Errorf("log of the reused segment's cut = %q, want an INFO naming it and index 26", out)
	}
}

// journalWithSpare returns a journal in dir of three segments of one group
// of n leaves each, the first two integrated and trimmed: segment 0 kept
// as reuse.seg, n deleted, 2n the newest; each write starts a segment.
func journalWithSpare(t *testing.T, dir string, n int) *journal {
	t.Helper()
	j, _, err := openJournal(dir, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	j.maxSegment = 1
	for g := range 3 {
		if _, err := j.write(journalLeaves(g*n, n)); err != nil {
			t.Fatal(err)
		}
	}
	if err := j.trim(uint64(2 * n)); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, reuseName)); err != nil {
		t.Fatalf("segment 0 not kept: %v", err)
	}
	return j
}

// Closed cleanly, the journal cuts a reused newest segment to its groups:
// nothing older is left for the next Open (or an older rngd) to read.
func TestJournalCloseCutsReusedSegment(t *testing.T) {
	dir := t.TempDir()
	j := journalWithSpare(t, dir, 5) // 15 reuses segment 0
	if _, err := j.write(journalLeaves(15, 1)); err != nil {
		t.Fatal(err)
	}
	if err := j.close(); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(dir, segmentName(15)))
	if want := int64(len(appendGroup(nil, 15, journalLeaves(15, 1)))); err != nil || fi.Size() != want {
		t.Fatalf("reused segment 15 closed: %v, %v; want %d bytes", err, fi, want)
	}
	var buf bytes.Buffer
	j, recs, err := openJournal(dir, 15, slog.New(slog.NewTextHandler(&buf, nil)))
	if err != nil {
		t.Fatal(err)
	}
	j.close()
	checkTail(t, recs, 15, 1)
	if buf.Len() > 0 {
		t.Errorf("opening a journal closed cleanly logged %q, want nothing", buf.String())
	}
}

// overlay writes the groups of leaves from index first over the segment
// old, from its start, as a reused segment holds them.
func overlay(old []byte, first uint64, sizes []int) ([]byte, []int) {
	raw := bytes.Clone(old)
	var ends []int
	off := 0
	for _, n := range sizes {
		g := appendGroup(nil, first, journalLeaves(int(first), n))
		if off+len(g) > len(raw) {
			raw = append(raw[:off], g...)
		} else {
			copy(raw[off:], g)
		}
		off += len(g)
		ends = append(ends, off)
		first += uint64(n)
	}
	return raw, ends
}

// Wherever a reused segment's groups end in its older bytes, the newest
// segment parses to its groups and the rest is cut as a torn tail, and so
// is a group torn over the older bytes at any length; groups that outgrow
// the older bytes parse whole.
func TestJournalReusedSegmentParses(t *testing.T) {
	var old []byte
	first := uint64(0)
	for g := range 40 {
		n := g%4 + 1
		old = appendGroup(old, first, journalLeaves(int(first), n))
		first += uint64(n)
	}
	const newFirst = 1000
	for k := range 36 { // groups written over old; the last outgrow it
		sizes := make([]int, k+1)
		for i := range sizes {
			sizes[i] = (i*7)%5 + 1
		}
		raw, ends := overlay(old, newFirst, sizes)
		before, want := 0, 0
		if k > 0 {
			before = ends[k-1]
		}
		for _, n := range sizes[:k] {
			want += n
		}
		// Group k torn: its first cut bytes written, the older ones after.
		for cut := before; cut < min(ends[k], len(old)); cut++ {
			torn := bytes.Clone(raw)
			if len(torn) < len(old) {
				torn = append(torn, old[len(torn):]...)
			}
			torn = append(torn[:cut], old[cut:]...)
			if bytes.Equal(torn[:ends[k]], raw[:ends[k]]) {
				continue // the older bytes left are the same as the group's: it is whole
			}
			recs, _, isTorn, err := parseSegment(torn, newFirst)
			if len(recs) != want || err == nil || !isTorn {
				t.Fatalf("%d groups, the next torn at %d over older bytes: %d records, torn %v, %v; want %d records, a torn tail",
					k, cut, len(recs), isTorn, err, want)
			}
		}
		recs, good, isTorn, err := parseSegment(raw, newFirst)
		if len(recs) != want+sizes[k] || good != ends[k] || (good < len(raw)) != (err != nil) || err != nil && !isTorn {
			t.Fatalf("%d groups over older bytes: %d records, good %d of %d, torn %v, %v", k+1, len(recs), good, len(raw), isTorn, err)
		}
		if k == 35 && good != len(raw) {
			t.Fatalf("the groups did not outgrow the older bytes (%d of %d): make them more", good, len(raw))
		}
		for i, r := range recs {
			if want := fmt.Sprintf("leaf %d", newFirst+i); r.index != newFirst+uint64(i) || string(r.leaf) != want {
				t.Fatalf("record %d = %d %q, want %q", i, r.index, r.leaf, want)
			}
		}
	}
}

// A journal whose newest segment is a reused one, renamed but not yet
// written to (a crash right after), opens with nothing in that segment;
// an older segment with older bytes after its groups is refused.
func TestJournalReusedSegmentCrash(t *testing.T) {
	dir := t.TempDir()
	j := journalWithSpare(t, dir, 2)
	j.close()
	// The crash: reuse.seg renamed to segment 6, nothing written.
	if err := os.Rename(filepath.Join(dir, reuseName), filepath.Join(dir, segmentName(6))); err != nil {
		t.Fatal(err)
	}
	j, recs, err := openJournal(dir, 6, nil)
	if err != nil {
		t.Fatalf("a reused segment renamed, not written: %v", err)
	}
	checkTail(t, recs, 6, 0)
	if first, err := j.write(journalLeaves(6, 1)); err != nil || first != 6 {
		t.Fatalf("write = %d, %v; want 6", first, err)
	}
	j.close()

	// Segment 4, older than 6, with another segment's groups after its own.
	seg4 := filepath.Join(dir, segmentName(4))
	raw, _ := os.ReadFile(seg4)
	stale := appendGroup(nil, 0, journalLeaves(0, 3))
	if err := os.WriteFile(seg4, append(raw, stale...), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := openJournal(dir, 4, nil); !errors.Is(err, transparency.ErrSecurity) {
		t.Fatalf("an older segment with older groups after its own = %v, want ErrSecurity", err)
	}
}
