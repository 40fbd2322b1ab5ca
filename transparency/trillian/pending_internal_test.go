package trillian

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// The pending file reads back the leaves written, across batches and the
// file's creation; concurrent records all land.
func TestPendingFileRoundTrip(t *testing.T) {
	state := filepath.Join(t.TempDir(), "trillian-checkpoint")
	l := &Log{cfg: Config{StateFile: state}}
	var want [][]byte
	var wg sync.WaitGroup
	for i := range 20 {
		leaf := bytes.Repeat([]byte{byte('a' + i)}, 1+i*37)
		want = append(want, leaf)
		wg.Go(func() {
			if _, err := l.recordPending(t.Context(), leaf); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	fi, err := os.Stat(state + pendingSuffix)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("pending file mode %v, want 0600", fi.Mode().Perm())
	}
	back := &Log{cfg: Config{StateFile: state}}
	if err := back.loadPending(); err != nil {
		t.Fatal(err)
	}
	cmp := func(a, b []byte) int { return bytes.Compare(a, b) }
	got := slices.SortedFunc(slices.Values(back.pending), cmp)
	if !slices.EqualFunc(got, slices.SortedFunc(slices.Values(want), cmp), bytes.Equal) {
		t.Fatalf("pending file reads back %d leaves, want the %d written", len(got), len(want))
	}
	// A duplicate record is waited for once.
	if _, err := l.recordPending(t.Context(), want[0]); err != nil {
		t.Fatal(err)
	}
	back = &Log{cfg: Config{StateFile: state}}
	if err := back.loadPending(); err != nil || len(back.pending) != len(want) {
		t.Fatalf("with a duplicate record: %d leaves, %v", len(back.pending), err)
	}
	if err := back.removePending(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(state + pendingSuffix); !os.IsNotExist(err) {
		t.Fatalf("pending file after removePending: %v", err)
	}
}

// parsePending accepts the files writePending makes and every prefix of
// them (what a crash while writing leaves), followed or not by zeros (what
// a file system that extended the file in a power loss leaves), and
// nothing else: what it accepts is its whole records, re-encoding to the
// same bytes, then a torn tail that is zeros or, up to the zeros that end
// it, the beginning of some record, shorter than it; every prefix of a
// file it accepts whole is accepted, with a prefix of its leaves, and so
// is the file followed by zeros, or by part of a record then zeros, but
// not by zeros then another byte, nor by its last record damaged then
// zeros; nothing makes it panic or allocate beyond the input.
func FuzzParsePending(f *testing.F) {
	one := appendPendingRecord([]byte(pendingMagic), []byte("leaf"))
	two := appendPendingRecord(bytes.Clone(one), bytes.Repeat([]byte{0xff}, 300))
	zeros := make([]byte, 64)
	page := make([]byte, 4096)
	cat := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	for _, seed := range [][]byte{
		nil, []byte(pendingMagic), []byte(pendingMagic[:5]), one, two, one[:len(one)-1], two[:len(one)+2],
		append(bytes.Clone(two), 0), append(bytes.Clone(two), 0xff, 0xff), append(bytes.Clone(one), "garbage"...),
		append(bytes.Clone(two), 0, 0, 0, 0), append(bytes.Clone(one), zeros...), append(bytes.Clone(one), 0, 0, 0, 0, 1),
		append(bytes.Clone(one), append(zeros[:8], one[len(pendingMagic):]...)...), zeros, append([]byte(pendingMagic[:5]), zeros...),
		append(bytes.Clone(two[:len(one)+9]), zeros...),
		// A record torn, then zeros past where it would end: in its
		// length, its leaf, its checksum (none of it, part of it).
		cat(one, two[len(one):len(one)+2], page), cat(two[:len(one)+100], page), cat(two[:len(two)-4], zeros),
		cat(two[:len(two)-2], zeros), cat(one[:len(one)-1], zeros), cat([]byte(pendingMagic), one[len(pendingMagic):len(one)-3], page),
		// Refused: a whole record damaged, then zeros; its checksum cut by
		// zeros but not its leaf's; torn, then a whole record; a length
		// damaged, running over a whole record into the zeros.
		cat(flipAt(two, len(two)-6), zeros), cat(two[:len(two)-4], []byte{two[len(two)-4] ^ 1, 1}, zeros),
		cat(one, two[len(one):len(one)+50], zeros, one[len(pendingMagic):]),
		cat(flipAt(two, len(pendingMagic)+2), page),
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		leaves, n, err := parsePending(data)
		if err != nil {
			if leaves != nil || n != 0 {
				t.Fatal("leaves returned with an error")
			}
			return
		}
		if n < 0 || n > len(data) {
			t.Fatalf("well-formed prefix %d of %d bytes", n, len(data))
		}
		if n == len(data) {
			// Followed by zeros, the same; by zeros then another byte,
			// refused.
			for _, z := range []int{1, 4, 9, 300} {
				more := append(bytes.Clone(data), make([]byte, z)...)
				if got, m, err := parsePending(more); err != nil || m != n || !slices.EqualFunc(got, leaves, bytes.Equal) {
					t.Fatalf("followed by %d zeros: %d leaves, %d bytes, %v; want the %d leaves, %d bytes", z, len(got), m, err, len(leaves), n)
				}
			}
			if _, _, err := parsePending(append(bytes.Clone(data), 0, 0, 0, 0, 1)); err == nil {
				t.Fatal("accepted zeros then another byte after a whole file")
			}
			if n > len(pendingMagic) && len(data) <= 4096 {
				// Part of a record (of a leaf holding no record), then
				// zeros: torn, dropped.
				rec := appendPendingRecord(nil, bytes.Repeat([]byte{0xa5}, 40))
				for k := 1; k < len(rec); k++ {
					for _, z := range []int{0, 3, len(rec), 300} {
						more := append(append(bytes.Clone(data), rec[:k]...), make([]byte, z)...)
						if got, m, err := parsePending(more); err != nil || m != n || !slices.EqualFunc(got, leaves, bytes.Equal) {
							t.Fatalf("followed by %d bytes of a record and %d zeros: %d leaves, %d bytes, %v; want the %d leaves, %d bytes", k, z, len(got), m, err, len(leaves), n)
						}
					}
				}
				// Its last record damaged (its leaf's last byte), then
				// zeros: its checksum is whole, refused.
				if _, _, err := parsePending(append(flipAt(data, n-5), make([]byte, 64)...)); err == nil {
					t.Fatal("accepted a whole file whose last record is damaged, then zeros")
				}
			}
		}
		if n == 0 {
			k := 0
			for k < len(data) && k < len(pendingMagic) && data[k] == pendingMagic[k] {
				k++
			}
			if leaves != nil || len(bytes.Trim(data[k:], "\x00")) != 0 {
				t.Fatal("accepted a file without a header that is not a torn header")
			}
			return
		}
		re := []byte(pendingMagic)
		for _, leaf := range leaves {
			re = appendPendingRecord(re, leaf)
		}
		if !bytes.Equal(re, data[:n]) {
			t.Fatal("accepted bytes that do not re-encode to themselves")
		}
		if tail := data[n:]; len(bytes.Trim(tail, "\x00")) > 0 {
			// Complete the torn record: its length (the bytes present,
			// then the smallest in range), leaf (the bytes present, then
			// zeros) and checksum. The tail, up to the zeros that end
			// it, must be its beginning, and shorter than it.
			z := len(bytes.TrimRight(tail, "\x00"))
			var lb [4]byte
			copy(lb[:], tail)
			ln := binary.BigEndian.Uint32(lb[:])
			if ln == 0 && len(tail) < 4 {
				ln = 1
			}
			leaf := make([]byte, ln)
			if len(tail) > 4 {
				copy(leaf, tail[4:])
			}
			rec := appendPendingRecord(nil, leaf)
			if z >= len(rec) {
				t.Fatalf("a %d-byte tail taken for torn, but it holds the record it begins", len(tail))
			}
			if !bytes.Equal(rec[:z], tail[:z]) {
				t.Fatalf("a %d-byte tail taken for torn, but its %d bytes before the zeros begin no record", len(tail), z)
			}
			done := append(bytes.Clone(data[:n]), rec...)
			got, m, err := parsePending(done)
			if err != nil || m != len(done) || len(got) != len(leaves)+1 {
				t.Fatalf("the %d-byte tail taken for torn begins no record (%v)", len(tail), err)
			}
		}
		if n == len(data) && len(data) <= 4096 {
			for k := range len(data) {
				got, _, err := parsePending(data[:k])
				if err != nil && strings.Contains(err.Error(), "damaged length") {
					continue // a leaf holding a whole record, cut inside it
				}
				if err != nil || !slices.EqualFunc(got, leaves[:len(got)], bytes.Equal) {
					t.Fatalf("prefix of %d bytes of an accepted file: %d leaves, %v", k, len(got), err)
				}
			}
		}
	})
}

// flipAt returns b with byte i flipped (one bit).
func flipAt(b []byte, i int) []byte {
	b = bytes.Clone(b)
	b[i] ^= 1
	return b
}

// A length damaged into a value in range that runs past the end of the
// file is not a torn write when whole records follow: taking it for one
// would drop records whose appends were told they were recorded.
func TestPendingDamagedLength(t *testing.T) {
	data := []byte(pendingMagic)
	var offs []int
	for _, leaf := range []string{"first", "second", "third"} {
		offs = append(offs, len(data))
		data = appendPendingRecord(data, bytes.Repeat([]byte(leaf), 100))
	}
	damaged := bytes.Clone(data)
	binary.BigEndian.PutUint32(damaged[offs[1]:], binary.BigEndian.Uint32(damaged[offs[1]:])|0x800)
	if _, _, err := parsePending(damaged); err == nil || !strings.Contains(err.Error(), "damaged length") {
		t.Fatalf("a damaged length before a whole record: %v, want it refused", err)
	}
	// A real torn write (the file cut inside the last record) is still one.
	if leaves, n, err := parsePending(data[:len(data)-7]); err != nil || len(leaves) != 2 || n != offs[2] {
		t.Fatalf("torn last record: %d leaves, %d, %v", len(leaves), n, err)
	}
}

// pendingLog is a Log with only what the pending file needs.
func pendingLog(t *testing.T, state string) *Log {
	return &Log{cfg: Config{StateFile: state, Logger: slog.New(slog.NewTextHandler(t.Output(), nil))}, failc: make(chan struct{})}
}

// Every prefix of a pending file (a crash while it was written) opens: the
// whole records are kept, the torn tail dropped and the file rewritten
// without it (removed without a whole record); the header alone is an
// emptied file, kept as it is. A later record follows the kept ones.
func TestPendingTornTail(t *testing.T) {
	dir := t.TempDir()
	state := filepath.Join(dir, "trillian-checkpoint")
	a, b := []byte("first leaf"), bytes.Repeat([]byte{'b'}, 70)
	withA := appendPendingRecord([]byte(pendingMagic), a)
	full := appendPendingRecord(bytes.Clone(withA), b)
	for k := range len(full) + 1 {
		if err := os.WriteFile(state+pendingSuffix, full[:k], 0o600); err != nil {
			t.Fatal(err)
		}
		l := pendingLog(t, state)
		if k%16 != 0 && k < len(full)-2 {
			l.cfg.Logger = slog.New(slog.DiscardHandler)
		}
		if err := l.loadPending(); err != nil {
			t.Fatalf("%d of %d bytes: %v", k, len(full), err)
		}
		var want [][]byte
		var file []byte
		switch {
		case k == len(full):
			want, file = [][]byte{a, b}, full
		case k >= len(withA):
			want, file = [][]byte{a}, withA
		case k == len(pendingMagic):
			file = []byte(pendingMagic)
		}
		if !slices.EqualFunc(l.pending, want, bytes.Equal) {
			t.Fatalf("%d of %d bytes: %d leaves, want %d", k, len(full), len(l.pending), len(want))
		}
		got, err := os.ReadFile(state + pendingSuffix)
		switch {
		case file == nil && !errors.Is(err, fs.ErrNotExist):
			t.Fatalf("%d of %d bytes, no whole record: the file stays (%v)", k, len(full), err)
		case file != nil && !bytes.Equal(got, file):
			t.Fatalf("%d of %d bytes: the file holds %d bytes after Open, want the %d of its whole records (%v)", k, len(full), len(got), len(file), err)
		}
		c := []byte("after reopening")
		if _, err := l.recordPending(t.Context(), c); err != nil {
			t.Fatal(err)
		}
		back := pendingLog(t, state)
		if err := back.loadPending(); err != nil || !slices.EqualFunc(back.pending, append(want, c), bytes.Equal) {
			t.Fatalf("%d of %d bytes, then a record: %d leaves, %v", k, len(full), len(back.pending), err)
		}
		os.Remove(state + pendingSuffix)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("files left behind: %v", ents)
	}
}

// openTorn writes data as the pending file of state and loads it as Open
// does: data must be whole records (want: their leaves; nil, none) then a
// torn tail, dropped with a warning naming its bytes, the file rewritten
// with the whole records alone (removed, with none).
func openTorn(t *testing.T, state string, data []byte, want [][]byte) *Log {
	t.Helper()
	if err := os.WriteFile(state+pendingSuffix, data, 0o600); err != nil {
		t.Fatal(err)
	}
	var logs strings.Builder
	l := pendingLog(t, state)
	l.cfg.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	if err := l.loadPending(); err != nil {
		t.Fatalf("Open with a torn tail = %v; want it dropped", err)
	}
	if !slices.EqualFunc(l.pending, want, bytes.Equal) {
		t.Fatalf("%d leaves, want %d", len(l.pending), len(want))
	}
	n := 0 // the bytes kept
	if want != nil {
		n = len(appendPendingRecords(want))
	}
	if out := logs.String(); !strings.Contains(out, "level=WARN") || !strings.Contains(out, fmt.Sprintf("dropped_bytes=%d\n", len(data)-n)) {
		t.Fatalf("no warning naming the dropped bytes: %s", out)
	}
	got, err := os.ReadFile(state + pendingSuffix)
	switch {
	case want == nil && !errors.Is(err, fs.ErrNotExist):
		t.Fatalf("no whole record: the file stays (%v)", err)
	case want != nil && !bytes.Equal(got, appendPendingRecords(want)):
		t.Fatalf("the file holds %d bytes after Open, want the %d of its whole records (%v)", len(got), n, err)
	}
	return l
}

// A power loss during an appending write may leave the file longer than
// its data, the rest reading as zeros (XFS, ext4 with data=writeback): a
// torn tail like any other, since that write's fsync never returned and
// its QueueLeafs were not sent. Open drops zeros to the end of the file
// after the last whole record (or after part of the header) with the
// warning naming the bytes, keeps the whole records, and rewrites the
// file without the zeros (removes it, with no whole record) — instead of
// refusing to open, which kept rngd from starting. Zeros followed by
// anything else are still damage.
func TestPendingZeroFilledTail(t *testing.T) {
	dir := t.TempDir()
	state := filepath.Join(dir, "trillian-checkpoint")
	a, b := []byte("first leaf"), bytes.Repeat([]byte{'b'}, 70)
	withA := appendPendingRecord([]byte(pendingMagic), a)
	full := appendPendingRecord(bytes.Clone(withA), b)
	zeros := func(n int) []byte { return make([]byte, n) }
	cat := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	for _, tc := range []struct {
		name string
		data []byte
		want [][]byte // nil: no whole record, the file removed
	}{
		{"a record, 3 zeros", cat(withA, zeros(3)), [][]byte{a}},
		{"a record, 4 zeros", cat(withA, zeros(4)), [][]byte{a}},
		{"a record, a record's worth of zeros", cat(withA, zeros(len(full)-len(withA))), [][]byte{a}},
		{"two records, a page of zeros", cat(full, zeros(4096)), [][]byte{a, b}},
		{"the header, zeros", cat([]byte(pendingMagic), zeros(len(full)-len(pendingMagic))), nil},
		{"part of the header, zeros", cat([]byte(pendingMagic[:9]), zeros(len(full))), nil},
		{"zeros", zeros(len(full)), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := openTorn(t, state, tc.data, tc.want)
			// The next record follows the kept ones.
			c := []byte("after reopening")
			if _, err := l.recordPending(t.Context(), c); err != nil {
				t.Fatal(err)
			}
			back := pendingLog(t, state)
			if err := back.loadPending(); err != nil || !slices.EqualFunc(back.pending, append(slices.Clone(tc.want), c), bytes.Equal) {
				t.Fatalf("then a record: %d leaves, %v", len(back.pending), err)
			}
			os.Remove(state + pendingSuffix)
		})
	}
	// Zeros then anything else, a zero length before a record included,
	// are damage: refused.
	for _, data := range [][]byte{
		cat(withA, zeros(4), []byte("x")),
		cat(withA, zeros(100), []byte{1}),
		cat(withA, zeros(4), full[len(withA):]),
		cat([]byte(pendingMagic), zeros(4), withA[len(pendingMagic):]),
		cat([]byte(pendingMagic[:9]), zeros(30), []byte{1}),
		cat(zeros(40), withA),
	} {
		if _, _, err := parsePending(data); err == nil {
			t.Errorf("%q: zeros followed by other bytes accepted", data)
		}
	}
}

// A power loss during an appending write may leave the last record cut
// short and the file longer than its data, the rest reading as zeros:
// part of a record, then zeros to the end of the file. Its checksum is not
// there (zeros), or only partly, the bytes there its leaf's: it cannot be
// whole, and it is torn, not corruption — it is the last write, whose
// fsync never returned, so its QueueLeaf was not sent. Open drops it with
// the warning naming its bytes, keeps the whole records, and rewrites the
// file without it (removes it, with no whole record), instead of refusing
// to open. A record whose checksum is there whole but does not match,
// whose checksum bytes there do not match, or that is followed by anything
// but zeros — a whole record included — is still corruption.
func TestPendingTornIntoZeros(t *testing.T) {
	dir := t.TempDir()
	state := filepath.Join(dir, "trillian-checkpoint")
	a, b := []byte("first leaf"), bytes.Repeat([]byte{'b'}, 70)
	withA := appendPendingRecord([]byte(pendingMagic), a)
	recB := appendPendingRecord(nil, b) // its checksum holds no zero byte
	zeros := func(n int) []byte { return make([]byte, n) }
	cat := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	sumB := len(recB) - 4
	if bytes.IndexByte(recB[sumB:], 0) >= 0 {
		t.Fatalf("recB's checksum %x holds a zero byte: pick another leaf", recB[sumB:])
	}
	for _, tc := range []struct {
		name string
		data []byte
		want [][]byte // nil: no whole record, the file removed
	}{
		{"its length, then a page of zeros", cat(withA, recB[:4], zeros(4096)), [][]byte{a}},
		{"part of its leaf, then zeros", cat(withA, recB[:4+30], zeros(200)), [][]byte{a}},
		{"its leaf, no checksum, then zeros", cat(withA, recB[:sumB], zeros(4)), [][]byte{a}},
		{"its leaf, no checksum, then a page of zeros", cat(withA, recB[:sumB], zeros(4096)), [][]byte{a}},
		{"its checksum cut by zeros", cat(withA, recB[:sumB+2], zeros(512)), [][]byte{a}},
		{"the first record torn so", cat([]byte(pendingMagic), recB[:20], zeros(4096)), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			openTorn(t, state, tc.data, tc.want)
			os.Remove(state + pendingSuffix)
		})
	}
	longer := appendPendingRecord(nil, bytes.Repeat([]byte{'b'}, 70+len(recB)+8)) // a length over recB and past it
	for name, data := range map[string][]byte{
		"a whole record damaged, then zeros":             cat(withA, flipAt(recB, 10), zeros(100)),
		"its checksum wrong, then zeros":                 cat(withA, recB[:sumB], []byte{recB[sumB] ^ 1, recB[sumB+1]}, zeros(100)),
		"its checksum wrong, the file cut inside it":     cat(withA, recB[:sumB], []byte{recB[sumB] ^ 1, recB[sumB+1]}),
		"torn, zeros, then a byte":                       cat(withA, recB[:30], zeros(100), []byte{1}),
		"torn, zeros, then a whole record":               cat(withA, recB[:30], zeros(len(recB)), recB),
		"a bad record, then a whole one":                 cat(withA, flipAt(recB, 10), recB),
		"a damaged length over a whole record, to zeros": cat([]byte(pendingMagic), longer[:4], a, recB, zeros(100)),
	} {
		if _, _, err := parsePending(data); err == nil {
			t.Errorf("%s: accepted, want refused as corruption", name)
		} else {
			t.Logf("%s: %v", name, err)
		}
	}
}

// appendPendingRecords is a pending file holding leaves.
func appendPendingRecords(leaves [][]byte) []byte {
	b := []byte(pendingMagic)
	for _, leaf := range leaves {
		b = appendPendingRecord(b, leaf)
	}
	return b
}

// A pending file left empty or with part of its header (a crash after its
// creation, a first write that failed) gets its header before the records
// written next.
func TestPendingWriteOverTornHeader(t *testing.T) {
	for _, torn := range []string{"", pendingMagic[:7]} {
		state := filepath.Join(t.TempDir(), "trillian-checkpoint")
		l := pendingLog(t, state)
		if err := l.loadPending(); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(state+pendingSuffix, []byte(torn), 0o600); err != nil {
			t.Fatal(err)
		}
		leaf := []byte("recorded")
		if _, err := l.recordPending(t.Context(), leaf); err != nil {
			t.Fatal(err)
		}
		back := pendingLog(t, state)
		if err := back.loadPending(); err != nil || len(back.pending) != 1 || !bytes.Equal(back.pending[0], leaf) {
			t.Fatalf("over a %d-byte header: %q, %v", len(torn), back.pending, err)
		}
	}
}

// A write that fails part way (ENOSPC) leaves a torn tail, and the log
// writes the file no more: later records fail, the file is left as it is
// (whole records, then the torn batch), and the next Open keeps the whole
// records and drops the tail (whose leaves were never queued).
func TestPendingWriteFailure(t *testing.T) {
	for _, before := range []int{0, 2} {
		for _, cut := range []int{5, 40, 43} {
			state := filepath.Join(t.TempDir(), "trillian-checkpoint")
			l := pendingLog(t, state)
			var want [][]byte
			for i := range before {
				leaf := []byte{'a' + byte(i)}
				want = append(want, leaf)
				if _, err := l.recordPending(t.Context(), leaf); err != nil {
					t.Fatal(err)
				}
			}
			l.pendWriteAt = func(f *os.File, b []byte, off int64) (int, error) {
				n, _ := f.WriteAt(b[:min(cut, len(b))], off)
				return n, syscall.ENOSPC
			}
			if _, err := l.recordPending(t.Context(), bytes.Repeat([]byte{'x'}, 60)); !errors.Is(err, syscall.ENOSPC) {
				t.Fatalf("write failing = %v, want ENOSPC", err)
			}
			torn, err := os.ReadFile(state + pendingSuffix)
			if err != nil {
				t.Fatal(err)
			}
			l.pendWriteAt = nil
			if _, err := l.recordPending(t.Context(), []byte("after the failure")); !errors.Is(err, syscall.ENOSPC) {
				t.Fatalf("record after a failed write = %v, want refused with the failure", err)
			}
			if raw, err := os.ReadFile(state + pendingSuffix); err != nil || !bytes.Equal(raw, torn) {
				t.Fatalf("the file changed after a failed write (%v)", err)
			}
			got, n, err := parsePending(torn)
			if err != nil || n == len(torn) || !slices.EqualFunc(got, want, bytes.Equal) {
				t.Fatalf("%d records, then a write cut at %d bytes: file parses to %q, %d of %d bytes, %v; want %q and a torn tail", before, cut, got, n, len(torn), err, want)
			}
			back := pendingLog(t, state)
			if err := back.loadPending(); err != nil || !slices.EqualFunc(back.pending, want, bytes.Equal) {
				t.Fatalf("reopened after a failed write: %q, %v; want %q", back.pending, err, want)
			}
		}
	}
}

// pendingRecords returns the leaves the pending file holds, nil without
// one, failing on a torn or corrupt file.
func pendingRecords(t *testing.T, state string) [][]byte {
	t.Helper()
	raw, err := os.ReadFile(state + pendingSuffix)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	leaves, n, err := parsePending(raw)
	if err != nil || n != len(raw) || n == 0 {
		t.Fatalf("pending file of %d bytes: %d whole, %v", len(raw), n, err)
	}
	return leaves
}

func sortedLeaves(leaves [][]byte) [][]byte {
	return slices.SortedFunc(slices.Values(leaves), bytes.Compare)
}

// The file keeps a record while its append is outstanding, and is emptied
// (cut back to its header) once none is: acknowledged records are dead,
// refused ones are removed at once, outstanding ones stay.
func TestPendingSettled(t *testing.T) {
	state := filepath.Join(t.TempDir(), "trillian-checkpoint")
	l := pendingLog(t, state)
	record := func(leaf string) *pendingLeaf {
		t.Helper()
		p, err := l.recordPending(t.Context(), []byte(leaf))
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	holds := func(want ...string) {
		t.Helper()
		var w [][]byte
		for _, s := range want {
			w = append(w, []byte(s))
		}
		if got := pendingRecords(t, state); !slices.EqualFunc(sortedLeaves(got), sortedLeaves(w), bytes.Equal) {
			t.Fatalf("pending file holds %q, want %q", got, w)
		}
	}
	emptied := func() {
		t.Helper()
		if raw, err := os.ReadFile(state + pendingSuffix); err != nil || string(raw) != pendingMagic {
			t.Fatalf("pending file = %q, %v; want its header alone", raw, err)
		}
	}
	for range 3 {
		a, b := record("a"), record("b")
		holds("a", "b")
		l.pendingAcked(t.Context(), a)
		holds("a", "b") // b outstanding: nothing cut
		l.pendingAcked(t.Context(), b)
		emptied()
	}
	// Refused: the record goes at once, the outstanding ones stay.
	a, b, c := record("a"), record("b"), record("c")
	l.pendingAcked(t.Context(), a)
	if err := l.pendingRefused(t.Context(), b); err != nil {
		t.Fatal(err)
	}
	holds("c")
	d := record("d")
	holds("c", "d")
	if err := l.pendingRefused(t.Context(), c); err != nil {
		t.Fatal(err)
	}
	holds("d")
	if err := l.pendingRefused(t.Context(), d); err != nil {
		t.Fatal(err)
	}
	emptied()
	// An emptied file reopens with nothing to wait for, and takes records.
	back := pendingLog(t, state)
	if err := back.loadPending(); err != nil || back.pending != nil {
		t.Fatalf("emptied file reopened: %q, %v", back.pending, err)
	}
	e, err := back.recordPending(t.Context(), []byte("e"))
	if err != nil {
		t.Fatal(err)
	}
	holds("e")
	back.pendingAcked(t.Context(), e)
	emptied()
}

// With an append always outstanding the file is never emptied, but it is
// compacted: it stays bounded, and keeps the outstanding records.
func TestPendingCompacted(t *testing.T) {
	state := filepath.Join(t.TempDir(), "trillian-checkpoint")
	l := pendingLog(t, state)
	held := []byte("held: queued, not integrated yet")
	h, err := l.recordPending(t.Context(), held)
	if err != nil {
		t.Fatal(err)
	}
	const leafSize = 4000
	bound := int64(len(pendingMagic)) + pendingCompact + 2*(4+leafSize+4) + h.size
	var prev *pendingLeaf
	var biggest int64
	for i := range 300 { // 1.2 MB through the file
		leaf := append(bytes.Repeat([]byte{'x'}, leafSize-4), byte(i>>8), byte(i), 'x', 'x')
		p, err := l.recordPending(t.Context(), leaf)
		if err != nil {
			t.Fatal(err)
		}
		if prev != nil {
			l.pendingAcked(t.Context(), prev)
		}
		prev = p
		fi, err := os.Stat(state + pendingSuffix)
		if err != nil {
			t.Fatal(err)
		}
		biggest = max(biggest, fi.Size())
		if fi.Size() > bound {
			t.Fatalf("after %d records the pending file has %d bytes, over %d", i+2, fi.Size(), bound)
		}
		got := pendingRecords(t, state)
		if !slices.ContainsFunc(got, func(b []byte) bool { return bytes.Equal(b, held) }) ||
			!slices.ContainsFunc(got, func(b []byte) bool { return bytes.Equal(b, leaf) }) {
			t.Fatalf("after %d records the pending file lacks an outstanding record", i+2)
		}
	}
	t.Logf("pending file at most %d bytes (bound %d)", biggest, bound)
	l.pendingAcked(t.Context(), prev) // dead records stay while one is outstanding
	if got := pendingRecords(t, state); !slices.ContainsFunc(got, func(b []byte) bool { return bytes.Equal(b, held) }) {
		t.Fatal("the pending file lacks the outstanding record")
	}
	l.pendingAcked(t.Context(), h)
	if got := pendingRecords(t, state); len(got) != 0 {
		t.Fatalf("pending file holds %d records once none is outstanding", len(got))
	}
}

// Small records, an append always outstanding: the file is compacted by
// record count too, not only once its dead records reach 64 KiB — a kill
// leaves at most about pendingCompactRecords of them, not hundreds, for
// Open to queue again and look up. The outstanding records stay.
func TestPendingCompactedByCount(t *testing.T) {
	state := filepath.Join(t.TempDir(), "trillian-checkpoint")
	l := pendingLog(t, state)
	held := []byte("held: queued, not integrated yet")
	h, err := l.recordPending(t.Context(), held)
	if err != nil {
		t.Fatal(err)
	}
	// Outstanding at most: held, the previous record (acknowledged after
	// the next is written) and the new one.
	const bound = pendingCompactRecords + 3
	var prev *pendingLeaf
	most := 0
	for i := range 600 { // 600 records of 16 bytes: far below 64 KiB
		leaf := fmt.Appendf(nil, "small draw %04d", i)
		p, err := l.recordPending(t.Context(), leaf)
		if err != nil {
			t.Fatal(err)
		}
		if prev != nil {
			l.pendingAcked(t.Context(), prev)
		}
		prev = p
		got := pendingRecords(t, state)
		most = max(most, len(got))
		if len(got) > bound {
			t.Fatalf("after %d records the pending file holds %d, over %d", i+2, len(got), bound)
		}
		if !slices.ContainsFunc(got, func(b []byte) bool { return bytes.Equal(b, held) }) ||
			!slices.ContainsFunc(got, func(b []byte) bool { return bytes.Equal(b, leaf) }) {
			t.Fatalf("after %d records the pending file lacks an outstanding record", i+2)
		}
	}
	t.Logf("pending file at most %d records (bound %d)", most, bound)
	l.pendingAcked(t.Context(), prev)
	l.pendingAcked(t.Context(), h)
	if got := pendingRecords(t, state); len(got) != 0 {
		t.Fatalf("pending file holds %d records once none is outstanding", len(got))
	}
}

// Concurrent appends, settled in any order while others are written:
// every outstanding record is in the file whenever its append looks, and
// the file is emptied once all are settled.
func TestPendingConcurrent(t *testing.T) {
	state := filepath.Join(t.TempDir(), "trillian-checkpoint")
	l := pendingLog(t, state)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 40 {
				leaf := bytes.Repeat([]byte{byte('a' + g), byte(i)}, 1+i*50)
				p, err := l.recordPending(t.Context(), leaf)
				if err != nil {
					t.Error(err)
					return
				}
				// Read while others write, cut and compact: whole
				// records, then perhaps part of a batch being written —
				// and the outstanding leaf, until it is settled.
				for range 2 {
					raw, err := os.ReadFile(state + pendingSuffix)
					if err != nil {
						t.Error(err)
						return
					}
					got, _, err := parsePending(raw)
					if err != nil || !slices.ContainsFunc(got, func(b []byte) bool { return bytes.Equal(b, leaf) }) {
						t.Errorf("outstanding record missing from the pending file (%v)", err)
						return
					}
					runtime.Gosched()
				}
				if i%3 == 0 {
					err = l.pendingRefused(t.Context(), p)
				} else {
					l.pendingAcked(t.Context(), p)
				}
				if err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if got := pendingRecords(t, state); len(got) != 0 {
		t.Fatalf("pending file holds %d records once every append is settled", len(got))
	}
}
