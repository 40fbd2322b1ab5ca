package receipt_test

import (
	"encoding/json"
	"errors"
	"runtime"
	"strings"
	"testing"

	"tirage.fr/tirage/verifier/checkpoint"
	"tirage.fr/tirage/verifier/receipt"
	"tirage.fr/tirage/verifier/receipt/receipttest"
	"tirage.fr/tirage/verifier/verdict"
)

func appliance(t *testing.T, seed byte) *receipttest.Appliance {
	t.Helper()
	a, err := receipttest.New(seed)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func play(t *testing.T, a *receipttest.Appliance, p receipttest.Play) *receipttest.Game {
	t.Helper()
	g, err := a.PlayGame(p)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// pinned trusts the appliance's Ed25519 log key by fingerprint only.
func pinned(t *testing.T, a *receipttest.Appliance) receipt.Anchors {
	t.Helper()
	k, err := checkpoint.ParseKey(a.LogKeys[0])
	if err != nil {
		t.Fatal(err)
	}
	return receipt.Anchors{Pins: []string{k.Fingerprint()}, Location: a.Location}
}

func keyed(t *testing.T, a *receipttest.Appliance) receipt.Anchors {
	t.Helper()
	keys, err := checkpoint.ParseKeys(string(a.LogKeyFile()))
	if err != nil {
		t.Fatal(err)
	}
	return receipt.Anchors{LogKeys: keys, Pins: []string{a.VRFPin()}, Location: a.Location}
}

func expect(t *testing.T, v *verdict.Verdict, status verdict.Status, check string) {
	t.Helper()
	if v.Status() != status {
		t.Fatalf("verdict %s, want %s:\n%s", v.Status(), status, v.Text("en"))
	}
	if check == "" {
		return
	}
	if c := v.First(); c == nil || c.Name != check {
		t.Fatalf("first failing check %+v, want %s:\n%s", c, check, v.Text("en"))
	}
	err := v.Err()
	if status == verdict.StatusMisbehaviour && !errors.Is(err, verdict.ErrMisbehaviour) {
		t.Fatalf("Err() = %v, want ErrMisbehaviour", err)
	}
	if status == verdict.StatusFail && (errors.Is(err, verdict.ErrMisbehaviour) || !errors.Is(err, verdict.ErrFailed)) {
		t.Fatalf("Err() = %v, want ErrFailed only", err)
	}
}

// base64Error is how a protojson receipt whose bytes field "record" is not
// base64 reads. Since Go 1.27 (go.mod's toolchain) encoding/json wraps
// base64's error in an UnmarshalTypeError that names the field; go1.26
// returned it bare.
var base64Error = func() struct{ en, fr string } {
	if strings.HasPrefix(runtime.Version(), "go1.26") {
		return struct{ en, fr string }{"not a receipt (protobuf JSON): illegal base64 data at input byte 1",
			"ce n'est pas un reçu (JSON protobuf) : données base64 invalides à l'octet 1"}
	}
	return struct{ en, fr string }{"not a receipt (protobuf JSON): json: cannot unmarshal string into Go struct field protoReceipt.record of type []uint8: illegal base64 data at input byte 1",
		"ce n'est pas un reçu (JSON protobuf) : champ « record » : données base64 invalides à l'octet 1"}
}()

func TestTranscriptHonest(t *testing.T) {
	a := appliance(t, 1)
	for i, p := range []receipttest.Play{
		{Game: "g-stop", StopAt: 1},
		{Game: "g-all"},
		{Game: "g-max", Stake: 5_000_000, StopAt: 2},
	} {
		g := play(t, a, p)
		for _, anchors := range []receipt.Anchors{pinned(t, a), keyed(t, a)} {
			v := receipt.VerifyTranscript(a.Transcript(g, receipttest.TranscriptOptions{}), anchors)
			expect(t, v, verdict.StatusPass, "")
			for _, c := range []string{verdict.CheckChain, verdict.CheckCommitment, verdict.CheckVRFProof, verdict.CheckOutcome, verdict.CheckRules, verdict.CheckInclusion} {
				if got := v.Find(c); got == nil || got.Status != verdict.StatusPass {
					t.Errorf("game %d: check %s: %+v", i, c, got)
				}
			}
		}
	}
}

func TestTranscriptUnfinished(t *testing.T) {
	a := appliance(t, 2)
	g := play(t, a, receipttest.Play{Game: "g-open", Unfinished: 3})
	v := receipt.VerifyTranscript(a.Transcript(g, receipttest.TranscriptOptions{}), pinned(t, a))
	// Its proofs wait for r: not yet verifiable, not a pass.
	expect(t, v, verdict.StatusFail, verdict.CheckVRFProof)
	if !hasCheck(v, verdict.CheckVRFProof, verdict.StatusFail, verdict.MsgTranscriptNotYet) {
		t.Errorf("proofs of an unfinished game:\n%s", v.Text("en"))
	}
	for _, c := range []string{verdict.CheckChain, verdict.CheckOutcome, verdict.CheckRules} {
		status(t, v, c, verdict.StatusPass)
	}
}

// TestCheatingAppliance: each lie is caught and reported as misbehaviour,
// with the right check named.
func TestCheatingAppliance(t *testing.T) {
	for _, tc := range []struct {
		name  string
		play  receipttest.Play
		opts  receipttest.TranscriptOptions
		check string
	}{
		{"forged proof", receipttest.Play{Cheat: receipttest.Cheat{ForgeProof: 2}}, receipttest.TranscriptOptions{}, verdict.CheckVRFProof},
		{"swapped outcome", receipttest.Play{Cheat: receipttest.Cheat{SwapOutcome: 2}}, receipttest.TranscriptOptions{}, verdict.CheckOutcome},
		{"wrong r", receipttest.Play{Cheat: receipttest.Cheat{WrongSecret: true}}, receipttest.TranscriptOptions{}, verdict.CheckCommitment},
		{"broken chain", receipttest.Play{Cheat: receipttest.Cheat{BadPrev: 3}}, receipttest.TranscriptOptions{}, verdict.CheckChain},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := appliance(t, 3)
			tc.play.Game = "g-cheat"
			g := play(t, a, tc.play)
			v := receipt.VerifyTranscript(a.Transcript(g, tc.opts), pinned(t, a))
			expect(t, v, verdict.StatusMisbehaviour, tc.check)
		})
	}
}

func TestTranscriptUntrusted(t *testing.T) {
	a := appliance(t, 4)
	g := play(t, a, receipttest.Play{Game: "g"})
	file := a.Transcript(g, receipttest.TranscriptOptions{})
	// No anchor at all: the log key check fails, nothing is trusted.
	v := receipt.VerifyTranscript(file, receipt.Anchors{Location: a.Location})
	expect(t, v, verdict.StatusFail, verdict.CheckLogKey)
	// Another appliance's key: the signature check fails.
	v = receipt.VerifyTranscript(file, keyed(t, appliance(t, 5)))
	expect(t, v, verdict.StatusFail, verdict.CheckSignature)
	// Log key trusted but no key announcement and no VRF pin: the VRF key is untrusted.
	v = receipt.VerifyTranscript(a.Transcript(g, receipttest.TranscriptOptions{NoKeys: true}), pinned(t, a))
	expect(t, v, verdict.StatusFail, verdict.CheckVRFKey)
}

func TestReceipt(t *testing.T) {
	a := appliance(t, 6)
	g := play(t, a, receipttest.Play{Game: "g-r", StopAt: 1})
	for k := range g.Indices {
		v := receipt.VerifyReceipt(a.Receipt(g, k, true), keyed(t, a))
		expect(t, v, verdict.StatusPass, "")
	}
	// Without α, the proof cannot be checked yet: not verifiable, not a
	// pass (TestReceiptWithoutAlpha).
	v := receipt.VerifyReceipt(a.Receipt(g, 1, false), keyed(t, a))
	expect(t, v, verdict.StatusFail, verdict.CheckVRFProof)
	// A VRF key that is not pinned.
	expect(t, receipt.VerifyReceipt(a.Receipt(g, 1, true), pinned(t, a)), verdict.StatusFail, verdict.CheckVRFKey)

	// Cheats. A forged proof is proof once the key announcement given
	// pairs the record's key id with the receipt's key (the receipt's
	// vrf_key alone does not: TestRelabelledKeyNoProof).
	c := appliance(t, 6)
	bad := play(t, c, receipttest.Play{Game: "g-bad", Cheat: receipttest.Cheat{ForgeProof: 1}})
	expect(t, receipt.VerifyReceipt(c.Receipt(bad, 1, true), announcements(t, c, keyed(t, c))), verdict.StatusMisbehaviour, verdict.CheckVRFProof)
	bad = play(t, c, receipttest.Play{Game: "g-bad2", Cheat: receipttest.Cheat{SwapOutcome: 1}})
	expect(t, receipt.VerifyReceipt(c.Receipt(bad, 1, true), keyed(t, c)), verdict.StatusMisbehaviour, verdict.CheckOutcome)

	// A receipt whose α belongs to another pick.
	var rc receipt.Receipt
	json.Unmarshal(a.Receipt(g, 1, true), &rc)
	var other receipt.Receipt
	json.Unmarshal(a.Receipt(g, 2, true), &other)
	rc.Alpha = other.Alpha
	// Anyone can paste it: the proof does not verify over it, so it proves nothing.
	expect(t, receipt.VerifyReceipt(receipt.Marshal(&rc), keyed(t, a)), verdict.StatusFail, verdict.CheckAlpha)
}

func TestReceiptFork(t *testing.T) {
	a := appliance(t, 7)
	play(t, a, receipttest.Play{Game: "g-1"})
	n := a.Size()
	b := a.Fork(n)
	g := play(t, a, receipttest.Play{Game: "g-2"})
	play(t, b, receipttest.Play{Game: "g-2-other", Numbers: []int{30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1}})
	for b.Size() < a.Size() {
		play(t, b, receipttest.Play{Game: "pad", Unfinished: 1})
	}
	b = b.Fork(a.Size())
	anchors := keyed(t, a)
	last, err := checkpoint.Open(b.Checkpoint(), anchors.LogKeys)
	if err != nil {
		t.Fatal(err)
	}
	anchors.Last = []*checkpoint.Checkpoint{last}
	v := receipt.VerifyReceipt(a.Receipt(g, 0, true), anchors)
	expect(t, v, verdict.StatusMisbehaviour, verdict.CheckConsistent)
}

// TestDocumentErrorsInFrench: a receipt or transcript that is not JSON of
// its kind fails the format check with encoding/json's own English text,
// unchanged, and a French reason that quotes no English.
func TestDocumentErrorsInFrench(t *testing.T) {
	for _, c := range []struct {
		name, file string
		verify     func([]byte, receipt.Anchors) *verdict.Verdict
		en, fr     string
	}{
		{"syntax", "hello", receipt.VerifyReceipt, "not a receipt: invalid character 'h' looking for beginning of value",
			"ce n'est pas un reçu : ce n'est pas du JSON valide (erreur de syntaxe à l'octet 1)"},
		{"type", `{"v":"x"}`, receipt.VerifyReceipt, "not a receipt: json: cannot unmarshal string into Go struct field Receipt.v of type int",
			"ce n'est pas un reçu : champ « v » : une valeur JSON de type « chaîne » n'est pas du type attendu"},
		{"root type", `[1]`, receipt.VerifyReceipt, "not a receipt: json: cannot unmarshal array into Go value of type receipt.Receipt",
			"ce n'est pas un reçu : le document : une valeur JSON de type « tableau » n'est pas du type attendu"},
		{"unknown field", `{"zz":1}`, receipt.VerifyReceipt, `not a receipt: json: unknown field "zz"`, "ce n'est pas un reçu : champ JSON « zz » inconnu"},
		{"cut", `{"v":`, receipt.VerifyReceipt, "not a receipt: unexpected EOF", "ce n'est pas un reçu : le JSON s'arrête avant la fin du document"},
		{"protojson base64", `{"record":"x!","leafHash":"AA=="}`, receipt.VerifyReceipt, base64Error.en, base64Error.fr},
		{"protojson type", `{"record":"AA==","leafHash":5}`, receipt.VerifyReceipt,
			"not a receipt (protobuf JSON): json: cannot unmarshal number into Go struct field protoReceipt.leafHash of type []uint8",
			"ce n'est pas un reçu (JSON protobuf) : champ « leafHash » : une valeur JSON de type « nombre » n'est pas du type attendu"},
		{"transcript type", `{"v":1,"type":"tirage/transcript","records":5}`, receipt.VerifyTranscript,
			"not a transcript: json: cannot unmarshal number into Go struct field Transcript.records of type []receipt.Logged",
			"ce n'est pas une transcription de partie : champ « records » : une valeur JSON de type « nombre » n'est pas du type attendu"},
		{"transcript unknown field", `{"v":1,"zz":1}`, receipt.VerifyTranscript, `not a transcript: json: unknown field "zz"`,
			"ce n'est pas une transcription de partie : champ JSON « zz » inconnu"},
	} {
		c0 := c.verify([]byte(c.file), receipt.Anchors{}).Find(verdict.CheckFormat)
		if c0 == nil || c0.Status != verdict.StatusFail {
			t.Errorf("%s: format check %+v", c.name, c0)
			continue
		}
		if c0.Detail != c.en || c0.Reason("en") != c.en {
			t.Errorf("%s: English %q, want %q", c.name, c0.Detail, c.en)
		}
		if fr := c0.Reason("fr"); fr != c.fr {
			t.Errorf("%s: French %q, want %q", c.name, fr, c.fr)
		}
	}
}
