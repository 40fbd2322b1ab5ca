package ctl

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/mod/sumdb/tlog"

	rpromo "tirage.fr/tirage/rngd/promo"
	"tirage.fr/tirage/verifier/checkpoint"
	"tirage.fr/tirage/verifier/promo"
	"tirage.fr/tirage/verifier/record"
)

// A freeze whose receipts could not be published (the freeze is in the
// log) has them re-issued by rngctl promo receipts from the same inputs:
// the receipts a successful freeze writes, byte for byte while the log has
// not grown, and receipts that prove the same freeze after it has. Another
// draw, other inputs or an --out holding a receipt are refused, and
// nothing is appended to the log.
func TestPromoReceiptsReissue(t *testing.T) {
	dir, keysDir, pass := promoCeremonySetup(t)
	stakes, closed := filepath.Join(dir, "stakes.csv"), filepath.Join(dir, "closed.csv")
	if code, _, errs := promoRun("", "gen", "--rules", exampleRules, "--rows", "3000", "--out", stakes, "--closed", closed); code != ExitOK {
		t.Fatalf("gen: %s", errs)
	}
	common := []string{"--data", filepath.Join(dir, "data"), "--origin", "tirage.test/ctl", "--backend", "software", "--allow-software", "--keys", keysDir, "--passphrase-file", pass, "--quiet"}
	run := func(cmd, out string, args ...string) (int, string, string) {
		t.Helper()
		if !slices.Contains(args, "--rules") {
			args = append(args, "--rules", exampleRules)
		}
		if !slices.Contains(args, "--stakes") {
			args = append(args, "--stakes", stakes)
		}
		return promoRun("", append(append([]string{cmd, "--out", out}, args...), common...)...)
	}
	withClosed := []string{"--closed", closed}
	oneLine := func(what string, code int, errs string, wantCode int, want string) {
		t.Helper()
		errs = strings.TrimPrefix(errs, softWarning)
		if code != wantCode || !strings.Contains(errs, want) || strings.Count(errs, "\n") != 1 {
			t.Errorf("%s: exit %d %q, want %d and one line naming %q", what, code, errs, wantCode, want)
		}
	}

	// The freeze of draw 1 is logged, then its receipt cannot be
	// published: a file has taken its name in --out meanwhile (made as the
	// appliance reads its clock, once the command is under way).
	lost := filepath.Join(dir, "lost")
	os.Mkdir(lost, 0o755)
	intruder := filepath.Join(lost, "bonus-crescendo-1-receipt.json")
	clock := promoNow
	promoNow = func() time.Time {
		if _, err := os.Lstat(intruder); err != nil {
			os.WriteFile(intruder, []byte("not a receipt\n"), 0o644)
		}
		return clock()
	}
	code, stdout, errs := run("freeze", lost, append([]string{"--draw", "1"}, withClosed...)...)
	promoNow = clock
	oneLine("freeze whose receipt is not published", code, errs, ExitFail, "rngctl promo receipts, with the freeze's flags, re-issues the receipts")
	if got := dirState(t, lost); len(got) != 1 || got["bonus-crescendo-1-receipt.json"] != "not a receipt\n" {
		t.Fatalf("freeze whose publication failed left %v in --out (stdout %q)", got, stdout)
	}
	// It is frozen, once: there is no second freeze.
	code, _, errs = run("freeze", filepath.Join(dir, "again"), append([]string{"--draw", "1"}, withClosed...)...)
	oneLine("second freeze", code, errs, ExitFail, "already frozen")

	// Refusals, each before anything is published.
	rulesCopy := filepath.Join(dir, "rules-copy.yaml")
	src, _ := os.ReadFile(exampleRules)
	os.WriteFile(rulesCopy, append(src, "# a copy, edited\n"...), 0o644)
	other := filepath.Join(dir, "other.csv")
	if code, _, errs := promoRun("", "gen", "--rules", exampleRules, "--rows", "3000", "--seed", "2", "--out", other); code != ExitOK {
		t.Fatalf("gen: %s", errs)
	}
	refused := filepath.Join(dir, "refused")
	for _, c := range []struct {
		what string
		args []string
		code int
		want string
		hint bool // names the inputs' flags
	}{
		{"into the --out holding the intruder", []string{"--draw", "1", "--closed", closed}, ExitUsage, "holds bonus-crescendo-1-receipt.json already: it is never overwritten", false},
		{"a draw not frozen", []string{"--draw", "2", "--closed", closed}, ExitFail, "bonus-crescendo/2: draw not frozen: the log holds no promo_freeze record of it; no receipt", false},
		{"every draw, three not frozen", []string{"--closed", closed}, ExitFail, "bonus-crescendo/2: draw not frozen", false},
		{"a draw not of the rules", []string{"--draw", "9", "--closed", closed}, ExitUsage, `--draw "9" is not a draw of bonus-crescendo`, false},
		{"other stakes", []string{"--draw", "1", "--stakes", other, "--closed", closed}, ExitFail, `not the inputs of the freeze: stakes file "` + other + `" has SHA-256 `, true},
		{"other rules", []string{"--draw", "1", "--rules", rulesCopy, "--closed", closed}, ExitFail, "not the inputs of the freeze: the rules file given", true},
	} {
		out := refused
		if c.code == ExitUsage && strings.Contains(c.want, "never overwritten") {
			out = lost
		}
		before := dirState(t, lost)
		code, _, errs := run("receipts", out, c.args...)
		oneLine(c.what, code, errs, c.code, c.want)
		if c.hint && !strings.Contains(errs, "(--rules, --stakes and --closed must be the freeze's)") {
			t.Errorf("%s: %q does not name the flags", c.what, errs)
		}
		if _, err := os.Lstat(refused); err == nil {
			t.Fatalf("%s: --out made", c.what)
		}
		if !sameState(before, dirState(t, lost)) {
			t.Fatalf("%s: the intruder's directory changed", c.what)
		}
	}

	// Re-issued: the report and draw 1's receipt and private list.
	reissued := filepath.Join(dir, "reissued")
	code, stdout, errs = run("receipts", reissued, append([]string{"--draw", "bonus-crescendo/1"}, withClosed...)...)
	if code != ExitOK || !strings.Contains(stdout, "re-issued bonus-crescendo/1: ") {
		t.Fatalf("receipts: exit %d\n%s\n%s", code, stdout, errs)
	}
	if got := dirState(t, reissued); len(got) != 6 {
		t.Fatalf("receipts wrote %d files, want the report and the receipt's 3", len(got))
	}

	// Draw 2, frozen and published: re-issued as the freeze wrote it.
	frozen2, reissued2 := filepath.Join(dir, "frozen2"), filepath.Join(dir, "reissued2")
	if code, _, errs := run("freeze", frozen2, append([]string{"--draw", "2"}, withClosed...)...); code != ExitOK {
		t.Fatalf("freeze of draw 2: exit %d %s", code, errs)
	}
	if code, _, errs := run("receipts", reissued2, append([]string{"--draw", "2"}, withClosed...)...); code != ExitOK {
		t.Fatalf("receipts of draw 2: exit %d %s", code, errs)
	}
	want, got := dirState(t, frozen2), dirState(t, reissued2)
	if len(want) != 6 || !sameState(want, got) {
		for name := range want {
			if got[name] != want[name] {
				t.Errorf("re-issued %s differs from the freeze's", name)
			}
		}
		t.Fatalf("receipts of draw 2: %d files, the freeze wrote %d", len(got), len(want))
	}
	rc2 := checkFreezeReceipt(t, frozen2, "bonus-crescendo-2", nil)

	// Draw 1's receipt, re-issued before and after draw 2's freeze: the
	// same freeze, private list and report; the later one against a later
	// checkpoint.
	again := filepath.Join(dir, "again1")
	if code, _, errs := run("receipts", again, append([]string{"--draw", "1"}, withClosed...)...); code != ExitOK {
		t.Fatalf("receipts of draw 1 again: exit %d %s", code, errs)
	}
	first := checkFreezeReceipt(t, reissued, "bonus-crescendo-1", rc2.LogKeys)
	later := checkFreezeReceipt(t, again, "bonus-crescendo-1", rc2.LogKeys)
	if first.FreezeLeafHash != later.FreezeLeafHash || first.Freeze.Record != later.Freeze.Record || first.Checkpoint == later.Checkpoint {
		t.Errorf("draw 1's receipts: leaf %s then %s; checkpoints equal: %v", first.FreezeLeafHash, later.FreezeLeafHash, first.Checkpoint == later.Checkpoint)
	}
	a, b := dirState(t, reissued), dirState(t, again)
	for _, name := range []string{"bonus-crescendo-1-entrants.txt", "e-credits.csv", "rejected.txt", "summary.json"} {
		if a[name] != b[name] {
			t.Errorf("%s re-issued twice differs", name)
		}
	}
	// Nothing was appended by the re-issues: the freezes of draws 1 and 2
	// and the key announcement.
	if later.Freeze.Index >= rc2.Freeze.Index || !strings.Contains(later.Checkpoint, "\n3\n") {
		t.Errorf("log after two freezes and the re-issues: freeze 1 at %d, freeze 2 at %d, checkpoint %q", later.Freeze.Index, rc2.Freeze.Index, later.Checkpoint)
	}
}

// checkFreezeReceipt checks the receipt dir/base-receipt.json as its
// bailiff would: its checkpoint is signed by logKeys (nil: the receipt's
// own), the freeze record is in the checkpoint's tree and is the one the
// receipt describes, and the private list base-entrants.txt is the file it
// names and hashes to the frozen root and count.
func checkFreezeReceipt(t *testing.T, dir, base string, logKeys []string) *rpromo.FreezeReceipt {
	t.Helper()
	js, err := os.ReadFile(filepath.Join(dir, base+"-receipt.json"))
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.DisallowUnknownFields()
	var rc rpromo.FreezeReceipt
	if err := dec.Decode(&rc); err != nil {
		t.Fatalf("%s: %v", base, err)
	}
	if logKeys == nil {
		logKeys = rc.LogKeys
	}
	if !slices.Equal(rc.LogKeys, logKeys) {
		t.Fatalf("%s: log keys %v, want %v", base, rc.LogKeys, logKeys)
	}
	var keys []*checkpoint.Key
	for _, k := range logKeys {
		pk, err := checkpoint.ParseKey(k)
		if err != nil {
			t.Fatalf("%s: log key: %v", base, err)
		}
		keys = append(keys, pk)
	}
	cp, err := checkpoint.Open([]byte(rc.Checkpoint), keys)
	if err != nil {
		t.Fatalf("%s: checkpoint: %v", base, err)
	}
	var proof tlog.RecordProof
	for _, h := range rc.Freeze.Proof {
		b, err := hex.DecodeString(h)
		if err != nil || len(b) != tlog.HashSize {
			t.Fatalf("%s: proof hash %q", base, h)
		}
		proof = append(proof, tlog.Hash(b))
	}
	if err := tlog.CheckRecord(proof, int64(cp.Size), cp.Root, int64(rc.Freeze.Index), tlog.RecordHash([]byte(rc.Freeze.Record))); err != nil {
		t.Fatalf("%s: the freeze record is not in the checkpoint: %v", base, err)
	}
	rec, err := record.Parse([]byte(rc.Freeze.Record))
	f, ok := rec.(*record.PromoFreeze)
	if err != nil || !ok || f.Draw != rc.Draw {
		t.Fatalf("%s: not the draw's promo_freeze record: %v", base, err)
	}
	lh := record.LeafHash([]byte(rc.Freeze.Record))
	if rc.FreezeLeafHash != hex.EncodeToString(lh[:]) || rc.Root != hex.EncodeToString(f.Root[:]) || rc.Count != f.Count {
		t.Fatalf("%s: the receipt does not describe its record", base)
	}
	lb, err := os.ReadFile(filepath.Join(dir, base+"-entrants.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if h := sha256.Sum256(lb); rc.EntrantsFile != hex.EncodeToString(h[:]) {
		t.Fatalf("%s: the private list is not the one the receipt names", base)
	}
	list, err := promo.ParseEntrantList(lb)
	if err != nil {
		t.Fatalf("%s: private list: %v", base, err)
	}
	tree, err := list.ForFreeze(f).Tree()
	if err != nil || tree.Root() != f.Root || uint64(tree.Size()) != f.Count {
		t.Fatalf("%s: the private list does not hash to the frozen root and count (%v)", base, err)
	}
	if pdf, err := os.ReadFile(filepath.Join(dir, base+"-receipt.pdf")); err != nil || !bytes.HasPrefix(pdf, []byte("%PDF-")) {
		t.Fatalf("%s: receipt PDF: %v", base, err)
	}
	return &rc
}
