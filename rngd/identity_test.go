package rngd

import (
	"context"
	"crypto/x509"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/grpc"

	qodv1 "tirage.fr/tirage/rngd/api/tirage/qod/v1"
)

// A game server's identity keys its games ("server NUL game id" among the
// unfinished ones) and its request ids (apart from the operator's "#admin"):
// a certificate naming a NUL, a control character or '#' is refused, so
// that server-a never lists the games of "server-a NUL x".
func TestIdentityCharacters(t *testing.T) {
	td := newTestDaemon(t)
	codes1 := td.emission("ID", "2026-12-31", 10)
	ctx := context.Background()
	for _, name := range []string{"server-a\x00x", "#admin", "server-a\nx"} {
		odd := qodv1.NewQuitteOuDoubleClient(td.connAs(name))
		_, err := odd.StartGame(ctx, &qodv1.StartGameRequest{RequestId: rid(), Code: codes1[2]})
		wantRefusal(t, err, reasonIdentityInvalid, "identity")
	}
	// Nothing was started: server-a lists none of them, and the code plays.
	l, err := td.client("server-a").ListUnfinishedGames(ctx, &qodv1.ListUnfinishedGamesRequest{})
	if err != nil || len(l.Games) != 0 {
		t.Fatalf("server-a lists %v (%v)", l.GetGames(), err)
	}
	start(t, td.client("server-a"), codes1[2])
}

// checkIdentity's refusal says which rule the character breaks: '#' is
// printable ASCII, so "not printable ASCII other than '#'" read as a
// contradiction for an identity such as "a#b".
func TestIdentityMessage(t *testing.T) {
	for id, want := range map[string]string{
		"a#b":   "character 2 is '#'",
		"a\x01": "character 2 is not printable ASCII",
		"aé":    "character 2 is not printable ASCII",
	} {
		err := checkIdentity(id)
		if err == nil || !strings.Contains(err.Error(), want) || (id != "a#b" && strings.Contains(err.Error(), "#")) {
			t.Errorf("checkIdentity(%q) = %v, want a message with %q", id, err, want)
		}
	}
}

// connAs connects to the daemon with a client certificate of the game
// servers' CA naming name, whatever it holds.
func (td *testDaemon) connAs(name string) *grpc.ClientConn {
	t := td.t
	t.Helper()
	ca, caKey, err := loadCA(td.pki)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := leafTemplate(name)
	tmpl.DNSNames = []string{name}
	tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}
	cert, key := filepath.Join(td.dir, "odd.pem"), filepath.Join(td.dir, "odd.key")
	if err := issue(tmpl, ca, caKey, cert, key); err != nil {
		t.Fatal(err)
	}
	tc, err := ClientTLS(cert, key, td.pki.CA())
	if err != nil {
		t.Fatal(err)
	}
	return td.connTLS(tc)
}
