package receipt_test

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"

	qodv1 "tirage.fr/tirage/rngd/api/tirage/qod/v1"
	"tirage.fr/tirage/verifier/checkpoint"
	"tirage.fr/tirage/verifier/promo"
	"tirage.fr/tirage/verifier/receipt"
	"tirage.fr/tirage/verifier/receipt/receipttest"
	"tirage.fr/tirage/verifier/record"
	"tirage.fr/tirage/verifier/verdict"
)

// seeds returns real documents of an honest appliance, and its anchors.
func seeds(f *testing.F) ([][]byte, receipt.Anchors) {
	a, err := receipttest.New(40)
	if err != nil {
		f.Fatal(err)
	}
	g, err := a.PlayGame(receipttest.Play{Game: "g-fuzz", StopAt: 1})
	if err != nil {
		f.Fatal(err)
	}
	p, err := a.PromoDrawWith("fuzz", 20, receipttest.PromoCheat{})
	if err != nil {
		f.Fatal(err)
	}
	_, quit := a.Quit(g.Ticket, 0) // a quit of a ticket started: its receipt alone passes (only the log shows both)
	keys, _ := checkpoint.ParseKeys(string(a.LogKeyFile()))
	tr := a.Transcript(g, receipttest.TranscriptOptions{})
	docs := [][]byte{tr, a.Receipt(g, 0, true), a.Receipt(g, 1, true), a.Receipt(g, len(g.Indices)-1, false), []byte("{}"), []byte(`{"v":1,"type":"tirage/receipt"}`), a.PromoReceipt(p, true),
		// The daemon's replies, as grpcurl prints them.
		grpcurl(f, &qodv1.GetTranscriptResponse{Document: tr}), receiptsReply(f, a, g), []byte(`{"document":""}`), []byte(`{"receipts":[{}]}`),
		// A ticket_quit's receipt (rngd's Quit reply).
		a.RecordReceipt(quit)}
	return docs, receipt.Anchors{LogKeys: keys, Pins: []string{a.VRFPin()}, Location: a.Location}
}

// FuzzVerify: any bytes give a verdict without panicking; the seeds pass;
// a document that passes presents as the appliance's only entries some
// seed presents (the same record at the same index): nothing the appliance
// did not log passes, whatever else the fuzzer changed.
func FuzzVerify(f *testing.F) {
	docs, anchors := seeds(f)
	logs := map[uint64]string{} // every entry the passing seeds present
	for _, d := range docs {
		f.Add(d)
		if verifyAny(d, anchors).Status() != verdict.StatusPass {
			continue
		}
		entries, ok := presented(d)
		if !ok {
			f.Fatalf("a passing seed does not decode:\n%s", d)
		}
		for _, e := range entries {
			logs[e.Index] = e.Record
		}
	}
	for _, d := range append(docs[:3:3], docs[7:9]...) {
		if v := verifyAny(d, anchors); v.Status() != verdict.StatusPass {
			f.Fatalf("seed does not verify:\n%s", v.Text("en"))
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		v := verifyAny(b, anchors)
		if v.Status() != verdict.StatusPass {
			return
		}
		entries, ok := presented(b)
		if !ok {
			t.Fatalf("passed but does not decode:\n%s", b)
		}
		for _, e := range entries {
			if r, seen := logs[e.Index]; !seen || r != e.Record {
				t.Fatalf("passed with entry %d not logged as such:\n%s\n%s", e.Index, e.Record, v.Text("en"))
			}
		}
	})
}

// presented returns the log entries a receipt or transcript (or the
// daemon's reply carrying them) presents as the appliance's, decoded as the
// verifier decodes it; false when it does not decode so.
func presented(b []byte) ([]receipt.Logged, bool) {
	var out []receipt.Logged
	add := func(l *receipt.Logged) {
		if l != nil {
			out = append(out, *l)
		}
	}
	if doc, err := receipt.TranscriptFromReply(b); err == nil {
		b = doc
	} else if rcs, err := receipt.ReceiptsFromReply(b); err == nil {
		for _, rc := range rcs {
			add(&receipt.Logged{Index: rc.Index, Record: rc.Record})
			add(rc.Start)
		}
		return out, true
	}
	switch receipt.Detect(b) {
	case receipt.DocTranscript:
		var tr receipt.Transcript
		if !strict(b, &tr) {
			return nil, false
		}
		out = append(out, tr.Records...)
		add(tr.Emission)
		add(tr.Keys)
	default:
		var rc *receipt.Receipt
		var m map[string]json.RawMessage
		if json.Unmarshal(b, &m) == nil && m["leafHash"] != nil && m["type"] == nil {
			r, err := receipt.FromProtoJSON(b)
			if err != nil {
				return nil, false
			}
			rc = r
		} else if rc = new(receipt.Receipt); !strict(b, rc) {
			return nil, false
		}
		add(&receipt.Logged{Index: rc.Index, Record: rc.Record})
		add(rc.Start)
		add(rc.Freeze)
	}
	return out, true
}

func verifyAny(b []byte, a receipt.Anchors) *verdict.Verdict {
	if receipt.Detect(b) == receipt.DocTranscript {
		return receipt.VerifyTranscript(b, a)
	}
	return receipt.VerifyReceipt(b, a)
}

// checkUnanchored: with no trust anchor at all, no document passes and none
// proves misbehaviour (docs/verifier.md: "any document checked with no trust
// anchor at all, is NOT VERIFIED, never MISBEHAVIOUR PROVEN").
func checkUnanchored(t *testing.T, v *verdict.Verdict) {
	t.Helper()
	if s := v.Status(); s != verdict.StatusFail {
		t.Fatalf("with no anchor the verdict is %s, want fail:\n%s", s, v.Text("en"))
	}
	for _, c := range v.Checks {
		if c.Status == verdict.StatusMisbehaviour {
			t.Fatalf("with no anchor check %s claims misbehaviour:\n%s", c.Name, v.Text("en"))
		}
	}
}

// strict decodes b as the verifier does (no unknown field, nothing after).
func strict(b []byte, v any) bool {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if dec.Decode(v) != nil {
		return false
	}
	_, err := dec.Token()
	return err == io.EOF
}

// FuzzVerifyRoundTrip: a receipt or transcript that decodes verifies to the
// same verdict once re-encoded (Marshal); with no anchor nothing passes and
// nothing proves misbehaviour.
func FuzzVerifyRoundTrip(f *testing.F) {
	docs, anchors := seeds(f)
	for _, d := range docs {
		f.Add(d)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		checkUnanchored(t, verifyAny(b, receipt.Anchors{}))
		v := verifyAny(b, anchors)
		var again []byte
		switch receipt.Detect(b) {
		case receipt.DocTranscript:
			var tr receipt.Transcript
			if !strict(b, &tr) {
				return
			}
			again = receipt.Marshal(&tr)
		default:
			var m map[string]json.RawMessage
			if json.Unmarshal(b, &m) == nil && m["leafHash"] != nil && m["type"] == nil {
				// The daemon's protojson receipt: FuzzFromProtoJSON.
				return
			}
			var rc receipt.Receipt
			if !strict(b, &rc) {
				return
			}
			again = receipt.Marshal(&rc)
		}
		if w := verifyAny(again, anchors); !bytes.Equal(w.JSON(), v.JSON()) {
			t.Fatalf("re-encoded document verifies differently:\n%s\n---\n%s", v.JSON(), w.JSON())
		}
	})
}

// FuzzReplies: the daemon's GetTranscript and GetReceipts replies. What
// TranscriptFromReply reads verifies as the transcript it carries (the
// format check aside) and reads the same once wrapped again; what
// ReceiptsFromReply reads has each receipt verified as its conversion, is
// one game's receipts at increasing log indices, and gives no member twice;
// with no anchor nothing passes and nothing proves misbehaviour.
func FuzzReplies(f *testing.F) {
	docs, anchors := seeds(f)
	for _, d := range docs[7:] {
		f.Add(d)
	}
	f.Add([]byte(`{"document":"e30="}`))
	f.Add([]byte(`{"receipts":[null]}`))
	f.Add([]byte(`{"receipts":[null],"receipts":[]}`))
	f.Add([]byte(`{"document":"e30=","document":"e30="}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		checkUnanchored(t, receipt.VerifyTranscript(b, receipt.Anchors{}))
		checkUnanchored(t, receipt.VerifyReceipt(b, receipt.Anchors{}))
		if doc, err := receipt.TranscriptFromReply(b); err == nil {
			again, err := json.Marshal(map[string][]byte{"document": doc})
			if err != nil {
				t.Fatal(err)
			}
			if d, err := receipt.TranscriptFromReply(again); err != nil || !bytes.Equal(d, doc) {
				t.Fatalf("re-wrapped reply reads %q, %v; want %q", d, err, doc)
			}
			v, w := receipt.VerifyTranscript(b, anchors), receipt.VerifyTranscript(doc, anchors)
			if c := v.Checks[0]; c.Name != verdict.CheckFormat || (c.Status == verdict.StatusPass) != (w.Checks[0].Status == verdict.StatusPass) {
				t.Fatalf("the reply's format check %+v, its document's %+v", c, w.Checks[0])
			}
			got, _ := json.Marshal(v.Checks[1:])
			want, _ := json.Marshal(w.Checks[1:])
			if v.Checks[0].Status == verdict.StatusPass && (!bytes.Equal(got, want) || v.Status() != w.Status()) {
				t.Fatalf("the reply verifies unlike its document:\n%s\n---\n%s", v.Text("en"), w.Text("en"))
			}
		}
		rcs, err := receipt.ReceiptsFromReply(b)
		if err != nil {
			return
		}
		if verdict.RepeatedMember(b) != nil {
			t.Fatalf("a reply giving a member twice read:\n%s", b)
		}
		game := ""
		for i, rc := range rcs {
			if i > 0 && rc.Index <= rcs[i-1].Index {
				t.Fatalf("receipts[%d] at log index %d after %d read", i, rc.Index, rcs[i-1].Index)
			}
			r, err := record.Parse([]byte(rc.Record))
			if err != nil {
				continue
			}
			g, ok := r.(record.GameRecord)
			if !ok || game != "" && g.GameID() != game {
				t.Fatalf("receipts[%d]: a %s record read among game %q's", i, r.Kind(), game)
			}
			game = g.GameID()
		}
		v := receipt.VerifyReceipt(b, anchors)
		if len(v.Parts) != len(rcs) {
			t.Fatalf("%d receipts read, %d verified:\n%s", len(rcs), len(v.Parts), v.Text("en"))
		}
		pass := true
		for i, rc := range rcs {
			conv := receipt.Marshal(rc)
			if lossy(conv) {
				pass = pass && v.Parts[i].Status() == verdict.StatusPass
				continue
			}
			w := receipt.VerifyReceipt(conv, anchors)
			got, _ := json.Marshal(v.Parts[i].Checks)
			want, _ := json.Marshal(w.Checks)
			if !bytes.Equal(nativeFields(got), want) {
				t.Fatalf("receipt %d verifies unlike its conversion:\n%s\n---\n%s", i, v.Parts[i].Text("en"), w.Text("en"))
			}
			pass = pass && w.Status() == verdict.StatusPass
		}
		if pass != (v.Status() == verdict.StatusPass) {
			t.Fatalf("every receipt passes: %v; the reply: %s", pass, v.Status())
		}
	})
}

// FuzzFromProtoJSON: the daemon's protojson receipt, once converted,
// verifies as the receipt it converts to; with no anchor nothing passes and
// nothing proves misbehaviour.
func FuzzFromProtoJSON(f *testing.F) {
	docs, anchors := seeds(f)
	for _, d := range docs[1:4] {
		var rc receipt.Receipt
		if err := json.Unmarshal(d, &rc); err != nil {
			f.Fatal(err)
		}
		f.Add(protoJSON(f, &rc))
	}
	f.Add([]byte(`{"record":"","leafHash":""}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		checkUnanchored(t, receipt.VerifyReceipt(b, receipt.Anchors{}))
		r, err := receipt.FromProtoJSON(b)
		if err != nil {
			return
		}
		var m map[string]json.RawMessage
		if json.Unmarshal(b, &m) != nil || m["leafHash"] == nil || m["record"] == nil || m["type"] != nil {
			return // not read as protojson by VerifyReceipt
		}
		conv := receipt.Marshal(r)
		if lossy(conv) {
			return
		}
		v, w := receipt.VerifyReceipt(b, anchors), receipt.VerifyReceipt(conv, anchors)
		if !bytes.Equal(nativeFields(v.JSON()), w.JSON()) {
			t.Fatalf("protojson receipt verifies unlike its conversion:\n%s\n---\n%s", v.JSON(), w.JSON())
		}
	})
}

// protoJSON is rc as the daemon's protojson Receipt (grpcurl's output).
func protoJSON(f *testing.F, rc *receipt.Receipt) []byte {
	unhex := func(s string) []byte { b, _ := hex.DecodeString(s); return b }
	h := record.LeafHash([]byte(rc.Record))
	m := map[string]any{"record": []byte(rc.Record), "logIndex": strconv.FormatUint(rc.Index, 10),
		"leafHash": h[:], "checkpoint": []byte(rc.Checkpoint)}
	var proof [][]byte
	for _, p := range rc.Proof {
		proof = append(proof, unhex(p))
	}
	m["inclusionProof"] = proof
	if rc.VRFKey != nil {
		m["vrfKeyId"], m["vrfSuite"], m["vrfPublicKey"] = rc.VRFKey.ID, rc.VRFKey.Suite, unhex(rc.VRFKey.PublicKey)
	}
	if rc.Alpha != "" {
		m["vrfAlpha"] = unhex(rc.Alpha)
	}
	// The record's proof and β, as rngd gives them beside it (they must be
	// the record's: TestReceiptDrawFieldsAreRecords).
	switch x, _ := record.Parse([]byte(rc.Record)); x := x.(type) {
	case *record.GameStart:
		m["vrfProof"], m["vrfOutput"] = x.Proof, x.Beta
	case *record.Pick:
		m["vrfProof"], m["vrfOutput"] = x.Proof, x.Beta
	}
	if rc.Start != nil {
		m["startRecord"], m["startLogIndex"] = []byte(rc.Start.Record), strconv.FormatUint(rc.Start.Index, 10)
		var sp [][]byte
		for _, p := range rc.Start.Proof {
			sp = append(sp, unhex(p))
		}
		m["startInclusionProof"] = sp
	}
	b, err := json.Marshal(m)
	if err != nil {
		f.Fatal(err)
	}
	return b
}

// FuzzVerifyCertificate: any bytes give a verdict without panicking; the
// seed (rngctl's) passes with its log keys pinned, and what passes so
// certifies the seed's draw (its records, key announcement and picks);
// with no anchor nothing passes and nothing proves misbehaviour.
func FuzzVerifyCertificate(f *testing.F) {
	cert, err := os.ReadFile("../cli/testdata/promo-certificate.json")
	if err != nil {
		f.Fatal(err)
	}
	entrants, err := os.ReadFile("../cli/testdata/promo-entrants.txt")
	if err != nil {
		f.Fatal(err)
	}
	l, err := promo.ParseEntrantList(entrants)
	if err != nil {
		f.Fatal(err)
	}
	var probe struct {
		LogKeys      []string `json:"log_keys"`
		VRFPublicKey string   `json:"vrf_public_key"`
	}
	if err := json.Unmarshal(cert, &probe); err != nil {
		f.Fatal(err)
	}
	var anchors receipt.Anchors
	for _, t := range probe.LogKeys {
		k, err := checkpoint.ParseKey(t)
		if err != nil {
			f.Fatal(err)
		}
		anchors.Pins = append(anchors.Pins, k.Fingerprint())
	}
	lists := map[string]*promo.EntrantList{l.Draw: l}
	if v := receipt.VerifyCertificate(cert, lists, anchors); v.Status() != verdict.StatusPass {
		f.Fatalf("seed does not verify:\n%s", v.Text("en"))
	}
	f.Add(cert)
	f.Add([]byte(`{"v":1}`))
	var seed promo.Certificate
	if !strict(cert, &seed) {
		f.Fatal("the seed certificate does not decode strictly")
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		checkUnanchored(t, receipt.VerifyCertificate(b, lists, receipt.Anchors{}))
		v := receipt.VerifyCertificate(b, lists, anchors)
		if v.Status() != verdict.StatusPass {
			return
		}
		// What passes certifies the seed's draw: its freeze and draw
		// records at their indices, its key announcement, its winners.
		var c promo.Certificate
		if !strict(b, &c) {
			t.Fatalf("passed but does not decode:\n%s", b)
		}
		same := func(x, y *promo.LoggedRecord) bool {
			return x == nil && y == nil || x != nil && y != nil && x.Index == y.Index && x.Record == y.Record
		}
		if c.Draw != seed.Draw || !same(&c.Freeze, &seed.Freeze) || !same(&c.DrawRecord, &seed.DrawRecord) || !same(c.Keys, seed.Keys) {
			t.Fatalf("another draw's records passed:\n%s", b)
		}
		if len(c.Picks) != len(seed.Picks) {
			t.Fatalf("passed with %d picks, the draw has %d", len(c.Picks), len(seed.Picks))
		}
		for i, p := range c.Picks {
			q := seed.Picks[i]
			if p.Rank != q.Rank || p.Index != q.Index || p.Pseudonym != q.Pseudonym || !strings.EqualFold(p.Leaf, q.Leaf) {
				t.Fatalf("passed with pick %+v, the draw's is %+v", p, q)
			}
		}
	})
}

// nativeFields is a verdict of a daemon receipt (protobuf JSON) with its
// VRF key's field names as its conversion (receipt.Marshal) spells them:
// the reasons name the field of the form read, the only way the two
// verdicts may differ.
func nativeFields(b []byte) []byte {
	b = bytes.ReplaceAll(b, []byte("vrfPublicKey"), []byte("vrf_key.public_key"))
	return bytes.ReplaceAll(b, []byte("vrfSuite"), []byte("vrf_key.suite"))
}

// lossy says whether a conversion (receipt.Marshal) of a daemon receipt
// lost bytes: a record or checkpoint is bytes in the daemon's reply, and
// what is not UTF-8 cannot be carried by the conversion's JSON strings
// (encoding/json puts U+FFFD in its place), so the conversion is another
// document, whose verdict's wording may differ.
func lossy(conv []byte) bool {
	return bytes.Contains(conv, []byte("\\ufffd")) || bytes.Contains(conv, []byte("\xef\xbf\xbd"))
}
