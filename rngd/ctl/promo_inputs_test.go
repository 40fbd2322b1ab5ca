package ctl

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"tirage.fr/tirage/verifier/cli"
	"tirage.fr/tirage/verifier/promo"
)

// A freeze binds the files its entrants were computed from, end to end:
// rngctl promo freeze hashes each stake file and the closed accounts as it
// reads them (standard input too), the receipt lists them, and rngverify
// freeze passes with the operator's very files and fails, naming it, with
// a stake file one row short (a player withheld before the freeze); rngctl
// promo receipts refuses to re-issue the receipt from that file, naming
// it; eligibility prints the hashes a freeze would bind.
func TestPromoFreezeBindsInputFiles(t *testing.T) {
	dir, keysDir, pass := promoCeremonySetup(t)
	stakes, closed := filepath.Join(dir, "stakes.csv"), filepath.Join(dir, "closed.csv")
	if code, _, errs := promoRun("", "gen", "--rules", exampleRules, "--rows", "3000", "--out", stakes, "--closed", closed); code != ExitOK {
		t.Fatalf("gen: %s", errs)
	}
	stakeBytes, _ := os.ReadFile(stakes)
	closedBytes, _ := os.ReadFile(closed)
	sum := func(b []byte) string { h := sha256.Sum256(b); return hex.EncodeToString(h[:]) }
	// The same stakes, one row (the last) left out.
	lines := strings.SplitAfter(strings.TrimSuffix(string(stakeBytes), "\n"), "\n")
	short := filepath.Join(dir, "stakes-short.csv")
	os.WriteFile(short, []byte(strings.Join(lines[:len(lines)-1], "")), 0o644)

	// eligibility (the dry run) prints the hashes, of standard input as
	// of a file.
	code, stdout, errs := promoRun(string(stakeBytes), "eligibility", "--rules", exampleRules, "--stakes", "-", "--closed", closed, "--out", filepath.Join(dir, "elig"), "--quiet")
	if code != ExitOK || !strings.Contains(stdout, "input stakes stdin sha256:"+sum(stakeBytes)+"\n") ||
		!strings.Contains(stdout, "input closed "+closed+" sha256:"+sum(closedBytes)+"\n") {
		t.Fatalf("eligibility from standard input: exit %d\n%s%s", code, stdout, errs)
	}

	common := []string{"--data", filepath.Join(dir, "data"), "--origin", "tirage.test/ctl", "--backend", "software", "--allow-software", "--keys", keysDir, "--passphrase-file", pass, "--quiet"}
	out := filepath.Join(dir, "out")
	code, stdout, errs = promoRun("", append([]string{"freeze", "--rules", exampleRules, "--stakes", stakes, "--closed", closed, "--draw", "1", "--out", out}, common...)...)
	if code != ExitOK || !strings.Contains(stdout, "frozen bonus-crescendo/1") {
		t.Fatalf("freeze: exit %d\n%s%s", code, stdout, errs)
	}
	rc := checkFreezeReceipt(t, out, "bonus-crescendo-1", nil)
	want := []promo.InputFile{{Role: "stakes", Name: stakes, SHA256: sum(stakeBytes)}, {Role: "closed", Name: closed, SHA256: sum(closedBytes)}}
	if len(rc.Inputs) != 2 || rc.Inputs[0] != want[0] || rc.Inputs[1] != want[1] {
		t.Fatalf("receipt inputs %+v, want %+v", rc.Inputs, want)
	}
	receipt := filepath.Join(out, "bonus-crescendo-1-receipt.json")
	verify := func(files ...string) (int, string) {
		var vout, verr bytes.Buffer
		c := cli.Run(cli.Env{Args: append([]string{"freeze", receipt, "--log-key", rc.LogKeys[0], "--entrants", filepath.Join(out, "bonus-crescendo-1-entrants.txt")}, files...), Stdout: &vout, Stderr: &verr})
		return c, vout.String() + verr.String()
	}
	if c, vout := verify("--stakes", stakes, "--closed", closed); c != cli.ExitOK || !strings.Contains(vout, "[PASS] freeze-inputs") || !strings.Contains(vout, "[PASS] input-files") {
		t.Fatalf("rngverify freeze with the freeze's files: exit %d\n%s", c, vout)
	}
	if c, vout := verify("--stakes", short, "--closed", closed); c != cli.ExitFail || !strings.Contains(vout, "[FAIL] input-files") ||
		!strings.Contains(vout, `stakes file "`+short+`" has SHA-256 `+sum([]byte(strings.Join(lines[:len(lines)-1], "")))) {
		t.Fatalf("rngverify freeze with a stake file one row short: exit %d\n%s", c, vout)
	}

	// rngverify freeze --rules recomputes the entrants from the files, with
	// the code rngctl froze with: the frozen list. With every row of one
	// entrant left out, the file is named and the list is one short.
	entrantsFile := filepath.Join(out, "bonus-crescendo-1-entrants.txt")
	lb, err := os.ReadFile(entrantsFile)
	if err != nil {
		t.Fatal(err)
	}
	list, err := promo.ParseEntrantList(lb)
	if err != nil {
		t.Fatal(err)
	}
	if c, vout := verify("--rules", exampleRules, "--stakes", stakes, "--closed", closed); c != cli.ExitOK || !strings.Contains(vout, "[PASS] entrants-recomputed") ||
		!strings.Contains(vout, fmt.Sprintf("the %d entrants recomputed from the input files under the frozen rules hash", rc.Count)) {
		t.Fatalf("rngverify freeze --rules with the freeze's files: exit %d\n%s", c, vout)
	}
	gone := list.Accounts[len(list.Accounts)/2]
	col := slices.Index(strings.Split(strings.TrimSpace(lines[0]), ","), "account")
	var kept []string
	for i, l := range lines {
		if i == 0 || strings.Split(l, ",")[col] != gone {
			kept = append(kept, l)
		}
	}
	if len(kept) == len(lines) || col < 0 {
		t.Fatalf("no row of %s (account column %d)", gone, col)
	}
	without := filepath.Join(dir, "stakes-without.csv")
	os.WriteFile(without, []byte(strings.Join(kept, "")), 0o644)
	if c, vout := verify("--rules", exampleRules, "--stakes", without, "--closed", closed); c != cli.ExitFail || !strings.Contains(vout, "[FAIL] input-files") ||
		!strings.Contains(vout, "[FAIL] entrants-recomputed") || !strings.Contains(vout, fmt.Sprintf("the input files give %d entrants under the frozen rules, the freeze %d", rc.Count-1, rc.Count)) {
		t.Fatalf("rngverify freeze --rules without %s's rows: exit %d\n%s", gone, c, vout)
	}

	// The receipt is not re-issued from the short file: the file is named.
	code, _, errs = promoRun("", append([]string{"receipts", "--rules", exampleRules, "--stakes", short, "--closed", closed, "--draw", "1", "--out", filepath.Join(dir, "re")}, common...)...)
	errs = strings.TrimPrefix(errs, softWarning)
	if code != ExitFail || !strings.Contains(errs, `not the inputs of the freeze: stakes file "`+short+`" has SHA-256 `) {
		t.Errorf("receipts from the short file: exit %d %q", code, errs)
	}
	// Nor without the closed accounts.
	code, _, errs = promoRun("", append([]string{"receipts", "--rules", exampleRules, "--stakes", stakes, "--draw", "1", "--out", filepath.Join(dir, "re")}, common...)...)
	if code != ExitFail || !strings.Contains(errs, "number of closed files given: 0, the freeze binds 1") {
		t.Errorf("receipts without the closed accounts: exit %d %q", code, errs)
	}
	// From the same bytes on standard input: re-issued, listing the
	// freeze's names.
	code, _, errs = promoRun(string(stakeBytes), append([]string{"receipts", "--rules", exampleRules, "--stakes", "-", "--closed", closed, "--draw", "1", "--out", filepath.Join(dir, "re")}, common...)...)
	if code != ExitOK {
		t.Fatalf("receipts from standard input: exit %d %q", code, errs)
	}
	if again := checkFreezeReceipt(t, filepath.Join(dir, "re"), "bonus-crescendo-1", nil); len(again.Inputs) != 2 || again.Inputs[0] != want[0] {
		t.Errorf("re-issued inputs %+v, want the freeze's %+v", again.Inputs, want)
	}
}
