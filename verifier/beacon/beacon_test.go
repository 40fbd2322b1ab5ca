package beacon_test

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	bls "github.com/cloudflare/circl/ecc/bls12381"

	"tirage.fr/tirage/verifier/beacon"
)

// vector is a real drand round (testdata/rounds.json names each source).
type vector struct {
	Chain      string `json:"chain"`
	Round      uint64 `json:"round"`
	Prev       string `json:"previous_signature"`
	Signature  string `json:"signature"`
	Randomness string `json:"randomness"`
	Source     string `json:"source"`
}

func (v vector) value(t testing.TB) []byte {
	t.Helper()
	b, err := hex.DecodeString(v.Prev + v.Signature)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func vectors(t testing.TB) []vector {
	t.Helper()
	b, err := os.ReadFile("testdata/rounds.json")
	if err != nil {
		t.Fatal(err)
	}
	var f struct{ Rounds []vector }
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	if len(f.Rounds) < 4 {
		t.Fatalf("only %d vectors", len(f.Rounds))
	}
	return f.Rounds
}

// The pinned chains hash to their published chain hashes (drand's
// Info.Hash over the published chain info).
func TestPinned(t *testing.T) {
	for _, tc := range []struct {
		c    *beacon.Chain
		hash string
	}{
		{&beacon.Quicknet, "52db9ba70e0cc0f6eaf7803dd07447a1f5477735fd3f661792ba94600c84e971"},
		{&beacon.Default, "8990e7a9aaed2ffed73dbd7092123d6f289930540d7651336225dc172e51b2ce"},
	} {
		h := tc.c.Hash()
		if got := hex.EncodeToString(h[:]); got != tc.hash {
			t.Errorf("%s: chain hash %s, published %s", tc.c.Name, got, tc.hash)
		}
		if beacon.Pinned(tc.hash) != tc.c || beacon.Pinned(tc.c.Name) != tc.c {
			t.Errorf("%s: not found by hash or name", tc.c.Name)
		}
		if !strings.Contains(tc.c.String(), tc.hash[:8]) {
			t.Errorf("%s: String %q does not show the hash", tc.c.Name, tc.c.String())
		}
		// A changed key changes the hash: the hash pins the key.
		c := *tc.c
		c.PublicKey = bytes.Clone(c.PublicKey)
		c.PublicKey[5] ^= 1
		if c.Hash() == h {
			t.Errorf("%s: the chain hash does not cover the key", tc.c.Name)
		}
	}
	if beacon.Pinned("mainnet") != &beacon.Default || beacon.Pinned("nope") != nil || beacon.Pinned(strings.Repeat("0", 64)) != nil {
		t.Error("Pinned lookup")
	}
}

// Round times: quicknet round 1 is its genesis, 3 s apart; the default
// chain 30 s apart; absurd rounds saturate instead of wrapping.
func TestRoundTime(t *testing.T) {
	if got := beacon.Quicknet.RoundTime(1); got.Unix() != 1692803367 {
		t.Errorf("quicknet round 1 at %v", got)
	}
	if got := beacon.Quicknet.RoundTime(123); got.Unix() != 1692803367+122*3 {
		t.Errorf("quicknet round 123 at %v", got)
	}
	if got := beacon.Default.RoundTime(72785); got.Unix() != 1595431050+72784*30 {
		t.Errorf("default round 72785 at %v", got)
	}
	if a, b := beacon.Quicknet.RoundTime(1<<63), beacon.Quicknet.RoundTime(1<<64-1); a.Before(beacon.Quicknet.RoundTime(1<<40)) || !a.Equal(b) {
		t.Errorf("huge rounds: %v %v", a, b)
	}
}

// PublishedAfter: every real round of testdata is unknown at any time up to
// a second before its publication, and known from its publication on (the
// rule is strict: a freeze logged in the very second of the round is too
// late); the error names the round and both times in UTC.
func TestPublishedAfter(t *testing.T) {
	paris := time.FixedZone("CET", 3600)
	for _, v := range vectors(t) {
		c := beacon.Pinned(v.Chain)
		at := c.RoundTime(v.Round)
		for _, tc := range []struct {
			freeze time.Time
			ok     bool
		}{
			{at.Add(-time.Second), true},
			{at.Add(-time.Duration(c.Period) * time.Second).In(paris), true},
			{at, false},
			{at.Add(time.Nanosecond), false},
			{at.Add(24 * time.Hour).In(paris), false},
		} {
			err := c.PublishedAfter(v.Round, tc.freeze)
			if (err == nil) != tc.ok {
				t.Errorf("%s round %d (at %v), freeze %v: %v", v.Chain, v.Round, at, tc.freeze, err)
				continue
			}
			if err == nil {
				continue
			}
			want := fmt.Sprintf("%s round %d was published at %s, not after the freeze (%s)", c, v.Round,
				at.UTC().Format(time.RFC3339), tc.freeze.UTC().Truncate(time.Second).Format(time.RFC3339))
			if err.Error() != want {
				t.Errorf("error %q, want %q", err, want)
			}
		}
	}
}

// Real rounds verify and give the published randomness.
func TestRealRounds(t *testing.T) {
	for _, v := range vectors(t) {
		c := beacon.Pinned(v.Chain)
		rnd, err := c.Verify(v.Round, v.value(t))
		if err != nil {
			t.Errorf("%s round %d (%s): %v", v.Chain, v.Round, v.Source, err)
			continue
		}
		if v.Randomness != "" && hex.EncodeToString(rnd[:]) != v.Randomness {
			t.Errorf("%s round %d: randomness %x, published %s", v.Chain, v.Round, rnd, v.Randomness)
		}
	}
}

// Tampered rounds fail: wrong round, a flipped bit anywhere, another
// chain's key, another round's signature, truncation, another encoding.
func TestTampered(t *testing.T) {
	vs := vectors(t)
	for _, v := range vs {
		c := beacon.Pinned(v.Chain)
		good := v.value(t)
		mustFail := func(what string, c *beacon.Chain, round uint64, value []byte) {
			t.Helper()
			if _, err := c.Verify(round, value); err == nil {
				t.Errorf("%s round %d: %s accepted", v.Chain, v.Round, what)
			}
		}
		mustFail("the next round", c, v.Round+1, good)
		mustFail("the previous round", c, v.Round-1, good)
		for _, bit := range []int{0, 7, 8 * len(good) / 2, 8*len(good) - 1} {
			bad := bytes.Clone(good)
			bad[bit/8] ^= 1 << (bit % 8)
			mustFail("a flipped bit", c, v.Round, bad)
		}
		mustFail("a truncated value", c, v.Round, good[:len(good)-1])
		mustFail("a value with a trailing byte", c, v.Round, append(bytes.Clone(good), 0))
		mustFail("an empty value", c, v.Round, nil)
		// Another key of the same group: the pinned key negated.
		mustFail("another key", otherKey(c), v.Round, good)
		// Another round's signature of the same chain, at this round.
		for _, o := range vs {
			if o.Chain == v.Chain && o.Round != v.Round {
				mustFail("another round's signature", c, v.Round, o.value(t))
			}
		}
		// The uncompressed encoding of the same point is refused: one value per round.
		if c.Scheme == beacon.SchemeUnchainedG1 {
			var p bls.G1
			if err := p.SetBytes(good); err != nil {
				t.Fatal(err)
			}
			mustFail("the uncompressed encoding", c, v.Round, p.Bytes())
			// The identity is no signature.
			mustFail("the identity", c, v.Round, append([]byte{0xc0}, make([]byte, 47)...))
		}
	}
}

// otherKey is c with its key negated (the sign bit of the compressed
// encoding flipped): a valid key of the same group, not the chain's.
func otherKey(c *beacon.Chain) *beacon.Chain {
	k := *c
	k.PublicKey = bytes.Clone(k.PublicKey)
	k.PublicKey[0] ^= 0x20
	return &k
}

// A round 1 of the chained scheme follows the genesis seed, nothing else.
func TestChainedRoundOne(t *testing.T) {
	for _, v := range vectors(t) {
		if v.Chain != "default" || v.Round != 1 {
			continue
		}
		sig, _ := hex.DecodeString(v.Signature)
		if _, err := beacon.Default.Verify(1, append(make([]byte, 32), sig...)); !errors.Is(err, beacon.ErrMalformed) {
			t.Errorf("round 1 with a zero seed: %v", err)
		}
		if _, err := beacon.Default.Verify(1, sig); err == nil {
			t.Error("round 1 without its seed accepted")
		}
		return
	}
	t.Fatal("no round 1 vector")
}

func TestVerifyErrors(t *testing.T) {
	v := vectors(t)[0]
	if _, err := beacon.Quicknet.Verify(0, v.value(t)); err == nil {
		t.Error("round 0 accepted")
	}
	c := beacon.Quicknet
	c.Scheme = "bls-unchained-on-g1"
	if _, err := c.Verify(v.Round, v.value(t)); err == nil || !strings.Contains(err.Error(), "not supported") {
		t.Errorf("unsupported scheme: %v", err)
	}
	c = beacon.Quicknet
	c.PublicKey = c.PublicKey[:48]
	if _, err := c.Verify(v.Round, v.value(t)); err == nil || !strings.Contains(err.Error(), "public key") {
		t.Errorf("bad key: %v", err)
	}
	if _, err := beacon.Quicknet.Verify(v.Round, bytes.Repeat([]byte{0xff}, 48)); !errors.Is(err, beacon.ErrMalformed) {
		t.Errorf("garbage: %v", err)
	}
}

func TestRef(t *testing.T) {
	h := beacon.Quicknet.Hash()
	r := beacon.Ref{Chain: h, Round: 123}
	s := r.String()
	if s != "drand:52db9ba70e0cc0f6eaf7803dd07447a1f5477735fd3f661792ba94600c84e971:123" || !beacon.IsRef(s) {
		t.Fatalf("String: %s", s)
	}
	if got, err := beacon.ParseRef(s); err != nil || got != r {
		t.Fatalf("ParseRef(%s) = %v, %v", s, got, err)
	}
	for _, bad := range []string{
		"", "drand:", "drand quicknet round 123", "drand:52db:1",
		"drand:52DB9BA70E0CC0F6EAF7803DD07447A1F5477735FD3F661792BA94600C84E971:123",
		"drand:52db9ba70e0cc0f6eaf7803dd07447a1f5477735fd3f661792ba94600c84e971:0",
		"drand:52db9ba70e0cc0f6eaf7803dd07447a1f5477735fd3f661792ba94600c84e971:0123",
		"drand:52db9ba70e0cc0f6eaf7803dd07447a1f5477735fd3f661792ba94600c84e971:+12",
		"drand:52db9ba70e0cc0f6eaf7803dd07447a1f5477735fd3f661792ba94600c84e971:123:4",
		"drand:52db9ba70e0cc0f6eaf7803dd07447a1f5477735fd3f661792ba94600c84e971:18446744073709551616",
		"drand:zzdb9ba70e0cc0f6eaf7803dd07447a1f5477735fd3f661792ba94600c84e971:1",
	} {
		if _, err := beacon.ParseRef(bad); err == nil {
			t.Errorf("ParseRef(%q) accepted", bad)
		}
	}
	if beacon.IsRef("drand quicknet round 1") {
		t.Error("a legacy free-text beacon taken for a Ref")
	}
}

// FuzzParseRef: what ParseRef accepts prints back to the same string.
func FuzzParseRef(f *testing.F) {
	f.Add("drand:52db9ba70e0cc0f6eaf7803dd07447a1f5477735fd3f661792ba94600c84e971:123")
	f.Add("drand:8990e7a9aaed2ffed73dbd7092123d6f289930540d7651336225dc172e51b2ce:18446744073709551615")
	f.Add("drand quicknet round 1234")
	f.Fuzz(func(t *testing.T, s string) {
		r, err := beacon.ParseRef(s)
		if err != nil {
			return
		}
		if r.String() != s || r.Round == 0 {
			t.Fatalf("ParseRef(%q) = %v, prints %q", s, r, r.String())
		}
	})
}

// FuzzVerify: arbitrary values never verify (nor panic) for a real round.
func FuzzVerify(f *testing.F) {
	for _, v := range vectors(f) {
		f.Add(v.Chain == "quicknet", v.Round, v.value(f))
	}
	real := map[string]bool{}
	for _, v := range vectors(f) {
		real[v.Chain+":"+hex.EncodeToString(v.value(f))] = true
	}
	f.Fuzz(func(t *testing.T, quick bool, round uint64, value []byte) {
		c := &beacon.Default
		if quick {
			c = &beacon.Quicknet
		}
		if _, err := c.Verify(round, value); err == nil && !real[c.Name+":"+hex.EncodeToString(value)] {
			t.Fatalf("%s round %d: a value not published verifies: %x", c.Name, round, value)
		}
	})
}

func BenchmarkVerify(b *testing.B) {
	for _, v := range vectors(b)[:1] {
		val := v.value(b)
		for b.Loop() {
			if _, err := beacon.Quicknet.Verify(v.Round, val); err != nil {
				b.Fatal(err)
			}
		}
	}
}
