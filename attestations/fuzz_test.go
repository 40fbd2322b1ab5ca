package attestations_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"

	"tirage.fr/tirage/attestations"
	"tirage.fr/tirage/verifier/announce"
)

// FuzzParse: Parse never panics; what it accepts is the canonical encoding
// of what it returns (Format gives the bytes back), and whatever it refuses
// wraps ErrBad.
func FuzzParse(f *testing.F) {
	seeds := seedPayloads(f)
	for _, s := range seeds {
		f.Add(s)
	}
	loaded := 0
	for _, s := range seeds {
		if _, err := attestations.Parse(s); err == nil {
			loaded++
		}
	}
	if loaded < 2 {
		f.Fatalf("only %d of the seeds parse: the corpus does not reach the parser's end", loaded)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := attestations.Parse(b)
		if err != nil {
			if !errors.Is(err, attestations.ErrBad) {
				t.Fatalf("error without ErrBad: %v", err)
			}
			return
		}
		again, err := attestations.Format(s)
		if err != nil || !bytes.Equal(again, b) {
			t.Fatalf("accepted %q, formats back as %q (%v)", b, again, err)
		}
		_ = attestations.Verify(s)
	})
}

// FuzzParseEnvelope: ParseEnvelope never panics, and an envelope it accepts
// is the one spelling of its content (json.Marshal gives the bytes back),
// which it accepts again with the same content.
func FuzzParseEnvelope(f *testing.F) {
	a := appliance(f, 3, false)
	for _, p := range seedPayloads(f) {
		f.Add(a.SignPayload(p))
	}
	f.Add([]byte(`{"payload":"","payloadType":"","signatures":[]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		env, err := attestations.ParseEnvelope(b)
		if err != nil {
			if !errors.Is(err, attestations.ErrBad) {
				t.Fatalf("error without ErrBad: %v", err)
			}
			return
		}
		again, err := json.Marshal(env)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(again, b) {
			t.Fatalf("accepted %q, which encodes as %q", b, again)
		}
		env2, err := attestations.ParseEnvelope(again)
		if err != nil || !bytes.Equal(env2.Payload, env.Payload) || attestations.KeyID(env2) != attestations.KeyID(env) ||
			!bytes.Equal(env2.Signatures[0].Sig, env.Signatures[0].Sig) || env2.PayloadType != announce.PayloadType && env2.PayloadType != attestations.PayloadType {
			t.Fatalf("re-encoded %s: %v", again, err)
		}
		// Whatever it is, it does not verify under a key that did not sign it.
		_, _ = attestations.Open(b, a.Key())
	})
}

func seedPayloads(t testing.TB) [][]byte {
	t.Helper()
	pay := paytable(t)
	p, err := attestations.Format(pay)
	if err != nil {
		t.Fatal(err)
	}
	a := appliance(t, 1, false)
	bs, err := attestations.NewBuildStatement(attestations.BuildInput{Info: buildInfo(), Executable: [32]byte{1}, Keys: a.Record.Keys})
	if err != nil {
		t.Fatal(err)
	}
	b, err := attestations.Format(bs)
	if err != nil {
		t.Fatal(err)
	}
	return [][]byte{p, b, bytes.Replace(p, []byte(`"3/506"`), []byte(`"3/505"`), 1), []byte(`{"_type":"https://in-toto.io/Statement/v1"}`), []byte(`{}`), []byte(`[`)}
}
