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

// A storage failure fails the append with ErrUnavailable (the draw is
// refused) and counts it; nothing is acknowledged.
func TestAppendFailure(t *testing.T) {
	dir := t.TempDir()
	l, err := tilelog.Open(context.Background(), tilelog.Config{Dir: dir, Origin: origin, Signers: testSigners(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if _, err := l.Append(t.Context(), []byte("first")); err != nil {
		t.Fatal(err)
	}
	// Entry bundles can no longer be written (a file where their directory
	// should be: fails even for root).
	entries := filepath.Join(dir, "tiles", "tile", "entries")
	if err := os.RemoveAll(entries); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(entries, []byte("in the way"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = l.Append(t.Context(), []byte("second"))
	if !errors.Is(err, transparency.ErrUnavailable) {
		t.Fatalf("Append on broken storage = %v, want ErrUnavailable", err)
	}
	if s := l.Stats(); s.Failures != 1 || s.Appends != 1 || s.InFlight != 0 {
		t.Fatalf("Stats = %+v", s)
	}
}
