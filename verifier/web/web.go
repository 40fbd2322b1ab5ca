// Package web is the logic of rngverify's offline browser page: the files
// a user drops (receipts, transcripts, promotion certificates, entrant lists,
// log key files) are recognised, verified with the same core as the command
// line, and rendered as localized checks for the page to show. It does no
// I/O; verifier/web/wasm bridges it to JavaScript, and static/index.html is
// the page (scripts/wasm.sh assembles bin/verifier-web/).
//
// Trust on the page is what the user drops or types: a log key file (the
// text served at /log/vkey), the log's key announcement record (every key in
// it is pinned), or pinned fingerprints. A document is never
// trusted on its own word: without an anchor its log-key check fails.
package web

import (
	"bytes"
	"encoding/json"
	"strings"
	"time"

	"tirage.fr/tirage/verifier/checkpoint"
	"tirage.fr/tirage/verifier/promo"
	"tirage.fr/tirage/verifier/receipt"
	"tirage.fr/tirage/verifier/record"
	"tirage.fr/tirage/verifier/verdict"
)

// File is one dropped file.
type File struct {
	Name string
	Data []byte
}

// Result is one document's verdict.
type Result struct {
	File    string
	Verdict *verdict.Verdict
}

// Verify verifies every document among files with the anchors found among
// them (log key files) plus the pinned fingerprints (hex, separated by
// spaces, commas or newlines).
func Verify(files []File, pins string) []Result {
	// The game rules' time zone, as rngverify's default --tz (the page
	// embeds the zone database: time/tzdata in wasm).
	var a receipt.Anchors
	if loc, err := time.LoadLocation("Europe/Paris"); err == nil {
		a.Location = loc
	}
	for _, p := range strings.FieldsFunc(pins, func(r rune) bool { return r == ' ' || r == ',' || r == '\n' || r == '\t' || r == '\r' }) {
		a.Pins = append(a.Pins, strings.ToLower(p))
	}
	lists := map[string]*promo.EntrantList{}
	var docs []File
	var out []Result
	for _, f := range files {
		switch receipt.Detect(f.Data) {
		case receipt.DocLogKeys:
			keys, _ := checkpoint.ParseKeys(string(f.Data))
			a.LogKeys = append(a.LogKeys, keys...)
		case receipt.DocKeyRecord:
			// The operator's published key announcement: pin every key in it.
			r, _ := record.Parse(bytes.TrimSpace(f.Data))
			for _, k := range r.(*record.KeyAnnouncement).Keys {
				a.Pins = append(a.Pins, record.Hex(k.Fingerprint))
			}
		case receipt.DocEntrants:
			l, err := promo.ParseEntrantList(f.Data)
			if err != nil {
				v := verdict.New(receipt.DocEntrants, verdict.MsgSame, f.Name)
				v.Fail(promo.CheckEntrantList, verdict.MsgSame, receipt.Cause(err))
				out = append(out, Result{File: f.Name, Verdict: v})
				continue
			}
			lists[l.Draw] = l
		case receipt.DocReceipt, receipt.DocTranscript, receipt.DocCertificate:
			docs = append(docs, f)
		default:
			v := verdict.New("", verdict.MsgSame, f.Name)
			v.Fail(verdict.CheckFormat, verdict.MsgNotTirageFile)
			out = append(out, Result{File: f.Name, Verdict: v})
		}
	}
	for _, f := range docs {
		var v *verdict.Verdict
		switch receipt.Detect(f.Data) {
		case receipt.DocReceipt:
			v = receipt.VerifyReceipt(f.Data, a)
		case receipt.DocTranscript:
			v = receipt.VerifyTranscript(f.Data, a)
		default:
			v = receipt.VerifyCertificate(f.Data, lists, a)
		}
		out = append(out, Result{File: f.Name, Verdict: v})
	}
	return out
}

// pageCheck is one check as the page shows it.
type pageCheck struct {
	Name        string `json:"name"`
	Status      string `json:"status"`
	Title       string `json:"title"`
	Explanation string `json:"explanation"`
	Detail      string `json:"detail,omitempty"`
}

type pageResult struct {
	File    string         `json:"file"`
	Kind    string         `json:"kind"`
	Subject string         `json:"subject"`
	Verdict string         `json:"verdict"`
	Summary string         `json:"summary"`
	Checks  []pageCheck    `json:"checks"`
	Facts   []verdict.Fact `json:"facts,omitempty"` // localized name and value only
}

// Render encodes results for the page in lang ("fr" or "en").
func Render(results []Result, lang string) []byte {
	out := make([]pageResult, 0, len(results))
	for _, r := range results {
		v := r.Verdict
		p := pageResult{File: r.File, Kind: v.Kind, Subject: v.SubjectText(lang), Verdict: string(v.Status()), Summary: v.Summary(lang)}
		for _, c := range v.Checks {
			p.Checks = append(p.Checks, pageCheck{Name: c.Name, Status: string(c.Status), Title: verdict.Title(c.Name, lang),
				Explanation: verdict.Explanation(c.Name, lang), Detail: c.Reason(lang)})
		}
		for _, f := range v.Facts {
			name, value := f.Text(lang)
			p.Facts = append(p.Facts, verdict.Fact{Name: name, Value: value})
		}
		out = append(out, p)
	}
	b, err := json.Marshal(out)
	if err != nil {
		panic("web: " + err.Error())
	}
	return b
}
