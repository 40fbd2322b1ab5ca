package receipttest

import (
	"bytes"
	"fmt"
	"strconv"
	"time"

	"tirage.fr/tirage/verifier/promo"
	"tirage.fr/tirage/verifier/record"
)

// ruledShare is the bailiff's share of RuledCertificate's draw; a freeze
// announcing a round holds its commitment.
const ruledShare = "text:12345678"

// RuledCertificate makes the certificate of draw bonus-crescendo/1 (12
// entrants, 3 reserves) against a draw's rules file: rules is the
// operator's (examples/bonus-crescendo.yaml; its operation, if renamed,
// is the certificate's: draw OPERATION/1), its draw 1 made to announce
// drand quicknet round rulesRound (none when 0); the freeze commits to
// those rules by their hash but announces freezeBeacon ("" or a quicknet
// round, drand:HASH:ROUND), and the draw binds beaconValue, that round's
// signature. Each of edits, if any, changes the freeze before it is logged
// (a freeze that contradicts its rules otherwise). It returns the
// certificate and the rules file as changed. The dates are the rules':
// frozen on 20 June 2016, drawn on 21 June.
func (a *Appliance) RuledCertificate(rules []byte, rulesRound uint64, freezeBeacon string, beaconValue []byte, edits ...func(*record.PromoFreeze)) (cert, rulesOut []byte, err error) {
	rf, err := a.ruledFreeze(rules, rulesRound, freezeBeacon, edits...)
	if err != nil {
		return nil, nil, err
	}
	f, fl, tree, secret := rf.freeze, rf.leaf, rf.tree, rf.secret
	rules = rf.rules
	fi := a.Append(fl)
	c := promo.Ceremony{Freeze: f, Tree: tree, R: secret, Share: ruledShare, BeaconValue: beaconValue, KeyID: a.VRFID,
		Prover: prover{a.VRF}, Now: time.Date(2016, 6, 21, 10, 0, 0, 0, time.UTC)}
	d, err := c.Run()
	if err != nil {
		return nil, nil, err
	}
	dl, err := record.Format(d)
	if err != nil {
		return nil, nil, err
	}
	di := a.Append(dl)
	n := a.Size()
	logged := func(i uint64) *promo.LoggedRecord {
		return &promo.LoggedRecord{Index: i, Record: string(a.Leaf(i)), Proof: a.Inclusion(i, n)}
	}
	cc, err := promo.NewCertificate(promo.CertificateInput{RulesHash: promo.RulesHash(rules), Freeze: logged(fi), Draw: logged(di),
		Checkpoint: a.Checkpoint(), LogKeys: a.LogKeys, Tree: tree, VRFKey: a.VRF.Public()})
	if err != nil {
		return nil, nil, err
	}
	return promo.CertificateJSON(cc), rules, nil
}

// ruled is a freeze of RuledCertificate's draw, made and not yet logged.
type ruled struct {
	freeze *record.PromoFreeze
	leaf   []byte // the freeze record
	tree   *promo.EntrantTree
	list   *promo.EntrantList
	secret [32]byte
	rules  []byte // the rules file as changed
}

// ruledFreeze makes RuledCertificate's freeze (see there).
func (a *Appliance) ruledFreeze(rules []byte, rulesRound uint64, freezeBeacon string, edits ...func(*record.PromoFreeze)) (*ruled, error) {
	if rulesRound > 0 {
		spec := "    reserves: 3\n    beacon: {source: \"drand quicknet\", chain: quicknet, round: " + strconv.FormatUint(rulesRound, 10) + "}\n"
		rules = bytes.Replace(rules, []byte("    reserves: 3\n"), []byte(spec), 1)
	}
	r, err := promo.ParseRules(rules)
	if err != nil {
		return nil, err
	}
	if (rulesRound > 0) != (r.Draws[0].Beacon != nil) {
		return nil, fmt.Errorf("receipttest: the rules' draw 1 does not announce round %d", rulesRound)
	}
	l := &promo.EntrantList{Draw: r.FullDrawID(0)}
	for i := range 12 {
		l.Accounts = append(l.Accounts, "A"+strconv.Itoa(1000+i))
	}
	tree, err := l.Tree()
	if err != nil {
		return nil, err
	}
	var secret [32]byte
	secret[0] = 7
	var committed [32]byte // the bailiff's share, committed with a beacon (NewFreeze)
	if freezeBeacon != "" {
		committed = promo.ShareCommitment(l.Draw, ruledShare)
	}
	f, err := promo.NewFreeze(promo.FreezeInput{Operation: r.Operation, RulesHash: promo.RulesHash(rules), Draw: l.Draw, Tree: tree,
		Reserves: 3, Beacon: freezeBeacon, KeyID: a.VRFID, R: secret, Now: time.Date(2016, 6, 20, 18, 0, 0, 0, time.UTC),
		ShareCommitment: committed})
	if err != nil {
		return nil, err
	}
	for _, edit := range edits {
		edit(f)
	}
	fl, err := record.Format(f)
	if err != nil {
		return nil, err
	}
	return &ruled{freeze: f, leaf: fl, tree: tree, list: l, secret: secret, rules: rules}, nil
}
