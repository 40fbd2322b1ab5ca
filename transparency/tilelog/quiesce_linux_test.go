package tilelog

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// quiesceTessera waits while a round of one of tessera's jobs holds its
// record lock — a traditional fcntl lock taken by this same process, which
// an open file description lock conflicts with — and returns once it is
// released. (On a directory no tessera runs in: a running one's rounds
// open and close the lock files, and closing any descriptor of a file
// drops the process's record locks on it, the test's too.)
func TestQuiesceTesseraWaitsForRound(t *testing.T) {
	tiles := t.TempDir()
	if err := os.Mkdir(filepath.Join(tiles, ".state"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range tesseraLocks {
		if err := os.WriteFile(filepath.Join(tiles, ".state", name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range tesseraLocks {
		t.Run(name, func(t *testing.T) {
			f, err := os.OpenFile(filepath.Join(tiles, ".state", name), os.O_RDWR, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			lk := syscall.Flock_t{Type: syscall.F_WRLCK}
			if err := syscall.FcntlFlock(f.Fd(), syscall.F_SETLKW, &lk); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- quiesceTessera(tiles) }()
			select {
			case err := <-done:
				t.Fatalf("quiesceTessera returned (%v) while a round held %s", err, name)
			case <-time.After(200 * time.Millisecond):
			}
			lk.Type = syscall.F_UNLCK
			if err := syscall.FcntlFlock(f.Fd(), syscall.F_SETLK, &lk); err != nil {
				t.Fatal(err)
			}
			select {
			case err := <-done:
				if err != nil {
					t.Fatal(err)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("quiesceTessera did not return once the round's lock was released")
			}
		})
	}
	// A directory whose jobs never ran has no lock files: nothing to wait for.
	if err := quiesceTessera(t.TempDir()); err != nil {
		t.Fatal(err)
	}
}
