package hashindex

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// FuzzRun: whatever a run file holds (a disk's damage, a file put there by
// hand), opening it either refuses it (errDamagedRun) or gives a run whose
// every block is read, checked and searched without a panic: never a
// crash of Open or of a lookup. The seeds include a run of no entry.
func FuzzRun(f *testing.F) {
	x, _ := newTestIndex(f, Options{})
	seed := readRunFile(f, x, 0, 250, testEntries(0, 250)) // three blocks, the last short
	empty := readRunFile(f, x, 250, 300, nil)
	f.Add(seed, uint64(0), uint64(250))
	f.Add(seed[:len(seed)-1], uint64(0), uint64(250))
	f.Add(seed, uint64(1), uint64(250))
	f.Add(empty, uint64(250), uint64(300))
	f.Add(empty, uint64(250), uint64(301))
	f.Add([]byte(runMagic), uint64(0), uint64(1))
	f.Fuzz(func(t *testing.T, b []byte, first, end uint64) {
		p := filepath.Join(t.TempDir(), "run")
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		r, err := x.openRun(p, first, end)
		if errors.Is(err, errDamagedRun) {
			return
		}
		if err != nil {
			t.Fatalf("openRun: %v, want a run or errDamagedRun", err)
		}
		defer r.f.Close()
		buf := make([]byte, blockSize)
		x.search(r, [32]byte{}, buf)
		for b := range r.fences {
			body, err := x.readBlock(r, b, buf)
			if err != nil {
				continue
			}
			for i := 0; i+entrySize <= len(body); i += entrySize {
				var h [32]byte
				copy(h[:], body[i:])
				x.search(r, h, buf) // fails or answers; the caller checks what it names
			}
		}
	})
}

// readRunFile is the file of the run [first, end) of es that x adds.
func readRunFile(tb testing.TB, x *Index, first, end uint64, es []Entry) []byte {
	tb.Helper()
	if err := x.Add(first, end, es); err != nil {
		tb.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(x.dir, runName(first, end)))
	if err != nil {
		tb.Fatal(err)
	}
	return b
}
