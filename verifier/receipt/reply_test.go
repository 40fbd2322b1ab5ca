package receipt_test

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	qodv1 "tirage.fr/tirage/rngd/api/tirage/qod/v1"
	"tirage.fr/tirage/verifier/receipt"
	"tirage.fr/tirage/verifier/receipt/receipttest"
	"tirage.fr/tirage/verifier/record"
	"tirage.fr/tirage/verifier/verdict"
)

// pbReceipt is a receipt file as the daemon's protobuf Receipt
// (tirage.qod.v1.Receipt), its start members included.
func pbReceipt(t testing.TB, file []byte) *qodv1.Receipt {
	t.Helper()
	var rc receipt.Receipt
	if err := json.Unmarshal(file, &rc); err != nil {
		t.Fatal(err)
	}
	unhex := func(s string) []byte {
		b, err := hex.DecodeString(s)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	h := record.LeafHash([]byte(rc.Record))
	pb := &qodv1.Receipt{Record: []byte(rc.Record), LogIndex: rc.Index, LeafHash: h[:], Checkpoint: []byte(rc.Checkpoint)}
	for _, p := range rc.Proof {
		pb.InclusionProof = append(pb.InclusionProof, unhex(p))
	}
	if rc.VRFKey != nil {
		pb.VrfSuite, pb.VrfKeyId, pb.VrfPublicKey = rc.VRFKey.Suite, rc.VRFKey.ID, unhex(rc.VRFKey.PublicKey)
	}
	if rc.Alpha != "" {
		pb.VrfAlpha = unhex(rc.Alpha)
	}
	if rc.Start != nil {
		pb.StartRecord, pb.StartLogIndex = []byte(rc.Start.Record), rc.Start.Index
		for _, p := range rc.Start.Proof {
			pb.StartInclusionProof = append(pb.StartInclusionProof, unhex(p))
		}
	}
	return pb
}

// grpcurl is what grpcurl prints for a reply (protojson, multiline).
func grpcurl(t testing.TB, m proto.Message) []byte {
	t.Helper()
	b, err := protojson.MarshalOptions{Multiline: true, Indent: "  "}.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// receiptsReply is the GetReceipts reply for every record of g.
func receiptsReply(t testing.TB, a *receipttest.Appliance, g *receipttest.Game) []byte {
	t.Helper()
	var rs []*qodv1.Receipt
	for k := range g.Indices {
		rs = append(rs, pbReceipt(t, a.Receipt(g, k, true)))
	}
	return grpcurl(t, &qodv1.GetReceiptsResponse{Receipts: rs})
}

// formatFails: the document is unreadable input, saying why.
func formatFails(t *testing.T, name string, v *verdict.Verdict, want string) {
	t.Helper()
	c := v.First()
	if v.Status() != verdict.StatusFail || c == nil || c.Name != verdict.CheckFormat || !strings.Contains(c.Detail, want) {
		t.Errorf("%s: want format to fail with %q:\n%s", name, want, v.Text("en"))
	}
}

// TestTranscriptReply: rngd's GetTranscript reply as grpcurl prints it
// ({"document": "<base64>"}) verifies as the transcript it carries; the
// reply is that one member, strictly, and its document is read by the
// transcript's own strict parser. Before, it was refused: json: unknown
// field "document".
func TestTranscriptReply(t *testing.T) {
	a := appliance(t, 91)
	g := play(t, a, receipttest.Play{Game: "g-reply"})
	file := a.Transcript(g, receipttest.TranscriptOptions{})
	reply := grpcurl(t, &qodv1.GetTranscriptResponse{Document: file})
	if receipt.Detect(reply) != receipt.DocTranscript {
		t.Fatalf("reply not detected as a transcript:\n%s", reply)
	}
	v, w := receipt.VerifyTranscript(reply, keyed(t, a)), receipt.VerifyTranscript(file, keyed(t, a))
	expect(t, v, verdict.StatusPass, "")
	if !hasCheck(v, verdict.CheckFormat, verdict.StatusPass, verdict.MsgFromTranscriptReply) {
		t.Errorf("the format check does not say where the transcript came from:\n%s", v.Text("en"))
	}
	got, _ := json.Marshal(v.Checks[1:])
	want, _ := json.Marshal(w.Checks[1:])
	if !bytes.Equal(got, want) || v.Subject != w.Subject {
		t.Errorf("the reply verifies unlike its document:\n%s\n---\n%s", v.Text("en"), w.Text("en"))
	}

	b64 := base64.StdEncoding.EncodeToString
	wrap := func(doc []byte) []byte { return []byte(`{"document": "` + b64(doc) + `"}`) }
	var tr receipt.Transcript
	if err := json.Unmarshal(file, &tr); err != nil {
		t.Fatal(err)
	}
	tr.V = 2
	v2 := receipt.Marshal(&tr)
	for _, c := range []struct {
		name string
		b    []byte
		want string
	}{
		{"another member", []byte(`{"document": "` + b64(file) + `", "x": 1}`), `not a transcript: json: unknown field "document"`},
		{"trailing bytes", append(append([]byte{}, reply...), " x"...), "not a transcript (GetTranscript reply, protobuf JSON): trailing data after the document"},
		{"trailing object", append(append([]byte{}, reply...), "{}"...), "trailing data after the document"},
		{"not base64", []byte(`{"document": "!!!!"}`), "base64"},
		{"empty", []byte(`{"document": ""}`), `the reply carries no document (field "document")`},
		{"null", []byte(`{"document": null}`), `the reply carries no document`},
		{"not bytes", []byte(`{"document": 12}`), "cannot unmarshal number"},
		{"other case", []byte(`{"Document": "` + b64(file) + `"}`), `not a transcript: json: unknown field "Document"`},
		{"a receipt inside", wrap(a.Receipt(g, 1, true)), `not a transcript (GetTranscript reply, protobuf JSON): document: json: unknown field "index"`},
		{"a reply inside", wrap(reply), `document: json: unknown field "document"`},
		{"document trailing", wrap(append(append([]byte{}, file...), "]"...)), "document: trailing data after the document"},
		{"document version", wrap(v2), `document: version 2 type "tirage/transcript", want 1 "tirage/transcript"`},
	} {
		formatFails(t, c.name, receipt.VerifyTranscript(c.b, keyed(t, a)), c.want)
	}
	// In French, the field named.
	v = receipt.VerifyTranscript(wrap([]byte(`{"zz": 1}`)), keyed(t, a))
	if r := v.Checks[0].Reason("fr"); r != "ce n'est pas une transcription de partie (réponse GetTranscript, JSON protobuf) : document : champ JSON « zz » inconnu" {
		t.Errorf("French: %q", r)
	}
}

// TestReceiptsReply: rngd's GetReceipts reply as grpcurl prints it
// ({"receipts": […]}) has every receipt verified, each into a part of the
// verdict, which passes only if each does; a failing or misbehaving
// receipt is named. Before, it was refused: json: unknown field
// "receipts".
func TestReceiptsReply(t *testing.T) {
	a := appliance(t, 92)
	g := play(t, a, receipttest.Play{Game: "g-replies"})
	reply := receiptsReply(t, a, g)
	if receipt.Detect(reply) != receipt.DocReceipt {
		t.Fatalf("reply not detected as receipts:\n%s", reply)
	}
	v := receipt.VerifyReceipt(reply, keyed(t, a))
	expect(t, v, verdict.StatusPass, "")
	n := len(g.Indices)
	if len(v.Parts) != n || len(v.Checks) != n+1 || !strings.Contains(v.Subject, "GetReceipts reply") {
		t.Fatalf("%d parts, %d checks, want %d, %d:\n%s", len(v.Parts), len(v.Checks), n, n+1, v.Text("en"))
	}
	for k, p := range v.Parts {
		one := receipt.VerifyReceipt(a.Receipt(g, k, true), keyed(t, a))
		got, _ := json.Marshal(p.Checks)
		want, _ := json.Marshal(one.Checks)
		if !bytes.Equal(got, want) {
			t.Errorf("receipt %d verifies unlike its file:\n%s\n---\n%s", k, p.Text("en"), one.Text("en"))
		}
		if c := v.Checks[k+1]; c.Name != verdict.CheckReceipt || c.Status != verdict.StatusPass || !strings.HasPrefix(c.Detail, one.Subject) {
			t.Errorf("check %d: %+v", k+1, c)
		}
	}
	var j struct {
		Verdict string
		Parts   []struct{ Verdict, Subject string }
	}
	if err := json.Unmarshal(v.JSON(), &j); err != nil || j.Verdict != "pass" || len(j.Parts) != n || !strings.HasSuffix(j.Parts[1].Subject, "(2 of "+itoa(n)+")") {
		t.Errorf("JSON: %v %+v", err, j)
	}

	// One receipt edited (its record no longer the logged one): the reply
	// is not verified, that receipt named; the others pass.
	var rs qodv1.GetReceiptsResponse
	if err := protojson.Unmarshal(reply, &rs); err != nil {
		t.Fatal(err)
	}
	r := rs.Receipts[2]
	r.Record = bytes.Replace(r.Record, []byte(`"time":"`), []byte(`"time":"1`), 1)
	h := record.LeafHash(r.Record)
	r.LeafHash = h[:]
	v = receipt.VerifyReceipt(grpcurl(t, &rs), keyed(t, a))
	expect(t, v, verdict.StatusFail, verdict.CheckReceipt)
	if c := v.First(); !strings.Contains(c.Detail, "(3 of "+itoa(n)+"): NOT VERIFIED, check record") || v.Parts[0].Status() != verdict.StatusPass || v.Parts[2].Status() != verdict.StatusFail {
		t.Errorf("edited receipt 3:\n%s", v.Text("en"))
	}
	// A cheating appliance's receipts: misbehaviour, named.
	c := play(t, a, receipttest.Play{Game: "g-cheat", Cheat: receipttest.Cheat{SwapOutcome: 1}})
	v = receipt.VerifyReceipt(receiptsReply(t, a, c), keyed(t, a))
	expect(t, v, verdict.StatusMisbehaviour, verdict.CheckReceipt)
	if f := v.First(); !strings.Contains(f.Detail, "MISBEHAVIOUR PROVEN, check outcome") || !strings.Contains(f.Reason("fr"), "MANQUEMENT PROUVÉ, vérification outcome") {
		t.Errorf("cheating receipts:\n%s", v.Text("en"))
	}

	// The reply is that one member, strictly; each receipt as strict as one.
	one := protojsonReceipt(t, a.Receipt(g, 1, true))
	badLeaf := bytes.Replace(one, []byte(`"leafHash":"`), []byte(`"leafHash":"AAAA`), 1)
	for _, c := range []struct {
		name string
		b    string
		want string
	}{
		{"no receipt", `{"receipts": []}`, `not a receipt (GetReceipts reply, protobuf JSON): the reply carries no receipt (field "receipts")`},
		{"null receipt", `{"receipts": [` + string(one) + `, null]}`, "receipts[1]: null is not a receipt"},
		{"unknown field", `{"receipts": [` + string(one[:len(one)-1]) + `, "zz": 1}]}`, `receipts[0]: json: unknown field "zz"`},
		{"leaf hash", `{"receipts": [` + string(one) + `, ` + string(badLeaf) + `]}`, "receipts[1]: "},
		{"a receipt file", `{"receipts": [` + string(a.Receipt(g, 1, true)) + `]}`, `receipts[0]: json: unknown field "v"`},
		{"not a list", `{"receipts": {}}`, "cannot unmarshal object"},
		{"trailing bytes", string(reply) + "x", "trailing data after the document"},
		{"another member", `{"receipts": [` + string(one) + `], "x": 1}`, `unknown field "receipts"`},
	} {
		formatFails(t, c.name, receipt.VerifyReceipt([]byte(c.b), keyed(t, a)), c.want)
	}
}

// protojsonReceipt is one receipt file as the daemon's protojson Receipt.
func protojsonReceipt(t testing.TB, file []byte) []byte {
	t.Helper()
	b, err := protojson.Marshal(pbReceipt(t, file))
	if err != nil {
		t.Fatal(err)
	}
	var c bytes.Buffer
	if err := json.Compact(&c, b); err != nil {
		t.Fatal(err)
	}
	return c.Bytes()
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// TestDaemonReplyFixtures: the replies kept in ../cli/testdata/rngd are
// what rngd's API types give: protojson reads them back (unknown fields
// refused) as a GetTranscriptResponse carrying the daemon's transcript file,
// and a GetReceiptsResponse with one receipt per record of that game, in
// order; ReceiptsFromReply reads the same.
func TestDaemonReplyFixtures(t *testing.T) {
	const dir = "../cli/testdata/rngd/"
	read := func(name string) []byte {
		b, err := os.ReadFile(dir + name)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	file := read("transcript.json")
	var tr qodv1.GetTranscriptResponse
	if err := protojson.Unmarshal(read("transcript-reply.json"), &tr); err != nil || !bytes.Equal(tr.Document, file) {
		t.Fatalf("transcript-reply.json: %v", err)
	}
	if doc, err := receipt.TranscriptFromReply(read("transcript-reply.json")); err != nil || !bytes.Equal(doc, file) {
		t.Fatalf("TranscriptFromReply: %v", err)
	}
	var t0 receipt.Transcript
	if err := json.Unmarshal(file, &t0); err != nil {
		t.Fatal(err)
	}
	var rs qodv1.GetReceiptsResponse
	if err := protojson.Unmarshal(read("receipts-reply.json"), &rs); err != nil || len(rs.Receipts) != len(t0.Records) {
		t.Fatalf("receipts-reply.json: %v, %d receipts", err, len(rs.Receipts))
	}
	rcs, err := receipt.ReceiptsFromReply(read("receipts-reply.json"))
	if err != nil || len(rcs) != len(t0.Records) {
		t.Fatalf("ReceiptsFromReply: %v", err)
	}
	for i, r := range rs.Receipts {
		if l := t0.Records[i]; string(r.Record) != l.Record || r.LogIndex != l.Index || rcs[i].Record != l.Record || rcs[i].Index != l.Index {
			t.Errorf("receipt %d is not record %d of the transcript", i, i)
		}
	}
}

// TestReceiptsReplyOneGame: a GetReceipts reply is one game's receipts,
// each once, in log order, and says which game; a reply mixing games,
// repeating a receipt or out of order is refused (format), though each
// receipt in it is sound. Before, such replies passed as "GetReceipts
// reply, 3 receipt(s)". A reply proves each receipt, not that the game's
// are all there: the format check says so.
func TestReceiptsReplyOneGame(t *testing.T) {
	a := appliance(t, 93)
	g1 := play(t, a, receipttest.Play{Game: "g-one"})
	g2 := play(t, a, receipttest.Play{Game: "g-two"})
	pb := func(g *receipttest.Game, k int) *qodv1.Receipt { return pbReceipt(t, a.Receipt(g, k, true)) }
	reply := func(rs ...*qodv1.Receipt) []byte { return grpcurl(t, &qodv1.GetReceiptsResponse{Receipts: rs}) }
	if _, err := a.PromoDrawWith("p", 5, receipttest.PromoCheat{}); err != nil {
		t.Fatal(err)
	}
	promoReceipt := pbReceipt(t, a.PromoReceipt(&receipttest.Promo{Draw: uint64(a.Size() - 1)}, false))

	// The whole game, in order: passes, naming the game.
	v := receipt.VerifyReceipt(reply(pb(g2, 0), pb(g2, 1), pb(g2, 2)), keyed(t, a))
	expect(t, v, verdict.StatusPass, "")
	if v.Subject != "GetReceipts reply for game g-two, 3 receipt(s)" || v.SubjectText("fr") != "réponse GetReceipts pour la partie g-two, 3 reçu(s)" {
		t.Errorf("subject %q / %q", v.Subject, v.SubjectText("fr"))
	}
	if c := v.Find(verdict.CheckFormat); c == nil || !strings.Contains(c.Detail, "that none is missing takes the game's transcript (rngverify game)") ||
		!strings.Contains(c.Reason("fr"), "qu'il n'en manque aucun, seule la transcription de la partie le montre (rngverify game)") {
		t.Errorf("the format check does not say what a reply does not show:\n%s", v.Text("en"))
	}
	for _, c := range []struct {
		name     string
		b        []byte
		want, fr string
	}{
		{"two games, a receipt twice", reply(pb(g1, 0), pb(g2, 1), pb(g2, 1)),
			`receipts of several games: receipts[1] is of game "g-two", receipts[0] of game "g-one"`,
			"reçus de plusieurs parties : receipts[1] est de la partie « g-two », receipts[0] de la partie « g-one »"},
		{"a receipt twice", reply(pb(g2, 0), pb(g2, 1), pb(g2, 1)),
			"receipt repeated or out of order: receipts[2] is at log index " + itoa(int(g2.Indices[1])) + ", receipts[1] at log index " + itoa(int(g2.Indices[1])),
			"reçu répété ou dans le désordre : receipts[2]"},
		{"out of order", reply(pb(g2, 1), pb(g2, 0)),
			"receipt repeated or out of order: receipts[1] is at log index " + itoa(int(g2.Indices[0])) + ", receipts[0] at log index " + itoa(int(g2.Indices[1])),
			"dans le désordre"},
		{"a promotion draw", reply(pb(g2, 0), promoReceipt), "receipts[1]: a promo_draw record is no game's receipt",
			"receipts[1] : un enregistrement « tirage promotionnel » n'est le reçu d'aucune partie"},
	} {
		v := receipt.VerifyReceipt(c.b, keyed(t, a))
		formatFails(t, c.name, v, "not a receipt (GetReceipts reply, protobuf JSON): "+c.want)
		if f := v.First(); len(v.Parts) != 0 || f == nil || !strings.Contains(f.Reason("fr"), c.fr) {
			t.Errorf("%s: %d parts; French:\n%s", c.name, len(v.Parts), v.Text("fr"))
		}
	}
}

// TestRepeatedMembers: a member given twice is refused wherever JSON is
// read strictly — the reply's one member, a receipt in a reply, a receipt
// file, a transcript, the transcript a reply carries. encoding/json keeps
// the last without a word, so {"receipts":[null],"receipts":[…]} passed,
// though the docs promise "exactly that one member", and a file could say
// one thing to its reader and another to the verifier. Names are
// compared as encoding/json matches them to fields: case folded.
func TestRepeatedMembers(t *testing.T) {
	a := appliance(t, 94)
	g := play(t, a, receipttest.Play{Game: "g-dup"})
	one := protojsonReceipt(t, a.Receipt(g, 1, true))
	other := protojsonReceipt(t, a.Receipt(g, 2, true))
	file := a.Receipt(g, 1, true)
	tr := a.Transcript(g, receipttest.TranscriptOptions{})
	// first prepends a member to a JSON object.
	first := func(member string, obj []byte) []byte {
		return append([]byte("{"+member+","), bytes.TrimLeft(obj, " \n")[1:]...)
	}
	b64 := base64.StdEncoding.EncodeToString
	for _, c := range []struct {
		name     string
		b        []byte
		verify   func([]byte, receipt.Anchors) *verdict.Verdict
		want, fr string
	}{
		{"the reply's member twice", []byte(`{"receipts": [null], "receipts": [` + string(one) + `]}`), receipt.VerifyReceipt,
			`not a receipt (GetReceipts reply, protobuf JSON): member "receipts" given 2 times, want it once`, "membre « receipts » donné 2 fois"},
		{"the reply's member twice, both good", []byte(`{"receipts": [` + string(one) + `], "receipts": [` + string(one) + `]}`), receipt.VerifyReceipt,
			`member "receipts" given 2 times, want it once`, "attendu une seule fois"},
		{"a reply receipt's member twice", []byte(`{"receipts": [` + string(first(`"record": "`+b64([]byte("{}"))+`"`, one)) + `]}`), receipt.VerifyReceipt,
			`member "record" given twice in receipts[0]`, "membre « record » donné deux fois dans receipts[0]"},
		{"nested deeper", []byte(`{"receipts": [` + string(one) + `, ` + string(first(`"inclusionProof": []`, other)) + `]}`), receipt.VerifyReceipt,
			`member "inclusionProof" given twice in receipts[1]`, "receipts[1]"},
		{"one protobuf receipt", first(`"logIndex": "0"`, one), receipt.VerifyReceipt,
			`not a receipt (protobuf JSON): member "logIndex" given twice in the document`, "membre « logIndex » donné deux fois dans le document"},
		{"a receipt file", first(`"index": 0`, file), receipt.VerifyReceipt,
			`not a receipt: member "index" given twice in the document`, "le document"},
		{"a receipt file, another case", first(`"Index": 0`, file), receipt.VerifyReceipt, // encoding/json fills index with both
			`not a receipt: member "index" given twice in the document`, "le document"},
		{"a transcript", first(`"game": "g-other"`, tr), receipt.VerifyTranscript,
			`not a transcript: member "game" given twice in the document`, "membre « game » donné deux fois"},
		{"the transcript reply's member twice", []byte(`{"document": "` + b64([]byte("{}")) + `", "document": "` + b64(tr) + `"}`), receipt.VerifyTranscript,
			`member "document" given 2 times, want it once`, "membre « document » donné 2 fois"},
		{"a transcript in a reply", []byte(`{"document": "` + b64(first(`"game": "g-other"`, tr)) + `"}`), receipt.VerifyTranscript,
			`document: member "game" given twice in the document`, "membre « game » donné deux fois"},
	} {
		v := c.verify(c.b, keyed(t, a))
		formatFails(t, c.name, v, c.want)
		if r := v.First(); r == nil || !strings.Contains(r.Reason("fr"), c.fr) {
			t.Errorf("%s: French:\n%s", c.name, v.Text("fr"))
		}
	}
	// The same member in two objects is no repetition.
	ok := []byte(`{"receipts": [` + string(one) + `, ` + string(other) + `]}`)
	expect(t, receipt.VerifyReceipt(ok, keyed(t, a)), verdict.StatusPass, "")
}

// TestReceiptDrawFieldsAreRecords: a protobuf receipt's vrfProof and
// vrfOutput, which rngd fills with the record's proof and β, must be them.
// The verdict checks the logged record's; before, a receipt whose vrfOutput
// (the β a player reads, rngdemo prints) or vrfProof was edited passed,
// exit 0, with values nothing verified.
func TestReceiptDrawFieldsAreRecords(t *testing.T) {
	a := appliance(t, 93)
	g := play(t, a, receipttest.Play{Game: "g-drawfields"})
	for k := range g.Indices {
		pb := pbReceipt(t, a.Receipt(g, k, true))
		rec, err := record.Parse(pb.Record)
		if err != nil {
			t.Fatal(err)
		}
		var proof, beta []byte
		switch r := rec.(type) {
		case *record.GameStart:
			proof, beta = r.Proof, r.Beta
		case *record.Pick:
			proof, beta = r.Proof, r.Beta
		}
		reply := func(pb *qodv1.Receipt) []byte {
			return grpcurl(t, &qodv1.GetReceiptsResponse{Receipts: []*qodv1.Receipt{pb}})
		}
		flip := func(b []byte) []byte {
			b = bytes.Clone(b)
			b[len(b)/2] ^= 1
			return b
		}
		if proof == nil {
			// A record that draws nothing: a receipt showing a draw is refused.
			pb.VrfOutput = make([]byte, 32)
			formatFails(t, string(rec.Kind()), receipt.VerifyReceipt(reply(pb), keyed(t, a)), "receipts[0]: vrfOutput is not the record's beta")
			continue
		}
		pb.VrfProof, pb.VrfOutput = proof, beta
		expect(t, receipt.VerifyReceipt(reply(pb), keyed(t, a)), verdict.StatusPass, "")
		good := proto.Clone(pb).(*qodv1.Receipt)
		pb.VrfProof = flip(proof)
		v := receipt.VerifyReceipt(reply(pb), keyed(t, a))
		formatFails(t, "vrfProof", v, "receipts[0]: vrfProof is not the record's proof: the receipt shows another value than the logged record it proves")
		if c := v.First(); c == nil || !strings.Contains(c.Reason("fr"), "vrfProof n'est pas le champ proof de l'enregistrement") {
			t.Errorf("vrfProof edited, in French:\n%s", v.Text("fr"))
		}
		pb = good
		pb.VrfOutput = flip(beta)
		formatFails(t, "vrfOutput", receipt.VerifyReceipt(reply(pb), keyed(t, a)), "receipts[0]: vrfOutput is not the record's beta")
	}
}
