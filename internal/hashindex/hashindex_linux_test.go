package hashindex

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// A write that fails inside a run (the disk full once the run outgrows
// writeRun's buffer, here /dev/full under the run's temporary name) is
// wrapped by Options.Err, as one at the run's end is, and the temporary
// file goes. Before, it came back bare (for the leaf index, no outage of
// the index): 5,000 entries are 3 times the buffer (200 KiB).
func TestWriteFails(t *testing.T) {
	x, dir := newTestIndex(t, Options{})
	const n = 5000
	tmp := filepath.Join(dir, runName(0, n)+".tmp")
	if err := os.Symlink("/dev/full", tmp); err != nil {
		t.Fatal(err)
	}
	if err := x.Add(0, n, testEntries(0, n)); !errors.Is(err, errTestIndex) || !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("Add on a full disk: %v, want errTestIndex and ENOSPC", err)
	}
	if _, err := os.Lstat(tmp); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("%s after a failed add: %v, want removed", tmp, err)
	}
}
