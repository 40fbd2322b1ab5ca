package verdict

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestTextAligned: in a verdict's text the check names start in one
// column whatever the statuses, MISBEHAVIOUR and French's OK, ÉCHEC and —
// included: the statuses are right-aligned on the widest of the language.
// Before, "[MISBEHAVIOUR] x" and "[OK] x" pushed or pulled the column.
func TestTextAligned(t *testing.T) {
	v := New("receipt", MsgSubjectLog)
	v.Pass("format", MsgSame, "a")
	v.Fail("record", MsgSame, "b")
	v.Misbehaviour("chain", MsgSame, "c")
	v.Skip("alpha", MsgSame, "d")
	for _, lang := range []string{"en", "fr"} {
		col := -1
		for _, line := range strings.Split(v.Text(lang), "\n") {
			i := strings.Index(line, "] ")
			if !strings.HasPrefix(strings.TrimLeft(line, " "), "[") || i < 0 {
				continue
			}
			at := utf8.RuneCountInString(line[:i])
			if col >= 0 && at != col {
				t.Errorf("%s: check column at %d, not %d:\n%s", lang, at, col, v.Text(lang))
			}
			col = at
		}
		if col < 0 {
			t.Fatalf("%s: no check line:\n%s", lang, v.Text(lang))
		}
	}
	if en := v.Text("en"); !strings.Contains(en, "\n          [PASS] format ") || !strings.Contains(en, "\n  [MISBEHAVIOUR] chain ") {
		t.Errorf("English statuses not right-aligned on [MISBEHAVIOUR]:\n%s", en)
	}
}
