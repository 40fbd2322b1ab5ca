package vrf

import (
	"bytes"
	"errors"
	"testing"

	"tirage.fr/tirage/verifier/verdict"
)

// fuzzSuites maps the fuzzers' suite byte to a suite.
func fuzzSuite(b byte) Suite {
	s := Suites()
	return s[int(b)%len(s)]
}

func suiteIndex(s Suite) byte {
	for i, x := range Suites() {
		if x == s {
			return byte(i)
		}
	}
	panic("unknown suite " + s)
}

// verifySeed is one seed of FuzzVerify.
type verifySeed struct {
	suite            byte
	pk, alpha, proof []byte
	valid            bool
}

// verifySeeds is the seed corpus of FuzzVerify: every vector, plus each
// with a flipped bit, a changed alpha, a truncated proof and another
// suite's key.
func verifySeeds(t testing.TB) []verifySeed {
	var out []verifySeed
	for _, e := range loadExamples(t) {
		i := suiteIndex(e.suite)
		flipped := bytes.Clone(e.pi)
		flipped[len(flipped)/2] ^= 4
		out = append(out,
			verifySeed{i, e.pkRaw, e.alpha, e.pi, true},
			verifySeed{i, e.pkRaw, e.alpha, flipped, false},
			verifySeed{i, e.pkRaw, append(bytes.Clone(e.alpha), 'x'), e.pi, false},
			verifySeed{i, e.pkRaw, e.alpha, e.pi[:len(e.pi)-1], false},
			verifySeed{i + 1, e.pkRaw, e.alpha, e.pi, false},
		)
	}
	return out
}

// FuzzVerify checks that Verify never panics on arbitrary keys, inputs and
// proofs, that everything it rejects as a proof wraps ErrInvalidProof with a
// one-line message, and that whatever it accepts agrees with ProofToHash.
func FuzzVerify(f *testing.F) {
	for _, s := range verifySeeds(f) {
		f.Add(s.suite, s.pk, s.alpha, s.proof)
	}
	f.Fuzz(func(t *testing.T, suite byte, pkb, alpha, proof []byte) {
		s := fuzzSuite(suite)
		pk, err := ParsePublicKey(s, pkb)
		if err != nil {
			return
		}
		beta, err := Verify(pk, alpha, proof)
		if err != nil {
			if !errors.Is(err, ErrInvalidProof) || bytes.ContainsRune([]byte(err.Error()), '\n') {
				t.Fatalf("Verify error %q", err)
			}
			return
		}
		if len(proof) != ProofSize(s, pk) {
			t.Fatalf("accepted a %d-byte proof, ProofSize %d", len(proof), ProofSize(s, pk))
		}
		b2, err := ProofToHash(s, proof)
		if err != nil || !bytes.Equal(beta, b2) {
			t.Fatalf("Verify β %x, ProofToHash %x, %v", beta, b2, err)
		}
	})
}

// FuzzProofMutation takes each valid vector proof, xors a byte into it and
// checks that the result is rejected — unless the xor is zero.
func FuzzProofMutation(f *testing.F) {
	ex := loadExamples(f)
	for i := range ex {
		f.Add(uint8(i), uint16(0), byte(1))
		f.Add(uint8(i), uint16(40), byte(0x80))
		f.Add(uint8(i), uint16(80), byte(0xff))
	}
	f.Fuzz(func(t *testing.T, idx uint8, pos uint16, x byte) {
		e := ex[int(idx)%len(ex)]
		pi := bytes.Clone(e.pi)
		pi[int(pos)%len(pi)] ^= x
		beta, err := Verify(e.pk, e.alpha, pi)
		if x == 0 {
			if err != nil || !bytes.Equal(beta, e.beta) {
				t.Fatalf("valid proof: β %x, %v", beta, err)
			}
			return
		}
		if !errors.Is(err, ErrInvalidProof) {
			t.Fatalf("mutated proof (byte %d ^ %#x): %v", int(pos)%len(pi), x, err)
		}
	})
}

// FuzzParsePublicKey checks that ParsePublicKey never panics, that every
// key it accepts round-trips byte for byte, and that every P-256 key it
// refuses is refused with a reason of verdict's catalog (said in French
// too) whose English is the error's text.
func FuzzParsePublicKey(f *testing.F) {
	for _, e := range loadExamples(f) {
		i := suiteIndex(e.suite)
		f.Add(i, e.pkRaw)
		f.Add(i, e.pkRaw[:len(e.pkRaw)-1])
		f.Add(i+1, e.pkRaw)
	}
	f.Add(byte(0), []byte{0})
	f.Fuzz(func(t *testing.T, suite byte, b []byte) {
		s := fuzzSuite(suite)
		pk, err := ParsePublicKey(s, b)
		if err != nil {
			var me *verdict.MsgError
			if s.isEC() && (!errors.As(err, &me) || "vrf: "+me.Error() != err.Error()) {
				t.Fatalf("%x: %q is not a reason of the catalog", b, err)
			}
			return
		}
		if !bytes.Equal(pk.Bytes(), b) {
			t.Fatalf("Bytes() = %x, parsed from %x", pk.Bytes(), b)
		}
		pk2, err := ParsePublicKey(s, pk.Bytes())
		if err != nil || !pk2.Equal(pk) || pk.Suite() != s {
			t.Fatalf("re-parse: %v", err)
		}
	})
}

// TestFuzzSeedCorpusLoads checks that the seeds the fuzzers start from are
// what they claim: the valid ones verify, the others are rejected.
func TestFuzzSeedCorpusLoads(t *testing.T) {
	seeds := verifySeeds(t)
	if len(seeds) != 45 {
		t.Fatalf("%d seeds, want 45 (5 per vector)", len(seeds))
	}
	valid := 0
	for i, s := range seeds {
		pk, err := ParsePublicKey(fuzzSuite(s.suite), s.pk)
		if err != nil {
			if s.valid {
				t.Fatalf("seed %d: %v", i, err)
			}
			continue
		}
		_, err = Verify(pk, s.alpha, s.proof)
		if (err == nil) != s.valid {
			t.Errorf("seed %d (valid %v): Verify returned %v", i, s.valid, err)
		}
		if err == nil {
			valid++
		}
	}
	if valid != 9 {
		t.Errorf("%d valid seeds, want 9", valid)
	}
}

// FuzzProofToHash checks that ProofToHash never panics on arbitrary bytes,
// rejects with ErrInvalidProof, and agrees with Verify on valid proofs.
func FuzzProofToHash(f *testing.F) {
	for _, s := range verifySeeds(f) {
		f.Add(s.suite, s.proof)
	}
	f.Fuzz(func(t *testing.T, suite byte, proof []byte) {
		s := fuzzSuite(suite)
		beta, err := ProofToHash(s, proof)
		if err != nil {
			if !errors.Is(err, ErrInvalidProof) {
				t.Fatalf("ProofToHash error %q does not wrap ErrInvalidProof", err)
			}
			return
		}
		if len(beta) != OutputSize {
			t.Fatalf("β has %d bytes", len(beta))
		}
		if s.isEC() && len(proof) != ecProofLen {
			t.Fatalf("accepted a %d-byte ECVRF proof", len(proof))
		}
	})
}
