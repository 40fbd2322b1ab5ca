package record_test

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"tirage.fr/tirage/verifier/record"
)

// FuzzParse: whatever Parse accepts formats back to the same bytes, and
// parses again to the same record; nothing panics.
func FuzzParse(f *testing.F) {
	for _, r := range samples() {
		leaf, err := record.Format(r)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(leaf)
	}
	f.Fuzz(func(t *testing.T, leaf []byte) {
		r, err := record.Parse(leaf)
		if err != nil {
			return
		}
		again, err := record.Format(r)
		if err != nil {
			t.Fatalf("Parse accepted %q but Format fails: %v", leaf, err)
		}
		if !bytes.Equal(again, leaf) {
			t.Fatalf("round trip changed the bytes:\n in %q\nout %q", leaf, again)
		}
		if _, err := record.Parse(again); err != nil {
			t.Fatalf("Parse(Format(Parse(b))) fails: %v", err)
		}
		checkJCS(t, leaf)
	})
}

// checkJCS: every leaf is already in RFC 8785 canonical form, checked with
// an independent JCS implementation (go-json-experiment's jsontext).
func checkJCS(t *testing.T, leaf []byte) {
	t.Helper()
	v := jsontext.Value(bytes.Clone(leaf))
	if err := v.Canonicalize(); err != nil {
		t.Fatalf("JCS rejects %q: %v", leaf, err)
	}
	if !bytes.Equal(v, leaf) {
		t.Fatalf("not RFC 8785 canonical:\n leaf %s\n  JCS %s", leaf, v)
	}
}

func TestLeavesAreJCS(t *testing.T) {
	for _, r := range samples() {
		leaf, err := record.Format(r)
		if err != nil {
			t.Fatal(err)
		}
		checkJCS(t, leaf)
	}
	// And the checker is not vacuous.
	v := jsontext.Value(`{"b":1,"a":2}`)
	if err := v.Canonicalize(); err != nil || string(v) != `{"a":2,"b":1}` {
		t.Fatalf("JCS checker: %s %v", v, err)
	}
}

// TestFuzzSeedCorpusLoads checks the committed corpus under
// testdata/fuzz/FuzzParse is in the go-fuzz file format and exercises both
// accepted and rejected leaves (go test runs every entry as a seed).
func TestFuzzSeedCorpusLoads(t *testing.T) {
	files, err := filepath.Glob("testdata/fuzz/FuzzParse/*")
	if err != nil || len(files) < 10 {
		t.Fatalf("%d corpus files, %v", len(files), err)
	}
	ok, bad := 0, 0
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
		if len(lines) != 2 || lines[0] != "go test fuzz v1" || !strings.HasPrefix(lines[1], "[]byte(") {
			t.Fatalf("%s: not a go test fuzz v1 file with one []byte", name)
		}
		s, err := strconv.Unquote(strings.TrimSuffix(strings.TrimPrefix(lines[1], "[]byte("), ")"))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if _, err := record.Parse([]byte(s)); err == nil {
			ok++
		} else {
			bad++
		}
	}
	if ok == 0 || bad == 0 {
		t.Errorf("corpus has %d valid and %d invalid leaves; want both", ok, bad)
	}
}

// FuzzTicketHash: a ticket code (any string a game server sends in
// StartGame) is accepted exactly when, spaces and hyphens removed and
// upper-cased, it is 18 characters A-Z 0-9 (a reference written
// independently), and then hashes as SHA-256("tirage/ticket/v1" || CODE),
// as do its normalised and its grouped lower-case spellings. A refusal
// wraps ErrTicketCode and names the first byte outside the alphabet, or
// the count of characters, and nothing of the code (a secret of the
// player's).
func FuzzTicketHash(f *testing.F) {
	for _, s := range []string{
		"ABCD-EFGH-JKLM-NPQR-ST", "abcd-efgh-jklm-npqr-st", "ABCDEFGHJKLMNPQRST", " 0123 4567 89AB CDEF GH ",
		"", "ABCDEFGHJKLMNPQRS", "ABCDEFGHJKLMNPQRSTU", "ABCDEFGHJKLMNPQRS!", "ABCDEFGHJKLMNPQRSÉ", "ABCD_EFGH-JKLM-NPQR-ST",
		strings.Repeat("-", 40), strings.Repeat("A", 300),
	} {
		f.Add(s)
	}
	valid := regexp.MustCompile(`^[A-Z0-9]{18}$`)
	f.Fuzz(func(t *testing.T, code string) {
		h, err := record.TicketHash(code)
		norm := strings.ToUpper(strings.NewReplacer(" ", "", "-", "").Replace(code))
		bad := strings.IndexFunc(code, func(r rune) bool {
			return r != ' ' && r != '-' && !('a' <= r && r <= 'z') && !('A' <= r && r <= 'Z') && !('0' <= r && r <= '9')
		})
		if err != nil {
			if h != [32]byte{} || !errors.Is(err, record.ErrTicketCode) {
				t.Fatalf("TicketHash(%q) refused with %x: %v", code, h, err)
			}
			want := fmt.Sprintf("ticket code: character %d: ", bad+1)
			if bad < 0 {
				want = fmt.Sprintf("ticket code: %d characters: ", len(norm))
			}
			if err.Error() != want+record.ErrTicketCode.Error() { // quoting nothing of the code
				t.Fatalf("TicketHash(%q): %v, want %q…", code, err, want)
			}
			if bad < 0 && valid.MatchString(norm) {
				t.Fatalf("TicketHash(%q) refused %q: %v", code, norm, err)
			}
			return
		}
		if bad >= 0 || !valid.MatchString(norm) {
			t.Fatalf("TicketHash(%q) accepted (%q)", code, norm)
		}
		if h != sha256.Sum256([]byte("tirage/ticket/v1"+norm)) {
			t.Fatalf("TicketHash(%q) = %x, not the hash of %q", code, h, norm)
		}
		grouped := strings.ToLower(norm[:4] + "-" + norm[4:8] + "-" + norm[8:12] + "-" + norm[12:16] + "-" + norm[16:])
		for _, s := range []string{norm, grouped} {
			if again, err := record.TicketHash(s); err != nil || again != h {
				t.Fatalf("TicketHash(%q) = %x, %v; of %q: %x", s, again, err, code, h)
			}
		}
	})
}
