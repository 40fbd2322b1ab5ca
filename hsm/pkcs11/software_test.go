//go:build cgo

package pkcs11_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"strings"
	"testing"

	p11 "github.com/miekg/pkcs11"

	"tirage.fr/tirage/hsm/hsmtest"
	"tirage.fr/tirage/hsm/pkcs11"
	"tirage.fr/tirage/verifier/vrf"
)

// TestSoftHSMIsSoftware: SoftHSM2 keeps its keys in files on the host, so
// a SoftHSM2 token is software custody: Software must say so, logged in or
// not, for rngd to refuse it outside dev mode without keys.allow_software.
func TestSoftHSMIsSoftware(t *testing.T) {
	sh := hsmtest.NewSoftHSM(t)
	tok := sh.InitToken(t, "tirage-software")
	log, capture := hsmtest.NewLog()
	b, err := pkcs11.Open(pkcs11.Config{Module: sh.Module, TokenLabel: tok.Label, PIN: tok.PIN, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if !b.Software() {
		t.Error("Software() = false for a SoftHSM2 token, whose keys are files on the host")
	}
	if !strings.Contains(string(capture.Bytes()), "software token") {
		t.Errorf("opening a SoftHSM2 token does not log that it is a software token:\n%s", capture.Bytes())
	}
	hsmtest.AssertNoSecrets(t, capture.Bytes(), tok.PIN, tok.SOPIN)
}

// TestKeysLeavesOutRefused: Keys lists the keys whose pins rngctl keys show
// prints for publication, so it must not list a key pair VRFProver and
// Signer refuse: one made on the token without the PIN (CKA_PRIVATE false)
// or one imported onto it (CKA_ALWAYS_SENSITIVE or CKA_NEVER_EXTRACTABLE
// false). They are left out with a warning naming them.
func TestKeysLeavesOutRefused(t *testing.T) {
	sh := hsmtest.NewSoftHSM(t)
	tok := sh.InitToken(t, "tirage-keys-refused")
	rk, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	ek, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	importKey(t, sh, tok, "imported-vrf", "01", rk)
	importKey(t, sh, tok, "imported-log", "02", ek)
	sh.Session(t, tok, false, func(ctx *p11.Ctx, s p11.SessionHandle) {
		generatePINless(t, ctx, s, "pinless-vrf", []byte("pinless"))
	})
	log, capture := hsmtest.NewLog()
	b, err := pkcs11.Open(pkcs11.Config{Module: sh.Module, TokenLabel: tok.Label, PIN: tok.PIN, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if _, err := b.GenerateVRF("vrf", vrf.SuiteRSAFDH256); err != nil {
		t.Fatal(err)
	}
	if _, err := b.GenerateSigner("log", ""); err != nil {
		t.Fatal(err)
	}
	refused := []string{"imported-vrf", "imported-log", "pinless-vrf"}
	for _, l := range refused {
		var err error
		if strings.HasSuffix(l, "-log") {
			_, err = b.Signer(l)
		} else {
			_, err = b.VRFProver(l)
		}
		if err == nil {
			t.Fatalf("key %q is accepted: the test expects it refused", l)
		}
	}
	keys, err := b.Keys()
	if err != nil {
		t.Fatalf("Keys: %v", err)
	}
	var got []string
	for _, k := range keys {
		got = append(got, k.Label)
	}
	if strings.Join(got, ",") != "log,vrf" {
		t.Errorf("Keys lists %v, want [log vrf]: a key the backend refuses to use must not be listed", got)
	}
	logged := string(capture.Bytes())
	for _, l := range refused {
		if !strings.Contains(logged, `label=`+l) || !strings.Contains(logged, "key not listed") {
			t.Errorf("no warning that %q is not listed:\n%s", l, logged)
		}
	}
	if _, err := b.VRFProver("vrf"); err != nil {
		t.Errorf("VRFProver of the listed key: %v", err)
	}
	hsmtest.AssertNoSecrets(t, capture.Bytes(), tok.PIN, tok.SOPIN)
}
