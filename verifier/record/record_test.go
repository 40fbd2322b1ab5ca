package record_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"tirage.fr/tirage/verifier/record"
)

var update = flag.Bool("update", false, "rewrite testdata/golden and docs/alpha.md from the code")

// h32 is a recognisable 32-byte value: SHA-256 of s.
func h32(s string) [32]byte { return sha256.Sum256([]byte(s)) }

var (
	t0     = time.Date(2026, 11, 30, 9, 15, 0, 0, time.UTC)
	secret = h32("example secret r")
	pk     = append([]byte{0x02}, bytes.Repeat([]byte{0x11}, 32)...)
)

// samples holds one record of every kind, as the examples of docs/alpha.md.
func samples() []record.Record {
	ticket, _ := record.TicketHash("ABCD-EFGH-JKLM-NPQR-ST")
	return []record.Record{
		&record.KeyAnnouncement{Time: t0, Keys: []record.Key{
			{ID: "vrf-1", Use: "vrf", Suite: "ECVRF-P256-SHA256-SSWU", PublicKey: pk, Fingerprint: record.Fingerprint(pk)},
		}},
		&record.Emission{Time: t0, Emission: "QOD-2026-07", Closure: "2026-12-31", StartDeadline: time.Date(2027, 1, 29, 23, 0, 0, 0, time.UTC)},
		&record.Manifest{Time: t0, Emission: "QOD-2026-07", Root: h32("manifest root"), Count: 3000000, Total: 630000000},
		&record.GameStart{Time: t0, Game: "g-000042", Emission: "QOD-2026-07", Ticket: ticket, Stake: 2000,
			Multipliers: [4]int{2, 3, 2, 2}, Amounts: [4]int64{4000, 12000, 24000, 48000},
			Commit: record.Commit(secret), Expires: t0.AddDate(0, 0, 30),
			Key: "vrf-1", Proof: bytes.Repeat([]byte{0xaa}, 81), Beta: bytes.Repeat([]byte{0xbb}, 32),
			Server: "gs-1.example", Req: record.RequestID("gs-1.example", "req-1"), ReqDigest: h32("start request")},
		&record.TicketQuit{Time: t0, Emission: "QOD-2026-07", Ticket: ticket, Stake: 2000, Server: "gs-1.example",
			Req: record.RequestID("gs-1.example", "req-0"), ReqDigest: h32("quit request")},
		&record.Pick{Time: t0.Add(time.Minute), Game: "g-000042", Index: 0, Number: 17, Outcome: record.OutcomeGood,
			Key: "vrf-1", Proof: bytes.Repeat([]byte{0xcc}, 81), Beta: bytes.Repeat([]byte{0xdd}, 32), Prev: h32("previous leaf"),
			Req: record.RequestID("gs-1.example", "req-2"), ReqDigest: h32("pick request")},
		&record.Decision{Time: t0.Add(5 * time.Minute), Game: "g-000042", Tier: 1, Choice: record.ChoiceContinue, Prev: h32("previous leaf")},
		&record.GameEnd{Time: t0.Add(9 * time.Minute), Game: "g-000042", Result: record.ResultWon, Tier: 2, Win: 12000, Secret: secret, Prev: h32("previous leaf")},
		&record.PromoFreeze{Time: t0, Draw: "BC-2016-1", Promotion: "bonus-crescendo", Rules: h32("rules file"), Root: h32("entrants"), Count: 48213,
			Winners: 1, Reserves: 3, Commit: record.Commit(secret), Beacon: "drand quicknet round 1234567", Key: "vrf-1",
			ShareCommitment: h32("bailiff share commitment"), Inputs: h32("freeze input files")},
		&record.PromoDraw{Time: t0.Add(time.Hour), Draw: "BC-2016-1", Root: h32("entrants"), Count: 48213, Winners: 1, Reserves: 3,
			Commit: record.Commit(secret), Secret: secret, Share: []byte("bailiff share"),
			Beacon: "drand quicknet round 1234567", BeaconValue: bytes.Repeat([]byte{0xee}, 32),
			Ranking: []uint64{40211, 77, 3141, 9000}, Key: "vrf-1", Proof: bytes.Repeat([]byte{0x99}, 81),
			Beta: bytes.Repeat([]byte{0x88}, 32), Prev: h32("freeze leaf")},
		&record.Attestation{Time: t0, Subject: "qod/paytable", Type: "https://tirage.fr/attestation/paytable/v1",
			Digest: sha256.Sum256([]byte("{}")), Key: "att-1", Statement: []byte("{}")},
	}
}

// sample is the record of kind k among samples.
func sample(k record.Kind) record.Record {
	for _, r := range samples() {
		if r.Kind() == k {
			return r
		}
	}
	panic("no sample of kind " + string(k))
}

func goldenPath(k record.Kind) string { return filepath.Join("testdata", "golden", string(k)+".json") }

// TestGolden: every kind formats to its golden bytes and parses back to the
// same record.
func TestGolden(t *testing.T) {
	kinds := map[record.Kind]bool{}
	for _, r := range samples() {
		kinds[r.Kind()] = true
		leaf, err := record.Format(r)
		if err != nil {
			t.Fatalf("%s: %v", r.Kind(), err)
		}
		if *update {
			os.MkdirAll(filepath.Dir(goldenPath(r.Kind())), 0o755)
			os.WriteFile(goldenPath(r.Kind()), leaf, 0o644)
		}
		golden, err := os.ReadFile(goldenPath(r.Kind()))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(leaf, golden) {
			t.Errorf("%s:\n got %s\nwant %s", r.Kind(), leaf, golden)
		}
		back, err := record.Parse(golden)
		if err != nil {
			t.Fatalf("%s: %v", r.Kind(), err)
		}
		if !reflect.DeepEqual(back, r) {
			t.Errorf("%s: parsed %+v, want %+v", r.Kind(), back, r)
		}
	}
	if len(kinds) != 11 {
		t.Errorf("samples cover %d kinds, want all 11", len(kinds))
	}
}

// TestTicketQuitRequired: every member of a ticket_quit is required (a
// kind new in version 1, none of its records lacks one): a leaf without
// one, or with an empty or zero one, is refused naming it.
func TestTicketQuitRequired(t *testing.T) {
	golden, err := os.ReadFile(goldenPath(record.KindTicketQuit))
	if err != nil {
		t.Fatal(err)
	}
	r, err := record.Parse(golden)
	q, ok := r.(*record.TicketQuit)
	if err != nil || !ok {
		t.Fatalf("golden ticket_quit: %T %v", r, err)
	}
	g := string(golden)
	members := map[string]string{"emission": `"QOD-2026-07"`, "server": `"gs-1.example"`, "stake": "2000", "time": `"2026-11-30T09:15:00Z"`,
		"req": fmt.Sprintf(`"%x"`, q.Req), "req_digest": fmt.Sprintf(`"%x"`, q.ReqDigest), "ticket": fmt.Sprintf(`"%x"`, q.Ticket)}
	refused := func(name, leaf, says string) {
		t.Helper()
		if _, err := record.Parse([]byte(leaf)); !errors.Is(err, record.ErrMalformed) || !strings.Contains(err.Error(), says) {
			t.Errorf("%s: %v, want %v saying %q (%s)", name, err, record.ErrMalformed, says, leaf)
		}
	}
	for m, v := range members {
		member := `"` + m + `":` + v
		if !strings.Contains(g, member+",") {
			t.Fatalf("test bug: %s not in %s", member, g)
		}
		refused("without "+m, strings.Replace(g, member+",", "", 1), m+": missing")
	}
	zero := `"` + strings.Repeat("0", 64) + `"`
	for _, c := range []struct{ member, value, says string }{
		{"emission", `""`, "emission: empty"},
		{"server", `""`, "server: empty"},
		{"stake", "0", "stake: 0 cents"},
		{"stake", "-300", "stake: -300 cents"},
		{"req", zero, "req: empty"},
		{"req_digest", zero, "req_digest: empty"},
		{"ticket", `"00"`, "ticket"},
	} {
		member := `"` + c.member + `":` + members[c.member]
		refused(c.member+" "+c.value, strings.Replace(g, member, `"`+c.member+`":`+c.value, 1), c.says)
	}
}

// TestRejects: every non-canonical variant of a valid leaf is refused, with
// the right error class and a message naming the problem.
func TestRejects(t *testing.T) {
	pick, _ := os.ReadFile(goldenPath(record.KindPick))
	end, _ := os.ReadFile(goldenPath(record.KindGameEnd))
	p := string(pick)
	rep := func(s, old, new string) string {
		if !strings.Contains(s, old) {
			t.Fatalf("test bug: %q not in %s", old, s)
		}
		return strings.Replace(s, old, new, 1)
	}
	cases := []struct {
		name, leaf string
		want       error
		says       string
	}{
		{"empty", "", record.ErrMalformed, "object"},
		{"not an object", "[]", record.ErrMalformed, "object"},
		{"space after brace", "{ " + p[1:], record.ErrMalformed, "whitespace"},
		{"space after colon", rep(p, `"game":`, `"game": `), record.ErrMalformed, "whitespace"},
		{"newline at end", p + "\n", record.ErrMalformed, "trailing"},
		{"reordered keys", rep(rep(p, `"game":"g-000042",`, ""), `"kind"`, `"game":"g-000042","kind"`) + "", record.ErrMalformed, "sorted"},
		{"duplicate key", rep(p, `"index":0,`, `"index":0,"index":0,`), record.ErrMalformed, "duplicate"},
		{"float", rep(p, `"number":17`, `"number":17.0`), record.ErrMalformed, "integer"},
		{"exponent", rep(p, `"number":17`, `"number":1e1`), record.ErrMalformed, "integer"},
		{"leading zero", rep(p, `"number":17`, `"number":017`), record.ErrMalformed, "leading zero"},
		{"minus zero", rep(p, `"index":0`, `"index":-0`), record.ErrMalformed, "-0"},
		{"negative index", rep(p, `"index":0`, `"index":-1`), record.ErrMalformed, "index"},
		{"huge integer", rep(p, `"number":17`, `"number":9007199254740992`), record.ErrMalformed, "2^53"},
		{"number as string", rep(p, `"number":17`, `"number":"17"`), record.ErrMalformed, "number"},
		{"number out of grid", rep(p, `"number":17`, `"number":31`), record.ErrMalformed, "number"},
		{"null", rep(p, `"number":17`, `"number":null`), record.ErrMalformed, "null"},
		{"uppercase hex", rep(p, `"beta":"dd`, `"beta":"DD`), record.ErrMalformed, "lowercase"},
		{"odd hex", rep(p, `"beta":"dd`, `"beta":"d`), record.ErrMalformed, "beta"},
		{"short hash", rep(p, `"prev":"`, `"prev":"00`), record.ErrMalformed, "prev"},
		{"unknown outcome", rep(p, `"good"`, `"bad"`), record.ErrMalformed, "outcome"},
		{"unknown field", rep(p, `"prev"`, `"pa":1,"prev"`), record.ErrMalformed, "unknown field"},
		{"unknown field at end", rep(p, `"v":1}`, `"v":1,"x":1}`), record.ErrMalformed, "unknown field"},
		{"missing field", rep(p, `"number":17,`, ""), record.ErrMalformed, "number: missing"},
		{"unknown kind", rep(p, `"kind":"pick"`, `"kind":"pik"`), record.ErrUnknownKind, "pik"},
		{"version 2", rep(p, `"v":1`, `"v":2`), record.ErrVersion, "version 2"},
		{"no version", rep(p, `,"v":1`, ""), record.ErrMalformed, "v"},
		{"time with offset", rep(p, `T09:16:00Z`, `T10:16:00+01:00`), record.ErrMalformed, "time"},
		{"time with fraction", rep(p, `T09:16:00Z`, `T09:16:00.0Z`), record.ErrMalformed, "time"},
		{"lowercase t", rep(p, `T09:16:00Z`, `t09:16:00Z`), record.ErrMalformed, "time"},
		{"escape", rep(p, `"g-000042"`, `"g-\u0030"`), record.ErrMalformed, "escape"},
		{"non-ascii", rep(p, `"g-000042"`, "\"g-\u00e9\""), record.ErrMalformed, "ASCII"},
		{"control char", rep(p, `"g-000042"`, "\"g-\t\""), record.ErrMalformed, "ASCII"},
		{"truncated", p[:len(p)-1], record.ErrMalformed, "end"},
		{"empty optional present", rep(string(end), `"result"`, `"refund":0,"result"`), record.ErrMalformed, "omitted"},
		{"won without win", rep(string(end), `,"win":12000`, ""), record.ErrMalformed, "won"},
		{"true as number", rep(p, `"number":17`, `"number":true`), record.ErrMalformed, "integer"},
		{"req without req_digest", rep(p, `,"req_digest":"4ea1b74f9620b12bbfc9c60745b2fb911dd2f1527585abfba5d0199e0d7fd342"`, ""), record.ErrMalformed, "req and req_digest"},
		{"zero req present", rep(p, `"req":"d1e611bc87df4bcdd5038c5a15d472a66559652810ff46f61672712e56b983ae"`, `"req":"0000000000000000000000000000000000000000000000000000000000000000"`), record.ErrMalformed, "omitted"},
	}
	for _, c := range cases {
		r, err := record.Parse([]byte(c.leaf))
		if err == nil {
			t.Errorf("%s: accepted as %+v", c.name, r)
			continue
		}
		if !errors.Is(err, c.want) {
			t.Errorf("%s: error %q is not %v", c.name, err, c.want)
		}
		if !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: error %q does not say %q", c.name, err, c.says)
		}
	}
}

// TestPromoFreezeKey: a freeze names the VRF key that will draw it, as
// "key" between "draw" (or "inputs") and "kind"; a freeze logged before "key" existed
// (the golden leaf without it) still parses, to a record without a key,
// and formats back to the same bytes. An empty "key" member is not
// canonical (omitted when empty).
func TestPromoFreezeKey(t *testing.T) {
	golden, err := os.ReadFile(goldenPath(record.KindPromoFreeze))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(golden, []byte(`","key":"vrf-1","kind":"promo_freeze"`)) {
		t.Fatalf("the golden freeze does not name its key where the canonical order puts it: %s", golden)
	}
	legacy := bytes.Replace(golden, []byte(`"key":"vrf-1",`), nil, 1)
	for _, c := range []struct {
		name string
		leaf []byte
		key  string
	}{{"with key", golden, "vrf-1"}, {"legacy, no key", legacy, ""}} {
		r, err := record.Parse(c.leaf)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		f, ok := r.(*record.PromoFreeze)
		if !ok || f.Key != c.key {
			t.Fatalf("%s: parsed %+v, want key %q", c.name, r, c.key)
		}
		back, err := record.Format(f)
		if err != nil || !bytes.Equal(back, c.leaf) {
			t.Errorf("%s: formats back to %s (%v), want %s", c.name, back, err, c.leaf)
		}
	}
	empty := bytes.Replace(golden, []byte(`"key":"vrf-1"`), []byte(`"key":""`), 1)
	if _, err := record.Parse(empty); !errors.Is(err, record.ErrMalformed) {
		t.Errorf("an empty key member: %v, want %v", err, record.ErrMalformed)
	}
}

// TestPromoFreezeShareCommitment: a freeze holds the bailiff's share
// commitment as "share_commitment" between "rules" and "time"; a freeze
// logged before it existed (the golden leaf without it) still parses, to a
// record without one, and formats back to the same bytes. An all-zero
// member is not canonical (omitted when empty), nor is one of another
// length.
func TestPromoFreezeShareCommitment(t *testing.T) {
	golden, err := os.ReadFile(goldenPath(record.KindPromoFreeze))
	if err != nil {
		t.Fatal(err)
	}
	c := h32("bailiff share commitment")
	member := `"share_commitment":"` + hex.EncodeToString(c[:]) + `"`
	if !bytes.Contains(golden, []byte(`,`+member+`,"time":`)) {
		t.Fatalf("the golden freeze does not hold its share commitment where the canonical order puts it: %s", golden)
	}
	legacy := bytes.Replace(golden, []byte(member+`,`), nil, 1)
	for _, tc := range []struct {
		name string
		leaf []byte
		want [32]byte
	}{{"with commitment", golden, c}, {"legacy, none", legacy, [32]byte{}}} {
		r, err := record.Parse(tc.leaf)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		f, ok := r.(*record.PromoFreeze)
		if !ok || f.ShareCommitment != tc.want {
			t.Fatalf("%s: parsed %+v, want share commitment %x", tc.name, r, tc.want)
		}
		back, err := record.Format(f)
		if err != nil || !bytes.Equal(back, tc.leaf) {
			t.Errorf("%s: formats back to %s (%v), want %s", tc.name, back, err, tc.leaf)
		}
	}
	for name, bad := range map[string]string{
		"all zero":  `"share_commitment":"` + strings.Repeat("0", 64) + `"`,
		"too short": `"share_commitment":"` + hex.EncodeToString(c[:31]) + `"`,
		"upper hex": `"share_commitment":"` + strings.ToUpper(hex.EncodeToString(c[:])) + `"`,
	} {
		leaf := bytes.Replace(golden, []byte(member), []byte(bad), 1)
		if _, err := record.Parse(leaf); !errors.Is(err, record.ErrMalformed) {
			t.Errorf("%s: %v, want %v", name, err, record.ErrMalformed)
		}
	}
}

// TestPromoFreezeInputs: a freeze binds its input files' digest as
// "inputs" between "draw" and "key"; a freeze logged before it existed
// (the golden leaf without it) still parses, to a record binding none, and
// formats back to the same bytes. An all-zero member is not canonical
// (omitted when empty), nor is one of another length or in upper case.
func TestPromoFreezeInputs(t *testing.T) {
	golden, err := os.ReadFile(goldenPath(record.KindPromoFreeze))
	if err != nil {
		t.Fatal(err)
	}
	in := h32("freeze input files")
	member := `"inputs":"` + hex.EncodeToString(in[:]) + `"`
	if !bytes.Contains(golden, []byte(`"draw":"BC-2016-1",`+member+`,"key":`)) {
		t.Fatalf("the golden freeze does not hold its inputs where the canonical order puts them: %s", golden)
	}
	legacy := bytes.Replace(golden, []byte(member+`,`), nil, 1)
	for _, tc := range []struct {
		name string
		leaf []byte
		want [32]byte
	}{{"with inputs", golden, in}, {"legacy, none", legacy, [32]byte{}}} {
		r, err := record.Parse(tc.leaf)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		f, ok := r.(*record.PromoFreeze)
		if !ok || f.Inputs != tc.want {
			t.Fatalf("%s: parsed %+v, want inputs %x", tc.name, r, tc.want)
		}
		back, err := record.Format(f)
		if err != nil || !bytes.Equal(back, tc.leaf) {
			t.Errorf("%s: formats back to %s (%v), want %s", tc.name, back, err, tc.leaf)
		}
	}
	for name, bad := range map[string]string{
		"all zero":  `"inputs":"` + strings.Repeat("0", 64) + `"`,
		"too short": `"inputs":"` + hex.EncodeToString(in[:31]) + `"`,
		"upper hex": `"inputs":"` + strings.ToUpper(hex.EncodeToString(in[:])) + `"`,
		"empty":     `"inputs":""`,
	} {
		leaf := bytes.Replace(golden, []byte(member), []byte(bad), 1)
		if _, err := record.Parse(leaf); !errors.Is(err, record.ErrMalformed) {
			t.Errorf("%s: %v, want %v", name, err, record.ErrMalformed)
		}
	}
}

func TestFormatRefuses(t *testing.T) {
	good := func() *record.Pick {
		return &record.Pick{Time: t0, Game: "g", Number: 1, Outcome: record.OutcomeGood, Key: "k", Proof: []byte{1}, Beta: []byte{2}}
	}
	cases := []struct {
		name string
		mut  func(*record.Pick)
		says string
	}{
		{"sub-second time", func(p *record.Pick) { p.Time = t0.Add(time.Millisecond) }, "whole second"},
		{"zero time", func(p *record.Pick) { p.Time = time.Time{} }, "time"},
		{"non-ascii game", func(p *record.Pick) { p.Game = "é" }, "ASCII"},
		{"number 0", func(p *record.Pick) { p.Number = 0 }, "number"},
		{"no proof", func(p *record.Pick) { p.Proof = nil }, "together"},
		{"empty game", func(p *record.Pick) { p.Game = "" }, "game"},
	}
	for _, c := range cases {
		p := good()
		c.mut(p)
		if _, err := record.Format(p); err == nil || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: Format error %v, want one saying %q", c.name, err, c.says)
		}
	}
	if _, err := record.Format(good()); err != nil {
		t.Fatal(err)
	}
	// A non-UTC time is the same instant: it is written in UTC.
	p := good()
	p.Time = t0.In(time.FixedZone("CET", 3600))
	leaf, err := record.Format(p)
	if err != nil || !bytes.Contains(leaf, []byte(`"time":"2026-11-30T09:15:00Z"`)) {
		t.Errorf("non-UTC time: %s, %v", leaf, err)
	}
	if _, err := record.Format((*record.Pick)(nil)); err == nil {
		t.Error("Format of a nil record succeeded")
	}
	big := &record.Manifest{Time: t0, Emission: "e", Count: 1 << 53}
	if _, err := record.Format(big); err == nil || !strings.Contains(err.Error(), "count") {
		t.Errorf("count 2^53: %v", err)
	}
}

// TestLeafHash: RFC 6962 leaf hash, checked against the well-known hash of
// the empty leaf.
func TestLeafHash(t *testing.T) {
	if got := hex.EncodeToString(func() []byte { h := record.LeafHash(nil); return h[:] }()); got != "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d" {
		t.Errorf("LeafHash(empty) = %s", got)
	}
	leaf := []byte(`{"kind":"x"}`)
	want := sha256.Sum256(append([]byte{0}, leaf...))
	if record.LeafHash(leaf) != want {
		t.Error("LeafHash is not SHA-256(0x00 || leaf)")
	}
}

// field is an α field built independently of the package: u32be(len) || v.
func field(v []byte) []byte { return append(binary.BigEndian.AppendUint32(nil, uint32(len(v))), v...) }
func u64(v uint64) []byte   { return field(binary.BigEndian.AppendUint64(nil, v)) }

func TestAlpha(t *testing.T) {
	ticket := h32("ticket")
	head := func(kind string) []byte {
		return append(append([]byte("tirage/alpha/v1"), byte(len(kind)>>8), byte(len(kind))), kind...)
	}
	cat := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

	want := cat(head("qod/start"), field([]byte("g-1")), field([]byte("E-1")), field(ticket[:]), u64(2000), field(secret[:]))
	if got := record.StartAlpha("g-1", "E-1", ticket, 2000, secret); !bytes.Equal(got, want) {
		t.Errorf("StartAlpha:\n got %x\nwant %x", got, want)
	}
	want = cat(head("qod/pick"), field([]byte("g-1")), field([]byte("E-1")), field(ticket[:]), field(secret[:]), u64(3), u64(29))
	if got := record.PickAlpha("g-1", "E-1", ticket, secret, 3, 29); !bytes.Equal(got, want) {
		t.Errorf("PickAlpha:\n got %x\nwant %x", got, want)
	}
	root, commit := h32("root"), record.Commit(secret)
	want = cat(head("promo/draw"), field([]byte("d")), field(root[:]), u64(48213), field(commit[:]), field(secret[:]), field([]byte("s")), field(nil))
	if got := record.PromoDrawAlpha("d", root, 48213, commit, secret, []byte("s"), nil); !bytes.Equal(got, want) {
		t.Errorf("PromoDrawAlpha:\n got %x\nwant %x", got, want)
	}
	// Length prefixes keep fields apart: moving a byte across a boundary
	// changes α.
	if bytes.Equal(record.StartAlpha("g-1", "E-1", ticket, 2000, secret), record.StartAlpha("g-", "1E-1", ticket, 2000, secret)) {
		t.Error("α fields are not separated")
	}
	// Every pick of a game has its own α.
	seen := map[string]bool{}
	for i := range 30 {
		for n := 1; n <= 30; n++ {
			a := string(record.PickAlpha("g-1", "E-1", ticket, secret, i, n))
			if seen[a] {
				t.Fatalf("α repeats at pick %d number %d", i, n)
			}
			seen[a] = true
		}
	}
}

func TestTicketHash(t *testing.T) {
	a, err := record.TicketHash("abcd-efgh-jklm-npqr-st")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := record.TicketHash("ABCDEFGHJKLMNPQRST")
	if a != b || a != sha256.Sum256([]byte("tirage/ticket/v1ABCDEFGHJKLMNPQRST")) {
		t.Error("TicketHash does not normalise to SHA-256(\"tirage/ticket/v1\" || CODE)")
	}
	for _, bad := range []string{"", "ABCDEFGHJKLMNPQRS", "ABCDEFGHJKLMNPQRSTU", "ABCDEFGHJKLMNPQRS!", "ABCDEFGHJKLMNPQRSÉ"} {
		if _, err := record.TicketHash(bad); !errors.Is(err, record.ErrTicketCode) {
			t.Errorf("TicketHash(%q): %v", bad, err)
		}
	}
}

// TestRequestID: the request identity binds caller and id without
// ambiguity (length prefixes), and matches the value computed by hand.
func TestRequestID(t *testing.T) {
	want := sha256.Sum256([]byte("tirage/request/v1\x00\x00\x00\x02gs\x00\x00\x00\x03r-1"))
	if got := record.RequestID("gs", "r-1"); got != want {
		t.Fatalf("RequestID = %x, want %x", got, want)
	}
	if record.RequestID("gs", "r-1") == record.RequestID("gsr", "-1") {
		t.Fatal("RequestID is ambiguous between caller and id")
	}
}
