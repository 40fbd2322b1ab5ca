package tilelog_test

import (
	"context"
	"crypto"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cloudflare/circl/sign/mldsa/mldsa44"

	"tirage.fr/tirage/transparency"
	"tirage.fr/tirage/transparency/logtest"
	"tirage.fr/tirage/transparency/tilelog"
)

const origin = "tirage.fr/log/test"

func testSigners(t testing.TB) []crypto.Signer {
	_, ed, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	_, ml, err := mldsa44.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return []crypto.Signer{ml, ed}
}

func opener(t *testing.T) logtest.Opener {
	dir := t.TempDir()
	signers := testSigners(t)
	return func() (transparency.Log, error) {
		return tilelog.Open(context.Background(), tilelog.Config{
			Dir:         dir,
			Origin:      origin,
			Signers:     signers,
			BatchMaxAge: 5 * time.Millisecond,
		})
	}
}

func TestConformance(t *testing.T) { logtest.Run(t, opener) }

// A storage failure under tessera stops the append pipeline: the leaf
// already journaled keeps its index, later appends fail with ErrUnavailable
// (the draw is refused) and are counted; once the storage is repaired,
// reopening the log integrates the journaled leaf at the index it was given.
func TestAppendFailure(t *testing.T) {
	dir := t.TempDir()
	cfg := tilelog.Config{Dir: dir, Origin: origin, Signers: testSigners(t)}
	l, err := tilelog.Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Append(t.Context(), []byte("first")); err != nil {
		t.Fatal(err)
	}
	if _, err := l.AwaitCheckpoint(t.Context(), 1); err != nil {
		t.Fatal(err)
	}
	// Entry bundles can no longer be written (a file where their directory
	// should be: fails even for root).
	entries := filepath.Join(dir, "tiles", "tile", "entries")
	saved := filepath.Join(dir, "entries.saved")
	if err := os.Rename(entries, saved); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(entries, []byte("in the way"), 0o600); err != nil {
		t.Fatal(err)
	}
	idx, err := l.Append(t.Context(), []byte("second"))
	if err != nil || idx != 1 {
		t.Fatalf("Append(second) = %d, %v; want 1 (journaled)", idx, err)
	}
	deadline := time.Now().Add(time.Minute)
	for {
		_, err = l.Append(t.Context(), []byte("refused"))
		if err != nil || time.Now().After(deadline) {
			break
		}
	}
	if !errors.Is(err, transparency.ErrUnavailable) {
		t.Fatalf("Append on broken storage = %v, want ErrUnavailable", err)
	}
	if s := l.Stats(); s.Failures != 1 || s.InFlight != 0 {
		t.Fatalf("Stats = %+v", s)
	}
	// Every acknowledged leaf is sequenced, integrated or not.
	sequenced := l.Sequenced()
	if sequenced < 2 {
		t.Fatalf("Sequenced() = %d after two acknowledged appends", sequenced)
	}
	l.Close()

	if err := os.Remove(entries); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(saved, entries); err != nil {
		t.Fatal(err)
	}
	l, err = tilelog.Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if got := l.Sequenced(); got != sequenced {
		t.Fatalf("after reopening, Sequenced() = %d, want %d", got, sequenced)
	}
	cp, err := l.AwaitCheckpoint(t.Context(), sequenced)
	if err != nil {
		t.Fatal(err)
	}
	if cp.Size != sequenced {
		t.Fatalf("after reopening, the checkpoint covers %d leaves, want the %d sequenced", cp.Size, sequenced)
	}
	got, err := l.Entries(t.Context(), 0, cp.Size, cp.Size)
	if err != nil {
		t.Fatal(err)
	}
	if string(got[0]) != "first" || string(got[1]) != "second" {
		t.Fatalf("after reopening, entries 0 and 1 = %q, %q; want first, second", got[0], got[1])
	}
	for _, e := range got[2:] {
		if string(e) != "refused" {
			t.Fatalf("unexpected entry %q", e)
		}
	}
}
