package hsm_test

import (
	"crypto"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"tirage.fr/tirage/hsm"
	"tirage.fr/tirage/hsm/keystore"
	"tirage.fr/tirage/verifier/record"
	"tirage.fr/tirage/verifier/vrf"
)

func announcement(t testing.TB) ([]byte, []hsm.AnnouncedKey) {
	t.Helper()
	s, err := keystore.Open(keystore.Config{Dir: filepath.Join(t.TempDir(), "k"), Passphrase: []byte("announce passphrase"),
		KDF: keystore.KDFParams{Time: 1, MemoryKiB: 8 * 1024, Threads: 1}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	p, err := s.GenerateVRF("vrf", vrf.SuiteP256SSWU)
	if err != nil {
		t.Fatal(err)
	}
	l, err := s.GenerateSigner("log", hsm.Ed25519)
	if err != nil {
		t.Fatal(err)
	}
	a, err := s.GenerateSigner("attestation", hsm.ECDSAP256SHA256)
	if err != nil {
		t.Fatal(err)
	}
	keys := []hsm.AnnouncedKey{{Use: hsm.UseVRF, Label: "vrf", Prover: p}, {Use: hsm.UseLog, Label: "log", Signer: l},
		{Use: hsm.UseAttestation, Label: "attestation", Signer: a}}
	leaf, err := hsm.Announce(time.Date(2026, 11, 30, 2, 0, 0, 5, time.UTC), keys)
	if err != nil {
		t.Fatal(err)
	}
	return leaf, keys
}

func TestAnnounce(t *testing.T) {
	leaf, keys := announcement(t)
	ann, err := hsm.CheckAnnouncement(leaf)
	if err != nil {
		t.Fatalf("CheckAnnouncement: %v\n%s", err, leaf)
	}
	if !ann.Time.Equal(time.Date(2026, 11, 30, 2, 0, 0, 0, time.UTC)) {
		t.Errorf("time %v, want truncated to the second", ann.Time)
	}
	if len(ann.Keys) != 3 {
		t.Fatalf("%d keys announced", len(ann.Keys))
	}
	wantVRF := keys[0].Prover.PublicKey().Bytes()
	if k := ann.Keys[0]; k.ID != "vrf" || k.Use != "vrf" || k.Suite != string(vrf.SuiteP256SSWU) || string(k.PublicKey) != string(wantVRF) {
		t.Errorf("keys[0] = %+v", k)
	}
	if k := ann.Keys[1]; k.Suite != hsm.Ed25519 || hsm.Fingerprint(k.PublicKey) != record.Hex(k.Fingerprint) {
		t.Errorf("keys[1] = %+v", k)
	}

	// Tampering with any part is caught.
	reformat := func(f func(a *record.KeyAnnouncement, env map[string]any)) []byte {
		r, _ := record.Parse(leaf)
		a := r.(*record.KeyAnnouncement)
		var env map[string]any
		json.Unmarshal(a.Attestation, &env)
		f(a, env)
		a.Attestation, _ = json.Marshal(env)
		b, err := record.Format(a)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	other, _ := vrf.GenerateKey(vrf.SuiteP256SSWU, nil2rand{})
	for name, bad := range map[string][]byte{
		"swapped VRF key": reformat(func(a *record.KeyAnnouncement, env map[string]any) {
			a.Keys[0].PublicKey = other.Public().Bytes()
			a.Keys[0].Fingerprint = record.Fingerprint(a.Keys[0].PublicKey)
		}),
		"dropped signature": reformat(func(a *record.KeyAnnouncement, env map[string]any) {
			env["signatures"] = env["signatures"].([]any)[:2]
		}),
		"reordered signatures": reformat(func(a *record.KeyAnnouncement, env map[string]any) {
			s := env["signatures"].([]any)
			s[1], s[2] = s[2], s[1]
		}),
		"forged VRF proof": reformat(func(a *record.KeyAnnouncement, env map[string]any) {
			s := env["signatures"].([]any)
			pi, _ := other.Prove([]byte("x"))
			s[0].(map[string]any)["sig"] = pi
		}),
		"other payload type": reformat(func(a *record.KeyAnnouncement, env map[string]any) {
			env["payloadType"] = "application/vnd.in-toto+json"
		}),
		"no attestation": reformat(func(a *record.KeyAnnouncement, env map[string]any) {
			for k := range env {
				delete(env, k)
			}
		}),
	} {
		if _, err := hsm.CheckAnnouncement(bad); !errors.Is(err, hsm.ErrBadAnnouncement) {
			t.Errorf("%s: CheckAnnouncement err = %v, want ErrBadAnnouncement", name, err)
		}
	}
}

// nil2rand is a deterministic reader for a throwaway key.
type nil2rand struct{}

func (nil2rand) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(i + 7)
	}
	return len(p), nil
}

func FuzzCheckAnnouncement(f *testing.F) {
	leaf, _ := announcement(f)
	f.Add(leaf)
	f.Add([]byte(`{"keys":[],"kind":"key","time":"2026-11-30T02:00:00Z","v":1}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		ann, err := hsm.CheckAnnouncement(b)
		if err != nil {
			return
		}
		// Accepted: it is canonical and re-checks.
		again, err := record.Format(ann)
		if err != nil || string(again) != string(b) {
			t.Fatalf("accepted a non-canonical announcement")
		}
	})
}

// lyingSigner announces one key and signs with another, as a faulty or
// misconfigured backend might.
type lyingSigner struct {
	hsm.Signer
	pub crypto.PublicKey
}

func (l lyingSigner) Public() crypto.PublicKey { return l.pub }

// TestAnnounceChecksBeforeRelease: Announce never returns an announcement
// that CheckAnnouncement rejects; a key whose signature does not verify
// under the public key it announces fails the announcement.
func TestAnnounceChecksBeforeRelease(t *testing.T) {
	_, keys := announcement(t)
	other, _, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	keys[1].Signer = lyingSigner{Signer: keys[1].Signer, pub: other}
	leaf, err := hsm.Announce(time.Date(2026, 11, 30, 2, 0, 0, 0, time.UTC), keys)
	if err == nil {
		_, cerr := hsm.CheckAnnouncement(leaf)
		t.Fatalf("Announce returned an announcement with a key that did not sign it (CheckAnnouncement: %v)", cerr)
	}
	if !errors.Is(err, hsm.ErrUnavailable) {
		t.Errorf("err = %v, want ErrUnavailable (no announcement made)", err)
	}
}
