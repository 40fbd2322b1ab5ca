package receipt_test

import (
	"encoding/hex"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"tirage.fr/tirage/verifier/checkpoint"
	"tirage.fr/tirage/verifier/promo"
	"tirage.fr/tirage/verifier/receipt"
	"tirage.fr/tirage/verifier/receipt/receipttest"
	"tirage.fr/tirage/verifier/verdict"
	"tirage.fr/tirage/verifier/vrf"
)

// bare trusts the appliance's log keys (given) and its VRF key by a bare
// fingerprint: its bytes, not its suite.
func bare(t *testing.T, a *receipttest.Appliance) receipt.Anchors {
	t.Helper()
	an := keyed(t, a)
	an.Pins = []string{a.VRFFingerprint()}
	return an
}

// bytesOnly reports whether v's vrf-key check fails because the key is
// pinned by its fingerprint only.
func bytesOnly(v *verdict.Verdict) bool {
	c := v.Find(verdict.CheckVRFKey)
	return c != nil && c.Status == verdict.StatusFail && strings.Contains(c.Reason("en"), "pinned by fingerprint only, which does not fix its suite")
}

// TestBarePinDoesNotFixSuite: one P-256 key proves under
// ECVRF-P256-SHA256-SSWU and -TAI, two outputs per α. A receipt whose key is
// trusted only by a bare fingerprint named the suite itself: vrf-key fails,
// saying to pin SUITE:fingerprint (and nothing is proven against an honest
// appliance); a suite pin passes; a pin naming the other suite trusts
// nothing.
func TestBarePinDoesNotFixSuite(t *testing.T) {
	a := appliance(t, 70)
	g := play(t, a, receipttest.Play{Game: "g-suite", StopAt: 1})
	for k, name := range []string{"start", "pick"} {
		file := a.Receipt(g, k, true)
		v := receipt.VerifyReceipt(file, bare(t, a))
		noProof(t, name+", bare pin", v)
		if !bytesOnly(v) {
			t.Errorf("%s, bare pin: vrf-key does not say the suite is not fixed:\n%s", name, v.Text("en"))
		}
		en, fr := v.Find(verdict.CheckVRFKey).Reason("en"), v.Find(verdict.CheckVRFKey).Reason("fr")
		if !strings.Contains(en, "pinned by fingerprint only, which does not fix its suite") || !strings.Contains(en, "pin SUITE:fingerprint") ||
			!strings.Contains(fr, "ne fixe pas sa suite") {
			t.Errorf("%s: reasons %q / %q", name, en, fr)
		}
		expect(t, receipt.VerifyReceipt(file, keyed(t, a)), verdict.StatusPass, "")
		// Given by file (--vrf-key): its suite is known.
		given := keyed(t, a)
		given.Pins, given.VRFKeys = nil, []*vrf.PublicKey{a.VRF.Public()}
		expect(t, receipt.VerifyReceipt(file, given), verdict.StatusPass, "")
		other := keyed(t, a)
		other.Pins = []string{string(vrf.SuiteP256TAI) + ":" + a.VRFFingerprint()}
		v = receipt.VerifyReceipt(file, other)
		noProof(t, name+", other suite pinned", v)
		if !hasCheck(v, verdict.CheckVRFKey, verdict.StatusFail, verdict.MsgVRFKeyUntrusted) {
			t.Errorf("%s, other suite pinned:\n%s", name, v.Text("en"))
		}
		// A suite pin is the user's word on the suite: a bare pin of the
		// same bytes beside it does not let the other suite through.
		other.Pins = append(other.Pins, a.VRFFingerprint())
		if v := receipt.VerifyReceipt(file, other); !hasCheck(v, verdict.CheckVRFKey, verdict.StatusFail, verdict.MsgVRFKeyUntrusted) {
			t.Errorf("%s, other suite and bare pins:\n%s", name, v.Text("en"))
		}
	}
	// The receipt's key named with the other suite, under a suite pin of
	// the right one: not trusted, nothing proven.
	var rc receipt.Receipt
	json.Unmarshal(a.ReceiptWith(g, 1, receipttest.ReceiptOptions{Alpha: true}), &rc)
	rc.VRFKey.Suite = string(vrf.SuiteP256TAI)
	v := receipt.VerifyReceipt(receipt.Marshal(&rc), keyed(t, a))
	noProof(t, "other suite named, suite pin", v)
	if !hasCheck(v, verdict.CheckVRFKey, verdict.StatusFail, verdict.MsgVRFKeyUntrusted) {
		t.Errorf("other suite named, suite pin:\n%s", v.Text("en"))
	}
	// A suite pin is a VRF key's, never a log key's.
	lk, err := checkpoint.ParseKey(a.LogKeys[0])
	if err != nil {
		t.Fatal(err)
	}
	v = receipt.VerifyReceipt(a.Receipt(g, 1, true), receipt.Anchors{Pins: []string{a.VRFPin(), string(vrf.SuiteP256SSWU) + ":" + lk.Fingerprint()}, Location: a.Location})
	status(t, v, verdict.CheckLogKey, verdict.StatusFail)
}

// TestBarePinForgedProofIsProof: a key pinned by a bare fingerprint is still
// the appliance's bytes, but that the record's key id names them is the
// document's word: a logged proof that verifies under none of their suites
// fails, vrf-key failing too, and proves nothing (the document may have put
// the bytes under another key's id: TestRelabelledKeyNoProof). It is proof
// of misbehaviour once a key announcement pairs the id with the key: the
// transcript's own, logged before the game, or one given.
func TestBarePinForgedProofIsProof(t *testing.T) {
	a := appliance(t, 71)
	g := play(t, a, receipttest.Play{Game: "g-forged", StopAt: 2, Cheat: receipttest.Cheat{ForgeProof: 1}})
	v := receipt.VerifyReceipt(a.Receipt(g, 1, true), bare(t, a))
	if !bytesOnly(v) {
		t.Errorf("vrf-key:\n%s", v.Text("en"))
	}
	noProof(t, "receipt, bare pin", v)
	if reasonOf(v, verdict.CheckVRFProof) != verdict.MsgWhyKeyPairing {
		t.Errorf("receipt, bare pin: vrf-proof:\n%s", v.Text("en"))
	}
	expect(t, receipt.VerifyReceipt(a.Receipt(g, 1, true), announcements(t, a, bare(t, a))), verdict.StatusMisbehaviour, verdict.CheckVRFProof)
	tr := a.Transcript(g, receipttest.TranscriptOptions{NoKeys: true})
	v = receipt.VerifyTranscript(tr, bare(t, a))
	if !bytesOnly(v) {
		t.Errorf("transcript vrf-key:\n%s", v.Text("en"))
	}
	noProof(t, "transcript, bare pin", v)
	if reasonOf(v, verdict.CheckVRFProof) != verdict.MsgWhyKeyPairing {
		t.Errorf("transcript, bare pin: vrf-proof:\n%s", v.Text("en"))
	}
	expect(t, receipt.VerifyTranscript(tr, announcements(t, a, bare(t, a))), verdict.StatusMisbehaviour, verdict.CheckVRFProof)
	// Its announcement logged before the game fixes the suite and the
	// pairing.
	expect(t, receipt.VerifyTranscript(a.Transcript(g, receipttest.TranscriptOptions{}), bare(t, a)), verdict.StatusMisbehaviour, verdict.CheckVRFProof)
}

// TestTranscriptAnnouncementFixesSuite: a transcript carries its key
// announcement, logged before the game, which fixes the key's suite: a bare
// pin (or none) passes with it. Without it, a bare pin fails vrf-key, a
// suite pin passes.
func TestTranscriptAnnouncementFixesSuite(t *testing.T) {
	a := appliance(t, 72)
	g := play(t, a, receipttest.Play{Game: "g-ann", StopAt: 2})
	expect(t, receipt.VerifyTranscript(a.Transcript(g, receipttest.TranscriptOptions{}), bare(t, a)), verdict.StatusPass, "")
	noKeys := a.Transcript(g, receipttest.TranscriptOptions{NoKeys: true})
	v := receipt.VerifyTranscript(noKeys, bare(t, a))
	noProof(t, "no announcement, bare pin", v)
	if !bytesOnly(v) {
		t.Errorf("no announcement, bare pin:\n%s", v.Text("en"))
	}
	expect(t, receipt.VerifyTranscript(noKeys, keyed(t, a)), verdict.StatusPass, "")
	// The announcement names the suite: a transcript naming the other one
	// is not announced, and a bare pin does not vouch for it.
	tr := transcriptOf(t, a.Transcript(g, receipttest.TranscriptOptions{}))
	tr.VRFKeys[0].Suite = string(vrf.SuiteP256TAI)
	v = receipt.VerifyTranscript(receipt.Marshal(tr), bare(t, a))
	noProof(t, "announced, other suite named", v)
	if !bytesOnly(v) {
		t.Errorf("announced, other suite named:\n%s", v.Text("en"))
	}
}

// TestParsePin: a bare fingerprint — also spelled SHA256:fingerprint, as
// rngctl keys init and keys show print it (the prefix in any case) — or
// SUITE:fingerprint.
func TestParsePin(t *testing.T) {
	fp := strings.Repeat("ab", 32)
	for _, c := range []struct {
		pin   string
		suite vrf.Suite
		ok    bool
	}{
		{fp, "", true},
		{strings.ToUpper(fp), "", true},
		{" " + fp + "\n", "", true},
		{"SHA256:" + fp, "", true},
		{"sha256:" + fp, "", true},
		{"Sha256:" + strings.ToUpper(fp), "", true},
		{" SHA256:" + fp + "\n", "", true},
		{"SHA256:" + fp[:62], "", false},
		{"SHA256:", "", false},
		{"SHA256:ECVRF-P256-SHA256-SSWU:" + fp, "", false},
		{"SHA-256:" + fp, "", false},
		{"SHA256 " + fp, "", false},
		{"sha256 :" + fp, "", false},
		{"SHA512:" + fp, "", false},
		{"ECVRF-P256-SHA256-SSWU:" + fp, vrf.SuiteP256SSWU, true},
		{"ECVRF-P256-SHA256-TAI:" + fp, vrf.SuiteP256TAI, true},
		{"RSA-FDH-VRF-SHA256:" + fp, vrf.SuiteRSAFDH256, true},
		{"ecvrf-p256-sha256-sswu:" + fp, "", false},
		{"ECVRF-EDWARDS25519-SHA512-TAI:" + fp, "", false},
		{"ECVRF-P256-SHA256-SSWU:" + fp[:62], "", false},
		{"ECVRF-P256-SHA256-SSWU:", "", false},
		{":" + fp, "", false},
		{fp[:62], "", false},
		{"zz", "", false},
	} {
		s, f, err := receipt.ParsePin(c.pin)
		if (err == nil) != c.ok || s != c.suite || c.ok && f != fp {
			t.Errorf("ParsePin(%q) = %q, %q, %v", c.pin, s, f, err)
		}
		if err != nil && !strings.Contains(err.Error(), "want 64 hex digits") {
			t.Errorf("ParsePin(%q): %v", c.pin, err)
		}
	}
}

// TestCertificateSuitePin: a certificate's VRF key pinned by a bare
// fingerprint is trusted through its key announcement (logged before the
// freeze, which fixes the suite); without the announcement it fails
// vrf-key, and a suite pin passes.
func TestCertificateSuitePin(t *testing.T) {
	cert, err := os.ReadFile("../cli/testdata/promo-certificate.json")
	if err != nil {
		t.Fatal(err)
	}
	var c promo.Certificate
	if err := json.Unmarshal(cert, &c); err != nil {
		t.Fatal(err)
	}
	if c.Keys == nil || c.VRFSuite != string(vrf.SuiteP256SSWU) {
		t.Fatal("the test certificate carries no key announcement, or another suite")
	}
	var logPins []string
	for _, t0 := range c.LogKeys {
		k, err := checkpoint.ParseKey(t0)
		if err != nil {
			t.Fatal(err)
		}
		logPins = append(logPins, k.Fingerprint())
	}
	raw, err := hex.DecodeString(c.VRFPublicKey)
	if err != nil {
		t.Fatal(err)
	}
	pk, err := vrf.ParsePublicKey(vrf.SuiteP256SSWU, raw)
	if err != nil {
		t.Fatal(err)
	}
	barePin := strings.SplitN(receipt.VRFPin(pk), ":", 2)[1]
	anchors := func(pins ...string) receipt.Anchors {
		return receipt.Anchors{Pins: append(append([]string(nil), logPins...), pins...)}
	}

	v := receipt.VerifyCertificate(cert, nil, anchors(barePin))
	expect(t, v, verdict.StatusPass, "")
	if !hasCheck(v, verdict.CheckVRFKey, verdict.StatusPass, verdict.MsgAnnouncedBeforeFreeze) {
		t.Errorf("announced key, bare pin:\n%s", v.Text("en"))
	}
	c.Keys = nil
	noKeys := promo.CertificateJSON(&c)
	v = receipt.VerifyCertificate(noKeys, nil, anchors(barePin))
	noProof(t, "certificate, bare pin", v)
	if !bytesOnly(v) {
		t.Errorf("certificate without its announcement, bare pin:\n%s", v.Text("en"))
	}
	v = receipt.VerifyCertificate(noKeys, nil, anchors(receipt.VRFPin(pk)))
	expect(t, v, verdict.StatusPass, "")
	if !hasCheck(v, verdict.CheckVRFKey, verdict.StatusPass, verdict.MsgPinned) {
		t.Errorf("certificate, suite pin:\n%s", v.Text("en"))
	}
	v = receipt.VerifyCertificate(noKeys, nil, anchors(string(vrf.SuiteP256TAI)+":"+barePin))
	noProof(t, "certificate, other suite pinned", v)
}
