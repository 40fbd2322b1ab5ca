package tilelog

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"golang.org/x/mod/sumdb/tlog"
)

// FuzzLeafIndexRun: whatever a run file holds (a disk's damage, a file
// put there by hand), opening it either refuses it (errDamagedRun) or
// gives a run whose every block is read, checked and searched without a
// panic: never a crash of Open or of a lookup.
func FuzzLeafIndexRun(f *testing.F) {
	dir := f.TempDir()
	x, err := openLeafIndex(filepath.Join(dir, leafIndexDir))
	if err != nil {
		f.Fatal(err)
	}
	var es []indexEntry
	for i := range 250 { // three blocks, the last short
		es = append(es, indexEntry{tlog.RecordHash([]byte{byte(i), byte(i >> 8)}), uint64(i)})
	}
	slices.SortFunc(es, compareEntries)
	r, err := x.writeRun(0, 250, yieldAll(es))
	if err != nil {
		f.Fatal(err)
	}
	seed, err := os.ReadFile(r.path)
	if err != nil {
		f.Fatal(err)
	}
	x.close()
	f.Add(seed, uint64(0), uint64(250))
	f.Add(seed[:len(seed)-1], uint64(0), uint64(250))
	f.Add(seed, uint64(1), uint64(250))
	f.Add([]byte(runMagic), uint64(0), uint64(1))
	f.Fuzz(func(t *testing.T, b []byte, first, end uint64) {
		p := filepath.Join(t.TempDir(), "run")
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		r, err := openRun(p, first, end)
		if errors.Is(err, errDamagedRun) {
			return
		}
		if err != nil {
			t.Fatalf("openRun: %v, want a run or errDamagedRun", err)
		}
		defer r.f.Close()
		buf := make([]byte, blockSize)
		for b := range r.fences {
			body, err := r.readBlock(b, buf)
			if err != nil {
				continue
			}
			for i := 0; i+entrySize <= len(body); i += entrySize {
				var h tlog.Hash
				copy(h[:], body[i:])
				r.search(h, buf) // fails or answers; the tree checks what it names
			}
		}
	})
}
