package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"tirage.fr/tirage/verifier/receipt/receipttest"
)

// catalogIDs returns the message ids messages.go declares after the
// comment marker up to end ("\n)": its const block's end), each as its
// name and id; fewer than least fails the test (the marker moved).
func catalogIDs(t *testing.T, marker, end string, least int) [][]string {
	t.Helper()
	src, err := os.ReadFile("../verdict/messages.go")
	if err != nil {
		t.Fatal(err)
	}
	_, block, _ := strings.Cut(string(src), marker)
	block, _, _ = strings.Cut(block, end)
	decl := regexp.MustCompile(`(?m)^\s*(Msg\w*)\s+MsgID = "([^"]+)"`).FindAllStringSubmatch(block, -1)
	if len(decl) < least {
		t.Fatalf("found only %d messages after %q in messages.go", len(decl), marker)
	}
	return decl
}

// english are words that give away an English sentence in French output.
// Ids, hashes, check names and file names never contain them as words.
var english = regexp.MustCompile(`\b(the|does|not|record|records|pick|proof|key|trusted|is|of|and|with|gives|recorded|verify|under|log|size|checkpoint|root)\b`)

// frenchOK checks that a French rendering reads as French: every line's
// prose (after the check's title) is free of English words.
func frenchOK(t *testing.T, name, out string) {
	t.Helper()
	for _, line := range strings.Split(out, "\n") {
		// Drop what is not prose: check names in brackets' column, paths.
		prose := line
		if i := strings.Index(prose, "] "); i >= 0 {
			prose = prose[i+2:]
			if j := strings.IndexByte(prose, ' '); j >= 0 {
				prose = prose[j:] // the check's name (vrf-proof, …) is an identifier
			}
		}
		// Technical details quoted from the core's errors are English by
		// design, and labelled so.
		prose = regexp.MustCompile(`en anglais\)? : « [^»]*»`).ReplaceAllString(prose, " ")
		prose = regexp.MustCompile(`vérification [a-z-]+ :|\(([a-z-]+)\)|rngverify [a-z]+|[0-9a-f]{16,}|\S+\.json|\S+/\S+`).ReplaceAllString(prose, " ")
		if m := english.FindString(prose); m != "" {
			t.Errorf("%s: English %q in French output line:\n%s", name, m, line)
		}
	}
}

// TestLanguages: each failing check reads in the language asked for — the
// reason after the check too — and English output is what it always was.
func TestLanguages(t *testing.T) {
	dir := t.TempDir()
	a := newAppliance(t, 21)
	key := write(t, dir, "log.vkey", a.LogKeyFile())

	// A forged proof in a game transcript (misbehaviour, vrf-proof).
	forged := playGame(t, a, receipttest.Play{Game: "g-forged", Cheat: receipttest.Cheat{ForgeProof: 3}})
	forgedFile := write(t, dir, "forged.json", a.Transcript(forged, receipttest.TranscriptOptions{}))

	// A receipt of a pick the appliance logged with the wrong outcome
	// (misbehaviour, outcome).
	g := playGame(t, a, receipttest.Play{Game: "g-receipt", StopAt: 2, Cheat: receipttest.Cheat{SwapOutcome: 1}})
	tamperedFile := write(t, dir, "tampered.json", a.Receipt(g, 1, true))

	// A receipt whose outcome was edited after the fact: the edited record
	// is not the logged one, which proves nothing against the appliance.
	h := playGame(t, a, receipttest.Play{Game: "g-edited", StopAt: 2})
	rc := a.Receipt(h, 1, true)
	edited := bytes.Replace(rc, []byte(`\"outcome\":\"good\"`), []byte(`\"outcome\":\"losing\"`), 1)
	if bytes.Equal(edited, rc) {
		t.Fatalf("the receipt has no good outcome to edit:\n%s", rc)
	}
	editedFile := write(t, dir, "edited.json", edited)

	// A forked log: a receipt proven in a tree of the trusted size with
	// another root.
	forkFile, state, forkPin := forkedReceipt(t, filepath.Join(dir, "fork"), 22)

	for _, tc := range []struct {
		name string
		args []string
		// The check line and stderr conclusion, in English (as they have
		// always read) and in French.
		enLine, enErr, frLine, frErr *regexp.Regexp
	}{
		{"wrong-proof", []string{"game", forgedFile, "--log-key", key},
			regexp.MustCompile(`\[MISBEHAVIOUR\] vrf-proof +draw proofs — pick 3 \(number \d+, record 3\): the proof does not verify under key \S+ \(proof does not verify under this key\)\n`),
			regexp.MustCompile(`^rngverify game: MISBEHAVIOUR PROVEN, check vrf-proof: pick 3 \(number \d+, record 3\): the proof does not verify under key \S+ \(proof does not verify under this key\)\n$`),
			regexp.MustCompile(`\[MANQUEMENT\] vrf-proof +preuves des tirages — sélection 3 \(numéro \d+, enregistrement 3\) : la preuve ne se vérifie pas sous la clé \S+ \(la preuve ne se vérifie pas sous cette clé\)\n`),
			regexp.MustCompile(`^rngverify game : MANQUEMENT PROUVÉ, vérification vrf-proof : sélection 3 \(numéro \d+, enregistrement 3\) : la preuve ne se vérifie pas sous la clé \S+ \(la preuve ne se vérifie pas sous cette clé\)\n$`)},
		{"tampered-receipt", []string{"receipt", tamperedFile, "--log-key", key, "--pin", a.VRFPin()},
			regexp.MustCompile(`\[MISBEHAVIOUR\] outcome +outcomes — pick 1 \(number \d+\): recorded losing, β gives good`),
			regexp.MustCompile(`^rngverify receipt: MISBEHAVIOUR PROVEN, check outcome: pick 1 \(number \d+\): recorded losing, β gives good\n$`),
			regexp.MustCompile(`\[MANQUEMENT\] outcome +résultats — sélection 1 \(numéro \d+\) : enregistré « numéro perdant », β donne « bon numéro »`),
			regexp.MustCompile(`^rngverify receipt : MANQUEMENT PROUVÉ, vérification outcome : sélection 1 \(numéro \d+\) : enregistré « numéro perdant », β donne « bon numéro »\n$`)},
		{"edited-receipt", []string{"receipt", editedFile, "--log-key", key, "--pin", a.VRFPin()},
			regexp.MustCompile(`\[FAIL\] outcome +outcomes — the records are not proven to be the appliance's \(the record is not included under a checkpoint signed by a trusted log key\): not proof of misbehaviour: pick 1 \(number \d+\): recorded losing, β gives good\n`),
			regexp.MustCompile(`^rngverify receipt: NOT VERIFIED, check inclusion: the record at index \d+: invalid transparency proof\n$`),
			regexp.MustCompile(`\[ÉCHEC\] outcome +résultats — rien ne prouve que ces enregistrements soient ceux de l'appareil \(l'enregistrement ne figure pas sous un point de contrôle signé par une clé de journal de confiance\) : ce n'est pas une preuve de manquement : sélection 1 \(numéro \d+\) : enregistré « numéro perdant », β donne « bon numéro »\n`),
			regexp.MustCompile(`^rngverify receipt : NON VÉRIFIÉ, vérification inclusion : l'enregistrement, à l'index \d+ : la preuve d'inclusion ne mène pas à la racine de l'arbre signé\n$`)},
		{"forked-log", []string{"receipt", forkFile, "--state", state, "--pin", forkPin},
			regexp.MustCompile(`\[MISBEHAVIOUR\] log-consistency +log consistency — two checkpoints of size \d+ with different roots: log fork: misbehaviour \(trusted root [A-Za-z0-9+/]{43}=, document root [A-Za-z0-9+/]{43}=\)\n`),
			regexp.MustCompile(`^rngverify receipt: MISBEHAVIOUR PROVEN, check log-consistency: two checkpoints of size \d+ with different roots: log fork: misbehaviour \(trusted root`),
			regexp.MustCompile(`\[MANQUEMENT\] log-consistency +cohérence du journal — deux points de contrôle de taille \d+ avec des racines différentes : bifurcation du journal \(manquement\) \(racine de confiance [A-Za-z0-9+/]{43}=, racine du document [A-Za-z0-9+/]{43}=\)\n`),
			regexp.MustCompile(`^rngverify receipt : MANQUEMENT PROUVÉ, vérification log-consistency : deux points de contrôle de taille \d+ avec des racines différentes : bifurcation du journal \(manquement\)`)},
	} {
		code, out, errs := run(t, tc.args...)
		if code != ExitFail || !tc.enLine.MatchString(out) || !tc.enErr.MatchString(errs) {
			t.Errorf("%s, English: exit %d\nstderr: %s\n%s", tc.name, code, errs, out)
		}
		code, out, errs = run(t, append(tc.args, "--lang", "fr")...)
		if code != ExitFail || !tc.frLine.MatchString(out) || !tc.frErr.MatchString(errs) {
			t.Errorf("%s, French: exit %d\nstderr: %s\n%s", tc.name, code, errs, out)
		}
		frenchOK(t, tc.name, out+errs)
		if testing.Verbose() {
			t.Logf("%s --lang fr:\n%s%s", tc.name, out, errs)
		}
		// --json stays English, with the message ids beside the text.
		_, out, _ = run(t, append(tc.args, "--json", "--lang", "fr")...)
		if !strings.Contains(out, `"detail": "`) || !strings.Contains(out, `"message": {`) || strings.Contains(out, "MANQUEMENT") {
			t.Errorf("%s --json: %s", tc.name, out)
		}
	}

	// The built binary speaks French too.
	bin := filepath.Join(dir, "rngverify")
	if out, err := exec.Command("go", "build", "-o", bin, "tirage.fr/tirage/cmd/rngverify").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "game", forgedFile, "--log-key", key, "--lang", "fr")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.Env = append(os.Environ(), "LANG=C")
	cmd.Run()
	if cmd.ProcessState.ExitCode() != ExitFail || !strings.Contains(stdout.String(), "la preuve ne se vérifie pas sous la clé") || !strings.Contains(stderr.String(), "MANQUEMENT PROUVÉ, vérification vrf-proof : sélection 3") {
		t.Errorf("binary --lang fr: exit %d\n%s%s", cmd.ProcessState.ExitCode(), stdout.String(), stderr.String())
	}
	frenchOK(t, "binary", stdout.String()+stderr.String())
}

// TestLanguagesLogAndAudit: trust on first use, the progress bar, the audit's
// reasons and its statistics table read in French with --lang fr.
func TestLanguagesLogAndAudit(t *testing.T) {
	dir := t.TempDir()
	a := newAppliance(t, 23)
	for i := range 6 {
		playGame(t, a, receipttest.Play{Game: "g-" + string(rune('a'+i)), StopAt: i % 3})
	}
	playGame(t, a, receipttest.Play{Game: "g-bad", Cheat: receipttest.Cheat{WrongSecret: true}})
	tiles := filepath.Join(dir, "tiles")
	writeTiles(t, tiles, a)
	write(t, tiles, "vkey", a.LogKeyFile())
	state := filepath.Join(dir, "state.json")

	code, out, errs := run(t, "log", "--dir", tiles, "--state", state, "--tofu", "--lang", "fr")
	if code != ExitOK || !strings.Contains(errs, "CONFIANCE À LA PREMIÈRE UTILISATION : le journal « tirage.test/log » est accepté") ||
		!strings.Contains(out, "[OK] log-key                clé du journal de confiance — Ed25519 ") || !strings.Contains(out, "(confiance à la première utilisation depuis ") {
		t.Fatalf("log --tofu --lang fr: exit %d\n%s%s", code, out, errs)
	}
	frenchOK(t, "log", out+errs)

	code, out, errs = run(t, "audit", "--dir", tiles, "--state", state, "--lang", "fr")
	for _, want := range []string{
		"[MANQUEMENT] games", "1 en échec : partie g-bad : commitment : le secret r révélé à la fin (enregistrement ",
		"contrôlé : journal de transparence tirage.test/log, ", "numéro perdant, 30 cachés", "tirage                        essais",
		"enregistrements : ", "MANQUEMENT PROUVÉ, vérification games : 1 en échec : partie g-bad",
	} {
		if !strings.Contains(out+errs, want) {
			t.Errorf("audit --lang fr lacks %q: exit %d\n%s%s", want, code, out, errs)
		}
	}
	if code != ExitFail || !strings.Contains(errs, "entrées 100 %") {
		t.Errorf("audit --lang fr: exit %d\n%s", code, errs)
	}
	frenchOK(t, "audit", out+errs)
	if testing.Verbose() {
		t.Logf("audit --lang fr:\n%s%s", out, errs)
	}
	// English as it always was.
	code, out, errs = run(t, "audit", "--dir", tiles, "--state", state, "--quiet")
	if code != ExitFail || !strings.Contains(out, "[MISBEHAVIOUR] games") || !strings.Contains(out, "1 failing: game g-bad: commitment: the r revealed at the end (record ") ||
		!strings.Contains(errs, "rngverify audit: MISBEHAVIOUR PROVEN, check games: 1 failing: game g-bad") {
		t.Errorf("audit: exit %d\n%s%s", code, out, errs)
	}
}
