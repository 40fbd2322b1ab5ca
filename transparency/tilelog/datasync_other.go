//go:build !linux

package tilelog

import "os"

// datasync is f.Sync where fdatasync is not available.
func datasync(f *os.File) error { return f.Sync() }
