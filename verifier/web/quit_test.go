package web_test

import (
	"encoding/json"
	"strings"
	"testing"

	"tirage.fr/tirage/verifier/receipt/receipttest"
	"tirage.fr/tirage/verifier/web"
)

// TestVerifyQuitReceipt: the page verifies the receipt of a ticket_quit
// (a game server's QUITTER, rngd's Quit reply) as rngverify receipt does,
// and shows what it records in the language asked for: S kept, nothing
// drawn. Without the log key file, nothing is trusted.
func TestVerifyQuitReceipt(t *testing.T) {
	a, err := receipttest.New(21)
	if err != nil {
		t.Fatal(err)
	}
	_, at := a.Quit([32]byte{}, 2000)
	docs := []web.File{{Name: "quit.json", Data: a.RecordReceipt(at)}}
	anchors := []web.File{{Name: "log.vkey", Data: a.LogKeyFile()}}
	for lang, want := range map[string][]string{
		"en": {"receipt of a ticket_quit record at log index 3", "a ticket_quit record draws nothing", "keeps S = 2000 cents"},
		"fr": {"reçu d'un enregistrement « renonciation à l'étape 2 (QUITTER) » à l'index 3", "ne comporte aucun tirage", "conserve S = 2000 centimes"},
	} {
		var got []struct {
			File, Subject, Verdict string
			Checks                 []struct{ Name, Status, Title, Explanation, Detail string }
		}
		if err := json.Unmarshal(web.Render(web.Verify(docs, anchors, "", nil), lang), &got); err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 || got[0].Verdict != "pass" {
			t.Fatalf("%s: %+v, want the quit receipt passed", lang, got)
		}
		all := got[0].Subject
		for _, c := range got[0].Checks {
			if c.Title == "" || (c.Explanation == "" && c.Name != "format") {
				t.Errorf("%s: check %s has no title or explanation", lang, c.Name)
			}
			all += "\n" + c.Detail
		}
		for _, w := range want {
			if !strings.Contains(all, w) {
				t.Errorf("%s: the page lacks %q:\n%s", lang, w, all)
			}
		}
	}
	if r := web.Verify(docs, nil, "", nil); len(r) != 1 || r[0].Verdict.Status() == "pass" {
		t.Errorf("a quit receipt passed without any trust anchor")
	}
}
