package rngd

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// state.db is mapped once, stateMmapSize long, however it grows below
// that: bbolt does not map it anew (holding the draws' reads) at each
// doubling, and the file itself stays the size of its data. Read from the
// process's own mappings.
func TestStateStoreMappedOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	st, err := openStore(path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.close()
	// About 8 MiB, which bbolt's default would map in 16 MiB after six
	// mappings anew.
	value := make([]byte, 4000)
	for batch := range 32 {
		err := st.db.Update(func(tx *bolt.Tx) error {
			for i := range 64 {
				if err := tx.Bucket(bucketRecords).Put(u64(uint64(batch*64+i)), value); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	// The mapping is address space: the file grows as bbolt grows it
	// (16 MiB at a time), not to the mapping's size.
	if fi.Size() < 8<<20 || fi.Size() > 64<<20 {
		t.Fatalf("state.db is %d bytes, want 8 to 64 MiB", fi.Size())
	}
	maps := mappingsOf(t, path)
	if len(maps) != 1 || maps[0] != stateMmapSize {
		t.Fatalf("state.db (%d bytes) mapped as %v, want one mapping of %d bytes", fi.Size(), maps, stateMmapSize)
	}
}

// mappingsOf returns the sizes of this process's mappings of the file at
// path (/proc/self/maps).
func mappingsOf(t *testing.T, path string) []uint64 {
	t.Helper()
	f, err := os.Open("/proc/self/maps")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var sizes []uint64
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 6 || fields[5] != path {
			continue
		}
		var lo, hi uint64
		if _, err := fmt.Sscanf(fields[0], "%x-%x", &lo, &hi); err != nil {
			t.Fatalf("%q: %v", sc.Text(), err)
		}
		sizes = append(sizes, hi-lo)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return sizes
}
