package ctl

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// dirState is a directory's files and their contents (one level), for
// checking that a failed command changed nothing.
func dirState(t *testing.T, dir string) map[string]string {
	t.Helper()
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for _, e := range entries {
		b, _ := os.ReadFile(filepath.Join(dir, e.Name()))
		m[e.Name()] = string(b)
	}
	return m
}

func sameState(a, b map[string]string) bool {
	if (a == nil) != (b == nil) || len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// gen never overwrites a file (the rules file named as --out was replaced
// by stake rows), checks its flags before it writes anything, and leaves
// no file when it fails.
func TestPromoGenOutputs(t *testing.T) {
	dir := t.TempDir()
	rules := filepath.Join(dir, "r.yaml")
	src, _ := os.ReadFile(exampleRules)
	os.WriteFile(rules, src, 0o644)
	existing := filepath.Join(dir, "closed.csv")
	os.WriteFile(existing, []byte("account\n"), 0o644)
	s1 := filepath.Join(dir, "s1.csv")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--out", rules}, "--out " + rules + " exists: it is never overwritten"},
		{[]string{"--out", s1, "--closed", existing}, "--closed " + existing + " exists"},
		{[]string{"--out", s1, "--closed", s1}, "--out and --closed are the same file"},
		{[]string{"--out", s1, "--rows", "-5"}, "--rows -5: want 0 or more"},
		{[]string{"--out", s1, "--accounts", "-1"}, "--accounts -1"},
		{[]string{"--out", s1, "--format", "xml"}, "--format"},
		{[]string{"--out", filepath.Join(dir, "nodir", "s.csv")}, "no directory"},
	} {
		before := dirState(t, dir)
		code, _, errs := promoRun("", append([]string{"gen", "--rules", rules, "--rows", "10"}, c.args...)...)
		if code != ExitUsage || !strings.Contains(errs, c.want) || strings.Count(errs, "\n") != 1 {
			t.Errorf("%v: exit %d %q, want usage naming %q", c.args, code, errs, c.want)
		}
		if !sameState(before, dirState(t, dir)) {
			t.Errorf("%v: the directory changed", c.args)
		}
	}
	// Interrupted: nothing is left.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out, errb bytes.Buffer
	before := dirState(t, dir)
	if code := Run(ctx, Env{Args: []string{"promo", "gen", "--rules", rules, "--out", s1, "--closed", filepath.Join(dir, "c.csv")}, Stdout: &out, Stderr: &errb}); code != ExitFail || !strings.Contains(errb.String(), "interrupted") {
		t.Errorf("interrupted gen: exit %d %q", code, errb.String())
	}
	if !sameState(before, dirState(t, dir)) {
		t.Errorf("interrupted gen: the directory changed: %v", dirState(t, dir))
	}
	// Both files, and nothing else.
	if code, _, errs := promoRun("", "gen", "--rules", rules, "--rows", "10", "--out", s1, "--closed", filepath.Join(dir, "c.csv")); code != ExitOK {
		t.Fatalf("gen: exit %d %s", code, errs)
	}
	if got := len(dirState(t, dir)); got != len(before)+2 {
		t.Errorf("gen: %d files, want %d: %v", got, len(before)+2, dirState(t, dir))
	}
}

// A failed eligibility changes nothing: no --out made, an earlier report
// left whole; a report is never overwritten.
func TestPromoEligibilityOutputs(t *testing.T) {
	dir := t.TempDir()
	stakes, closed := filepath.Join(dir, "stakes.csv"), filepath.Join(dir, "closed.csv")
	if code, _, errs := promoRun("", "gen", "--rules", exampleRules, "--rows", "2000", "--defects", "--out", stakes, "--closed", closed); code != ExitOK {
		t.Fatalf("gen: %s", errs)
	}
	binary := filepath.Join(dir, "zeros.csv")
	os.WriteFile(binary, make([]byte, 3<<20), 0o644)
	badHeader := filepath.Join(dir, "bad.csv")
	os.WriteFile(badHeader, []byte("id,account,when\n"), 0o644)
	elig := func(out string, args ...string) (int, string) {
		code, _, errs := promoRun("", append([]string{"eligibility", "--rules", exampleRules, "--out", out, "--quiet"}, args...)...)
		return code, errs
	}
	report := filepath.Join(dir, "report")
	if code, errs := elig(report, "--stakes", stakes, "--closed", closed); code != ExitOK {
		t.Fatalf("eligibility: exit %d %s", code, errs)
	}
	// --out's missing parents are made, as before outputs were staged.
	nested := filepath.Join(dir, "runs", "2026", "report")
	if code, errs := elig(nested, "--stakes", stakes, "--closed", closed); code != ExitOK {
		t.Fatalf("eligibility into a directory whose parents are missing: exit %d %s", code, errs)
	}
	if _, err := os.Stat(filepath.Join(nested, "rejected.txt")); err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(filepath.Join(dir, "runs"))
	empty := filepath.Join(dir, "empty")
	os.Mkdir(empty, 0o700)
	// Inputs are checked (flags, then files opened) before --out; what
	// the stake files hold is read after it.
	const early, late = true, false
	for _, c := range []struct {
		args  []string
		early bool
		code  int
		want  string
	}{
		{[]string{"--stakes", stakes, "--stakes", filepath.Join(dir, "nonexist")}, early, ExitFail, "--stakes " + filepath.Join(dir, "nonexist") + ": couldn't open"},
		{[]string{"--stakes", stakes, "--closed", filepath.Join(dir, "nonexist")}, early, ExitFail, "--closed " + filepath.Join(dir, "nonexist")},
		{[]string{"--stakes", stakes, "--closed", stakes}, early, ExitFail, "--closed " + stakes + ": closed accounts: line 1"},
		{[]string{"--stakes", "-", "--stakes", "-"}, early, ExitUsage, "--stakes - (standard input) given 2 times"},
		{[]string{"--stakes", binary}, late, ExitFail, "--stakes " + binary + ": stake file: line 1: no line end within 1 MiB"},
		{[]string{"--stakes", stakes, "--stakes", badHeader}, late, ExitFail, `--stakes ` + badHeader + `: stake file: line 1: unknown column "when"`},
		{[]string{"--stakes", stakes}, late, ExitOK, ""},
	} {
		for _, out := range []string{filepath.Join(dir, "new"), empty, report, stakes} {
			wantCode, want := c.code, c.want
			if !c.early {
				switch out {
				case report:
					wantCode, want = ExitUsage, "--out "+report+" holds e-credits.csv already: it is never overwritten"
				case stakes:
					wantCode, want = ExitUsage, "--out "+stakes+" is not a directory"
				}
			}
			if wantCode == ExitOK {
				continue
			}
			before, beforeOut := dirState(t, dir), dirState(t, out)
			code, errs := elig(out, c.args...)
			if code != wantCode || !strings.Contains(errs, want) || strings.Count(errs, "\n") != 1 {
				t.Errorf("%v --out %s: exit %d %q, want %d %q", c.args, filepath.Base(out), code, errs, wantCode, want)
			}
			if !sameState(before, dirState(t, dir)) || !sameState(beforeOut, dirState(t, out)) {
				t.Errorf("%v --out %s: changed something", c.args, filepath.Base(out))
			}
		}
	}
	// Into an empty directory: the report, and no staging directory left.
	if code, errs := elig(empty, "--stakes", stakes); code != ExitOK {
		t.Fatalf("eligibility into an empty --out: exit %d %s", code, errs)
	}
	if got := dirState(t, empty); len(got) != 3 || got["summary.json"] == "" {
		t.Errorf("--out holds %d files", len(got))
	}
}

// An interrupt stops eligibility promptly, whatever the input (standard
// input that never ends here), and leaves nothing.
func TestPromoEligibilityInterrupt(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	row := "1,a,2016-06-16T10:00:00+02:00,loto,1200,web\n"
	stdin := &endlessLines{head: "id,account,time,game,amount_cents,channel\n", line: row}
	done := make(chan int, 1)
	var stdout, stderr bytes.Buffer
	go func() {
		done <- Run(ctx, Env{Args: []string{"promo", "eligibility", "--rules", exampleRules, "--stakes", "-", "--out", out, "--quiet"},
			Stdin: stdin, Stdout: &stdout, Stderr: &stderr})
	}()
	select {
	case code := <-done:
		if code != ExitFail || !strings.Contains(stderr.String(), "--stakes -: interrupted after") {
			t.Errorf("exit %d %q", code, stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("eligibility still running 10 s after the interrupt")
	}
	if st := dirState(t, dir); len(st) != 0 {
		t.Errorf("an interrupted eligibility left %v", st)
	}
}

// endlessLines reads as head then line repeated forever.
type endlessLines struct {
	head, line string
	off        int
}

func (e *endlessLines) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		if e.off < len(e.head) {
			c := copy(p[n:], e.head[e.off:])
			n += c
			e.off += c
			continue
		}
		i := (e.off - len(e.head)) % len(e.line)
		c := copy(p[n:], e.line[i:])
		n += c
		e.off += c
	}
	return n, nil
}
