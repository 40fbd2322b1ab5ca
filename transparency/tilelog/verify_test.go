package tilelog

import (
	"context"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/mod/sumdb/note"

	"tirage.fr/tirage/transparency"
)

// countingVerifier counts its verifications, each slow enough that
// concurrent readers of a new checkpoint overlap.
type countingVerifier struct {
	note.Verifier
	n *atomic.Int32
}

func (v countingVerifier) Verify(msg, sig []byte) bool {
	v.n.Add(1)
	time.Sleep(50 * time.Millisecond)
	return v.Verifier.Verify(msg, sig)
}

// Waiters that read a new checkpoint at once verify it once.
func TestCheckpointVerifiedOnce(t *testing.T) {
	dir := t.TempDir()
	signers := lagSigners(t)
	cfg := Config{Dir: dir, Origin: "example.com/verify", Signers: signers}
	l, err := Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Append(context.Background(), []byte("leaf")); err != nil {
		t.Fatal(err)
	}
	if _, err := l.AwaitCheckpoint(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	_, verifiers, _, err := transparency.CheckpointKeys(cfg.Origin, signers)
	if err != nil {
		t.Fatal(err)
	}
	var n atomic.Int32
	for i, v := range verifiers {
		verifiers[i] = countingVerifier{v, &n}
	}
	// A log with no checkpoint cached: the file is new to it.
	fresh := &Log{tilesDir: filepath.Join(dir, "tiles"), verifiers: verifiers}
	start := make(chan struct{})
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			<-start
			if _, err := fresh.AwaitCheckpoint(context.Background(), 1); err != nil {
				t.Error(err)
			}
		})
	}
	close(start)
	wg.Wait()
	if got := n.Load(); got != int32(len(verifiers)) {
		t.Errorf("%d signature verifications, want %d (one checkpoint.Open)", got, len(verifiers))
	}
}
