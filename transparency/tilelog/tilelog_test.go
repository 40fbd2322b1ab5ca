package tilelog_test

import (
	"context"
	"crypto"
	"crypto/ed25519"
	"crypto/rand"
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
