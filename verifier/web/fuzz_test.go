package web_test

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"

	"tirage.fr/tirage/verifier/verdict"
	"tirage.fr/tirage/verifier/web"
)

// FuzzVerify: whatever is dropped on the page — a document, a file given as
// a trusted key, pins, a rules file — gives results without panicking,
// which the page can render. A file dropped among the documents never adds
// trust, nor does a rules file: with no anchor and no pin nothing passes
// and nothing proves misbehaviour, and an anchor the page refuses trusts
// nothing either. Verify does not change the files it is given.
func FuzzVerify(f *testing.F) {
	b := newBundle(f, 23)
	rules := readFile(f, "../../examples/bonus-crescendo.yaml")
	for _, d := range [][]byte{b.receipt, b.transcript, b.vkey, b.unsigned, b.sealed, b.swapped} {
		f.Add(d, b.vkey, "", []byte(nil))
		f.Add(b.receipt, d, b.vrfPin, rules)
	}
	f.Add([]byte("tirage promotion entrants v1\n"), []byte("{}"), "12ab "+b.logPin, []byte("x: [\n"))
	f.Add(readFile(f, "../cli/testdata/promo-certificate.json"), b.vkey, "", rules)
	// A freeze receipt (its log key as the anchor) and an attestation (the
	// announcement as an anchor; among the documents, it trusts nothing).
	freeze, rc, _ := freezeFixture(f)
	f.Add(freeze, []byte(rc.LogKeys[0]+"\n"), "", []byte(nil))
	f.Add(readFile(f, freezeEntrantsFile), []byte(rc.LogKeys[0]+"\n"), "", []byte(nil))
	p := newPaytable(f, 3)
	f.Add(p.env, p.a.Announcement, "", []byte(nil))
	f.Add(p.a.Announcement, p.a.Announcement, "", []byte(nil))
	// An announcement anyone can make: among the documents it trusts
	// nothing, its own attestation key included.
	self := selfMadeAnnouncement(f)
	f.Add(self, self, "", []byte(nil))
	// rngd's replies as grpcurl prints them, and pins as rngctl does.
	for _, name := range []string{"transcript-reply.json", "receipts-reply.json"} {
		d, err := os.ReadFile("../cli/testdata/rngd/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(d, b.vkey, "SHA256:"+b.logPin, []byte(nil))
	}
	f.Fuzz(func(t *testing.T, doc, anchor []byte, pins string, rulesFile []byte) {
		// Dropped among the attacker's documents, nothing is trusted,
		// whatever the rules.
		docs := []web.File{{Name: "x", Data: doc}, {Name: "receipt.json", Data: b.receipt}, {Name: "game.json", Data: b.transcript}}
		var rules *web.File
		if rulesFile != nil {
			rules = &web.File{Name: "rules.yaml", Data: rulesFile}
		}
		for _, r := range web.Verify(docs, nil, "", rules) {
			if s := r.Verdict.Status(); s != verdict.StatusFail {
				t.Fatalf("%s with no anchor: %s\n%s", r.File, s, r.Verdict.Text("en"))
			}
			for _, c := range r.Verdict.Checks {
				if c.Status == verdict.StatusMisbehaviour {
					t.Fatalf("%s with no anchor: %s claims misbehaviour\n%s", r.File, c.Name, r.Verdict.Text("en"))
				}
			}
		}
		given := [][]byte{bytes.Clone(doc), bytes.Clone(anchor), bytes.Clone(rulesFile)}
		rs := web.Verify(docs, []web.File{{Name: "anchor", Data: anchor}}, pins, rules)
		// The page's engine keeps its copies of the files from one call to
		// the next (verifier/web/wasm): Verify must not change them.
		if !bytes.Equal(doc, given[0]) || !bytes.Equal(anchor, given[1]) || !bytes.Equal(rulesFile, given[2]) {
			t.Fatal("Verify changed the files it was given")
		}
		var page []json.RawMessage
		if err := json.Unmarshal(web.Render(rs, "fr"), &page); err != nil || len(page) != len(rs) {
			t.Fatalf("rendered page: %v", err)
		}
		refused := false
		for _, r := range rs {
			refused = refused || r.Note == web.NoteAnchorRefused
		}
		if !refused {
			return
		}
		// A refused anchor trusts nothing: the documents verify as without it.
		status := func(rs []web.Result) map[string]verdict.Status {
			m := map[string]verdict.Status{}
			for _, r := range rs {
				if r.Note != web.NoteAnchorRefused && r.Note != web.NotePinRefused {
					m[r.File] = r.Verdict.Status()
				}
			}
			return m
		}
		with, without := status(rs), status(web.Verify(docs, nil, pins, rules))
		for _, d := range docs {
			if with[d.Name] != without[d.Name] {
				t.Fatalf("%s: %s with the refused anchor, %s without", d.Name, with[d.Name], without[d.Name])
			}
		}
	})
}
