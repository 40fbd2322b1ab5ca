package trillian

import (
	"os"
	"path/filepath"
)

// The fsyncs writeDurable depends on; tests replace them to check their
// order.
var (
	syncFile = (*os.File).Sync
	syncDir  = func(dir string) error {
		d, err := os.Open(dir)
		if err != nil {
			return err
		}
		defer d.Close()
		return d.Sync()
	}
)

// writeDurable replaces path with data so that once it returns the new
// content survives a power cut, and readers never see a partial file: data
// goes to a temporary file in the same directory, fsynced, renamed over
// path, then the directory is fsynced, since the rename is durable only
// once the directory entry is. (The same steps as rngd/atomicfile, which
// transparency must not import.)
func writeDurable(path string, data []byte, mode os.FileMode) error {
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
