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
