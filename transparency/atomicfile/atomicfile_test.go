package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestWriteReplaces(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	if err := Write(p, []byte("one"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Write(p, []byte("two"), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(p)
	if err != nil || string(got) != "two" {
		t.Fatalf("read %q, %v; want \"two\"", got, err)
	}
	fi, err := os.Stat(p)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v, %v; want 0600", fi.Mode().Perm(), err)
	}
	if _, err := os.Stat(p + ".tmp"); !os.IsNotExist(err) {
		t.Fatalf("temporary file left behind: %v", err)
	}
}

func TestWriteFailsWithoutDirectory(t *testing.T) {
	p := filepath.Join(t.TempDir(), "missing", "f")
	if err := Write(p, []byte("x"), 0o600); err == nil {
		t.Fatal("Write into a missing directory succeeded")
	}
}

// The temporary file is fsynced before the rename (path still holds the old
// content), the directory after it (path holds the new): else a power cut
// can leave the old content, or none.
func TestWriteFsyncOrder(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	var calls []string
	var want string
	realFile, realDir := syncFile, syncDir
	t.Cleanup(func() { syncFile, syncDir = realFile, realDir })
	syncFile = func(f *os.File) error {
		calls = append(calls, "file "+f.Name())
		if got, _ := os.ReadFile(p); string(got) == want {
			t.Error("path already holds the new content when the temporary file is fsynced")
		}
		return realFile(f)
	}
	syncDir = func(d string) error {
		calls = append(calls, "dir "+d)
		if got, err := os.ReadFile(p); err != nil || string(got) != want {
			t.Errorf("path when its directory is fsynced = %q, %v; want %q", got, err, want)
		}
		return realDir(d)
	}
	for _, want = range []string{"first", "second"} {
		calls = nil
		if err := Write(p, []byte(want), 0o600); err != nil {
			t.Fatal(err)
		}
		if w := []string{"file " + p + ".tmp", "dir " + dir}; !slices.Equal(calls, w) {
			t.Fatalf("fsyncs = %q, want %q", calls, w)
		}
	}
}

// A failed directory fsync is a failed Write.
func TestWriteDirSyncError(t *testing.T) {
	realDir := syncDir
	t.Cleanup(func() { syncDir = realDir })
	syncDir = func(string) error { return errors.New("EIO") }
	if err := Write(filepath.Join(t.TempDir(), "f"), []byte("x"), 0o600); err == nil {
		t.Fatal("Write with the directory fsync failing succeeded")
	}
}
