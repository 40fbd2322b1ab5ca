package trillian

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"golang.org/x/mod/sumdb/tlog"

	"tirage.fr/tirage/transparency"
	"tirage.fr/tirage/transparency/checkpoint"
	"tirage.fr/tirage/transparency/logtest"
)

// stateLog is a Log with just what saveState and loadState use.
func stateLog(t *testing.T, state string) *Log {
	t.Helper()
	signers, verifiers, _, err := transparency.CheckpointKeys("tirage.fr/log/state", logtest.SeededSigners("state"))
	if err != nil {
		t.Fatal(err)
	}
	return &Log{cfg: Config{StateFile: state}, signers: signers, verifiers: verifiers}
}

// saveState writes the state file durably: the temporary file is fsynced
// before the rename, the directory after it (else a power cut can leave the
// previous checkpoint, or none, and a database restored from a backup goes
// undetected). Both writes, the first and a replacement, are checked.
func TestSaveStateDurable(t *testing.T) {
	dir := t.TempDir()
	state := filepath.Join(dir, "trillian-checkpoint")
	l := stateLog(t, state)
	var calls []string
	var want []byte
	realFile, realDir := syncFile, syncDir
	t.Cleanup(func() { syncFile, syncDir = realFile, realDir })
	syncFile = func(f *os.File) error {
		calls = append(calls, "file "+f.Name())
		if got, _ := os.ReadFile(state); bytes.Equal(got, want) {
			t.Error("state file already holds the new checkpoint when the temporary file is fsynced")
		}
		return realFile(f)
	}
	syncDir = func(d string) error {
		calls = append(calls, "dir "+d)
		if got, err := os.ReadFile(state); err != nil || !bytes.Equal(got, want) {
			t.Errorf("state file when its directory is fsynced = %q, %v; want the new checkpoint", got, err)
		}
		return realDir(d)
	}
	for size := uint64(3); size <= 4; size++ {
		cp, err := checkpoint.Sign("tirage.fr/log/state", size, tlog.Hash{byte(size)}, l.signers...)
		if err != nil {
			t.Fatal(err)
		}
		want, calls = cp.Note, nil
		if err := l.saveState(cp); err != nil {
			t.Fatal(err)
		}
		if w := []string{"file " + state + ".tmp", "dir " + dir}; !slices.Equal(calls, w) {
			t.Fatalf("fsyncs = %q, want %q", calls, w)
		}
		fi, err := os.Stat(state)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("state file mode %v, want 0600", fi.Mode().Perm())
		}
		if _, err := os.Stat(state + ".tmp"); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("temporary file left behind: %v", err)
		}
		back := stateLog(t, state)
		if err := back.loadState(); err != nil {
			t.Fatal(err)
		}
		if back.cp == nil || back.cp.Size != size || back.cp.Hash != cp.Hash {
			t.Fatalf("state file reads back as %+v, want size %d", back.cp, size)
		}
	}
}

// A failed directory fsync is a failed save: the checkpoint is not handed
// out as if it were durable.
func TestSaveStateDirSyncError(t *testing.T) {
	l := stateLog(t, filepath.Join(t.TempDir(), "trillian-checkpoint"))
	realDir := syncDir
	t.Cleanup(func() { syncDir = realDir })
	syncDir = func(string) error { return errors.New("EIO") }
	cp, err := checkpoint.Sign("tirage.fr/log/state", 1, tlog.Hash{1}, l.signers...)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.saveState(cp); !errors.Is(err, transparency.ErrUnavailable) {
		t.Fatalf("saveState with the directory fsync failing = %v, want ErrUnavailable", err)
	}
}
