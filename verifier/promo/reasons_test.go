package promo

import (
	"errors"
	"strings"
	"testing"

	"tirage.fr/tirage/verifier/verdict"
)

// frenchOnly renders m in French as rngverify does for the catalog's
// errors (receipt.Cause), failing when an argument can only be shown in
// English: a text, or an error not built from the catalog.
func frenchOnly(t *testing.T, m verdict.Msg) string {
	t.Helper()
	out := verdict.Msg{ID: m.ID, Args: make([]any, len(m.Args))}
	for i, a := range m.Args {
		var me *verdict.MsgError
		switch x := a.(type) {
		case string:
			t.Errorf("%s: argument %d is English-only text %q", m.ID, i, x)
		case error:
			if !errors.As(x, &me) || me != x {
				t.Errorf("%s: argument %d is an error not from the catalog: %q", m.ID, i, x)
				break
			}
			a = frenchOnly(t, me.Msg)
		case verdict.Msg:
			a = frenchOnly(t, x)
		}
		out.Args[i] = a
	}
	return out.Text("fr")
}

// TestLoggedRecordReasonsInFrench: a logged record of another kind, at an
// index beyond the checkpoint, or with a proof hash that is not one, is
// refused in the catalog's words, so that --lang fr shows it in French
// (it once said « erreur technique (en anglais) : « index 7 not below the
// checkpoint's size 2 » »). The English text is unchanged.
func TestLoggedRecordReasonsInFrench(t *testing.T) {
	_, rc, _, a := freezeFixture(t)
	freeze := func(f func(r *FreezeReceipt)) []byte {
		r := rc
		r.Freeze.Proof = append([]string(nil), rc.Freeze.Proof...)
		f(&r)
		return FreezeReceiptJSON(&r)
	}
	fl := runFlow(t, accounts(50), "text:huissier Maître Dupont 21/06", 2)
	cert := func(f func(c *Certificate)) []byte {
		var c Certificate
		mustUnmarshal(t, fl.cert, &c)
		f(&c)
		return CertificateJSON(&c)
	}
	cases := []struct {
		name   string
		verify func() error
		check  string
		en, fr string
	}{
		{"freeze index beyond the tree", func() error {
			_, err := VerifyFreezeReceipt(freeze(func(r *FreezeReceipt) { r.Freeze.Index = 7 }), nil, a)
			return err
		}, CheckFreezeInclusion, "index 7 not below the checkpoint's size 2", "l'index 7 n'est pas inférieur à la taille 2 du point de contrôle"},
		{"freeze proof hash not hex", func() error {
			_, err := VerifyFreezeReceipt(freeze(func(r *FreezeReceipt) { r.Freeze.Proof[0] = "zz" }), nil, a)
			return err
		}, CheckFreezeInclusion, "proof hash 0 is not 32 bytes of lowercase hex", "l'empreinte 0 de la preuve n'est pas de 32 octets en hexadécimal minuscule"},
		{"freeze of another kind", func() error {
			_, err := Verify(cert(func(c *Certificate) { c.Freeze, c.DrawRecord = c.DrawRecord, c.Freeze }), nil, Anchors{Reserves: 2})
			return err
		}, CheckFreezeRecord, "not a promo_freeze record: another kind", "ce n'est pas un enregistrement de gel (promo_freeze) : un enregistrement d'un autre type"},
		{"draw of another kind", func() error {
			_, err := Verify(cert(func(c *Certificate) { c.DrawRecord = c.Freeze }), nil, Anchors{Reserves: 2})
			return err
		}, CheckDrawRecord, "not a promo_draw record: another kind", "ce n'est pas un enregistrement de tirage (promo_draw) : un enregistrement d'un autre type"},
		{"key announcement of another kind", func() error {
			_, err := Verify(cert(func(c *Certificate) { k := c.Freeze; c.Keys = &k }), nil, Anchors{Reserves: 2})
			return err
		}, CheckKeys, "not a key announcement: another kind", "ce n'est pas une annonce de clés : un enregistrement d'un autre type"},
		{"draw index beyond the tree", func() error {
			_, err := Verify(cert(func(c *Certificate) { c.DrawRecord.Index = 70 }), nil, Anchors{Reserves: 2})
			return err
		}, CheckDrawInclusion, "not below the checkpoint's size", "n'est pas inférieur à la taille"},
		{"pick proof hash not hex", func() error {
			_, err := Verify(cert(func(c *Certificate) { c.Picks[0].Proof[1] = "zz" }), nil, Anchors{Reserves: 2})
			return err
		}, CheckPickInclusion, "rank 1: proof hash 1 is not 32 bytes of lowercase hex", "rang 1 : l'empreinte 1 de la preuve n'est pas de 32 octets en hexadécimal minuscule"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var ce *CheckError
			if err := c.verify(); !errors.As(err, &ce) || ce.Check != c.check {
				t.Fatalf("%v, want a failed %s check", err, c.check)
			}
			if en := ce.Msg.Text("en"); !strings.Contains(en, c.en) {
				t.Errorf("en: %q, want %q", en, c.en)
			}
			if fr := frenchOnly(t, ce.Msg); !strings.Contains(fr, c.fr) {
				t.Errorf("fr: %q, want %q", fr, c.fr)
			}
		})
	}
}
