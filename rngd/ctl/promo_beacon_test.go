package ctl

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tirage.fr/tirage/verifier/cli"
)

// Real drand quicknet rounds (verifier/beacon/testdata/rounds.json names
// their sources).
const (
	quicknet123    = "b75c69d0b72a5d906e854e808ba7e2accb1542ac355ae486d591aa9d43765482e26cd02df835d3546d23c4b13e0dfc92"
	quicknet657413 = "b713718a38ae728dfd477991af2822e08d2f305e47718cef9f7848ce4050e7be41076862b98fad56e91a6b85b89cd97b"
)

// rngctl promo freeze of a draw announcing a drand round needs the
// bailiff's share commitment, as rngverify share-commitment prints it:
// without it, or with a malformed one or one for a draw not frozen, it is
// a usage error naming --share-commitment (exit 2) and nothing is frozen.
// rngctl promo draw checks the announced drand round's signature before the
// share is asked for: a wrong, flipped or missing one is refused with one
// line naming --beacon (exit 1), bad hex is a usage error (exit 2), and
// nothing is locked; a share that does not open the commitment is refused
// as a malformed share is (exit 2), nothing locked; the real round and the
// committed share are bound and rngverify certificate reports the
// share-commitment and beacon-signature checks.
func TestPromoBeaconCLI(t *testing.T) {
	dir, keysDir, pass := promoCeremonySetup(t)
	src, _ := os.ReadFile(exampleRules)
	rules := filepath.Join(dir, "rules.yaml")
	os.WriteFile(rules, bytes.Replace(src, []byte("    reserves: 3\n"), []byte("    reserves: 3\n    beacon: {source: \"drand quicknet\", chain: quicknet, round: 123}\n"), 1), 0o644)
	if code, out, errs := promoRun("", "check", rules); code != ExitOK ||
		!strings.Contains(out, "bonus-crescendo/1: beacon drand quicknet (52db9ba7…) round 123, published at 2023-08-23T15:15:33Z") {
		t.Fatalf("check: exit %d\n%s%s", code, out, errs)
	}
	stakes, out := filepath.Join(dir, "stakes.csv"), filepath.Join(dir, "out")
	if code, _, errs := promoRun("", "gen", "--rules", rules, "--rows", "2000", "--out", stakes); code != ExitOK {
		t.Fatalf("gen: %s", errs)
	}
	common := []string{"--data", filepath.Join(dir, "data"), "--origin", "tirage.test/ctl", "--backend", "software", "--allow-software", "--keys", keysDir, "--passphrase-file", pass}
	// The bailiff's commitment, computed without the appliance.
	var cout, cerr bytes.Buffer
	if c := cli.Run(cli.Env{Args: []string{"share-commitment", "--draw", "bonus-crescendo/1"}, Stdin: strings.NewReader("Maître Dupont, huissier\n"), Stdout: &cout, Stderr: &cerr}); c != cli.ExitOK {
		t.Fatalf("rngverify share-commitment: exit %d %s", c, cerr.String())
	}
	committed := strings.TrimSpace(cout.String())
	freeze := append([]string{"freeze", "--rules", rules, "--stakes", stakes, "--out", out, "--quiet", "--draw", "1"}, common...)
	for _, tc := range []struct {
		name  string
		flags []string
		want  string
	}{
		{"none", nil, "--share-commitment: draw bonus-crescendo/1 announces a beacon round: give the bailiff's share commitment (rngverify share-commitment --draw bonus-crescendo/1)"},
		{"not hex", []string{"--share-commitment", "zz"}, "--share-commitment zz: not a share commitment (64 hex digits"},
		{"too short", []string{"--share-commitment", committed[:62]}, "not a share commitment"},
		{"all zero", []string{"--share-commitment", strings.Repeat("0", 64)}, "--share-commitment " + strings.Repeat("0", 64) + ": all zero, not a share commitment"},
		{"another draw", []string{"--share-commitment", "bonus-crescendo/2=" + committed}, `"bonus-crescendo/2" is not a draw this freeze freezes`},
		{"twice", []string{"--share-commitment", committed, "--share-commitment", "1=" + committed}, "--share-commitment: two commitments for draw bonus-crescendo/1"},
	} {
		code, _, errs := promoRun("", append(append([]string{}, freeze...), tc.flags...)...)
		if code != ExitUsage || !strings.Contains(errs, tc.want) || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
			t.Errorf("freeze, share commitment %s: exit %d %q, want exit %d %q", tc.name, code, errs, ExitUsage, tc.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "data", "log")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a refused freeze made the log: %v", err)
	}
	if code, _, errs := promoRun("", append(freeze, "--share-commitment", committed)...); code != ExitOK {
		t.Fatalf("freeze: exit %d %s", code, errs)
	}
	if rc, err := os.ReadFile(filepath.Join(out, "bonus-crescendo-1-receipt.json")); err != nil || !strings.Contains(string(rc), `"share_commitment": "`+committed+`"`) {
		t.Fatalf("the receipt does not show the share commitment: %v\n%s", err, rc)
	}
	draw := append([]string{"draw", "--draw", "bonus-crescendo/1", "--out", out}, common...)
	flipped := []byte(quicknet123)
	if flipped[40] == '0' {
		flipped[40] = '1'
	} else {
		flipped[40] = '0'
	}
	for _, tc := range []struct {
		name  string
		flags []string
		code  int
		want  string
	}{
		{"another round's signature", []string{"--beacon", quicknet657413}, ExitFail, "--beacon: not the signature of drand quicknet (52db9ba7…) round 123"},
		{"a changed digit", []string{"--beacon", string(flipped)}, ExitFail, "--beacon: "},
		{"no signature", nil, ExitFail, "--beacon: the freeze announced drand quicknet (52db9ba7…) round 123; its published signature is required"},
		{"not hex", []string{"--beacon", "zz"}, ExitUsage, "--beacon: not hex"},
		{"previous alone", []string{"--beacon-previous", "ab"}, ExitUsage, "--beacon-previous goes with --beacon"},
	} {
		code, _, errs := promoRun("Maître Dupont, huissier\n", append(append([]string{}, draw...), tc.flags...)...)
		lines := strings.Split(strings.TrimSpace(errs), "\n")
		last := lines[len(lines)-1]
		if code != tc.code || !strings.Contains(last, tc.want) || strings.Contains(errs, "bailiff's share") {
			t.Errorf("%s: exit %d, last line %q (want exit %d, %q)\n%s", tc.name, code, last, tc.code, tc.want, errs)
		}
	}
	code, _, errs := promoRun("Maître Dupont, huissier 2\n", append(append([]string{}, draw...), "--beacon", quicknet123)...)
	last := strings.Split(strings.TrimSpace(errs), "\n")
	if code != ExitUsage || !strings.Contains(last[len(last)-1], "share: the share does not open the commitment the freeze holds ("+committed+")") {
		t.Fatalf("draw with another share: exit %d\n%s", code, errs)
	}
	if _, err := os.Stat(filepath.Join(dir, "data", "promo", "bonus-crescendo", "1", "draw.lock")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a share refused left draw.lock: %v", err)
	}
	code, _, errs = promoRun("Maître Dupont, huissier\n", append(append([]string{}, draw...), "--beacon", quicknet123)...)
	if code != ExitOK || !strings.Contains(errs, "signature verified; randomness") || !strings.Contains(errs, "share commitment "+committed+" (as on the receipt)") {
		t.Fatalf("draw with the real round: exit %d\n%s", code, errs)
	}
	cert := filepath.Join(out, "bonus-crescendo-1-certificate.json")
	var vout, verr bytes.Buffer
	if c := cli.Run(cli.Env{Args: []string{"certificate", cert, "--tofu", "--rules", rules, "--reserves", "3"}, Stdout: &vout, Stderr: &verr}); c != cli.ExitOK || !strings.Contains(vout.String(), "beacon-signature") ||
		!strings.Contains(vout.String(), "the share opens the commitment the freeze holds ("+committed+")") {
		t.Fatalf("rngverify certificate: %d\n%s\n%s", c, vout.String(), verr.String())
	}
}
