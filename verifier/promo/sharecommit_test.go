package promo

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"tirage.fr/tirage/verifier/beacon"
	"tirage.fr/tirage/verifier/record"
	"tirage.fr/tirage/verifier/verdict"
)

// ShareCommitment's known answers, computed independently (Python:
// hashlib.sha256(b"tirage/share-commitment/v1" + struct.pack(">I",
// len(d)) + d + struct.pack(">I", len(s)) + s)), and its domain: the draw
// and the share, length-prefixed.
func TestShareCommitmentVectors(t *testing.T) {
	for _, tc := range []struct{ draw, share, want string }{
		{"bonus-crescendo/1", "text:Maître Dupont, huissier", "71fce089d2cc8b19feaf19cc22934ed60ea8709e865ecf020cd317c2acd3603c"},
		{"bonus-crescendo/1", "dice:3516243512662341522316641", "54983cb34be8ae08822be7b0b9793d7891da5a4e4236278e6d03a1330884cd95"},
	} {
		got := ShareCommitment(tc.draw, tc.share)
		if record.Hex(got) != tc.want {
			t.Errorf("ShareCommitment(%q, %q) = %x, want %s", tc.draw, tc.share, got, tc.want)
		}
	}
	a := ShareCommitment("bonus-crescendo/1", "text:12345678")
	for _, other := range [][2]string{{"bonus-crescendo/2", "text:12345678"}, {"bonus-crescendo/1", "text:12345679"}, {"bonus-crescendo/1t", "ext:12345678"}} {
		if ShareCommitment(other[0], other[1]) == a {
			t.Errorf("%q %q commits like bonus-crescendo/1 text:12345678", other[0], other[1])
		}
	}
}

// The share is read as the ceremony reads it: one line, its line end
// dropped, nothing after it consumed; text or dice normalised alike.
func TestReadShare(t *testing.T) {
	r := strings.NewReader("  Maître Dupont, huissier \r\nnext")
	b, err := ReadShareLine(r)
	if err != nil || string(b) != "  Maître Dupont, huissier " {
		t.Fatalf("ReadShareLine = %q, %v", b, err)
	}
	if rest, _ := io.ReadAll(r); string(rest) != "next" {
		t.Errorf("read past the line: %q left", rest)
	}
	if s, err := ShareFromInput(b, false); err != nil || s != "text:Maître Dupont, huissier" {
		t.Errorf("text: %q, %v", s, err)
	}
	if s, err := ShareFromInput([]byte("3 5 1, 6-2 4 3 5 1 2 6 6 2 3 4 1 5 2 2 3 1 6 6 4 1\n"), true); err != nil || s != "dice:3516243512662341522316641" {
		t.Errorf("dice: %q, %v", s, err)
	}
	for name, in := range map[string]io.Reader{
		"nothing":   strings.NewReader(""),
		"too long":  strings.NewReader(strings.Repeat("x", MaxShareLine+1) + "\n"),
		"a failure": iotest.ErrReader(errors.New("terminal gone")),
	} {
		if _, err := ReadShareLine(in); err == nil {
			t.Errorf("%s: read", name)
		}
	}
}

// A freeze announcing a beacon round needs the bailiff's share commitment
// (ErrNoShareCommitment); it holds the one given. Without a beacon it is
// optional.
func TestNewFreezeShareCommitment(t *testing.T) {
	list := &EntrantList{Draw: "bonus-crescendo/1", Accounts: accounts(3)}
	tree, _ := list.Tree()
	ref := beacon.Ref{Chain: beacon.Quicknet.Hash(), Round: 123}
	in := FreezeInput{Operation: "bonus-crescendo", RulesHash: RulesHash([]byte("r")), Draw: list.Draw, Tree: tree, Beacon: ref.String(), KeyID: "k",
		Now: beacon.Quicknet.RoundTime(123).Add(-time.Hour)}
	if _, err := NewFreeze(in); !errors.Is(err, ErrNoShareCommitment) {
		t.Fatalf("a beacon without a share commitment: %v, want %v", err, ErrNoShareCommitment)
	}
	in.ShareCommitment = ShareCommitment(list.Draw, "text:12345678")
	fr, err := NewFreeze(in)
	if err != nil || fr.ShareCommitment != in.ShareCommitment {
		t.Fatalf("with it: %v, %+v", err, fr)
	}
	in.Beacon, in.ShareCommitment = "", [32]byte{}
	if fr, err := NewFreeze(in); err != nil || fr.ShareCommitment != ([32]byte{}) {
		t.Fatalf("no beacon, no commitment: %v, %+v", err, fr)
	}
}

// The ceremony refuses, before proving anything, a share that does not
// open the freeze's share commitment, and draws with the one that does.
func TestCeremonyShareCommitment(t *testing.T) {
	rd := realRound(t, "quicknet")
	list := &EntrantList{Draw: "bonus-crescendo/1", Accounts: accounts(20)}
	tree, _ := list.Tree()
	var r [32]byte
	fr, err := NewFreeze(FreezeInput{Operation: "bonus-crescendo", RulesHash: RulesHash([]byte("rules")), Draw: list.Draw, Tree: tree, R: r,
		Beacon: rd.ref(), KeyID: "k", Now: time.Unix(0, 0), ShareCommitment: ShareCommitment(list.Draw, "text:Maître Dupont, huissier")})
	if err != nil {
		t.Fatal(err)
	}
	p := &countingProver{softProver: testProver(t)}
	c := &Ceremony{Freeze: fr, Tree: tree, R: r, BeaconValue: rd.value(t), Prover: p, KeyID: "k", Now: time.Unix(1, 0)}
	for _, other := range []string{"text:Maître Dupont, huissier!", "text:another share", "dice:3516243512662341522316641"} {
		c.Share = other
		err := c.Check()
		var me *verdict.MsgError
		if !errors.As(err, &me) || me.Msg.ID != verdict.MsgShareCommitmentOpen || !strings.Contains(err.Error(), record.Hex(fr.ShareCommitment)) {
			t.Errorf("share %q: Check = %v, want %s", other, err, verdict.MsgShareCommitmentOpen)
		}
		if _, err := c.Run(); err == nil {
			t.Errorf("share %q drawn", other)
		}
	}
	if p.n != 0 {
		t.Fatalf("%d proofs made for shares refused", p.n)
	}
	c.Share = "text:Maître Dupont, huissier"
	d, err := c.Run()
	if err != nil || string(d.Share) != c.Share || p.n != 1 {
		t.Fatalf("the committed share: %v (%d proofs)", err, p.n)
	}
}

// promoCertificate is the certificate of a draw announcing drand quicknet
// round rd and its checks: the freeze holds the bailiff's share commitment
// (unless edit clears it), and the draw binds share.
func promoCertificate(t *testing.T, share string, edit func(*record.PromoFreeze)) (*fixture, drandRound) {
	rd := realRound(t, "quicknet")
	_, rules := loadExample(t)
	rules = rulesAnnouncing(t, rules, rd.ref())
	now := time.Date(2016, 6, 20, 18, 0, 0, 0, time.UTC)
	return runFlowEdit(t, rules, accounts(30), share, 3, rd.value(t), now, now.Add(40*time.Hour), func(fr *record.PromoFreeze) {
		fr.Beacon = rd.ref()
		fr.ShareCommitment = ShareCommitment(fr.Draw, share)
		edit(fr)
	}), rd
}

// Verify (check share-commitment): a draw whose share opens the frozen
// commitment verifies and says so; a draw record holding another share
// — another try, properly proven and logged by a dishonest appliance once
// the round was known — fails share-commitment; a freeze logged before
// freezes held a commitment verifies, its Freeze holding none.
func TestVerifyShareCommitment(t *testing.T) {
	const share = "text:huissier Maître Dupont 21/06"
	f, _ := promoCertificate(t, share, func(*record.PromoFreeze) {})
	v, err := Verify(f.cert, f.list, Anchors{Rules: f.rules, Reserves: 3})
	if err != nil || v.Freeze.ShareCommitment == ([32]byte{}) || !v.Beacon.Verified() {
		t.Fatalf("the committed share: %v, %+v", err, v)
	}

	var c Certificate
	mustUnmarshal(t, f.cert, &c)
	fr, _ := record.Parse([]byte(c.Freeze.Record))
	dr, _ := record.Parse([]byte(c.DrawRecord.Record))
	d := dr.(*record.PromoDraw)
	d.Share = []byte("text:huissier Maître Dupont 22/06")
	f.prove(t, d)
	_, err = Verify(f.forge(t, fr, d), f.list, Anchors{Reserves: -1})
	var ce *CheckError
	if !errors.As(err, &ce) || ce.Check != CheckShareCommitment || !strings.Contains(err.Error(), "does not open the commitment") {
		t.Fatalf("another share: got %v, want %s", err, CheckShareCommitment)
	}

	old, _ := promoCertificate(t, share, func(fr *record.PromoFreeze) { fr.ShareCommitment = [32]byte{} })
	v, err = Verify(old.cert, old.list, Anchors{Rules: old.rules, Reserves: 3})
	if err != nil || v.Freeze.ShareCommitment != ([32]byte{}) || !v.Beacon.Verified() {
		t.Fatalf("a freeze without a share commitment: %v, %+v", err, v)
	}
}

// From ShareCommitmentsRequired on, a freeze announcing a beacon must hold
// the bailiff's share commitment (CheckShareCommitted): one without — an
// older rngctl's, or written by hand to leave the share free until the
// round is published — is refused by the ceremony before anything is
// proven, and its certificate fails share-commitment, whatever share the
// draw holds. A second earlier it is an older freeze (verifies, with the
// warning); without a beacon none is needed.
func TestShareCommitmentRequired(t *testing.T) {
	at := ShareCommitmentsRequired
	const round = "drand:52db9ba70e0cc0f6eaf7803dd07447a1f5477735fd3f661792ba94600c84e971:30000000"
	for _, tc := range []struct {
		name   string
		time   time.Time
		beacon string
		c      [32]byte
		want   bool
	}{
		{"beacon, none, at the date", at, round, [32]byte{}, true},
		{"beacon, none, after", at.Add(48 * time.Hour), round, [32]byte{}, true},
		{"beacon, none, a second before", at.Add(-time.Second), round, [32]byte{}, false},
		{"beacon, committed", at, round, ShareCommitment("bonus-crescendo/1", "text:12345678"), false},
		{"no beacon, none", at, "", [32]byte{}, false},
	} {
		f := &record.PromoFreeze{Time: tc.time, Draw: "bonus-crescendo/1", Beacon: tc.beacon, ShareCommitment: tc.c}
		err := CheckShareCommitted(f)
		var me *verdict.MsgError
		if tc.want != (err != nil) || (err != nil && (!errors.As(err, &me) || me.Msg.ID != verdict.MsgShareCommitmentMissing)) {
			t.Errorf("%s: %v", tc.name, err)
		}
		if verr := VerifyShareCommitment(f, "text:12345678"); tc.want && verr == nil {
			t.Errorf("%s: VerifyShareCommitment passes", tc.name)
		}
	}

	// The ceremony.
	const share = "text:huissier Maître Dupont 21/06"
	f, _ := promoCertificate(t, share, func(*record.PromoFreeze) {})
	var c Certificate
	mustUnmarshal(t, f.cert, &c)
	r, _ := record.Parse([]byte(c.Freeze.Record))
	fr := r.(*record.PromoFreeze)
	fr.Time, fr.ShareCommitment = at, [32]byte{}
	dr, _ := record.Parse([]byte(c.DrawRecord.Record))
	d := dr.(*record.PromoDraw)
	tree, _ := f.list.Tree()
	p := &countingProver{softProver: f.prover}
	cer := &Ceremony{Freeze: fr, Tree: tree, R: d.Secret, Share: share, Prover: p, KeyID: fr.Key, Now: at.Add(time.Hour)}
	if err := cer.Check(); err == nil || !strings.Contains(err.Error(), "holds no commitment to the bailiff's share, though it was logged at 2026-12-04T00:00:00Z") {
		t.Errorf("the ceremony of a freeze of today without a share commitment: %v", err)
	}
	if _, err := cer.Run(); err == nil || p.n != 0 {
		t.Errorf("drawn: %v, %d proofs", err, p.n)
	}

	// The certificate of a draw of it, made by an appliance that drew it.
	d.Prev = record.LeafHash(mustFormat(t, fr))
	d.Time = at.Add(time.Hour)
	var err error
	f.prove(t, d)
	_, err = Verify(f.forge(t, fr, d), f.list, Anchors{Reserves: -1})
	var ce *CheckError
	if !errors.As(err, &ce) || ce.Check != CheckShareCommitment || !strings.Contains(err.Error(), "holds no commitment to the bailiff's share") {
		t.Fatalf("the certificate: got %v, want %s", err, CheckShareCommitment)
	}
}
