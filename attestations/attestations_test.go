package attestations_test

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"math/big"
	"reflect"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
	"time"

	"tirage.fr/tirage/attestations"
	"tirage.fr/tirage/attestations/attestationstest"
	"tirage.fr/tirage/verifier/announce"
	"tirage.fr/tirage/verifier/qod"
	"tirage.fr/tirage/verifier/record"
)

func appliance(t testing.TB, seed byte, ecdsa bool) *attestationstest.Appliance {
	t.Helper()
	a, err := attestationstest.New(seed, ecdsa)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func paytable(t testing.TB) *attestations.Statement {
	t.Helper()
	s, err := attestations.NewPaytableStatement()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestRoundTrip: a paytable signed with an Ed25519 or ECDSA P-256 key opens
// under the announced key, verifies, and its payload is its canonical
// encoding.
func TestRoundTrip(t *testing.T) {
	for _, ec := range []bool{false, true} {
		a := appliance(t, 1, ec)
		s := paytable(t)
		env, err := a.Sign(s)
		if err != nil {
			t.Fatal(err)
		}
		key, err := attestations.AnnouncedKey(a.Record, a.KeyID)
		if err != nil {
			t.Fatal(err)
		}
		got, err := attestations.Open(env, key)
		if err != nil {
			t.Fatalf("ecdsa=%v: %v", ec, err)
		}
		if err := attestations.Verify(got); err != nil {
			t.Fatalf("ecdsa=%v: %v", ec, err)
		}
		if !reflect.DeepEqual(got, s) {
			t.Errorf("ecdsa=%v: opened %+v, signed %+v", ec, got, s)
		}
		e, err := attestations.ParseEnvelope(env)
		if err != nil {
			t.Fatal(err)
		}
		again, err := attestations.Format(got)
		if err != nil || !bytes.Equal(again, e.Payload) {
			t.Errorf("Format of the opened statement differs from the payload (%v)", err)
		}
		// The in-toto members, in the canonical order, with the subject's
		// digest the predicate's SHA-256.
		var w struct {
			Type          string          `json:"_type"`
			Predicate     json.RawMessage `json:"predicate"`
			PredicateType string          `json:"predicateType"`
			Subject       []struct {
				Name   string            `json:"name"`
				Digest map[string]string `json:"digest"`
			} `json:"subject"`
		}
		if err := json.Unmarshal(e.Payload, &w); err != nil {
			t.Fatal(err)
		}
		d := sha256.Sum256(w.Predicate)
		if w.Type != attestations.StatementType || w.PredicateType != attestations.PaytableType || len(w.Subject) != 1 ||
			w.Subject[0].Name != attestations.PaytableSubject || w.Subject[0].Digest["sha256"] != hex.EncodeToString(d[:]) {
			t.Errorf("statement: %s", e.Payload)
		}
		if !bytes.HasPrefix(e.Payload, []byte(`{"_type":"https://in-toto.io/Statement/v1","predicate":{"game":`)) {
			t.Errorf("payload not in canonical order: %.80s", e.Payload)
		}
	}
}

// TestSignatureRefused: a changed payload, a changed signature, another
// key, a key announced for another use: refused.
func TestSignatureRefused(t *testing.T) {
	a, other := appliance(t, 1, false), appliance(t, 2, false)
	env, err := a.Sign(paytable(t))
	if err != nil {
		t.Fatal(err)
	}
	edit := func(fn func(e *announce.Envelope)) []byte {
		var e announce.Envelope
		if err := json.Unmarshal(env, &e); err != nil {
			t.Fatal(err)
		}
		fn(&e)
		b, _ := json.Marshal(e)
		return b
	}
	logKey := a.Record.Keys[0]
	logKey.ID = a.KeyID
	for name, tc := range map[string]struct {
		env []byte
		key record.Key
	}{
		"payload": {edit(func(e *announce.Envelope) {
			e.Payload = bytes.Replace(e.Payload, []byte(`"3/506"`), []byte(`"3/505"`), 1)
		}), a.Key()},
		"signature": {edit(func(e *announce.Envelope) { e.Signatures[0].Sig[5] ^= 1 }), a.Key()},
		"other key": {env, other.Key()},
		"key use":   {env, logKey},
		"keyid":     {edit(func(e *announce.Envelope) { e.Signatures[0].KeyID = "log-1" }), a.Key()},
	} {
		if bytes.Equal(tc.env, env) && reflect.DeepEqual(tc.key, a.Key()) {
			t.Fatalf("%s: nothing changed", name)
		}
		if _, err := attestations.Open(tc.env, tc.key); !errors.Is(err, attestations.ErrBad) {
			t.Errorf("%s: Open = %v, want ErrBad", name, err)
		}
	}
	// The unchanged envelope opens (so the refusals above are the edits').
	if _, err := attestations.Open(env, a.Key()); err != nil {
		t.Fatal(err)
	}
	if _, err := attestations.AnnouncedKey(a.Record, "log-1"); err == nil {
		t.Error("AnnouncedKey took the log key as an attestation key")
	}
	if _, err := attestations.AnnouncedKey(a.Record, "nope"); err == nil {
		t.Error("AnnouncedKey found a key that is not announced")
	}
}

// TestFigureRefused: a paytable with one figure changed, properly signed,
// opens (the signature is good) and is refused by Verify, naming the
// figure; so is each figure of the predicate in turn.
func TestFigureRefused(t *testing.T) {
	a := appliance(t, 1, false)
	key := a.Key()
	edits := []struct {
		field string
		fn    func(p *attestations.Paytable)
	}{
		{"tiers[2].triple", func(p *attestations.Paytable) { p.Tiers[2].Triple = "59/456" }},
		{"tiers[0].reach", func(p *attestations.Paytable) { p.Tiers[0].Reach = "1/2" }},
		{"tiers[3].one_in.triple", func(p *attestations.Paytable) { p.Tiers[3].OneIn.Triple = "30.34" }},
		{"returns[5].return", func(p *attestations.Paytable) { p.Returns[5].Return = "2/1" }},
		{"grid.losing", func(p *attestations.Paytable) { p.Grid.Losing = 2 }},
		{"max_stake", func(p *attestations.Paytable) { p.MaxStake = 10_000 }},
		{"picks[0].losing", func(p *attestations.Paytable) { p.Picks[0].Losing = "1/11" }},
		{"stakes[0]", func(p *attestations.Paytable) { p.Stakes = p.Stakes[1:] }},
		{"game", func(p *attestations.Paytable) { p.Game = "other" }},
	}
	for _, e := range edits {
		s := paytable(t)
		e.fn(s.Predicate.(*attestations.Paytable))
		env, err := a.Sign(s)
		if err != nil {
			t.Fatal(err)
		}
		got, err := attestations.Open(env, key)
		if err != nil {
			t.Fatalf("%s: %v", e.field, err)
		}
		err = attestations.Verify(got)
		var fe *attestations.FigureError
		if !errors.As(err, &fe) || fe.Field != e.field || !errors.Is(err, attestations.ErrBad) {
			t.Errorf("%s: Verify = %v", e.field, err)
		}
	}
	// The right figures with another subject digest.
	s := paytable(t)
	s.Subject[0].SHA256[0] ^= 1
	var fe *attestations.FigureError
	if err := attestations.Verify(s); !errors.As(err, &fe) || fe.Field != "subject[0].digest.sha256" {
		t.Errorf("subject digest: %v", err)
	}
	s = paytable(t)
	s.Subject[0].Name = "qod/other"
	if err := attestations.Verify(s); err == nil {
		t.Error("subject name: verified")
	}
}

// rat parses a figure.
func rat(t *testing.T, s string) *big.Rat {
	t.Helper()
	r, ok := new(big.Rat).SetString(s)
	if !ok || r.String() != s {
		t.Fatalf("%q is not a rational p/q in lowest terms", s)
	}
	return r
}

// TestPaytableFigures recomputes the paytable's figures in another way:
// tier reach probabilities as products of the pick-by-pick chances (not
// binomials), the fair-bet identity, and the strategies' returns.
func TestPaytableFigures(t *testing.T) {
	p := attestations.NewPaytable()
	if len(p.Tiers) != qod.Tiers || p.Grid.Numbers != qod.Numbers || p.Grid.Losing != qod.Losing || !slices.Equal(p.Stakes, qod.Stakes) {
		t.Fatalf("grid: %+v", p)
	}
	one := big.NewRat(1, 1)
	good := 0
	all := big.NewRat(1, 1)
	for i, tier := range p.Tiers {
		// Reach: the product of (1 − 3/n) over the tier's picks.
		reach := big.NewRat(1, 1)
		for range tier.Needed {
			n := p.Grid.Numbers - good
			if p.Picks[good].Hidden != n || rat(t, p.Picks[good].Losing).Cmp(big.NewRat(int64(p.Grid.Losing), int64(n))) != 0 {
				t.Errorf("pick %d: %+v", good, p.Picks[good])
			}
			reach.Mul(reach, new(big.Rat).Sub(one, big.NewRat(int64(p.Grid.Losing), int64(n))))
			good++
		}
		if good != tier.Good || tier.Tier != i+1 {
			t.Errorf("tier %d: good %d, counted %d", i+1, tier.Good, good)
		}
		if rat(t, tier.Reach).Cmp(reach) != 0 {
			t.Errorf("tier %d: reach %s, picks give %s", i+1, tier.Reach, reach)
		}
		q := rat(t, tier.Triple)
		// A fair bet: P_t·(2 + q_t) = 1.
		if step := new(big.Rat).Mul(reach, new(big.Rat).Add(big.NewRat(2, 1), q)); step.Cmp(one) != 0 || rat(t, tier.Step).Cmp(step) != 0 {
			t.Errorf("tier %d: step %s, P_t(2+q_t) = %s", i+1, tier.Step, step)
		}
		if new(big.Rat).Add(rat(t, tier.Double), q).Cmp(one) != 0 {
			t.Errorf("tier %d: double + triple ≠ 1", i+1)
		}
		if new(big.Rat).Add(rat(t, tier.ReachDouble), rat(t, tier.ReachTriple)).Cmp(reach) != 0 {
			t.Errorf("tier %d: reach ×2 + reach ×3 ≠ reach", i+1)
		}
		if rat(t, tier.StepMax).Cmp(new(big.Rat).Mul(reach, big.NewRat(2, 1))) != 0 {
			t.Errorf("tier %d: step at the top stake", i+1)
		}
		// The display figures round 1/p.
		for _, d := range []struct {
			shown string
			p     *big.Rat
		}{{tier.OneIn.Reach, reach}, {tier.OneIn.Triple, rat(t, tier.ReachTriple)}, {tier.OneIn.Double, rat(t, tier.ReachDouble)}} {
			x, ok := new(big.Rat).SetString(d.shown)
			if !ok || !strings.Contains(d.shown, ".") || len(d.shown)-strings.IndexByte(d.shown, '.') != 3 {
				t.Fatalf("tier %d: 1 in %q is not a number with two decimals", i+1, d.shown)
			}
			inv := new(big.Rat).Inv(d.p)
			if diff := new(big.Rat).Sub(inv, x); diff.Abs(diff).Cmp(big.NewRat(1, 200)) > 0 {
				t.Errorf("tier %d: 1 in %s for 1/p = %s", i+1, d.shown, inv.FloatString(4))
			}
		}
		all.Mul(all, reach)
	}
	// Π P_t = C(27,18)/C(30,18).
	c := new(big.Rat).SetFrac(new(big.Int).Binomial(27, 18), new(big.Int).Binomial(30, 18))
	if all.Cmp(c) != 0 {
		t.Errorf("reach all %s, C(27,18)/C(30,18) = %s", all, c)
	}
	// Returns: one per stake and tier; 1 below the top stake, Π 2·P_t at it.
	if len(p.Returns) != len(p.Stakes)*len(p.Tiers) {
		t.Fatalf("%d returns", len(p.Returns))
	}
	for _, r := range p.Returns {
		want := big.NewRat(1, 1)
		reach := big.NewRat(1, 1)
		for _, tier := range p.Tiers[:r.StopAt] {
			reach.Mul(reach, rat(t, tier.Reach))
			if r.Stake == p.MaxStake {
				want.Mul(want, rat(t, tier.StepMax))
			}
		}
		if rat(t, r.Return).Cmp(want) != 0 || rat(t, r.Reach).Cmp(reach) != 0 {
			t.Errorf("return %+v: want return %s, reach %s", r, want, reach)
		}
	}
}

// TestCanonicalOrder: every type encoded in a statement declares its JSON
// members in lexicographic order, which canonical encoding relies on.
func TestCanonicalOrder(t *testing.T) {
	seen := map[reflect.Type]bool{}
	var walk func(ty reflect.Type)
	walk = func(ty reflect.Type) {
		for ty.Kind() == reflect.Pointer || ty.Kind() == reflect.Slice {
			ty = ty.Elem()
		}
		if ty.Kind() != reflect.Struct || seen[ty] {
			return
		}
		seen[ty] = true
		var names []string
		for f := range ty.Fields() {
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			names = append(names, name)
			walk(f.Type)
		}
		if !slices.IsSorted(names) {
			t.Errorf("%s: members %v not in order", ty, names)
		}
	}
	walk(reflect.TypeFor[attestations.Paytable]())
	walk(reflect.TypeFor[attestations.Build]())
	if len(seen) < 8 {
		t.Errorf("looked at %d types", len(seen))
	}
}

// TestStrictParsing: one spelling of each envelope and statement.
func TestStrictParsing(t *testing.T) {
	a := appliance(t, 1, false)
	s := paytable(t)
	payload, err := attestations.Format(s)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := attestations.Parse(payload); err != nil {
		t.Fatal(err)
	}
	for name, p := range map[string][]byte{
		"space":          bytes.Replace(payload, []byte(`":"`), []byte(`": "`), 1),
		"repeated":       bytes.Replace(payload, []byte(`{"_type"`), []byte(`{"_type":"x","_type"`), 1),
		"unknown":        bytes.Replace(payload, []byte(`{"_type"`), []byte(`{"extra":1,"_type"`), 1),
		"unknown deep":   bytes.Replace(payload, []byte(`"grid":{`), []byte(`"grid":{"extra":1,`), 1),
		"case":           bytes.Replace(payload, []byte(`"predicateType"`), []byte(`"PredicateType"`), 1),
		"upper hex":      []byte(strings.Replace(string(payload), hex.EncodeToString(s.Subject[0].SHA256[:]), strings.ToUpper(hex.EncodeToString(s.Subject[0].SHA256[:])), 1)),
		"order":          bytes.Replace(payload, []byte(`"losing":3,"numbers":30`), []byte(`"numbers":30,"losing":3`), 1),
		"trailing":       append(bytes.Clone(payload), '}'),
		"type":           bytes.Replace(payload, []byte(attestations.StatementType), []byte("https://in-toto.io/Statement/v0.1"), 1),
		"unknown type":   bytes.Replace(payload, []byte(attestations.PaytableType), []byte("https://tirage.fr/attestation/health/v1"), 1),
		"no subject":     []byte(strings.Replace(string(payload), string(payload[strings.Index(string(payload), `"subject":`):len(payload)-1]), `"subject":[]`, 1)),
		"escape":         bytes.Replace(payload, []byte(`"qod/paytable"`), []byte(`"qod\/paytable"`), 1),
		"non-ascii":      bytes.Replace(payload, []byte(`"qod/paytable"`), []byte(`"qod/paytablé"`), 1),
		"null":           []byte("null"),
		"empty":          nil,
		"huge":           append(bytes.Repeat([]byte(" "), attestations.MaxEnvelope), payload...),
		"null predicate": bytes.Replace(payload, payload[strings.Index(string(payload), `"predicate":`)+12:strings.Index(string(payload), `,"predicateType"`)], []byte("null"), 1),
	} {
		if bytes.Equal(p, payload) {
			t.Fatalf("%s: nothing changed", name)
		}
		_, err := attestations.Parse(p)
		if !errors.Is(err, attestations.ErrBad) {
			t.Errorf("%s: Parse = %v", name, err)
		}
		if name == "unknown type" && !errors.Is(err, attestations.ErrUnknownType) {
			t.Errorf("unknown type: %v", err)
		}
	}
	env, err := a.Sign(s)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := attestations.ParseEnvelope(env); err != nil {
		t.Fatal(err)
	}
	sig := env[bytes.Index(env, []byte(`{"keyid"`)):bytes.LastIndexByte(env, ']')]
	for name, e := range map[string][]byte{
		"repeated":     bytes.Replace(env, []byte(`{"payload"`), []byte(`{"payloadType":"x","payload"`), 1),
		"unknown":      bytes.Replace(env, []byte(`{"payload"`), []byte(`{"extra":1,"payload"`), 1),
		"trailing":     append(bytes.Clone(env), ']'),
		"payload type": bytes.Replace(env, []byte(attestations.PayloadType), []byte(announce.PayloadType), 1),
		"two sigs":     bytes.Replace(env, sig, append(append(bytes.Clone(sig), ','), sig...), 1),
		"no sig":       bytes.Replace(env, sig, nil, 1),
		"no keyid":     bytes.Replace(env, []byte(`"keyid":"`+a.KeyID+`"`), []byte(`"keyid":""`), 1),
		"not json":     []byte("hello"),
		"empty":        nil,
		"huge":         append(bytes.Repeat([]byte(" "), attestations.MaxEnvelope), env...),
		// One spelling of each envelope: each of these reads as the same
		// statement under another digest.
		"member case":    bytes.Replace(env, []byte(`"payload":`), []byte(`"PAYLOAD":`), 1),
		"keyid case":     bytes.Replace(env, []byte(`"keyid"`), []byte(`"KeyID"`), 1),
		"leading space":  append([]byte(" "), env...),
		"final new line": append(bytes.Clone(env), '\n'),
		"space inside":   bytes.Replace(env, []byte(`,"payloadType"`), []byte(`, "payloadType"`), 1),
		"broken base64":  bytes.Replace(env, []byte(`"payload":"`), []byte(`"payload":"\n`), 1),
	} {
		if bytes.Equal(e, env) {
			t.Fatalf("%s: nothing changed", name)
		}
		if _, err := attestations.ParseEnvelope(e); !errors.Is(err, attestations.ErrBad) {
			t.Errorf("envelope %s: ParseEnvelope = %v", name, err)
		} else if strings.Contains(err.Error(), "envelope: envelope") {
			t.Errorf("envelope %s: %v", name, err)
		}
	}
	// The file rngctl attest writes: the envelope and a new line, which
	// EnvelopeBytes leaves out (the record's digest is the envelope's).
	if e := attestations.EnvelopeBytes(append(bytes.Clone(env), '\n')); !bytes.Equal(e, env) {
		t.Errorf("EnvelopeBytes of the file: %q", e)
	}
	// encoding/json escapes U+2028 and U+2029, which RFC 8785 writes raw:
	// refused, as every non-ASCII character is.
	for _, c := range []string{"\u2028", "\u2029"} {
		st := paytable(t)
		st.Subject[0].Name = "qod/paytable" + c
		if _, err := attestations.Format(st); err == nil {
			t.Errorf("a statement with %U formatted", []rune(c)[0])
		}
	}
}

// TestRecord: the log record of an envelope, and what CheckRecord refuses.
func TestRecord(t *testing.T) {
	a := appliance(t, 1, false)
	s := paytable(t)
	env, err := a.Sign(s)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	r := attestations.NewRecord(now, a.KeyID, env, s)
	leaf, err := record.Format(r)
	if err != nil {
		t.Fatal(err)
	}
	back, err := record.Parse(leaf)
	if err != nil {
		t.Fatal(err)
	}
	r = back.(*record.Attestation)
	if r.Subject != attestations.PaytableSubject || r.Type != attestations.PaytableType || r.Digest != sha256.Sum256(env) || !bytes.Equal(r.Statement, env) {
		t.Fatalf("record %+v", r)
	}
	if err := attestations.CheckRecord(r, env, a.KeyID, s); err != nil {
		t.Fatal(err)
	}
	for name, fn := range map[string]func(r *record.Attestation){
		"digest":  func(r *record.Attestation) { r.Digest[0] ^= 1; r.Statement = nil },
		"subject": func(r *record.Attestation) { r.Subject = "qod/other" },
		"type":    func(r *record.Attestation) { r.Type = attestations.BuildType },
		"key":     func(r *record.Attestation) { r.Key = "log-1" },
	} {
		c := *r
		fn(&c)
		if err := attestations.CheckRecord(&c, env, a.KeyID, s); !errors.Is(err, attestations.ErrBad) {
			t.Errorf("%s: CheckRecord = %v", name, err)
		}
	}
	// A large envelope is logged by its digest alone.
	big := attestations.NewRecord(now, a.KeyID, bytes.Repeat([]byte{'x'}, attestations.MaxEmbedded+1), s)
	if big.Statement != nil {
		t.Error("a large envelope was embedded")
	}
}

// buildInfo is a build's information with a secret in -ldflags.
func buildInfo() *debug.BuildInfo {
	return &debug.BuildInfo{
		GoVersion: "go1.27.3",
		Path:      "tirage.fr/tirage/cmd/rngd",
		Main:      debug.Module{Path: "tirage.fr/tirage", Version: "v1.2.3", Sum: "h1:abc="},
		Deps: []*debug.Module{
			{Path: "golang.org/x/mod", Version: "v0.40.0", Sum: "h1:def="},
			{Path: "example.com/old", Version: "v1.0.0", Replace: &debug.Module{Path: "example.com/new", Version: "v1.0.1", Sum: "h1:ghi="}},
		},
		Settings: []debug.BuildSetting{
			{Key: "-ldflags", Value: "-X main.secret=hunter2"},
			{Key: "-trimpath", Value: "true"},
			{Key: "GOOS", Value: "linux"},
			{Key: "CGO_CFLAGS", Value: "-Isecret"},
			{Key: "vcs", Value: "git"},
			{Key: "vcs.revision", Value: "0123456789abcdef0123456789abcdef01234567"},
			{Key: "vcs.time", Value: "2026-11-30T09:00:00Z"},
			{Key: "vcs.modified", Value: "true"},
		},
	}
}

// TestBuild: the build attestation carries the build's provenance, the
// configuration's digest and the keys, and no secret.
func TestBuild(t *testing.T) {
	a := appliance(t, 1, true)
	config := []byte("pin = \"s3cr3t-pin\"\nlisten = \":8443\"\n")
	s, err := attestations.NewBuildStatement(attestations.BuildInput{
		Info: buildInfo(), Executable: sha256.Sum256([]byte("rngd")), Config: sha256.Sum256(config), Keys: a.Record.Keys,
	})
	if err != nil {
		t.Fatal(err)
	}
	env, err := a.Sign(s)
	if err != nil {
		t.Fatal(err)
	}
	got, err := attestations.Open(env, a.Key())
	if err != nil {
		t.Fatal(err)
	}
	if err := attestations.Verify(got); err != nil {
		t.Fatal(err)
	}
	b := got.Predicate.(*attestations.Build)
	if b.VCS.Revision != "0123456789abcdef0123456789abcdef01234567" || !b.VCS.Modified || b.VCS.Time == "" || b.GoVersion != "go1.27.3" ||
		b.Main.Version != "v1.2.3" || len(b.Deps) != 2 || b.Deps[1].Replace != "example.com/new v1.0.1" || len(b.Keys) != len(a.Record.Keys) {
		t.Errorf("build %+v", b)
	}
	payload, _ := attestations.Format(got)
	for _, secret := range []string{"hunter2", "ldflags", "s3cr3t", "Isecret", "listen"} {
		if bytes.Contains(payload, []byte(secret)) {
			t.Errorf("the statement carries %q", secret)
		}
	}
	if err := attestations.CheckConfig(b, config); err != nil {
		t.Error(err)
	}
	var fe *attestations.FigureError
	if err := attestations.CheckConfig(b, append(config, ' ')); !errors.As(err, &fe) || fe.Field != "config_sha256" {
		t.Errorf("another config: %v", err)
	}
	if err := attestations.CheckKeys(b, a.Record); err != nil {
		t.Error(err)
	}
	if err := attestations.CheckKeys(b, appliance(t, 2, false).Record); err == nil {
		t.Error("keys of another appliance accepted")
	}
	// Form checks.
	for name, fn := range map[string]func(b *attestations.Build){
		"config": func(b *attestations.Build) { b.ConfigSHA256 = "00" },
		"keys":   func(b *attestations.Build) { b.Keys = nil },
		"twice":  func(b *attestations.Build) { b.Keys = append(b.Keys, b.Keys[0]) },
		"ldflag": func(b *attestations.Build) {
			b.Settings = append(b.Settings, attestations.Setting{Key: "-ldflags", Value: "x"})
		},
		"fp": func(b *attestations.Build) { b.Keys[0].Fingerprint = "AB" },
	} {
		c := *b
		c.Keys = slices.Clone(b.Keys)
		fn(&c)
		if err := attestations.Verify(&attestations.Statement{Subject: got.Subject, Predicate: &c}); !errors.Is(err, attestations.ErrBad) {
			t.Errorf("%s: Verify = %v", name, err)
		}
	}
	if _, err := attestations.NewBuildStatement(attestations.BuildInput{Info: buildInfo(), Keys: a.Record.Keys}); err == nil {
		t.Error("no executable digest: accepted")
	}
}

// TestSignMessage: a signer that signs m itself (hsm.Signer) makes the
// envelope Sign makes; one whose key is not the one shown is refused.
func TestSignMessage(t *testing.T) {
	a, other := appliance(t, 1, false), appliance(t, 2, false)
	s := paytable(t)
	want, err := a.Sign(s)
	if err != nil {
		t.Fatal(err)
	}
	sign := func(k *attestationstest.Appliance) func(m []byte) ([]byte, error) {
		return func(m []byte) ([]byte, error) { return ed25519.Sign(k.Signer.(ed25519.PrivateKey), m), nil }
	}
	got, err := attestations.SignMessage(a.Signer.Public(), a.KeyID, s, sign(a))
	if err != nil || !bytes.Equal(got, want) {
		t.Errorf("SignMessage: %v\n%s\n%s", err, got, want)
	}
	if _, err := attestations.SignMessage(a.Signer.Public(), a.KeyID, s, sign(other)); err == nil {
		t.Error("a signature by another key was accepted")
	}
}

// CheckKeys matches a build's key by use and id: one id may name keys of
// two uses (an attestation key and a log key both labelled alike on two
// tokens), and the verdict must not depend on their order.
func TestCheckKeysByUse(t *testing.T) {
	logKey := record.Key{ID: "k", Use: announce.UseLog, PublicKey: []byte("log key")}
	attKey := record.Key{ID: "k", Use: announce.UseAttestation, PublicKey: []byte("attestation key")}
	for _, keys := range [][]record.Key{{logKey, attKey}, {attKey, logKey}} {
		for i := range keys {
			keys[i].Fingerprint = record.Fingerprint(keys[i].PublicKey)
		}
		ann := &record.KeyAnnouncement{Keys: keys}
		for _, k := range keys {
			b := &attestations.Build{Keys: []attestations.BuildKey{{ID: k.ID, Use: k.Use, Fingerprint: record.Hex(k.Fingerprint)}}}
			if err := attestations.CheckKeys(b, ann); err != nil {
				t.Errorf("%s key %q, announced first as %s: %v", k.Use, k.ID, keys[0].Use, err)
			}
		}
		b := &attestations.Build{Keys: []attestations.BuildKey{{ID: "k", Use: announce.UseVRF, Fingerprint: record.Hex(keys[0].Fingerprint)}}}
		if err := attestations.CheckKeys(b, ann); err == nil {
			t.Error("a use no key of the id has: accepted")
		}
	}
}
