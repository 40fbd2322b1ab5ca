package audit_test

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"strings"
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
		f, err := promo.NewFreeze(promo.FreezeInput{Operation: "bonus", RulesHash: promo.RulesHash([]byte("rules")), Draw: l.Draw, Tree: tree, Reserves: 1, Beacon: ref.String(), KeyID: a.VRFID, R: r, Now: now,
			ShareCommitment: promo.ShareCommitment(l.Draw, "text:bailiff b")})
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

func (p auditProver) PublicKey() *vrf.PublicKey { return p.sk.Public() }
func (p auditProver) Prove(alpha []byte) (proof, beta []byte, err error) {
	return p.sk.ProveHash(alpha)
}

// publishedRound is a real drand round of verifier/beacon/testdata/rounds.json,
// with its value as a draw binds it (σ, or σ_{n-1} || σ for the chained scheme).
func publishedRound(t *testing.T, chain string, round uint64) (*beacon.Chain, []byte) {
	t.Helper()
	b, err := os.ReadFile("../beacon/testdata/rounds.json")
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Rounds []struct {
			Chain     string `json:"chain"`
			Round     uint64 `json:"round"`
			Previous  string `json:"previous_signature"`
			Signature string `json:"signature"`
		} `json:"rounds"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	for _, r := range f.Rounds {
		if r.Chain == chain && r.Round == round {
			c := beacon.Pinned(chain)
			v, err := hex.DecodeString(r.Previous + r.Signature)
			if err != nil || c == nil {
				t.Fatalf("rounds.json: %s round %d: %v", chain, round, err)
			}
			if _, err := c.Verify(round, v); err != nil {
				t.Fatalf("rounds.json: %s round %d does not verify: %v", chain, round, err)
			}
			return c, v
		}
	}
	t.Fatalf("rounds.json has no %s round %d", chain, round)
	return nil, nil
}

// TestAuditPromoBeaconAfterFreeze: the audit applies the certificate's rule
// (beacon.Chain.PublishedAfter) to every promotion draw in the log: the
// announced round must be published strictly after the freeze, else its
// value could be known when the list was frozen. The freezes below are what
// a dishonest appliance would log (its own NewFreeze refuses them): a freeze
// time set at or after the round's publication, with a real published round
// properly bound and proven.
func TestAuditPromoBeaconAfterFreeze(t *testing.T) {
	for _, tc := range []struct {
		name     string
		chain    string
		round    uint64
		freezeAt time.Duration // freeze time − the round's publication time
		want     verdict.Status
	}{
		{"quicknet, frozen 1 s before", "quicknet", 657413, -time.Second, verdict.StatusPass},
		{"quicknet, frozen at publication", "quicknet", 657413, 0, verdict.StatusMisbehaviour},
		{"quicknet, frozen a day after", "quicknet", 657413, 24 * time.Hour, verdict.StatusMisbehaviour},
		{"default, frozen 1 h before", "default", 72785, -time.Hour, verdict.StatusPass},
		{"default, frozen 30 s after", "default", 72785, 30 * time.Second, verdict.StatusMisbehaviour},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, value := publishedRound(t, tc.chain, tc.round)
			published := c.RoundTime(tc.round)
			a := logWith(t, 1, nil)
			l := &promo.EntrantList{Draw: "bonus/t", Accounts: []string{"A1", "A2", "A3", "A4", "A5"}}
			tree, _ := l.Tree()
			var r [32]byte
			ref := beacon.Ref{Chain: c.Hash(), Round: tc.round}
			f, err := promo.NewFreeze(promo.FreezeInput{Operation: "bonus", RulesHash: promo.RulesHash([]byte("rules")), Draw: l.Draw, Tree: tree, Reserves: 1, Beacon: ref.String(), KeyID: a.VRFID, R: r, Now: published.Add(-2 * time.Hour),
				ShareCommitment: promo.ShareCommitment(l.Draw, "text:bailiff t")})
			if err != nil {
				t.Fatal(err)
			}
			f.Time = published.Add(tc.freezeAt) // what the appliance logs as the freeze's time
			fl, err := record.Format(f)
			if err != nil {
				t.Fatal(err)
			}
			a.Append(fl)
			cer := promo.Ceremony{Freeze: f, Tree: tree, R: r, Share: "text:bailiff t", BeaconValue: value, KeyID: a.VRFID, Prover: auditProver{a.VRF}, Now: published.Add(time.Hour + tc.freezeAt)}
			d, err := cer.Run()
			if err != nil {
				t.Fatal(err)
			}
			dl, _ := record.Format(d)
			a.Append(dl)
			res := run(t, a, a.Tiles(), nil)
			ch := res.Verdict.Find(verdict.CheckPromotions)
			if ch == nil || ch.Status != tc.want {
				t.Fatalf("want %s\n%s", tc.want, res.Verdict.Text("en"))
			}
			if tc.want == verdict.StatusPass {
				return
			}
			// The reason names the round, both times, in English and French.
			at, frozen := published.Format(time.RFC3339), f.Time.UTC().Format(time.RFC3339)
			en := fmt.Sprintf("draw bonus/t (entry %d): %s round %d was published at %s, not after the freeze (%s)", a.Size()-1, c, tc.round, at, frozen)
			fr := fmt.Sprintf("tirage bonus/t (entrée %d) : la ronde %d de %s a été publiée le %s, et non après le gel (%s)", a.Size()-1, tc.round, c, at, frozen)
			if !strings.Contains(ch.Reason("en"), en) || !strings.Contains(ch.Reason("fr"), fr) {
				t.Errorf("reasons:\n%s\nwant %q\n%s\nwant %q", ch.Reason("en"), en, ch.Reason("fr"), fr)
			}
			if strings.Contains(ch.Reason("fr"), "anglais") || strings.Contains(ch.Reason("fr"), "published") {
				t.Errorf("French reason quotes English: %s", ch.Reason("fr"))
			}
		})
	}
}
