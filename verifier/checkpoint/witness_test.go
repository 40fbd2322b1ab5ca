package checkpoint_test

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"strings"
	"testing"
	"time"

	fnote "github.com/transparency-dev/formats/note"
	"golang.org/x/mod/sumdb/note"

	"tirage.fr/tirage/verifier/checkpoint"
	"tirage.fr/tirage/verifier/receipt/receipttest"
	"tirage.fr/tirage/verifier/verdict"
)

// cosigned is a real checkpoint of a test appliance, its log keys, and
// two witnesses' keys.
func cosigned(t *testing.T) (note []byte, keys []*checkpoint.Key, bailiff, auditor *receipttest.Witness) {
	t.Helper()
	a, err := receipttest.New(45)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.PlayGame(receipttest.Play{Game: "g"}); err != nil {
		t.Fatal(err)
	}
	keys, err = checkpoint.ParseKeys(string(a.LogKeyFile()))
	if err != nil {
		t.Fatal(err)
	}
	return a.Checkpoint(), keys, receipttest.NewWitness("bailiff.test", 1), receipttest.NewWitness("auditor.test", 2)
}

func parseWitness(t *testing.T, text string) *checkpoint.Witness {
	t.Helper()
	w, err := checkpoint.ParseWitness(text)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// TestCosignatures: each witness's valid cosignature is returned with its
// time; Open still opens the cosigned checkpoint under the log keys (the
// cosignature lines are signatures of other keys); a cosignature that does
// not verify is untrusted; a witness that did not cosign, another key of
// the same name, and signatures of unknown names are no cosignatures.
func TestCosignatures(t *testing.T) {
	plain, keys, b, au := cosigned(t)
	t1 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	t2 := t1.Add(90 * time.Second)
	both := au.Cosign(b.Cosign(plain, t1), t2)
	cp, err := checkpoint.Open(both, keys)
	if err != nil {
		t.Fatalf("Open of a cosigned checkpoint: %v", err)
	}
	wb, wa := parseWitness(t, b.VKey), parseWitness(t, au.VKey)
	sigs, err := checkpoint.Cosignatures(cp, []*checkpoint.Witness{wa, wb, wb})
	if err != nil || len(sigs) != 2 || sigs[0].Witness != wb || !sigs[0].Time.Equal(t1) || sigs[1].Witness != wa || !sigs[1].Time.Equal(t2) {
		t.Fatalf("Cosignatures: %v %v", sigs, err)
	}
	if got := wb.String(); got != strings.Join(strings.Split(b.VKey, "+")[:2], "+") {
		t.Errorf("String %q, want name+keyid of %q", got, b.VKey)
	}

	// Only the bailiff cosigned: the auditor is no cosignature.
	one, _ := checkpoint.Open(b.Cosign(plain, t1), keys)
	if sigs, err := checkpoint.Cosignatures(one, []*checkpoint.Witness{wa, wb}); err != nil || len(sigs) != 1 || sigs[0].Witness != wb {
		t.Errorf("one witness: %v %v", sigs, err)
	}
	// Another key named like the bailiff: its cosignature line is another
	// key's (key ID), ignored.
	other := parseWitness(t, receipttest.NewWitness("bailiff.test", 9).VKey)
	if sigs, err := checkpoint.Cosignatures(one, []*checkpoint.Witness{other}); err != nil || len(sigs) != 0 {
		t.Errorf("wrong key: %v %v", sigs, err)
	}
	if sigs, err := checkpoint.Cosignatures(cp, nil); err != nil || sigs != nil {
		t.Errorf("no witness: %v %v", sigs, err)
	}

	// A bit flipped in the bailiff's signature, or in its timestamp: the
	// line is still canonical base64 and opens under the log keys, and the
	// cosignature is refused.
	for _, at := range []int{4 + 7, 4 + 8 + 10} {
		forged := flipCosignature(t, b.Cosign(plain, t1), b.Name, at)
		cp, err := checkpoint.Open(forged, keys)
		if err != nil {
			t.Fatalf("byte %d: Open: %v", at, err)
		}
		_, err = checkpoint.Cosignatures(cp, []*checkpoint.Witness{wb})
		var me *verdict.MsgError
		if !errors.Is(err, checkpoint.ErrUntrusted) || !errors.As(err, &me) || me.Msg.ID != verdict.MsgCPBadCosignature {
			t.Errorf("byte %d flipped: %v, want an untrusted cosignature", at, err)
		}
	}
	// The bailiff's cosignature line of this checkpoint moved to another
	// checkpoint of the log (same keys, another size): refused.
	a, err := receipttest.New(45)
	if err != nil {
		t.Fatal(err)
	}
	_, line, _ := strings.Cut(string(b.Cosign(plain, t1)), string(plain))
	moved, err := checkpoint.Open(append(a.Checkpoint(), line...), keys)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := checkpoint.Cosignatures(moved, []*checkpoint.Witness{wb}); !errors.Is(err, checkpoint.ErrUntrusted) {
		t.Errorf("a cosignature of another checkpoint: %v", err)
	}
}

// flipCosignature flips one bit of byte at of name's signature (key ID ||
// timestamp || signature) and re-encodes it canonically.
func flipCosignature(t *testing.T, signed []byte, name string, at int) []byte {
	t.Helper()
	lines := strings.SplitAfter(string(signed), "\n")
	for i, l := range lines {
		if rest, ok := strings.CutPrefix(l, "— "+name+" "); ok {
			raw, err := base64.StdEncoding.DecodeString(strings.TrimSuffix(rest, "\n"))
			if err != nil {
				t.Fatal(err)
			}
			raw[at] ^= 1
			lines[i] = "— " + name + " " + base64.StdEncoding.EncodeToString(raw) + "\n"
			return []byte(strings.Join(lines, ""))
		}
	}
	t.Fatalf("no cosignature of %s", name)
	return nil
}

// TestCosignatureInterop: a cosignature made by the witness library
// (transparency-dev/formats NewSignerForCosignatureV1, as a C2SP
// tlog-witness signs) over a real checkpoint verifies, with the time it
// wrote; its verifier key is what VKeyToCosignatureV1 gives.
func TestCosignatureInterop(t *testing.T) {
	plain, keys, _, _ := cosigned(t)
	skey, vkey, err := note.GenerateKey(rand.Reader, "witness.example")
	if err != nil {
		t.Fatal(err)
	}
	signer, err := fnote.NewSignerForCosignatureV1(skey)
	if err != nil {
		t.Fatal(err)
	}
	cosigKey, err := fnote.VKeyToCosignatureV1(vkey)
	if err != nil {
		t.Fatal(err)
	}
	text, _, _ := strings.Cut(string(plain), "\n\n")
	signed, err := note.Sign(&note.Note{Text: text + "\n"}, signer)
	if err != nil {
		t.Fatal(err)
	}
	_, line, _ := strings.Cut(string(signed), "\n\n")
	cp, err := checkpoint.Open(append(plain, line...), keys)
	if err != nil {
		t.Fatal(err)
	}
	w := parseWitness(t, cosigKey)
	sigs, err := checkpoint.Cosignatures(cp, []*checkpoint.Witness{w})
	if err != nil || len(sigs) != 1 {
		t.Fatalf("library's cosignature: %v %v", sigs, err)
	}
	n, _ := note.Open(signed, note.VerifierList(signer.Verifier()))
	want, _ := fnote.CoSigV1Timestamp(n.Sigs[0])
	if !sigs[0].Time.Equal(want) || sigs[0].Time.Location() != time.UTC {
		t.Errorf("time %v, the library wrote %v", sigs[0].Time, want)
	}
	// The witness's plain Ed25519 note key is refused, saying which key to ask for.
	if _, err := checkpoint.ParseWitness(vkey); err == nil || !strings.Contains(err.Error(), "not a cosignature/v1 key (type 0x04)") {
		t.Errorf("Ed25519 note key as a witness key: %v", err)
	}
}

// TestParseWitness: what a witness key text may not be, each refused with
// its own message.
func TestParseWitness(t *testing.T) {
	w := receipttest.NewWitness("bailiff.test", 1)
	name, rest, _ := strings.Cut(w.VKey, "+")
	id, b64, _ := strings.Cut(rest, "+")
	raw, _ := base64.StdEncoding.DecodeString(b64)
	enc := func(b []byte) string { return base64.StdEncoding.EncodeToString(b) }
	typed := func(alg byte) []byte { return append([]byte{alg}, raw[1:]...) }
	for _, c := range []struct {
		text string
		want verdict.MsgID
	}{
		{"bail iff+" + id + "+" + b64, verdict.MsgWitnessKeyName},
		{"+" + id + "+" + b64, verdict.MsgWitnessKeyName},
		{name + "+" + id[:7] + "+" + b64, verdict.MsgWitnessKeyID},
		{name + "+zzzzzzzz+" + b64, verdict.MsgWitnessKeyID},
		{name + "+" + id, verdict.MsgWitnessKeyID},
		{name + "+" + id + "+" + b64 + "=", verdict.MsgWitnessKeyBase64},
		{name + "+" + id + "+", verdict.MsgWitnessKeyBase64},
		{name + "+" + id + "+" + enc(typed(0x01)), verdict.MsgWitnessKeyNoteKey},
		{name + "+" + id + "+" + enc(typed(0x05)), verdict.MsgWitnessKeyType},
		{name + "+" + id + "+" + enc(raw[:20]), verdict.MsgWitnessKeySize},
		{name + "+00000000+" + b64, verdict.MsgWitnessKeyMismatch},
		{"other.test+" + id + "+" + b64, verdict.MsgWitnessKeyMismatch},
	} {
		_, err := checkpoint.ParseWitness(c.text)
		var me *verdict.MsgError
		if !errors.As(err, &me) || me.Msg.ID != c.want {
			t.Errorf("%q: %v, want %s", c.text, err, c.want)
		}
	}
	ws, err := checkpoint.ParseWitnesses("# the bailiff\n" + w.VKey + "\n\n" + receipttest.NewWitness("auditor.test", 2).VKey + "\n")
	if err != nil || len(ws) != 2 || ws[0].Text != w.VKey || ws[0].Name != name {
		t.Errorf("ParseWitnesses: %v %v", ws, err)
	}
	if _, err := checkpoint.ParseWitnesses("# none\n"); err == nil {
		t.Error("a file without a key parsed")
	}
	if _, err := checkpoint.ParseWitnesses(w.VKey + "\nnot a key\n"); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("a bad line: %v", err)
	}
}

// TestCosignaturesOneKeyTwoNames: a cosignature/v1 signature does not
// cover the witness's name, so one witness's key given under two names
// (two key IDs) would let anyone turn its one cosignature into two:
// Cosignatures returns one cosignature per key.
func TestCosignaturesOneKeyTwoNames(t *testing.T) {
	plain, keys, b, _ := cosigned(t)
	alias := b.Alias("alias.test")
	t1 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	cp, err := checkpoint.Open(receipttest.Relabel(b.Cosign(plain, t1), b, alias), keys)
	if err != nil {
		t.Fatal(err)
	}
	wb, wa := parseWitness(t, b.VKey), parseWitness(t, alias.VKey)
	sigs, err := checkpoint.Cosignatures(cp, []*checkpoint.Witness{wb, wa})
	if err != nil || len(sigs) != 1 || sigs[0].Witness != wb {
		t.Fatalf("one key under two names: %d cosignature(s) %v %v, want the first name's only", len(sigs), sigs, err)
	}
	// As keys: refused under two names, counted once under one.
	if _, err := checkpoint.ParseWitnesses(b.VKey + "\n" + alias.VKey + "\n"); err == nil || !strings.Contains(err.Error(), "line 2: witness keys "+wb.String()+" and "+wa.String()+" are one key under two names") {
		t.Errorf("ParseWitnesses, one key under two names: %v", err)
	}
	name, rest, _ := strings.Cut(b.VKey, "+")
	id, key, _ := strings.Cut(rest, "+")
	if ws, err := checkpoint.ParseWitnesses(b.VKey + "\n" + name + "+" + strings.ToUpper(id) + "+" + key + "\n"); err != nil || len(ws) != 1 {
		t.Errorf("ParseWitnesses, one key spelt twice: %d %v", len(ws), err)
	}
}

// A witness's cosignature/v1 key given where a log's key is wanted (rngctl
// witness serve --log, rngverify --log-key) is named for what it is.
func TestParseKeyWitnessKey(t *testing.T) {
	w := receipttest.NewWitness("bailiff.test", 1)
	_, err := checkpoint.ParseKey(w.VKey)
	var me *verdict.MsgError
	if !errors.As(err, &me) || me.Msg.ID != verdict.MsgLogKeyWitness {
		t.Fatalf("ParseKey(a witness key) = %v, want %s", err, verdict.MsgLogKeyWitness)
	}
}
