package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAuditAllRefusedRows: rngverify audit of a log whose hash tile is
// served altered, so that every entry is left out, skips record, games
// and promotions saying why, in English and French, and fails on
// entries. Before, the three said PASS over nothing ("games — 0 games (0
// unfinished), 0 VRF proofs", "promotions — 0 draws").
func TestAuditAllRefusedRows(t *testing.T) {
	const dir = "testdata/rngd"
	bad := t.TempDir()
	if err := os.CopyFS(bad, os.DirFS(filepath.Join(dir, "tiles"))); err != nil {
		t.Fatal(err)
	}
	tile := filepath.Join(bad, "tile", "0", "000.p", "59") // the hashes of every entry
	b, err := os.ReadFile(tile)
	if err != nil {
		t.Fatal(err)
	}
	b[0] ^= 1
	if err := os.WriteFile(tile, b, 0o644); err != nil {
		t.Fatal(err)
	}
	for lang, want := range map[string][]string{
		"en": {"[FAIL] entries", "[skip] record", "no record checked: every entry read (59) was left out",
			"[skip] games", "no game checked: the entries left out (59, from entry 0)",
			"[skip] promotions", "no promotion draw checked: the entries left out (59, from entry 0)"},
		"fr": {"[ÉCHEC] entries", "aucun enregistrement vérifié : toutes les entrées lues (59) ont été écartées",
			"aucune partie vérifiée : les entrées écartées (59, à partir de l'entrée 0)",
			"aucun tirage de promotion vérifié : les entrées écartées (59, à partir de l'entrée 0)"},
	} {
		state := filepath.Join(t.TempDir(), "state.json")
		code, out, errs := run(t, "audit", "--dir", bad, "--log-key", filepath.Join(dir, "log.vkey"), "--state", state, "--quiet", "--lang", lang)
		if code != ExitFail {
			t.Errorf("%s: exit %d, want %d\n%s%s", lang, code, ExitFail, out, errs)
		}
		for _, w := range want {
			if !strings.Contains(out, w) {
				t.Errorf("%s: want %q in\n%s%s", lang, w, out, errs)
			}
		}
		if strings.Contains(out, "[PASS] record") || strings.Contains(out, "[OK] record") {
			t.Errorf("%s: record passed over nothing\n%s", lang, out)
		}
	}
}

// TestAuditStoppedOneEntriesRow: rngverify audit of a log whose entry
// bundle cannot be read shows one entries row, failing with why the audit
// stopped, and skips the checks that checked nothing. Before, it showed
// "[PASS] entries — 0 entries match the signed tree" and, after the other
// rows (passing over nothing), a second entries row that failed.
func TestAuditStoppedOneEntriesRow(t *testing.T) {
	const dir = "testdata/rngd"
	bad := t.TempDir()
	if err := os.CopyFS(bad, os.DirFS(filepath.Join(dir, "tiles"))); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(bad, "tile", "entries", "000.p", "59")); err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(t.TempDir(), "state.json")
	code, out, errs := run(t, "audit", "--dir", bad, "--log-key", filepath.Join(dir, "log.vkey"), "--state", state, "--quiet")
	if code != ExitFail || strings.Count(out, "] entries ") != 1 || !strings.Contains(out, "[FAIL] entries                log entries — audit stopped after 0 of 59 entries: ") ||
		!strings.Contains(out, "[skip] games                  games — none checked: the audit stopped before the end of the log (see entries)") {
		t.Errorf("bundle missing: exit %d\n%s%s", code, out, errs)
	}
}
