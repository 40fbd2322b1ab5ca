package promo

import (
	"errors"
	"strings"
	"testing"
	"time"

	"tirage.fr/tirage/verifier/record"
	"tirage.fr/tirage/verifier/verdict"
	"tirage.fr/tirage/verifier/vrf"
)

// keyedDraw logs one key announcement of two VRF keys ("vrf-test", the
// freeze's, and "vrf-2"), a freeze naming "vrf-test" (or none: legacy), and
// its draw under the key named by under, with the same r and share whatever
// the key — the reviewer's scenario: once s is known, the operator proves α
// under each announced key and keeps the ranking it prefers. The ceremony
// under "vrf-2" is run on a copy of the freeze naming it (the ceremony
// refuses another key than the freeze's), and the draw links to the logged
// freeze. It returns the certificate file and the draw record.
func keyedDraw(t *testing.T, under string, legacy bool) ([]byte, *record.PromoDraw, []byte) {
	t.Helper()
	_, rules := loadExample(t)
	provers := map[string]softProver{"vrf-test": testProver(t)}
	sk2, err := vrf.GenerateKey(vrf.SuiteP256SSWU, &detReader{ctr: 1 << 40})
	if err != nil {
		t.Fatal(err)
	}
	provers["vrf-2"] = softProver{sk2}
	var key, r [32]byte
	(&detReader{ctr: 7}).Read(key[:])
	(&detReader{ctr: 9}).Read(r[:])
	list := &EntrantList{Draw: "bonus-crescendo/1", Key: key, Accounts: accounts(1000)}
	tree, err := list.Tree()
	if err != nil {
		t.Fatal(err)
	}
	frozen := time.Date(2016, 6, 20, 18, 0, 0, 0, time.UTC)
	lg := newMemLog(t)
	var ks []record.Key
	for _, id := range []string{"vrf-test", "vrf-2"} {
		pk := provers[id].PublicKey()
		ks = append(ks, record.Key{ID: id, Use: "vrf", Suite: string(pk.Suite()), PublicKey: pk.Bytes(), Fingerprint: record.Fingerprint(pk.Bytes())})
	}
	ki := lg.append(t, mustFormat(t, &record.KeyAnnouncement{Time: frozen, Keys: ks}))
	fr, err := NewFreeze(FreezeInput{Operation: "bonus-crescendo", RulesHash: RulesHash(rules), Draw: list.Draw, Tree: tree, Reserves: 3, KeyID: "vrf-test", R: r, Now: frozen})
	if err != nil {
		t.Fatal(err)
	}
	if fr.Key != "vrf-test" {
		t.Fatalf("NewFreeze: key %q, want the key given", fr.Key)
	}
	if legacy {
		fr.Key = ""
	}
	fl := mustFormat(t, fr)
	fi := lg.append(t, fl)
	ran := *fr
	ran.Key = ""
	if !legacy {
		ran.Key = under
	}
	c := &Ceremony{Freeze: &ran, Tree: tree, R: r, Share: "text:huissier 21/06", KeyID: under, Prover: provers[under], Now: frozen.Add(40 * time.Hour)}
	d, err := c.Run()
	if err != nil {
		t.Fatal(err)
	}
	d.Prev = record.LeafHash(fl)
	di := lg.append(t, mustFormat(t, d))
	cert, err := NewCertificate(CertificateInput{RulesHash: RulesHash(rules), Keys: lg.logged(t, ki), Freeze: lg.logged(t, fi), Draw: lg.logged(t, di),
		Checkpoint: lg.checkpoint(t), LogKeys: []string{lg.vkey}, Tree: tree, VRFKey: provers[under].PublicKey()})
	if err != nil {
		t.Fatal(err)
	}
	return CertificateJSON(cert), d, rules
}

// TestCertificateFreezeKey: of the same freeze, r and share drawn once under
// each of two announced keys, only the draw under the key the freeze names
// verifies; the other fails freeze-draw-link, naming both keys — though its
// proof, β and ranking are valid under its own key. Before freezes named
// their key, both verified: the operator chose the winner by choosing the key.
func TestCertificateFreezeKey(t *testing.T) {
	good, dg, rules := keyedDraw(t, "vrf-test", false)
	bad, db, _ := keyedDraw(t, "vrf-2", false)
	if string(dg.Beta) == string(db.Beta) {
		t.Fatal("test bug: the two keys give the same β")
	}
	for _, a := range []Anchors{{Reserves: -1}, {Rules: rules, Reserves: -1}} {
		if _, err := Verify(good, nil, a); err != nil {
			t.Fatalf("the draw under the freeze's key: %v", err)
		}
		_, err := Verify(bad, nil, a)
		var ce *CheckError
		if !errors.As(err, &ce) || ce.Check != CheckLink || ce.Msg.ID != verdict.MsgDrawKeyNotFrozen ||
			!strings.Contains(err.Error(), `"vrf-2", not "vrf-test"`) {
			t.Fatalf("the draw under another key: %v, want %s failing with %s naming both keys", err, CheckLink, verdict.MsgDrawKeyNotFrozen)
		}
		if fr := verdict.Format(ce.Msg.ID, "fr"); !strings.Contains(fr, "celle que désigne son gel") {
			t.Errorf("French: %q", fr)
		}
	}
	// A freeze logged before freezes named their key binds none: the
	// certificate alone cannot tell (the audit of the log can).
	if _, err := Verify(func() []byte { c, _, _ := keyedDraw(t, "vrf-2", true); return c }(), nil, Anchors{Reserves: -1}); err != nil {
		t.Errorf("legacy freeze: %v", err)
	}
}

// TestCeremonyFreezeKey: the ceremony draws with the key the freeze names
// only: another key is refused before anything is proven, naming both; a
// freeze naming no key (an older appliance's) binds none.
func TestCeremonyFreezeKey(t *testing.T) {
	list := &EntrantList{Draw: "bonus-crescendo/1", Accounts: accounts(10)}
	tree, _ := list.Tree()
	var r [32]byte
	if _, err := NewFreeze(FreezeInput{Operation: "bonus-crescendo", RulesHash: RulesHash([]byte("rules")), Draw: list.Draw, Tree: tree, R: r, Now: time.Unix(0, 0)}); err == nil {
		t.Fatal("NewFreeze without a VRF key succeeded")
	}
	fr, err := NewFreeze(FreezeInput{Operation: "bonus-crescendo", RulesHash: RulesHash([]byte("rules")), Draw: list.Draw, Tree: tree, KeyID: "vrf-test", R: r, Now: time.Unix(0, 0)})
	if err != nil {
		t.Fatal(err)
	}
	p := &countingProver{softProver: testProver(t)}
	c := &Ceremony{Freeze: fr, Tree: tree, R: r, Share: "text:12345678", KeyID: "vrf-2", Prover: p, Now: time.Unix(1, 0)}
	_, err = c.Run()
	var ke *KeyNotFrozenError
	if !errors.Is(err, ErrKeyNotFrozen) || !errors.As(err, &ke) || ke.Key != "vrf-2" || ke.Frozen != "vrf-test" ||
		!strings.Contains(err.Error(), `"vrf-2"`) || !strings.Contains(err.Error(), `"vrf-test"`) {
		t.Fatalf("ceremony under another key: %v", err)
	}
	if p.n != 0 {
		t.Fatalf("the refused ceremony proved %d times", p.n)
	}
	c.KeyID = "vrf-test"
	if d, err := c.Run(); err != nil || d.Key != "vrf-test" {
		t.Fatalf("ceremony under the freeze's key: %v", err)
	}
	legacy := *fr
	legacy.Key = ""
	c.Freeze, c.KeyID = &legacy, "vrf-2"
	if _, err := c.Run(); err != nil {
		t.Fatalf("legacy freeze: %v", err)
	}
}

type countingProver struct {
	softProver
	n int
}

func (p *countingProver) Prove(alpha []byte) (proof, beta []byte, err error) {
	p.n++
	return p.softProver.Prove(alpha)
}
