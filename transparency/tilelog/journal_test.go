package tilelog

import (
	"bytes"
	"context"
	"crypto"
	"crypto/ed25519"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/transparency-dev/tessera"

	"tirage.fr/tirage/transparency"
)

func journalLeaves(from, n int) [][]byte {
	var out [][]byte
	for i := from; i < from+n; i++ {
		out = append(out, fmt.Appendf(nil, "leaf %d", i))
	}
	return out
}

// checkTail checks the records openJournal returned for a log of from
// leaves: each is the leaf written at its index, and n of them, from index
// from on, are not integrated.
func checkTail(t *testing.T, recs []journalRecord, from uint64, n int) {
	t.Helper()
	for _, r := range recs {
		if want := fmt.Sprintf("leaf %d", r.index); string(r.leaf) != want {
			t.Fatalf("record %d = %q, want %q", r.index, r.leaf, want)
		}
	}
	integrated, tail := splitRecords(recs, from)
	if len(tail) != n {
		t.Fatalf("tail has %d records, want %d", len(tail), n)
	}
	for i, r := range tail {
		if r.index != from+uint64(i) {
			t.Fatalf("tail[%d] has index %d, want %d", i, r.index, from+uint64(i))
		}
	}
	for i, r := range integrated {
		if r.index >= from || i > 0 && r.index <= integrated[i-1].index {
			t.Fatalf("integrated records out of order: %d at %d", r.index, i)
		}
	}
}

// Records written come back from the index asked for, across segments;
// integrated segments are deleted but the newest; indices continue.
func TestJournalReopenAndTrim(t *testing.T) {
	dir := t.TempDir()
	j, recs, err := openJournal(dir, 0, nil)
	if err != nil || len(recs) != 0 {
		t.Fatal(recs, err)
	}
	j.maxSegment = 100
	for g := range 5 {
		first, err := j.write(journalLeaves(g*3, 3))
		if err != nil || first != uint64(g*3) {
			t.Fatalf("write group %d = %d, %v", g, first, err)
		}
	}
	if len(j.segs) < 3 {
		t.Fatalf("%d segments, want several", len(j.segs))
	}
	j.close()
	j, recs, err = openJournal(dir, 4, nil)
	if err != nil {
		t.Fatal(err)
	}
	checkTail(t, recs, 4, 11)
	if err := j.trim(15); err != nil {
		t.Fatal(err)
	}
	if len(j.segs) != 1 {
		t.Fatalf("after trim: segments %v, want only the newest", j.segs)
	}
	if first, err := j.write(journalLeaves(15, 1)); err != nil || first != 15 {
		t.Fatalf("write after trim = %d, %v", first, err)
	}
	j.close()
	_, recs, err = openJournal(dir, 15, nil)
	if err != nil {
		t.Fatal(err)
	}
	checkTail(t, recs, 15, 1)
}

// A torn record at the end (never acknowledged) is cut off and its index
// given to the next record; a bad record in an older segment is refused.
func TestJournalTornTailAndCorruption(t *testing.T) {
	dir := t.TempDir()
	j, _, err := openJournal(dir, 7, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := j.write(journalLeaves(7, 2)); err != nil {
		t.Fatal(err)
	}
	seg := filepath.Join(dir, segmentName(j.segs[len(j.segs)-1]))
	j.close()
	good, _ := os.ReadFile(seg)
	if err := os.WriteFile(seg, append(good, []byte("\x00\x00\x00\x00\x00\x00\x00\x09\x00\x00\x00\x10torn")...), 0o600); err != nil {
		t.Fatal(err)
	}
	j, recs, err := openJournal(dir, 7, nil)
	if err != nil {
		t.Fatal(err)
	}
	checkTail(t, recs, 7, 2)
	if first, err := j.write(journalLeaves(9, 1)); err != nil || first != 9 {
		t.Fatalf("write after a torn tail = %d, %v", first, err)
	}
	j.maxSegment = 0 // the next write starts a segment
	if _, err := j.write(journalLeaves(10, 1)); err != nil {
		t.Fatal(err)
	}
	j.close()
	_, recs, err = openJournal(dir, 7, nil)
	if err != nil {
		t.Fatal(err)
	}
	checkTail(t, recs, 7, 4)

	raw, _ := os.ReadFile(seg)
	raw[groupHeader+4] ^= 1 // first leaf of the older segment
	os.WriteFile(seg, raw, 0o600)
	if _, _, err := openJournal(dir, 7, nil); !errors.Is(err, transparency.ErrSecurity) {
		t.Fatalf("openJournal with a corrupt older segment = %v, want ErrSecurity", err)
	}
}

// Cutting a torn tail is logged at WARN, with the segment, where the cut
// is, how many bytes it drops and the first index they held.
func TestJournalTornTailLogged(t *testing.T) {
	dir := t.TempDir()
	j, _, err := openJournal(dir, 7, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := j.write(journalLeaves(7, 2)); err != nil {
		t.Fatal(err)
	}
	name := segmentName(j.segs[len(j.segs)-1])
	j.close()
	good, _ := os.ReadFile(filepath.Join(dir, name))
	torn := appendGroup(nil, 9, journalLeaves(9, 3))
	torn = torn[:len(torn)-5]
	if err := os.WriteFile(filepath.Join(dir, name), append(good, torn...), 0o600); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	j, recs, err := openJournal(dir, 7, slog.New(slog.NewTextHandler(&buf, nil)))
	if err != nil {
		t.Fatal(err)
	}
	j.close()
	checkTail(t, recs, 7, 2)
	out := buf.String()
	for _, want := range []string{
		"level=WARN",
		"segment=" + name,
		fmt.Sprintf("offset=%d", len(good)),
		fmt.Sprintf("bytes=%d", len(torn)),
		"index=9",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("log of the cut = %q, want %q in it", out, want)
		}
	}
	buf.Reset()
	if j, _, err = openJournal(dir, 7, slog.New(slog.NewTextHandler(&buf, nil))); err != nil {
		t.Fatal(err)
	}
	j.close()
	if buf.Len() > 0 {
		t.Errorf("log of a journal without a torn tail = %q, want none", buf.String())
	}
}

// In the newest segment too, a bad group with a group after it is
// corruption (the bad one was synced and acknowledged before the next was
// written); a group cut short at the end of the file is a torn write.
func TestJournalLastSegment(t *testing.T) {
	dir := t.TempDir()
	j, _, err := openJournal(dir, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	j.write(journalLeaves(0, 2))
	j.write(journalLeaves(2, 2))
	seg := filepath.Join(dir, segmentName(0))
	j.close()
	good, _ := os.ReadFile(seg)

	cut := good[:len(good)-3] // the second group's write was cut
	os.WriteFile(seg, cut, 0o600)
	j, recs, err := openJournal(dir, 0, nil)
	if err != nil {
		t.Fatalf("torn last group: %v", err)
	}
	checkTail(t, recs, 0, 2)
	if first, err := j.write(journalLeaves(2, 1)); err != nil || first != 2 {
		t.Fatalf("write after cutting = %d, %v", first, err)
	}
	j.close()

	bad := bytes.Clone(good)
	bad[groupHeader+5] ^= 1 // in the first group's body
	os.WriteFile(seg, bad, 0o600)
	if _, _, err := openJournal(dir, 0, nil); !errors.Is(err, transparency.ErrSecurity) {
		t.Fatalf("a bad first group followed by another = %v, want ErrSecurity", err)
	}
	bad = bytes.Clone(good)
	bad[1] ^= 1 // the first group's header
	os.WriteFile(seg, bad, 0o600)
	if _, _, err := openJournal(dir, 0, nil); !errors.Is(err, transparency.ErrSecurity) {
		t.Fatalf("a bad first header followed by a group = %v, want ErrSecurity", err)
	}
}

// A torn group may hold a leaf whose bytes form a valid group header (a
// record that quotes journal bytes): when the crash lost the group's own
// header but not its body, that header is not a later group, and the torn
// group is cut off instead of the log being refused as corrupt.
func TestJournalTornGroupHoldingHeader(t *testing.T) {
	dir := t.TempDir()
	j, _, err := openJournal(dir, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := j.write(journalLeaves(0, 2)); err != nil {
		t.Fatal(err)
	}
	seg := filepath.Join(dir, segmentName(0))
	j.close()
	good, _ := os.ReadFile(seg)
	// The next group, 2 and 3, whose second leaf holds the header of a
	// group that could follow it (index 4).
	header := appendGroup(nil, 4, journalLeaves(4, 1))[:groupHeader]
	torn := appendGroup(nil, 2, [][]byte{[]byte("leaf 2"), append([]byte("quoting a journal: "), header...)})
	clear(torn[:groupHeader]) // its header's page never reached the disk
	if err := os.WriteFile(seg, append(bytes.Clone(good), torn...), 0o600); err != nil {
		t.Fatal(err)
	}
	j, recs, err := openJournal(dir, 0, nil)
	if err != nil {
		t.Fatalf("torn group holding a group header: %v, want it cut off", err)
	}
	checkTail(t, recs, 0, 2)
	if first, err := j.write(journalLeaves(2, 1)); err != nil || first != 2 {
		t.Fatalf("write after cutting = %d, %v", first, err)
	}
	j.close()

	// A whole group after a bad header is still corruption.
	raw, _ := os.ReadFile(seg)
	raw[1] ^= 1
	os.WriteFile(seg, raw, 0o600)
	if _, _, err := openJournal(dir, 0, nil); !errors.Is(err, transparency.ErrSecurity) {
		t.Fatalf("a bad header followed by a whole group = %v, want ErrSecurity", err)
	}
}

// A journal that ends before the log (leaves integrated, then journaled
// records lost) or starts after it is refused.
func TestJournalGap(t *testing.T) {
	dir := t.TempDir()
	j, _, err := openJournal(dir, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	j.write(journalLeaves(0, 3))
	j.close()
	if _, _, err := openJournal(dir, 5, nil); !errors.Is(err, transparency.ErrSecurity) {
		t.Fatalf("journal ending at 3 for a log of 5 = %v, want ErrSecurity", err)
	}
	dir2 := t.TempDir()
	j, _, _ = openJournal(dir2, 10, nil)
	j.write(journalLeaves(10, 1))
	j.close()
	if _, _, err := openJournal(dir2, 4, nil); !errors.Is(err, transparency.ErrSecurity) {
		t.Fatalf("journal starting at 10 for a log of 4 = %v, want ErrSecurity", err)
	}
}

// FuzzParseSegment: any bytes parse without panic into consecutive records
// from the segment's first index that lie within the input, with a
// reason whenever bytes are left after them.
func FuzzParseSegment(f *testing.F) {
	f.Add([]byte{}, uint16(0))
	for _, n := range []int{1, 3} {
		g := appendGroup(nil, 0, journalLeaves(0, n))
		f.Add(appendGroup(g, uint64(n), journalLeaves(n, 2)), uint16(0))
		f.Add(appendGroup(g, uint64(n), journalLeaves(n, 2)), uint16(1)) // older groups
		reused := appendGroup(nil, 9, journalLeaves(9, 2))
		f.Add(append(reused, g[len(reused)%len(g):]...), uint16(9))
	}
	f.Fuzz(func(t *testing.T, raw []byte, first uint16) {
		recs, good, _, err := parseSegment(raw, uint64(first))
		if good > len(raw) || (good < len(raw)) != (err != nil) {
			t.Fatalf("good %d of %d, %v", good, len(raw), err)
		}
		for i, r := range recs {
			if r.index != uint64(first)+uint64(i) {
				t.Fatalf("record %d has index %d", i, r.index)
			}
		}
	})
}

// Appends wait for tessera when it is maxLag leaves behind the journal: the
// lag never passes maxLag plus one group (at most one leaf per appender).
func TestJournalLag(t *testing.T) {
	const appenders, lag = 64, 16
	l, err := Open(context.Background(), Config{Dir: t.TempDir(), Origin: "example.com/lag", Signers: lagSigners(t), maxLag: lag})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for w := range appenders {
		wg.Go(func() {
			for i := range 20 {
				if _, err := l.Append(context.Background(), fmt.Appendf(nil, "lag %d %d", w, i)); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if l.lagSeen > lag+appenders || l.lagSeen == 0 {
		t.Fatalf("tessera was %d leaves behind the journal, want 1..%d", l.lagSeen, lag+appenders)
	}
}

// maxLag is at least twice BatchMaxSize: with a batch larger than the
// default maxLag, the journal takes a batch and more ahead of tessera
// instead of holding appends at maxLag (which, with a batch still
// gathering until its age ends it, would hold them for that age). Tessera
// is stalled here, so the journal alone acknowledges the appends. A batch
// size over MaxBatchSize is refused.
func TestJournalAheadOfGatheringBatch(t *testing.T) {
	const appenders, each = 100, 100 // 10,000 leaves > maxLag
	release := make(chan struct{})
	l, err := Open(context.Background(), Config{Dir: t.TempDir(), Origin: "example.com/lag", Signers: lagSigners(t),
		BatchMaxSize: 12000, JournalInterval: time.Millisecond, AppendTimeout: 5 * time.Second, wrapAdd: stallUntil(release)})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for w := range appenders {
		wg.Go(func() {
			for i := range each {
				if _, err := l.Append(context.Background(), fmt.Appendf(nil, "gather %d %d", w, i)); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	integrated := l.integrated.Load()
	close(release)
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if integrated != 0 {
		t.Fatalf("%d leaves confirmed integrated while tessera was stalled", integrated)
	}
	if l.lagSeen < appenders*each {
		t.Fatalf("the journal was at most %d leaves ahead of tessera, want %d", l.lagSeen, appenders*each)
	}
	_, err = Open(context.Background(), Config{Dir: t.TempDir(), Origin: "example.com/lag", Signers: lagSigners(t), BatchMaxSize: MaxBatchSize + 1})
	if err == nil || !strings.Contains(err.Error(), "BatchMaxSize") {
		t.Fatalf("Open with BatchMaxSize %d: %v, want refused", MaxBatchSize+1, err)
	}
}

func lagSigners(t testing.TB) []crypto.Signer {
	_, k, err := ed25519.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	return []crypto.Signer{k}
}

// A segment deleted by trim may reappear after a crash (its deletion not
// durable) next to a gap where later, deleted, segments were: when every
// leaf of the gap is integrated, the journal opens and the segment is
// deleted again; a gap above the integrated size is still refused.
func TestJournalReappearedSegment(t *testing.T) {
	dir := t.TempDir()
	j, _, err := openJournal(dir, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	j.maxSegment = 1 // a segment per write
	for g := range 4 {
		if _, err := j.write(journalLeaves(g*3, 3)); err != nil {
			t.Fatal(err)
		}
	}
	if !slices.Equal(j.segs, []uint64{0, 3, 6, 9}) {
		t.Fatalf("segments %v, want [0 3 6 9]", j.segs)
	}
	saved := make(map[uint64][]byte)
	for _, first := range j.segs[:3] {
		if saved[first], err = os.ReadFile(filepath.Join(dir, segmentName(first))); err != nil {
			t.Fatal(err)
		}
	}
	if err := j.trim(9); err != nil {
		t.Fatal(err)
	}
	j.close()
	reappear := func(firsts ...uint64) {
		t.Helper()
		for _, first := range []uint64{0, 3, 6} {
			os.Remove(filepath.Join(dir, segmentName(first)))
		}
		for _, first := range firsts {
			if err := os.WriteFile(filepath.Join(dir, segmentName(first)), saved[first], 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}

	for _, firsts := range [][]uint64{{0}, {3}, {0, 3}, {0, 6}} {
		reappear(firsts...)
		for _, from := range []uint64{9, 11} {
			j, recs, err := openJournal(dir, from, nil)
			if err != nil {
				t.Fatalf("segments %v reappeared, log of %d leaves: %v", firsts, from, err)
			}
			checkTail(t, recs, from, 12-int(from))
			j.close()
		}
	}

	// Written to, the journal deletes the reappeared segments.
	reappear(0, 6)
	j, _, err = openJournal(dir, 12, nil)
	if err != nil {
		t.Fatal(err)
	}
	if first, err := j.write(journalLeaves(12, 1)); err != nil || first != 12 {
		t.Fatalf("write = %d, %v; want 12", first, err)
	}
	if err := j.trim(12); err != nil {
		t.Fatal(err)
	}
	j.close()
	for _, first := range []uint64{0, 6} {
		if _, err := os.Stat(filepath.Join(dir, segmentName(first))); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("reappeared segment %d not deleted: %v", first, err)
		}
	}

	// Leaves of the gap not integrated: lost, refused.
	reappear(0)
	for _, from := range []uint64{2, 3, 8} {
		if _, _, err := openJournal(dir, from, nil); !errors.Is(err, transparency.ErrSecurity) {
			t.Fatalf("gap after segment 0 in a journal for a log of %d leaves = %v, want ErrSecurity", from, err)
		}
	}
	// Overlapping segments are refused.
	reappear(0)
	raw := appendGroup(nil, 2, journalLeaves(2, 7)) // 2..8, overlaps segment 0
	if err := os.WriteFile(filepath.Join(dir, segmentName(2)), raw, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := openJournal(dir, 9, nil); !errors.Is(err, transparency.ErrSecurity) {
		t.Fatalf("overlapping segments = %v, want ErrSecurity", err)
	}
}

// stallUntil wraps tessera's Add (Config.wrapAdd): the leaves are added,
// but none is confirmed integrated until release is closed (a hung disk).
func stallUntil(release <-chan struct{}) func(tessera.AddFn) tessera.AddFn {
	return func(add tessera.AddFn) tessera.AddFn {
		return func(ctx context.Context, e *tessera.Entry) tessera.IndexFuture {
			f := add(ctx, e)
			return func() (tessera.Index, error) {
				<-release
				return f()
			}
		}
	}
}

// Tessera stalls (a hung disk): once the journal is maxLag leaves ahead,
// appends cannot be journaled. Callers without a deadline (rngd's) must
// still get ErrUnavailable after AppendTimeout — a refused, counted draw —
// and a caller whose context ends gets ErrUnavailable too (the contract of
// transparency.Log.Append), not a bare context error.
func TestAppendTesseraStalled(t *testing.T) {
	release, released := make(chan struct{}), false
	stall := stallUntil(release)
	const lag = 4
	l, err := Open(context.Background(), Config{Dir: t.TempDir(), Origin: "example.com/stall", Signers: lagSigners(t),
		maxLag: lag, wrapAdd: stall, AppendTimeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if !released {
			close(release)
		}
		l.Close()
	}()
	for i := range lag {
		if _, err := l.Append(context.Background(), fmt.Appendf(nil, "journaled %d", i)); err != nil {
			t.Fatal(err)
		}
	}
	// A caller's deadline refuses its own append only.
	if err := l.Health(); err != nil {
		t.Fatalf("Health = %v before any failure", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := l.Append(ctx, []byte("stalled, with a deadline")); !errors.Is(err, transparency.ErrUnavailable) || !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, transparency.ErrNotAppended) {
		t.Fatalf("Append past its deadline: err = %v, want ErrUnavailable wrapping DeadlineExceeded, not ErrNotAppended (queued, it may be journaled yet)", err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := l.Append(context.Background(), []byte("stalled"))
		done <- err
	}()
	select {
	case err := <-done:
		// ErrNotAppended too when journalLoop, woken by the failure,
		// refused it unwritten before the timeout woke it (the leaf of a
		// write under way is never refused: TestAppendJournalWriteStalled).
		if !errors.Is(err, transparency.ErrUnavailable) {
			t.Fatalf("Append with tessera stalled: err = %v, want ErrUnavailable", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Append with tessera stalled still waits after 10 s (AppendTimeout 200 ms)")
	}
	if s := l.Stats(); s.Failures != 2 {
		t.Fatalf("Stats = %+v, want the two refused appends counted", s)
	}
	if err := l.Health(); !errors.Is(err, transparency.ErrUnavailable) {
		t.Fatalf("Health after a timed-out append = %v, want the log failed closed", err)
	}
	// The timed-out leaf may yet be journaled: nothing may follow it
	// until the log is reopened, even once tessera is back.
	close(release)
	released = true
	if _, err := l.Append(context.Background(), []byte("after the stall")); !errors.Is(err, transparency.ErrUnavailable) {
		t.Fatalf("Append after a timed-out append: err = %v, want the log failed closed", err)
	}
}

// The journal's write hangs (a hung disk) with a leaf in it: its Append,
// without a deadline, must end after AppendTimeout with ErrUnavailable and
// never ErrNotAppended, since the write may yet land; the log fails closed.
func TestAppendJournalWriteStalled(t *testing.T) {
	hold, writing, release := holdFirstWrite()
	const timeout = 200 * time.Millisecond
	l, err := Open(context.Background(), Config{Dir: t.TempDir(), Origin: "example.com/hung", Signers: lagSigners(t), AppendTimeout: timeout,
		beforeWrite: hold})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	defer close(release)
	done := make(chan error, 1)
	go func() {
		_, err := l.Append(context.Background(), []byte("in a hung write"))
		done <- err
	}()
	<-writing
	select {
	case err := <-done:
		if !errors.Is(err, transparency.ErrUnavailable) || errors.Is(err, transparency.ErrNotAppended) {
			t.Fatalf("Append in a hung journal write: err = %v, want ErrUnavailable, not ErrNotAppended (the write may land)", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("Append in a hung journal write still waits after 10 s (AppendTimeout %v)", timeout)
	}
	if err := l.Health(); !errors.Is(err, transparency.ErrUnavailable) {
		t.Fatalf("Health after a hung journal write = %v, want the log failed closed", err)
	}
}

// Tessera stalls and every caller gives up before AppendTimeout (a
// deadline of its own): the log must still fail closed once an append has
// waited AppendTimeout unanswered, so that a stall raises the alarm
// (Health) and later appends are refused at once, not each after its
// caller's deadline, while the stalled leaf may yet be journaled.
func TestAppendTimeoutWithoutWaiters(t *testing.T) {
	release := make(chan struct{})
	stall := stallUntil(release)
	const lag, timeout = 2, 200 * time.Millisecond
	l, err := Open(context.Background(), Config{Dir: t.TempDir(), Origin: "example.com/stall", Signers: lagSigners(t),
		maxLag: lag, wrapAdd: stall, AppendTimeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		close(release)
		l.Close()
	}()
	for i := range lag {
		if _, err := l.Append(context.Background(), fmt.Appendf(nil, "journaled %d", i)); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := l.Append(ctx, []byte("stalled, its caller gone")); !errors.Is(err, transparency.ErrUnavailable) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Append past its deadline: err = %v, want ErrUnavailable wrapping DeadlineExceeded", err)
	}
	if err := l.Health(); err != nil {
		t.Fatalf("Health = %v right after a caller's deadline, want nil (only AppendTimeout fails the log)", err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for l.Health() == nil {
		if time.Now().After(deadline) {
			t.Fatalf("Health still nil 10 s after an append stalled unanswered (AppendTimeout %v)", timeout)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := l.Health(); !errors.Is(err, transparency.ErrUnavailable) || !strings.Contains(err.Error(), "not journaled within 200ms") {
		t.Fatalf("Health after the stall = %v, want ErrUnavailable naming the timeout", err)
	}
	start := time.Now()
	if _, err := l.Append(context.Background(), []byte("after the stall")); !errors.Is(err, transparency.ErrUnavailable) {
		t.Fatalf("Append after the stall: err = %v, want the log failed closed", err)
	}
	if d := time.Since(start); d > timeout/2 {
		t.Fatalf("Append after the stall took %v, want it refused at once", d)
	}
}

// Tessera stalls for good (a hung disk) with acknowledged leaves journaled
// but not integrated: Close must still return, within its bound, with the
// journal closed; the next Open, with tessera back, integrates them, each
// at the index it was acknowledged with.
func TestCloseTesseraStalled(t *testing.T) {
	dir, signers := t.TempDir(), lagSigners(t)
	var stalled atomic.Bool
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	// A stalled tessera takes nothing in and resolves nothing, whatever
	// its context (until the test ends).
	stall := func(add tessera.AddFn) tessera.AddFn {
		return func(ctx context.Context, e *tessera.Entry) tessera.IndexFuture {
			if !stalled.Load() {
				return add(ctx, e)
			}
			return func() (tessera.Index, error) {
				<-release
				return tessera.Index{}, errors.New("tessera stalled")
			}
		}
	}
	const closeTimeout = 300 * time.Millisecond
	l, err := Open(context.Background(), Config{Dir: dir, Origin: "example.com/close", Signers: signers,
		wrapAdd: stall, closeTimeout: closeTimeout})
	if err != nil {
		t.Fatal(err)
	}
	var acked [][]byte
	appendLeaf := func(l *Log, leaf []byte) {
		t.Helper()
		idx, err := l.Append(context.Background(), leaf)
		if err != nil || idx != uint64(len(acked)) {
			t.Fatalf("Append(%q) = %d, %v; want %d", leaf, idx, err, len(acked))
		}
		acked = append(acked, leaf)
	}
	for i := range 5 {
		appendLeaf(l, fmt.Appendf(nil, "integrated %d", i))
	}
	// Those are in the tree before tessera stalls.
	if _, err := l.AwaitCheckpoint(t.Context(), 5); err != nil {
		t.Fatal(err)
	}
	stalled.Store(true)
	for i := range 3 {
		appendLeaf(l, fmt.Appendf(nil, "journaled only %d", i))
	}

	start := time.Now()
	done := make(chan error, 1)
	go func() { done <- l.Close() }()
	select {
	case err := <-done:
		if !errors.Is(err, transparency.ErrUnavailable) {
			t.Fatalf("Close with tessera stalled = %v, want ErrUnavailable (leaves left to the next Open)", err)
		}
		t.Logf("Close returned after %v", time.Since(start))
	case <-time.After(10 * time.Second):
		t.Fatalf("Close with tessera stalled still waits after 10 s (bound %v)", closeTimeout)
	}
	if _, err := l.Append(context.Background(), []byte("after Close")); !errors.Is(err, transparency.ErrClosed) || !errors.Is(err, transparency.ErrNotAppended) {
		t.Fatalf("Append after Close = %v, want ErrClosed and ErrNotAppended", err)
	}

	// Reopened (the directory lock was released), tessera back.
	l, err = Open(context.Background(), Config{Dir: dir, Origin: "example.com/close", Signers: signers})
	if err != nil {
		t.Fatalf("reopen after a stalled Close: %v", err)
	}
	defer l.Close()
	if n := l.Sequenced(); n != uint64(len(acked)) {
		t.Fatalf("reopened journal holds %d leaves, want the %d acknowledged", n, len(acked))
	}
	cp, err := l.AwaitCheckpoint(t.Context(), uint64(len(acked)))
	if err != nil {
		t.Fatal(err)
	}
	got, err := l.Entries(t.Context(), 0, uint64(len(acked)), cp.Size)
	if err != nil {
		t.Fatal(err)
	}
	for i := range acked {
		if !bytes.Equal(got[i], acked[i]) {
			t.Fatalf("leaf %d = %q, want %q", i, got[i], acked[i])
		}
	}
	appendLeaf(l, []byte("after reopening"))
}

// An append that timed out while journalLoop waited for a stalled tessera
// (maxLag) was told its leaf was not journaled: the log failed closed, and
// the batch journalLoop held is refused, not journaled once the wait ends.
// Reopened, the log holds the acknowledged leaves only, and the next leaf
// takes the timed-out one's index.
func TestAppendTimedOutNotJournaled(t *testing.T) {
	dir, signers := t.TempDir(), lagSigners(t)
	release := make(chan struct{})
	var once sync.Once
	unstall := func() { once.Do(func() { close(release) }) }
	t.Cleanup(unstall)
	stall := stallUntil(release)
	const lag = 4
	l, err := Open(context.Background(), Config{Dir: dir, Origin: "example.com/timedout", Signers: signers,
		maxLag: lag, wrapAdd: stall, AppendTimeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	var acked [][]byte
	for i := range lag {
		leaf := fmt.Appendf(nil, "journaled %d", i)
		if _, err := l.Append(context.Background(), leaf); err != nil {
			t.Fatal(err)
		}
		acked = append(acked, leaf)
	}
	if _, err := l.Append(context.Background(), []byte("timed out")); !errors.Is(err, transparency.ErrUnavailable) {
		t.Fatalf("Append with tessera stalled: err = %v, want ErrUnavailable", err)
	}
	if err := l.Health(); err == nil {
		t.Fatal("Health = nil after a timed-out append")
	}
	unstall()
	l.Close() // the pipeline failed: its error is expected
	l, err = Open(context.Background(), Config{Dir: dir, Origin: "example.com/timedout", Signers: signers})
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	defer l.Close()
	if n := l.Sequenced(); n != lag {
		t.Fatalf("reopened journal holds %d leaves, want the %d acknowledged (the timed-out leaf was journaled)", n, lag)
	}
	idx, err := l.Append(context.Background(), []byte("after reopening"))
	if err != nil || idx != lag {
		t.Fatalf("Append after reopening = %d, %v; want %d", idx, err, lag)
	}
	acked = append(acked, []byte("after reopening"))
	cp, err := l.AwaitCheckpoint(t.Context(), uint64(len(acked)))
	if err != nil {
		t.Fatal(err)
	}
	got, err := l.Entries(t.Context(), 0, uint64(len(acked)), cp.Size)
	if err != nil {
		t.Fatal(err)
	}
	for i := range acked {
		if i >= len(got) || !bytes.Equal(got[i], acked[i]) {
			t.Fatalf("leaves %q, want %q", got, acked)
		}
	}
}

// Tessera gets one batch at a time: no leaf is added while an earlier one
// is unconfirmed, so no tessera flush can overtake another (its queue hands
// timer-flushed batches to storage after unlocking) and give a leaf another
// index than the journal's.
func TestTesseraOneBatchAtATime(t *testing.T) {
	release, released := make(chan struct{}), false
	var adds atomic.Int32
	hold := func(add tessera.AddFn) tessera.AddFn {
		return func(ctx context.Context, e *tessera.Entry) tessera.IndexFuture {
			adds.Add(1)
			f := add(ctx, e)
			return func() (tessera.Index, error) {
				<-release
				return f()
			}
		}
	}
	l, err := Open(context.Background(), Config{Dir: t.TempDir(), Origin: "example.com/order", Signers: lagSigners(t), wrapAdd: hold})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if !released {
			close(release)
		}
		l.Close()
	}()
	if _, err := l.Append(context.Background(), []byte("first")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return adds.Load() == 1 })
	// Journaled (acknowledged) while the first is unconfirmed: not handed
	// to tessera yet.
	if i, err := l.Append(context.Background(), []byte("second")); err != nil || i != 1 {
		t.Fatalf("second append: %d %v", i, err)
	}
	time.Sleep(200 * time.Millisecond)
	if n := adds.Load(); n != 1 {
		t.Fatalf("%d leaves handed to tessera while the first was unconfirmed, want 1", n)
	}
	close(release)
	released = true
	waitFor(t, func() bool { return adds.Load() == 2 })
	if _, err := l.AwaitCheckpoint(context.Background(), 2); err != nil {
		t.Fatal(err)
	}
}

// The leaves journaled while tessera holds a batch are handed to it, once
// that batch is confirmed, a batch (BatchMaxSize) at a time: more at once
// would make tessera flush one batch by size while the rest waits for its
// timer, two batches in tessera.
func TestTesseraRoundInBatches(t *testing.T) {
	const batch, later = 4, 10
	release := make(chan struct{})
	var held atomic.Bool
	var added, confirmed, most atomic.Int64
	count := func(add tessera.AddFn) tessera.AddFn {
		return func(ctx context.Context, e *tessera.Entry) tessera.IndexFuture {
			if n := added.Add(1) - confirmed.Load(); n > most.Load() {
				most.Store(n)
			}
			first := held.CompareAndSwap(false, true)
			f := add(ctx, e)
			return func() (tessera.Index, error) {
				if first {
					<-release
				}
				idx, err := f()
				confirmed.Add(1)
				return idx, err
			}
		}
	}
	l, err := Open(context.Background(), Config{Dir: t.TempDir(), Origin: "example.com/rounds", Signers: lagSigners(t), BatchMaxSize: batch, wrapAdd: count})
	if err != nil {
		close(release)
		t.Fatal(err)
	}
	defer l.Close()
	if _, err := l.Append(context.Background(), []byte("first")); err != nil {
		close(release)
		t.Fatal(err)
	}
	waitFor(t, func() bool { return added.Load() == 1 })
	for i := range later {
		if _, err := l.Append(context.Background(), fmt.Appendf(nil, "later %d", i)); err != nil {
			close(release)
			t.Fatal(err)
		}
	}
	close(release)
	if _, err := l.AwaitCheckpoint(context.Background(), 1+later); err != nil {
		t.Fatal(err)
	}
	if n := most.Load(); n > batch {
		t.Errorf("%d leaves in tessera at once, want at most a batch (%d)", n, batch)
	}
}

// waitFor polls cond for up to 10 s.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 10 s")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// mkdirAll creates missing parents too, and accepts an existing directory.
func TestMkdirAll(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data", "log", journalDir)
	for range 2 {
		if err := mkdirAll(dir); err != nil {
			t.Fatal(err)
		}
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			t.Fatalf("after mkdirAll, %s: %v", dir, err)
		}
	}
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := mkdirAll(filepath.Join(file, "log")); err == nil {
		t.Fatal("mkdirAll under a file succeeded")
	}
}

// journalGroups returns the leaf count of every group in the journal of the
// log in dir, in order.
func journalGroups(t *testing.T, dir string) []uint32 {
	t.Helper()
	segs, err := filepath.Glob(filepath.Join(dir, journalDir, "*"+journalExt))
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(segs)
	var counts []uint32
	for _, seg := range segs {
		raw, err := os.ReadFile(seg)
		if err != nil {
			t.Fatal(err)
		}
		for off := 0; off < len(raw); {
			h, ok := parseHead(raw[off:])
			if !ok {
				t.Fatalf("%s: no group header at offset %d", seg, off)
			}
			counts = append(counts, h.count)
			off += groupHeader + int(h.length)
		}
	}
	return counts
}

// holdFirstWrite returns a Config.beforeWrite that holds the journal's
// first group before its write: writing is closed once it is held, and
// closing release lets the write go on.
func holdFirstWrite() (hold func(), writing, release chan struct{}) {
	writing, release = make(chan struct{}), make(chan struct{})
	var held atomic.Bool
	return func() {
		if held.CompareAndSwap(false, true) {
			close(writing)
			<-release
		}
	}, writing, release
}

// appender returns a func that appends a leaf to l in the background, in
// wg, failing t if the append fails.
func appender(t *testing.T, l *Log, wg *sync.WaitGroup) func(leaf string) {
	return func(leaf string) {
		wg.Go(func() {
			if _, err := l.Append(context.Background(), []byte(leaf)); err != nil {
				t.Error(err)
			}
		})
	}
}

// spaceNext has l's journal space its next group: a first append, held in
// its write (holdFirstWrite's writing and release), and one arriving
// meanwhile, after which the write goes on. Appends made next wait with
// the second for the journal interval.
func spaceNext(t *testing.T, l *Log, writing, release chan struct{}, appendOne func(string)) {
	t.Helper()
	appendOne("first")
	<-writing
	appendOne("during")
	waitFor(t, func() bool {
		l.pmu.Lock()
		defer l.pmu.Unlock()
		return len(l.queue) == 1
	})
	close(release)
}

// While appends arrive during the journal's writes, the next group waits
// until JournalInterval after the last one began, and every append arriving
// meanwhile shares its fsync; an appender alone, appending again once
// acknowledged, is never held back.
func TestJournalInterval(t *testing.T) {
	const interval, spaced, alone = 3 * time.Second, 10, 5
	dir := t.TempDir()
	hold, writing, release := holdFirstWrite()
	l, err := Open(context.Background(), Config{Dir: dir, Origin: "example.com/interval", Signers: lagSigners(t), JournalInterval: interval,
		beforeWrite: hold})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var wg sync.WaitGroup
	appendOne := appender(t, l, &wg)
	spaceNext(t, l, writing, release, appendOne)
	// The next group waits, and these, one every 2 ms, join it.
	for i := range spaced {
		appendOne(fmt.Sprintf("spaced %d", i))
		time.Sleep(2 * time.Millisecond)
	}
	wg.Wait()
	// Nothing arrived while that group was written: an appender alone is
	// not held back (each append would wait for the interval if it were).
	start := time.Now()
	for i := range alone {
		if _, err := l.Append(context.Background(), fmt.Appendf(nil, "alone %d", i)); err != nil {
			t.Fatal(err)
		}
	}
	if took := time.Since(start); took >= interval {
		t.Fatalf("%d appends one after another took %v: held back by the journal interval (%v)", alone, took, interval)
	}
	want := []uint32{1, 1 + spaced}
	for range alone {
		want = append(want, 1)
	}
	if got := journalGroups(t, dir); !slices.Equal(got, want) {
		t.Fatalf("journal groups of %v leaves, want %v", got, want)
	}
}

// Close does not wait out a spacing in progress: the appends it holds are
// journaled and acknowledged at once.
func TestJournalIntervalClose(t *testing.T) {
	const interval = 20 * time.Second
	dir := t.TempDir()
	hold, writing, release := holdFirstWrite()
	l, err := Open(context.Background(), Config{Dir: dir, Origin: "example.com/interval", Signers: lagSigners(t),
		JournalInterval: interval, AppendTimeout: time.Minute, beforeWrite: hold})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	appendOne := appender(t, l, &wg)
	spaceNext(t, l, writing, release, appendOne)
	appendOne("spaced")
	waitFor(t, func() bool { // journalLoop holds both for the interval
		l.pmu.Lock()
		defer l.pmu.Unlock()
		return len(l.queue) == 2
	})
	start := time.Now()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	if took := time.Since(start); took >= interval/2 {
		t.Fatalf("Close took %v: it waited out the journal interval (%v)", took, interval)
	}
	if got, want := journalGroups(t, dir), []uint32{1, 2}; !slices.Equal(got, want) {
		t.Fatalf("journal groups of %v leaves, want %v", got, want)
	}
}

// Open refuses a JournalInterval that is not under AppendTimeout: spaced
// appends would time out, and their timeouts fail the log closed.
func TestJournalIntervalOverAppendTimeout(t *testing.T) {
	_, err := Open(context.Background(), Config{Dir: t.TempDir(), Origin: "example.com/interval", Signers: lagSigners(t),
		JournalInterval: time.Second, AppendTimeout: time.Second})
	if err == nil || !strings.Contains(err.Error(), "JournalInterval") {
		t.Fatalf("Open with JournalInterval = AppendTimeout: %v, want it refused", err)
	}
}

// Config.JournalSynced hears of each journal fsync, once a group, with how
// long it took; an appender alone has a group (and an fsync) to each leaf.
func TestJournalSynced(t *testing.T) {
	var syncs, took atomic.Int64
	l, err := Open(context.Background(), Config{Dir: t.TempDir(), Origin: "example.com/synced", Signers: lagSigners(t),
		JournalSynced: func(d time.Duration) { syncs.Add(1); took.Add(int64(d)) }})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		if _, err := l.Append(context.Background(), fmt.Appendf(nil, "synced %d", i)); err != nil {
			t.Fatal(err)
		}
		if n := syncs.Load(); n != int64(i+1) {
			t.Fatalf("%d fsyncs heard of after %d appends alone, want one each", n, i+1)
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if took.Load() <= 0 {
		t.Fatalf("fsyncs took %v in all, want more than nothing", time.Duration(took.Load()))
	}
}
