package cli

import (
	"crypto/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/mod/sumdb/note"
)

// TestVRFKeyExportPublicLines: --vrf-key given what rngctl keys
// export-public prints ("LABEL ALGORITHM HEX" lines, the log key's among
// them) is refused saying which key it is and what to give, not with
// `vrf: unknown suite "log"`.
func TestVRFKeyExportPublicLines(t *testing.T) {
	dir := t.TempDir()
	logLine := write(t, dir, "log.txt", []byte("log Ed25519 302a300506032b6570032100"+strings.Repeat("ab", 32)+"\n"))
	vrfLine := write(t, dir, "vrf.txt", []byte("vrf ECVRF-P256-SHA256-SSWU 02"+strings.Repeat("ab", 32)+"\n"))
	for _, tc := range []struct {
		name, file, lang, want string
	}{
		{"log key", logLine, "en", `log.txt: line 1: key "log" (Ed25519) is not a VRF key (a line of rngctl keys export-public, which prints the log key too): give the VRF key as "SUITE HEX"`},
		{"log key, --log-key", logLine, "en", "a log key goes to --log-key (rngctl keys export-public --label log --format vkey --origin ORIGIN, or the log's /log/vkey)"},
		{"log key, French", logLine, "fr", "log.txt : ligne 1 : la clé « log » (Ed25519) n'est pas une clé VRF"},
		{"VRF key's line", vrfLine, "en", `vrf.txt: line 1: a line of rngctl keys export-public (key "vrf"): give its suite and key alone, "ECVRF-P256-SHA256-SSWU HEX", or the key announcement`},
	} {
		code, out, errs := run(t, "receipt", "x", "--vrf-key", tc.file, "--lang", tc.lang)
		if code != ExitUsage || out != "" || !strings.Contains(errs, tc.want) || strings.Contains(errs, "unknown suite") || strings.Count(errs, "\n") != 1 {
			t.Errorf("%s: exit %d, stderr %q, want %q", tc.name, code, errs, tc.want)
		}
	}
}

// TestLogKeyRowUnrecorded: a first run of rngverify log with a key the
// checkpoint does not verify under records nothing in the state, so its
// log-key row says so instead of "pinned since <now>", and so does an
// audit whose checkpoint verifies but an entry does not; a first run that
// passes says since when. rngverify audit shows the log-key row too.
func TestLogKeyRowUnrecorded(t *testing.T) {
	const dir = "testdata/rngd"
	tiles, key := filepath.Join(dir, "tiles"), filepath.Join(dir, "log.vkey")
	_, vkey, err := note.GenerateKey(rand.Reader, "tirage.fr/dev-log") // the log's name, another key
	if err != nil {
		t.Fatal(err)
	}
	wrong := write(t, t.TempDir(), "wrong.vkey", []byte(vkey+"\n"))
	state := filepath.Join(t.TempDir(), "state.json")
	code, out, _ := run(t, "log", "--dir", tiles, "--log-key", wrong, "--state", state)
	if code != ExitFail || !strings.Contains(out, "[FAIL] checkpoint-signature") || strings.Contains(out, "since") ||
		!strings.Contains(out, "(pinned, not recorded: the state file records a log's keys with a checkpoint only once every check passed)") {
		t.Errorf("log with a wrong key: exit %d\n%s", code, out)
	}
	code, out, _ = run(t, "log", "--dir", tiles, "--log-key", wrong, "--state", state, "--lang", "fr")
	if code != ExitFail || strings.Contains(out, "depuis") || !strings.Contains(out, "non enregistrée : le fichier d'état") {
		t.Errorf("log with a wrong key, French: exit %d\n%s", code, out)
	}
	// An audit whose checkpoint verifies but whose entries do not match
	// it records nothing either: the row must not say the checkpoint did
	// not verify (it said "with a checkpoint that verifies").
	bad := t.TempDir()
	if err := os.CopyFS(bad, os.DirFS(tiles)); err != nil {
		t.Fatal(err)
	}
	bundle := filepath.Join(bad, "tile", "entries", "000.p", "59")
	b, err := os.ReadFile(bundle)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)-2] ^= 1 // a byte of the last entry
	if err := os.WriteFile(bundle, b, 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := run(t, "audit", "--dir", bad, "--log-key", key, "--state", state, "--quiet")
	if code != ExitFail || !strings.Contains(out, "[PASS] checkpoint-signature") || !strings.Contains(out, "[FAIL] entries") || strings.Contains(out, "since") ||
		!strings.Contains(out, "(pinned, not recorded: the state file records a log's keys with a checkpoint only once every check passed)") {
		t.Errorf("audit of an altered entry: exit %d\n%s%s", code, out, errs)
	}
	if _, err := os.Stat(state); err == nil {
		t.Error("audit of an altered entry: the state was written")
	}
	for _, cmd := range []string{"log", "audit"} {
		state := filepath.Join(t.TempDir(), "state.json")
		code, out, errs := run(t, cmd, "--dir", tiles, "--log-key", key, "--state", state, "--quiet")
		if code != ExitOK || !strings.Contains(out, "[PASS] log-key                log key trusted — Ed25519 ") || !strings.Contains(out, "(pinned since ") {
			t.Errorf("%s: exit %d, want the log-key row, since when:\n%s%s", cmd, code, out, errs)
		}
	}
}

// TestHelpAligned: rngverify help lists the commands with their summaries
// in one column, after the longest name (share-commitment); before, that
// name pushed its summary out of the column.
func TestHelpAligned(t *testing.T) {
	for _, lang := range []string{"en", "fr"} {
		_, out, errs := run(t, "help", "--lang", lang)
		text := out + errs
		col, n := -1, 0
		for _, line := range strings.Split(text, "\n") {
			name, _, ok := strings.Cut(strings.TrimPrefix(line, "  "), " ")
			if !strings.HasPrefix(line, "  ") || !ok || name == "" {
				continue
			}
			rest := strings.TrimPrefix(line, "  "+name)
			at := len("  "+name) + len(rest) - len(strings.TrimLeft(rest, " "))
			if col >= 0 && at != col {
				t.Errorf("%s: summary of %s at column %d, not %d:\n%s", lang, name, at, col, text)
			}
			col, n = at, n+1
		}
		if n < 9 || !strings.Contains(text, "  share-commitment ") {
			t.Errorf("%s: %d command lines:\n%s", lang, n, text)
		}
	}
}
