package rngd

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

// recordingReader hands out src a few bytes per Read and keeps every
// region of the caller's buffers it wrote into, so that a test can see
// whether the caller left a copy of the secret anywhere but in the slice
// it returned.
type recordingReader struct {
	src     []byte
	chunk   int
	err     error // returned once src is exhausted (io.EOF if nil)
	written [][]byte
}

func (r *recordingReader) Read(p []byte) (int, error) {
	if len(r.src) == 0 {
		if r.err != nil {
			return 0, r.err
		}
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), r.chunk)], r.src)
	r.src = r.src[n:]
	r.written = append(r.written, p[:n])
	return n, nil
}

// TestReadSecretFromOneBuffer: ReadSecretFrom reads into one buffer and
// returns a slice of it, so wiping the secret it returns wipes every byte
// it read; a secret too long, or a failed read, is wiped before the error.
// io.ReadAll grew its buffer as it read, leaving each outgrown buffer with
// an unwiped copy of the start of the secret.
func TestReadSecretFromOneBuffer(t *testing.T) {
	secret := bytes.Repeat([]byte("s3cret-"), 3000/7) // several growths of io.ReadAll's buffer
	r := &recordingReader{src: append(bytes.Clone(secret), '\n'), chunk: 100}
	b, err := ReadSecretFrom(r)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(TrimNewline(b), secret) {
		t.Fatalf("read %d bytes, want the %d of the secret and its newline", len(b), len(secret))
	}
	if cap(b) > MaxSecretFile+1 {
		t.Errorf("cap %d, want at most MaxSecretFile+1 = %d", cap(b), MaxSecretFile+1)
	}
	clear(b)
	checkWiped(t, "after the caller wiped the secret", r.written)

	for _, tc := range []struct {
		name string
		r    *recordingReader
	}{
		{"too long", &recordingReader{src: bytes.Repeat([]byte("x"), MaxSecretFile+10), chunk: 700}},
		{"read error", &recordingReader{src: bytes.Repeat([]byte("y"), 2000), chunk: 300, err: errors.New("device gone")}},
	} {
		if b, err := ReadSecretFrom(tc.r); err == nil {
			t.Errorf("%s: read %d bytes, want an error", tc.name, len(b))
		}
		checkWiped(t, tc.name, tc.r.written)
	}
}

func checkWiped(t *testing.T, when string, written [][]byte) {
	t.Helper()
	for i, w := range written {
		if bytes.ContainsFunc(w, func(r rune) bool { return r != 0 }) {
			t.Errorf("%s: read %d (%d bytes) left unwiped on the heap", when, i, len(w))
			return
		}
	}
}
