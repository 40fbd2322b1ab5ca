// Package atomicfile replaces a file durably: readers see the old content or
// the new, never a mix, and once Write returns the new content survives a
// crash (the data is fsynced before the rename, the directory after it).
// The appliance's durable files use it: the daemon's manifests and promotion
// state, the Trillian backend's last signed checkpoint, the embedded log's
// journal directory.
package atomicfile

import (
	"fmt"
	"os"
	"path/filepath"
)

// The fsyncs Write depends on; tests replace them to check their order.
var (
	syncFile = (*os.File).Sync
	syncDir  = SyncDir
)

// Write replaces path with data (mode applies to a newly created file) via a
// temporary file in the same directory, fsync and rename, then fsyncs the
// directory: the rename is durable only once the directory entry is.
func Write(path string, data []byte, mode os.FileMode) error {
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, mode)
	if err != nil {
		return err
	}
	if _, err = f.Write(data); err == nil {
		err = syncFile(f)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	return syncDir(filepath.Dir(path))
}

// SyncDir fsyncs directory dir, making the creations, renames and removals
// of entries in it durable.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("couldn't open %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("couldn't sync %s: %w", dir, err)
	}
	return nil
}
