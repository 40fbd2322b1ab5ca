//go:build cgo

package pkcs11_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"errors"
	"reflect"
	"strings"
	"testing"

	"tirage.fr/tirage/hsm"
	"tirage.fr/tirage/hsm/hsmtest"
	"tirage.fr/tirage/hsm/pkcs11"
	"tirage.fr/tirage/verifier/vrf"
)

// ceremony is the labels of the keys rngctl keys init makes.
var ceremony = []string{"vrf", "log", "attestation"}

// TestPublicKeysWithoutLogin: PublicKeys reads without the PIN the same
// keys Keys lists with it, and fails naming the label when a key's public
// key object is marked private (hidden until login), missing, not of a
// type Tirage uses or not alone under its label; the PIN path is
// unchanged by all this.
func TestPublicKeysWithoutLogin(t *testing.T) {
	sh := hsmtest.NewSoftHSM(t)
	tok := sh.InitToken(t, "tirage-public")
	log, capture := hsmtest.NewLog()
	withPIN := pkcs11.Config{Module: sh.Module, TokenLabel: tok.Label, PIN: tok.PIN, Logger: log}
	noPIN := pkcs11.Config{Module: sh.Module, TokenLabel: tok.Label, Logger: log}
	keys := func() []hsm.Key {
		t.Helper()
		b, err := pkcs11.Open(withPIN)
		if err != nil {
			t.Fatal(err)
		}
		defer b.Close()
		k, err := b.Keys()
		if err != nil {
			t.Fatal(err)
		}
		return k
	}

	b, err := pkcs11.Open(withPIN)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.GenerateVRF("vrf", vrf.SuiteRSAFDH256); err != nil {
		t.Fatal(err)
	}
	if _, err := b.GenerateSigner("log", hsm.Ed25519); err != nil {
		t.Fatal(err)
	}
	if _, err := b.GenerateSigner("attestation", hsm.ECDSAP256SHA256); err != nil {
		t.Fatal(err)
	}
	// While the token is open (logged in) in this process, a session
	// would see its private objects: PublicKeys refuses it.
	if _, err := pkcs11.PublicKeys(noPIN); err == nil || !strings.Contains(err.Error(), "already open") {
		t.Errorf("PublicKeys of a token open in this process: %v, want already open", err)
	}
	b.Close()

	want := keys()
	if len(want) != 3 {
		t.Fatalf("Keys = %v, want the three ceremony keys", want)
	}
	for _, labels := range [][]string{nil, ceremony, {"log"}} {
		got, err := pkcs11.PublicKeys(noPIN, labels...)
		if err != nil {
			t.Fatalf("PublicKeys(%q): %v", labels, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("PublicKeys(%q) = %v, want Keys's %v", labels, got, want)
		}
	}
	if _, err := pkcs11.PublicKeys(withPIN); err == nil || !strings.Contains(err.Error(), "without logging in") {
		t.Errorf("PublicKeys with a PIN: %v, want it refused", err)
	}
	if _, err := pkcs11.PublicKeys(noPIN, "bad label"); !errors.Is(err, hsm.ErrBadLabel) {
		t.Errorf("PublicKeys of a bad label: %v, want ErrBadLabel", err)
	}

	// A key of a type Tirage does not use (P-384, another application's)
	// is left out of the list, as Keys leaves it out, and refused when
	// asked for.
	fk, err := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	importKey(t, sh, tok, "legacy", "0a", fk)
	if got, err := pkcs11.PublicKeys(noPIN, ceremony...); err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("PublicKeys with a P-384 key on the token = %v, %v; want %v", got, err, want)
	}
	var errs []string
	check := func(what string, err, class error, says ...string) {
		t.Helper()
		if err == nil {
			t.Errorf("%s: PublicKeys succeeded", what)
			return
		}
		errs = append(errs, err.Error())
		if class != nil && !errors.Is(err, class) {
			t.Errorf("%s: %v, want %v", what, err, class)
		}
		if strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error of several lines: %q", what, err)
		}
		for _, s := range append(says, `token "tirage-public"`) {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("%s: %v, want it to say %s", what, err, s)
			}
		}
	}
	_, err = pkcs11.PublicKeys(noPIN, "legacy")
	check("P-384 key asked for", err, hsm.ErrUnsupported, `"legacy"`)
	_, err = pkcs11.PublicKeys(noPIN, "absent")
	check("absent label", err, hsm.ErrNotFound, `"absent"`, "missing")

	// The VRF key's public key object marked private: hidden without
	// login, so asking for it names it; the PIN path still lists it.
	sh.MakePublicKeyPrivate(t, tok, "vrf")
	_, err = pkcs11.PublicKeys(noPIN, ceremony...)
	check("private public key", err, hsm.ErrNotFound, `"vrf"`, "CKA_PRIVATE true")
	if got := keys(); !reflect.DeepEqual(got, want) {
		t.Errorf("Keys with the PIN after the public key was made private = %v, want %v", got, want)
	}
	// Not asked for, it is not listed: PublicKeys lists only what the
	// token shows (hence the labels the caller expects).
	if got, err := pkcs11.PublicKeys(noPIN); err != nil || len(got) != 2 {
		t.Errorf("PublicKeys without labels = %v, %v; want log and attestation", got, err)
	}

	// The log key's public key object deleted.
	sh.DeletePublicKey(t, tok, "log")
	_, err = pkcs11.PublicKeys(noPIN, "log")
	check("missing public key", err, hsm.ErrNotFound, `"log"`, "missing")

	// A second key pair under the attestation key's label: without login
	// the two cannot be told apart.
	ek, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	importKey(t, sh, tok, "attestation", "0b", ek)
	_, err = pkcs11.PublicKeys(noPIN, "attestation")
	check("two public keys of one label", err, nil, `two public key objects are labelled "attestation"`)

	hsmtest.AssertNoSecrets(t, append(capture.Bytes(), strings.Join(errs, "\n")...), tok.PIN, tok.SOPIN)
}
