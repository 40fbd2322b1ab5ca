package verdict

import (
	"errors"
	"testing"
)

// TestX509Error: crypto/x509's refusals keep their English text and are
// named in the catalog; an unknown one is an unreadable key with its text
// as the detail, and X509Named leaves it (and look-alikes) alone.
func TestX509Error(t *testing.T) {
	if X509Error(nil) != nil {
		t.Error("X509Error(nil) is not nil")
	}
	for _, c := range []struct {
		text string
		id   MsgID
	}{
		{"x509: unknown public key algorithm", MsgX509UnknownAlgorithm},
		{"x509: X25519 key encoded with illegal parameters", MsgX509IllegalParams},
		{"x509: ML-DSA key encoded with illegal parameters", MsgX509IllegalParams},
		{"invalid P384 point encoding", MsgX509PointEncoding},
		{"P521 point not on curve", MsgX509PointOffCurve},
		{"x509: zero or negative DSA parameter", MsgX509DSAZero},
		{"x509: something new", MsgX509Unreadable},
		{"vrf: public key: a point not on curve", MsgX509Unreadable},
	} {
		raw := errors.New(c.text)
		err := X509Error(raw)
		var me *MsgError
		if !errors.As(err, &me) || me.Msg.ID != c.id || err.Error() != c.text {
			t.Errorf("%q: %v (%#v), want %s with the same text", c.text, err, me, c.id)
		}
		if named := X509Named(raw); (named == raw) != (c.id == MsgX509Unreadable) {
			t.Errorf("X509Named(%q) = %v", c.text, named)
		}
	}
}
