//go:build cgo

package pkcs11_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"tirage.fr/tirage/hsm"
	"tirage.fr/tirage/hsm/hsmtest"
	"tirage.fr/tirage/hsm/pkcs11"
	"tirage.fr/tirage/verifier/vrf"
)

// openSoftHSM opens a fresh SoftHSM2 token labelled label for t.
func openSoftHSM(t *testing.T, label string) *pkcs11.Token {
	t.Helper()
	sh := hsmtest.NewSoftHSM(t)
	tok := sh.InitToken(t, label)
	b, err := pkcs11.Open(pkcs11.Config{Module: sh.Module, TokenLabel: tok.Label, PIN: tok.PIN})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b.(*pkcs11.Token)
}

func TestConformanceSoftHSM(t *testing.T) {
	sh := hsmtest.NewSoftHSM(t)
	tok := sh.InitToken(t, "tirage-conformance")
	hsmtest.Run(t, hsmtest.Harness{
		Open: func(t *testing.T, pin []byte, log *slog.Logger) (hsm.Backend, error) {
			return pkcs11.Open(pkcs11.Config{Module: sh.Module, TokenLabel: tok.Label, PIN: pin, Logger: log})
		},
		Secret:         tok.PIN,
		WrongSecret:    []byte("00000000"),
		Kind:           "pkcs11",
		Software:       true, // SoftHSM2: its keys are files on the host
		VRFSuites:      []vrf.Suite{vrf.SuiteRSAFDH256},
		SignAlgorithms: []string{hsm.Ed25519, hsm.ECDSAP256SHA256},
		Unsupported:    []vrf.Suite{vrf.SuiteP256SSWU},
	})
}

func TestOpenErrors(t *testing.T) {
	sh := hsmtest.NewSoftHSM(t)
	tok := sh.InitToken(t, "tirage-errors")
	log, capture := hsmtest.NewLog()
	var errs []string
	for _, c := range []struct {
		name string
		cfg  pkcs11.Config
		want string
	}{
		{"no module", pkcs11.Config{Module: "/nonexistent/libp11.so", TokenLabel: tok.Label, PIN: tok.PIN}, "couldn't load PKCS#11 module"},
		{"no token", pkcs11.Config{Module: sh.Module, TokenLabel: "absent", PIN: tok.PIN}, `no PKCS#11 token labelled "absent"`},
		{"empty PIN", pkcs11.Config{Module: sh.Module, TokenLabel: tok.Label}, "empty PIN"},
		{"SO PIN as user PIN", pkcs11.Config{Module: sh.Module, TokenLabel: tok.Label, PIN: tok.SOPIN}, "refused the PIN"},
		{"small RSA", pkcs11.Config{Module: sh.Module, TokenLabel: tok.Label, PIN: tok.PIN, RSABits: 1024}, "RSA modulus size 1024"},
	} {
		c.cfg.Logger = log
		b, err := pkcs11.Open(c.cfg)
		if err == nil {
			b.Close()
			t.Errorf("%s: Open succeeded", c.name)
			continue
		}
		errs = append(errs, err.Error())
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want it to say %q", c.name, err, c.want)
		}
	}

	// A token is open at most once per process: a second login would not
	// check the PIN.
	b, err := pkcs11.Open(pkcs11.Config{Module: sh.Module, TokenLabel: tok.Label, PIN: tok.PIN, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	_, err = pkcs11.Open(pkcs11.Config{Module: sh.Module, TokenLabel: tok.Label, PIN: []byte("wrong-pin"), Logger: log})
	if err == nil || !strings.Contains(err.Error(), "already open") {
		t.Errorf("second Open of an open token: err = %v, want already open", err)
	} else {
		errs = append(errs, err.Error())
	}
	b.Close()
	hsmtest.AssertNoSecrets(t, append(capture.Bytes(), strings.Join(errs, "\n")...), tok.PIN, tok.SOPIN)
}

// TestKeysNotExtractable checks the attributes of generated keys and that
// a token refuses to reveal them.
func TestKeysNotExtractable(t *testing.T) {
	b := openSoftHSM(t, "tirage-attrs")
	if _, err := b.GenerateVRF("vrf", vrf.SuiteRSAFDH256); err != nil {
		t.Fatal(err)
	}
	if _, err := b.GenerateSigner("log", ""); err != nil {
		t.Fatal(err)
	}

	if !b.EdDSA() {
		t.Error("SoftHSM2 2.6 should offer EdDSA")
	}
	for _, label := range []string{"vrf", "log"} {
		a, err := b.PrivateAttributes(label)
		if err != nil {
			t.Fatal(err)
		}
		for name, want := range map[string]bool{"CKA_SENSITIVE": true, "CKA_EXTRACTABLE": false,
			"CKA_ALWAYS_SENSITIVE": true, "CKA_NEVER_EXTRACTABLE": true, "CKA_TOKEN": true, "CKA_PRIVATE": true} {
			if a[name] != want {
				t.Errorf("%s: %s = %v, want %v", label, name, a[name], want)
			}
		}
		if err := b.ReadPrivateValue(label); err == nil {
			t.Errorf("%s: the token revealed the private key value", label)
		}
	}
	s, err := b.Signer("log")
	if err != nil {
		t.Fatal(err)
	}
	if s.Algorithm() != hsm.Ed25519 {
		t.Errorf("default signer algorithm %s, want Ed25519 on SoftHSM2", s.Algorithm())
	}
	if _, err := b.VRFProver("log"); !errors.Is(err, hsm.ErrNotFound) {
		t.Errorf("VRFProver of a signing key: %v", err)
	}
}

// TestFailClosed removes keys from the token under a prover and a signer:
// they must fail with ErrUnavailable, never answer.
func TestFailClosed(t *testing.T) {
	b := openSoftHSM(t, "tirage-failclosed")
	p, err := b.GenerateVRF("vrf", vrf.SuiteRSAFDH256)
	if err != nil {
		t.Fatal(err)
	}
	s, err := b.GenerateSigner("log", hsm.ECDSAP256SHA256)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := p.Prove([]byte("before")); err != nil {
		t.Fatal(err)
	}

	for _, l := range []string{"vrf", "log"} {
		if err := b.DestroyKey(l); err != nil {
			t.Fatal(err)
		}
	}
	if pi, _, err := p.Prove([]byte("after")); !errors.Is(err, hsm.ErrUnavailable) || pi != nil {
		t.Errorf("Prove with the key gone: proof %x, err %v; want ErrUnavailable", pi, err)
	}
	if sig, err := s.Sign([]byte("after")); !errors.Is(err, hsm.ErrUnavailable) || sig != nil {
		t.Errorf("Sign with the key gone: sig %x, err %v; want ErrUnavailable", sig, err)
	}
	if _, err := b.VRFProver("vrf"); !errors.Is(err, hsm.ErrNotFound) {
		t.Errorf("VRFProver of a destroyed key: %v", err)
	}
}

// TestECDSAFallback: on a token without EdDSA the default signer is ECDSA
// P-256 and Ed25519 is refused.
func TestECDSAFallback(t *testing.T) {
	b := openSoftHSM(t, "tirage-noeddsa")
	b.WithoutEdDSA()
	s, err := b.GenerateSigner("log", "")
	if err != nil {
		t.Fatal(err)
	}
	if s.Algorithm() != hsm.ECDSAP256SHA256 {
		t.Errorf("default signer without EdDSA: %s, want %s", s.Algorithm(), hsm.ECDSAP256SHA256)
	}
	if _, err := b.GenerateSigner("ed", hsm.Ed25519); !errors.Is(err, hsm.ErrUnsupported) || !strings.Contains(err.Error(), "CKM_EDDSA") {
		t.Errorf("Ed25519 without EdDSA: err = %v, want ErrUnsupported naming CKM_EDDSA", err)
	}
}

// TestStalledToken: a token that stops answering fails each operation with
// a timeout error wrapping ErrUnavailable within Config.CallTimeout, keeps
// the stuck sessions out of the pool until their calls return, and does not
// hang Close.
func TestStalledToken(t *testing.T) {
	sh := hsmtest.NewSoftHSM(t)
	tok := sh.InitToken(t, "tirage-stalled")
	const timeout = 300 * time.Millisecond
	const slack = 3 * time.Second // scheduling under -race
	log, capture := hsmtest.NewLog()
	cfg := pkcs11.Config{Module: sh.Module, TokenLabel: tok.Label, PIN: tok.PIN, Sessions: 2, CallTimeout: timeout, Logger: log}
	b, err := pkcs11.Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	tk := b.(*pkcs11.Token)
	p, err := b.GenerateVRF("vrf", vrf.SuiteRSAFDH256)
	if err != nil {
		t.Fatal(err)
	}
	s, err := b.GenerateSigner("log", "")
	if err != nil {
		t.Fatal(err)
	}
	bounded := func(what string, want string, f func() error) {
		t.Helper()
		start := time.Now()
		err := f()
		d := time.Since(start)
		if !errors.Is(err, hsm.ErrUnavailable) || !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err = %v, want ErrUnavailable and DeadlineExceeded saying %q", what, err, want)
		}
		if d < timeout || d > timeout+slack {
			t.Errorf("%s returned after %v, want %v", what, d, timeout)
		}
	}
	waitStuck := func(n int64) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); tk.Stuck() != n; time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%d calls stuck, want %d", tk.Stuck(), n)
			}
		}
	}

	// One stuck call holds one session; the other still serves, and the
	// stuck session is back once its call returns.
	release := tk.StallSigns()
	bounded("Prove on a stalled token", "did not answer within 300ms", func() error {
		pi, _, err := p.Prove([]byte("stalled"))
		if pi != nil {
			t.Errorf("Prove on a stalled token returned a proof")
		}
		return err
	})
	if tk.Stuck() != 1 {
		t.Errorf("Stuck() = %d, want 1", tk.Stuck())
	}
	if _, err := b.Keys(); err != nil {
		t.Errorf("Keys with one session stuck: %v", err)
	}
	release()
	waitStuck(0)
	for i := range 4 { // both sessions work again
		if _, err := s.Sign([]byte("after")); err != nil {
			t.Fatalf("Sign %d after the token came back: %v", i, err)
		}
	}

	// With every session stuck, operations fail waiting for a session and
	// Close gives up waiting.
	release = tk.StallSigns()
	defer release()
	bounded("Sign on a stalled token", "did not answer within", func() error { _, err := s.Sign([]byte("a")); return err })
	bounded("Prove on a stalled token", "did not answer within", func() error { _, _, err := p.Prove([]byte("b")); return err })
	bounded("Sign with every session stuck", "no session free within 300ms (2 calls stuck", func() error { _, err := s.Sign([]byte("c")); return err })
	bounded("Keys with every session stuck", "no session free", func() error { _, err := b.Keys(); return err })
	start := time.Now()
	err = b.Close()
	if d := time.Since(start); d > 2*timeout+slack {
		t.Errorf("Close took %v with calls stuck", d)
	}
	if !errors.Is(err, hsm.ErrUnavailable) || !strings.Contains(err.Error(), "2 calls still stuck") {
		t.Errorf("Close with calls stuck: err = %v, want ErrUnavailable naming 2 stuck calls", err)
	}
	if _, _, err := p.Prove([]byte("closed")); !errors.Is(err, hsm.ErrUnavailable) || !strings.Contains(err.Error(), "closed") {
		t.Errorf("Prove after Close: %v", err)
	}
	if b2, err := pkcs11.Open(cfg); err == nil || !strings.Contains(err.Error(), "already open") {
		t.Errorf("Open while the closed token's calls are stuck: err = %v, want already open", err)
		if err == nil {
			b2.Close()
		}
	}

	// Once the calls return, the sessions are closed and the token can be
	// opened again.
	release()
	waitStuck(0)
	var b2 hsm.Backend
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if b2, err = pkcs11.Open(cfg); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("reopen after the stuck calls returned: %v", err)
		}
	}
	defer b2.Close()
	p2, err := b2.VRFProver("vrf")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := p2.Prove([]byte("reopened")); err != nil {
		t.Errorf("Prove on the reopened token: %v", err)
	}
	for _, msg := range []string{"token call timed out", "no session free", "token closed with calls stuck", "stuck token call returned"} {
		if !strings.Contains(string(capture.Bytes()), msg) {
			t.Errorf("log lacks %q", msg)
		}
	}
}

// importKey imports the private key k (and its public half) onto the token
// under label and id, with softhsm2-util --import as an operator would.
func importKey(t *testing.T, sh *hsmtest.SoftHSM, tok hsmtest.SoftHSMToken, label, id string, k any) {
	t.Helper()
	der, err := x509.MarshalPKCS8PrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), label+".pem")
	if err := os.WriteFile(file, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("softhsm2-util", "--import", file, "--token", tok.Label, "--label", label, "--id", id, "--pin", string(tok.PIN))
	cmd.Env = append(os.Environ(), "SOFTHSM2_CONF="+sh.Conf)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("softhsm2-util --import: %v\n%s", err, out)
	}
}

// TestImportedKeyRefused: a key pair imported onto the token by an operator
// (softhsm2-util --import of a PKCS #8 file) is flagged sensitive and not
// extractable, but its private half existed outside the token: the token
// reports CKA_ALWAYS_SENSITIVE or CKA_NEVER_EXTRACTABLE false. Such a key
// must not serve as a VRF or signing key.
func TestImportedKeyRefused(t *testing.T) {
	sh := hsmtest.NewSoftHSM(t)
	tok := sh.InitToken(t, "tirage-imported")
	rk, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	ek, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	importKey(t, sh, tok, "vrf", "01", rk)
	importKey(t, sh, tok, "log", "02", ek)
	b, err := pkcs11.Open(pkcs11.Config{Module: sh.Module, TokenLabel: tok.Label, PIN: tok.PIN})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	tk := b.(*pkcs11.Token)
	a, err := tk.PrivateAttributes("vrf")
	if err != nil {
		t.Fatal(err)
	}
	if !a["CKA_SENSITIVE"] || a["CKA_EXTRACTABLE"] {
		t.Fatalf("imported key attributes %v: the test expects sensitive, not extractable", a)
	}
	if p, err := b.VRFProver("vrf"); err == nil {
		pi, _, _ := p.Prove([]byte("known key"))
		t.Errorf("VRFProver accepted an imported RSA key (proof %d bytes)", len(pi))
	} else if !strings.Contains(err.Error(), "imported") {
		t.Errorf("VRFProver of an imported key: %v, want it to say the key was imported", err)
	}
	if _, err := b.Signer("log"); err == nil {
		t.Error("Signer accepted an imported P-256 key")
	}
}

// TestForeignRSAKeyIgnored: a token shared with other applications may hold
// RSA keys that cannot be RSA-FDH-VRF keys (1024 bits here). Keys lists the
// others and skips it, as it skips keys on other curves; it is not a token
// failure.
func TestForeignRSAKeyIgnored(t *testing.T) {
	sh := hsmtest.NewSoftHSM(t)
	tok := sh.InitToken(t, "tirage-shared")
	rk, err := rsa.GenerateKey(rand.Reader, 1024)
	if err != nil {
		t.Fatal(err)
	}
	importKey(t, sh, tok, "legacy", "01", rk)
	b, err := pkcs11.Open(pkcs11.Config{Module: sh.Module, TokenLabel: tok.Label, PIN: tok.PIN})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if _, err := b.GenerateSigner("log", ""); err != nil {
		t.Fatal(err)
	}
	keys, err := b.Keys()
	if err != nil {
		t.Fatalf("Keys with a 1024-bit RSA key on the token: %v", err)
	}
	if len(keys) != 1 || keys[0].Label != "log" {
		t.Errorf("Keys = %v, want only log", keys)
	}
	if _, err := b.VRFProver("legacy"); !errors.Is(err, hsm.ErrUnsupported) || errors.Is(err, hsm.ErrUnavailable) {
		t.Errorf("VRFProver of a 1024-bit RSA key: %v, want ErrUnsupported", err)
	}
}

// TestStalledOpen: a token that does not answer while being opened fails
// Open within Config.CallTimeout (it does not hold the daemon's start), and
// once it answers, what the abandoned Open opened is closed again, so the
// token can be opened.
func TestStalledOpen(t *testing.T) {
	sh := hsmtest.NewSoftHSM(t)
	tok := sh.InitToken(t, "tirage-stalled-open")
	const timeout = 300 * time.Millisecond
	cfg := pkcs11.Config{Module: sh.Module, TokenLabel: tok.Label, PIN: tok.PIN, CallTimeout: timeout}
	release := pkcs11.StallOpen()
	defer release()
	start := time.Now()
	b, err := pkcs11.Open(cfg)
	if d := time.Since(start); d > timeout+3*time.Second {
		t.Errorf("Open of a stalled token returned after %v, want about %v", d, timeout)
	}
	if err == nil {
		b.Close()
		t.Fatal("Open of a stalled token succeeded")
	}
	if !errors.Is(err, hsm.ErrUnavailable) || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Open of a stalled token: %v, want ErrUnavailable and DeadlineExceeded", err)
	}
	release()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if b, err = pkcs11.Open(cfg); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("Open after the token answered again: %v", err)
		}
	}
	defer b.Close()
	if _, err := b.GenerateSigner("log", ""); err != nil {
		t.Errorf("GenerateSigner on the reopened token: %v", err)
	}
}

// TestModuleSharedAcrossPaths opens two tokens of one SoftHSM2 library
// under two paths (the library's path and a symlink to it): they must share
// one initialisation, so closing the first does not finalise the library
// under the second, and one token cannot be opened twice through them.
func TestModuleSharedAcrossPaths(t *testing.T) {
	sh := hsmtest.NewSoftHSM(t)
	tokA := sh.InitToken(t, "share-a")
	tokB := sh.InitToken(t, "share-b")
	link := filepath.Join(t.TempDir(), "libp11-link.so")
	if err := os.Symlink(sh.Module, link); err != nil {
		t.Fatal(err)
	}
	if len(pkcs11.LoadedModules()) != 0 {
		t.Fatalf("modules loaded before the test: %v", pkcs11.LoadedModules())
	}
	a, err := pkcs11.Open(pkcs11.Config{Module: sh.Module, TokenLabel: tokA.Label, PIN: tokA.PIN})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := pkcs11.Open(pkcs11.Config{Module: link, TokenLabel: tokB.Label, PIN: tokB.PIN})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if m := pkcs11.LoadedModules(); len(m) != 1 {
		t.Errorf("one library under two paths is loaded as %d modules: %v", len(m), m)
	}
	// The same token through the other path is the same token.
	if again, err := pkcs11.Open(pkcs11.Config{Module: link, TokenLabel: tokA.Label, PIN: tokA.PIN}); err == nil {
		again.Close()
		t.Error("token opened a second time through a symlink to its library")
	} else if !strings.Contains(err.Error(), "already open") {
		t.Errorf("second open through a symlink: %v, want \"already open\"", err)
	}
	if _, err := b.GenerateSigner("sig", ""); err != nil {
		t.Fatal(err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	// b's library must still be initialised: C_Finalize ran for neither.
	keys, err := b.Keys()
	if err != nil {
		t.Fatalf("token opened through a symlink, after the token opened through the library's path was closed: %v", err)
	}
	if len(keys) != 1 {
		t.Errorf("keys: %v", keys)
	}
	s, err := b.Signer("sig")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Sign([]byte("still initialised")); err != nil {
		t.Errorf("sign after the other path's token closed: %v", err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if m := pkcs11.LoadedModules(); len(m) != 0 {
		t.Errorf("modules still loaded after every token closed: %v", m)
	}
	// Finalised with its last token, the library initialises again.
	c, err := pkcs11.Open(pkcs11.Config{Module: link, TokenLabel: tokA.Label, PIN: tokA.PIN})
	if err != nil {
		t.Fatalf("reopen after the library was finalised: %v", err)
	}
	if _, err := c.Keys(); err != nil {
		t.Error(err)
	}
	c.Close()
}
