package receipt_test

import (
	"crypto/sha256"
	"runtime/debug"
	"testing"
	"time"

	"tirage.fr/tirage/attestations"
	"tirage.fr/tirage/attestations/attestationstest"
	"tirage.fr/tirage/verifier/receipt"
	"tirage.fr/tirage/verifier/record"
	"tirage.fr/tirage/verifier/verdict"
)

// FuzzVerifyAttestation: rngverify attestation's and the page's reading of
// an untrusted file (an envelope, or an attestation record embedding one)
// never panics, and a signature check passes only for an envelope the
// announced key signed: one of the seeds' (an Ed25519 signature has one
// encoding, and the envelope one spelling).
func FuzzVerifyAttestation(f *testing.F) {
	a, err := attestationstest.New(9, false)
	if err != nil {
		f.Fatal(err)
	}
	pay, err := attestations.NewPaytableStatement()
	if err != nil {
		f.Fatal(err)
	}
	build, err := attestations.NewBuildStatement(attestations.BuildInput{
		Info:       &debug.BuildInfo{GoVersion: "go1.26.0", Path: "tirage.fr/tirage/cmd/rngd", Main: debug.Module{Path: "tirage.fr/tirage", Version: "(devel)"}},
		Executable: [32]byte{1}, Keys: a.Record.Keys})
	if err != nil {
		f.Fatal(err)
	}
	in := receipt.AttestationInputs{Announcements: []*record.KeyAnnouncement{a.Record}, Config: []byte{}, Binary: &[32]byte{1}}
	signed := map[[32]byte]bool{}
	for _, st := range []*attestations.Statement{pay, build} {
		env, err := a.Sign(st)
		if err != nil {
			f.Fatal(err)
		}
		signed[sha256.Sum256(env)] = true
		leaf, err := record.Format(attestations.NewRecord(time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), a.KeyID, env, st))
		if err != nil {
			f.Fatal(err)
		}
		for _, b := range [][]byte{env, append(env, '\n'), leaf, append(leaf, '\n')} {
			if v := receipt.VerifyAttestation(b, "seed", in); v.First() != nil && v.First().Name != receipt.CheckConfigDigest {
				f.Fatalf("seed does not verify:\n%s", v.Text("en"))
			}
			f.Add(b)
		}
	}
	f.Add([]byte(`{"payload":"e30=","payloadType":"application/vnd.in-toto+json","signatures":[{"keyid":"att-1","sig":""}]}`))
	f.Add([]byte(`{"kind":"attestation"}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, b []byte) {
		v := receipt.VerifyAttestation(b, "fuzz", in)
		if v.Find(receipt.CheckAttestationSignature) == nil || v.Find(receipt.CheckAttestationSignature).Status != verdict.StatusPass {
			return
		}
		env := attestations.EnvelopeBytes(b)
		if r, err := record.Parse(env); err == nil {
			if ar, ok := r.(*record.Attestation); ok {
				env = ar.Statement
			}
		}
		if !signed[sha256.Sum256(env)] {
			t.Fatalf("an envelope the key did not sign passes its signature check:\n%s\n%s", b, v.Text("en"))
		}
	})
}
