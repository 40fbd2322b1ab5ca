package promo

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The state files are read bounded: an index file or a meta.json larger
// than any rngd writes is damaged, not read whole, though what it holds
// would parse (an index padded with zeros, a meta.json with a huge title).
// A file that is not there is still told apart (load: not frozen).
func TestStateFilesBounded(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	if i, err := readIndex(write("draw.idx", strings.Repeat("0", 40)+"12\n")); err != nil || i != 12 {
		t.Fatalf("an index of 43 bytes: %d, %v", i, err)
	}
	if i, err := readIndex(write("freeze.idx", strings.Repeat("0", maxIndexFile)+"12\n")); err == nil || err.Error() != "freeze.idx is damaged: larger than 64 bytes" {
		t.Errorf("an index of %d bytes read as %d, %v; want freeze.idx is damaged", maxIndexFile+3, i, err)
	}
	var m Meta
	if err := readJSON(write("meta.json", `{"draw":"op/1","title":"`+strings.Repeat("a", 1<<20)+`"}`), &m); err == nil || err.Error() != "meta.json is damaged: larger than 1 MiB" {
		t.Errorf("a meta.json over 1 MiB read (title of %d bytes), %v; want meta.json is damaged", len(m.Title), err)
	}
	if _, err := readIndex(filepath.Join(dir, "absent.idx")); !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), dir) {
		t.Errorf("a missing index: %v; want fs.ErrNotExist naming its path", err)
	}
}

// A meta.json that decodes to a Meta naming no draw (null, {}: no Freeze
// writes one) is damaged, not an empty Meta for the documents.
func TestMetaNamesItsDraw(t *testing.T) {
	for _, s := range []string{"null", "{}", `{"days":[],"excluded_rows":{}}`, `{"title":"t","draw":""}`} {
		var m Meta
		if err := decodeJSON("meta.json", []byte(s), &m); err == nil || err.Error() != "meta.json is damaged: it names no draw" {
			t.Errorf("meta.json %s: %+v, %v; want it damaged", s, m, err)
		}
	}
	var m Meta
	if err := decodeJSON("meta.json", []byte(`{"draw":"op/1"}`), &m); err != nil || m.Draw != "op/1" {
		t.Errorf(`meta.json {"draw":"op/1"}: %+v, %v`, m, err)
	}
}

// A freeze whose meta.json would be larger than readJSON reads (a prize
// over 1 MiB in the rules) is refused before anything is written or
// appended: frozen, the draw could never be drawn (meta.json damaged).
func TestFreezeMetaTooLarge(t *testing.T) {
	r, rulesFile := exampleRules(t)
	r.Draws[0].Prize = strings.Repeat("<", maxMetaFile/6) // "\u003c" in JSON
	tmp := t.TempDir()
	data := filepath.Join(tmp, "data")
	a, lg := openRandAppliance(t, data, testKeys(t, filepath.Join(tmp, "keys")), &clock{t: freezeAt})
	defer lg.Close()
	appends := lg.Stats().Appends
	_, err := a.Freeze(context.Background(), FreezeRequest{Rules: r, RulesFile: rulesFile, DrawIndex: 0, Entrants: fiveOf})
	if err == nil || !strings.Contains(err.Error(), "meta.json would be") {
		t.Fatalf("Freeze with a prize of %d bytes: %v; want refused", len(r.Draws[0].Prize), err)
	}
	if n := lg.Stats().Appends; n != appends {
		t.Errorf("%d appends after the refusal, want %d", n, appends)
	}
	if _, err := os.Stat(filepath.Join(data, "promo", "bonus-crescendo", "1", "meta.json")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("meta.json after the refusal: %v", err)
	}
}
