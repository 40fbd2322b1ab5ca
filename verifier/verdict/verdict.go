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
// The package does no I/O.
package verdict

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
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
	// Detail is a one-line technical reason, naming the item: "pick 7: the
	// proof does not verify under key vrf-…". Empty on a plain pass.
	Detail string `json:"detail,omitempty"`
}

// Verdict is the list of checks run on one piece of material.
type Verdict struct {
	// Subject says what was verified, e.g. "game g-42 (9 records)".
	Subject string `json:"subject"`
	// Kind is the kind of material: receipt, transcript, certificate, log, audit.
	Kind   string  `json:"kind"`
	Checks []Check `json:"checks"`
	// Facts are what a successful verification established, as name/value
	// lines (tree size, key fingerprints, β, outcome …).
	Facts []Fact `json:"facts,omitempty"`
}

// Fact is one labelled value of a verdict.
type Fact struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// New returns an empty verdict.
func New(kind, subject string) *Verdict { return &Verdict{Kind: kind, Subject: subject} }

// Pass records a passed check.
func (v *Verdict) Pass(name, format string, args ...any) {
	v.add(name, StatusPass, format, args...)
}

// Fail records a failed check (ordinary class).
func (v *Verdict) Fail(name, format string, args ...any) {
	v.add(name, StatusFail, format, args...)
}

// Misbehaviour records a check that proves misbehaviour.
func (v *Verdict) Misbehaviour(name, format string, args ...any) {
	v.add(name, StatusMisbehaviour, format, args...)
}

// Skip records a check that does not apply or cannot run on this material.
func (v *Verdict) Skip(name, format string, args ...any) {
	v.add(name, StatusSkip, format, args...)
}

// Fact records an established fact.
func (v *Verdict) Fact(name, format string, args ...any) {
	v.Facts = append(v.Facts, Fact{Name: name, Value: fmt.Sprintf(format, args...)})
}

func (v *Verdict) add(name string, s Status, format string, args ...any) {
	d := format
	if len(args) > 0 {
		d = fmt.Sprintf(format, args...)
	}
	v.Checks = append(v.Checks, Check{Name: name, Status: s, Detail: d})
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
	Detail string
	class  error
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
	return &CheckError{Check: c.Name, Detail: c.Detail, class: class}
}

// jsonVerdict is the --json form: the verdict plus its overall status.
type jsonVerdict struct {
	Verdict Status  `json:"verdict"`
	Kind    string  `json:"kind"`
	Subject string  `json:"subject"`
	Summary string  `json:"summary"`
	Checks  []Check `json:"checks"`
	Facts   []Fact  `json:"facts,omitempty"`
}

// JSON is the machine-readable verdict: {"verdict":"pass|fail|misbehaviour",
// "kind":…, "subject":…, "checks":[{"check":…,"status":…,"detail":…}], "facts":[…]}.
func (v *Verdict) JSON() []byte {
	b, err := json.MarshalIndent(jsonVerdict{Verdict: v.Status(), Kind: v.Kind, Subject: v.Subject,
		Summary: v.Summary("en"), Checks: v.Checks, Facts: v.Facts}, "", "  ")
	if err != nil {
		panic("verdict: " + err.Error())
	}
	return append(b, '\n')
}

// Text renders the verdict for people in lang ("fr" or "en"; anything else
// is English): one line per check with its title, status and detail, the
// established facts, and a closing line that says pass, fail, or
// misbehaviour in words nobody can mistake.
func (v *Verdict) Text(lang string) string {
	l := language(lang)
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s\n", l.word("subject"), v.Subject)
	if lang == "fr" {
		b.WriteString("  (les détails techniques après chaque vérification sont en anglais)\n")
	}
	for _, c := range v.Checks {
		fmt.Fprintf(&b, "  [%s] %-22s %s", l.word(string(c.Status)), c.Name, Title(c.Name, lang))
		if c.Detail != "" {
			fmt.Fprintf(&b, " — %s", c.Detail)
		}
		b.WriteString("\n")
	}
	for _, f := range v.Facts {
		fmt.Fprintf(&b, "  %s: %s\n", f.Name, f.Value)
	}
	b.WriteString(v.Summary(lang))
	b.WriteString("\n")
	return b.String()
}

// Summary is the verdict's one-line conclusion in lang.
func (v *Verdict) Summary(lang string) string {
	l := language(lang)
	c := v.First()
	switch v.Status() {
	case StatusPass:
		return l.word("verdict-pass")
	case StatusMisbehaviour:
		return fmt.Sprintf("%s %s: %s", l.word("verdict-misbehaviour"), l.check(c.Name), c.Detail)
	}
	if c == nil {
		return l.word("verdict-empty")
	}
	return fmt.Sprintf("%s %s: %s", l.word("verdict-fail"), l.check(c.Name), c.Detail)
}

// check names a check in a summary: «title» (name).
func (l language) check(name string) string {
	if t := Title(name, string(l)); t != name {
		return fmt.Sprintf("«%s» (%s)", t, name)
	}
	return name
}
