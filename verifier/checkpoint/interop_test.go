package checkpoint_test

import (
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"testing"

	"github.com/cloudflare/circl/sign/mldsa/mldsa44"
	"golang.org/x/mod/sumdb/tlog"

	signing "tirage.fr/tirage/transparency/checkpoint"
	"tirage.fr/tirage/verifier/checkpoint"
)

// TestDaemonSigner opens checkpoints signed by the daemon's own signing code
// (transparency/checkpoint, Ed25519 + ML-DSA-44) with the verifier's keys
// parsed from the daemon's verifier key texts. (A test dependency only: the
// verifier itself does not import transparency.)
func TestDaemonSigner(t *testing.T) {
	const origin = "tirage.test/interop"
	_, edKey, _ := ed25519.GenerateKey(rand.Reader)
	mlPub, mlKey, err := mldsa44.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	edSigner, err := signing.NewSigner(origin, edKey)
	if err != nil {
		t.Fatal(err)
	}
	mlSigner, err := signing.NewSigner(origin, mlKey)
	if err != nil {
		t.Fatal(err)
	}
	edText, _ := signing.VerifierKey(origin, edKey.Public())
	mlText, _ := signing.VerifierKey(origin, mlPub)
	keys, err := checkpoint.ParseKeys(edText + "\n" + mlText + "\n")
	if err != nil {
		t.Fatal(err)
	}
	if keys[0].Algorithm != "Ed25519" || keys[1].Algorithm != "ML-DSA-44" {
		t.Fatalf("algorithms %s, %s", keys[0].Algorithm, keys[1].Algorithm)
	}
	root := tlog.Hash{1, 2, 3}
	both, err := signing.Sign(origin, 42, root, edSigner, mlSigner)
	if err != nil {
		t.Fatal(err)
	}
	c, err := checkpoint.Open(both.Note, keys)
	if err != nil || c.Size != 42 || c.Root != root || c.Origin != origin {
		t.Fatalf("Open: %v %v", c, err)
	}
	// Pinning both keys requires both signatures.
	edOnly, _ := signing.Sign(origin, 42, root, edSigner)
	if _, err := checkpoint.Open(edOnly.Note, keys); !errors.Is(err, checkpoint.ErrUntrusted) {
		t.Errorf("a checkpoint without the ML-DSA-44 signature: %v", err)
	}
	if _, err := checkpoint.Open(edOnly.Note, keys[:1]); err != nil {
		t.Errorf("Ed25519 only, Ed25519 trusted: %v", err)
	}
	// A flipped ML-DSA-44 signature is refused.
	bad := append([]byte(nil), both.Note...)
	bad[len(bad)-10] ^= 1
	if _, err := checkpoint.Open(bad, keys); err == nil {
		t.Error("a corrupted signature was accepted")
	}
}
