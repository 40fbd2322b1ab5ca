package verdict

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestStatusAndErr(t *testing.T) {
	v := New("receipt", "x")
	if v.Status() != StatusFail || v.Err() == nil {
		t.Error("an empty verdict must not pass")
	}
	v.Pass(CheckFormat, "")
	v.Skip(CheckAlpha, "no α")
	if v.Status() != StatusPass || v.Err() != nil || v.First() != nil {
		t.Errorf("pass + skip: %s %v", v.Status(), v.Err())
	}
	v.Fail(CheckLogKey, "no key")
	if err := v.Err(); v.Status() != StatusFail || !errors.Is(err, ErrFailed) || errors.Is(err, ErrMisbehaviour) {
		t.Errorf("fail: %s %v", v.Status(), err)
	}
	v.Misbehaviour(CheckVRFProof, "pick %d: bad", 7)
	err := v.Err()
	var ce *CheckError
	if v.Status() != StatusMisbehaviour || !errors.Is(err, ErrMisbehaviour) || errors.Is(err, ErrFailed) || !errors.As(err, &ce) || ce.Check != CheckVRFProof || ce.Detail != "pick 7: bad" {
		t.Errorf("misbehaviour outranks failure: %s %v", v.Status(), err)
	}
}

func TestRender(t *testing.T) {
	v := New("transcript", "game g")
	v.Pass(CheckChain, "3 records")
	v.Misbehaviour(CheckCommitment, "r does not open H(r)")
	en, fr := v.Text("en"), v.Text("fr")
	for _, want := range []string{"[PASS] chain", "record chain", "[MISBEHAVIOUR] commitment", "MISBEHAVIOUR PROVEN", "r does not open H(r)"} {
		if !strings.Contains(en, want) {
			t.Errorf("English lacks %q:\n%s", want, en)
		}
	}
	for _, want := range []string{"[OK] chain", "chaîne des enregistrements", "[MANQUEMENT] commitment", "MANQUEMENT PROUVÉ"} {
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
