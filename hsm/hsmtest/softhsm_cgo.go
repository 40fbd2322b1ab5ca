//go:build cgo

package hsmtest

import (
	"testing"

	p11 "github.com/miekg/pkcs11"
)

// MakePublicKeyPrivate replaces the public key object labelled label on
// tok by a copy marked CKA_PRIVATE true, as a token user could: the token
// then shows it only after login. (SoftHSM2 refuses to change CKA_PRIVATE
// in place; C_CopyObject may set it.) No token of s may be open in this
// process (the module is initialised and finalised here).
func (s *SoftHSM) MakePublicKeyPrivate(t testing.TB, tok SoftHSMToken, label string) {
	t.Helper()
	s.withPublicKey(t, tok, label, func(ctx *p11.Ctx, sh p11.SessionHandle, o p11.ObjectHandle) error {
		if _, err := ctx.CopyObject(sh, o, []*p11.Attribute{p11.NewAttribute(p11.CKA_PRIVATE, true)}); err != nil {
			return err
		}
		return ctx.DestroyObject(sh, o)
	})
}

// DeletePublicKey destroys the public key object labelled label on tok,
// leaving its private key. No token of s may be open in this process.
func (s *SoftHSM) DeletePublicKey(t testing.TB, tok SoftHSMToken, label string) {
	t.Helper()
	s.withPublicKey(t, tok, label, func(ctx *p11.Ctx, sh p11.SessionHandle, o p11.ObjectHandle) error {
		return ctx.DestroyObject(sh, o)
	})
}

// withPublicKey logs in to tok and runs f on its one public key object
// labelled label.
func (s *SoftHSM) withPublicKey(t testing.TB, tok SoftHSMToken, label string, f func(*p11.Ctx, p11.SessionHandle, p11.ObjectHandle) error) {
	t.Helper()
	s.Session(t, tok, true, func(ctx *p11.Ctx, sh p11.SessionHandle) {
		if err := f(ctx, sh, FindPublic(t, ctx, sh, label)); err != nil {
			t.Fatalf("public key object %q on token %q: %v", label, tok.Label, err)
		}
	})
}

// FindPublic returns the one public key object labelled label that session
// sh sees, failing t if there is not exactly one.
func FindPublic(t testing.TB, ctx *p11.Ctx, sh p11.SessionHandle, label string) p11.ObjectHandle {
	t.Helper()
	tmpl := []*p11.Attribute{p11.NewAttribute(p11.CKA_CLASS, p11.CKO_PUBLIC_KEY), p11.NewAttribute(p11.CKA_LABEL, label)}
	if err := ctx.FindObjectsInit(sh, tmpl); err != nil {
		t.Fatal(err)
	}
	objs, _, err := ctx.FindObjects(sh, 2)
	ctx.FindObjectsFinal(sh)
	if err != nil || len(objs) != 1 {
		t.Fatalf("public key objects labelled %q: %d, %v", label, len(objs), err)
	}
	return objs[0]
}

// Session runs f in a read-write session of tok, logged in as its user if
// login is set; without, f does what anyone with access to the token can
// do without its PIN. No token of s may be open in this process.
func (s *SoftHSM) Session(t testing.TB, tok SoftHSMToken, login bool, f func(*p11.Ctx, p11.SessionHandle)) {
	t.Helper()
	ctx := p11.New(s.Module)
	if ctx == nil {
		t.Fatalf("couldn't load %s", s.Module)
	}
	defer ctx.Destroy()
	if err := ctx.Initialize(); err != nil {
		t.Fatalf("C_Initialize: %v (is a token of this module open in the test process?)", err)
	}
	defer ctx.Finalize()
	slots, err := ctx.GetSlotList(true)
	if err != nil {
		t.Fatal(err)
	}
	for _, slot := range slots {
		ti, err := ctx.GetTokenInfo(slot)
		if err != nil || trimLabel(ti.Label) != tok.Label {
			continue
		}
		sh, err := ctx.OpenSession(slot, p11.CKF_SERIAL_SESSION|p11.CKF_RW_SESSION)
		if err != nil {
			t.Fatal(err)
		}
		defer ctx.CloseSession(sh)
		if login {
			if err := ctx.Login(sh, p11.CKU_USER, string(tok.PIN)); err != nil {
				t.Fatal(err)
			}
			defer ctx.Logout(sh)
		}
		f(ctx, sh)
		return
	}
	t.Fatalf("no token labelled %q", tok.Label)
}

func trimLabel(s string) string {
	for len(s) > 0 && (s[len(s)-1] == ' ' || s[len(s)-1] == 0) {
		s = s[:len(s)-1]
	}
	return s
}
