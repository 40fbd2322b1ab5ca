package audit_test

import (
	"crypto/sha256"
	"fmt"
	"strings"
	"testing"

	"tirage.fr/tirage/verifier/qod"
	"tirage.fr/tirage/verifier/receipt/receipttest"
	"tirage.fr/tirage/verifier/verdict"
)

// TestAuditQuitHonest: tickets quit (QUITTER, art. 2.2.3) beside games
// played pass, and the records check counts the ticket_quit records.
func TestAuditQuitHonest(t *testing.T) {
	a := logWith(t, 4, nil)
	for range 3 {
		a.Quit([32]byte{}, 0)
	}
	res := run(t, a, a.Tiles(), nil)
	v := res.Verdict
	if v.Status() != verdict.StatusPass {
		t.Fatalf("honest log with quits:\n%s", v.Text("en"))
	}
	if c := v.Find(verdict.CheckRecord); !strings.Contains(c.Detail, "ticket_quit 3") {
		t.Errorf("records check: %q, want the 3 ticket_quit records counted", c.Detail)
	}
	if fr := v.Text("fr"); !strings.Contains(fr, "renonciation à l'étape 2 (QUITTER)") {
		t.Errorf("French verdict without the kind's name:\n%s", fr)
	}
}

// TestAuditQuitAndStart: a ticket's QUITTER and CONTINUER exclude each
// other (art. 2.2.3), and a ticket is quit once: a forged log holding a
// ticket quit then started, started then quit, or quit twice is the
// appliance's misbehaviour, which the audit names.
func TestAuditQuitAndStart(t *testing.T) {
	t.Run("quit then started", func(t *testing.T) {
		a := logWith(t, 2, nil)
		ticket, at := a.Quit([32]byte{}, 0)
		g, err := a.PlayGame(playOf("g-after-quit", ticket))
		if err != nil {
			t.Fatal(err)
		}
		wantMisbehaviour(t, a, verdict.CheckGames,
			fmt.Sprintf("game g-after-quit (entry %d): its ticket was quit at entry %d (QUITTER, art. 2.2.3), and a ticket quit never starts stage 2", g.Indices[0], at))
	})
	t.Run("started then quit", func(t *testing.T) {
		a := logWith(t, 2, nil)
		g, err := a.PlayGame(playOf("g-before-quit", [32]byte{}))
		if err != nil {
			t.Fatal(err)
		}
		_, at := a.Quit(g.Ticket, 0)
		wantMisbehaviour(t, a, verdict.CheckGames,
			fmt.Sprintf("ticket_quit (entry %d): ticket %x is quit, but it started game g-before-quit at entry %d, and CONTINUER is irrevocable (art. 2.2.3)", at, g.Ticket, g.Indices[0]))
	})
	t.Run("quit twice", func(t *testing.T) {
		a := logWith(t, 2, nil)
		ticket, first := a.Quit([32]byte{}, 0)
		_, second := a.Quit(ticket, 0)
		wantMisbehaviour(t, a, verdict.CheckGames,
			fmt.Sprintf("ticket_quit (entry %d): ticket %x was quit already at entry %d, and a ticket is quit once", second, ticket, first))
	})
	t.Run("S not a gain", func(t *testing.T) {
		a := logWith(t, 2, nil)
		_, at := a.Quit([32]byte{}, 1234)
		wantMisbehaviour(t, a, verdict.CheckGames, fmt.Sprintf("ticket_quit (entry %d): stake", at))
	})
}

// TestAuditQuitManifest: a quit's ticket and S are checked against the
// manifest files given, as a start's: an honest quit is counted in a fact,
// one that keeps another S than its ticket's, or quits a ticket of no
// manifest, is misbehaviour.
func TestAuditQuitManifest(t *testing.T) {
	tks := tickets("E1", "quit", 20)
	m := readManifest(t, "e1.csv", tks)
	a := manifested(t, tks, 2)
	a.Quit(tks[5].TicketHash, tks[5].StakeCents)
	wantGames(t, runManifests(t, a, m), verdict.StatusPass, "2 game(s)", "e1.csv (emission E1",
		"emission E1: its 1 logged manifest(s) all given; 2 start(s) checked",
		"emission E1: 1 ticket_quit record(s) checked against the manifest files given (ticket and S), 0 not checked")

	wrong := qod.Stakes[(6+1)%len(qod.Stakes)]
	_, at := a.Quit(tks[6].TicketHash, wrong)
	wantGames(t, runManifests(t, a, m), verdict.StatusMisbehaviour,
		fmt.Sprintf("ticket_quit (entry %d) keeps ticket %x's S = %d cents, but manifest e1.csv, logged at entry 2, gives that ticket S = %d cents",
			at, tks[6].TicketHash, wrong, tks[6].StakeCents),
		"e1.csv", "2 start(s) checked", "1 ticket_quit record(s) checked")

	b := manifested(t, tks, 1)
	stray := sha256.Sum256([]byte("a ticket of no manifest"))
	_, at = b.Quit(stray, 1000)
	if v := runManifests(t, b); v.Status() != verdict.StatusPass {
		t.Fatalf("without the manifest:\n%s", v.Text("en"))
	}
	wantGames(t, runManifests(t, b, m), verdict.StatusMisbehaviour,
		fmt.Sprintf("ticket_quit (entry %d) quits ticket %x, which is in none of the 1 manifest(s) of emission \"E1\" logged before it, all given (e1.csv)", at, stray),
		"e1.csv", "1 start(s) checked")
}

// playOf is a game of ticket (zero: a fresh one), stopped at tier 1.
func playOf(game string, ticket [32]byte) receipttest.Play {
	return receipttest.Play{Game: game, Ticket: ticket, StopAt: 1}
}
