package boundedfile

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestReadStatRefusesNonRegular: a FIFO nobody writes is refused at once
// (it used to block the reader, rngd's start among them), and so is a
// directory; Read still takes a FIFO (rngctl --log <(…)).
func TestReadStatRefusesNonRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	done := make(chan error, 1)
	go func() { _, _, err := ReadStat(fifo, 1<<10); done <- err }()
	select {
	case err := <-done:
		if !errors.Is(err, ErrNotRegular) {
			t.Errorf("FIFO: %v, want ErrNotRegular", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("ReadStat blocked on a FIFO nobody writes")
	}
	if _, _, err := ReadStat(dir, 1<<10); !errors.Is(err, ErrNotRegular) {
		t.Errorf("directory: %v, want ErrNotRegular", err)
	}

	go func() {
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err == nil {
			w.Write([]byte("key"))
			w.Close()
		}
	}()
	if b, err := Read(fifo, 1<<10); err != nil || string(b) != "key" {
		t.Errorf("Read of a FIFO: %q, %v", b, err)
	}

	file := filepath.Join(dir, "f")
	os.WriteFile(file, []byte("12345"), 0o600)
	if b, fi, err := ReadStat(file, 5); err != nil || string(b) != "12345" || fi.Size() != 5 {
		t.Errorf("regular file: %q, %v", b, err)
	}
	var large *TooLargeError
	if _, _, err := ReadStat(file, 4); !errors.As(err, &large) {
		t.Errorf("larger than the limit: %v", err)
	}
}
