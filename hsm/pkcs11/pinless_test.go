//go:build cgo

package pkcs11_test

import (
	"bytes"
	"crypto/rand"
	"crypto/rsa"
	"errors"
	"strings"
	"testing"

	p11 "github.com/miekg/pkcs11"

	"tirage.fr/tirage/hsm"
	"tirage.fr/tirage/hsm/hsmtest"
	"tirage.fr/tirage/hsm/pkcs11"
	"tirage.fr/tirage/verifier/vrf"
)

// findPublic returns the handle, CKA_ID and CKA_MODULUS of the one public
// key object labelled label.
func findPublic(t *testing.T, ctx *p11.Ctx, s p11.SessionHandle, label string) (p11.ObjectHandle, []byte, []byte) {
	t.Helper()
	o := hsmtest.FindPublic(t, ctx, s, label)
	a, err := ctx.GetAttributeValue(s, o, []*p11.Attribute{p11.NewAttribute(p11.CKA_ID, nil), p11.NewAttribute(p11.CKA_MODULUS, nil)})
	if err != nil {
		t.Fatal(err)
	}
	return o, a[0].Value, a[1].Value
}

func rsaPublicTemplate(label string, id, modulus []byte) []*p11.Attribute {
	return []*p11.Attribute{
		p11.NewAttribute(p11.CKA_CLASS, p11.CKO_PUBLIC_KEY), p11.NewAttribute(p11.CKA_KEY_TYPE, p11.CKK_RSA),
		p11.NewAttribute(p11.CKA_TOKEN, true), p11.NewAttribute(p11.CKA_PRIVATE, false),
		p11.NewAttribute(p11.CKA_LABEL, label), p11.NewAttribute(p11.CKA_ID, id),
		p11.NewAttribute(p11.CKA_MODULUS, modulus), p11.NewAttribute(p11.CKA_PUBLIC_EXPONENT, []byte{1, 0, 1}),
	}
}

// generatePINless generates an RSA key pair labelled label on the token
// without logging in: both halves CKA_PRIVATE false, the private one
// sensitive, not extractable and generated on the token. It checks that the
// private key then signs without login.
func generatePINless(t *testing.T, ctx *p11.Ctx, s p11.SessionHandle, label string, id []byte) {
	t.Helper()
	common := func(class uint) []*p11.Attribute {
		return []*p11.Attribute{p11.NewAttribute(p11.CKA_CLASS, class), p11.NewAttribute(p11.CKA_KEY_TYPE, p11.CKK_RSA),
			p11.NewAttribute(p11.CKA_TOKEN, true), p11.NewAttribute(p11.CKA_PRIVATE, false),
			p11.NewAttribute(p11.CKA_LABEL, label), p11.NewAttribute(p11.CKA_ID, id)}
	}
	pubT := append(common(p11.CKO_PUBLIC_KEY), p11.NewAttribute(p11.CKA_MODULUS_BITS, 2048), p11.NewAttribute(p11.CKA_PUBLIC_EXPONENT, []byte{1, 0, 1}))
	privT := append(common(p11.CKO_PRIVATE_KEY), p11.NewAttribute(p11.CKA_SENSITIVE, true),
		p11.NewAttribute(p11.CKA_EXTRACTABLE, false), p11.NewAttribute(p11.CKA_SIGN, true))
	_, priv, err := ctx.GenerateKeyPair(s, []*p11.Mechanism{p11.NewMechanism(p11.CKM_RSA_PKCS_KEY_PAIR_GEN, nil)}, pubT, privT)
	if err != nil {
		t.Fatalf("generating a key pair without login: %v", err)
	}
	if err := ctx.SignInit(s, []*p11.Mechanism{p11.NewMechanism(p11.CKM_RSA_X_509, nil)}, priv); err != nil {
		t.Fatal(err)
	}
	if _, err := ctx.Sign(s, make([]byte, 256)); err != nil {
		t.Fatalf("the key generated without login does not sign without login: %v", err)
	}
}

// TestPINlessSubstitution: whoever can open a session on the token, without
// its PIN, can add and remove public key objects and generate key pairs
// marked CKA_PRIVATE false, which they can then use without the PIN. None of
// that may make the logged-in backend serve or list another key under a
// label, nor a key whose proofs anyone could compute.
func TestPINlessSubstitution(t *testing.T) {
	sh := hsmtest.NewSoftHSM(t)
	tok := sh.InitToken(t, "tirage-pinless")
	log, capture := hsmtest.NewLog()
	cfg := pkcs11.Config{Module: sh.Module, TokenLabel: tok.Label, PIN: tok.PIN, Logger: log}
	open := func() hsm.Backend {
		t.Helper()
		b, err := pkcs11.Open(cfg)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	b := open()
	p, err := b.GenerateVRF("vrf", vrf.SuiteRSAFDH256)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.GenerateVRF("vrf-b", vrf.SuiteRSAFDH256); err != nil {
		t.Fatal(err)
	}
	genuine := p.PublicKey().Bytes()
	b.Close()
	var errs []string
	refused := func(what string, err error, says string) {
		t.Helper()
		if err == nil {
			t.Errorf("%s: accepted", what)
			return
		}
		errs = append(errs, err.Error())
		if errors.Is(err, hsm.ErrNotFound) {
			t.Errorf("%s: %v; want a refusal, not ErrNotFound (the key is there)", what, err)
		}
		if !strings.Contains(err.Error(), says) {
			t.Errorf("%s: %v; want it to say %q", what, err, says)
		}
	}

	// 1. A key pair made without login under a new label: usable by anyone,
	// so refused.
	sh.Session(t, tok, false, func(ctx *p11.Ctx, s p11.SessionHandle) { generatePINless(t, ctx, s, "vrf2", []byte("pinless")) })
	b = open()
	_, err = b.VRFProver("vrf2")
	refused("VRFProver of a key made without login", err, "CKA_PRIVATE false")
	b.Close()

	// 2. The genuine key hidden (a second public key object of its label
	// and ID) and one made without login put under its label: the backend
	// must neither serve nor list the substitute as "vrf".
	sh.Session(t, tok, false, func(ctx *p11.Ctx, s p11.SessionHandle) {
		_, id, modulus := findPublic(t, ctx, s, "vrf")
		if _, err := ctx.CreateObject(s, rsaPublicTemplate("vrf", id, modulus)); err != nil {
			t.Fatalf("creating a public key object without login: %v", err)
		}
		generatePINless(t, ctx, s, "vrf", []byte("substitute"))
	})
	b = open()
	if p2, err := b.VRFProver("vrf"); err == nil {
		t.Errorf("VRFProver(vrf) served a key (genuine: %v) with a key made without login under its label",
			bytes.Equal(p2.PublicKey().Bytes(), genuine))
	} else {
		refused("VRFProver of a label held by two private keys", err, `2 private keys labelled "vrf"`)
	}
	keys, err := b.Keys()
	if err != nil {
		t.Fatalf("Keys: %v", err)
	}
	for _, k := range keys {
		if k.Label == "vrf" {
			t.Errorf("Keys lists %q (genuine: %v) though two private keys hold its label", k.Label, bytes.Equal(k.Public, genuine))
		}
	}
	b.Close()

	// 3. A key's public key object replaced, without login, by one of
	// another modulus under its label and ID: Keys (whose VRF pins are
	// published) must not list that modulus as the key's.
	other, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	sh.Session(t, tok, false, func(ctx *p11.Ctx, s p11.SessionHandle) {
		o, id, _ := findPublic(t, ctx, s, "vrf-b")
		if err := ctx.DestroyObject(s, o); err != nil {
			t.Fatalf("destroying a public key object without login: %v", err)
		}
		if _, err := ctx.CreateObject(s, rsaPublicTemplate("vrf-b", id, other.N.Bytes())); err != nil {
			t.Fatal(err)
		}
	})
	b = open()
	defer b.Close()
	keys, err = b.Keys()
	for _, k := range keys {
		if k.Label == "vrf-b" {
			t.Errorf("Keys lists vrf-b with a public key object that is not its private key's")
		}
	}
	refused("Keys with a replaced RSA public key object", err, `"vrf-b"`)
	_, err = b.VRFProver("vrf-b")
	refused("VRFProver with a replaced RSA public key object", err, "not the public half of its private key")

	hsmtest.AssertNoSecrets(t, append(capture.Bytes(), strings.Join(errs, "\n")...), tok.PIN, tok.SOPIN)
}
