package boundedfile

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// CheckOwner refuses the file fi (called name in the error) when another
// user than root and the one reading it owns it: its owner may read and
// change it whatever its mode; could says what they could then do.
func CheckOwner(fi fs.FileInfo, name, could string) error {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && st.Uid != 0 && int(st.Uid) != os.Geteuid() {
		return fmt.Errorf("%s is owned by uid %d, neither root nor the user reading it (uid %d), who could %s: chown it", name, st.Uid, os.Geteuid(), could)
	}
	return nil
}

// CheckWriters refuses fi (called name in the error) when another user
// than root and the one reading it may write it: its owner, whatever its
// mode (CheckOwner), or group or others by its mode; could says what they
// could do, chmod how to close it.
func CheckWriters(fi fs.FileInfo, name, could, chmod string) error {
	if err := CheckOwner(fi, name, could); err != nil {
		return err
	}
	if perm := fi.Mode().Perm(); perm&0o022 != 0 {
		return fmt.Errorf("%s has mode %04o: writable by group or others, who could %s: chmod %s", name, perm, could, chmod)
	}
	return nil
}
