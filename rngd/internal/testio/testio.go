// Package testio holds small I/O helpers the daemon's tests share: a
// buffer goroutines may log into while a test reads it, and a copy of the
// running test binary (to run it as another program, or under another
// user).
package testio

import (
	"bytes"
	"io"
	"os"
	"testing"

	"tirage.fr/tirage/transparency/logtest"
)

// Buffer is a bytes.Buffer safe for concurrent writers and readers.
type Buffer = logtest.Buffer

// CopyExecutable copies the running test binary to dst (which must not
// exist), mode 0755 whatever the umask.
func CopyExecutable(t testing.TB, dst string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	in, err := os.Open(exe)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dst, 0o755); err != nil {
		t.Fatal(err)
	}
}

// RecordingReader hands out Src Chunk bytes at most per Read and keeps in
// Written every region of the caller's buffers it wrote into, so that a
// test can see whether the caller left a copy of a secret anywhere but in
// the slice it returned (CheckWiped). Once Src is exhausted it returns Err,
// or io.EOF if nil.
type RecordingReader struct {
	Src     []byte
	Chunk   int
	Err     error
	Written [][]byte
}

func (r *RecordingReader) Read(p []byte) (int, error) {
	if len(r.Src) == 0 {
		if r.Err != nil {
			return 0, r.Err
		}
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), r.Chunk)], r.Src)
	r.Src = r.Src[n:]
	r.Written = append(r.Written, p[:n])
	return n, nil
}

// CheckWiped fails t unless every byte r wrote into its caller's buffers
// is zero now.
func (r *RecordingReader) CheckWiped(t testing.TB, when string) {
	t.Helper()
	for i, w := range r.Written {
		if bytes.ContainsFunc(w, func(r rune) bool { return r != 0 }) {
			t.Errorf("%s: read %d (%d bytes) left unwiped on the heap", when, i, len(w))
			return
		}
	}
}
