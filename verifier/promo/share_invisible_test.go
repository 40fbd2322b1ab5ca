package promo

import (
	"errors"
	"testing"

	"tirage.fr/tirage/verifier/verdict"
)

// TestShareInvisibleRefused: a typed share is printable text. A character
// that does not print (zero-width, bidi override, soft hyphen) or a space
// other than U+0020 (no-break, ideographic) makes a share that reads, on the
// procès-verbal and on a terminal, as another one: whoever can alter the
// share before the proof (a --share-file, a terminal in between) could try
// such variants, each with its own β, and keep the winner it prefers.
func TestShareInvisibleRefused(t *testing.T) {
	for _, ok := range []string{"text:Maître Dupont, huissier, 21 juin 2016", "text:« n° 1 » 21/06 œuvre", "text:12345678"} {
		if got, err := ParseShare(ok); err != nil || got != ok {
			t.Errorf("ParseShare(%q) = %q, %v", ok, got, err)
		}
	}
	for _, bad := range []string{
		"text:Bonjour\u00a0monde",  // no-break space
		"text:Bonjour\u202fmonde",  // narrow no-break space
		"text:Bonjour\u3000monde",  // ideographic space
		"text:Bon\u200bjour monde", // zero-width space
		"text:Bonjour\u00admonde",  // soft hyphen
		"text:Bonjour \u202emonde", // right-to-left override
		"text:Bonjour\u2028monde",  // line separator
		"text:Bonjour\ufeffmonde",  // zero-width no-break space
		"text:Bonjour\ue000monde",  // private use
	} {
		_, err := ParseShare(bad)
		var me *verdict.MsgError
		if !errors.As(err, &me) || me.Msg.ID != verdict.MsgShareInvisible {
			t.Errorf("ParseShare(%+q) = %v, want %s", bad, err, verdict.MsgShareInvisible)
		}
		if _, err := ShareFromText(bad[5:]); err == nil {
			t.Errorf("ShareFromText(%+q) accepted", bad[5:])
		}
	}
}
