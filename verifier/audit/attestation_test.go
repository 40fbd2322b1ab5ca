package audit_test

import (
	"crypto/sha256"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"tirage.fr/tirage/attestations"
	"tirage.fr/tirage/attestations/attestationstest"
	"tirage.fr/tirage/verifier/record"
	"tirage.fr/tirage/verifier/verdict"
)

// The audit checks the log's attestation records with the log's own
// announcements: an honest paytable passes; a paytable whose figures are
// not the rules', signed by the announced key, is misbehaviour; an
// envelope signed by another key, or a record naming a key the log did not
// announce, fails without proving anything; a record without its envelope
// is checked for its key only, and the verdict says so.
func TestAuditAttestations(t *testing.T) {
	app, err := attestationstest.New(5, false)
	if err != nil {
		t.Fatal(err)
	}
	other, err := attestationstest.New(6, false) // same key id, another key
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	paytable, err := attestations.NewPaytableStatement()
	if err != nil {
		t.Fatal(err)
	}
	rec := func(signer *attestationstest.Appliance, st *attestations.Statement) *record.Attestation {
		env, err := signer.Sign(st)
		if err != nil {
			t.Fatal(err)
		}
		return attestations.NewRecord(at, signer.KeyID, env, st)
	}
	wrong := attestations.NewPaytable()
	wrong.Tiers[2].Triple = "59/456"
	wrongSt := &attestations.Statement{Subject: paytable.Subject, Predicate: wrong}
	keyOnly := rec(app, paytable)
	keyOnly.Statement = nil
	unknown := rec(app, paytable)
	unknown.Key = "att-9"
	info, ok := debug.ReadBuildInfo()
	if !ok {
		t.Fatal("no build information")
	}
	buildOf := func(keys []record.Key) *attestations.Statement {
		st, err := attestations.NewBuildStatement(attestations.BuildInput{Info: info, Executable: sha256.Sum256([]byte("rngd")), Config: sha256.Sum256(nil), Keys: keys})
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	build := buildOf(app.Record.Keys)
	badBuild := buildOf([]record.Key{app.Record.Keys[0], other.Key()}) // other's attestation key, not the log's
	otherSubject := rec(app, paytable)
	otherSubject.Subject = attestations.BuildSubject
	// An announcement whose attestation key did not sign it: other's key
	// in app's announcement.
	forged := *app.Record
	forged.Keys = append([]record.Key(nil), app.Record.Keys...)
	forged.Keys[1] = other.Key()

	for _, c := range []struct {
		name   string
		recs   []*record.Attestation
		status verdict.Status
		detail string
	}{
		{"honest", []*record.Attestation{rec(app, paytable)}, verdict.StatusPass, "1 attestation records: 1 checked in full (key, signature, statement, predicate), 0 by their key only"},
		{"key only", []*record.Attestation{rec(app, paytable), keyOnly}, verdict.StatusPass, "2 attestation records: 1 checked in full (key, signature, statement, predicate), 1 by their key only"},
		{"wrong paytable", []*record.Attestation{rec(app, wrongSt)}, verdict.StatusMisbehaviour, "tiers[2].triple: attested 59/456"},
		{"another key", []*record.Attestation{rec(other, paytable)}, verdict.StatusFail, "signature"},
		{"unknown key", []*record.Attestation{unknown}, verdict.StatusFail, `"att-9", which is not an attestation key the log announced`},
		{"build", []*record.Attestation{rec(app, build)}, verdict.StatusPass, "1 checked in full"},
		{"build of other keys", []*record.Attestation{rec(app, badBuild)}, verdict.StatusMisbehaviour, "keys[1].fingerprint"},
		{"record not the statement's", []*record.Attestation{otherSubject}, verdict.StatusFail, `subject "rngd/build", the statement's is "qod/paytable"`},
		{"forged announcement", []*record.Attestation{rec(other, paytable)}, verdict.StatusFail, `"att-1", which is not an attestation key the log announced`},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := logWith(t, 1, nil)
			if c.name == "forged announcement" {
				a.Append(mustFormat(t, &forged))
			} else {
				a.Append(app.Announcement)
			}
			for _, r := range c.recs {
				a.Append(mustFormat(t, r))
			}
			v := run(t, a, a.Tiles(), nil).Verdict
			ch := v.Find("attestations")
			if ch == nil || ch.Status != c.status || !strings.Contains(ch.Detail, c.detail) {
				t.Fatalf("want attestations %s %q:\n%s", c.status, c.detail, v.Text("en"))
			}
		})
	}

	// A build statement of keys other than the log announced, with an
	// entry before it refused (altered on the wire): the announcements
	// read may not be all the log made, so not proof — a failure.
	refused := logWith(t, 1, nil)
	refused.Append(app.Announcement)
	refused.Append(mustFormat(t, rec(app, badBuild)))
	v := run(t, refused, flipEntry(t, refused.Tiles(), refused.Size(), 1), nil).Verdict
	if ch := v.Find("attestations"); ch == nil || ch.Status != verdict.StatusFail || !strings.Contains(ch.Detail, "not proof of misbehaviour") || v.Status() != verdict.StatusFail {
		t.Fatalf("build of other keys, an entry refused before it:\n%s", v.Text("en"))
	}

	// Announced after the record: not a key of the log yet.
	a := logWith(t, 1, nil)
	a.Append(mustFormat(t, rec(app, paytable)))
	a.Append(app.Announcement)
	if ch := run(t, a, a.Tiles(), nil).Verdict.Find("attestations"); ch == nil || ch.Status != verdict.StatusFail {
		t.Fatalf("an attestation before its key's announcement: %v", ch)
	}

	// No attestation record: no attestations check (verdicts of logs
	// without one are as before).
	a = logWith(t, 1, nil)
	if ch := run(t, a, a.Tiles(), nil).Verdict.Find("attestations"); ch != nil {
		t.Fatalf("attestations check without an attestation record: %v", ch)
	}
}
