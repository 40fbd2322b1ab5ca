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
	"errors"
	"strconv"
	"strings"

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
	var a receipt.Anchors
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
				v := verdict.New(receipt.DocEntrants, f.Name)
				v.Fail("entrant-list", "%s", err)
				out = append(out, Result{File: f.Name, Verdict: v})
				continue
			}
			lists[l.Draw] = l
		case receipt.DocReceipt, receipt.DocTranscript, receipt.DocCertificate:
			docs = append(docs, f)
		default:
			v := verdict.New("", f.Name)
			v.Fail(verdict.CheckFormat, "not a Tirage receipt, transcript, certificate, entrant list or log key file")
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
			v = Certificate(f.Data, lists, a)
		}
		out = append(out, Result{File: f.Name, Verdict: v})
	}
	return out
}

// certificateChecks are promo.Verify's checks in the order it runs them.
var certificateChecks = []string{
	promo.CheckFormat, promo.CheckCheckpoint, promo.CheckFreezeRecord, promo.CheckFreezeInclusion,
	promo.CheckDrawRecord, promo.CheckDrawInclusion, promo.CheckKeys, promo.CheckRules, promo.CheckLink,
	promo.CheckCommitment, promo.CheckShare, promo.CheckVRF, promo.CheckPicks, promo.CheckPickInclusion,
}

// certificateMisbehaviour: a failure of these checks is a contradiction
// inside authenticated material.
var certificateMisbehaviour = map[string]bool{
	promo.CheckLink: true, promo.CheckCommitment: true, promo.CheckVRF: true, promo.CheckPicks: true,
}

// Certificate verifies a promotion certificate (promo.Verify) as a verdict
// naming each of its checks; with the draw's entrant list in lists, the
// bailiff's checks too. The log keys must be anchored (a key file, or a
// pinned fingerprint of one of the certificate's keys).
func Certificate(file []byte, lists map[string]*promo.EntrantList, a receipt.Anchors) *verdict.Verdict {
	v := verdict.New(receipt.DocCertificate, "promotion certificate")
	var probe struct {
		Draw    string   `json:"draw"`
		LogKeys []string `json:"log_keys"`
	}
	json.Unmarshal(file, &probe)
	if probe.Draw != "" {
		v.Subject = "promotion draw " + probe.Draw
	}
	var logKeys []string
	for _, k := range a.LogKeys {
		logKeys = append(logKeys, k.Text)
	}
	for _, t := range probe.LogKeys {
		if k, err := checkpoint.ParseKey(t); err == nil {
			for _, p := range a.Pins {
				if p == k.Fingerprint() {
					logKeys = append(logKeys, t)
				}
			}
		}
	}
	anchors := promo.Anchors{LogKeys: logKeys, Reserves: -1}
	if len(logKeys) == 0 {
		// The other checks still run, with the certificate's own keys, so
		// that the user sees everything else; the verdict cannot pass.
		v.Fail(verdict.CheckLogKey, "no trusted log key: drop the log's key file or pin its fingerprint")
	} else {
		v.Pass(verdict.CheckLogKey, "%d key(s)", len(logKeys))
	}
	list := lists[probe.Draw]
	checks := certificateChecks
	if list != nil {
		checks = append(append([]string(nil), checks...), promo.CheckEntrantList, promo.CheckEntrantRoot)
	}
	res, err := promo.Verify(file, list, anchors)
	failed := ""
	var ce *promo.CheckError
	if errors.As(err, &ce) {
		failed = ce.Check
	} else if err != nil {
		failed = promo.CheckFormat
		ce = &promo.CheckError{Check: failed, Err: err}
	}
	reached := true
	for _, c := range checks {
		switch {
		case !reached:
			v.Skip(c, "not reached")
		case c == failed:
			reached = false
			if certificateMisbehaviour[c] {
				v.Misbehaviour(c, "%s", ce.Err)
			} else {
				v.Fail(c, "%s", ce.Err)
			}
		default:
			v.Pass(c, "")
		}
	}
	if list == nil {
		v.Skip(promo.CheckEntrantRoot, "no entrant list given: public checks only")
	}
	if res != nil {
		v.Fact("draw", "%s, %d entrants", res.Draw, res.Count)
		for i, p := range res.Picks {
			role := "winner"
			if p.Rank > 1 {
				role = "reserve " + strconv.Itoa(p.Rank-1)
			}
			acct := ""
			if res.Accounts != nil {
				acct = ", account " + res.Accounts[i]
			}
			v.Fact(role, "%s (entrant %d)%s", p.Pseudonym, p.Index+1, acct)
		}
		v.Fact("certificate fingerprint", "sha256:%s", promo.Fingerprint(file))
	}
	return v
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
	Facts   []verdict.Fact `json:"facts,omitempty"`
}

// Render encodes results for the page in lang ("fr" or "en").
func Render(results []Result, lang string) []byte {
	out := make([]pageResult, 0, len(results))
	for _, r := range results {
		v := r.Verdict
		p := pageResult{File: r.File, Kind: v.Kind, Subject: v.Subject, Verdict: string(v.Status()), Summary: v.Summary(lang), Facts: v.Facts}
		for _, c := range v.Checks {
			p.Checks = append(p.Checks, pageCheck{Name: c.Name, Status: string(c.Status), Title: verdict.Title(c.Name, lang),
				Explanation: verdict.Explanation(c.Name, lang), Detail: c.Detail})
		}
		out = append(out, p)
	}
	b, err := json.Marshal(out)
	if err != nil {
		panic("web: " + err.Error())
	}
	return b
}
