package record_test

import (
	"bytes"
	"os"
	"path/filepath"
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
