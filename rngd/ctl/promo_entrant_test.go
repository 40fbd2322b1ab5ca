package ctl

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tirage.fr/tirage/verifier/cli"
	"tirage.fr/tirage/verifier/promo"
	"tirage.fr/tirage/verifier/record"
)

// A player's entrant proof, end to end: rngctl promo freeze commits the
// entrants under scheme 2; rngctl promo entrant-proof writes one account's
// proof (mode 0600, never over a file), refuses an account not in the list
// in one line writing nothing; rngverify entrant passes with the log key
// and prints the account's pseudonym (the certificate's), in French too,
// and fails a proof whose salt was changed, naming the check; rngverify
// freeze --account answers for a scheme 2 freeze.
func TestPromoEntrantProof(t *testing.T) {
	dir, keysDir, pass := promoCeremonySetup(t)
	stakes, closed := filepath.Join(dir, "stakes.csv"), filepath.Join(dir, "closed.csv")
	if code, _, errs := promoRun("", "gen", "--rules", exampleRules, "--rows", "2000", "--out", stakes, "--closed", closed); code != ExitOK {
		t.Fatalf("gen: %s", errs)
	}
	common := []string{"--data", filepath.Join(dir, "data"), "--origin", "tirage.test/ctl", "--backend", "software", "--allow-software", "--keys", keysDir, "--passphrase-file", pass}
	out := filepath.Join(dir, "out")
	if code, stdout, errs := promoRun("", append([]string{"freeze", "--rules", exampleRules, "--stakes", stakes, "--closed", closed, "--draw", "1", "--out", out, "--quiet"}, common...)...); code != ExitOK {
		t.Fatalf("freeze: exit %d\n%s%s", code, stdout, errs)
	}
	rc := checkFreezeReceipt(t, out, "bonus-crescendo-1", nil)
	r, err := record.Parse([]byte(rc.Freeze.Record))
	if err != nil {
		t.Fatal(err)
	}
	f := r.(*record.PromoFreeze)
	if f.EntrantScheme != promo.EntrantSchemeV2 || !strings.Contains(rc.Freeze.Record, `"entrant_scheme":2`) {
		t.Fatalf("the appliance froze under scheme %d", f.EntrantScheme)
	}
	lb, err := os.ReadFile(filepath.Join(out, "bonus-crescendo-1-entrants.txt"))
	if err != nil {
		t.Fatal(err)
	}
	list, err := promo.ParseEntrantList(lb)
	if err != nil {
		t.Fatal(err)
	}
	tree, err := list.ForFreeze(f).Tree()
	if err != nil {
		t.Fatal(err)
	}
	const i = 2
	account := list.Accounts[i]

	proofFile := filepath.Join(dir, "proof.json")
	args := append([]string{"entrant-proof", "--draw", "bonus-crescendo/1", "--account", account, "--out", proofFile}, common...)
	code, stdout, errs := promoRun("", args...)
	if code != ExitOK || !strings.Contains(stdout, account+" is entrant 3 of ") {
		t.Fatalf("entrant-proof: exit %d\n%s%s", code, stdout, errs)
	}
	if fi, err := os.Stat(proofFile); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("proof file: %v, %v", fi, err)
	}
	proof, _ := os.ReadFile(proofFile)
	for _, a := range list.Accounts {
		if a != account && bytes.Contains(proof, []byte(`"`+a+`"`)) {
			t.Fatalf("the proof names another entrant, %s\n%s", a, proof)
		}
	}
	// Never over a file.
	if code, _, errs := promoRun("", args...); code != ExitUsage || !strings.Contains(errs, "--out") {
		t.Fatalf("entrant-proof over its own file: exit %d, %s", code, errs)
	}
	// Usage errors, found before the log is opened.
	for _, bad := range [][]string{
		{"entrant-proof", "--draw", "bonus-crescendo/1", "--out", absentOut(dir)},
		{"entrant-proof", "--draw", "bonus-crescendo/1", "--account", "a b", "--out", absentOut(dir)},
		{"entrant-proof", "--draw", "nodraw", "--account", account, "--out", absentOut(dir)},
	} {
		if code, _, errs := promoRun("", append(bad, common...)...); code != ExitUsage {
			t.Errorf("%q: exit %d, %s", bad, code, errs)
		}
	}
	// An account not in the list: refused in one line, nothing written.
	absent := filepath.Join(dir, "absent.json")
	code, _, errs = promoRun("", append([]string{"entrant-proof", "--draw", "bonus-crescendo/1", "--account", "zz-not-an-entrant", "--out", absent}, common...)...)
	// (The software keystore's warning aside.)
	if code != ExitFail || strings.Count(errs, "rngctl promo entrant-proof:") != 1 || !strings.Contains(errs, `"zz-not-an-entrant": not in the frozen entrant list`) {
		t.Fatalf("an account not in the list: exit %d, %q", code, errs)
	}
	if _, err := os.Stat(absent); !os.IsNotExist(err) {
		t.Fatalf("a file was written for an account not in the list: %v", err)
	}

	verify := func(file string, extra ...string) (int, string) {
		var vout, verr bytes.Buffer
		c := cli.Run(cli.Env{Args: append([]string{"entrant", file, "--log-key", rc.LogKeys[0]}, extra...), Stdout: &vout, Stderr: &verr})
		return c, vout.String() + verr.String()
	}
	pseudonym := promo.Pseudonym(tree.Leaf(i))
	c, vout := verify(proofFile)

	if c != cli.ExitOK || !strings.Contains(vout, "[PASS] entrant-inclusion") || !strings.Contains(vout, pseudonym) {
		t.Fatalf("rngverify entrant: exit %d (want pseudonym %s)\n%s", c, pseudonym, vout)
	}
	if c, vout := verify(proofFile, "--lang", "fr"); c != cli.ExitOK || !strings.Contains(vout, "pseudonyme") || !strings.Contains(vout, pseudonym) {
		t.Fatalf("rngverify entrant --lang fr: exit %d\n%s", c, vout)
	}
	// Without a trusted key, it refuses to run.
	var vout2, verr2 bytes.Buffer
	if c := cli.Run(cli.Env{Args: []string{"entrant", proofFile}, Stdout: &vout2, Stderr: &verr2}); c != cli.ExitUsage {
		t.Fatalf("rngverify entrant without a key: exit %d\n%s%s", c, vout2.String(), verr2.String())
	}
	// Another account's salt: fails, naming the check.
	var p promo.EntrantProof
	if err := json.Unmarshal(proof, &p); err != nil {
		t.Fatal(err)
	}
	other := promo.EntrantSalt(list.Key, list.Draw, list.Accounts[i+1])
	p.Salt = hexOf(other[:])
	tampered := filepath.Join(dir, "tampered.json")
	os.WriteFile(tampered, promo.EntrantProofJSON(&p), 0o600)
	if c, vout := verify(tampered); c != cli.ExitFail || !strings.Contains(vout, "[FAIL] entrant-inclusion") {
		t.Fatalf("a proof with another's salt: exit %d\n%s", c, vout)
	}
	// rngverify freeze --account: the bailiff's answer for a player, under
	// the freeze's scheme.
	var fout, ferr bytes.Buffer
	c = cli.Run(cli.Env{Args: []string{"freeze", filepath.Join(out, "bonus-crescendo-1-receipt.json"), "--log-key", rc.LogKeys[0],
		"--entrants", filepath.Join(out, "bonus-crescendo-1-entrants.txt"), "--account", account}, Stdout: &fout, Stderr: &ferr})
	if c != cli.ExitOK || !strings.Contains(fout.String(), "pseudonym "+pseudonym) {
		t.Fatalf("rngverify freeze --account: exit %d\n%s%s", c, fout.String(), ferr.String())
	}
	if os.Getenv("TIRAGE_SHOW_ENTRANT") != "" {
		_, fr := verify(proofFile, "--lang", "fr")
		_, bad := verify(tampered)
		t.Logf("%s\n%s\n%s", vout, fr, bad)
	}
}

func absentOut(dir string) string { return filepath.Join(dir, "never.json") }

func hexOf(b []byte) string {
	const digits = "0123456789abcdef"
	out := make([]byte, 0, 2*len(b))
	for _, c := range b {
		out = append(out, digits[c>>4], digits[c&15])
	}
	return string(out)
}

// entrant-proof, draw and certificate of a draw id the rules do not define
// say so, naming --draw and the draws the rules define (usage, exit 2), not
// that the draw was not frozen; a draw the rules define but not frozen
// still says it was not frozen.
func TestPromoUndefinedDraw(t *testing.T) {
	dir, keysDir, pass := promoCeremonySetup(t)
	stakes, closed := filepath.Join(dir, "stakes.csv"), filepath.Join(dir, "closed.csv")
	if code, _, errs := promoRun("", "gen", "--rules", exampleRules, "--rows", "200", "--out", stakes, "--closed", closed); code != ExitOK {
		t.Fatalf("gen: %s", errs)
	}
	common := []string{"--data", filepath.Join(dir, "data"), "--origin", "tirage.test/ctl", "--backend", "software", "--allow-software", "--keys", keysDir, "--passphrase-file", pass}
	if code, stdout, errs := promoRun("", append([]string{"freeze", "--rules", exampleRules, "--stakes", stakes, "--closed", closed, "--draw", "1", "--out", filepath.Join(dir, "out"), "--quiet"}, common...)...); code != ExitOK {
		t.Fatalf("freeze: exit %d\n%s%s", code, stdout, errs)
	}
	rules, err := os.ReadFile(exampleRules)
	if err != nil {
		t.Fatal(err)
	}
	r, err := promo.ParseRules(rules)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, d := range r.Draws {
		ids = append(ids, d.ID)
	}
	want := "--draw: bonus-crescendo/9 is not a draw of the rules of bonus-crescendo: they define " + strings.Join(ids, ", ")
	for _, sub := range [][]string{
		{"entrant-proof", "--draw", "bonus-crescendo/9", "--account", "a1", "--out", absentOut(dir)},
		{"certificate", "--draw", "bonus-crescendo/9", "--out", absentOut(dir)},
	} {
		code, _, errs := promoRun("", append(sub, common...)...)
		if code != ExitUsage || !strings.Contains(errs, want) || strings.Contains(errs, "not frozen") {
			t.Errorf("%s of an undefined draw: exit %d, %q, want %q", sub[0], code, errs, want)
		}
	}
	code, _, errs := promoRun("", append([]string{"entrant-proof", "--draw", "bonus-crescendo/2", "--account", "a1", "--out", absentOut(dir)}, common...)...)
	if code != ExitFail || !strings.Contains(errs, "bonus-crescendo/2: draw not frozen") {
		t.Errorf("entrant-proof of a draw not frozen: exit %d, %q", code, errs)
	}
}
