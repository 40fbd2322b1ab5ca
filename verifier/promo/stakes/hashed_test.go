package stakes

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"io"
	"testing"
	"testing/iotest"
)

// terminal gives its bytes, then an end of file, and fails the test if it
// is read again after it: a terminal's standard input would wait there for
// a second Ctrl-D.
type terminal struct {
	t    *testing.T
	b    []byte
	done bool
}

func (r *terminal) Read(p []byte) (int, error) {
	if r.done {
		r.t.Error("read again after its end of file")
		return 0, io.EOF
	}
	n := copy(p, r.b)
	r.b = r.b[n:]
	if len(r.b) == 0 {
		r.done = true
		return n, io.EOF
	}
	return n, nil
}

// Hashed digests the whole input, what read left unread included, and
// reads no further once the input gave its end.
func TestHashed(t *testing.T) {
	data := []byte("account,day\na,1\nb,2\n")
	want := sha256.Sum256(data)
	// read stops early: the rest is hashed.
	sum, err := Hashed(bytes.NewReader(data), func(r io.Reader) error {
		_, err := io.ReadFull(r, make([]byte, 5))
		return err
	})
	if err != nil || sum != want {
		t.Errorf("read of 5 bytes: %x, %v; want the whole file's %x", sum, err, want)
	}
	// read reaches the end: nothing is read after it.
	sum, err = Hashed(&terminal{t: t, b: data}, func(r io.Reader) error {
		_, err := io.Copy(io.Discard, iotest.OneByteReader(r))
		return err
	})
	if err != nil || sum != want {
		t.Errorf("read to the end: %x, %v; want %x", sum, err, want)
	}
	// read's error is returned as it is.
	boom := errors.New("boom")
	if _, err := Hashed(bytes.NewReader(data), func(io.Reader) error { return boom }); err != boom {
		t.Errorf("read's error: %v", err)
	}
}
