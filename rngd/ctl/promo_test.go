package ctl

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"tirage.fr/tirage/internal/peertest"
	"tirage.fr/tirage/verifier/cli"
	"tirage.fr/tirage/verifier/verdict"
)

func promoRun(stdin string, args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := Run(context.Background(), Env{Args: append([]string{"promo"}, args...), Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errb})
	return code, out.String(), errb.String()
}

const exampleRules = "../../examples/bonus-crescendo.yaml"

func TestPromoCheck(t *testing.T) {
	if code, out, errs := promoRun("", "check", exampleRules); code != ExitOK || !strings.Contains(out, "7 days, 4 draws") {
		t.Fatalf("check: %d %s %s", code, out, errs)
	}
	src, _ := os.ReadFile(exampleRules)
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	os.WriteFile(bad, bytes.Replace(src, []byte("minimum_cents: 1000, e_credit_cents: 500}"), []byte("minimum_cents: 0, e_credit_cents: 500}"), 1), 0o644)
	code, _, errs := promoRun("", "check", bad)
	if code != ExitFail || !strings.Contains(errs, "bad.yaml: line 34: days[0].minimum_cents: must be between 1") || strings.Count(errs, "\n") != 1 {
		t.Fatalf("invalid rules: exit %d, %q", code, errs)
	}
	for _, args := range [][]string{{"check"}, {"nope"}, {"freeze", "--rules", exampleRules}, {"draw", "--bogus"}} {
		if code, _, errs := promoRun("", args...); code != ExitUsage {
			t.Errorf("%v: exit %d (%s), want usage", args, code, errs)
		}
	}
}

// promoCeremonySetup needs /dev/hwrng ([peertest.Device]), fixes the ceremony's clock
// and makes a software keystore: it returns the temporary directory, the
// keys directory and the passphrase file.
func promoCeremonySetup(t *testing.T) (dir, keysDir, pass string) {
	t.Helper()
	peertest.Device(t, "/dev/hwrng") // the default entropy source
	old := promoNow
	promoNow = func() time.Time { return time.Date(2016, 6, 21, 8, 30, 0, 0, time.UTC) }
	t.Cleanup(func() { promoNow = old })
	dir = t.TempDir()
	pass = filepath.Join(dir, "pass")
	os.WriteFile(pass, []byte("ceremony passphrase\n"), 0o600)
	keysDir = filepath.Join(dir, "keys")
	k := &keysRun{t: t}
	if code, _, errs := k.run("", "init", "--backend", "software", "--allow-software", "--dir", keysDir, "--passphrase-file", pass, "--announcement", filepath.Join(dir, "ann.json"),
		"--kdf-time", "1", "--kdf-memory-mib", "8", "--kdf-threads", "1"); code != ExitOK {
		t.Fatalf("keys init: %s", errs)
	}
	return dir, keysDir, pass
}

// The offline ceremony through rngctl, checked by rngverify: gen, freeze,
// draw (once), certificate.
func TestPromoCeremonyCLI(t *testing.T) {
	dir, keysDir, pass := promoCeremonySetup(t)
	stakes, closed, out := filepath.Join(dir, "stakes.jsonl"), filepath.Join(dir, "closed.csv"), filepath.Join(dir, "out")
	if code, _, errs := promoRun("", "gen", "--rules", exampleRules, "--rows", "5000", "--format", "jsonl", "--defects", "--out", stakes, "--closed", closed); code != ExitOK {
		t.Fatalf("gen: %s", errs)
	}
	common := []string{"--data", filepath.Join(dir, "data"), "--origin", "tirage.test/ctl", "--backend", "software", "--allow-software", "--keys", keysDir, "--passphrase-file", pass}
	code, stdout, errs := promoRun("", append([]string{"freeze", "--rules", exampleRules, "--stakes", stakes, "--closed", closed, "--out", out, "--quiet"}, common...)...)
	if code != ExitOK || strings.Count(stdout, "frozen bonus-crescendo/") != 4 {
		t.Fatalf("freeze: exit %d\n%s\n%s", code, stdout, errs)
	}
	for _, f := range []string{"e-credits.csv", "rejected.txt", "summary.json", "bonus-crescendo-1-receipt.pdf", "bonus-crescendo-1-receipt.json", "bonus-crescendo-1-entrants.txt"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("freeze did not write %s", f)
		}
	}
	// Freezing again is refused, and leaves no report; into the first
	// freeze's --out, before anything is read (its files are never
	// overwritten).
	out2 := filepath.Join(dir, "out2")
	if code, _, errs := promoRun("", append([]string{"freeze", "--rules", exampleRules, "--stakes", stakes, "--out", out2, "--quiet", "--draw", "1"}, common...)...); code != ExitFail || !strings.Contains(errs, "already frozen") {
		t.Fatalf("second freeze: exit %d %s", code, errs)
	}
	if _, err := os.Lstat(out2); err == nil {
		t.Errorf("a refused freeze made its --out")
	}
	if code, _, errs := promoRun("", append([]string{"freeze", "--rules", exampleRules, "--stakes", stakes, "--out", out, "--quiet", "--draw", "1"}, common...)...); code != ExitUsage || !strings.Contains(errs, "--out "+out+" holds e-credits.csv already") {
		t.Fatalf("freeze into a report: exit %d %s", code, errs)
	}
	// A share too short changes nothing.
	if code, _, errs := promoRun("short\n", append([]string{"draw", "--draw", "bonus-crescendo/1", "--out", out}, common...)...); code != ExitUsage || !strings.Contains(errs, "share") {
		t.Fatalf("short share: exit %d %s", code, errs)
	}
	code, stdout, errs = promoRun("Maître Dupont, huissier, 21 juin 2016\n", append([]string{"draw", "--draw", "bonus-crescendo/1", "--out", out}, common...)...)
	if code != ExitOK || !strings.Contains(stdout, "winner ") || strings.Count(stdout, "reserve ") != 3 {
		t.Fatalf("draw: exit %d\n%s\n%s", code, stdout, errs)
	}
	// Refused before the bailiff is asked for a share.
	if code, _, errs := promoRun("another share\n", append([]string{"draw", "--draw", "bonus-crescendo/1", "--out", out2}, common...)...); code != ExitFail || !strings.Contains(errs, "no second draw") ||
		strings.Contains(errs, verdict.M(verdict.MsgCLISharePromptText).Text("en")) {
		t.Fatalf("second draw: exit %d %s", code, errs)
	}
	// The certificate is never overwritten: refused before the ceremony.
	if code, _, errs := promoRun("another share\n", append([]string{"draw", "--draw", "bonus-crescendo/1", "--out", out}, common...)...); code != ExitUsage || !strings.Contains(errs, "holds bonus-crescendo-1-certificate.json already") {
		t.Fatalf("second draw into the same --out: exit %d %s", code, errs)
	}
	if code, _, errs := promoRun("", append([]string{"certificate", "--draw", "bonus-crescendo/1", "--out", out}, common...)...); code != ExitUsage || !strings.Contains(errs, "holds bonus-crescendo-1-certificate.json already") {
		t.Fatalf("certificate into the same --out: exit %d %s", code, errs)
	}
	cert := filepath.Join(out, "bonus-crescendo-1-certificate.json")
	var vout, verr bytes.Buffer
	if c := cli.Run(cli.Env{Args: []string{"certificate", cert, "--tofu", "--entrants", filepath.Join(out, "bonus-crescendo-1-entrants.txt"), "--rules", exampleRules, "--reserves", "3"}, Stdout: &vout, Stderr: &verr}); c != cli.ExitOK {
		t.Fatalf("rngverify certificate: %d %s", c, verr.String())
	}
	for _, f := range []string{"bonus-crescendo-1-proces-verbal.pdf", "bonus-crescendo-1-annexe-privee.pdf"} {
		b, err := os.ReadFile(filepath.Join(out, f))
		if err != nil || !bytes.HasPrefix(b, []byte("%PDF-")) {
			t.Errorf("%s: %v", f, err)
		}
	}
	// The certificate can be re-issued.
	if code, _, errs := promoRun("", append([]string{"certificate", "--draw", "bonus-crescendo/1", "--out", filepath.Join(dir, "again")}, common...)...); code != ExitOK {
		t.Fatalf("certificate: %s", errs)
	}
}

// gen says what it wrote (on standard error, as eligibility's progress:
// the data is in the files); eligibility's summary line gives the amount's
// currency and the excluded rows beside the counted and rejected ones.
func TestPromoGenAndEligibilityReport(t *testing.T) {
	dir := t.TempDir()
	stakes, closed, out := filepath.Join(dir, "stakes.csv"), filepath.Join(dir, "closed.csv"), filepath.Join(dir, "out")
	code, stdout, errs := promoRun("", "gen", "--rules", exampleRules, "--rows", "20000", "--defects", "--out", stakes, "--closed", closed)
	want := "wrote " + stakes + ": 20000 synthetic stake rows (csv, with malformed and duplicate rows) of 2500 accounts for bonus-crescendo, seed 1\n" +
		"wrote " + closed + ": closed accounts (CSV account,closed_at)\n"
	if code != ExitOK || stdout != "" || errs != want {
		t.Fatalf("gen: exit %d, %q %q; want %q", code, stdout, errs, want)
	}
	code, stdout, errs = promoRun("", "eligibility", "--rules", exampleRules, "--stakes", stakes, "--closed", closed, "--out", out, "--quiet")
	if code != ExitOK {
		t.Fatalf("eligibility: exit %d %s", code, errs)
	}
	b, err := os.ReadFile(filepath.Join(out, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var sum Summary
	if err := json.Unmarshal(b, &sum); err != nil {
		t.Fatal(err)
	}
	var excluded int64
	for _, n := range sum.Excluded {
		excluded += n
	}
	if excluded == 0 || sum.Rejected == 0 || sum.Lines != sum.Counted+excluded+sum.Rejected {
		t.Fatalf("summary %+v: want excluded and rejected rows, lines = counted + excluded + rejected", sum)
	}
	first := fmt.Sprintf("20000 lines: %d counted, %d excluded (by reason in summary.json), %d rejected (see rejected.txt); %d e-credits, %d.%02d EUR in all\n",
		sum.Counted, excluded, sum.Rejected, sum.ECredits, sum.ECreditCents/100, sum.ECreditCents%100)
	if !strings.HasPrefix(stdout, first) {
		t.Errorf("eligibility: %q, want it to start with %q", stdout, first)
	}
}

// Bad --entropy, --min-entropy, and --stakes - with a passphrase or PIN
// to be read from standard input too, are usage errors found before any
// input is read (the stakes file here does not exist).
func TestPromoEarlyUsageErrors(t *testing.T) {
	dir := t.TempDir()
	none := filepath.Join(dir, "none.csv")
	out := filepath.Join(dir, "out")
	base := []string{"--rules", exampleRules, "--out", out, "--data", filepath.Join(dir, "data"), "--origin", "tirage.test/ctl", "--quiet"}
	soft := []string{"--backend", "software", "--allow-software", "--keys", filepath.Join(dir, "keys")}
	for _, tc := range []struct {
		args   []string
		stderr string
	}{
		{append([]string{"freeze", "--stakes", none, "--entropy", "getrandom"}, soft...), "--entropy \"getrandom\": want hwrng, rdseed or tpm"},
		{append([]string{"freeze", "--stakes", none, "--min-entropy", "0"}, soft...), "--min-entropy 0: want 0 < H <= 8"},
		{append([]string{"receipts", "--stakes", none, "--min-entropy", "9"}, soft...), "--min-entropy 9: want 0 < H <= 8"},
		{append([]string{"freeze", "--stakes", none, "--min-entropy", "NaN"}, soft...), "--min-entropy NaN: want 0 < H <= 8"},
		{append([]string{"freeze", "--stakes", none, "--min-entropy", "0.001"}, soft...), "--min-entropy 0.001:"},
		{append([]string{"freeze", "--stakes", "-"}, soft...), "--stakes - and the passphrase both from standard input: give the passphrase with --passphrase-file FILE or --passphrase-fd N"},
		{[]string{"receipts", "--stakes", "-", "--backend", "pkcs11", "--module", "/none.so", "--token-label", "t"}, "--stakes - and the PIN both from standard input: give the PIN with --pin-file FILE or --pin-fd N"},
	} {
		code, stdout, errs := promoRun("", append(tc.args, base...)...)
		if code != ExitUsage || stdout != "" || !strings.Contains(errs, tc.stderr) || strings.Count(errs, "\n") != 1 {
			t.Errorf("promo %q: exit %d, %q %q; want %d and %q", tc.args, code, stdout, errs, ExitUsage, tc.stderr)
		}
		if _, err := os.Lstat(out); err == nil {
			t.Fatalf("promo %q made --out", tc.args)
		}
	}
	code, _, errs := promoRun("", "draw", "--draw", "x/1", "--out", out, "--data", filepath.Join(dir, "data"), "--origin", "o", "--min-entropy", "-1")
	if code != ExitUsage || !strings.Contains(errs, "--min-entropy -1: want 0 < H <= 8") {
		t.Errorf("draw --min-entropy -1: exit %d %q", code, errs)
	}
}

// receipts, draw and certificate with a --data that holds no log (a typo)
// are refused before anything is opened: no log is created there, no key
// announced in it.
func TestPromoDataWithoutLog(t *testing.T) {
	dir, keysDir, pass := promoCeremonySetup(t)
	stakes, out := filepath.Join(dir, "stakes.csv"), filepath.Join(dir, "out")
	if code, _, errs := promoRun("", "gen", "--rules", exampleRules, "--rows", "200", "--out", stakes); code != ExitOK {
		t.Fatalf("gen: %s", errs)
	}
	typo := filepath.Join(dir, "dtaa")
	common := []string{"--data", typo, "--origin", "tirage.test/ctl", "--backend", "software", "--allow-software", "--keys", keysDir, "--passphrase-file", pass, "--draw", "bonus-crescendo/1", "--out", out}
	for _, args := range [][]string{
		append([]string{"receipts", "--rules", exampleRules, "--stakes", stakes, "--quiet"}, common...),
		append([]string{"draw"}, common...),
		append([]string{"certificate"}, common...),
	} {
		code, stdout, errs := promoRun("a share of the bailiff\n", args...)
		if code != ExitUsage || stdout != "" || !strings.Contains(errs, "--data "+typo+" holds no log: nothing was frozen there") || strings.Count(errs, "\n") != 1 {
			t.Errorf("promo %s: exit %d, %q %q; want %d and holds no log", args[0], code, stdout, errs, ExitUsage)
		}
		if _, err := os.Lstat(typo); err == nil {
			t.Fatalf("promo %s created the mistyped --data", args[0])
		}
		if _, err := os.Lstat(out); err == nil {
			t.Fatalf("promo %s made --out", args[0])
		}
	}
}

// cancelReader stands for the bailiff's terminal: Ctrl-C (cancel) comes
// while the share is being read, then the line typed arrives.
type cancelReader struct {
	cancel context.CancelFunc
	r      *strings.Reader
}

func (c *cancelReader) Read(p []byte) (int, error) {
	c.cancel()
	return c.r.Read(p)
}

// An interrupt while the bailiff's share (or the passphrase) is read stops
// the ceremony: nothing is drawn, and the share typed then is not used; the
// draw runs afterwards with the bailiff's share.
func TestPromoDrawInterrupted(t *testing.T) {
	dir, keysDir, pass := promoCeremonySetup(t)
	stakes, out := filepath.Join(dir, "stakes.csv"), filepath.Join(dir, "out")
	if code, _, errs := promoRun("", "gen", "--rules", exampleRules, "--rows", "2000", "--out", stakes); code != ExitOK {
		t.Fatalf("gen: %s", errs)
	}
	data := []string{"--data", filepath.Join(dir, "data"), "--origin", "tirage.test/ctl", "--backend", "software", "--allow-software", "--keys", keysDir}
	common := append(data, "--passphrase-file", pass)
	if code, _, errs := promoRun("", append([]string{"freeze", "--rules", exampleRules, "--stakes", stakes, "--out", filepath.Join(dir, "report"), "--quiet", "--draw", "1"}, common...)...); code != ExitOK {
		t.Fatalf("freeze: %s", errs)
	}
	interrupted := func(stdin string, args []string) {
		t.Helper()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		var o, e bytes.Buffer
		code := Run(ctx, Env{Args: append([]string{"promo", "draw", "--draw", "bonus-crescendo/1", "--out", out}, args...),
			Stdin: &cancelReader{cancel, strings.NewReader(stdin)}, Stdout: &o, Stderr: &e})
		if code != ExitFail || !strings.HasSuffix(e.String(), "interrupted: nothing drawn\n") || o.String() != "" {
			t.Fatalf("draw interrupted: exit %d, %q %q; want %d and interrupted: nothing drawn", code, o.String(), e.String(), ExitFail)
		}
		if _, err := os.Lstat(out); err == nil {
			t.Fatal("an interrupted draw made --out")
		}
	}
	interrupted("typed after Ctrl-C\n", common)
	interrupted("ceremony passphrase\n", data)
	code, stdout, errs := promoRun("Maître Dupont, huissier\n", append([]string{"draw", "--draw", "bonus-crescendo/1", "--out", out}, common...)...)
	if code != ExitOK || !strings.Contains(stdout, "winner ") {
		t.Fatalf("draw after the interrupts: exit %d %q %q", code, stdout, errs)
	}
}
