package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tirage.fr/tirage/verifier/receipt"
)

// TestDaemonFiles verifies what the real daemon emitted (testdata/rngd):
// a game transcript, and its log in tessera's tile layout.
func TestDaemonFiles(t *testing.T) {
	const dir = "testdata/rngd"
	key := filepath.Join(dir, "log.vkey")
	code, out, errs := run(t, "game", filepath.Join(dir, "transcript.json"), "--log-key", key)
	if code != ExitOK {
		t.Fatalf("daemon transcript: exit %d\n%s%s", code, out, errs)
	}
	state := filepath.Join(t.TempDir(), "state.json")
	for _, cmd := range []string{"log", "audit"} {
		code, out, errs = run(t, cmd, "--dir", filepath.Join(dir, "tiles"), "--log-key", key, "--state", state, "--quiet")
		if code != ExitOK {
			t.Fatalf("%s --dir on the daemon's tiles: exit %d\n%s%s", cmd, code, out, errs)
		}
	}
	if !strings.Contains(out, "[PASS] games") {
		t.Errorf("audit output:\n%s", out)
	}

	// The same transcript with the last pick's outcome flipped: the edited
	// record is not the logged one, which proves nothing against rngd.
	b, err := os.ReadFile(filepath.Join(dir, "transcript.json"))
	if err != nil {
		t.Fatal(err)
	}
	var tr receipt.Transcript
	if err := json.Unmarshal(b, &tr); err != nil {
		t.Fatal(err)
	}
	i := len(tr.Records) - 2 // the losing pick before the end
	r := tr.Records[i].Record
	r = strings.Replace(strings.Replace(r, `"outcome":"losing"`, `"outcome":"X"`, 1), `"outcome":"good"`, `"outcome":"losing"`, 1)
	tr.Records[i].Record = strings.Replace(r, `"outcome":"X"`, `"outcome":"good"`, 1)
	bad := write(t, t.TempDir(), "bad.json", receipt.Marshal(&tr))
	code, out, errs = run(t, "game", bad, "--log-key", key)
	if code != ExitFail || !strings.Contains(errs, "NOT VERIFIED, check inclusion") || !strings.Contains(out, "[FAIL] outcome") || strings.Contains(out, "MISBEHAVIOUR") {
		t.Errorf("tampered daemon transcript: exit %d %s\n%s", code, errs, out)
	}
}
