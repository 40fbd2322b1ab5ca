package verdict

import (
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
		"verified: game g (3 records)", "3 records linked by hash", "the r revealed at the end (record 2) does not open the commitment H(r) of the start",
		"game: g: 2 picks, tier 1, lost"} {
		if !strings.Contains(en, want) {
			t.Errorf("English lacks %q:\n%s", want, en)
		}
	}
	for _, want := range []string{"[OK] chain", "chaîne des enregistrements", "[MANQUEMENT] commitment", "MANQUEMENT PROUVÉ",
		"vérifié : partie g (3 enregistrements)", "3 enregistrements chaînés par empreinte",
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
