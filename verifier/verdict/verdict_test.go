package verdict

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestStatusAndErr(t *testing.T) {
	v := New("receipt", MsgSame, "x")
	if v.Status() != StatusFail || v.Err() == nil {
		t.Error("an empty verdict must not pass")
	}
	v.Pass(CheckFormat, NoDetail)
	v.Skip(CheckAlpha, MsgNoUsableAlpha)
	if v.Status() != StatusPass || v.Err() != nil || v.First() != nil {
		t.Errorf("pass + skip: %s %v", v.Status(), v.Err())
	}
	v.Fail(CheckLogKey, MsgNoTrustedLogKeyShort)
	if err := v.Err(); v.Status() != StatusFail || !errors.Is(err, ErrFailed) || errors.Is(err, ErrMisbehaviour) {
		t.Errorf("fail: %s %v", v.Status(), err)
	}
	v.Misbehaviour(CheckVRFProof, MsgPickErr, 7, M(MsgCauseInvalidProof))
	err := v.Err()
	var ce *CheckError
	if v.Status() != StatusMisbehaviour || !errors.Is(err, ErrMisbehaviour) || errors.Is(err, ErrFailed) || !errors.As(err, &ce) || ce.Check != CheckVRFProof || ce.Detail != "pick 7: invalid proof" || ce.Message == nil || ce.Message.Text("fr") != "sélection 7 : preuve invalide" {
		t.Errorf("misbehaviour outranks failure: %s %v", v.Status(), err)
	}
}

func TestRender(t *testing.T) {
	v := New("transcript", MsgSubjectGame, "g", 3)
	v.Pass(CheckChain, MsgChainOK, 3)
	v.Misbehaviour(CheckCommitment, MsgCommitBroken, 2)
	v.Fact("game", MsgGameFact, "g", 2, 1, Term("lost"))
	en, fr := v.Text("en"), v.Text("fr")
	for _, want := range []string{"[PASS] chain", "record chain", "[MISBEHAVIOUR] commitment", "MISBEHAVIOUR PROVEN",
		"checked: game g (3 records)", "3 records linked by hash", "the r revealed at the end (record 2) does not open the commitment H(r) of the start",
		"game: g: 2 picks, tier 1, lost"} {
		if !strings.Contains(en, want) {
			t.Errorf("English lacks %q:\n%s", want, en)
		}
	}
	for _, want := range []string{"[OK] chain", "chaîne des enregistrements", "[MANQUEMENT] commitment", "MANQUEMENT PROUVÉ",
		"contrôlé : partie g (3 enregistrements)", "3 enregistrements chaînés par empreinte",
		"le secret r révélé à la fin (enregistrement 2) ne correspond pas à l'engagement H(r) pris au début de la partie",
		"partie : g : 2 sélections, palier 1, perdue"} {
		if !strings.Contains(fr, want) {
			t.Errorf("French lacks %q:\n%s", want, fr)
		}
	}
	var j struct {
		Verdict string
		Checks  []Check
	}
	if err := json.Unmarshal(v.JSON(), &j); err != nil || j.Verdict != "misbehaviour" || len(j.Checks) != 2 || j.Checks[1].Status != StatusMisbehaviour {
		t.Errorf("JSON: %v %+v", err, j)
	}
	for name := range titles {
		for _, l := range []string{"fr", "en"} {
			if Title(name, l) == "" || Explanation(name, l) == "" {
				t.Errorf("%s has no %s title or explanation", name, l)
			}
		}
	}
}

// TestJSONMessages: --json keeps the English text in detail, subject and
// facts, and carries each text's message id and arguments beside it
// (nested messages as objects, words as strings, decimals as numbers,
// bytes as hex).
func TestJSONMessages(t *testing.T) {
	v := New("transcript", MsgSubjectGame, "g", 3)
	v.Misbehaviour(CheckVRFProof, MsgProofInvalid, M(MsgPickName, 3, 12, 4), "vrf-1", M(MsgCauseInvalidProof))
	v.Pass(CheckStatistics, MsgStatsOK, 5, Decimal{V: 1.25, Prec: 2}, Decimal{V: 5.3, Prec: 1})
	v.Fail(CheckConsistent, MsgForkRoots, M(MsgCauseFork), "qw==", "zQ==")
	v.Pass(CheckVRFProof, MsgBeta, []byte{0xab, 0xcd})
	v.Fact("game", MsgGameFact, "g", 2, 1, Term("lost"))
	var j struct {
		Subject        string
		SubjectMessage Msg `json:"subject_message"`
		Checks         []struct {
			Detail  string
			Message json.RawMessage
		}
		Facts []struct {
			Name, Value    string
			Label, Message json.RawMessage
		}
	}
	b := v.JSON()
	if err := json.Unmarshal(b, &j); err != nil {
		t.Fatal(err)
	}
	if j.Subject != "game g (3 records)" || j.SubjectMessage.ID != MsgSubjectGame {
		t.Errorf("subject: %s", b)
	}
	for i, want := range []struct{ detail, message string }{
		{"pick 3 (number 12, record 4): the proof does not verify under key vrf-1 (invalid proof)",
			`{"id":"proof-invalid","args":[{"id":"pick-name","args":[3,12,4]},"vrf-1",{"id":"cause-invalid-proof"}]}`},
		{"5 cells tested, largest |z| 1.25 (limit 5.3, false alarm < 1e-6)", `{"id":"stats-ok","args":[5,1.25,5.3]}`},
		{"log fork: misbehaviour (trusted root qw==, document root zQ==)", `{"id":"fork-roots","args":[{"id":"cause-fork"},"qw==","zQ=="]}`},
		{"β = abcd", `{"id":"beta","args":["abcd"]}`},
	} {
		var compact bytes.Buffer
		json.Compact(&compact, j.Checks[i].Message)
		if j.Checks[i].Detail != want.detail || compact.String() != want.message {
			t.Errorf("check %d: %q %s, want %q %s", i, j.Checks[i].Detail, compact.String(), want.detail, want.message)
		}
	}
	var label, value bytes.Buffer
	json.Compact(&label, j.Facts[0].Label)
	json.Compact(&value, j.Facts[0].Message)
	if f := j.Facts[0]; f.Name != "game" || f.Value != "g: 2 picks, tier 1, lost" || label.String() != `{"id":"same","args":["game"]}` ||
		value.String() != `{"id":"game-fact","args":["g",2,1,"lost"]}` {
		t.Errorf("fact: %+v %s %s", f, label.String(), value.String())
	}
	if fr := v.Text("fr"); !strings.Contains(fr, "plus grand |z| 1,25 (limite 5,3,") || !strings.Contains(fr, "partie : g : 2 sélections, palier 1, perdue") {
		t.Errorf("French:\n%s", fr)
	}
}

// TestErrorf: an error built from the catalog says its English text and
// wraps its error arguments.
func TestErrorf(t *testing.T) {
	inner := errors.New("connection refused")
	err := Errorf(MsgAuditCheckpointRead, inner)
	var me *MsgError
	if err.Error() != "couldn't read the checkpoint: connection refused" || !errors.Is(err, inner) || !errors.As(err, &me) ||
		me.Msg.Text("fr") != "impossible de lire le point de contrôle : connection refused" {
		t.Errorf("%v", err)
	}
}

// JSONError and Named: encoding/json's and x/mod tlog's errors keep their
// English text byte for byte and read in French without quoting English.
func TestLibraryErrors(t *testing.T) {
	decode := func(doc string, strict bool) error {
		var v struct {
			Draw string `json:"draw"`
		}
		dec := json.NewDecoder(strings.NewReader(doc))
		if strict {
			dec.DisallowUnknownFields()
		}
		return dec.Decode(&v)
	}
	for _, c := range []struct {
		err error
		id  MsgID
		fr  string
	}{
		{JSONError(json.Unmarshal([]byte("hello"), new(any))), MsgJSONSyntax, "ce n'est pas du JSON valide (erreur de syntaxe à l'octet 1)"},
		{JSONError(decode(`{"draw":5}`, false)), MsgJSONType, "champ « draw » : une valeur JSON de type « nombre » n'est pas du type attendu"},
		{JSONError(decode(`[true]`, false)), MsgJSONType, "le document : une valeur JSON de type « tableau » n'est pas du type attendu"},
		{JSONError(decode(`{"draw":`, false)), MsgJSONTruncated, "le JSON s'arrête avant la fin du document"},
		{JSONError(decode(`{"prize":"x"}`, true)), MsgJSONUnknownField, "champ JSON « prize » inconnu"},
		{Named(errors.New("invalid transparency proof"), MsgTlogInconsistentTile, MsgTlogProofFailed), MsgTlogProofFailed, "la preuve du journal de transparence ne mène pas à la racine signée"},
	} {
		var me *MsgError
		if c.err == nil || !errors.As(c.err, &me) || me.Msg.ID != c.id {
			t.Errorf("%v: not the message %s", c.err, c.id)
			continue
		}
		if fr := me.Msg.Text("fr"); fr != c.fr {
			t.Errorf("%s in French: %q, want %q", c.id, fr, c.fr)
		}
	}
	// English is the library's text, unchanged.
	for _, doc := range []string{"hello", `{"draw":5}`, `{"draw":`, `{"prize":"x"}`, `[1]`} {
		raw := decode(doc, true)
		if got := JSONError(raw); got.Error() != raw.Error() {
			t.Errorf("%s: %q, the decoder said %q", doc, got, raw)
		}
	}
	other := errors.New("something else")
	if JSONError(other) != other || Named(other, MsgTlogProofFailed) != other || JSONError(nil) != nil || Named(nil) != nil {
		t.Error("an error the catalog does not name must pass through unchanged")
	}
}

// TestParts: a verdict made of parts (a GetReceipts reply) sums up each
// part as one check — its status, subject and deciding check — so that it
// fails when one part fails and proves misbehaviour when one does; Text
// shows each part's verdict first, JSON nests them under "parts".
func TestParts(t *testing.T) {
	part := func(s Status) *Verdict {
		p := New("receipt", MsgSubjectReceiptOf, Term("pick"), 7)
		p.Pass(CheckFormat, NoDetail)
		switch s {
		case StatusFail:
			p.Fail(CheckLogKey, MsgNoTrustedLogKeyShort)
		case StatusMisbehaviour:
			p.Misbehaviour(CheckVRFProof, MsgBetaNotOutput)
		}
		return p
	}
	v := New("receipt", MsgSubjectReceiptsReply, 2)
	v.Pass(CheckFormat, MsgFromReceiptsReply)
	v.Part(CheckReceipt, part(StatusPass))
	v.Part(CheckReceipt, part(StatusPass))
	if v.Status() != StatusPass || len(v.Parts) != 2 || v.Checks[1].Detail != "receipt of a pick record at log index 7: every check passed" {
		t.Fatalf("all parts pass:\n%s", v.Text("en"))
	}
	v.Part(CheckReceipt, part(StatusFail))
	if c := v.First(); v.Status() != StatusFail || c.Name != CheckReceipt ||
		c.Detail != "receipt of a pick record at log index 7: NOT VERIFIED, check log-key: no trusted log key" ||
		c.Reason("fr") != "reçu d'un enregistrement « sélection » à l'index 7 du journal : NON VÉRIFIÉ, vérification log-key : aucune clé de journal de confiance" {
		t.Fatalf("a part fails:\n%s", v.Text("en"))
	}
	v.Part(CheckReceipt, part(StatusMisbehaviour))
	v.Part(CheckReceipt, New("receipt", MsgSubjectReceipt))
	if c := v.First(); v.Status() != StatusMisbehaviour || c != &v.Checks[4] || !strings.Contains(c.Detail, "MISBEHAVIOUR PROVEN, check vrf-proof: β in the record") ||
		v.Checks[5].Status != StatusFail || v.Checks[5].Detail != "receipt: NOT VERIFIED: no check ran" {
		t.Fatalf("a part proves misbehaviour:\n%s", v.Text("en"))
	}
	text := v.Text("fr")
	if i, j := strings.Index(text, "contrôlé : reçu d'un enregistrement"), strings.Index(text, "contrôlé : réponse GetReceipts, 2 reçu(s)"); i != 0 || j < i || strings.Count(text, "\ncontrôlé : ") != 5 {
		t.Errorf("Text: parts first, then the whole:\n%s", text)
	}
	var j struct {
		Verdict Status
		Checks  []Check
		Parts   []struct {
			Verdict Status
			Checks  []Check
		}
	}
	if err := json.Unmarshal(v.JSON(), &j); err != nil || j.Verdict != StatusMisbehaviour || len(j.Checks) != 6 || len(j.Parts) != 5 ||
		j.Parts[2].Verdict != StatusFail || j.Parts[3].Checks[1].Name != CheckVRFProof {
		t.Errorf("JSON: %v %+v", err, j)
	}
	// A verdict without parts has no "parts" member.
	if b := part(StatusPass).JSON(); bytes.Contains(b, []byte(`"parts"`)) {
		t.Errorf("JSON of a plain verdict: %s", b)
	}
}

// TestRepeatedMember: the first member given twice in one object is named
// with where it is; the same name in two objects, or nested under one,
// is no repetition; what is not JSON is left to the decoder.
func TestRepeatedMember(t *testing.T) {
	for _, c := range []struct{ doc, want string }{
		{`{"a": 1, "b": 2}`, ""},
		{`{"a": {"a": 1}, "b": [{"a": 1}, {"a": 2}]}`, ""},
		{`[{"a": 1}, {"a": 1}]`, ""},
		{`{"a": 1e999, "b": "x"}`, ""},
		{`{"a": 1, "a": 2}`, `member "a" given twice in the document`},
		{`{"record": 1, "Record": 2}`, `member "Record" given twice in the document`}, // one struct field
		{`{"\u0061": 1, "a": 2}`, `member "a" given twice in the document`},
		{`{"K": 1, "\u212a": 2}`, "member \"\u212a\" given twice in the document"}, // the Kelvin sign folds to K
		{`{"ab": 1, "a": 2, "b": 3}`, ""},
		{`{"a": [], "b": {"c": {"d": 1, "d": 1}}}`, `member "d" given twice in b.c`},
		{`{"r": [{"x": 1}, {"x": 1, "y": [1, {"z": 0, "z": 0}]}]}`, `member "z" given twice in r[1].y[1]`},
		{`[0, {"k": 1, "k": 2}]`, `member "k" given twice in [1]`},
		{`{"a": 1, "a"`, `member "a" given twice in the document`},
		{`{"a" 1, "a": 2}`, ""},
		{`not json`, ""},
		{``, ""},
	} {
		err := RepeatedMember([]byte(c.doc))
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.doc, err)
		case c.want == "":
		case err == nil || err.Error() != c.want:
			t.Errorf("%s: %v, want %s", c.doc, err, c.want)
		}
	}
	var me *MsgError
	if err := RepeatedMember([]byte(`{"a": {"b": 1, "b": 1}}`)); !errors.As(err, &me) || me.Msg.Text("fr") != "membre « b » donné deux fois dans a" {
		t.Errorf("French: %v", err)
	}
}
