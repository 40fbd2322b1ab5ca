package tilelog

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// tesseraLocks are the lock files in tessera's .state directory under which
// its POSIX driver (v1.0.4, storage/posix/files.go) runs each round of its
// background jobs — the checkpoint publisher (publish.lock), the garbage
// collector (gcState.lock) — and its integration (treeState.lock).
var tesseraLocks = []string{"publish.lock", "gcState.lock", "treeState.lock"}

// quiesceTessera waits for tessera's background jobs to finish the round
// they are in. Once its context is cancelled they start no new round, but
// tessera offers no way to wait for the round in progress, which writes in
// the log's directory after Close has returned (a test's TempDir cleanup
// then fails: "directory not empty"). Each round holds a POSIX record lock
// (fcntl F_SETLKW) on its lock file; an open file description lock
// conflicts with it even within this process, so taking one waits for the
// round. A round whose job had left its wait but not yet locked when the
// lock was taken may still run: the window is a file read's (the garbage
// collector reads the published checkpoint first), not a round's.
func quiesceTessera(tilesDir string) error {
	for _, name := range tesseraLocks {
		p := filepath.Join(tilesDir, ".state", name)
		f, err := os.OpenFile(p, os.O_RDWR, 0)
		if errors.Is(err, fs.ErrNotExist) {
			continue // the job never ran
		}
		if err != nil {
			return fmt.Errorf("waiting for tessera's jobs: %w", err)
		}
		lk := unix.Flock_t{Type: unix.F_WRLCK, Whence: 0, Start: 0, Len: 0}
		for {
			err = unix.FcntlFlock(f.Fd(), unix.F_OFD_SETLKW, &lk)
			if err != unix.EINTR {
				break
			}
		}
		// Closing the file releases the lock (and, POSIX-wise, any record
		// lock this process holds on it: none, since the lock was granted).
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("waiting for tessera's jobs (%s): %w", p, err)
		}
	}
	return nil
}
