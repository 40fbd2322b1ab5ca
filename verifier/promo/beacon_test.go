package promo

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"tirage.fr/tirage/verifier/beacon"
	"tirage.fr/tirage/verifier/record"
)

// drandRound is a real published drand round of verifier/beacon's vectors
// (../beacon/testdata/rounds.json names the source of each).
type drandRound struct {
	Chain      string `json:"chain"`
	Round      uint64 `json:"round"`
	Prev       string `json:"previous_signature"`
	Signature  string `json:"signature"`
	Randomness string `json:"randomness"`
}

func (r drandRound) ref() string {
	return beacon.Ref{Chain: beacon.Pinned(r.Chain).Hash(), Round: r.Round}.String()
}

func (r drandRound) value(t testing.TB) []byte {
	b, err := hex.DecodeString(r.Prev + r.Signature)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// realRound returns the first vector of chain with a published randomness.
func realRound(t testing.TB, chain string) drandRound {
	t.Helper()
	return roundOf(t, chain, 0)
}

// roundOf returns the vector of this chain and round (0: the first with a
// published randomness).
func roundOf(t testing.TB, chain string, round uint64) drandRound {
	t.Helper()
	b, err := os.ReadFile("../beacon/testdata/rounds.json")
	if err != nil {
		t.Fatal(err)
	}
	var f struct{ Rounds []drandRound }
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	for _, r := range f.Rounds {
		if r.Chain == chain && (r.Round == round || round == 0 && r.Randomness != "") {
			return r
		}
	}
	t.Fatalf("no %s round %d", chain, round)
	return drandRound{}
}

// A pre-announced drand round: the freeze names it, the ceremony refuses a
// missing value or one that is not that round's signature (another round,
// a flipped bit, another chain), binds the real one, and the certificate's
// beacon-signature check recomputes the published randomness.
func TestBeaconVerified(t *testing.T) {
	for _, chain := range []string{"quicknet", "default"} {
		rd := realRound(t, chain)
		list := &EntrantList{Draw: "bonus-crescendo/1", Accounts: accounts(20)}
		tree, _ := list.Tree()
		var r [32]byte
		fr, err := NewFreeze(FreezeInput{Operation: "bonus-crescendo", RulesHash: RulesHash([]byte("rules")), Draw: list.Draw, Tree: tree, R: r, Beacon: rd.ref(), KeyID: "k", Now: time.Unix(0, 0),
			ShareCommitment: ShareCommitment(list.Draw, "text:12345678")})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(fr.Beacon, "drand:") || mustFormat(t, fr) == nil {
			t.Fatalf("freeze beacon %q", fr.Beacon)
		}
		c := &Ceremony{Freeze: fr, Tree: tree, R: r, Share: "text:12345678", Prover: testProver(t), KeyID: "k", Now: time.Unix(1, 0)}
		good := rd.value(t)
		flipped := bytes.Clone(good)
		flipped[len(flipped)-3] ^= 4
		other := realRound(t, map[string]string{"quicknet": "default", "default": "quicknet"}[chain]).value(t)
		for name, bad := range map[string][]byte{"missing": nil, "flipped bit": flipped, "other chain's round": other, "truncated": good[:len(good)-1]} {
			c.BeaconValue = bad
			if _, err := c.Run(); err == nil || !strings.Contains(err.Error(), "beacon_value") {
				t.Errorf("%s: %s value: %v", chain, name, err)
			}
		}
		// Announced for the next round: this round's value is refused.
		next := *fr
		next.Beacon = beacon.Ref{Chain: beacon.Pinned(chain).Hash(), Round: rd.Round + 1}.String()
		c.Freeze, c.BeaconValue = &next, good
		if _, err := c.Run(); err == nil || !strings.Contains(err.Error(), "beacon_value") {
			t.Errorf("%s: the value of round %d accepted for round %d: %v", chain, rd.Round, rd.Round+1, err)
		}
		c.Freeze = fr
		d, err := c.Run()
		if err != nil {
			t.Fatalf("%s: %v", chain, err)
		}
		if !bytes.Equal(d.BeaconValue, good) || d.Beacon != fr.Beacon {
			t.Fatalf("%s: the draw record does not carry the round", chain)
		}
		b, err := VerifyBeacon(d.Beacon, d.BeaconValue)
		if err != nil || !b.Verified() || hex.EncodeToString(b.Randomness[:]) != rd.Randomness || b.Round != rd.Round {
			t.Fatalf("%s: VerifyBeacon = %+v, %v; want randomness %s", chain, b, err, rd.Randomness)
		}
	}
	// No beacon announced: a value is refused.
	if _, err := VerifyBeacon("", []byte{1}); err == nil {
		t.Error("a beacon value accepted without an announced round")
	}
	// The round must be published after the freeze: not at it, not before.
	{
		list := &EntrantList{Draw: "bonus-crescendo/1", Accounts: accounts(3)}
		tree, _ := list.Tree()
		ref := beacon.Ref{Chain: beacon.Quicknet.Hash(), Round: 123}
		at := beacon.Quicknet.RoundTime(123)
		for _, now := range []time.Time{at, at.Add(time.Hour)} {
			_, err := NewFreeze(FreezeInput{Operation: "bonus-crescendo", RulesHash: RulesHash([]byte("r")), Draw: list.Draw, Tree: tree, Beacon: ref.String(), KeyID: "k", Now: now})
			if err == nil || !strings.Contains(err.Error(), "not after the freeze") {
				t.Errorf("freeze at %v announcing a round published at %v: %v", now, at, err)
			}
		}
		if _, err := NewFreeze(FreezeInput{Operation: "bonus-crescendo", RulesHash: RulesHash([]byte("r")), Draw: list.Draw, Tree: tree, Beacon: ref.String(), KeyID: "k", Now: at.Add(-time.Second), ShareCommitment: ShareCommitment(list.Draw, "text:12345678")}); err != nil {
			t.Errorf("freeze a second before the round: %v", err)
		}
	}
	// New freezes announce verifiable rounds of pinned chains only.
	list := &EntrantList{Draw: "bonus-crescendo/1", Accounts: accounts(3)}
	tree, _ := list.Tree()
	for _, b := range []string{"drand quicknet round 1234", "drand:" + strings.Repeat("ab", 32) + ":5", "drand:52db:1"} {
		if _, err := NewFreeze(FreezeInput{Operation: "bonus-crescendo", RulesHash: RulesHash([]byte("r")), Draw: list.Draw, Tree: tree, Beacon: b, KeyID: "k", Now: time.Unix(0, 0)}); err == nil {
			t.Errorf("freeze with beacon %q accepted", b)
		}
	}
}

// The certificate of a draw with a drand round verifies, the beacon check
// included; a draw record binding another value — properly proven and
// logged by a dishonest appliance — fails beacon-signature.
func TestCertificateBeacon(t *testing.T) {
	rd := realRound(t, "quicknet")
	f := runFlowBeacon(t, accounts(30), "text:huissier Maître Dupont 21/06", 3, rd.ref(), rd.value(t))
	v, err := Verify(f.cert, f.list, Anchors{Rules: f.rules, Reserves: 3})
	if err != nil {
		t.Fatal(err)
	}
	if !v.Beacon.Verified() || hex.EncodeToString(v.Beacon.Randomness[:]) != rd.Randomness || v.Beacon.Chain != &beacon.Quicknet {
		t.Fatalf("beacon %+v", v.Beacon)
	}
	// A dishonest appliance proves and logs a draw with another value: the
	// real signature of another quicknet round.
	var c Certificate
	mustUnmarshal(t, f.cert, &c)
	fr, _ := record.Parse([]byte(c.Freeze.Record))
	dr, _ := record.Parse([]byte(c.DrawRecord.Record))
	d := dr.(*record.PromoDraw)
	d.BeaconValue = roundOf(t, "quicknet", 123).value(t)
	f.prove(t, d)
	_, err = Verify(f.forge(t, fr, d), f.list, Anchors{Reserves: -1})
	var ce *CheckError
	if !errors.As(err, &ce) || ce.Check != CheckBeacon || !strings.Contains(err.Error(), "does not verify") {
		t.Fatalf("got %v, want %s", err, CheckBeacon)
	}
	// A freeze logged after the round was published (a dishonest clock or
	// record): the beacon was known at the freeze; beacon-signature fails.
	fr2 := fr.(*record.PromoFreeze)
	fr2.Time = beacon.Quicknet.RoundTime(rd.Round).Add(time.Minute)
	d2 := *dr.(*record.PromoDraw)
	d2.Time = fr2.Time.Add(time.Hour) // drawn after that freeze (freeze-draw-link)
	d2.BeaconValue = rd.value(t)
	d2.Prev = record.LeafHash(mustFormat(t, fr2))
	f.prove(t, &d2)
	_, err = Verify(f.forge(t, fr2, &d2), f.list, Anchors{Reserves: -1})
	if !errors.As(err, &ce) || ce.Check != CheckBeacon || !strings.Contains(err.Error(), "not after the freeze") {
		t.Fatalf("a round published before the freeze: got %v, want %s", err, CheckBeacon)
	}
	// Without a beacon the check passes with nothing to check.
	plain := runFlow(t, accounts(5), "text:12345678", 0)
	if v, err := Verify(plain.cert, nil, Anchors{Reserves: -1}); err != nil || v.Beacon != nil {
		t.Fatalf("no beacon: %v, %+v", err, v)
	}
}

// A freeze of an older rngd announced a free-text beacon: whoever gives its
// value can try values until the winners suit them, and nothing checks it.
// Its certificate does not verify.
func TestLegacyBeacon(t *testing.T) {
	if _, err := VerifyBeacon("drand quicknet round 1234", []byte{1, 2, 3}); err == nil || !strings.Contains(err.Error(), "free text, not a drand round") {
		t.Fatalf("free-text beacon: %v", err)
	}
}

// A rules file announces a round of a pinned drand chain, by name or hash;
// another chain or round 0 is an error naming the field.
func TestRulesBeacon(t *testing.T) {
	_, data := loadExample(t)
	with := func(spec string) []byte {
		return bytes.Replace(data, []byte("    reserves: 3\n"), []byte("    reserves: 3\n    beacon: "+spec+"\n"), 1)
	}
	for _, ok := range []string{
		`{source: "drand quicknet", chain: quicknet, round: 12345678}`,
		`{chain: 52db9ba70e0cc0f6eaf7803dd07447a1f5477735fd3f661792ba94600c84e971, round: 1}`,
		`{chain: mainnet, round: 5}`,
	} {
		r, err := ParseRules(with(ok))
		if err != nil {
			t.Fatalf("%s: %v", ok, err)
		}
		ref, c, err := r.Draws[0].Beacon.Ref()
		if err != nil || c == nil || ref.Chain != c.Hash() || ref.Round != r.Draws[0].Beacon.Round {
			t.Fatalf("%s: Ref = %v, %v, %v", ok, ref, c, err)
		}
	}
	for spec, field := range map[string]string{
		`{source: "drand quicknet round 5", round: 5}`:                                        "draws[0].beacon.chain",
		`{chain: "drand quicknet", round: 5}`:                                                 "draws[0].beacon.chain",
		`{chain: 0000000000000000000000000000000000000000000000000000000000000000, round: 5}`: "draws[0].beacon.chain",
		`{chain: quicknet, round: 0}`:                                                         "draws[0].beacon.round",
		`{chain: quicknet}`:                                                                   "draws[0].beacon.round",
		`{chain: quicknet, round: 5, key: ab}`:                                                "key",
	} {
		_, err := ParseRules(with(spec))
		if err == nil || !strings.Contains(err.Error(), field) {
			t.Errorf("%s: %v, want an error naming %s", spec, err, field)
		}
	}
}

// TestFreezeBeaconAgainstRules: rngd freezes a draw with the beacon round
// its rules announce (draws[j].beacon). A freeze that drops it — or names
// another round, or one the rules do not announce — commits to the rules
// by their hash and contradicts them: with the rules given, Verify fails
// beacon-signature naming both beacons, and the ceremony refuses to draw.
// Before, the certificate passed: the freeze's "no beacon" left nothing to
// check, and nothing compared it with the rules. Without the rules, the
// certificate alone cannot show it.
func TestFreezeBeaconAgainstRules(t *testing.T) {
	_, example := loadExample(t)
	promised := roundOf(t, "quicknet", 657413)
	other := roundOf(t, "quicknet", 123)
	now := time.Date(2016, 6, 20, 18, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name      string
		rules     []byte
		announced string
		value     []byte
		want      []string // in the error; none: it verifies
	}{
		{"dropped", rulesAnnouncing(t, example, promised.ref()), "", nil,
			[]string{"the freeze announces no beacon round, but the rules it commits to announce drand quicknet (52db9ba7…) round 657413 (" + promised.ref() + ") for draw bonus-crescendo/1"}},
		{"another round", rulesAnnouncing(t, example, promised.ref()), other.ref(), other.value(t),
			[]string{"the freeze announces drand quicknet (52db9ba7…) round 123 (" + other.ref() + "), but the rules it commits to announce drand quicknet (52db9ba7…) round 657413"}},
		{"not announced", example, other.ref(), other.value(t),
			[]string{"round 123", "but the rules it commits to announce no beacon round for draw bonus-crescendo/1"}},
		{"the promised round", rulesAnnouncing(t, example, other.ref()), other.ref(), other.value(t), nil},
		{"none promised, none announced", example, "", nil, nil},
	} {
		f := runFlowRules(t, c.rules, accounts(20), "text:12345678", 3, c.announced, c.value, now, now.Add(40*time.Hour))
		// The certificate alone: verifies (the rules are not in it).
		if _, err := Verify(f.cert, f.list, Anchors{Reserves: 3}); err != nil {
			t.Fatalf("%s, without the rules: %v", c.name, err)
		}
		_, err := Verify(f.cert, f.list, Anchors{Rules: c.rules, Reserves: 3})
		var ce *CheckError
		switch {
		case c.want == nil && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want == nil:
		case !errors.As(err, &ce) || ce.Check != CheckBeacon:
			t.Errorf("%s: got %v, want %s failing", c.name, err, CheckBeacon)
		default:
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) || !strings.Contains(ce.Msg.Text("en"), w) {
					t.Errorf("%s: %v\nwant %q", c.name, err, w)
				}
			}
			if fr := ce.Msg.Text("fr"); !strings.Contains(fr, "le gel contredit son propre règlement") {
				t.Errorf("%s: French %q", c.name, fr)
			}
		}
		// The ceremony, given the rules, refuses such a freeze.
		var cf Certificate
		mustUnmarshal(t, f.cert, &cf)
		fr, _ := record.Parse([]byte(cf.Freeze.Record))
		tree, _ := f.list.Tree()
		var r [32]byte
		(&detReader{ctr: 9}).Read(r[:])
		cer := &Ceremony{Freeze: fr.(*record.PromoFreeze), Tree: tree, R: r, Share: "text:12345678", BeaconValue: c.value, KeyID: "vrf-test",
			Prover: f.prover, Now: now.Add(40 * time.Hour), RulesFile: c.rules}
		if _, err := cer.Run(); (err != nil) != (c.want != nil) || err != nil && !strings.Contains(err.Error(), c.want[0]) {
			t.Errorf("%s: ceremony: %v", c.name, err)
		}
	}
}
