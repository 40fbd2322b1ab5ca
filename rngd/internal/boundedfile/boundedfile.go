// Package boundedfile reads the files rngd and rngctl are given (named in
// rngd's configuration, by an rngctl flag) and the state files they keep,
// none of which may be read whole whatever its size: a damaged or planted
// huge file would be. Its errors name no path: the caller names the
// setting, flag or file, and the path if it may (a path may be a secret
// typed in the wrong place).
package boundedfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// Read reads a file of at most limit bytes; a larger one is refused with a
// *TooLargeError.
func Read(path string, limit int64) ([]byte, error) {
	b, _, err := read(path, limit, false)
	return b, err
}

// ReadStat is Read of a regular file, and returns the file's information
// too: that of the file read (its mode, its owner), not of whatever the
// path names when it is looked up again, for the caller to check. Anything
// else (a FIFO, a device, a directory) is refused before it is read, with
// ErrNotRegular: a FIFO nobody writes would hang the reader.
func ReadStat(path string, limit int64) ([]byte, fs.FileInfo, error) {
	return read(path, limit, true)
}

// ErrNotRegular: a file ReadStat refused, not a regular file.
var ErrNotRegular = errors.New("not a regular file")

func read(path string, limit int64, regular bool) ([]byte, fs.FileInfo, error) {
	flag := os.O_RDONLY
	if regular {
		// Opening a FIFO for reading waits for a writer; non-blocking, it
		// returns at once and is refused below. A regular file ignores it.
		flag |= syscall.O_NONBLOCK
	}
	f, err := os.OpenFile(path, flag, 0)
	if err != nil {
		return nil, nil, Pathless(err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, Pathless(err)
	}
	if regular && !fi.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("%w (%s)", ErrNotRegular, fi.Mode().Type())
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, nil, Pathless(err)
	}
	if int64(len(b)) > limit {
		return nil, nil, &TooLargeError{Limit: limit}
	}
	return b, fi, nil
}

// TooLargeError: a file Read refused, larger than Limit bytes.
type TooLargeError struct{ Limit int64 }

func (e *TooLargeError) Error() string { return "larger than " + byteSize(e.Limit) }

// Pathless drops the path from an *os.PathError.
func Pathless(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// byteSize is n bytes in MiB or KiB when it is a whole number of them.
func byteSize(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
