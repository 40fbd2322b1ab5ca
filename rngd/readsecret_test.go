package rngd

import (
	"bytes"
	"errors"
	"testing"

	"tirage.fr/tirage/rngd/internal/testio"
)

// TestReadSecretFromOneBuffer: ReadSecretFrom reads into one buffer and
// returns a slice of it, so wiping the secret it returns wipes every byte
// it read; a secret too long, or a failed read, is wiped before the error.
// io.ReadAll grew its buffer as it read, leaving each outgrown buffer with
// an unwiped copy of the start of the secret.
func TestReadSecretFromOneBuffer(t *testing.T) {
	secret := bytes.Repeat([]byte("s3cret-"), 3000/7) // several growths of io.ReadAll's buffer
	r := &testio.RecordingReader{Src: append(bytes.Clone(secret), '\n'), Chunk: 100}
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
	r.CheckWiped(t, "after the caller wiped the secret")

	for _, tc := range []struct {
		name string
		r    *testio.RecordingReader
	}{
		{"too long", &testio.RecordingReader{Src: bytes.Repeat([]byte("x"), MaxSecretFile+10), Chunk: 700}},
		{"read error", &testio.RecordingReader{Src: bytes.Repeat([]byte("y"), 2000), Chunk: 300, Err: errors.New("device gone")}},
	} {
		if b, err := ReadSecretFrom(tc.r); err == nil {
			t.Errorf("%s: read %d bytes, want an error", tc.name, len(b))
		}
		tc.r.CheckWiped(t, tc.name)
	}
}
