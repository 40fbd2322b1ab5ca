package tilelog

import (
	"fmt"
	"path/filepath"
	"testing"

	"golang.org/x/mod/sumdb/tlog"
)

// The leaf hash index keeps, for a leaf appended more than once, its first
// index: within one batch (the puts are sorted by hash) and across batches.
func TestLeafIndexFirstIndex(t *testing.T) {
	x, err := openLeafIndex(filepath.Join(t.TempDir(), "index.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer x.close()
	leaf := func(i int) []byte { return fmt.Appendf(nil, "leaf %d", i) }
	// Batch 1: leaves 0..99, with leaf 7 again at 50 and at 90.
	var batch [][]byte
	for i := range 100 {
		switch i {
		case 50, 90:
			batch = append(batch, leaf(7))
		default:
			batch = append(batch, leaf(i))
		}
	}
	if err := x.add(0, batch); err != nil {
		t.Fatal(err)
	}
	// Batch 2: leaves at 100..101 repeat leaves 3 and 100 (new).
	if err := x.add(100, [][]byte{leaf(3), leaf(100)}); err != nil {
		t.Fatal(err)
	}
	for leafNo, want := range map[int]uint64{0: 0, 7: 7, 3: 3, 49: 49, 51: 51, 99: 99, 100: 101} {
		got, ok, err := x.lookup(tlog.RecordHash(leaf(leafNo)))
		if err != nil || !ok || got != want {
			t.Errorf("leaf %d: index %d %v %v, want %d", leafNo, got, ok, err, want)
		}
	}
	for _, absent := range []int{50, 90} { // their slots hold leaf 7
		if _, ok, _ := x.lookup(tlog.RecordHash(leaf(absent))); ok {
			t.Errorf("leaf %d indexed, never appended", absent)
		}
	}
	if n, err := x.next(); err != nil || n != 102 {
		t.Errorf("next %d %v, want 102", n, err)
	}
}
