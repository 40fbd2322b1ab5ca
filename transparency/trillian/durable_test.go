package trillian

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
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

// saveState writes the state file durably (atomicfile.Write, whose fsync
// order its own tests check): each checkpoint, the first and a replacement,
// reads back, mode 0600, no temporary file left.
func TestSaveStateDurable(t *testing.T) {
	dir := t.TempDir()
	state := filepath.Join(dir, "trillian-checkpoint")
	l := stateLog(t, state)
	for size := uint64(3); size <= 4; size++ {
		cp, err := checkpoint.Sign("tirage.fr/log/state", size, tlog.Hash{byte(size)}, l.signers...)
		if err != nil {
			t.Fatal(err)
		}
		if err := l.saveState(cp); err != nil {
			t.Fatal(err)
		}
		if got, err := os.ReadFile(state); err != nil || !bytes.Equal(got, cp.Note) {
			t.Fatalf("state file = %q, %v; want the new checkpoint", got, err)
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

// A failed save is ErrUnavailable: the checkpoint is not handed out as if
// it were durable.
func TestSaveStateError(t *testing.T) {
	l := stateLog(t, filepath.Join(t.TempDir(), "missing", "trillian-checkpoint"))
	cp, err := checkpoint.Sign("tirage.fr/log/state", 1, tlog.Hash{1}, l.signers...)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.saveState(cp); !errors.Is(err, transparency.ErrUnavailable) {
		t.Fatalf("saveState into a missing directory = %v, want ErrUnavailable", err)
	}
}
