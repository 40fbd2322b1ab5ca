package audit_test

import (
	"encoding/hex"
	"testing"
	"time"

	"tirage.fr/tirage/verifier/beacon"
	"tirage.fr/tirage/verifier/promo"
	"tirage.fr/tirage/verifier/record"
	"tirage.fr/tirage/verifier/verdict"
	"tirage.fr/tirage/verifier/vrf"
)

// The audit checks a promotion draw's beacon value against its freeze: the
// real signature of the announced drand quicknet round passes; another
// round's real signature, properly proven and logged by a dishonest
// appliance, is misbehaviour. (Signatures: verifier/beacon/testdata/rounds.json.)
func TestAuditPromoBeacon(t *testing.T) {
	sig123, _ := hex.DecodeString("b75c69d0b72a5d906e854e808ba7e2accb1542ac355ae486d591aa9d43765482e26cd02df835d3546d23c4b13e0dfc92")
	sig657413, _ := hex.DecodeString("b713718a38ae728dfd477991af2822e08d2f305e47718cef9f7848ce4050e7be41076862b98fad56e91a6b85b89cd97b")
	for _, tc := range []struct {
		name   string
		logged []byte // the beacon value in the logged draw record
		want   verdict.Status
	}{
		{"the announced round", sig123, verdict.StatusPass},
		{"another round", sig657413, verdict.StatusMisbehaviour},
	} {
		a := logWith(t, 1, nil)
		l := &promo.EntrantList{Draw: "bonus/b", Accounts: []string{"A1", "A2", "A3", "A4"}}
		tree, _ := l.Tree()
		var r [32]byte
		now := beacon.Quicknet.RoundTime(123).Add(-time.Hour) // announced before the round is published
		ref := beacon.Ref{Chain: beacon.Quicknet.Hash(), Round: 123}
		f, err := promo.NewFreeze(promo.FreezeInput{Operation: "bonus", RulesHash: promo.RulesHash([]byte("rules")), Draw: l.Draw, Tree: tree, Reserves: 1, Beacon: ref.String(), R: r, Now: now})
		if err != nil {
			t.Fatal(err)
		}
		fl, _ := record.Format(f)
		a.Append(fl)
		c := promo.Ceremony{Freeze: f, Tree: tree, R: r, Share: "text:bailiff b", BeaconValue: sig123, KeyID: a.VRFID, Prover: auditProver{a.VRF}, Now: now.Add(time.Hour)}
		d, err := c.Run()
		if err != nil {
			t.Fatal(err)
		}
		// What a dishonest appliance would log: another value, proven.
		d.BeaconValue = tc.logged
		if d.Proof, err = a.VRF.Prove(d.Alpha()); err != nil {
			t.Fatal(err)
		}
		d.Beta, _ = vrf.Verify(a.VRF.Public(), d.Alpha(), d.Proof)
		idx, _ := promo.Picks(d.Beta, d.Winners+d.Reserves, d.Count)
		for i, x := range idx {
			d.Ranking[i] = uint64(x)
		}
		dl, _ := record.Format(d)
		a.Append(dl)
		res := run(t, a, a.Tiles(), nil)
		if ch := res.Verdict.Find(verdict.CheckPromotions); ch == nil || ch.Status != tc.want {
			t.Errorf("%s: want %s\n%s", tc.name, tc.want, res.Verdict.Text("en"))
		}
	}
}

type auditProver struct{ sk *vrf.PrivateKey }

func (p auditProver) PublicKey() *vrf.PublicKey          { return p.sk.Public() }
func (p auditProver) Prove(alpha []byte) ([]byte, error) { return p.sk.Prove(alpha) }
