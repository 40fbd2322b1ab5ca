package announce_test

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"tirage.fr/tirage/verifier/announce"
	"tirage.fr/tirage/verifier/receipt"
	"tirage.fr/tirage/verifier/record"
	"tirage.fr/tirage/verifier/vrf"
)

// zeros is a deterministic reader for throwaway keys.
type zeros struct{ b byte }

func (z zeros) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = z.b + byte(i)
	}
	return len(p), nil
}

// makeAnnouncement seals an announcement of a VRF key, an Ed25519 log key
// and an ECDSA attestation key.
func makeAnnouncement(t testing.TB) []byte {
	t.Helper()
	vk, err := vrf.GenerateKey(vrf.SuiteP256SSWU, zeros{7})
	if err != nil {
		t.Fatal(err)
	}
	lk := ed25519.NewKeyFromSeed(make([]byte, ed25519.SeedSize))
	ak, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	spki := func(pub any) []byte {
		b, err := x509.MarshalPKIXPublicKey(pub)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	keys := []record.Key{
		{ID: "vrf", Use: announce.UseVRF, Suite: string(vrf.SuiteP256SSWU), PublicKey: vk.Public().Bytes()},
		{ID: "log", Use: announce.UseLog, Suite: announce.Ed25519, PublicKey: spki(lk.Public())},
		{ID: "att", Use: announce.UseAttestation, Suite: announce.ECDSAP256SHA256, PublicKey: spki(ak.Public())},
	}
	for i := range keys {
		keys[i].Fingerprint = record.Fingerprint(keys[i].PublicKey)
	}
	ann := &record.KeyAnnouncement{Time: time.Date(2026, 11, 30, 3, 0, 0, 0, time.UTC), Keys: keys}
	leaf, err := announce.Seal(ann, func(i int, m []byte) ([]byte, error) {
		switch i {
		case 0:
			return vk.Prove(m)
		case 1:
			return ed25519.Sign(lk, m), nil
		}
		h := sha256.Sum256(m)
		return ecdsa.SignASN1(rand.Reader, ak, h[:])
	})
	if err != nil {
		t.Fatal(err)
	}
	return leaf
}

func TestPAE(t *testing.T) {
	// DSSE protocol v1.0 test vector: PAE("http://example.com/HelloWorld", "hello world").
	got := string(announce.PAE("http://example.com/HelloWorld", []byte("hello world")))
	if want := "DSSEv1 29 http://example.com/HelloWorld 11 hello world"; got != want {
		t.Fatalf("PAE = %q, want %q", got, want)
	}
}

func TestCheck(t *testing.T) {
	fixture, err := os.ReadFile("testdata/announcement.json")
	if err != nil {
		t.Fatal(err)
	}
	for name, leaf := range map[string][]byte{"made here": makeAnnouncement(t), "rngd's (testdata)": fixture} {
		ann, err := announce.Parse(leaf)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(ann.Keys) < 2 {
			t.Fatalf("%s: %d keys", name, len(ann.Keys))
		}
		if err := announce.Check(leaf); err != nil {
			t.Fatalf("%s: Check: %v", name, err)
		}
	}
}

// Each tampering fails the named check, for the named key.
func TestCheckTampered(t *testing.T) {
	leaf := makeAnnouncement(t)
	reformat := func(f func(a *record.KeyAnnouncement, env map[string]any)) []byte {
		r, err := record.Parse(leaf)
		if err != nil {
			t.Fatal(err)
		}
		a := r.(*record.KeyAnnouncement)
		var env map[string]any
		if err := json.Unmarshal(a.Attestation, &env); err != nil {
			t.Fatal(err)
		}
		f(a, env)
		a.Attestation, _ = json.Marshal(env)
		if len(env) == 0 {
			a.Attestation = nil
		}
		b, err := record.Format(a)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	sig := func(env map[string]any, i int) map[string]any { return env["signatures"].([]any)[i].(map[string]any) }
	other, _ := vrf.GenerateKey(vrf.SuiteP256SSWU, zeros{42})
	cases := []struct {
		name, check, key string
		leaf             []byte
	}{
		{"swapped VRF key", announce.CheckPayload, "", reformat(func(a *record.KeyAnnouncement, env map[string]any) {
			a.Keys[0].PublicKey = other.Public().Bytes()
			a.Keys[0].Fingerprint = record.Fingerprint(a.Keys[0].PublicKey)
		})},
		{"swapped VRF key, payload too", announce.CheckPossession, "vrf", reformat(func(a *record.KeyAnnouncement, env map[string]any) {
			a.Keys[0].PublicKey = other.Public().Bytes()
			a.Keys[0].Fingerprint = record.Fingerprint(a.Keys[0].PublicKey)
			bare := *a
			bare.Attestation = nil
			payload, _ := record.Format(&bare)
			env["payload"] = payload
		})},
		{"dropped signature", announce.CheckSignatures, "", reformat(func(a *record.KeyAnnouncement, env map[string]any) {
			env["signatures"] = env["signatures"].([]any)[:2]
		})},
		{"reordered signatures", announce.CheckKeyID, "log", reformat(func(a *record.KeyAnnouncement, env map[string]any) {
			s := env["signatures"].([]any)
			s[1], s[2] = s[2], s[1]
		})},
		{"forged VRF proof", announce.CheckPossession, "vrf", reformat(func(a *record.KeyAnnouncement, env map[string]any) {
			pi, _ := other.Prove([]byte("x"))
			sig(env, 0)["sig"] = pi
		})},
		{"log signature of something else", announce.CheckPossession, "log", reformat(func(a *record.KeyAnnouncement, env map[string]any) {
			sig(env, 1)["sig"] = ed25519.Sign(ed25519.NewKeyFromSeed(make([]byte, 32)), []byte("other"))
		})},
		{"attestation signature cut", announce.CheckPossession, "att", reformat(func(a *record.KeyAnnouncement, env map[string]any) {
			s := sig(env, 2)["sig"].(string)
			sig(env, 2)["sig"] = s[:len(s)-4]
		})},
		{"other payload type", announce.CheckPayloadType, "", reformat(func(a *record.KeyAnnouncement, env map[string]any) {
			env["payloadType"] = "application/vnd.in-toto+json"
		})},
		{"unknown field", announce.CheckEnvelope, "", reformat(func(a *record.KeyAnnouncement, env map[string]any) {
			env["extra"] = 1
		})},
		{"no attestation", announce.CheckEnvelope, "", reformat(func(a *record.KeyAnnouncement, env map[string]any) {
			for k := range env {
				delete(env, k)
			}
		})},
		{"not an announcement", announce.CheckLeaf, "", []byte(`{"kind":"nope","v":1}`)},
	}
	for _, c := range cases {
		err := announce.Check(c.leaf)
		var ae *announce.Error
		switch {
		case !errors.Is(err, announce.ErrBad) || !errors.As(err, &ae):
			t.Errorf("%s: err = %v, want an *Error wrapping ErrBad", c.name, err)
		case ae.Check != c.check || ae.Key != c.key:
			t.Errorf("%s: failed check %q key %q (%v), want %q key %q", c.name, ae.Check, ae.Key, err, c.check, c.key)
		case c.key != "" && !strings.Contains(err.Error(), `"`+c.key+`"`):
			t.Errorf("%s: error %q does not name the key", c.name, err)
		}
		// The text is what it always was, and it reads in French (but for
		// the record's own defects, package record's).
		old := fmt.Sprintf("%s: %s: %v", announce.ErrBad, ae.Check, ae.Err)
		if ae.Index >= 0 {
			old = fmt.Sprintf("%s: keys[%d] %q: %s: %v", announce.ErrBad, ae.Index, ae.Key, ae.Check, ae.Err)
		}
		m := receipt.Cause(err)
		if en := m.Text("en"); err.Error() != old || en != old {
			t.Errorf("%s: error %q, English %q, want %q", c.name, err, en, old)
		}
		if fr := m.Text("fr"); !strings.HasPrefix(fr, "annonce des clés invalide : ") || (ae.Check != announce.CheckLeaf && strings.Contains(fr, "anglais")) {
			t.Errorf("%s: French %q", c.name, fr)
		}
	}
}

func FuzzParseEnvelope(f *testing.F) {
	r, err := record.Parse(makeAnnouncement(f))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(r.(*record.KeyAnnouncement).Attestation)
	f.Add([]byte(`{"payload":"e30=","payloadType":"` + announce.PayloadType + `","signatures":[]}`))
	f.Add([]byte(`{"payload":"","payloadType":"","signatures":null} {}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		env, err := announce.ParseEnvelope(b, announce.PayloadType)
		if err != nil {
			var ae *announce.Error
			if !errors.As(err, &ae) || !errors.Is(err, announce.ErrBad) {
				t.Fatalf("error %v is not an *Error wrapping ErrBad", err)
			}
			return
		}
		if env.PayloadType != announce.PayloadType || len(env.Payload) == 0 {
			t.Fatalf("accepted %+v", env)
		}
		// Round trip: the envelope re-encoded parses to the same envelope.
		b2, err := json.Marshal(env)
		if err != nil {
			t.Fatal(err)
		}
		again, err := announce.ParseEnvelope(b2, announce.PayloadType)
		if err != nil || !reflect.DeepEqual(again, env) {
			t.Fatalf("envelope does not round-trip: %v\n%+v\n%+v", err, env, again)
		}
	})
}

func FuzzParse(f *testing.F) {
	leaf := makeAnnouncement(f)
	f.Add(leaf)
	fixture, _ := os.ReadFile("testdata/announcement.json")
	f.Add(fixture)
	f.Add([]byte(`{"keys":[],"kind":"key","time":"2026-11-30T02:00:00Z","v":1}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		ann, err := announce.Parse(b)
		if err != nil {
			if !errors.Is(err, announce.ErrBad) {
				t.Fatalf("error %v does not wrap ErrBad", err)
			}
			return
		}
		// Accepted: it is canonical and re-checks.
		again, err := record.Format(ann)
		if err != nil || string(again) != string(b) {
			t.Fatalf("accepted a non-canonical announcement")
		}
	})
}

// An ECDSA key on another curve than P-256 (here P-384, sealed with its own
// valid signature) is refused by name: the reason says which curve it is,
// in English and in French; a key that is not ECDSA at all is refused as
// it always was.
func TestECDSACurveNamed(t *testing.T) {
	p384, err := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	p521, err := ecdsa.GenerateKey(elliptic.P521(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	pub, err := x509.MarshalPKIXPublicKey(p384.Public())
	if err != nil {
		t.Fatal(err)
	}
	k := record.Key{ID: "log", Use: announce.UseLog, Suite: announce.ECDSAP256SHA256, PublicKey: pub, Fingerprint: record.Fingerprint(pub)}
	ann := &record.KeyAnnouncement{Time: time.Date(2026, 11, 30, 3, 0, 0, 0, time.UTC), Keys: []record.Key{k}}
	leaf, err := announce.Seal(ann, func(_ int, m []byte) ([]byte, error) {
		h := sha256.Sum256(m)
		return ecdsa.SignASN1(rand.Reader, p384, h[:])
	})
	if err != nil {
		t.Fatal(err)
	}
	edPub := ed25519.NewKeyFromSeed(make([]byte, ed25519.SeedSize)).Public()
	for _, c := range []struct {
		name   string
		err    error
		en, fr string
	}{
		{"announced P-384 key", announce.Check(leaf),
			`bad key announcement: keys[0] "log": possession: public key *ecdsa.PublicKey is not an ECDSA P-256 key (its curve is P-384)`,
			"annonce des clés invalide : clé n° 0 « log », preuve de possession : la clé publique de type *ecdsa.PublicKey n'est pas une clé ECDSA P-256 (sa courbe est P-384)"},
		{"P-521 key", announce.VerifySignature(&p521.PublicKey, announce.ECDSAP256SHA256, []byte("m"), nil),
			"public key *ecdsa.PublicKey is not an ECDSA P-256 key (its curve is P-521)",
			"la clé publique de type *ecdsa.PublicKey n'est pas une clé ECDSA P-256 (sa courbe est P-521)"},
		{"Ed25519 key", announce.VerifySignature(edPub, announce.ECDSAP256SHA256, []byte("m"), nil),
			"public key ed25519.PublicKey is not an ECDSA P-256 key",
			"la clé publique de type ed25519.PublicKey n'est pas une clé ECDSA P-256"},
	} {
		if c.err == nil {
			t.Errorf("%s: accepted", c.name)
			continue
		}
		m := receipt.Cause(c.err)
		if en := m.Text("en"); c.err.Error() != c.en || en != c.en {
			t.Errorf("%s: error %q, English %q, want %q", c.name, c.err, en, c.en)
		}
		if fr := m.Text("fr"); !strings.HasSuffix(fr, c.fr) {
			t.Errorf("%s: French %q, want it to end with %q", c.name, fr, c.fr)
		}
	}
}

// An ECDSA key without a curve (or a nil one) is not an ECDSA P-256 key:
// refused, not a panic.
func TestECDSANoCurve(t *testing.T) {
	for _, pub := range []*ecdsa.PublicKey{{}, nil} {
		err := announce.VerifySignature(pub, announce.ECDSAP256SHA256, []byte("m"), nil)
		if want := "public key *ecdsa.PublicKey is not an ECDSA P-256 key"; err == nil || err.Error() != want {
			t.Errorf("%#v: %v, want %q", pub, err, want)
		}
	}
}

// TestParseEnvelopeTrailing: nothing but white space may follow the
// envelope (dec.More let a stray '}' or ']' through: two attestations, one
// announcement).
func TestParseEnvelopeTrailing(t *testing.T) {
	r, err := record.Parse(makeAnnouncement(t))
	if err != nil {
		t.Fatal(err)
	}
	env := r.(*record.KeyAnnouncement).Attestation
	if _, err := announce.ParseEnvelope(append(append([]byte(nil), env...), " \n"...), announce.PayloadType); err != nil {
		t.Fatalf("white space after the envelope: %v", err)
	}
	for _, junk := range []string{"}", "]", " {}", "x"} {
		if _, err := announce.ParseEnvelope(append(append([]byte(nil), env...), junk...), announce.PayloadType); err == nil {
			t.Errorf("envelope followed by %q accepted", junk)
		}
	}
}

// TestParseEnvelopeRepeated: a member given twice is refused (encoding/json
// reads the last, another reader the first: two readings of signed bytes),
// and the payload type is the caller's.
func TestParseEnvelopeRepeated(t *testing.T) {
	r, err := record.Parse(makeAnnouncement(t))
	if err != nil {
		t.Fatal(err)
	}
	env := r.(*record.KeyAnnouncement).Attestation
	twice := bytes.Replace(env, []byte(`{"payload"`), []byte(`{"payloadType":"x","payload"`), 1)
	if bytes.Equal(twice, env) {
		t.Fatalf("envelope %s does not start with its payload", env)
	}
	if _, err := announce.ParseEnvelope(twice, announce.PayloadType); err == nil || !strings.Contains(err.Error(), "payloadType") {
		t.Errorf("repeated payloadType: %v", err)
	}
	if _, err := announce.ParseEnvelope(env, "application/other"); err == nil {
		t.Error("another payload type accepted")
	}
}

// One P-256 key announced under both ECVRF suites (two ids) gives two
// outputs for each α: the log could draw under whichever suits it. Check
// refuses the announcement (the audit refuses it across announcements,
// MsgEntryKeyTwoSuites); the same key bytes under one suite twice, or two
// keys under two suites, pass.
func TestOneKeyTwoSuites(t *testing.T) {
	sswu, err := vrf.GenerateKey(vrf.SuiteP256SSWU, zeros{7})
	if err != nil {
		t.Fatal(err)
	}
	tai, err := vrf.GenerateKey(vrf.SuiteP256TAI, zeros{7}) // the same scalar
	if err != nil {
		t.Fatal(err)
	}
	other, err := vrf.GenerateKey(vrf.SuiteP256TAI, zeros{9})
	if err != nil {
		t.Fatal(err)
	}
	if string(sswu.Public().Bytes()) != string(tai.Public().Bytes()) {
		t.Fatal("the two suites' keys differ")
	}
	lk := ed25519.NewKeyFromSeed(make([]byte, ed25519.SeedSize))
	lpub, err := x509.MarshalPKIXPublicKey(lk.Public())
	if err != nil {
		t.Fatal(err)
	}
	seal := func(second *vrf.PrivateKey, suite vrf.Suite) error {
		keys := []record.Key{
			{ID: "vrf", Use: announce.UseVRF, Suite: string(vrf.SuiteP256SSWU), PublicKey: sswu.Public().Bytes()},
			{ID: "vrf-2", Use: announce.UseVRF, Suite: string(suite), PublicKey: second.Public().Bytes()},
			{ID: "log", Use: announce.UseLog, Suite: announce.Ed25519, PublicKey: lpub},
		}
		for i := range keys {
			keys[i].Fingerprint = record.Fingerprint(keys[i].PublicKey)
		}
		ann := &record.KeyAnnouncement{Time: time.Date(2026, 11, 30, 3, 0, 0, 0, time.UTC), Keys: keys}
		leaf, err := announce.Seal(ann, func(i int, m []byte) ([]byte, error) {
			switch i {
			case 0:
				return sswu.Prove(m)
			case 1:
				return second.Prove(m)
			}
			return ed25519.Sign(lk, m), nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return announce.Check(leaf)
	}
	if err := seal(tai, vrf.SuiteP256TAI); err == nil || !strings.Contains(err.Error(), "one key, two outputs") {
		t.Errorf("one key under two suites: %v, want refused", err)
	}
	if err := seal(other, vrf.SuiteP256TAI); err != nil {
		t.Errorf("two keys under two suites: %v", err)
	}
	if err := seal(sswu, vrf.SuiteP256SSWU); err != nil {
		t.Errorf("one key under one suite, twice: %v", err)
	}
}
