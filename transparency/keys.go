package transparency

import (
	"crypto"
	"crypto/ed25519"
	"errors"
	"fmt"
	"sort"

	"golang.org/x/mod/sumdb/note"

	"tirage.fr/tirage/transparency/checkpoint"
)

// CheckpointKeys turns the log's signing keys into note signers, the
// matching verifiers and their verifier key texts, Ed25519 first. At least
// one Ed25519 key is required: it is the key every C2SP tool checks; an
// ML-DSA-44 key, if given, adds a post-quantum signature line (rngd gives
// none yet: docs/transparency.md).
func CheckpointKeys(origin string, signers []crypto.Signer) ([]note.Signer, []note.Verifier, []string, error) {
	if origin == "" {
		return nil, nil, nil, errors.New("checkpoint origin is empty")
	}
	sorted := append([]crypto.Signer(nil), signers...)
	sort.SliceStable(sorted, func(i, j int) bool {
		_, ei := sorted[i].Public().(ed25519.PublicKey)
		_, ej := sorted[j].Public().(ed25519.PublicKey)
		return ei && !ej
	})
	if len(sorted) == 0 {
		return nil, nil, nil, errors.New("no checkpoint signer configured")
	}
	if _, ok := sorted[0].Public().(ed25519.PublicKey); !ok {
		return nil, nil, nil, errors.New("no Ed25519 checkpoint signer configured")
	}
	var (
		ns []note.Signer
		nv []note.Verifier
		vk []string
	)
	for i, s := range sorted {
		signer, err := checkpoint.NewSigner(origin, s)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("checkpoint signer %d: %w", i, err)
		}
		v, err := checkpoint.NewVerifier(origin, s.Public())
		if err != nil {
			return nil, nil, nil, fmt.Errorf("checkpoint signer %d: %w", i, err)
		}
		k, err := checkpoint.VerifierKey(origin, s.Public())
		if err != nil {
			return nil, nil, nil, fmt.Errorf("checkpoint signer %d: %w", i, err)
		}
		ns, nv, vk = append(ns, signer), append(nv, v), append(vk, k)
	}
	return ns, nv, vk, nil
}
