package web_test

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"tirage.fr/tirage/verifier/announce"
	"tirage.fr/tirage/verifier/checkpoint"
	"tirage.fr/tirage/verifier/receipt"
	"tirage.fr/tirage/verifier/receipt/receipttest"
	"tirage.fr/tirage/verifier/record"
	"tirage.fr/tirage/verifier/verdict"
	"tirage.fr/tirage/verifier/web"
)

// TestVerify runs the page's logic without a browser on the same documents
// as TestBrowserPage.
func TestVerify(t *testing.T) {
	paths := documents(t, t.TempDir())
	var files, anchors []web.File
	for k, p := range paths {
		if k == "pin" {
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		f := web.File{Name: filepath.Base(p), Data: b}
		if k == "vkey" {
			anchors = append(anchors, f) // the operator's key file, trusted
		} else {
			files = append(files, f)
		}
	}
	var docs []struct {
		File    string `json:"file"`
		Verdict string `json:"verdict"`
		Summary string `json:"summary"`
		Checks  []struct {
			Name, Status, Title, Explanation string
		} `json:"checks"`
	}
	if err := json.Unmarshal(web.Render(web.Verify(files, anchors, paths["pin"], nil), "en"), &docs); err != nil {
		t.Fatal(err)
	}
	// Edited files prove nothing against the appliance: not verified.
	want := map[string]string{"game.json": "pass", "game-tampered.json": "fail", "receipt.json": "pass",
		"certificate.json": "pass", "certificate-tampered.json": "fail", "junk.txt": "fail"}
	if len(docs) != len(want) {
		t.Errorf("%d documents, want %d", len(docs), len(want))
	}
	for _, d := range docs {
		if want[d.File] != d.Verdict {
			t.Errorf("%s: %s, want %s: %s", d.File, d.Verdict, want[d.File], d.Summary)
		}
		for _, c := range d.Checks {
			if c.Title == "" || (c.Explanation == "" && c.Name != "format") {
				t.Errorf("%s: check %s has no title or explanation", d.File, c.Name)
			}
		}
	}
	// The reasons, subjects and facts are in the language asked for.
	want2 := map[string]map[string][]string{
		"en": {"game-tampered.json": {"NOT VERIFIED (nothing proven either way) — failed check «in the log» (inclusion): record 1 at index", "not proof of misbehaviour: record 2 (game_end) does not link to record 1", "(number 1, record 1): recorded good, β gives losing",
			"game g-page record 2 (game_end): prev is not the leaf hash of record 1"},
			"certificate-tampered.json": {"not proof of misbehaviour", "rank 1: "},
			"junk.txt":                  {"not a Tirage receipt, transcript (or rngd's GetReceipts or GetTranscript reply), certificate, freeze receipt, attestation, entrant list or log key file"}},
		"fr": {"game-tampered.json": {"NON VÉRIFIÉ", "ce n'est pas une preuve de manquement : l'enregistrement 2 (fin de partie) ne se rattache pas à l'enregistrement 1", "(numéro 1, enregistrement 1) : enregistré « bon numéro », β donne « numéro perdant »",
			"partie g-page, enregistrement 2 (fin de partie) : le lien prev n'est pas l'empreinte de feuille de l'enregistrement 1"},
			"certificate-tampered.json": {"ce n'est pas une preuve de manquement", "rang 1 : "},
			"junk.txt":                  {"ce n'est ni un reçu, ni une transcription (ni une réponse GetReceipts ou GetTranscript de rngd), ni un certificat, ni un reçu de gel, ni une attestation"}},
	}
	for lang, byFile := range want2 {
		var docs []struct {
			File, Subject, Summary string
			Checks                 []struct{ Detail string }
			Facts                  []struct{ Name, Value string }
		}
		if err := json.Unmarshal(web.Render(web.Verify(files, anchors, paths["pin"], nil), lang), &docs); err != nil {
			t.Fatal(err)
		}
		for _, d := range docs {
			all := d.Subject + "\n" + d.Summary
			for _, c := range d.Checks {
				all += "\n" + c.Detail
			}
			for _, f := range d.Facts {
				all += "\n" + f.Name + ": " + f.Value
			}
			for _, w := range byFile[d.File] {
				if !strings.Contains(all, w) {
					t.Errorf("%s, %s lacks %q:\n%s", lang, d.File, w, all)
				}
			}
			// Technical details quoted from the core's errors stay English,
			// labelled so; everything else is French.
			prose := regexp.MustCompile(`en anglais\)? : « [^»]*»`).ReplaceAllString(all, "")
			for _, en := range []string{" record", " pick ", " the ", " does not ", "entrant", "fingerprint", "key(s)"} {
				if lang == "fr" && strings.Contains(prose, en) {
					t.Errorf("%s in French shows English %q:\n%s", d.File, en, all)
				}
			}
			if testing.Verbose() {
				t.Logf("%s %s:\n%s", lang, d.File, all)
			}
		}
	}

	// Without the key file and pin, nothing is trusted; nor when the key
	// file comes among the documents: it is shown as not trusted.
	for _, docs := range [][]web.File{files, append(slices.Clone(files), anchors...)} {
		for _, r := range web.Verify(docs, nil, "", nil) {
			if r.Verdict.Status() == "pass" {
				t.Errorf("%s passed without any trust anchor", r.File)
			}
			if r.File == "log.vkey" && r.Note != web.NoteKeyNotTrusted {
				t.Errorf("the key file among the documents: note %q, %s", r.Note, r.Verdict.Text("en"))
			}
		}
	}
}

// documents writes the test documents and returns their paths (and the pin).
func documents(t *testing.T, dir string) map[string]string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	put := func(key, name string, b []byte) {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		out[key] = p
	}
	a, err := receipttest.New(21)
	if err != nil {
		t.Fatal(err)
	}
	g, err := a.PlayGame(receipttest.Play{Game: "g-page", StopAt: 2})
	if err != nil {
		t.Fatal(err)
	}
	cert, entrants := readFile(t, "../cli/testdata/promo-certificate.json"), readFile(t, "../cli/testdata/promo-entrants.txt")
	// The log keys as the operators publish them: the appliance's and the
	// promotion log's (its certificate names it; here it stands for the
	// published key file).
	var c struct {
		LogKeys []string          `json:"log_keys"`
		Picks   []json.RawMessage `json:"picks"`
	}
	if err := json.Unmarshal(cert, &c); err != nil {
		t.Fatal(err)
	}
	put("vkey", "log.vkey", append(a.LogKeyFile(), []byte(strings.Join(c.LogKeys, "\n")+"\n")...))
	put("game", "game.json", a.Transcript(g, receipttest.TranscriptOptions{}))
	put("receipt", "receipt.json", a.Receipt(g, 1, true))
	out["pin"] = a.VRFPin()

	// A transcript whose first pick's outcome was edited.
	var tr receipt.Transcript
	json.Unmarshal(a.Transcript(g, receipttest.TranscriptOptions{}), &tr)
	r := tr.Records[1].Record
	if strings.Contains(r, `"outcome":"good"`) {
		r = strings.Replace(r, `"outcome":"good"`, `"outcome":"losing"`, 1)
	} else {
		r = strings.Replace(r, `"outcome":"losing"`, `"outcome":"good"`, 1)
	}
	tr.Records[1].Record = r
	put("game-tampered", "game-tampered.json", receipt.Marshal(&tr))

	put("certificate", "certificate.json", cert)
	put("entrants", "entrants.txt", entrants)
	// A certificate whose winner was changed.
	var m map[string]any
	json.Unmarshal(cert, &m)
	picks := m["picks"].([]any)
	p0 := picks[0].(map[string]any)
	p0["index"] = p0["index"].(float64) + 1
	b, _ := json.MarshalIndent(m, "", "  ")
	put("certificate-tampered", "certificate-tampered.json", b)
	put("junk", "junk.txt", []byte("hello\n"))
	return out
}

// bundle is what an attacker sends: documents of its own appliance with its
// keys — the log key file, its key announcement (unsigned, as the log's first
// leaf of receipttest, or sealed with the VRF key's proof of possession, as
// rngd announces) — and, for the pins, its keys' fingerprints.
type bundle struct {
	receipt, transcript, vkey, unsigned, sealed, swapped []byte
	vrfPin, logPin                                       string
}

func newBundle(t testing.TB, seed byte) bundle {
	t.Helper()
	a, err := receipttest.New(seed)
	if err != nil {
		t.Fatal(err)
	}
	g, err := a.PlayGame(receipttest.Play{Game: "g-k", StopAt: 1})
	if err != nil {
		t.Fatal(err)
	}
	r, err := record.Parse(a.Leaf(0))
	if err != nil {
		t.Fatal(err)
	}
	ka := r.(*record.KeyAnnouncement)
	ka.Keys = ka.Keys[:1] // the VRF key: receipttest holds no log key in announce's form
	sealed, err := announce.Seal(ka, func(_ int, m []byte) ([]byte, error) { return a.VRF.Prove(m) })
	if err != nil {
		t.Fatal(err)
	}
	// The same record, its key swapped after sealing.
	other, err := receipttest.New(seed + 1)
	if err != nil {
		t.Fatal(err)
	}
	ka.Keys[0].PublicKey = other.VRF.Public().Bytes()
	ka.Keys[0].Fingerprint = record.Fingerprint(ka.Keys[0].PublicKey)
	swapped, err := record.Format(ka)
	if err != nil {
		t.Fatal(err)
	}
	lk, err := checkpoint.ParseKey(a.LogKeys[0])
	if err != nil {
		t.Fatal(err)
	}
	return bundle{receipt: a.Receipt(g, 1, true), transcript: a.Transcript(g, receipttest.TranscriptOptions{}),
		vkey: a.LogKeyFile(), unsigned: a.Leaf(0), sealed: sealed, swapped: swapped, vrfPin: a.VRFPin(), logPin: lk.Fingerprint()}
}

// results maps file names to results; a missing file's verdict is an
// empty one (no check: not a pass).
func results(rs []web.Result) missing {
	m := map[string]web.Result{}
	for _, r := range rs {
		m[r.File] = r
	}
	return missing(m)
}

type missing map[string]web.Result

func (m missing) get(f string) web.Result {
	if r, ok := m[f]; ok {
		return r
	}
	return web.Result{File: f, Verdict: verdict.New("", verdict.MsgSame, f+" (no result)")}
}

// TestDroppedKeysAreNotTrusted: a bundle of an attacker's documents and its
// own keys — key announcement or log key file dropped with the documents —
// does not pass (it did when the page trusted dropped keys): the documents
// fail their log-key check, as rngverify without --log-key or --pin, and
// each key file is shown as not trusted, with its fingerprints.
func TestDroppedKeysAreNotTrusted(t *testing.T) {
	b := newBundle(t, 22)
	for name, keys := range map[string][]web.File{
		"key announcement":             {{Name: "keys.json", Data: b.unsigned}},
		"sealed announcement":          {{Name: "keys.json", Data: b.sealed}},
		"sealed announcement and vkey": {{Name: "keys.json", Data: b.sealed}, {Name: "log.vkey", Data: b.vkey}},
	} {
		docs := append(slices.Clone(keys), web.File{Name: "receipt.json", Data: b.receipt}, web.File{Name: "game.json", Data: b.transcript})
		res := results(web.Verify(docs, nil, "", nil))
		for _, f := range []string{"receipt.json", "game.json"} {
			v := res.get(f).Verdict
			if v.Status() == "pass" || v.Find(verdict.CheckLogKey) == nil || v.Find(verdict.CheckLogKey).Status != verdict.StatusFail {
				t.Errorf("%s: %s is not refused for its log key:\n%v", name, f, v.Text("en"))
				continue
			}
			if why := v.Find(verdict.CheckLogKey).Reason("en"); !strings.Contains(why, "no trusted log key") || !strings.Contains(why, b.logPin) {
				t.Errorf("%s: %s: log-key: %s", name, f, why)
			}
		}
		for _, k := range keys {
			r := res.get(k.Name)
			if r.Verdict.Status() == "pass" || r.Note != web.NoteKeyNotTrusted || !strings.Contains(r.Verdict.Text("en"), b.vrfPin[strings.Index(b.vrfPin, ":")+1:][:16]) && !strings.Contains(r.Verdict.Text("en"), b.logPin) {
				t.Errorf("%s: %s among the documents: note %q\n%v", name, k.Name, r.Note, r.Verdict.Text("en"))
			}
			// A VRF key is shown as the pin to type in 1 once compared,
			// SUITE:fingerprint (the suite is part of what is trusted).
			if k.Name == "keys.json" && !strings.Contains(r.Verdict.Text("en"), "vrf "+b.vrfPin+",") && !strings.Contains(r.Verdict.Text("en"), "vrf "+b.vrfPin+":") {
				t.Errorf("%s: the VRF key is not shown as its pin %s:\n%v", name, b.vrfPin, r.Verdict.Text("en"))
			}
		}
	}
}

// TestAnchors: the same keys given as anchors (apart from the documents)
// are trusted; a key announcement only if it passes announce.Check, and a
// refused anchor trusts nothing and says why.
func TestAnchors(t *testing.T) {
	b := newBundle(t, 22)
	docs := []web.File{{Name: "receipt.json", Data: b.receipt}, {Name: "game.json", Data: b.transcript}}
	pass := func(name string, rs []web.Result, want ...string) {
		t.Helper()
		res := results(rs)
		for _, f := range want {
			if v := res.get(f).Verdict; v.Status() != "pass" {
				t.Errorf("%s: %s does not pass:\n%v", name, f, v.Text("en"))
			}
		}
	}
	anchors := []web.File{{Name: "keys.json", Data: b.sealed}, {Name: "log.vkey", Data: b.vkey}}
	rs := web.Verify(docs, anchors, "", nil)
	if len(rs) != 2 {
		t.Errorf("%d results, want the 2 documents", len(rs))
	}
	pass("sealed announcement and vkey", rs, "receipt.json", "game.json")
	// Pinned fingerprints alone (the VRF key's with its suite).
	pass("pins", web.Verify(docs, nil, b.vrfPin+", "+strings.ToUpper(b.logPin), nil), "receipt.json", "game.json")
	// The VRF key's bare fingerprint fixes its bytes, not its suite: the
	// receipt (which names the suite itself) fails vrf-key; the transcript,
	// whose key announcement fixes the suite, passes.
	bareVRF := b.vrfPin[strings.Index(b.vrfPin, ":")+1:]
	res0 := results(web.Verify(docs, nil, bareVRF+" "+b.logPin, nil))
	if v := res0.get("receipt.json").Verdict; v.Status() != "fail" || v.Find(verdict.CheckVRFKey) == nil || v.Find(verdict.CheckVRFKey).Status != verdict.StatusFail ||
		!strings.Contains(v.Find(verdict.CheckVRFKey).Reason("en"), "pin SUITE:fingerprint") {
		t.Errorf("receipt, bare VRF pin:\n%s", v.Text("en"))
	}
	pass("bare VRF pin", web.Verify(docs, nil, bareVRF+" "+b.logPin, nil), "game.json")
	// A pin naming the other suite: not trusted.
	if v := results(web.Verify(docs, nil, "ECVRF-P256-SHA256-TAI:"+bareVRF+" "+b.logPin, nil)).get("receipt.json").Verdict; v.Status() == "pass" {
		t.Errorf("receipt, other suite pinned:\n%s", v.Text("en"))
	}
	// The key files also among the documents: shown as trusted.
	pass("keys also among the documents", web.Verify(append(slices.Clone(anchors), docs...), anchors, "", nil), "keys.json", "log.vkey", "receipt.json", "game.json")
	// The transcript's VRF key is announced in the trusted log; the receipt's
	// is not trusted without the announcement.
	res := results(web.Verify(docs, anchors[1:], "", nil))
	if v := res.get("receipt.json").Verdict; v.Status() == "pass" || v.Find(verdict.CheckVRFKey) == nil || v.Find(verdict.CheckVRFKey).Status != verdict.StatusFail {
		t.Errorf("receipt without its VRF key anchored:\n%s", v.Text("en"))
	}
	pass("vkey", web.Verify(docs, anchors[1:], "", nil), "game.json")

	// Refused anchors: an unsigned or tampered announcement, a document.
	for name, c := range map[string]struct {
		data   []byte
		en, fr string
	}{
		"unsigned":        {b.unsigned, "bad key announcement: envelope", "annonce des clés invalide"},
		"swapped":         {b.swapped, "bad key announcement: payload", "annonce des clés invalide"},
		"a receipt":       {b.receipt, "not a key announcement", "ce n'est pas une annonce de clés"},
		"junk":            {[]byte("hello\n"), "line 1", "ligne 1"},
		"a bad pin":       {nil, "--pin \"12ab\"", "64 chiffres hexadécimaux"},
		"a bad suite pin": {nil, "--pin \"ECVRF-X:", "SUITE:64 chiffres hexadécimaux"},
	} {
		var anchors []web.File
		pins := "12ab " + b.logPin
		if name == "a bad suite pin" {
			pins = "ECVRF-X:" + b.vrfPin[strings.Index(b.vrfPin, ":")+1:] + " " + b.logPin
		}
		if c.data != nil {
			anchors, pins = []web.File{{Name: "keys.json", Data: c.data}}, b.logPin
		}
		rs := web.Verify(docs, anchors, pins, nil)
		if len(rs) != 3 {
			t.Errorf("%s: %d results, want the refusal and the 2 documents", name, len(rs))
			continue
		}
		r := rs[0]
		want := web.NoteAnchorRefused
		if c.data == nil {
			want = web.NotePinRefused
		}
		if r.Note != want || r.Verdict.Status() != "fail" || !strings.Contains(r.Verdict.Text("en"), c.en) || !strings.Contains(r.Verdict.Text("fr"), c.fr) {
			t.Errorf("%s: note %q\n%s\n%s", name, r.Note, r.Verdict.Text("en"), r.Verdict.Text("fr"))
		}
		if rs[1].Verdict.Status() == "pass" {
			t.Errorf("%s: receipt passed with a refused anchor:\n%s", name, rs[1].Verdict.Text("en"))
		}
	}
	// The page is told the note.
	var page []struct{ File, Note string }
	if err := json.Unmarshal(web.Render(web.Verify([]web.File{{Name: "keys.json", Data: b.sealed}}, []web.File{{Name: "bad.json", Data: b.unsigned}}, "", nil), "fr"), &page); err != nil {
		t.Fatal(err)
	}
	if len(page) != 2 || page[0].Note != web.NoteAnchorRefused || page[1].Note != web.NoteKeyNotTrusted {
		t.Errorf("rendered notes: %+v", page)
	}
}

// TestDaemonRepliesOnPage: the page takes what rngd's gRPC API returns as
// grpcurl prints it (verifier/cli/testdata/rngd/*-reply.json): the
// GetTranscript reply as its transcript, the GetReceipts reply as one
// result per receipt; fingerprints pinned as rngctl prints them
// (SHA256:hex) are taken. Before, both replies were "not a Tirage …" file,
// and the SHA256: pin refused.
func TestDaemonRepliesOnPage(t *testing.T) {
	const dir = "../cli/testdata/rngd"
	read := func(name string) web.File {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return web.File{Name: name, Data: b}
	}
	vkey := read("log.vkey")
	k, err := checkpoint.ParseKey(strings.TrimSpace(string(vkey.Data)))
	if err != nil {
		t.Fatal(err)
	}
	var tr receipt.Transcript
	if err := json.Unmarshal(read("transcript.json").Data, &tr); err != nil {
		t.Fatal(err)
	}
	pk := tr.VRFKeys[0]
	raw, _ := hex.DecodeString(pk.PublicKey)
	pins := "SHA256:" + k.Fingerprint() + "\n" + pk.Suite + ":" + record.Hex(record.Fingerprint(raw))
	rs := web.Verify([]web.File{read("transcript-reply.json"), read("receipts-reply.json")}, []web.File{vkey}, pins, nil)
	if len(rs) != 9 {
		t.Fatalf("%d results, want 9 (the transcript, 8 receipts)", len(rs))
	}
	for i, r := range rs {
		if r.Verdict.Status() != verdict.StatusPass || r.Note != "" {
			t.Errorf("%s: %s %q\n%s", r.File, r.Verdict.Status(), r.Note, r.Verdict.Text("en"))
		}
		if i > 0 && (r.File != "receipts-reply.json" || !strings.HasSuffix(r.Verdict.SubjectText("fr"), " sur 8)")) {
			t.Errorf("receipt %d: %s, %s", i, r.File, r.Verdict.SubjectText("fr"))
		}
	}
	// The log key pinned as rngctl prints it, no key file: the transcript
	// (which names its log key and announces its VRF key) passes.
	rs = web.Verify([]web.File{read("transcript-reply.json")}, nil, "sha256:"+k.Fingerprint(), nil)
	if len(rs) != 1 || rs[0].Verdict.Status() != verdict.StatusPass {
		t.Errorf("SHA256: pin: %+v", rs)
	}
}

// TestDroppedKeyUnknownSuite: a key announcement dropped among the
// documents whose VRF key names a suite this verifier does not know shows
// the key's bare fingerprint with the suite marked unknown — no pin can
// trust it (a SUITE:FP pin with that suite is refused) — as rngverify
// --tofu does. Before, the page showed "vrf SUITE:FP", a "pin" that the
// pin zone refused when pasted.
func TestDroppedKeyUnknownSuite(t *testing.T) {
	a, err := receipttest.New(23)
	if err != nil {
		t.Fatal(err)
	}
	r, err := record.Parse(a.Leaf(0))
	if err != nil {
		t.Fatal(err)
	}
	ka := r.(*record.KeyAnnouncement)
	ka.Keys[0].Suite = "ECVRF-X"
	leaf, err := record.Format(ka)
	if err != nil {
		t.Fatal(err)
	}
	fp := record.Hex(ka.Keys[0].Fingerprint)
	res := results(web.Verify([]web.File{{Name: "keys.json", Data: leaf}}, nil, "", nil))
	v := res.get("keys.json").Verdict
	c := v.Find(verdict.CheckLogKey)
	if c == nil || c.Status != verdict.StatusFail || res.get("keys.json").Note != web.NoteKeyNotTrusted {
		t.Fatalf("not refused:\n%s", v.Text("en"))
	}
	en, fr := c.Reason("en"), c.Reason("fr")
	if !strings.Contains(en, "vrf "+fp+` (suite "ECVRF-X" unknown: it cannot be pinned)`) || strings.Contains(en, "ECVRF-X:") ||
		!strings.Contains(fr, "vrf "+fp+" (suite « ECVRF-X » inconnue : la clé ne peut pas être épinglée)") {
		t.Errorf("the key is not shown as a bare fingerprint with its suite unknown:\n%s\n%s", en, fr)
	}
	// What is shown as a pin is one: the bare fingerprint is taken.
	for _, p := range regexp.MustCompile(`[A-Za-z0-9-]+:[0-9a-f]{64}`).FindAllString(en, -1) {
		if _, _, err := receipt.ParsePin(p); err != nil {
			t.Errorf("shown as a pin, refused as one: %s: %v", p, err)
		}
	}
	if _, _, err := receipt.ParsePin(fp); err != nil {
		t.Errorf("bare fingerprint %s refused: %v", fp, err)
	}
}

// A key announcement made by anyone — here of one attestation key, sealed
// by that key — dropped among the documents is not trusted: its own seal
// proves only that its maker holds the key. (Its attestation key showed as
// trusted, the announcement passed, and the page invited the player to
// give it as a trusted key.) Given as an anchor, the same announcement
// makes its key trusted where it is dropped again.
func TestDroppedAttestationKeyNotTrusted(t *testing.T) {
	b := selfMadeAnnouncement(t)
	dropped := []web.File{{Name: "operator-keys.json", Data: b}}
	r := results(web.Verify(dropped, nil, "", nil)).get("operator-keys.json")
	if r.Verdict.Status() == verdict.StatusPass || r.Note != web.NoteKeyNotTrusted {
		t.Errorf("a self-made attestation key announcement among the documents: %s, note %q\n%s", r.Verdict.Status(), r.Note, r.Verdict.Text("en"))
	}
	r = results(web.Verify(dropped, []web.File{{Name: "anchor.json", Data: b}}, "", nil)).get("operator-keys.json")
	if r.Verdict.Status() != verdict.StatusPass || r.Note != "" {
		t.Errorf("the same announcement, also given as an anchor: %s, note %q\n%s", r.Verdict.Status(), r.Note, r.Verdict.Text("en"))
	}
}

// selfMadeAnnouncement is a key announcement of one attestation key,
// sealed by that key, as anyone can make one.
func selfMadeAnnouncement(t testing.TB) []byte {
	t.Helper()
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	ka := &record.KeyAnnouncement{Time: time.Date(2026, 11, 30, 3, 0, 0, 0, time.UTC),
		Keys: []record.Key{{ID: "att-evil", Use: announce.UseAttestation, Suite: announce.Ed25519, PublicKey: der, Fingerprint: record.Fingerprint(der)}}}
	b, err := announce.Seal(ka, func(_ int, m []byte) ([]byte, error) { return ed25519.Sign(priv, m), nil })
	if err != nil {
		t.Fatal(err)
	}
	return b
}
