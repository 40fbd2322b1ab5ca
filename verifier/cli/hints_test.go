package cli

import (
	"os"
	"strings"
	"testing"
	"time"

	"tirage.fr/tirage/attestations"
	"tirage.fr/tirage/attestations/attestationstest"
	"tirage.fr/tirage/verifier/record"
)

// TestOtherCommandNamed: each command that checks a document, given the
// document another one checks — a receipt, a transcript, a certificate, a
// freeze receipt, an attestation (envelope or record) — refuses it as
// unreadable input (exit 2, one line, nothing on stdout) naming the
// command that reads it, in English and in French. Before, freeze given a
// certificate said only "not a freeze receipt: json: unknown field …".
func TestOtherCommandNamed(t *testing.T) {
	dir := t.TempDir()
	a, err := attestationstest.New(7, false)
	if err != nil {
		t.Fatal(err)
	}
	st, err := attestations.NewPaytableStatement()
	if err != nil {
		t.Fatal(err)
	}
	env := must(a.Sign(st))
	leaf := must(record.Format(attestations.NewRecord(time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC), a.KeyID, env, st)))
	ann := write(t, dir, "announcement.json", a.Announcement)
	docs := []struct{ path, command, en, fr string }{
		{"testdata/rngd/receipts-reply.json", "receipt", "is a receipt (or rngd's GetReceipts reply): check it with rngverify receipt", "est un reçu (ou une réponse GetReceipts de rngd) : vérifiez-le avec rngverify receipt"},
		{"testdata/rngd/transcript-reply.json", "game", "is a transcript (or rngd's GetTranscript reply): check it with rngverify game", "est une transcription de partie (ou une réponse GetTranscript de rngd) : vérifiez-la avec rngverify game"},
		{"testdata/promo-certificate.json", "certificate", "is a promotion draw certificate: check it with rngverify certificate", "est un certificat de tirage promotionnel : vérifiez-le avec rngverify certificate"},
		{freezeFile, "freeze", "is a promotion's freeze receipt: check it with rngverify freeze", "est le reçu de gel d'une opération promotionnelle : vérifiez-le avec rngverify freeze"},
		{"../promo/testdata/entrant-proof.json", "entrant", "is a player's entrant proof: check it with rngverify entrant", "est la preuve de participation d'un joueur : vérifiez-la avec rngverify entrant"},
		{write(t, dir, "paytable.dsse.json", env), "attestation", "is an attestation (a DSSE envelope or an attestation record): check it with rngverify attestation", "est une attestation (enveloppe DSSE ou enregistrement d'attestation) : vérifiez-la avec rngverify attestation"},
		{write(t, dir, "record.json", leaf), "attestation", "is an attestation (a DSSE envelope or an attestation record): check it with rngverify attestation", "est une attestation (enveloppe DSSE ou enregistrement d'attestation) : vérifiez-la avec rngverify attestation"},
	}
	for _, cmd := range []string{"receipt", "game", "certificate", "freeze", "attestation", "entrant"} {
		for _, d := range docs {
			if _, err := os.Stat(d.path); err != nil {
				t.Fatal(err)
			}
			if d.command == cmd {
				continue
			}
			args := []string{cmd, d.path, "--pin", strings.Repeat("ab", 32)}
			if cmd == "attestation" {
				args = append(args, "--attestation-key", ann)
			}
			for lang, want := range map[string]string{"en": "rngverify " + cmd + ": unreadable input: " + d.path + " " + d.en + "\n",
				"fr": "rngverify " + cmd + " : fichier illisible : " + d.path + " " + d.fr + "\n"} {
				code, out, errs := run(t, append(args, "--lang", lang)...)
				if code != ExitUsage || out != "" || errs != want {
					t.Errorf("%s %s --lang %s: exit %d, stdout %q, stderr %q; want exit 2 and %q", cmd, d.path, lang, code, out, errs, want)
				}
			}
		}
	}
}

// TestAnchorAndDocumentSwapped: a key file (the log's verifier keys, its
// key announcement) or an entrant list given as the document to check is
// refused as unreadable input (exit 2, one line) naming the flag that
// takes it; a document given to --log-key or --vrf-key is refused (exit 2)
// saying it is a document to check. Before, rngverify game log.vkey said
// "not a transcript: invalid character 'i' in literal true", game
// --log-key t.json "bad key announcement: record: record: byte 1:
// whitespace is not canonical".
func TestAnchorAndDocumentSwapped(t *testing.T) {
	dir := t.TempDir()
	a, err := attestationstest.New(7, false)
	if err != nil {
		t.Fatal(err)
	}
	ann := write(t, dir, "announcement.json", a.Announcement)
	vkey := "testdata/rngd/log.vkey"
	transcript := "testdata/rngd/transcript.json"
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"game", vkey, "--log-key", vkey}, "rngverify game: unreadable input: " + vkey + " is a file of log verifier keys (as /log/vkey serves them), a trust anchor, not a document to check: give it with --log-key FILE, and the document as FILE\n"},
		{[]string{"receipt", ann, "--log-key", vkey}, "rngverify receipt: unreadable input: " + ann + " is the log's key announcement record, a trust anchor, not a document to check: give it with --log-key FILE or --vrf-key FILE, and the document as FILE\n"},
		{[]string{"freeze", entrantFile, "--log-key", vkey}, "rngverify freeze: unreadable input: " + entrantFile + " is a promotion's entrant list: give it with --entrants LIST to rngverify freeze or rngverify certificate"},
		{[]string{"game", transcript, "--log-key", transcript}, "rngverify game: --log-key " + transcript + ": a document to check (rngverify game reads it), not a key file: give the operator's key file or key announcement here, and the document as FILE"},
		{[]string{"receipt", "r.json", "--vrf-key", certFile}, "rngverify receipt: --vrf-key " + certFile + ": a document to check (rngverify certificate reads it), not a key file"},
		{[]string{"game", vkey, "--log-key", vkey, "--lang", "fr"}, "rngverify game : fichier illisible : " + vkey + " est un fichier de clés de vérification du journal (tel que le sert /log/vkey), une ancre de confiance, et non un document à vérifier"},
		{[]string{"game", transcript, "--log-key", transcript, "--lang", "fr"}, "--log-key " + transcript + " : un document à vérifier (rngverify game le lit), et non un fichier de clés"},
	} {
		code, out, errs := run(t, c.args...)
		if code != ExitUsage || out != "" || !strings.Contains(errs, c.want) || strings.Count(errs, "\n") != 1 {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 2 and %q", c.args, code, out, errs, c.want)
		}
	}
	// The documents themselves, with their anchors, still pass.
	if code, out, errs := run(t, "game", transcript, "--log-key", vkey); code != ExitOK {
		t.Errorf("game: exit %d\n%s%s", code, out, errs)
	}
}
