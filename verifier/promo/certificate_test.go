package promo

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"os"
	"strings"
	"testing"
	"time"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"

	"tirage.fr/tirage/verifier/beacon"
	"tirage.fr/tirage/verifier/draw/drawtest"
	"tirage.fr/tirage/verifier/record"
	"tirage.fr/tirage/verifier/verdict"
	"tirage.fr/tirage/verifier/vrf"
)

// detReader is a deterministic byte source for key generation in tests.
type detReader struct{ ctr uint64 }

func (d *detReader) Read(p []byte) (int, error) {
	for i := 0; i < len(p); i += 32 {
		var c [8]byte
		binary.BigEndian.PutUint64(c[:], d.ctr)
		d.ctr++
		h := sha256.Sum256(append([]byte("promo-test"), c[:]...))
		copy(p[i:], h[:])
	}
	return len(p), nil
}

type softProver struct{ sk *vrf.PrivateKey }

func (p softProver) PublicKey() *vrf.PublicKey                          { return p.sk.Public() }
func (p softProver) Prove(alpha []byte) (proof, beta []byte, err error) { return p.sk.ProveHash(alpha) }

func testProver(t testing.TB) softProver {
	sk, err := vrf.GenerateKey(vrf.SuiteP256SSWU, &detReader{})
	if err != nil {
		t.Fatal(err)
	}
	return softProver{sk}
}

// memLog is an in-memory RFC 6962 log with Ed25519-signed checkpoints, for tests.
type memLog struct {
	tree   EntrantTree
	leaves [][]byte
	signer note.Signer
	vkey   string
}

func newMemLog(t testing.TB) *memLog {
	skey, vkey, err := note.GenerateKey(&detReader{ctr: 1 << 32}, "tirage.test/log")
	if err != nil {
		t.Fatal(err)
	}
	s, err := note.NewSigner(skey)
	if err != nil {
		t.Fatal(err)
	}
	return &memLog{signer: s, vkey: vkey}
}

func (l *memLog) append(t testing.TB, leaf []byte) uint64 {
	if err := l.tree.add(tlog.RecordHash(leaf)); err != nil {
		t.Fatal(err)
	}
	l.leaves = append(l.leaves, leaf)
	return uint64(len(l.leaves) - 1)
}

func (l *memLog) checkpoint(t testing.TB) []byte {
	root := l.tree.Root()
	text := fmt.Sprintf("tirage.test/log\n%d\n%s\n", l.tree.Size(), base64.StdEncoding.EncodeToString(root[:]))
	msg, err := note.Sign(&note.Note{Text: text}, l.signer)
	if err != nil {
		t.Fatal(err)
	}
	return msg
}

type fixture struct {
	list     *EntrantList
	cert     []byte
	rules    []byte
	vkey     string
	prover   softProver
	reserves int
}

func accounts(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("acct-%06d", i)
	}
	return out
}

// runFlow freezes accounts, runs a ceremony with share and certifies the draw.
func runFlow(t testing.TB, accts []string, share string, reserves int) *fixture {
	return runFlowBeacon(t, accts, share, reserves, "", nil)
}

// runFlowBeacon is runFlow with an announced beacon round and its value.
// The freeze record is built directly, so that older free-text beacons can
// be tested too.
func runFlowBeacon(t testing.TB, accts []string, share string, reserves int, announced string, value []byte) *fixture {
	now := time.Date(2016, 6, 20, 18, 0, 0, 0, time.UTC)
	return runFlowAt(t, accts, share, reserves, announced, value, now, now.Add(40*time.Hour))
}

// runFlowAt is runFlowBeacon with the freeze at frozen and the ceremony at drawn.
// The rules (the example's) announce for draw 1 the round the freeze
// announces, when it is one (rulesAnnouncing).
func runFlowAt(t testing.TB, accts []string, share string, reserves int, announced string, value []byte, frozen, drawn time.Time) *fixture {
	_, rules := loadExample(t)
	if _, err := beacon.ParseRef(announced); err == nil {
		rules = rulesAnnouncing(t, rules, announced)
	}
	return runFlowRules(t, rules, accts, share, reserves, announced, value, frozen, drawn)
}

// runFlowRules is runFlowAt with a freeze committing to these rules,
// whatever beacon they announce.
func runFlowRules(t testing.TB, rules []byte, accts []string, share string, reserves int, announced string, value []byte, frozen, drawn time.Time) *fixture {
	return runFlowEdit(t, rules, accts, share, reserves, value, frozen, drawn, func(fr *record.PromoFreeze) {
		fr.Beacon = announced
		if announced != "" { // the bailiff's share committed, as NewFreeze requires
			fr.ShareCommitment = ShareCommitment(fr.Draw, share)
		}
	})
}

// runFlowEdit is runFlowRules with edit altering the freeze record before
// it is logged, as a dishonest appliance could; the ceremony is run without
// the rules file (Ceremony.RulesFile), so that it draws what the freeze says.
func runFlowEdit(t testing.TB, rules []byte, accts []string, share string, reserves int, value []byte, frozen, drawn time.Time, edit func(*record.PromoFreeze)) *fixture {
	var key, r [32]byte
	(&detReader{ctr: 7}).Read(key[:])
	(&detReader{ctr: 9}).Read(r[:])
	list := &EntrantList{Draw: "bonus-crescendo/1", Key: key, Accounts: Canonicalize(append([]string{}, accts...))}
	tree, err := list.Tree()
	if err != nil {
		t.Fatal(err)
	}
	now := frozen
	p := testProver(t)
	lg := newMemLog(t)
	keys := mustFormat(t, &record.KeyAnnouncement{Time: now, Keys: []record.Key{{
		ID: "vrf-test", Use: "vrf", Suite: string(p.PublicKey().Suite()), PublicKey: p.PublicKey().Bytes(),
		Fingerprint: record.Fingerprint(p.PublicKey().Bytes()),
	}}})
	ki := lg.append(t, keys)
	fr, err := NewFreeze(FreezeInput{Operation: "bonus-crescendo", RulesHash: RulesHash(rules), Draw: list.Draw, Tree: tree, Reserves: reserves, KeyID: "vrf-test", R: r, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	edit(fr)
	freeze := mustFormat(t, fr)
	fi := lg.append(t, freeze)
	lg.append(t, []byte("another draw's record"))
	c := &Ceremony{Freeze: fr, Tree: tree, R: r, Share: share, BeaconValue: value, KeyID: "vrf-test", Prover: p, Now: drawn}
	d, err := c.Run()
	if err != nil {
		t.Fatal(err)
	}
	drawLeaf := mustFormat(t, d)
	di := lg.append(t, drawLeaf)
	cert, err := NewCertificate(CertificateInput{
		Title: "Tirage au sort n° 1", RulesHash: RulesHash(rules), Days: []string{"2016-06-16"}, Withheld: 1,
		Keys: lg.logged(t, ki), Freeze: lg.logged(t, fi), Draw: lg.logged(t, di),
		Checkpoint: lg.checkpoint(t), LogKeys: []string{lg.vkey}, Tree: tree, VRFKey: p.PublicKey(),
	})
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{list: list, cert: CertificateJSON(cert), rules: rules, vkey: lg.vkey, prover: p, reserves: reserves}
}

// rulesAnnouncing is the example rules file with draw 1 announcing the
// drand round ref ("drand:<chain hash>:<round>"), as rngctl promo check
// reads it and rngd freezes it.
func rulesAnnouncing(t testing.TB, rules []byte, ref string) []byte {
	t.Helper()
	r, err := beacon.ParseRef(ref)
	if err != nil {
		t.Fatal(err)
	}
	spec := fmt.Sprintf("    reserves: 3\n    beacon: {chain: %x, round: %d}\n", r.Chain, r.Round)
	out := bytes.Replace(rules, []byte("    reserves: 3\n"), []byte(spec), 1)
	parsed, err := ParseRules(out)
	if err != nil || parsed.Draws[0].Beacon == nil {
		t.Fatalf("rules announcing %s: %v", ref, err)
	}
	return out
}

func mustFormat(t testing.TB, r record.Record) []byte {
	t.Helper()
	b, err := record.Format(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// logged returns leaf i with its inclusion proof in the current tree.
func (l *memLog) logged(t testing.TB, i uint64) *LoggedRecord {
	p, err := tlog.ProveRecord(l.tree.Size(), int64(i), &l.tree)
	if err != nil {
		t.Fatal(err)
	}
	return &LoggedRecord{Index: i, Record: string(l.leaves[i]), Proof: ProofHex(p)}
}

func TestCertificateVerifies(t *testing.T) {
	f := runFlow(t, accounts(1000), "text:huissier Maître Dupont 21/06", 3)
	anchors := Anchors{LogKeys: []string{f.vkey}, VRFPublicKey: hex.EncodeToString(f.prover.PublicKey().Bytes()), Rules: f.rules, Reserves: 3}
	pub, err := Verify(f.cert, nil, anchors)
	if err != nil {
		t.Fatalf("public path: %v", err)
	}
	if len(pub.Picks) != 4 || pub.Accounts != nil || pub.Count != 1000 {
		t.Fatalf("public path: %d picks, accounts %v, count %d", len(pub.Picks), pub.Accounts, pub.Count)
	}
	bail, err := Verify(f.cert, f.list, anchors)
	if err != nil {
		t.Fatalf("bailiff path: %v", err)
	}
	seen := map[string]bool{}
	for i, a := range bail.Accounts {
		if a != f.list.Accounts[bail.Picks[i].Index] || seen[a] {
			t.Fatalf("pick %d: account %s", i, a)
		}
		seen[a] = true
	}
	// The certificate holds no account id.
	for _, a := range f.list.Accounts {
		if bytes.Contains(f.cert, []byte(a)) {
			t.Fatalf("certificate leaks account %s", a)
		}
	}
	// The list file round-trips.
	l2, err := ParseEntrantList(f.list.Format())
	if err != nil || !bytes.Equal(l2.Format(), f.list.Format()) {
		t.Fatalf("entrant list round trip: %v", err)
	}
	// Fewer entrants than picks: everyone is ranked, once.
	small := runFlow(t, accounts(2), "dice:1234561234561234561234561", 3)
	v, err := Verify(small.cert, small.list, Anchors{Reserves: 3})
	if err != nil || len(v.Picks) != 2 {
		t.Fatalf("2 entrants: %v, %d picks", err, len(v.Picks))
	}
}

// Tampering with the list, the share, a record or the certificate fails the named check.
func TestTamperedCertificateFails(t *testing.T) {
	f := runFlow(t, accounts(50), "text:huissier Maître Dupont 21/06", 2)
	anchors := Anchors{Reserves: 2}
	var c Certificate
	mustUnmarshal(t, f.cert, &c)

	edit := func(fn func(c *Certificate)) []byte {
		var c2 Certificate
		mustUnmarshal(t, f.cert, &c2)
		fn(&c2)
		return CertificateJSON(&c2)
	}
	// Re-sign-free edits of the draw record keep valid JSON but break inclusion.
	drawEdit := func(fn func(d *record.PromoDraw)) []byte {
		return edit(func(c *Certificate) {
			r, err := record.Parse([]byte(c.DrawRecord.Record))
			if err != nil {
				t.Fatal(err)
			}
			d := r.(*record.PromoDraw)
			fn(d)
			c.DrawRecord.Record = string(mustFormat(t, d))
		})
	}
	otherList := *f.list
	otherList.Accounts = append(append([]string{}, f.list.Accounts[:10]...), f.list.Accounts[11:]...)
	swapped := *f.list
	swapped.Accounts = append([]string{}, f.list.Accounts...)
	swapped.Accounts[3] = "acct-000003x"
	otherKey := *f.list
	otherKey.Key[0] ^= 1
	otherVRF, _ := vrf.GenerateKey(vrf.SuiteP256SSWU, &detReader{ctr: 99})

	cases := []struct {
		name  string
		cert  []byte
		list  *EntrantList
		anch  Anchors
		check string
	}{
		{"garbage", []byte("{"), nil, anchors, CheckFormat},
		{"entrant removed", f.cert, &otherList, anchors, CheckEntrantRoot},
		{"entrant replaced", f.cert, &swapped, anchors, CheckEntrantRoot},
		{"wrong freeze key", f.cert, &otherKey, anchors, CheckEntrantRoot},
		{"unsorted list", f.cert, &EntrantList{Draw: f.list.Draw, Key: f.list.Key, Accounts: []string{"b", "a"}}, anchors, CheckEntrantList},
		{"list of another draw", f.cert, &EntrantList{Draw: "bonus-crescendo/2", Key: f.list.Key, Accounts: f.list.Accounts}, anchors, CheckEntrantList},
		{"share changed", drawEdit(func(d *record.PromoDraw) { d.Share = []byte("text:huissier Maître Durand 21/06") }), nil, anchors, CheckDrawInclusion},
		{"winner changed", drawEdit(func(d *record.PromoDraw) { d.Ranking[0], d.Ranking[1] = d.Ranking[1], d.Ranking[0] }), nil, anchors, CheckDrawInclusion},
		{"freeze count changed", edit(func(c *Certificate) {
			c.Freeze.Record = strings.Replace(c.Freeze.Record, `"count":50`, `"count":49`, 1)
		}), nil, anchors, CheckFreezeInclusion},
		{"key announcement dropped", edit(func(c *Certificate) { c.Keys = nil }), nil, Anchors{VRFPublicKey: hex.EncodeToString(f.prover.PublicKey().Bytes()), Reserves: 2}, ""},
		{"key announcement altered", edit(func(c *Certificate) { c.Keys.Index++ }), nil, anchors, CheckKeys},
		{"certificate's VRF key replaced", edit(func(c *Certificate) { c.VRFPublicKey = hex.EncodeToString(otherVRF.Public().Bytes()) }), nil, anchors, CheckKeys},
		{"freeze record not canonical", edit(func(c *Certificate) { c.Freeze.Record = " " + c.Freeze.Record }), nil, anchors, CheckFreezeRecord},
		{"checkpoint altered", edit(func(c *Certificate) {
			if !strings.Contains(c.Checkpoint, "\n4\n") {
				t.Fatal("checkpoint fixture")
			}
			c.Checkpoint = strings.Replace(c.Checkpoint, "\n4\n", "\n5\n", 1)
		}), nil, anchors, CheckCheckpoint},
		{"unknown log key", f.cert, nil, Anchors{LogKeys: []string{mustVKey(t)}, Reserves: 2}, CheckCheckpoint},
		{"other VRF key pinned", f.cert, nil, Anchors{VRFPublicKey: hex.EncodeToString(otherVRF.Public().Bytes()), Reserves: 2}, CheckKeys},
		{"pick reordered", edit(func(c *Certificate) { c.Picks[0], c.Picks[1] = c.Picks[1], c.Picks[0] }), nil, anchors, CheckPicks},
		{"pick proof altered", edit(func(c *Certificate) { c.Picks[1].Proof[0] = strings.Repeat("0", 64) }), nil, anchors, CheckPickInclusion},
		{"pseudonym altered", edit(func(c *Certificate) { c.Picks[0].Pseudonym = "0000-0000-0000-0000" }), nil, anchors, CheckPicks},
		{"fewer reserves than the rules", f.cert, nil, Anchors{Reserves: 3}, CheckPicks},
		// The rules file the freeze binds (examples/bonus-crescendo.yaml)
		// gives draw 1 reserves: 3; this draw was frozen and ranked with 2.
		// Given the rules, the verifier takes their count: no --reserves
		// is needed to see that the reserves listed are not the rules'.
		{"fewer reserves than the rules file", f.cert, nil, Anchors{Rules: f.rules, Reserves: -1}, CheckPicks},
		{"other rules file", f.cert, nil, Anchors{Rules: []byte("version: 1\n"), Reserves: 2}, CheckRules},
		{"records swapped", edit(func(c *Certificate) { c.Freeze, c.DrawRecord = c.DrawRecord, c.Freeze }), nil, anchors, CheckFreezeRecord},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Verify(tc.cert, tc.list, tc.anch)
			if tc.check == "" {
				if err != nil {
					t.Fatalf("want success, got %v", err)
				}
				return
			}
			var ce *CheckError
			if !errors.As(err, &ce) {
				t.Fatalf("got %v, want a failed %s check", err, tc.check)
			}
			if ce.Check != tc.check {
				t.Fatalf("failed check %q (%v), want %q", ce.Check, ce.Err, tc.check)
			}
		})
	}
}

// TestPickReasons: a certificate whose picks are swapped, or whose pick is
// labelled with another rank, fails the ranked-picks check with a reason
// that names what β gives and what the certificate claims — two different
// numbers — in English and in French. (The swapped-picks reason once
// printed the recorded ranking, equal to β's, where the certificate's pick
// belongs: "β picks entrant 394, the records say 394".)
func TestPickReasons(t *testing.T) {
	f := runFlow(t, accounts(50), "text:huissier Maître Dupont 21/06", 2)
	var c Certificate
	mustUnmarshal(t, f.cert, &c)
	if len(c.Picks) < 2 || c.Picks[0].Index == c.Picks[1].Index {
		t.Fatalf("fixture: picks %+v", c.Picks)
	}
	first, second := c.Picks[0].Index, c.Picks[1].Index
	edit := func(fn func(c *Certificate)) []byte {
		var c2 Certificate
		mustUnmarshal(t, f.cert, &c2)
		fn(&c2)
		return CertificateJSON(&c2)
	}
	for _, tc := range []struct {
		name   string
		cert   []byte
		en, fr string
	}{
		{"picks swapped", edit(func(c *Certificate) { c.Picks[0], c.Picks[1] = c.Picks[1], c.Picks[0] }),
			fmt.Sprintf("rank 1: β picks entrant %d, the certificate names entrant %d", first, second),
			fmt.Sprintf("rang 1 : β désigne le participant %d, le certificat nomme le participant %d", first, second)},
		{"entrants swapped, ranks kept", edit(func(c *Certificate) {
			c.Picks[0], c.Picks[1] = c.Picks[1], c.Picks[0]
			c.Picks[0].Rank, c.Picks[1].Rank = 1, 2
		}),
			fmt.Sprintf("rank 1: β picks entrant %d, the certificate names entrant %d", first, second),
			fmt.Sprintf("rang 1 : β désigne le participant %d, le certificat nomme le participant %d", first, second)},
		{"rank relabelled", edit(func(c *Certificate) { c.Picks[0].Rank = 3 }),
			"rank 1: the certificate's pick says rank 3",
			"rang 1 : la désignation du certificat indique le rang 3"},
	} {
		_, err := Verify(tc.cert, f.list, Anchors{Reserves: 2})
		var ce *CheckError
		if !errors.As(err, &ce) || ce.Check != CheckPicks {
			t.Errorf("%s: got %v, want a failed %s check", tc.name, err, CheckPicks)
			continue
		}
		if en := ce.Msg.Text("en"); en != tc.en || ce.Err.Error() != tc.en {
			t.Errorf("%s: English %q (error %q), want %q", tc.name, en, ce.Err, tc.en)
		}
		if fr := ce.Msg.Text("fr"); fr != tc.fr {
			t.Errorf("%s: French %q, want %q", tc.name, fr, tc.fr)
		}
	}
}

// Art. 3.1 « les quatre gagnants des tirages au sort », art. 3.3.1 « Le
// gagnant tiré au sort du Tirage au sort n° 1 gagne … »: each draw has
// exactly one winner (WinnersPerDraw). A freeze ranking two, logged and
// drawn by a dishonest appliance, fails the bailiff's check with the rules
// file (ranked-picks), and the ceremony given the rules file — as rngd
// runs it — refuses to draw it, or a freeze ranking other reserves than
// the rules give (Rules.CheckFreezeRanking, one check for both).
func TestOneWinnerPerDraw(t *testing.T) {
	_, rules := loadExample(t)
	frozen := time.Date(2016, 6, 20, 18, 0, 0, 0, time.UTC)
	drawn := time.Date(2016, 6, 21, 8, 0, 0, 0, time.UTC) // 10:00 Paris, the scheduled day
	share := "text:huissier Maître Dupont 21/06"
	f := runFlowEdit(t, rules, accounts(1000), share, 3, nil, frozen, drawn, func(fr *record.PromoFreeze) { fr.Winners = 2 })
	_, err := Verify(f.cert, f.list, Anchors{LogKeys: []string{f.vkey}, Rules: f.rules, Reserves: 3})
	var ce *CheckError
	if !errors.As(err, &ce) || ce.Check != CheckPicks || !strings.Contains(err.Error(), "the freeze ranks 2 winners") {
		t.Fatalf("a certificate ranking 2 winners for « Tirage au sort n° 1 », with the rules file: %v; want a failed %s check", err, CheckPicks)
	}
	// Without the rules nothing says how many winners the draw has: the
	// records agree with each other and the public checks pass.
	if _, err := Verify(f.cert, f.list, Anchors{LogKeys: []string{f.vkey}, Reserves: -1}); err != nil {
		t.Fatalf("without the rules file: %v", err)
	}

	// The ceremony, with the rules file as rngd gives it.
	list := &EntrantList{Draw: "bonus-crescendo/1", Accounts: accounts(10)}
	tree, err := list.Tree()
	if err != nil {
		t.Fatal(err)
	}
	var r [32]byte
	(&detReader{ctr: 9}).Read(r[:])
	p := testProver(t)
	for _, tc := range []struct {
		name     string
		winners  uint64
		reserves uint64
		want     string // "" for a draw
	}{
		{"as the rules give", 1, 3, ""},
		{"two winners", 2, 3, "the freeze ranks 2 winners"},
		{"two winners, as many picks", 2, 2, "the freeze ranks 2 winners"},
		{"no reserve", 1, 0, "the freeze ranks 0 reserves, the rules ask for 3"},
	} {
		fr, err := NewFreeze(FreezeInput{Operation: "bonus-crescendo", RulesHash: RulesHash(rules), Draw: list.Draw, Tree: tree, Reserves: 3, KeyID: "vrf-test", R: r, Now: frozen})
		if err != nil {
			t.Fatal(err)
		}
		fr.Winners, fr.Reserves = tc.winners, tc.reserves
		c := &Ceremony{Freeze: fr, Tree: tree, R: r, Share: share, KeyID: "vrf-test", Prover: p, Now: drawn, RulesFile: rules}
		d, err := c.Run()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: ceremony gave %v, %v; want refused: %s", tc.name, d, err, tc.want)
		}
	}
}

// With the rules file, the reserves are the rules' (draws[j].reserves): a
// count given too must be theirs, or the inputs contradict each other —
// ErrReservesNotRules, no verdict on the certificate, even when the count
// given is the freeze's.
func TestVerifyReservesGivenWithRules(t *testing.T) {
	f := runFlow(t, accounts(50), "text:huissier Maître Dupont 21/06", 3)
	for _, n := range []int{-1, 3} {
		if _, err := Verify(f.cert, f.list, Anchors{Rules: f.rules, Reserves: n}); err != nil {
			t.Errorf("reserves %d with the rules: %v", n, err)
		}
	}
	two := runFlow(t, accounts(50), "text:huissier Maître Dupont 21/06", 2)
	for _, c := range []*fixture{f, two} {
		_, err := Verify(c.cert, c.list, Anchors{Rules: c.rules, Reserves: 2})
		var ce *CheckError
		if !errors.Is(err, ErrReservesNotRules) || errors.As(err, &ce) {
			t.Errorf("freeze with %d reserves, 2 given, the rules giving 3: %v, want %v", c.reserves, err, ErrReservesNotRules)
		}
	}
	// Fewer entrants than the rules' picks: everyone is ranked, once.
	small := runFlow(t, accounts(2), "dice:1234561234561234561234561", 3)
	if v, err := Verify(small.cert, small.list, Anchors{Rules: small.rules, Reserves: -1}); err != nil || len(v.Picks) != 2 {
		t.Fatalf("2 entrants: %v", err)
	}
}

// TestVerifyRulesOfAnotherOperation: a rules file that is not the frozen
// one is either another operation's — the caller's inputs do not belong
// together (ErrRulesOtherOperation, naming both operations; no verdict on
// the certificate) — or the freeze's operation's with another hash, which
// fails rules-hash saying both readings: the operator froze other rules,
// or this copy is not the frozen one. Before, both failed rules-hash
// alike, giving only the two hashes.
func TestVerifyRulesOfAnotherOperation(t *testing.T) {
	f := runFlow(t, accounts(50), "text:huissier Maître Dupont 21/06", 3)
	other := bytes.Replace(f.rules, []byte("\noperation: bonus-crescendo\n"), []byte("\noperation: bonus-ete\n"), 1)
	if r, err := ParseRules(other); err != nil || r.Operation != "bonus-ete" {
		t.Fatalf("rules of another operation: %v", err)
	}
	for _, reserves := range []int{-1, 2} {
		_, err := Verify(f.cert, f.list, Anchors{Rules: other, Reserves: reserves})
		var ce *CheckError
		var me *verdict.MsgError
		if !errors.Is(err, ErrRulesOtherOperation) || errors.As(err, &ce) || !errors.As(err, &me) {
			t.Fatalf("rules of operation bonus-ete, reserves %d: %v, want %v", reserves, err, ErrRulesOtherOperation)
		}
		if en, fr := me.Msg.Text("en"), me.Msg.Text("fr"); en != "the rules file given is for operation bonus-ete, this certificate for operation bonus-crescendo: they are not its rules, so it was not checked against them" ||
			fr != "le règlement fourni est celui de l'opération bonus-ete, ce certificat celui de l'opération bonus-crescendo : ce n'est pas son règlement, il n'a donc pas été vérifié contre lui" {
			t.Errorf("rules of another operation:\n%s\n%s", en, fr)
		}
	}
	copied := append(bytes.Clone(f.rules), "# the bailiff's copy\n"...)
	_, err := Verify(f.cert, f.list, Anchors{Rules: copied, Reserves: -1})
	var ce *CheckError
	if !errors.As(err, &ce) || ce.Check != CheckRules || ce.Msg.ID != verdict.MsgPromoRulesNotFrozen || errors.Is(err, ErrRulesOtherOperation) {
		t.Fatalf("another copy of the operation's rules: %v", err)
	}
	h, frozen := RulesHash(copied), RulesHash(f.rules)
	want := fmt.Sprintf("rules-hash: the rules file given is for operation bonus-crescendo but hashes to %x, and the freeze record commits to rules %x: either the operator froze other rules than this file, or this copy is not the one it froze", h, frozen)
	if ce.Error() != want || !strings.Contains(ce.Msg.Text("fr"), "soit l'exploitant a gelé un autre règlement que ce fichier, soit cette copie n'est pas celle qu'il a gelée") {
		t.Errorf("another copy of the operation's rules:\n%s\nwant %s\n%s", ce, want, ce.Msg.Text("fr"))
	}
}

// A forged draw: the operator logs, properly, a draw record claiming
// another winner; β still decides, so the ranking check fails.
func TestForgedDrawRecordFails(t *testing.T) {
	f := runFlow(t, accounts(50), "dice:6543216543216543216543216", 0)
	var c Certificate
	mustUnmarshal(t, f.cert, &c)
	fr, _ := record.Parse([]byte(c.Freeze.Record))
	dr, _ := record.Parse([]byte(c.DrawRecord.Record))
	d := dr.(*record.PromoDraw)
	beta := d.Ranking[0]
	d.Ranking[0] = (d.Ranking[0] + 1) % 50
	_, err := Verify(f.forge(t, fr, d), f.list, Anchors{Reserves: 0})
	var ce *CheckError
	if !errors.As(err, &ce) || ce.Check != CheckPicks {
		t.Fatalf("got %v, want %s", err, CheckPicks)
	}
	if want := fmt.Sprintf("rank 1: β picks entrant %d, the records say %d", beta, d.Ranking[0]); ce.Err.Error() != want {
		t.Errorf("reason %q, want %q", ce.Err, want)
	}
}

// prove proves d again as an appliance holding the key would, after a
// change of its α: π, β, and the ranking β picks.
func (f *fixture) prove(t *testing.T, d *record.PromoDraw) {
	t.Helper()
	var err error
	if d.Proof, _, err = f.prover.Prove(d.Alpha()); err != nil {
		t.Fatal(err)
	}
	d.Beta, _ = vrf.Verify(f.prover.PublicKey(), d.Alpha(), d.Proof)
	idx, _ := Picks(d.Beta, d.Winners+d.Reserves, d.Count)
	for i, x := range idx {
		d.Ranking[i] = uint64(x)
	}
}

// forge logs fr and d properly in a new log and certifies them, as a
// dishonest appliance would.
func (f *fixture) forge(t *testing.T, fr record.Record, d *record.PromoDraw) []byte {
	t.Helper()
	tree, _ := f.list.Tree()
	lg := newMemLog(t)
	fi := lg.append(t, mustFormat(t, fr))
	di := lg.append(t, mustFormat(t, d))
	forged, err := NewCertificate(CertificateInput{Freeze: lg.logged(t, fi), Draw: lg.logged(t, di),
		Checkpoint: lg.checkpoint(t), LogKeys: []string{lg.vkey}, Tree: tree, VRFKey: f.prover.PublicKey(), RulesHash: RulesHash(f.rules)})
	if err != nil {
		t.Fatal(err)
	}
	return CertificateJSON(forged)
}

func mustUnmarshal(t *testing.T, b []byte, c *Certificate) {
	t.Helper()
	if err := jsonStrict(b, c); err != nil {
		t.Fatal(err)
	}
}

func jsonStrict(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

func mustVKey(t *testing.T) string {
	_, vkey, err := note.GenerateKey(&detReader{ctr: 1 << 40}, "tirage.test/log")
	if err != nil {
		t.Fatal(err)
	}
	return vkey
}

// The winner is uniform over the entrants and the ranked picks are uniform
// over ordered tuples. Picks maps β to ranks; β values are SHA-256 outputs
// (the VRF's β is a SHA-256 output too). Expected counts are exact:
// each ordered triple of distinct entrants out of 5 has probability
// (5-3)!/5! = 1/60. Each cell is tested exactly (drawtest.Cells: a
// binomial test per cell, union bound) at a false-failure rate of 1e-6
// for the whole test (fixed seed: the test is deterministic, the rate says
// how unlucky the seed would have to be).
func TestPicksUniform(t *testing.T) {
	const n, k, trials = 5, 3, 60 * 200
	counts := map[[3]int]int{}
	for i := range trials {
		beta := sha256.Sum256(binary.BigEndian.AppendUint64([]byte("picks-uniform"), uint64(i)))
		idx, err := Picks(beta[:], k, n)
		if err != nil {
			t.Fatal(err)
		}
		counts[[3]int{idx[0], idx[1], idx[2]}]++
	}
	if len(counts) != 60 {
		t.Fatalf("%d distinct ordered triples, want 60", len(counts))
	}
	checkUniform(t, counts, 60)
}

// The same through the real ceremony (VRF and all): the winner among 10
// entrants over 1000 ceremonies with distinct shares; each has probability
// exactly 1/10. Exact per-cell tests, false-failure rate 1e-6 (fixed key
// and shares).
func TestWinnerUniformThroughCeremony(t *testing.T) {
	trials := 1000
	if testing.Short() {
		trials = 300
	}
	list := &EntrantList{Draw: "bonus-crescendo/1", Accounts: accounts(10)}
	tree, _ := list.Tree()
	var r [32]byte
	fr, err := NewFreeze(FreezeInput{Operation: "bonus-crescendo", RulesHash: RulesHash([]byte("rules")), Draw: list.Draw, Tree: tree, KeyID: "vrf-test", R: r, Now: time.Unix(0, 0)})
	if err != nil {
		t.Fatal(err)
	}
	p := testProver(t)
	counts := map[[3]int]int{}
	for i := range trials {
		c := &Ceremony{Freeze: fr, Tree: tree, R: r, Share: fmt.Sprintf("text:share number %d", i), KeyID: "vrf-test", Prover: p, Now: time.Unix(1, 0)}
		d, err := c.Run()
		if err != nil {
			t.Fatal(err)
		}
		counts[[3]int{int(d.Ranking[0])}]++
	}
	if len(counts) != 10 {
		t.Fatalf("%d winners drawn, want each of the 10", len(counts))
	}
	checkUniform(t, counts, 10)
}

// checkUniform tests that counts, over cells equally likely outcomes, fit
// the uniform law: each cell exactly (drawtest.Cells), the whole test
// failing correct code with probability at most 1e-6.
func checkUniform(t *testing.T, counts map[[3]int]int, cells int) {
	t.Helper()
	obs := make([]int, 0, cells)
	probs := make([]*big.Rat, 0, cells)
	for _, c := range counts {
		obs = append(obs, c)
		probs = append(probs, big.NewRat(1, int64(cells)))
	}
	if len(obs) != cells {
		t.Fatalf("%d of %d outcomes drawn", len(obs), cells)
	}
	if i, ok := drawtest.Cells(obs, probs, 1e-6); !ok {
		t.Fatalf("a cell drawn %d times, expected %g: off the uniform law (false-failure rate 1e-6)", obs[i], float64(sum(obs))/float64(cells))
	}
}

func sum(v []int) (s int) {
	for _, x := range v {
		s += x
	}
	return s
}

func FuzzParseEntrantList(f *testing.F) {
	f.Add((&EntrantList{Draw: "op/1", Accounts: accounts(3)}).Format())
	f.Add([]byte(listMagic + "\ndraw op/1\nkey " + strings.Repeat("0", 64) + "\ncount 0\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		l, err := ParseEntrantList(b)
		if err != nil {
			if !errors.Is(err, ErrEntrantList) {
				t.Fatalf("error not wrapping ErrEntrantList: %v", err)
			}
			return
		}
		if !bytes.Equal(l.Format(), b) {
			t.Fatal("round trip changed the bytes")
		}
	})
}

func FuzzVerify(f *testing.F) {
	fx := runFlow(f, accounts(7), "text:12345678", 1)
	rd := realRound(f, "quicknet")
	bx := runFlowBeacon(f, accounts(7), "text:12345678", 1, rd.ref(), rd.value(f))
	f.Add(fx.cert)
	f.Add(bx.cert)
	// Slightly broken: trailing data, truncated, one more field.
	f.Add(append(bytes.Clone(fx.cert), '}'))
	f.Add(append(bytes.Clone(fx.cert), fx.cert...))
	f.Add(fx.cert[:len(fx.cert)/2])
	f.Add(bytes.Replace(fx.cert, []byte(`"v": 1,`), []byte(`"v": 1, "extra": 0,`), 1))
	f.Fuzz(func(t *testing.T, b []byte) {
		_, err := Verify(b, nil, Anchors{Reserves: -1})
		if err == nil && !json.Valid(b) {
			t.Fatal("accepted bytes that are not one JSON document")
		}
		if err == nil && !bytes.Equal(b, fx.cert) && !bytes.Equal(b, bx.cert) {
			// Only whitespace-level changes of a genuine certificate may pass.
			var c1, c2, c3 Certificate
			if jsonStrict(b, &c1) != nil || jsonStrict(fx.cert, &c2) != nil || jsonStrict(bx.cert, &c3) != nil ||
				!bytes.Equal(CertificateJSON(&c1), CertificateJSON(&c2)) && !bytes.Equal(CertificateJSON(&c1), CertificateJSON(&c3)) {
				t.Fatal("a different certificate verified")
			}
		}
		var ce *CheckError
		if err != nil && !errors.As(err, &ce) {
			t.Fatalf("error without a check name: %v", err)
		}
	})
}

// TestPicksUniformLong runs the ranked-pick uniformity test on 10 entrants,
// ordered triples (720 cells, each with probability exactly 1/720), 720,000
// β values; exact per-cell tests, false-failure rate 1e-6.
// TIRAGE_LONG_TESTS=1 runs it.
func TestPicksUniformLong(t *testing.T) {
	if os.Getenv("TIRAGE_LONG_TESTS") != "1" {
		t.Skip("long statistical test: set TIRAGE_LONG_TESTS=1")
	}
	const n, k, cells, perCell = 10, 3, 720, 1000
	counts := map[[3]int]int{}
	for i := range cells * perCell {
		beta := sha256.Sum256(binary.BigEndian.AppendUint64([]byte("picks-uniform-long"), uint64(i)))
		idx, err := Picks(beta[:], k, n)
		if err != nil {
			t.Fatal(err)
		}
		counts[[3]int{idx[0], idx[1], idx[2]}]++
	}
	checkUniform(t, counts, cells)
}

// FreezeRules reads the rules hash from the freeze's "rules" member, or from
// the promotion member of a freeze logged before it existed, and refuses a
// freeze that binds no rules file.
func TestFreezeRules(t *testing.T) {
	h := RulesHash([]byte("rules"))
	hx := hex.EncodeToString(h[:])
	cases := []struct {
		f       record.PromoFreeze
		op, sum string
	}{
		{record.PromoFreeze{Promotion: "bonus-crescendo", Rules: h}, "bonus-crescendo", hx},
		{record.PromoFreeze{Promotion: "bonus-crescendo rules-sha256:" + hx}, "bonus-crescendo", hx},
		{record.PromoFreeze{Promotion: "bonus-crescendo"}, "", ""},
		{record.PromoFreeze{Promotion: "Bonus Crescendo", Rules: h}, "", ""},
		{record.PromoFreeze{Promotion: "bonus-crescendo rules-sha256:" + hx, Rules: h}, "", ""},
	}
	for i, c := range cases {
		op, sum, err := FreezeRules(&c.f)
		if op != c.op || sum != c.sum || (err == nil) != (c.op != "") {
			t.Errorf("case %d: FreezeRules(%q) = %q, %q, %v; want %q, %q", i, c.f.Promotion, op, sum, err, c.op, c.sum)
		}
	}
}

// TestCertificateRepeatedMember: a certificate giving a member twice is
// refused (certificate-format): encoding/json keeps the last, so the file a
// bailiff reads (and whose fingerprint is printed) could show one draw or
// pick and verify as another. Before, it verified.
func TestCertificateRepeatedMember(t *testing.T) {
	f := runFlow(t, accounts(30), "text:12345678", 2)
	for _, c := range []struct {
		name string
		cert []byte
		want string
	}{
		{"draw", bytes.Replace(f.cert, []byte("{\n"), []byte("{\n  \"draw\": \"bonus-crescendo/2\",\n"), 1), `member "draw" given twice in the document`},
		{"a pick's rank", bytes.Replace(f.cert, []byte(`"rank": 1,`), []byte(`"rank": 2, "rank": 1,`), 1), `member "rank" given twice in picks[0]`},
	} {
		if bytes.Equal(c.cert, f.cert) {
			t.Fatalf("%s: fixture unchanged", c.name)
		}
		_, err := Verify(c.cert, f.list, Anchors{Reserves: 2})
		var ce *CheckError
		if !errors.As(err, &ce) || ce.Check != CheckFormat || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %s: %s", c.name, err, CheckFormat, c.want)
		}
	}
}
