package rngd

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/status"

	"tirage.fr/tirage/verifier/calendar"
	"tirage.fr/tirage/verifier/qod"
)

// FuzzDecodeRequest: a value of the requests bucket (state.db, read back
// from disk) that decodeRequest accepts is one encodeRequest writes, byte
// for byte: no other value passes for a stored reply.
func FuzzDecodeRequest(f *testing.F) {
	for _, r := range []storedRequest{
		{digest: [32]byte{1}, at: 1_700_000_000, reply: []byte("reply bytes")},
		{digest: [32]byte{2}, at: 1_700_000_001},
		{digest: [32]byte{3}, at: -1, game: "server-a/0192a3b4c5d6e7f8091a2b3c4d5e6f7081", first: 2, end: 4},
	} {
		f.Add(encodeRequest(r))
	}
	f.Add(append(make([]byte, requestHeader), replyRecords, 0, 0, 0, 0, 0, 0, 0, 1))
	f.Add(make([]byte, requestHeader))
	f.Fuzz(func(t *testing.T, raw []byte) {
		r, err := decodeRequest(raw)
		if err != nil {
			if r.game != "" || r.reply != nil {
				t.Fatalf("refused (%v) with a request: %+v", err, r)
			}
			return
		}
		if again := encodeRequest(r); !bytes.Equal(again, raw) {
			t.Fatalf("decoded %x as %+v, written again %x", raw, r, again)
		}
	})
}

// FuzzParsePageToken: a ListUnfinishedGames page_token (any bytes a game
// server sends) that parses names one of the caller's own game ids, and
// is that id's token, byte for byte (one spelling per page); every game
// id's token parses.
func FuzzParsePageToken(f *testing.F) {
	id := "server-a/0192a3b4c5d6e7f8091a2b3c4d5e6f7081"
	f.Add("server-a", pageToken(id))
	f.Add("server-b", pageToken(id))
	f.Add("server-a", pageToken("server-a/0192a3b4c5d6e7f8091a2b3c4d5e6f708"))
	f.Add("", pageToken("/0192a3b4c5d6e7f8091a2b3c4d5e6f7081"))
	f.Add("server-a", "AXNlcnZlci1h")
	// Tokens of game ids gameID makes (the ids above have 34 digits, not
	// gameIDDigits), whose last character has 0, 2 and 4 padding bits.
	for _, server := range []string{"server-a", "server-ab", "server-abc"} {
		token := pageToken(gameID(server, time.UnixMilli(1_700_000_000_000), []byte("0123456789")))
		f.Add(server, token)
		for _, s := range otherSpellings(f, token) {
			f.Add(server, s)
		}
	}
	f.Fuzz(func(t *testing.T, server, token string) {
		got, err := parsePageToken(server, token)
		if err != nil {
			if got != "" || !strings.Contains(err.Error(), "page_token") {
				t.Fatalf("refused with %q: %v", got, err)
			}
			return
		}
		digits, ok := strings.CutPrefix(got, server+"/")
		if !ok || len(digits) != gameIDDigits || strings.Trim(digits, "0123456789abcdef") != "" {
			t.Fatalf("token %q of %q: game id %q", token, server, got)
		}
		if pageToken(got) != token {
			t.Fatalf("token %q of %q accepted, its token is %q", token, got, pageToken(got))
		}
		if again, err := parsePageToken(server, pageToken(got)); err != nil || again != got {
			t.Fatalf("token of %q: %q, %v", got, again, err)
		}
	})
}

// FuzzParseExpiredPageToken: a ListExpiredGames page_token that parses
// names a game id's place (a server, "/", gameIDDigits lowercase hex
// digits, and a deadline), and is that place's token, byte for byte.
func FuzzParseExpiredPageToken(f *testing.F) {
	for _, p := range []expiredPlace{
		{deadline: 1_700_000_000, key: joinKey("server-a", []byte("server-a/0192a3b4c5d6e7f8091a2b3c4d5e6f7081"))},
		{deadline: 0, key: joinKey("s/t", []byte("s/t/0192a3b4c5d6e7f8091a2b3c4d5e6f7081"))},
		{deadline: 1<<64 - 1, key: joinKey("x", []byte("x/00000000000000000000000000000000"))},
	} {
		f.Add(p.token())
	}
	f.Add("AQ")
	for _, server := range []string{"server-a", "server-ab", "server-abc"} {
		id := gameID(server, time.UnixMilli(1_700_000_000_000), []byte("0123456789"))
		token := expiredPlace{deadline: 1_702_592_000_000, key: joinKey(server, []byte(id))}.token()
		f.Add(token)
		for _, s := range otherSpellings(f, token) {
			f.Add(s)
		}
	}
	f.Fuzz(func(t *testing.T, token string) {
		p, err := parseExpiredPageToken(token)
		if err != nil {
			if p.key != nil || !strings.Contains(err.Error(), "page_token") {
				t.Fatalf("refused with %+v: %v", p, err)
			}
			return
		}
		server, id, ok := strings.Cut(string(p.key), "\x00")
		digits, mine := strings.CutPrefix(id, server+"/")
		if !ok || server == "" || server == adminServer || !mine ||
			len(digits) != gameIDDigits || strings.Trim(digits, "0123456789abcdef") != "" {
			t.Fatalf("token %q: key %q", token, p.key)
		}
		if p.token() != token {
			t.Fatalf("token %q of %+v accepted, its token is %q", token, p, p.token())
		}
		again, err := parseExpiredPageToken(p.token())
		if err != nil || again.compare(p) != 0 {
			t.Fatalf("token of %+v: %+v, %v", p, again, err)
		}
	})
}

// quotedRe matches what an error quotes.
var quotedRe = regexp.MustCompile(`"([^"]*)"|'([^']*)'`)

// FuzzLoadConfig: whatever the config file holds, LoadConfig and the
// checks after it (withDefaults) do not panic, and a value given to a
// secret's path (keys.passphrase_file, keys.pin_file), where an operator
// may type the secret itself, is never quoted back by LoadConfig's error,
// in whatever table it lands.
func FuzzLoadConfig(f *testing.F) {
	example, err := os.ReadFile("../examples/rngd.toml")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(example), true, false, `hunter2secret`)
	f.Add(string(example), false, true, `hunter2secret`)
	f.Add(configTOML(map[string]string{"keys.passphrase_file": "-"}), false, false, `hunter2secret`)
	f.Add(configTOML(map[string]string{"keys.passphrase_file": "-"}), false, true, `"/etc/tirage/keystore.pass"`)
	f.Add("[grpc]\nlisten = \"127.0.0.1:7443\"", true, true, `"a" "b"`)
	f.Add("", false, false, `'hunter2`)
	f.Fuzz(func(t *testing.T, head string, table, pin bool, value string) {
		key := "passphrase_file"
		if pin {
			key = "pin_file"
		}
		line := "keys." + key + " = "
		if table {
			line = "[keys]\n" + key + " = "
		}
		text := head + "\n" + line + value + "\n"
		p := filepath.Join(t.TempDir(), "rngd.toml")
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		c, err := LoadConfig(p)
		if err == nil {
			c.withDefaults()
			c.checkFor(forRebuild)
			return
		}
		// What the parser's error quotes must come from elsewhere in the
		// file, not from the value.
		for _, m := range quotedRe.FindAllStringSubmatch(err.Error(), -1) {
			q := m[1] + m[2]
			if len(q) >= 3 && strings.Contains(value, q) && !strings.Contains(head+"\n"+line, q) {
				t.Fatalf("%q of the value in\n%s\nquoted back: %v", q, text, err)
			}
		}
	})
}

// FuzzReadSecret: a passphrase or PIN file is read whole when it holds at
// most MaxSecretFile bytes and refused when longer (without a byte of it in
// the error), and one trailing newline, LF or CRLF, is all TrimNewline
// drops.
func FuzzReadSecret(f *testing.F) {
	f.Add([]byte("correct horse\n"), uint16(0))
	f.Add([]byte("1234\r\n"), uint16(0))
	f.Add([]byte("pin\n\n"), uint16(0))
	f.Add([]byte("\r\n"), uint16(0))
	f.Add([]byte("s"), uint16(MaxSecretFile))
	f.Add([]byte("s"), uint16(MaxSecretFile+1))
	f.Fuzz(func(t *testing.T, b []byte, pad uint16) {
		secret := append(bytes.Repeat([]byte{'x'}, int(pad)), b...)
		got, err := ReadSecretFrom(bytes.NewReader(secret))
		if len(secret) > MaxSecretFile {
			if err == nil || got != nil || strings.Contains(err.Error(), "x") {
				t.Fatalf("%d bytes: %d read, %v", len(secret), len(got), err)
			}
			return
		}
		if err != nil || !bytes.Equal(got, secret) {
			t.Fatalf("%q read as %q, %v", secret, got, err)
		}
		trimmed := TrimNewline(bytes.Clone(got))
		switch cut := string(secret[len(trimmed):]); {
		case !bytes.HasPrefix(secret, trimmed):
			t.Fatalf("%q trimmed to %q", secret, trimmed)
		case cut == "\r\n", cut == "\n" && !bytes.HasSuffix(trimmed, []byte("\r")):
		case cut == "" && !bytes.HasSuffix(secret, []byte("\n")):
		default:
			t.Fatalf("%q trimmed to %q", secret, trimmed)
		}
	})
}

// FuzzCheckClosureDate: CreateEmission's closure_date is accepted exactly
// when it is a date calendar.ParseDate reads, of a year from 2000 to 2199,
// and then its start deadline can be computed.
func FuzzCheckClosureDate(f *testing.F) {
	for _, s := range []string{"2026-12-31", "2000-01-01", "2199-12-31", "1999-12-31", "2200-01-01", "2026-02-29", "2028-02-29", "2026-1-1", " 2026-12-31"} {
		f.Add(s)
	}
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, s string) {
		err := CheckClosureDate(s)
		d, perr := calendar.ParseDate(s)
		if want := perr == nil && d.Year() >= minClosureYear && d.Year() <= maxClosureYear; (err == nil) != want {
			t.Fatalf("CheckClosureDate(%q): %v; calendar.ParseDate: %v, %v", s, err, d, perr)
		}
		if err != nil {
			return
		}
		if dl, err := qod.StartDeadline(s, paris); err != nil || !dl.After(d) {
			t.Fatalf("StartDeadline(%q): %v, %v", s, dl, err)
		}
	})
}

// FuzzRequestID: a request_id is accepted exactly when it is 1 to 128
// printable ASCII characters, no space; a refusal names the field.
func FuzzRequestID(f *testing.F) {
	for _, s := range []string{"req-1", "", " ", "a b", strings.Repeat("x", 128), strings.Repeat("x", 129), "é", "~!", "\x7f"} {
		f.Add(s)
	}
	ref := regexp.MustCompile(`^[!-~]{1,128}$`)
	f.Fuzz(func(t *testing.T, id string) {
		err := checkRequestID(id)
		if (err == nil) != ref.MatchString(id) {
			t.Fatalf("checkRequestID(%q): %v", id, err)
		}
		if err != nil && !strings.HasPrefix(status.Convert(err).Message(), "request_id: ") {
			t.Fatalf("checkRequestID(%q): %v", id, err)
		}
	})
}

// FuzzIdentity: a game server's identity (its client certificate's DNS
// name or CN) is accepted exactly when it is at most maxIdentity printable
// ASCII characters other than '#'; the game ids made for one accepted, and
// their page tokens, read back as that server's.
func FuzzIdentity(f *testing.F) {
	for _, s := range []string{"server-a", "gs.example.com", "#admin", "a\x00b", "a/b", strings.Repeat("x", maxIdentity), strings.Repeat("x", maxIdentity+1), "é"} {
		f.Add(s, int64(1_700_000_000_000), []byte("0123456789"))
	}
	ref := regexp.MustCompile(`^[ -"$-~]*$`)
	f.Fuzz(func(t *testing.T, server string, ms int64, rnd []byte) {
		err := checkIdentity(server)
		if want := len(server) <= maxIdentity && ref.MatchString(server); (err == nil) != want {
			t.Fatalf("checkIdentity(%q): %v", server, err)
		}
		if err != nil || server == "" || len(rnd) < 10 {
			return
		}
		id := gameID(server, time.UnixMilli(ms), rnd)
		if got, err := parsePageToken(server, pageToken(id)); err != nil || got != id {
			t.Fatalf("game id %q: page token read as %q, %v", id, got, err)
		}
		p := expiredPlace{deadline: uint64(ms), key: joinKey(server, []byte(id))}
		if got, err := parseExpiredPageToken(p.token()); err != nil || got.compare(p) != 0 {
			t.Fatalf("game id %q: expired page token read as %+v, %v", id, got, err)
		}
	})
}
