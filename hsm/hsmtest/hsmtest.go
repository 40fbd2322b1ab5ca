// Package hsmtest is the conformance suite every hsm.Backend runs, and the
// secret-leak checks shared by the key custody tests.
//
// A backend's test calls [Run] with a [Harness] that opens the backend. Run
// checks, with the real backend: key generation for every VRF suite and
// signature algorithm the harness lists; proofs that verify with
// verifier/vrf (and are deterministic), signatures that verify, tampered
// inputs that do not; key listing and fingerprints; labels that are taken,
// malformed or missing; the hsm.CryptoSigner adapter; persistence across
// Close and Open; a wrong PIN or passphrase failing with
// hsm.ErrBadCredentials; use after Close failing with hsm.ErrUnavailable;
// concurrent proving and signing. Every log line the backend writes and
// every error it returns are then searched for the secrets the test used
// (raw, hex, base64), which must not appear.
package hsmtest

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"tirage.fr/tirage/hsm"
	"tirage.fr/tirage/verifier/vrf"
)

// Harness opens the backend under test.
type Harness struct {
	// Open opens the backend with secret (PIN or passphrase), logging to
	// log. Every call opens the same underlying keystore or token, which
	// starts without keys labelled with the suite's prefix.
	Open func(t *testing.T, secret []byte, log *slog.Logger) (hsm.Backend, error)
	// Secret is the right PIN or passphrase; WrongSecret a wrong one.
	Secret, WrongSecret []byte
	// Kind is the expected Backend.Kind, Software the expected Software.
	Kind     string
	Software bool
	// VRFSuites and SignAlgorithms are the kinds of keys to make.
	VRFSuites      []vrf.Suite
	SignAlgorithms []string
	// Unsupported are VRF suites the backend must refuse with
	// hsm.ErrUnsupported.
	Unsupported []vrf.Suite
	// KeyMaterial, if set, returns private key bytes the backend holds
	// (only a software backend can); they must never be logged either.
	KeyMaterial func(b hsm.Backend) [][]byte
	// Concurrency is the number of goroutines of the concurrency test
	// (default 8), each making Rounds proofs and signatures (default 4).
	Concurrency, Rounds int
}

// Run runs the conformance suite.
func Run(t *testing.T, h Harness) {
	t.Helper()
	if h.Concurrency == 0 {
		h.Concurrency = 8
	}
	if h.Rounds == 0 {
		h.Rounds = 4
	}
	log, capture := NewLog()
	r := &run{t: t, h: h, log: log, prefix: randomPrefix()}
	secrets := [][]byte{h.Secret, h.WrongSecret}

	b := r.open(h.Secret)
	if b.Kind() != h.Kind || b.Software() != h.Software {
		t.Errorf("Kind, Software = %q, %v; want %q, %v", b.Kind(), b.Software(), h.Kind, h.Software)
	}
	provers := map[string]hsm.VRFProver{}
	signers := map[string]hsm.Signer{}
	t.Run("Generate", func(t *testing.T) {
		for _, s := range h.VRFSuites {
			label := r.label("vrf-" + shortName(string(s)))
			p, err := b.GenerateVRF(label, s)
			if err != nil {
				t.Fatalf("GenerateVRF(%q, %s): %v", label, s, r.note(err))
			}
			if p.Suite() != s || p.PublicKey().Suite() != s {
				t.Errorf("prover suite %s, public key suite %s; want %s", p.Suite(), p.PublicKey().Suite(), s)
			}
			provers[label] = p
		}
		for _, a := range h.SignAlgorithms {
			label := r.label("sign-" + shortName(a))
			s, err := b.GenerateSigner(label, a)
			if err != nil {
				t.Fatalf("GenerateSigner(%q, %s): %v", label, a, r.note(err))
			}
			if s.Algorithm() != a {
				t.Errorf("signer algorithm %q, want %q", s.Algorithm(), a)
			}
			signers[label] = s
		}
	})
	if t.Failed() {
		b.Close()
		return
	}
	if h.KeyMaterial != nil {
		secrets = append(secrets, h.KeyMaterial(b)...)
	}
	t.Run("Prove", func(t *testing.T) { r.checkProvers(t, provers) })
	t.Run("Sign", func(t *testing.T) { r.checkSigners(t, signers) })
	t.Run("Keys", func(t *testing.T) { r.checkKeys(t, b, provers, signers) })
	t.Run("Labels", func(t *testing.T) { r.checkLabels(t, b, provers, signers) })
	t.Run("Concurrent", func(t *testing.T) { r.checkConcurrent(t, provers, signers) })

	// Use after Close fails closed.
	alpha := []byte("after close")
	if err := b.Close(); err != nil {
		t.Errorf("Close: %v", r.note(err))
	}
	t.Run("AfterClose", func(t *testing.T) {
		for label, p := range provers {
			if _, _, err := p.Prove(alpha); !errors.Is(r.note(err), hsm.ErrUnavailable) {
				t.Errorf("%s: Prove after Close: err = %v, want ErrUnavailable", label, err)
			}
		}
		for label, s := range signers {
			if _, err := s.Sign(alpha); !errors.Is(r.note(err), hsm.ErrUnavailable) {
				t.Errorf("%s: Sign after Close: err = %v, want ErrUnavailable", label, err)
			}
		}
	})

	t.Run("WrongSecret", func(t *testing.T) {
		wb, err := h.Open(t, h.WrongSecret, log)
		if err == nil {
			wb.Close()
			t.Fatal("Open with a wrong PIN/passphrase succeeded")
		}
		r.note(err)
		if !errors.Is(err, hsm.ErrBadCredentials) {
			t.Errorf("Open with a wrong PIN/passphrase: err = %v, want ErrBadCredentials", err)
		}
	})

	t.Run("Reopen", func(t *testing.T) {
		b2 := r.open(h.Secret)
		defer b2.Close()
		for label, p := range provers {
			p2, err := b2.VRFProver(label)
			if err != nil {
				t.Fatalf("VRFProver(%q) after reopening: %v", label, r.note(err))
			}
			if !p2.PublicKey().Equal(p.PublicKey()) {
				t.Errorf("%s: public key changed across Close/Open", label)
			}
			pi, _ := r.prove(t, p2, alpha)
			if _, err := vrf.Verify(p.PublicKey(), alpha, pi); err != nil {
				t.Errorf("%s: proof after reopening does not verify: %v", label, err)
			}
		}
		for label, s := range signers {
			s2, err := b2.Signer(label)
			if err != nil {
				t.Fatalf("Signer(%q) after reopening: %v", label, r.note(err))
			}
			sig, err := s2.Sign(alpha)
			if err != nil {
				t.Fatalf("%s: Sign after reopening: %v", label, r.note(err))
			}
			if err := hsm.VerifySignature(s.Public(), s.Algorithm(), alpha, sig); err != nil {
				t.Errorf("%s: signature after reopening does not verify under the first key: %v", label, err)
			}
		}
	})

	t.Run("NoSecretsInLogsOrErrors", func(t *testing.T) {
		if len(r.errs) == 0 {
			t.Error("no error was recorded: the suite should have seen several")
		}
		hay := append(capture.Bytes(), []byte(strings.Join(r.errs, "\n"))...)
		AssertNoSecrets(t, hay, secrets...)
	})
}

type run struct {
	t      *testing.T
	h      Harness
	log    *slog.Logger
	prefix string

	mu   sync.Mutex // guards errs
	errs []string   // every error the backend returned
}

func (r *run) open(secret []byte) hsm.Backend {
	r.t.Helper()
	b, err := r.h.Open(r.t, secret, r.log)
	if err != nil {
		r.t.Fatalf("Open: %v", r.note(err))
	}
	return b
}

// note records err's text for the leak check and returns err.
func (r *run) note(err error) error {
	if err != nil {
		r.mu.Lock()
		r.errs = append(r.errs, err.Error())
		r.mu.Unlock()
	}
	return err
}

func (r *run) label(s string) string { return r.prefix + s }

func (r *run) prove(t *testing.T, p hsm.VRFProver, alpha []byte) (proof, beta []byte) {
	t.Helper()
	pi, beta, err := p.Prove(alpha)
	if err != nil {
		t.Fatalf("Prove: %v", r.note(err))
	}
	return pi, beta
}

func (r *run) checkProvers(t *testing.T, provers map[string]hsm.VRFProver) {
	for label, p := range provers {
		for _, alpha := range [][]byte{nil, []byte("sample"), bytes.Repeat([]byte{0xA5}, 1000)} {
			pi, proved := r.prove(t, p, alpha)
			if want := vrf.ProofSize(p.Suite(), p.PublicKey()); len(pi) != want {
				t.Errorf("%s: proof has %d bytes, want %d", label, len(pi), want)
			}
			beta, err := vrf.Verify(p.PublicKey(), alpha, pi)
			if err != nil {
				t.Errorf("%s: proof for %d-byte alpha does not verify: %v", label, len(alpha), err)
				continue
			}
			if !bytes.Equal(proved, beta) {
				t.Errorf("%s: Prove returned β %x, the verifier computes %x", label, proved, beta)
			}
			if len(beta) != vrf.OutputSize {
				t.Errorf("%s: beta has %d bytes", label, len(beta))
			}
			// RFC 9381 §3: one output per alpha; both suites prove deterministically.
			if pi2, _ := r.prove(t, p, alpha); !bytes.Equal(pi, pi2) {
				t.Errorf("%s: two proofs for the same alpha differ", label)
			}
			if _, err := vrf.Verify(p.PublicKey(), append(alpha, 0), pi); !errors.Is(err, vrf.ErrInvalidProof) {
				t.Errorf("%s: proof verified for another alpha (err %v)", label, err)
			}
			bad := bytes.Clone(pi)
			bad[len(bad)/2] ^= 1
			if _, err := vrf.Verify(p.PublicKey(), alpha, bad); !errors.Is(err, vrf.ErrInvalidProof) {
				t.Errorf("%s: tampered proof verified (err %v)", label, err)
			}
		}
	}
}

func (r *run) checkSigners(t *testing.T, signers map[string]hsm.Signer) {
	msg := []byte("checkpoint body\n42\n")
	for label, s := range signers {
		sig, err := s.Sign(msg)
		if err != nil {
			t.Fatalf("%s: Sign: %v", label, r.note(err))
		}
		if err := hsm.VerifySignature(s.Public(), s.Algorithm(), msg, sig); err != nil {
			t.Errorf("%s: signature does not verify: %v", label, err)
		}
		if err := hsm.VerifySignature(s.Public(), s.Algorithm(), append(msg, '!'), sig); err == nil {
			t.Errorf("%s: signature verified for another message", label)
		}
		// Verify independently of hsm.VerifySignature.
		digest := sha256.Sum256(msg)
		switch pub := s.Public().(type) {
		case ed25519.PublicKey:
			if !ed25519.Verify(pub, msg, sig) {
				t.Errorf("%s: crypto/ed25519 rejects the signature", label)
			}
		case *ecdsa.PublicKey:
			if !ecdsa.VerifyASN1(pub, digest[:], sig) {
				t.Errorf("%s: crypto/ecdsa rejects the signature", label)
			}
		default:
			t.Errorf("%s: public key type %T", label, pub)
		}
		cs, err := hsm.CryptoSigner(s)
		if err != nil {
			t.Fatalf("%s: CryptoSigner: %v", label, err)
		}
		var csig []byte
		if s.Algorithm() == hsm.Ed25519 {
			csig, err = cs.Sign(rand.Reader, msg, crypto.Hash(0))
		} else {
			csig, err = cs.Sign(rand.Reader, digest[:], crypto.SHA256)
		}
		if err != nil {
			t.Fatalf("%s: crypto.Signer Sign: %v", label, r.note(err))
		}
		if err := hsm.VerifySignature(cs.Public(), s.Algorithm(), msg, csig); err != nil {
			t.Errorf("%s: crypto.Signer signature does not verify: %v", label, err)
		}
		if _, err := cs.Sign(rand.Reader, msg[:5], crypto.SHA512); !errors.Is(r.note(err), hsm.ErrUnsupported) {
			t.Errorf("%s: crypto.Signer with SHA-512 opts: err = %v, want ErrUnsupported", label, err)
		}
	}
}

func (r *run) checkKeys(t *testing.T, b hsm.Backend, provers map[string]hsm.VRFProver, signers map[string]hsm.Signer) {
	keys, err := b.Keys()
	if err != nil {
		t.Fatalf("Keys: %v", r.note(err))
	}
	got := map[string]hsm.Key{}
	for i, k := range keys {
		if i > 0 && keys[i-1].Label >= k.Label {
			t.Errorf("Keys not sorted by label: %q before %q", keys[i-1].Label, k.Label)
		}
		if strings.HasPrefix(k.Label, r.prefix) {
			got[k.Label] = k
		}
	}
	if len(got) != len(provers)+len(signers) {
		t.Errorf("Keys lists %d of our keys, want %d", len(got), len(provers)+len(signers))
	}
	for label, p := range provers {
		want := hsm.ProverKey(label, p)
		if k := got[label]; k.Purpose != want.Purpose || k.Algorithm != want.Algorithm || !bytes.Equal(k.Public, want.Public) {
			t.Errorf("Keys()[%q] = %+v, want %+v", label, k, want)
		}
		if _, err := vrf.ParsePublicKey(p.Suite(), got[label].Public); err != nil {
			t.Errorf("%s: listed public key does not parse: %v", label, err)
		}
	}
	for label, s := range signers {
		want, err := hsm.SignerKey(label, s)
		if err != nil {
			t.Fatal(err)
		}
		if k := got[label]; k.Purpose != want.Purpose || k.Algorithm != want.Algorithm || !bytes.Equal(k.Public, want.Public) {
			t.Errorf("Keys()[%q] = %+v, want %+v", label, k, want)
		}
	}
	for _, k := range got {
		fp := k.Fingerprint()
		sum := sha256.Sum256(k.Public)
		if fp != hex.EncodeToString(sum[:]) {
			t.Errorf("%s: fingerprint %s is not the hex SHA-256 of the public key", k.Label, fp)
		}
	}
}

func (r *run) checkLabels(t *testing.T, b hsm.Backend, provers map[string]hsm.VRFProver, signers map[string]hsm.Signer) {
	for label, p := range provers {
		if _, err := b.GenerateVRF(label, p.Suite()); !errors.Is(r.note(err), hsm.ErrExists) {
			t.Errorf("GenerateVRF over existing %q: err = %v, want ErrExists", label, err)
		}
		if _, err := b.Signer(label); !errors.Is(r.note(err), hsm.ErrNotFound) {
			t.Errorf("Signer(%q) of a VRF key: err = %v, want ErrNotFound", label, err)
		}
		p2, err := b.VRFProver(label)
		if err != nil {
			t.Errorf("VRFProver(%q): %v", label, r.note(err))
		} else if !p2.PublicKey().Equal(p.PublicKey()) {
			t.Errorf("VRFProver(%q) returned another key", label)
		}
	}
	for label, s := range signers {
		if _, err := b.GenerateSigner(label, s.Algorithm()); !errors.Is(r.note(err), hsm.ErrExists) {
			t.Errorf("GenerateSigner over existing %q: err = %v, want ErrExists", label, err)
		}
		if _, err := b.VRFProver(label); !errors.Is(r.note(err), hsm.ErrNotFound) {
			t.Errorf("VRFProver(%q) of a signing key: err = %v, want ErrNotFound", label, err)
		}
	}
	missing := r.label("missing")
	if _, err := b.VRFProver(missing); !errors.Is(r.note(err), hsm.ErrNotFound) || !strings.Contains(err.Error(), missing) {
		t.Errorf("VRFProver(missing): err = %v, want ErrNotFound naming the label", err)
	}
	if _, err := b.Signer(missing); !errors.Is(r.note(err), hsm.ErrNotFound) {
		t.Errorf("Signer(missing): err = %v, want ErrNotFound", err)
	}
	for _, bad := range []string{"", "a/b", "../x", ".hidden", "white space", strings.Repeat("x", 65), "é"} {
		if _, err := b.GenerateSigner(bad, ""); !errors.Is(r.note(err), hsm.ErrBadLabel) {
			t.Errorf("GenerateSigner(%q): err = %v, want ErrBadLabel", bad, err)
		}
	}
	if _, err := b.GenerateSigner(r.label("bad-alg"), "RSA-PSS"); !errors.Is(r.note(err), hsm.ErrUnsupported) {
		t.Errorf("GenerateSigner(RSA-PSS): err = %v, want ErrUnsupported", err)
	}
	for _, s := range append([]vrf.Suite{"ECVRF-EDWARDS25519-SHA512-ELL2"}, r.h.Unsupported...) {
		if _, err := b.GenerateVRF(r.label("bad-suite"), s); !errors.Is(r.note(err), hsm.ErrUnsupported) {
			t.Errorf("GenerateVRF(%s): err = %v, want ErrUnsupported", s, err)
		}
	}
}

func (r *run) checkConcurrent(t *testing.T, provers map[string]hsm.VRFProver, signers map[string]hsm.Signer) {
	var wg sync.WaitGroup
	errc := make(chan error, r.h.Concurrency*r.h.Rounds*(len(provers)+len(signers)))
	for g := range r.h.Concurrency {
		wg.Go(func() {
			for i := range r.h.Rounds {
				alpha := fmt.Appendf(nil, "goroutine %d round %d", g, i)
				for label, p := range provers {
					pi, _, err := p.Prove(alpha)
					if err == nil {
						_, err = vrf.Verify(p.PublicKey(), alpha, pi)
					}
					if err != nil {
						errc <- fmt.Errorf("%s: %w", label, r.note(err))
					}
				}
				for label, s := range signers {
					sig, err := s.Sign(alpha)
					if err == nil {
						err = hsm.VerifySignature(s.Public(), s.Algorithm(), alpha, sig)
					}
					if err != nil {
						errc <- fmt.Errorf("%s: %w", label, r.note(err))
					}
				}
			}
		})
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		t.Error(err)
	}
}

func randomPrefix() string {
	var b [4]byte
	rand.Read(b[:])
	return "t" + hex.EncodeToString(b[:]) + "-"
}

func shortName(s string) string {
	return strings.ToLower(strings.NewReplacer("ECVRF-", "", "-SHA256", "", "VRF-", "").Replace(s))
}

// Capture collects log output; it is safe for concurrent use.
type Capture struct {
	mu  sync.Mutex // guards buf
	buf bytes.Buffer
}

func (c *Capture) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.buf.Write(p)
}

// Bytes returns a copy of everything logged so far.
func (c *Capture) Bytes() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return bytes.Clone(c.buf.Bytes())
}

// NewLog returns a logger that records every line, at every level, in the
// returned Capture.
func NewLog() (*slog.Logger, *Capture) {
	c := &Capture{}
	return slog.New(slog.NewTextHandler(c, &slog.HandlerOptions{Level: slog.LevelDebug})), c
}

// AssertNoSecrets fails t if any secret appears in hay raw, in lower- or
// upper-case hex, or in standard or URL base64. Secrets shorter than 4
// bytes are skipped (they would match by chance).
func AssertNoSecrets(t testing.TB, hay []byte, secrets ...[]byte) {
	t.Helper()
	low := bytes.ToLower(hay)
	for i, s := range secrets {
		if len(s) < 4 {
			continue
		}
		forms := map[string][]byte{
			"raw":    s,
			"hex":    []byte(hex.EncodeToString(s)),
			"base64": []byte(base64.StdEncoding.EncodeToString(s)),
			"url64":  []byte(base64.RawURLEncoding.EncodeToString(s)),
		}
		for form, f := range forms {
			h := hay
			if form == "hex" {
				h = low
			}
			if bytes.Contains(h, f) {
				t.Errorf("secret #%d (%d bytes) appears in logs or errors (%s)", i, len(s), form)
			}
		}
	}
}
