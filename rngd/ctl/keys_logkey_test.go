package ctl

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"tirage.fr/tirage/hsm"
	"tirage.fr/tirage/hsm/keystore"
	"tirage.fr/tirage/hsm/pkcs11"
	"tirage.fr/tirage/verifier/vrf"
)

// fakeToken is a PKCS#11 token as rngctl sees one, held in a software
// keystore: its GenerateSigner behaves as hsm/pkcs11's on a token with or
// without EdDSA ("" is Ed25519 where the token has it, else ECDSA P-256).
type fakeToken struct {
	*keystore.Store
	eddsa bool
}

func (f fakeToken) Kind() string   { return "pkcs11" }
func (f fakeToken) Software() bool { return false }

func (f fakeToken) GenerateSigner(label, algorithm string) (hsm.Signer, error) {
	if algorithm == "" {
		algorithm = hsm.ECDSAP256SHA256
		if f.eddsa {
			algorithm = hsm.Ed25519
		}
	}
	if algorithm == hsm.Ed25519 && !f.eddsa {
		return nil, fmt.Errorf("%w: token lacks CKM_EDDSA; use %s", hsm.ErrUnsupported, hsm.ECDSAP256SHA256)
	}
	return f.Store.GenerateSigner(label, algorithm)
}

// probedToken is a fakeToken that says whether it has EdDSA, as
// hsm/pkcs11's Token does (its mechanism list).
type probedToken struct{ fakeToken }

func (p probedToken) EdDSA() bool { return p.eddsa }

// useFakeToken makes rngctl's --backend pkcs11 open a fake token kept in a
// keystore directory of t (the same keys from one run to the next), and
// returns the keystore's directory and the flags that select the token.
func useFakeToken(t *testing.T, eddsa, probe bool) (dir string, flags []string) {
	t.Helper()
	dir = t.TempDir()
	keys := filepath.Join(dir, "token")
	pin := filepath.Join(dir, "pin")
	if err := os.WriteFile(pin, []byte("12345678\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	old := openPKCS11
	openPKCS11 = func(cfg pkcs11.Config) (hsm.Backend, error) {
		s, err := keystore.Open(keystore.Config{Dir: keys, Passphrase: cfg.PIN, KDF: keystore.KDFParams{Time: 1, MemoryKiB: 8 * 1024, Threads: 1}})
		if err != nil {
			return nil, err
		}
		f := fakeToken{Store: s, eddsa: eddsa}
		if probe {
			return probedToken{f}, nil
		}
		return f, nil
	}
	t.Cleanup(func() { openPKCS11 = old })
	return dir, []string{"--backend", "pkcs11", "--module", "/opt/hsm/libvendor.so", "--token-label", "t", "--pin-file", pin,
		"--vrf-suite", string(vrf.SuiteP256SSWU)}
}

// tokenKeys lists the fake token's keys by label and algorithm.
func tokenKeys(t *testing.T, dir string) string {
	t.Helper()
	keys, err := keystore.PublicKeys(filepath.Join(dir, "token"))
	if errors.Is(err, os.ErrNotExist) {
		return ""
	}
	if err != nil {
		t.Fatal(err)
	}
	var s []string
	for _, k := range keys {
		s = append(s, k.Label+" "+k.Algorithm)
	}
	return strings.Join(s, ", ")
}

// TestInitLogKeyEd25519: keys init makes the log key as Ed25519, whatever
// --sign-alg says (it chooses the attestation key's algorithm), since rngd
// signs checkpoints with Ed25519 only and would not start with another. A
// token that says it lacks EdDSA (hsm/pkcs11's mechanism list) is refused
// before any key is made; one that does not say fails at the log key,
// saying which key it made is left on the token. It used to make an ECDSA
// log key there (GenerateSigner with ""), and one with --sign-alg
// ECDSA-P256-SHA256 anywhere.
func TestInitLogKeyEd25519(t *testing.T) {
	fixClock(t)
	for _, tc := range []struct {
		name         string
		eddsa, probe bool
		signAlg      string
		code         int
		want         string // announced, or in the error
		keys         string // on the token afterwards
	}{
		{"ecdsa attestation key", true, true, hsm.ECDSAP256SHA256, ExitOK, "", "attestation ECDSA-P256-SHA256, log Ed25519, vrf " + string(vrf.SuiteP256SSWU)},
		{"default", true, false, "", ExitOK, "", "attestation Ed25519, log Ed25519, vrf " + string(vrf.SuiteP256SSWU)},
		{"no eddsa, probed", false, true, "", ExitFail, "the log key must be Ed25519", ""},
		{"no eddsa, probed, ecdsa attestation key", false, true, hsm.ECDSAP256SHA256, ExitFail, "the log key must be Ed25519", ""},
		{"no eddsa, not probed", false, false, hsm.ECDSAP256SHA256, ExitFail,
			`couldn't make the log key "log" (Ed25519): unsupported by this backend: token lacks CKM_EDDSA; use ECDSA-P256-SHA256; the log key must be Ed25519`,
			"vrf " + string(vrf.SuiteP256SSWU)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, flags := useFakeToken(t, tc.eddsa, tc.probe)
			ann := filepath.Join(dir, "ann.json")
			args := append([]string{"init", "--announcement", ann}, flags...)
			if tc.signAlg != "" {
				args = append(args, "--sign-alg", tc.signAlg)
			}
			k := &keysRun{t: t}
			code, out, errOut := k.run("", args...)
			if code != tc.code || !strings.Contains(errOut, tc.want) {
				t.Fatalf("exit %d, want %d and %q in stderr\n%s%s", code, tc.code, tc.want, out, errOut)
			}
			if got := tokenKeys(t, dir); got != tc.keys {
				t.Errorf("keys on the token: %q, want %q", got, tc.keys)
			}
			if _, err := os.Stat(ann); (err == nil) != (code == ExitOK) {
				t.Errorf("announcement written: %v, want %v", err == nil, code == ExitOK)
			}
			if code != ExitOK {
				// What is left is said: nothing, or the keys a token keeps.
				left := "nothing was made"
				if tc.keys != "" {
					left = `this run made keys "vrf", which stay on the pkcs11 token "t"`
				}
				if strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, left) {
					t.Errorf("stderr %q: want one line saying %q", errOut, left)
				}
				return
			}
			fps := checkAnnouncementFile(t, ann)
			if !strings.HasPrefix(fps["log"], "log Ed25519 ") {
				t.Errorf("log key announced as %q, want Ed25519", fps["log"])
			}
		})
	}
}

// TestAnnounceRefusesNonEd25519LogKey: keys announce (and hsm.Announce)
// refuse a log key that is not Ed25519, naming it and --log-label, and
// write nothing: rngd would not start with it.
func TestAnnounceRefusesNonEd25519LogKey(t *testing.T) {
	fixClock(t)
	dir, flags := useFakeToken(t, true, true)
	b, err := openPKCS11(pkcs11.Config{PIN: []byte("12345678")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.GenerateVRF("vrf", vrf.SuiteP256SSWU); err != nil {
		t.Fatal(err)
	}
	for l, alg := range map[string]string{"log": hsm.ECDSAP256SHA256, "attestation": hsm.Ed25519} {
		if _, err := b.GenerateSigner(l, alg); err != nil {
			t.Fatal(err)
		}
	}
	b.Close()

	ann := filepath.Join(dir, "ann.json")
	k := &keysRun{t: t}
	code, out, errOut := k.run("", append([]string{"announce", "--announcement", ann}, flags[:len(flags)-2]...)...)
	want := `rngctl keys announce: --log-label "log": the log key is ECDSA-P256-SHA256, not Ed25519: rngd signs the log's checkpoints with Ed25519 only, and would not start with it`
	if code != ExitFail || out != "" || !strings.HasPrefix(errOut, want) || strings.Count(errOut, "\n") != 1 {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit %d and %q", code, out, errOut, ExitFail, want)
	}
	if _, err := os.Stat(ann); err == nil {
		t.Error("announcement written")
	}

	// hsm.Announce refuses it too, whoever calls it.
	b, err = openPKCS11(pkcs11.Config{PIN: []byte("12345678")})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	p, _ := b.VRFProver("vrf")
	s, _ := b.Signer("log")
	if _, err := hsm.Announce(time.Now(), []hsm.AnnouncedKey{{Use: hsm.UseVRF, Label: "vrf", Prover: p}, {Use: hsm.UseLog, Label: "log", Signer: s}}); err == nil ||
		!strings.Contains(err.Error(), `key "log": a log key must be Ed25519, not ECDSA-P256-SHA256`) {
		t.Errorf("hsm.Announce of an ECDSA log key: %v, want refused", err)
	}
}
