package web_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"tirage.fr/tirage/attestations"
	"tirage.fr/tirage/attestations/attestationstest"
	"tirage.fr/tirage/verifier/announce"
	"tirage.fr/tirage/verifier/checkpoint"
	"tirage.fr/tirage/verifier/cli"
	"tirage.fr/tirage/verifier/promo"
	"tirage.fr/tirage/verifier/receipt"
	"tirage.fr/tirage/verifier/record"
	"tirage.fr/tirage/verifier/verdict"
	"tirage.fr/tirage/verifier/web"
)

// The receipt and entrant list of a real freeze (rngd/promo's
// TestFreezeReceiptVerifies wrote them: the appliance over its embedded log).
const (
	freezeFile         = "../promo/testdata/freeze-receipt.json"
	freezeEntrantsFile = "../promo/testdata/freeze-entrants.txt"
)

// pageCase is one drop on the page: the documents, the trusted key files
// and the pins; args, if any, the rngverify command line whose --json
// verdict must be the page's on the document named doc, byte for byte.
type pageCase struct {
	name           string
	docs, anchors  []web.File
	pins           string
	doc            string
	args           []string
	status         verdict.Status
	check, checkIs string // a check and its status ("" none)
	note           string
}

// run checks c: the page's result on c.doc, its status, check and note,
// and rngverify's verdict on the same inputs. It returns the result.
func (c pageCase) run(t *testing.T) web.Result {
	t.Helper()
	rs := results(web.Verify(c.docs, c.anchors, c.pins, nil))
	r := rs.get(c.doc)
	v := r.Verdict
	if v.Status() != c.status || r.Note != c.note {
		t.Errorf("%s: %s, note %q; want %s, note %q\n%s", c.name, v.Status(), r.Note, c.status, c.note, v.Text("en"))
	}
	if c.check != "" {
		if ch := v.Find(c.check); ch == nil || string(ch.Status) != c.checkIs {
			t.Errorf("%s: check %s is %v, want %s\n%s", c.name, c.check, ch, c.checkIs, v.Text("en"))
		}
	}
	if c.args != nil {
		var out, errs bytes.Buffer
		cli.Run(cli.Env{Args: append(c.args, "--json"), Stdout: &out, Stderr: &errs})
		if !bytes.Equal(v.JSON(), out.Bytes()) {
			t.Errorf("%s: the page's verdict is not rngverify's\npage:\n%s\nrngverify %q:\n%s%s", c.name, v.JSON(), c.args, out.Bytes(), errs.Bytes())
		}
	}
	return r
}

// TestFreezeReceiptOnPage: a freeze receipt dropped on the page is
// recognised and verified as rngverify freeze verifies it (its --json
// verdict, byte for byte): its log key pinned or given as a trusted key
// file; with the draw's entrant list among the documents, the bailiff's
// checks too, and without it (or with another draw's) the public checks
// and the note to drop the list; edited, it fails the check that sees it;
// without a trusted key, its log-key check fails as a certificate's does.
func TestFreezeReceiptOnPage(t *testing.T) {
	dir := t.TempDir()
	file, rc, lk := freezeFixture(t)
	list := readFile(t, freezeEntrantsFile)
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	vkey := []byte(rc.LogKeys[0] + "\n")
	vkeyPath := write("promo.vkey", vkey)
	edited := rc
	edited.Count++
	editedFile := promo.FreezeReceiptJSON(&edited)
	more := bytes.Replace(bytes.Replace(list, []byte("count 5\n"), []byte("count 6\n"), 1), []byte("erin\n"), []byte("erin\nzoe\n"), 1)
	otherDraw := bytes.Replace(list, []byte("bonus-crescendo/1"), []byte("bonus-crescendo/2"), 1)
	doc := func(b []byte) web.File { return web.File{Name: "freeze.json", Data: b} }
	entrants := func(b []byte) web.File { return web.File{Name: "entrants.txt", Data: b} }
	trusted := []web.File{{Name: "promo.vkey", Data: vkey}}
	pin := lk.Fingerprint()
	f := write("freeze.json", file)
	dup := bytes.Replace(list, []byte("erin\n"), []byte("erin\nerin\n"), 1)
	dupPath := write("dup.txt", dup)
	for _, c := range []pageCase{
		{name: "pinned", docs: []web.File{doc(file)}, pins: pin, args: []string{"freeze", f, "--pin", pin},
			status: verdict.StatusPass, check: promo.CheckReceiptFields, checkIs: "pass", note: web.NoteEntrantsMissing},
		{name: "key file, with the list", docs: []web.File{entrants(list), doc(file)}, anchors: trusted,
			args:   []string{"freeze", f, "--log-key", vkeyPath, "--entrants", write("entrants.txt", list)},
			status: verdict.StatusPass, check: promo.CheckEntrantsFile, checkIs: "pass"},
		{name: "another draw's list", docs: []web.File{doc(file), entrants(otherDraw)}, pins: pin, args: []string{"freeze", f, "--pin", pin},
			status: verdict.StatusPass, check: promo.CheckEntrantRoot, checkIs: "skip", note: web.NoteEntrantsMissing},
		{name: "one entrant more in the list", docs: []web.File{doc(file), entrants(more)}, pins: pin,
			args:   []string{"freeze", f, "--pin", pin, "--entrants", write("more.txt", more)},
			status: verdict.StatusFail, check: promo.CheckEntrantRoot, checkIs: "fail"},
		{name: "a list that is not one", docs: []web.File{doc(file), {Name: dupPath, Data: dup}}, pins: pin,
			args:   []string{"freeze", f, "--pin", pin, "--entrants", dupPath},
			status: verdict.StatusFail, check: promo.CheckEntrantList, checkIs: "fail"},
		{name: "count edited", docs: []web.File{doc(editedFile)}, pins: pin, args: []string{"freeze", write("edited.json", editedFile), "--pin", pin},
			status: verdict.StatusFail, check: promo.CheckReceiptFields, checkIs: "fail", note: web.NoteEntrantsMissing},
		{name: "no trusted key", docs: []web.File{doc(file)},
			status: verdict.StatusFail, check: verdict.CheckLogKey, checkIs: "fail", note: web.NoteEntrantsMissing},
		{name: "another log's key trusted", docs: []web.File{doc(file)}, pins: strings.Repeat("ab", 32), args: []string{"freeze", f, "--pin", strings.Repeat("ab", 32)},
			status: verdict.StatusFail, check: verdict.CheckLogKey, checkIs: "fail", note: web.NoteEntrantsMissing},
	} {
		c.doc = "freeze.json"
		if c.args != nil {
			// rngverify names the file as given; the page as dropped.
			for i := range c.docs {
				if c.docs[i].Name == c.doc {
					c.docs[i].Name = c.args[1]
				}
			}
			c.doc = c.args[1]
		}
		r := c.run(t)
		if r.Verdict.Kind != receipt.DocFreezeReceipt {
			t.Errorf("%s: kind %q", c.name, r.Verdict.Kind)
		}
	}
	// Two lists of the draw: neither is used, whatever the order they were
	// dropped in, and both say so.
	for _, order := range [][]web.File{
		{entrants(more), {Name: "real.txt", Data: list}, doc(file)},
		{{Name: "real.txt", Data: list}, entrants(more), doc(file)},
	} {
		rs := web.Verify(order, nil, pin, nil)
		var lists, receipts int
		for _, r := range rs {
			switch r.Verdict.Kind {
			case receipt.DocEntrants:
				lists++
				if c := r.Verdict.Find(promo.CheckEntrantList); c == nil || c.Status != verdict.StatusFail || !strings.Contains(string(r.Verdict.JSON()), "two entrant lists") {
					t.Errorf("%s with two lists of its draw: %s", r.File, r.Verdict.JSON())
				}
			case receipt.DocFreezeReceipt:
				receipts++
				if c := r.Verdict.Find(promo.CheckEntrantRoot); c != nil && c.Status == verdict.StatusPass {
					t.Errorf("the receipt was checked against one of two lists: %s", r.Verdict.JSON())
				}
				// The bailiff's checks were asked for and cannot run: the
				// receipt fails entrant-list, not a pass on its public
				// checks that asks for the list.
				if c := r.Verdict.Find(promo.CheckEntrantList); r.Verdict.Status() != verdict.StatusFail || c == nil || c.Status != verdict.StatusFail || r.Note == web.NoteEntrantsMissing {
					t.Errorf("the receipt with two lists of its draw: %s, note %q", r.Verdict.JSON(), r.Note)
				}
			}
		}
		if lists != 2 || receipts != 1 {
			t.Errorf("%d list rows and %d receipt rows, want 2 and 1", lists, receipts)
		}
	}
	// In both languages, as the page shows it.
	for lang, want := range map[string][]string{
		"en": {`"subject":"freeze of promotion draw bonus-crescendo/1"`, "every check passed", "receipt matches the log", "entrant list file"},
		"fr": {`"subject":"gel du tirage promotionnel bonus-crescendo/1"`, "toutes les vérifications sont réussies", "reçu conforme au journal", "fichier de la liste des participants"},
	} {
		page := string(web.Render(web.Verify([]web.File{doc(file), entrants(list)}, nil, pin, nil), lang))
		for _, w := range want {
			if !strings.Contains(page, w) {
				t.Errorf("%s: the page lacks %q:\n%s", lang, w, page)
			}
		}
	}
}

// TestAttestationOnPage: an attestation dropped on the page — a DSSE
// envelope, or the attestation log record embedding one — is recognised
// and verified as rngverify attestation verifies it (its --json verdict,
// byte for byte) with the appliance's key announcement given as a trusted
// key (--attestation-key); another appliance's signature, an edited
// payload or a signed wrong figure is refused; without an announcement
// among the trusted keys (none, or one dropped among the documents, which
// is not trusted) the attestation-key check fails and the page says to
// give it; a build attestation carries the note that the page does not
// check its configuration and executable.
func TestAttestationOnPage(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	p := newPaytable(t, 5)
	a, st, env, edited := p.a, p.st, p.env, p.edited
	other, err := attestationstest.New(6, true)
	if err != nil {
		t.Fatal(err)
	}
	sign := func(a *attestationstest.Appliance, s *attestations.Statement) []byte {
		b, err := a.Sign(s)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	leaf, err := record.Format(attestations.NewRecord(time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC), a.KeyID, env, st))
	if err != nil {
		t.Fatal(err)
	}
	wrong, _ := attestations.NewPaytableStatement()
	wrong.Predicate.(*attestations.Paytable).Tiers[1].Triple = "86/970"
	bst, err := attestations.NewBuildStatement(attestations.BuildInput{
		Info:       &debug.BuildInfo{GoVersion: "go1.27.3", Path: "tirage.fr/tirage/cmd/rngd", Main: debug.Module{Path: "tirage.fr/tirage", Version: "v1.0.0"}},
		Executable: sha256.Sum256([]byte("\x7fELF rngd")),
		Config:     sha256.Sum256([]byte("listen = \":8443\"\n")),
		Keys:       a.Record.Keys,
	})
	if err != nil {
		t.Fatal(err)
	}
	trusted := []web.File{{Name: "announcement.json", Data: a.Announcement}}
	both := []web.File{{Name: "other.json", Data: other.Announcement}, trusted[0]}
	doc := func(name string, b []byte) []web.File { return []web.File{{Name: write(name, b), Data: b}} }
	for _, c := range []pageCase{
		{name: "envelope", docs: doc("paytable.dsse.json", env), anchors: trusted, status: verdict.StatusPass, check: receipt.CheckPredicate, checkIs: "pass"},
		{name: "record", docs: doc("record.json", leaf), anchors: trusted, status: verdict.StatusPass, check: verdict.CheckRecord, checkIs: "pass"},
		{name: "two announcements", docs: doc("paytable.dsse.json", env), anchors: both, status: verdict.StatusPass, check: receipt.CheckAttestationSignature, checkIs: "pass"},
		{name: "build", docs: doc("build.dsse.json", sign(a, bst)), anchors: trusted, status: verdict.StatusPass, check: receipt.CheckBuildKeys, checkIs: "pass", note: web.NoteBuildFiles},
		{name: "edited payload", docs: doc("edited.dsse.json", edited), anchors: trusted, status: verdict.StatusFail, check: receipt.CheckAttestationSignature, checkIs: "fail"},
		{name: "another appliance's", docs: doc("other.dsse.json", sign(other, st)), anchors: trusted, status: verdict.StatusFail, check: receipt.CheckAttestationSignature, checkIs: "fail"},
		{name: "signed wrong figure", docs: doc("figure.dsse.json", sign(a, wrong)), anchors: trusted, status: verdict.StatusMisbehaviour, check: receipt.CheckPredicate, checkIs: "misbehaviour"},
	} {
		c.doc = c.docs[0].Name
		c.args = []string{"attestation", c.doc}
		for _, f := range c.anchors {
			c.args = append(c.args, "--attestation-key", write(f.Name, f.Data))
		}
		if r := c.run(t); r.Verdict.Kind != receipt.DocAttestation {
			t.Errorf("%s: kind %q", c.name, r.Verdict.Kind)
		}
	}
	// No announcement trusted: rngverify refuses to run; the page fails
	// the key check and says what to give.
	for _, c := range []pageCase{
		{name: "no announcement", docs: doc("paytable.dsse.json", env), pins: record.Hex(a.Key().Fingerprint)},
		{name: "announcement among the documents", docs: append(doc("paytable.dsse.json", env), trusted...)},
		{name: "a log key file only", docs: doc("paytable.dsse.json", env), anchors: []web.File{{Name: "log.vkey", Data: readFile(t, "../cli/testdata/rngd/log.vkey")}}},
	} {
		c.doc, c.status, c.check, c.checkIs, c.note = c.docs[0].Name, verdict.StatusFail, receipt.CheckAttestationKey, "fail", web.NoteAnnouncementMissing
		r := c.run(t)
		for lang, want := range map[string]string{"en": "no key announcement given announces an attestation key", "fr": "aucune annonce de clés fournie n'annonce de clé d'attestation"} {
			if !strings.Contains(r.Verdict.Text(lang), want) {
				t.Errorf("%s, %s: lacks %q:\n%s", c.name, lang, want, r.Verdict.Text(lang))
			}
		}
	}
	// In both languages, as the page shows it.
	for lang, want := range map[string][]string{
		"en": {"every check passed", "in-toto statement, predicate", "every figure is the one the game's rules give"},
		"fr": {"toutes les vérifications sont réussies", "déclaration in-toto, prédicat", "chaque chiffre est celui que donne le règlement du jeu"},
	} {
		page := string(web.Render(web.Verify([]web.File{{Name: "paytable.dsse.json", Data: env}}, trusted, "", nil), lang))
		for _, w := range want {
			if !strings.Contains(page, w) {
				t.Errorf("%s: the page lacks %q:\n%s", lang, w, page)
			}
		}
	}
}

// freezeFixture is the freeze receipt fixture, parsed, and its log key.
func freezeFixture(t testing.TB) (file []byte, rc promo.FreezeReceipt, lk *checkpoint.Key) {
	t.Helper()
	file = readFile(t, freezeFile)
	if err := json.Unmarshal(file, &rc); err != nil || len(rc.LogKeys) != 1 {
		t.Fatalf("fixture: %v", err)
	}
	lk, err := checkpoint.ParseKey(rc.LogKeys[0])
	if err != nil {
		t.Fatal(err)
	}
	return file, rc, lk
}

// paytable is an appliance's signed paytable attestation: its statement,
// its envelope, and the envelope with a figure edited after signing.
type paytable struct {
	a           *attestationstest.Appliance
	st          *attestations.Statement
	env, edited []byte
}

func newPaytable(t testing.TB, seed byte) paytable {
	t.Helper()
	a, err := attestationstest.New(seed, false)
	if err != nil {
		t.Fatal(err)
	}
	st, err := attestations.NewPaytableStatement()
	if err != nil {
		t.Fatal(err)
	}
	env, err := a.Sign(st)
	if err != nil {
		t.Fatal(err)
	}
	var e announce.Envelope
	if err := json.Unmarshal(env, &e); err != nil {
		t.Fatal(err)
	}
	e.Payload = bytes.Replace(e.Payload, []byte(`"86/969"`), []byte(`"86/970"`), 1)
	edited, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	return paytable{a, st, env, edited}
}
