package rngd

import (
	"bytes"
	"encoding/base64"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
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

// otherSpellings are strings that base64.RawURLEncoding decodes to the
// bytes of token (a token the daemon wrote) without being token: its last
// character with padding bits set, if it has any, and CR or LF inserted.
func otherSpellings(t testing.TB, token string) []string {
	t.Helper()
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	out := []string{token + "\n", token[:3] + "\r\n" + token[3:], "\n" + token}
	if len(token)%4 != 0 { // the last character carries 2 or 4 unused bits
		last := strings.IndexByte(alphabet, token[len(token)-1])
		out = append(out, token[:len(token)-1]+string(alphabet[last+1]))
	}
	for _, s := range out {
		if b, err := base64.RawURLEncoding.DecodeString(s); err != nil || base64.RawURLEncoding.EncodeToString(b) != token {
			t.Fatalf("%q does not decode as %q: %v", s, token, err)
		}
	}
	return out
}

// A page token is accepted in the one spelling the daemon writes: another
// string the base64url decoder reads as the same bytes (padding bits set,
// CR or LF inserted) is refused INVALID_ARGUMENT, PAGE_TOKEN_INVALID, so a
// page has one token.
func TestPageTokenCanonical(t *testing.T) {
	digits := strings.Repeat("0123456789abcdef", 2)
	refused := func(what, token string, err error) {
		t.Helper()
		if err == nil {
			t.Errorf("%s: %q accepted", what, token)
		} else if status.Code(err) != codes.InvalidArgument || reasonOf(err) != reasonPageTokenInvalid || !strings.Contains(err.Error(), "page_token") {
			t.Errorf("%s: %q refused with %v", what, token, err)
		}
	}
	// Identities of 1, 2 and 3 bytes mod 3: the tokens end on 0, 2 and 4
	// padding bits.
	for _, server := range []string{"server-a", "server-ab", "server-abc"} {
		id := server + "/" + digits
		token := pageToken(id)
		if got, err := parsePageToken(server, token); err != nil || got != id {
			t.Fatalf("%s: its own token reads %q, %v", id, got, err)
		}
		for _, s := range otherSpellings(t, token) {
			got, err := parsePageToken(server, s)
			refused("ListUnfinishedGames "+id, s, err)
			if got != "" {
				t.Errorf("%q refused with %q", s, got)
			}
		}
		p := expiredPlace{deadline: 1_800_000_000, key: joinKey(server, []byte(id))}
		if got, err := parseExpiredPageToken(p.token()); err != nil || got.compare(p) != 0 {
			t.Fatalf("%s: its own expired token reads %+v, %v", id, got, err)
		}
		for _, s := range otherSpellings(t, p.token()) {
			got, err := parseExpiredPageToken(s)
			refused("ListExpiredGames "+id, s, err)
			if got.key != nil {
				t.Errorf("%q refused with %+v", s, got)
			}
		}
	}
}
