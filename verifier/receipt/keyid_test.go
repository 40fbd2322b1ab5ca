package receipt_test

import (
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"

	"tirage.fr/tirage/verifier/promo"
	"tirage.fr/tirage/verifier/receipt"
	"tirage.fr/tirage/verifier/receipt/receipttest"
	"tirage.fr/tirage/verifier/record"
	"tirage.fr/tirage/verifier/verdict"
	"tirage.fr/tirage/verifier/vrf"
)

// announcements adds to an every key announcement a logged, as rngverify
// --vrf-key ANNOUNCEMENT does (receipt.AnnouncedAnchors): its VRF keys,
// their suite pins, and which key each id names.
func announcements(t *testing.T, a *receipttest.Appliance, an receipt.Anchors) receipt.Anchors {
	t.Helper()
	for i := range uint64(a.Size()) {
		r, err := record.Parse(a.Leaf(i))
		if ka, ok := r.(*record.KeyAnnouncement); err == nil && ok {
			keys, pins, ids := receipt.AnnouncedAnchors(ka)
			an.VRFKeys, an.Pins, an.Announced = append(an.VRFKeys, keys...), append(an.Pins, pins...), append(an.Announced, ids...)
		}
	}
	return an
}

// given trusts the appliance's log keys and the VRF keys ks by their bytes
// (rngverify --vrf-key with "SUITE HEX" lines: no ids).
func given(t *testing.T, a *receipttest.Appliance, ks ...*vrf.PublicKey) receipt.Anchors {
	t.Helper()
	an := keyed(t, a)
	an.Pins, an.VRFKeys = nil, ks
	return an
}

// reasonOf is the id of the message check name carries: for a failure that
// is a contradiction proving nothing (verdict.MsgNotProof), the id of why;
// for a reason passed whole (verdict.MsgSame), the id of that reason.
func reasonOf(v *verdict.Verdict, name string) verdict.MsgID {
	c := v.Find(name)
	if c == nil || c.Message == nil {
		return ""
	}
	switch m := c.Message; {
	case (m.ID == verdict.MsgNotProof || m.ID == verdict.MsgSame) && len(m.Args) > 0:
		if w, ok := m.Args[0].(verdict.Msg); ok {
			return w.ID
		}
	}
	return c.Message.ID
}

// settledAs fails unless v fails — no check claiming misbehaviour — with
// check name's reason id, its English reason holding en and its French fr.
func settledAs(t *testing.T, what string, v *verdict.Verdict, name string, id verdict.MsgID, en, fr string) {
	t.Helper()
	noProof(t, what, v)
	c := v.Find(name)
	if c == nil || c.Status != verdict.StatusFail || reasonOf(v, name) != id {
		t.Errorf("%s: check %s is not a failure with reason %s:\n%s", what, name, id, v.Text("en"))
		return
	}
	if got := c.Reason("en"); !strings.Contains(got, en) {
		t.Errorf("%s: %s reason %q lacks %q", what, name, got, en)
	}
	if got := c.Reason("fr"); !strings.Contains(got, fr) {
		t.Errorf("%s: %s French reason %q lacks %q", what, name, got, fr)
	}
}

func fpOf(pk *vrf.PublicKey) string { return record.Hex(record.Fingerprint(pk.Bytes())) }

// TestRelabelledKeyNoProof: records name their VRF key by id; the
// verifier trusts key bytes (given, pinned), and a receipt or transcript
// pairs the id with bytes itself. After a rotation, an honest document
// edited to give another trusted key's bytes under the id the records name
// makes every proof fail: that proves nothing against the appliance (the
// pairing is the document's), so it is a failure saying so — naming the
// key the proof does verify under when one is given — never MISBEHAVIOUR
// PROVEN. With the appliance's key announcement given, the pairing is
// proven: the relabelled document fails vrf-key (the document is wrong),
// and a genuinely forged proof is still misbehaviour.
func TestRelabelledKeyNoProof(t *testing.T) {
	a, sk2, both := rotated(t, 64)
	k1, k2 := a.VRF.Public(), sk2.Public()
	other := hex.EncodeToString(k2.Bytes())
	g := play(t, a, receipttest.Play{Game: "g-relabel"})
	announced := announcements(t, a, keyed(t, a))
	// The user trusts only the key the draw did not use (as one who pinned
	// the old key only, the draw under the new one).
	onlyK2 := keyed(t, a)
	onlyK2.Pins = []string{receipt.VRFPin(k2)}

	pairing := "the document pairs key id " + a.VRFID + " with the ECVRF-P256-SHA256-SSWU key of fingerprint " + fpOf(k2) + ", and nothing given proves that pairing"
	pairingFR := "le document associe l'identifiant de clé " + a.VRFID + " à la clé ECVRF-P256-SHA256-SSWU d'empreinte " + fpOf(k2)
	relabelled := "but the proof verifies under the trusted ECVRF-P256-SHA256-SSWU key of fingerprint " + fpOf(k1) + ": the document relabelled the key"
	relabelledFR := "mais la preuve se vérifie sous la clé de confiance ECVRF-P256-SHA256-SSWU d'empreinte " + fpOf(k1)
	mismatch := "key id " + a.VRFID + " names the ECVRF-P256-SHA256-SSWU key of fingerprint " + fpOf(k1) + " in the key announcement given, but the document gives the ECVRF-P256-SHA256-SSWU key of fingerprint " + fpOf(k2) + " under that id: the document is wrong"
	mismatchFR := "dans l'annonce des clés fournie, mais le document donne sous cet identifiant la clé ECVRF-P256-SHA256-SSWU d'empreinte " + fpOf(k2)
	mismatchLogged := "in the key announcement in the trusted log, but the document gives the ECVRF-P256-SHA256-SSWU key of fingerprint " + fpOf(k2)
	mismatchLoggedFR := "dans l'annonce des clés du journal de confiance"

	// The receipt of pick 1, its vrf_key relabelled.
	var rc receipt.Receipt
	if err := json.Unmarshal(a.Receipt(g, 1, true), &rc); err != nil {
		t.Fatal(err)
	}
	for _, an := range []receipt.Anchors{both, announced, given(t, a, k1, k2)} {
		expect(t, receipt.VerifyReceipt(receipt.Marshal(rc), an), verdict.StatusPass, "")
	}
	rc.VRFKey.PublicKey = other
	relabel := receipt.Marshal(rc)
	settledAs(t, "receipt, both keys pinned", receipt.VerifyReceipt(relabel, both), verdict.CheckVRFProof, verdict.MsgWhyKeyPairing, pairing, pairingFR)
	settledAs(t, "receipt, the other key pinned only", receipt.VerifyReceipt(relabel, onlyK2), verdict.CheckVRFProof, verdict.MsgWhyKeyPairing, pairing, pairingFR)
	settledAs(t, "receipt, both keys given", receipt.VerifyReceipt(relabel, given(t, a, k1, k2)), verdict.CheckVRFProof, verdict.MsgWhyKeyRelabelled, relabelled, relabelledFR)
	v := receipt.VerifyReceipt(relabel, announced)
	settledAs(t, "receipt, announcements given", v, verdict.CheckVRFKey, verdict.MsgVRFKeyIDMismatch, mismatch, mismatchFR)
	settledAs(t, "receipt, announcements given", v, verdict.CheckVRFProof, verdict.MsgVRFKeyIDMismatch, mismatch, mismatchFR)

	// Its transcript: with the key announcement it carries (logged before
	// the game), the log proves the pairing, which the relabelled key
	// contradicts; without it, the pairing is the document's.
	tr := transcriptOf(t, a.Transcript(g, receipttest.TranscriptOptions{}))
	noKeys := transcriptOf(t, a.Transcript(g, receipttest.TranscriptOptions{NoKeys: true}))
	for _, an := range []receipt.Anchors{both, announced} {
		expect(t, receipt.VerifyTranscript(receipt.Marshal(tr), an), verdict.StatusPass, "")
		expect(t, receipt.VerifyTranscript(receipt.Marshal(noKeys), an), verdict.StatusPass, "")
	}
	for _, d := range []*receipt.Transcript{tr, noKeys} {
		for i := range d.VRFKeys {
			if d.VRFKeys[i].ID == a.VRFID {
				d.VRFKeys[i].PublicKey = other
			}
		}
	}
	v = receipt.VerifyTranscript(receipt.Marshal(tr), both)
	settledAs(t, "transcript, both keys pinned", v, verdict.CheckVRFKey, verdict.MsgVRFKeyIDMismatch, mismatchLogged, mismatchLoggedFR)
	settledAs(t, "transcript, both keys pinned", v, verdict.CheckVRFProof, verdict.MsgVRFKeyIDMismatch, mismatchLogged, mismatchLoggedFR)
	relabelledT := receipt.Marshal(noKeys)
	settledAs(t, "transcript without its announcement, both keys pinned", receipt.VerifyTranscript(relabelledT, both),
		verdict.CheckVRFProof, verdict.MsgWhyKeyPairing, pairing, pairingFR)
	settledAs(t, "transcript without its announcement, both keys given", receipt.VerifyTranscript(relabelledT, given(t, a, k1, k2)),
		verdict.CheckVRFProof, verdict.MsgWhyKeyRelabelled, relabelled, relabelledFR)
	settledAs(t, "transcript without its announcement, the other key pinned only", receipt.VerifyTranscript(relabelledT, onlyK2),
		verdict.CheckVRFProof, verdict.MsgWhyKeyPairing, pairing, pairingFR)
	settledAs(t, "transcript without its announcement, announcements given", receipt.VerifyTranscript(relabelledT, announced),
		verdict.CheckVRFKey, verdict.MsgVRFKeyIDMismatch, mismatch, mismatchFR)

	// A forged proof, the pairing honest: proof once the pairing is
	// proven (the announcement given, or the transcript's own, logged);
	// the document's word alone proves nothing.
	f := play(t, a, receipttest.Play{Game: "g-forged", StopAt: 2, Cheat: receipttest.Cheat{ForgeProof: 1}})
	forged := a.Receipt(f, 1, true)
	settledAs(t, "forged proof, receipt, keys pinned", receipt.VerifyReceipt(forged, both), verdict.CheckVRFProof, verdict.MsgWhyKeyPairing,
		"the document pairs key id "+a.VRFID+" with the ECVRF-P256-SHA256-SSWU key of fingerprint "+fpOf(k1), "qui dit quelle clé chaque identifiant désigne")
	expect(t, receipt.VerifyReceipt(forged, announced), verdict.StatusMisbehaviour, verdict.CheckVRFProof)
	settledAs(t, "forged proof, transcript without its announcement, keys pinned", receipt.VerifyTranscript(a.Transcript(f, receipttest.TranscriptOptions{NoKeys: true}), both),
		verdict.CheckVRFProof, verdict.MsgWhyKeyPairing, "nothing given proves that pairing", "rien de ce qui a été fourni ne prouve cette association")
	expect(t, receipt.VerifyTranscript(a.Transcript(f, receipttest.TranscriptOptions{NoKeys: true}), announced), verdict.StatusMisbehaviour, verdict.CheckVRFProof)
	expect(t, receipt.VerifyTranscript(a.Transcript(f, receipttest.TranscriptOptions{}), both), verdict.StatusMisbehaviour, verdict.CheckVRFProof)
}

// TestRelabelledCertificateKeyNoProof: a promotion certificate names its
// VRF key by the draw record's id and gives its bytes. Without the key
// announcement (its "keys"), that pairing is the certificate's: after a
// rotation, the other trusted key's bytes under the draw's key id make the
// proof fail, which proves nothing (naming the key the proof verifies
// under, when given). With the appliance's announcement given, the
// certificate is wrong (vrf-proof fails saying so); and a draw logged with
// a forged proof is misbehaviour under the announcement given, or the
// certificate's own logged before the freeze, and nothing without.
func TestRelabelledCertificateKeyNoProof(t *testing.T) {
	a, sk2, both := rotated(t, 67)
	k1, k2 := a.VRF.Public(), sk2.Public()
	p, err := a.PromoDrawWith("relabel", 40, receipttest.PromoCheat{})
	if err != nil {
		t.Fatal(err)
	}
	fr, _ := record.Parse(a.Leaf(p.Freeze))
	f := fr.(*record.PromoFreeze)
	dr, _ := record.Parse(a.Leaf(p.Draw))
	d := dr.(*record.PromoDraw)
	// The same draw logged again with a forged proof, linked to the freeze.
	bad := *d
	bad.Proof = append([]byte(nil), d.Proof...)
	bad.Proof[len(bad.Proof)-1] ^= 1
	leaf, err := record.Format(&bad)
	if err != nil {
		t.Fatal(err)
	}
	badAt := a.Append(leaf)
	_, rh, err := promo.FreezeRules(f)
	if err != nil {
		t.Fatal(err)
	}
	n := a.Size()
	logged := func(i uint64) *promo.LoggedRecord {
		return &promo.LoggedRecord{Index: i, Record: string(a.Leaf(i)), Proof: a.Inclusion(i, n)}
	}
	// cert is the draw at drawAt's certificate, giving key under the
	// draw's key id, with the key announcement (logged first) when keys.
	cert := func(drawAt uint64, key *vrf.PublicKey, keys bool) []byte {
		in := promo.CertificateInput{Freeze: logged(p.Freeze), Draw: logged(drawAt), Checkpoint: a.Checkpoint(), LogKeys: a.LogKeys, Tree: p.Tree, VRFKey: key}
		copy(in.RulesHash[:], must(hex.DecodeString(rh)))
		if keys {
			in.Keys = logged(0)
		}
		c, err := promo.NewCertificate(in)
		if err != nil {
			t.Fatal(err)
		}
		return promo.CertificateJSON(c)
	}
	announced := announcements(t, a, keyed(t, a))
	for _, an := range []receipt.Anchors{both, announced, given(t, a, k1, k2)} {
		expect(t, receipt.VerifyCertificate(cert(p.Draw, k1, false), nil, an), verdict.StatusPass, "")
		expect(t, receipt.VerifyCertificate(cert(p.Draw, k1, true), nil, an), verdict.StatusPass, "")
	}

	relabel := cert(p.Draw, k2, false)
	settledAs(t, "certificate, both keys pinned", receipt.VerifyCertificate(relabel, nil, both), promo.CheckVRF, verdict.MsgWhyKeyPairing,
		"the document pairs key id "+d.Key+" with the ECVRF-P256-SHA256-SSWU key of fingerprint "+fpOf(k2)+", and nothing given proves that pairing", "rien de ce qui a été fourni ne prouve cette association")
	settledAs(t, "certificate, both keys given", receipt.VerifyCertificate(relabel, nil, given(t, a, k1, k2)), promo.CheckVRF, verdict.MsgWhyKeyRelabelled,
		"verifies under the trusted ECVRF-P256-SHA256-SSWU key of fingerprint "+fpOf(k1)+": the document relabelled the key", "le document a changé l'étiquette de la clé")
	settledAs(t, "certificate, announcements given", receipt.VerifyCertificate(relabel, nil, announced), promo.CheckVRF, verdict.MsgVRFKeyIDMismatch,
		"in the key announcement given, but the document gives the ECVRF-P256-SHA256-SSWU key of fingerprint "+fpOf(k2)+" under that id: the document is wrong", "le document est erroné")
	// With its own announcement, the certificate's key is the logged one:
	// pinned-keys fails, as before.
	v := receipt.VerifyCertificate(cert(p.Draw, k2, true), nil, both)
	noProof(t, "certificate with its announcement, relabelled", v)
	status(t, v, promo.CheckKeys, verdict.StatusFail)

	forged := cert(badAt, k1, false)
	settledAs(t, "forged proof, certificate, keys pinned", receipt.VerifyCertificate(forged, nil, both), promo.CheckVRF, verdict.MsgWhyKeyPairing,
		"the document pairs key id "+d.Key+" with the ECVRF-P256-SHA256-SSWU key of fingerprint "+fpOf(k1), "qui dit quelle clé chaque identifiant désigne")
	expect(t, receipt.VerifyCertificate(forged, nil, announced), verdict.StatusMisbehaviour, promo.CheckVRF)
	expect(t, receipt.VerifyCertificate(cert(badAt, k1, true), nil, both), verdict.StatusMisbehaviour, promo.CheckVRF)
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}
