package ctl

import (
	"os"
	"path/filepath"
	"testing"
)

// With several --stakes files, every line of rejected.txt names its file,
// and a duplicate the file where its id was first seen.
func TestPromoRejectedNamesFiles(t *testing.T) {
	dir := t.TempDir()
	const head = "id,account,time,game,amount_cents,channel\n"
	s1, s2, out := filepath.Join(dir, "stakes-1.csv"), filepath.Join(dir, "stakes-2.csv"), filepath.Join(dir, "out")
	os.WriteFile(s1, []byte(head+
		"1,a,2016-06-16T10:00:00+02:00,loto,1200,web\n"+
		"2,b,2016-06-16T10:00:00+02:00,loto,-5,web\n"), 0o644)
	os.WriteFile(s2, []byte(head+
		"3,c,2016-06-16T10:00:00+02:00,loto,1200,web\n"+
		"1,d,2016-06-16T10:00:00+02:00,loto,1200,web\n"), 0o644)
	code, _, errs := promoRun(head+"9,e,2016-06-16T10:00:00+02:00,loto,x,web\n",
		"eligibility", "--rules", exampleRules, "--stakes", s1, "--stakes", s2, "--stakes", "-", "--out", out, "--quiet")
	if code != ExitOK {
		t.Fatalf("eligibility: exit %d %s", code, errs)
	}
	b, err := os.ReadFile(filepath.Join(out, "rejected.txt"))
	if err != nil {
		t.Fatal(err)
	}
	want := s1 + ":3: amount_cents: must be an integer number of cents between 1 and 100000000000, got \"-5\"\n" +
		s2 + ":3: id: duplicate stake id (first seen in " + s1 + " on line 2)\n" +
		"stdin:2: amount_cents: must be an integer number of cents between 1 and 100000000000, got \"x\"\n"
	if string(b) != want {
		t.Fatalf("rejected.txt:\n%s\nwant:\n%s", b, want)
	}
}
