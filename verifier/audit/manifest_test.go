package audit_test

import (
	"crypto/sha256"
	"fmt"
	"strings"
	"testing"

	"tirage.fr/tirage/verifier/audit"
	"tirage.fr/tirage/verifier/manifest"
	"tirage.fr/tirage/verifier/qod"
	"tirage.fr/tirage/verifier/receipt/receipttest"
	"tirage.fr/tirage/verifier/record"
	"tirage.fr/tirage/verifier/verdict"
)

// tickets are n manifest tickets of emission em, named by tag: ticket i has
// gain qod.Stakes[i mod 7].
func tickets(em, tag string, n int) []manifest.Ticket {
	var out []manifest.Ticket
	for i := range n {
		out = append(out, manifest.Ticket{Emission: em, TicketHash: sha256.Sum256(fmt.Appendf(nil, "%s %d", tag, i)), StakeCents: qod.Stakes[i%len(qod.Stakes)]})
	}
	return out
}

// manifestFile is the file of tickets, as rngctl emission import reads it.
func manifestFile(tks []manifest.Ticket) string {
	var b strings.Builder
	b.WriteString("# a manifest\n")
	for _, t := range tks {
		b.WriteString(t.Line() + "\n")
	}
	return b.String()
}

func readManifest(t testing.TB, name string, tks []manifest.Ticket) *audit.Manifest {
	t.Helper()
	m, err := audit.ReadManifest(name, strings.NewReader(manifestFile(tks)))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// manifested is a log whose E1 manifest (logged before its first game) is
// of the given tickets, the first n of them played with their S.
func manifested(t *testing.T, tks []manifest.Ticket, n int) *receipttest.Appliance {
	t.Helper()
	a, err := receipttest.New(11)
	if err != nil {
		t.Fatal(err)
	}
	a.Tickets = tks
	for i := range n {
		playTicket(t, a, fmt.Sprintf("g-%d", i), tks[i].TicketHash, tks[i].StakeCents)
	}
	return a
}

func playTicket(t *testing.T, a *receipttest.Appliance, game string, ticket [32]byte, stake int64) {
	t.Helper()
	if _, err := a.PlayGame(receipttest.Play{Game: game, Ticket: ticket, Stake: stake, StopAt: 1}); err != nil {
		t.Fatal(err)
	}
}

// runManifests audits a's log with the manifest files given.
func runManifests(t *testing.T, a *receipttest.Appliance, ms ...*audit.Manifest) *verdict.Verdict {
	t.Helper()
	return runWith(t, a, func(c *audit.Config) { c.Manifests = ms })
}

// manifestFacts are the verdict's "manifests" facts, in English.
func manifestFacts(v *verdict.Verdict) []string {
	var out []string
	for _, f := range v.Facts {
		if f.Label != nil && f.Label.ID == verdict.MsgAuditFactManifests {
			_, value := f.Text("en")
			out = append(out, value)
		}
	}
	return out
}

// wantGames checks the games check's status and detail, and the facts.
func wantGames(t *testing.T, v *verdict.Verdict, status verdict.Status, detail string, facts ...string) {
	t.Helper()
	c := v.Find(verdict.CheckGames)
	f := manifestFacts(v)
	ok := c != nil && c.Status == status && strings.Contains(c.Detail, detail) && len(f) == len(facts)
	for i := range facts {
		ok = ok && i < len(f) && strings.Contains(f[i], facts[i])
	}
	if !ok {
		t.Fatalf("want games %s %q, facts %q; got facts %q\n%s", status, detail, facts, f, v.Text("en"))
	}
}

// TestAuditManifestHonest: an honest log passes with its manifest file,
// every start checked against it; a file with one ticket's S changed is
// not the manifest logged (its root differs): said, and nothing checked.
func TestAuditManifestHonest(t *testing.T) {
	tks := tickets("E1", "honest", 20)
	a := manifested(t, tks, 8)
	m := readManifest(t, "e1.csv", tks)
	if m.Count != 20 || m.Emission != "E1" {
		t.Fatalf("read %d tickets of %q", m.Count, m.Emission)
	}
	v := runManifests(t, a, m)
	if v.Status() != verdict.StatusPass {
		t.Fatalf("honest log with its manifest:\n%s", v.Text("en"))
	}
	wantGames(t, v, verdict.StatusPass, "8 game(s)", fmt.Sprintf("e1.csv (emission E1, 20 tickets, root %x): logged at entry 2", m.Root),
		"emission E1: its 1 logged manifest(s) all given; 8 start(s) checked against them (ticket and S)")
	if fr := v.Text("fr"); !strings.Contains(fr, "émission E1 : ses 1 manifeste(s) journalisé(s) tous fournis ; 8 début(s) de partie vérifié(s)") {
		t.Errorf("French:\n%s", fr)
	}

	edited := append([]manifest.Ticket(nil), tks...)
	edited[3].StakeCents = qod.Stakes[(3+1)%len(qod.Stakes)]
	e := readManifest(t, "edited.csv", edited)
	v = runManifests(t, a, e)
	wantGames(t, v, verdict.StatusPass, "8 game(s)", fmt.Sprintf("edited.csv (emission E1, 20 tickets, root %x): no manifest record in the log has this root", e.Root),
		"emission E1: 1 of its 1 logged manifest(s) not given (--manifest FILE): 0 start(s) checked against the files given, 8 not checked")
	if v.Status() != verdict.StatusPass {
		t.Fatalf("an unmatched file fails nothing:\n%s", v.Text("en"))
	}
	// The same file twice counts once.
	if f := manifestFacts(runManifests(t, a, m, readManifest(t, "again.csv", tks))); len(f) != 2 || !strings.HasPrefix(f[0], "e1.csv") {
		t.Errorf("a file given twice: %q", f)
	}
}

// TestAuditManifestContradicted: a start whose S is not its ticket's in
// the manifest logged, or whose ticket is in no manifest of its emission
// logged before it, is misbehaviour: the appliance signed the start and the
// manifest's root. Without the file the log shows nothing wrong.
func TestAuditManifestContradicted(t *testing.T) {
	tks := tickets("E1", "cheat", 20)
	m := readManifest(t, "e1.csv", tks)

	a := manifested(t, tks, 3)
	wrong := qod.Stakes[(3+2)%len(qod.Stakes)]
	start := a.Size()
	playTicket(t, a, "g-wrong-s", tks[3].TicketHash, wrong)
	if v := runManifests(t, a); v.Status() != verdict.StatusPass {
		t.Fatalf("without the manifest:\n%s", v.Text("en"))
	}
	wantGames(t, runManifests(t, a, m), verdict.StatusMisbehaviour,
		fmt.Sprintf("game g-wrong-s (entry %d) starts ticket %x with S = %d cents, but manifest e1.csv, logged at entry 2, gives that ticket S = %d cents: the appliance signed a start that contradicts the manifest it logged",
			start, tks[3].TicketHash, wrong, tks[3].StakeCents),
		"e1.csv (emission E1", "emission E1: its 1 logged manifest(s) all given; 3 start(s) checked")

	b := manifested(t, tks, 2)
	stray := sha256.Sum256([]byte("a ticket of no manifest"))
	start = b.Size()
	playTicket(t, b, "g-stray", stray, 1000)
	if v := runManifests(t, b); v.Status() != verdict.StatusPass {
		t.Fatalf("without the manifest:\n%s", v.Text("en"))
	}
	wantGames(t, runManifests(t, b, m), verdict.StatusMisbehaviour,
		fmt.Sprintf("game g-stray (entry %d) starts ticket %x, which is in none of the 1 manifest(s) of emission \"E1\" logged before it, all given (e1.csv): the appliance signed a start of a ticket it never logged",
			start, stray),
		"e1.csv", "2 start(s) checked")
}

// TestAuditManifestSeveral: an emission with two manifests logged is
// checked against the union of the files given. With one of them missing,
// a start whose ticket is in the file given is still checked (a ticket is
// in one manifest), and one whose ticket is not is not checked: the
// emission is reported "not checked" for it, not failed. A ticket of a
// manifest logged after its start contradicts the manifests logged before.
func TestAuditManifestSeveral(t *testing.T) {
	first, second := tickets("E1", "first", 10), tickets("E1", "second", 10)
	m1, m2 := readManifest(t, "first.csv", first), readManifest(t, "second.csv", second)
	a := manifested(t, first, 2)
	a.Append(mustFormat(t, &record.Manifest{Time: a.Now, Emission: "E1", Root: m2.Root, Count: m2.Count, Total: m2.Total}))
	second2 := a.Size() - 1
	playTicket(t, a, "g-second", second[0].TicketHash, second[0].StakeCents)

	wantGames(t, runManifests(t, a, m1, m2), verdict.StatusPass, "3 game(s)", "first.csv", fmt.Sprintf("second.csv (emission E1, 10 tickets, root %x): logged at entry %d", m2.Root, second2),
		"emission E1: its 2 logged manifest(s) all given; 3 start(s) checked")
	wantGames(t, runManifests(t, a, m2), verdict.StatusPass, "3 game(s)", "second.csv", "emission E1: 1 of its 2 logged manifest(s) not given (--manifest FILE): 1 start(s) checked against the files given, 2 not checked")

	// S contradicted in the file given: misbehaviour all the same.
	playTicket(t, a, "g-second-wrong", second[1].TicketHash, second[2].StakeCents)
	wantGames(t, runManifests(t, a, m2), verdict.StatusMisbehaviour, "game g-second-wrong", "second.csv", "1 of its 2 logged manifest(s) not given")

	// A start of a ticket whose manifest is logged only after it.
	b := manifested(t, first, 1)
	playTicket(t, b, "g-early", second[0].TicketHash, second[0].StakeCents)
	b.Append(mustFormat(t, &record.Manifest{Time: b.Now, Emission: "E1", Root: m2.Root, Count: m2.Count, Total: m2.Total}))
	wantGames(t, runManifests(t, b, m1, m2), verdict.StatusMisbehaviour, "game g-early", "first.csv", "second.csv", "its 2 logged manifest(s) all given; 1 start(s) checked")
}

// TestAuditManifestRecord: a manifest record with the root of a file
// given but another count or total contradicts its own root:
// misbehaviour. (An older rngd's record has no total: not compared.)
func TestAuditManifestRecord(t *testing.T) {
	tks := tickets("E1", "record", 10)
	m := readManifest(t, "e1.csv", tks)
	a := manifested(t, tks, 1)
	a.Append(mustFormat(t, &record.Manifest{Time: a.Now, Emission: "E1", Root: m.Root, Count: m.Count}))
	if v := runManifests(t, a, m); v.Status() != verdict.StatusPass {
		t.Fatalf("a record without total:\n%s", v.Text("en"))
	}
	a.Append(mustFormat(t, &record.Manifest{Time: a.Now, Emission: "E1", Root: m.Root, Count: m.Count + 1, Total: m.Total}))
	wantGames(t, runManifests(t, a, m), verdict.StatusMisbehaviour,
		fmt.Sprintf("the manifest record at entry %d has the root of e1.csv, but says emission \"E1\", 11 tickets, total %d cents, where the file gives emission \"E1\", 10 tickets", a.Size()-1, m.Total),
		"e1.csv", "emission E1")
}

// TestReadManifest: a file rngd would not import is refused, naming it.
func TestReadManifest(t *testing.T) {
	tks := tickets("E1", "read", 3)
	for name, c := range map[string]struct{ file, want string }{
		"two emissions": {manifestFile(append(tks, tickets("E2", "read", 1)...)), "manifest two emissions: ticket 4 is of emission \"E2\", the first of emission \"E1\""},
		"twice":         {manifestFile(append(tks, tks[1])), fmt.Sprintf("manifest twice: ticket 4 (%x) is listed twice", tks[1].TicketHash)},
		"empty":         {"# nothing\n", "manifest empty: no ticket"},
		"bad line":      {manifestFile(tks) + "E1,zz,1000\n", "manifest bad line: manifest line 5: ticket_hash must be 64 lower-case hex digits"},
	} {
		_, err := audit.ReadManifest(name, strings.NewReader(c.file))
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", name, err, c.want)
		}
	}
}
