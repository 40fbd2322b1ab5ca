package trillian

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"sync"
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
			if err := l.recordPending(leaf); err != nil {
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
	if err := l.recordPending(want[0]); err != nil {
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

// parsePending accepts exactly the files writePending makes: whatever it
// accepts re-encodes to the same bytes, and nothing makes it panic or
// allocate beyond the input.
func FuzzParsePending(f *testing.F) {
	one := appendPendingRecord([]byte(pendingMagic), []byte("leaf"))
	two := appendPendingRecord(bytes.Clone(one), bytes.Repeat([]byte{0xff}, 300))
	for _, seed := range [][]byte{nil, []byte(pendingMagic), one, two, one[:len(one)-1], append(bytes.Clone(two), 0)} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		leaves, err := parsePending(data)
		if err != nil {
			if leaves != nil {
				t.Fatal("leaves returned with an error")
			}
			return
		}
		if len(leaves) == 0 {
			t.Fatal("accepted a file without leaves")
		}
		re := []byte(pendingMagic)
		for _, leaf := range leaves {
			re = appendPendingRecord(re, leaf)
		}
		if !bytes.Equal(re, data) {
			t.Fatal("accepted bytes that do not re-encode to themselves")
		}
	})
}
