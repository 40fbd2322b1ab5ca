// Package verdict is the outcome of a verification: a list of named checks,
// each passed, failed, skipped or failed as proof of misbehaviour, and their
// rendering for people (French or English) and machines (JSON).
//
// # Classes of failure
//
// A check fails in one of two ways, and the two are never mixed:
//
//   - StatusFail: the verifier could not establish the claim — a key nobody
//     told it to trust, a checkpoint signed by an unknown key, a missing
//     inclusion proof, an unreadable field. Nothing is proven either way:
//     get the right key or a fresher file and check again.
//   - StatusMisbehaviour: the material contradicts itself or the rules in a
//     way only its producer can have caused — a VRF proof that does not
//     verify under the appliance's key, an outcome that is not the one β
//     gives, a dropped or reordered record in a game's hash chain, an r that
//     does not open its commitment, two checkpoints of one size with
//     different roots (a forked log). Keep the files: they are evidence.
//
// Errors follow the same split: [Verdict.Err] returns nil when every check
// passed, an error wrapping [ErrMisbehaviour] when one check proves
// misbehaviour, and an error wrapping [ErrFailed] otherwise; both are
// [*CheckError] naming the first check that failed.
//
// # Languages
//
// Everything a verdict says to people — the reason after each check, the
// subject, the facts — is kept in language-neutral form, a [Msg]: an id of
// the message catalog (messages.go, one English and one French template per
// id) and its arguments, rendered by [Msg.Text] in French or English.
// Check.Detail, Verdict.Subject and Fact.Name/Value hold the English
// rendering, the text scripts have always read; [Verdict.Text],
// [Verdict.Summary], [Check.Reason] and [Fact.Text] render in the language
// asked for, and [Verdict.JSON] carries the ids and arguments beside the
// English. Check titles and explanations are in names.go, the words that
// messages take as arguments (record kinds, outcomes …) in vocabulary.go.
//
// The package does no I/O.
package verdict

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Status is the result of one check.
type Status string

// The statuses.
const (
	StatusPass         Status = "pass"
	StatusFail         Status = "fail"
	StatusMisbehaviour Status = "misbehaviour"
	StatusSkip         Status = "skip" // not applicable, or not checkable from this material (Detail says why)
)

// Sentinels wrapped by [Verdict.Err].
var (
	// ErrMisbehaviour: the material proves that its producer (the appliance
	// or the log) broke its promises, or that the file was tampered with.
	// Report it; do not retry.
	ErrMisbehaviour = errors.New("misbehaviour")
	// ErrFailed: a check could not be passed (untrusted key, missing
	// proof, …). Nothing is proven; fix the input and check again.
	ErrFailed = errors.New("verification failed")
)

// Check is one named check and its result.
type Check struct {
	// Name identifies the check (see the catalog in names.go), e.g. "vrf-proofs".
	Name string `json:"check"`
	// Status is the result.
	Status Status `json:"status"`
	// Detail is a one-line technical reason in English, naming the item:
	// "pick 7: the proof does not verify under key vrf-…". Empty on a plain
	// pass. It is Message rendered in English.
	Detail string `json:"detail,omitempty"`
	// Message is the reason in language-neutral form (see [Msg]); render it
	// with [Check.Reason].
	Message *Msg `json:"message,omitempty"`
}

// Reason is the check's one-line reason in lang ("fr" or "en").
func (c Check) Reason(lang string) string {
	if c.Message != nil {
		return c.Message.Text(lang)
	}
	return c.Detail
}

// Set sets the check's result and reason.
func (c *Check) Set(s Status, m Msg) {
	c.Status, c.Detail, c.Message = s, m.Text("en"), nil
	if m.ID != NoDetail {
		c.Message = &m
	}
}

// Verdict is the list of checks run on one piece of material.
type Verdict struct {
	// Subject says what was verified, e.g. "game g-42 (9 records)", in
	// English: SubjectMsg rendered in English (see [Verdict.SetSubject]).
	Subject    string `json:"subject"`
	SubjectMsg *Msg   `json:"subject_message,omitempty"`
	// Kind is the kind of material: receipt, transcript, certificate, log, audit.
	Kind   string  `json:"kind"`
	Checks []Check `json:"checks"`
	// Facts are what a successful verification established, as name/value
	// lines (tree size, key fingerprints, β, outcome …).
	Facts []Fact `json:"facts,omitempty"`
	// Parts are the verdicts on the documents the material is made of (the
	// receipts of a GetReceipts reply), each summed up by one check of this
	// verdict ([Verdict.Part]); Text and JSON show them before it.
	Parts []*Verdict `json:"-"`
}

// Fact is one labelled value of a verdict. Name and Value are in English;
// Label and Message are their language-neutral forms.
type Fact struct {
	Name    string `json:"name"`
	Value   string `json:"value"`
	Label   *Msg   `json:"label,omitempty"`
	Message *Msg   `json:"message,omitempty"`
}

// Text is the fact's name and value in lang.
func (f Fact) Text(lang string) (name, value string) {
	name, value = f.Name, f.Value
	if f.Label != nil {
		name = f.Label.Text(lang)
	}
	if f.Message != nil {
		value = f.Message.Text(lang)
	}
	return name, value
}

// New returns an empty verdict on the subject id(args…).
func New(kind string, id MsgID, args ...any) *Verdict {
	v := &Verdict{Kind: kind}
	v.SetSubject(id, args...)
	return v
}

// SetSubject says what was verified.
func (v *Verdict) SetSubject(id MsgID, args ...any) {
	m := M(id, args...)
	v.Subject, v.SubjectMsg = m.Text("en"), &m
}

// SubjectText is the subject in lang.
func (v *Verdict) SubjectText(lang string) string {
	if v.SubjectMsg != nil {
		return v.SubjectMsg.Text(lang)
	}
	return v.Subject
}

// Pass records a passed check, with the reason id(args…) (NoDetail: none).
func (v *Verdict) Pass(name string, id MsgID, args ...any) {
	v.add(name, StatusPass, M(id, args...))
}

// Fail records a failed check (ordinary class).
func (v *Verdict) Fail(name string, id MsgID, args ...any) {
	v.add(name, StatusFail, M(id, args...))
}

// Misbehaviour records a check that proves misbehaviour.
func (v *Verdict) Misbehaviour(name string, id MsgID, args ...any) {
	v.add(name, StatusMisbehaviour, M(id, args...))
}

// Skip records a check that does not apply or cannot run on this material.
func (v *Verdict) Skip(name string, id MsgID, args ...any) {
	v.add(name, StatusSkip, M(id, args...))
}

// Fact records an established fact: its name (a Term of the vocabulary)
// and its value id(args…).
func (v *Verdict) Fact(name Term, id MsgID, args ...any) {
	v.FactNamed(M(MsgSame, name), id, args...)
}

// FactNamed records an established fact whose name is a message
// ("reserve 2").
func (v *Verdict) FactNamed(name Msg, id MsgID, args ...any) {
	m := M(id, args...)
	v.Facts = append(v.Facts, Fact{Name: name.Text("en"), Value: m.Text("en"), Label: &name, Message: &m})
}

// Part adds p, the verdict on one document of the material, to v.Parts,
// and sums it up as v's check name: p's status, with p's subject and, when
// p does not pass, the check that decided it and its reason. So v fails
// when any part fails, and proves misbehaviour when any part does.
func (v *Verdict) Part(name string, p *Verdict) {
	v.Parts = append(v.Parts, p)
	subject := M(MsgSame, p.Subject)
	if p.SubjectMsg != nil {
		subject = *p.SubjectMsg
	}
	c := p.First()
	switch s := p.Status(); {
	case s == StatusPass:
		v.Pass(name, MsgPartPassed, subject)
	case c == nil:
		v.Fail(name, MsgPartEmpty, subject)
	default:
		reason := M(MsgSame, c.Detail)
		if c.Message != nil {
			reason = *c.Message
		}
		if s == StatusMisbehaviour {
			v.Misbehaviour(name, MsgPartMisbehaviour, subject, c.Name, reason)
		} else {
			v.Fail(name, MsgPartFailed, subject, c.Name, reason)
		}
	}
}

// Set sets the result of check name, adding the check if it did not run.
func (v *Verdict) Set(name string, s Status, id MsgID, args ...any) {
	c := v.Find(name)
	if c == nil {
		v.Checks = append(v.Checks, Check{Name: name})
		c = &v.Checks[len(v.Checks)-1]
	}
	c.Set(s, M(id, args...))
}

func (v *Verdict) add(name string, s Status, m Msg) {
	c := Check{Name: name}
	c.Set(s, m)
	v.Checks = append(v.Checks, c)
}

// Status is the overall result: misbehaviour if any check proves it, else
// fail if any check failed, else pass (skipped checks do not fail a verdict).
func (v *Verdict) Status() Status {
	out := StatusPass
	for _, c := range v.Checks {
		switch c.Status {
		case StatusMisbehaviour:
			return StatusMisbehaviour
		case StatusFail:
			out = StatusFail
		}
	}
	if len(v.Checks) == 0 {
		return StatusFail
	}
	return out
}

// Find returns the check named name, or nil.
func (v *Verdict) Find(name string) *Check {
	for i := range v.Checks {
		if v.Checks[i].Name == name {
			return &v.Checks[i]
		}
	}
	return nil
}

// First returns the first check with the verdict's overall status
// (misbehaviour before ordinary failures), or nil when the verdict passes.
func (v *Verdict) First() *Check {
	s := v.Status()
	if s == StatusPass {
		return nil
	}
	for i := range v.Checks {
		if v.Checks[i].Status == s {
			return &v.Checks[i]
		}
	}
	return nil
}

// CheckError is the error form of a failed verdict: the first failing
// check. It wraps ErrMisbehaviour or ErrFailed.
type CheckError struct {
	Check  string
	Detail string // in English
	// Message is Detail in language-neutral form (nil when there is none).
	Message *Msg
	class   error
}

func (e *CheckError) Error() string {
	return fmt.Sprintf("%s: %s: %s", e.class, e.Check, e.Detail)
}

// Unwrap returns ErrMisbehaviour or ErrFailed.
func (e *CheckError) Unwrap() error { return e.class }

// Err returns nil when the verdict passes, else a *CheckError for its first
// failing check.
func (v *Verdict) Err() error {
	c := v.First()
	if c == nil {
		if len(v.Checks) == 0 {
			return &CheckError{Check: "none", Detail: "no check ran", class: ErrFailed}
		}
		return nil
	}
	class := ErrFailed
	if c.Status == StatusMisbehaviour {
		class = ErrMisbehaviour
	}
	return &CheckError{Check: c.Name, Detail: c.Detail, Message: c.Message, class: class}
}

// jsonVerdict is the --json form: the verdict plus its overall status.
type jsonVerdict struct {
	Verdict    Status  `json:"verdict"`
	Kind       string  `json:"kind"`
	Subject    string  `json:"subject"`
	SubjectMsg *Msg    `json:"subject_message,omitempty"`
	Summary    string  `json:"summary"`
	Checks     []Check `json:"checks"`
	Facts      []Fact  `json:"facts,omitempty"`
	// Parts are the verdicts on the material's documents (Verdict.Parts).
	Parts []jsonVerdict `json:"parts,omitempty"`
}

func (v *Verdict) jsonVerdict() jsonVerdict {
	j := jsonVerdict{Verdict: v.Status(), Kind: v.Kind, Subject: v.Subject, SubjectMsg: v.SubjectMsg,
		Summary: v.Summary("en"), Checks: v.Checks, Facts: v.Facts}
	for _, p := range v.Parts {
		j.Parts = append(j.Parts, p.jsonVerdict())
	}
	return j
}

// JSON is the machine-readable verdict, in English whatever the language
// asked for: {"verdict":"pass|fail|misbehaviour", "kind":…, "subject":…,
// "subject_message":{"id":…,"args":[…]}, "summary":…,
// "checks":[{"check":…,"status":…,"detail":…,"message":{"id":…,"args":[…]}}],
// "facts":[{"name":…,"value":…,"label":…,"message":{…}}]}. The message
// objects are the language-neutral forms of the English texts beside them
// (ids in messages.go). A verdict made of parts (a GetReceipts reply)
// adds "parts": [{…}, …], each part's verdict in the same form.
func (v *Verdict) JSON() []byte {
	b, err := json.MarshalIndent(v.jsonVerdict(), "", "  ")
	if err != nil {
		panic("verdict: " + err.Error())
	}
	return append(b, '\n')
}

// Text renders the verdict for people in lang ("fr" or "en"; anything else
// is English): one line per check with its title, status and detail, the
// established facts, and a closing line that says pass, fail, or
// misbehaviour in words nobody can mistake. The verdicts of its parts, if
// any, come first, each followed by a blank line.
func (v *Verdict) Text(lang string) string {
	l := language(lang)
	var b strings.Builder
	for _, p := range v.Parts {
		b.WriteString(p.Text(lang))
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "%s%s\n", l.word("subject"), v.SubjectText(lang))
	w := l.statusWidth(v.Checks)
	for _, c := range v.Checks {
		fmt.Fprintf(&b, "  %*s %-22s %s", w, "["+l.word(string(c.Status))+"]", c.Name, Title(c.Name, lang))
		if r := c.Reason(lang); r != "" {
			fmt.Fprintf(&b, " — %s", r)
		}
		b.WriteString("\n")
	}
	for _, f := range v.Facts {
		n, val := f.Text(lang)
		fmt.Fprintf(&b, "  %s%s%s\n", n, l.word("colon"), val)
	}
	b.WriteString(v.Summary(lang))
	b.WriteString("\n")
	return b.String()
}

// statusWidth is the width, in runes, of the widest "[STATUS]" in l among
// checks: the statuses are right-aligned on it, so that the check column
// is aligned whatever the statuses (MISBEHAVIOUR, and French's OK, ÉCHEC,
// —), and a status stays next to its check's name. Only the statuses
// present count: a verdict of passes, failures and skips in English is
// laid out as it always was.
func (l language) statusWidth(checks []Check) int {
	w := 0
	for _, c := range checks {
		w = max(w, utf8.RuneCountInString(l.word(string(c.Status)))+2)
	}
	return w
}

// Summary is the verdict's one-line conclusion in lang.
func (v *Verdict) Summary(lang string) string {
	l := language(lang)
	c := v.First()
	switch v.Status() {
	case StatusPass:
		return l.word("verdict-pass")
	case StatusMisbehaviour:
		return fmt.Sprintf("%s %s%s%s", l.word("verdict-misbehaviour"), l.check(c.Name), l.word("colon"), c.Reason(lang))
	}
	if c == nil {
		return l.word("verdict-empty")
	}
	return fmt.Sprintf("%s %s%s%s", l.word("verdict-fail"), l.check(c.Name), l.word("colon"), c.Reason(lang))
}

// check names a check in a summary: «title» (name).
func (l language) check(name string) string {
	if t := Title(name, string(l)); t != name {
		if l == "fr" {
			return fmt.Sprintf("« %s » (%s)", t, name)
		}
		return fmt.Sprintf("«%s» (%s)", t, name)
	}
	return name
}
