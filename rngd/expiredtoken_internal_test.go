package rngd

import (
	"bytes"
	"strings"
	"testing"
)

// A ListExpiredGames page token names any game the store holds, its server
// an identity stored before checkIdentity refused '#' and non-ASCII too: a
// page ending on such a game must not stop rngctl's paging. Tokens not of
// that form are still refused.
func TestExpiredPageTokenOldIdentities(t *testing.T) {
	digits := strings.Repeat("0123456789abcdef", 2)
	for _, server := range []string{"jeux-1", "jeux#1", "serveur-é"} {
		id := server + "/" + digits
		p := expiredPlace{deadline: 1_800_000_000, key: joinKey(server, []byte(id))}
		got, err := parseExpiredPageToken(p.token())
		if err != nil {
			t.Fatalf("%s: the token of its place is refused: %v", server, err)
		}
		if got.compare(p) != 0 || !bytes.Equal(got.key, p.key) {
			t.Fatalf("%s: the token names %+v, want %+v", server, got, p)
		}
	}
	for _, id := range []string{"/" + digits, "jeux\x001/" + digits, "jeux-1/" + strings.ToUpper(digits), "jeux-1-" + digits} {
		p := expiredPlace{deadline: 1, key: joinKey("x", []byte(id))}
		if _, err := parseExpiredPageToken(p.token()); err == nil {
			t.Errorf("a token naming %q is accepted", id)
		}
	}
}
