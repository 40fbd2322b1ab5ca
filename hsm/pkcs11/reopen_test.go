//go:build cgo

package pkcs11_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"tirage.fr/tirage/hsm"
	"tirage.fr/tirage/hsm/hsmtest"
	"tirage.fr/tirage/hsm/pkcs11"
	"tirage.fr/tirage/verifier/vrf"
)

// fakeClock is the clock of a token's reopen rate limit in these tests.
type fakeClock struct{ ns atomic.Int64 }

func (c *fakeClock) now() time.Time { return time.Unix(0, c.ns.Load()) }

// next moves the clock past the rate limit.
func (c *fakeClock) next() { c.ns.Add(int64(pkcs11.ReopenEvery)) }

// openTimed opens tok with a fake clock for its reopen rate limit.
func openTimed(t *testing.T, sh *hsmtest.SoftHSM, tok hsmtest.SoftHSMToken, cfg pkcs11.Config) (*pkcs11.Token, *fakeClock) {
	t.Helper()
	cfg.Module, cfg.TokenLabel, cfg.PIN = sh.Module, tok.Label, tok.PIN
	b, err := pkcs11.Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	clock := &fakeClock{}
	clock.ns.Store(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano())
	tk := b.(*pkcs11.Token)
	tk.SetClock(clock.now)
	return tk, clock
}

// tokenFiles is the directory of the one token of sh (SoftHSM2 keeps a
// token as a directory under its token directory).
func tokenFiles(t *testing.T, sh *hsmtest.SoftHSM) string {
	t.Helper()
	dir := filepath.Join(filepath.Dir(sh.Conf), "tokens")
	ents, err := os.ReadDir(dir)
	if err != nil || len(ents) != 1 {
		t.Fatalf("token directory %s: %d entries, %v; want one token", dir, len(ents), err)
	}
	return filepath.Join(dir, ents[0].Name())
}

// move renames from to to, as an operator moving token files would.
func move(t *testing.T, from, to string) {
	t.Helper()
	if err := os.Rename(from, to); err != nil {
		t.Fatal(err)
	}
}

func wantUnavailable(t *testing.T, what string, pi []byte, err error, says string) {
	t.Helper()
	if !errors.Is(err, hsm.ErrUnavailable) || pi != nil || !strings.Contains(err.Error(), says) {
		t.Errorf("%s: result %x, err = %v; want ErrUnavailable saying %q", what, pi, err, says)
	}
}

// TestTokenReopened: a token whose files go away fails every proof with
// ErrUnavailable; once they are back, the token is reopened by a later
// call, at most once per ReopenEvery, and proves and signs again under
// the keys it was opened with.
func TestTokenReopened(t *testing.T) {
	sh := hsmtest.NewSoftHSM(t)
	tok := sh.InitToken(t, "tirage-reopen")
	log, capture := hsmtest.NewLog()
	tk, clock := openTimed(t, sh, tok, pkcs11.Config{Sessions: 2, Logger: log})
	p, err := tk.GenerateVRF("vrf", vrf.SuiteRSAFDH256)
	if err != nil {
		t.Fatal(err)
	}
	s, err := tk.GenerateSigner("log", "")
	if err != nil {
		t.Fatal(err)
	}
	pub := p.PublicKey()
	if _, _, err := p.Prove([]byte("before")); err != nil {
		t.Fatal(err)
	}

	files := tokenFiles(t, sh)
	aside := filepath.Join(t.TempDir(), "token")
	move(t, files, aside)
	var errs []string
	for i := range 3 {
		pi, _, err := p.Prove([]byte("away"))
		wantUnavailable(t, "Prove with the token files away", pi, err, tok.Label)
		if err != nil {
			errs = append(errs, err.Error())
		}
		if i == 1 {
			clock.next() // a reopen, which does not find the token
		}
	}
	pi, _, err := p.Prove([]byte("away"))
	wantUnavailable(t, "Prove after a reopen without the token", pi, err, `no PKCS#11 token labelled "tirage-reopen"`)

	move(t, aside, files)
	pi, _, err = p.Prove([]byte("back"))
	wantUnavailable(t, "Prove with the token back, within the rate limit", pi, err, "reopened at most once every")
	clock.next()
	alpha := []byte("back")
	pi, _, err = p.Prove(alpha)
	if err != nil {
		t.Fatalf("Prove once the token is back: %v", err)
	}
	if _, err := vrf.Verify(pub, alpha, pi); err != nil {
		t.Errorf("the proof made once the token is back does not verify under the key it was opened with: %v", err)
	}
	if _, err := s.Sign([]byte("back")); err != nil {
		t.Errorf("Sign once the token is back: %v", err)
	}

	logged := string(capture.Bytes())
	for _, msg := range []string{"level=WARN msg=\"pkcs11: token lost", "level=WARN msg=\"pkcs11: token reopened"} {
		if n := strings.Count(logged, msg); n != 1 {
			t.Errorf("log says %q %d times, want once:\n%s", msg, n, logged)
		}
	}
	hsmtest.AssertNoSecrets(t, append(capture.Bytes(), strings.Join(errs, "\n")...), tok.PIN, tok.SOPIN)
}

// TestSessionsClosedReopened: sessions closed behind the token's back (a
// network HSM that dropped its link) fail the call under way with
// ErrUnavailable; a later call reopens them.
func TestSessionsClosedReopened(t *testing.T) {
	sh := hsmtest.NewSoftHSM(t)
	tok := sh.InitToken(t, "tirage-sessions")
	tk, clock := openTimed(t, sh, tok, pkcs11.Config{Sessions: 2})
	p, err := tk.GenerateVRF("vrf", vrf.SuiteRSAFDH256)
	if err != nil {
		t.Fatal(err)
	}
	if err := tk.CloseSessions(); err != nil {
		t.Fatal(err)
	}
	pi, _, err := p.Prove([]byte("closed"))
	wantUnavailable(t, "Prove with the sessions closed", pi, err, "CKR_SESSION_HANDLE_INVALID")
	clock.next()
	alpha := []byte("reopened")
	if pi, _, err = p.Prove(alpha); err != nil {
		t.Fatalf("Prove once reopened: %v", err)
	}
	if _, err := vrf.Verify(p.PublicKey(), alpha, pi); err != nil {
		t.Error(err)
	}
}

// initToken initialises a token labelled label with the given PINs.
func initToken(t *testing.T, sh *hsmtest.SoftHSM, label string, pin, soPIN []byte) hsmtest.SoftHSMToken {
	t.Helper()
	cmd := exec.Command("softhsm2-util", "--init-token", "--free", "--label", label, "--pin", string(pin), "--so-pin", string(soPIN))
	cmd.Env = append(os.Environ(), "SOFTHSM2_CONF="+sh.Conf)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("softhsm2-util --init-token %s: %v\n%s", label, err, out)
	}
	return hsmtest.SoftHSMToken{Label: label, PIN: pin, SOPIN: soPIN}
}

// otherToken makes a token labelled label with pin holding a VRF key
// labelled "vrf", and moves its files aside: it returns their place.
func otherToken(t *testing.T, sh *hsmtest.SoftHSM, label string, pin []byte) string {
	t.Helper()
	other := initToken(t, sh, label, pin, []byte("other-so-pin"))
	b, err := pkcs11.Open(pkcs11.Config{Module: sh.Module, TokenLabel: other.Label, PIN: other.PIN})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.GenerateVRF("vrf", vrf.SuiteRSAFDH256); err != nil {
		t.Fatal(err)
	}
	b.Close()
	aside := filepath.Join(t.TempDir(), "other")
	move(t, tokenFiles(t, sh), aside)
	return aside
}

// TestReplacedTokenRefused: a token replaced, while lost, by another one
// with the same label and PIN and another key under the same key label is
// reopened, but the key is refused (ErrKeyChanged), every time, never used
// to prove; the original token, put back, serves again.
func TestReplacedTokenRefused(t *testing.T) {
	sh := hsmtest.NewSoftHSM(t)
	const label = "tirage-replaced"
	pin := []byte("0123456789")
	otherFiles := otherToken(t, sh, label, pin)
	tok := initToken(t, sh, label, pin, []byte("so-pin-of-the-original"))
	log, capture := hsmtest.NewLog()
	tk, clock := openTimed(t, sh, tok, pkcs11.Config{Logger: log})
	p, err := tk.GenerateVRF("vrf", vrf.SuiteRSAFDH256)
	if err != nil {
		t.Fatal(err)
	}
	pub := p.PublicKey()
	if _, _, err := p.Prove([]byte("original")); err != nil {
		t.Fatal(err)
	}

	files := tokenFiles(t, sh)
	aside := filepath.Join(t.TempDir(), "original")
	move(t, files, aside)
	move(t, otherFiles, files)
	// SoftHSM2 answers CKR_OBJECT_HANDLE_INVALID, then, the key looked
	// for again, shows none: the token is lost.
	for range 2 {
		pi, _, err := p.Prove([]byte("replaced"))
		wantUnavailable(t, "Prove on the replaced token", pi, err, label)
	}
	for i := range 3 {
		clock.next()
		pi, _, err := p.Prove([]byte("replaced"))
		wantUnavailable(t, "Prove with the replaced token reopened", pi, err, `holds under label "vrf" a key that is not the one in use`)
		if !errors.Is(err, pkcs11.ErrKeyChanged) {
			t.Errorf("reopen %d of the replaced token: err = %v, want ErrKeyChanged", i, err)
		}
		// Between reopens, the refusal says why too.
		if _, _, err := p.Prove([]byte("replaced")); !errors.Is(err, pkcs11.ErrKeyChanged) || !errors.Is(err, hsm.ErrUnavailable) {
			t.Errorf("Prove between reopens of the replaced token: err = %v, want ErrUnavailable and ErrKeyChanged", err)
		}
	}

	move(t, files, otherFiles)
	move(t, aside, files)
	clock.next()
	alpha := []byte("original again")
	pi, _, err := p.Prove(alpha)
	if err != nil {
		t.Fatalf("Prove with the original token back: %v", err)
	}
	if _, err := vrf.Verify(pub, alpha, pi); err != nil {
		t.Errorf("proof with the original token back: %v", err)
	}
	if n := strings.Count(string(capture.Bytes()), "level=ERROR msg=\"pkcs11: token reopened with another key"); n != 3 {
		t.Errorf("log says the key changed %d times, want 3 (one per reopen)", n)
	}
	hsmtest.AssertNoSecrets(t, capture.Bytes(), pin)
}

// TestReopenRefusedPINNotRetried: a token that, reopened, refuses the PIN
// (another token under the label) is not logged in to again: a PIN retried
// once a second would lock the token.
func TestReopenRefusedPINNotRetried(t *testing.T) {
	sh := hsmtest.NewSoftHSM(t)
	const label = "tirage-pin"
	otherFiles := otherToken(t, sh, label, []byte("another-pin"))
	tok := initToken(t, sh, label, []byte("the-right-pin"), []byte("so-pin-of-the-original"))
	tk, clock := openTimed(t, sh, tok, pkcs11.Config{})
	p, err := tk.GenerateVRF("vrf", vrf.SuiteRSAFDH256)
	if err != nil {
		t.Fatal(err)
	}
	files := tokenFiles(t, sh)
	aside := filepath.Join(t.TempDir(), "original")
	move(t, files, aside)
	move(t, otherFiles, files)
	for range 2 {
		pi, _, err := p.Prove([]byte("a"))
		wantUnavailable(t, "Prove on the replaced token", pi, err, label)
	}
	clock.next()
	pi, _, err := p.Prove([]byte("a"))
	wantUnavailable(t, "Prove when the reopened token refuses the PIN", pi, err, "not tried again")
	if !errors.Is(err, hsm.ErrBadCredentials) {
		t.Errorf("err = %v, want ErrBadCredentials", err)
	}
	// Even with the right token back, it is not tried again.
	move(t, files, otherFiles)
	move(t, aside, files)
	clock.next()
	pi, _, err = p.Prove([]byte("a"))
	wantUnavailable(t, "Prove after the PIN was refused", pi, err, "not tried again")
}

// TestReopenConcurrent: proofs from many goroutines while the token is
// away, then back, each fail with ErrUnavailable or return a proof that
// verifies under the original key; all prove again once it is back.
func TestReopenConcurrent(t *testing.T) {
	sh := hsmtest.NewSoftHSM(t)
	tok := sh.InitToken(t, "tirage-concurrent")
	tk, clock := openTimed(t, sh, tok, pkcs11.Config{Sessions: 3})
	p, err := tk.GenerateVRF("vrf", vrf.SuiteRSAFDH256)
	if err != nil {
		t.Fatal(err)
	}
	pub := p.PublicKey()
	files := tokenFiles(t, sh)
	aside := filepath.Join(t.TempDir(), "token")

	var back atomic.Bool
	var refused atomic.Int64
	var wg sync.WaitGroup
	fail := t.Errorf
	for g := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			alpha := []byte{byte(g)}
			for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); {
				wasBack := back.Load()
				pi, _, err := p.Prove(alpha)
				switch {
				case err == nil:
					if _, err := vrf.Verify(pub, alpha, pi); err != nil {
						fail("goroutine %d: a proof that does not verify under the original key: %v", g, err)
						return
					}
					if wasBack {
						return
					}
				case !errors.Is(err, hsm.ErrUnavailable) || pi != nil:
					fail("goroutine %d: proof %x, err %v; want ErrUnavailable", g, pi, err)
					return
				default:
					refused.Add(1)
				}
			}
			fail("goroutine %d: no proof once the token was back", g)
		}()
	}
	move(t, files, aside)
	for deadline := time.Now().Add(20 * time.Second); refused.Load() < 20; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no proof refused with the token away")
		}
		clock.next() // reopens, which do not find the token
	}
	move(t, aside, files)
	back.Store(true)
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	for {
		select {
		case <-done:
			return
		case <-time.After(5 * time.Millisecond):
			clock.next()
		}
	}
}
