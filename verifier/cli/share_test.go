package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// rngverify share-commitment prints the bailiff's commitment to the share
// read as rngctl promo draw reads it (a line of standard input, or a file;
// text or dice), and refuses what the ceremony refuses, in one line.
func TestShareCommitmentCommand(t *testing.T) {
	dir := t.TempDir()
	dice := filepath.Join(dir, "dice.txt")
	os.WriteFile(dice, []byte("3 5 1, 6-2 4 3 5 1 2 6 6 2 3 4 1 5 2 2 3 1 6 6 4 1\n"), 0o600)
	for _, tc := range []struct {
		name    string
		args    []string
		stdin   string
		code    int
		out     string
		errLine string
	}{
		{"typed text", []string{"--draw", "bonus-crescendo/1"}, "  Maître Dupont, huissier\r\n", ExitOK, "71fce089d2cc8b19feaf19cc22934ed60ea8709e865ecf020cd317c2acd3603c\n", ""},
		{"dice file", []string{"--draw", "bonus-crescendo/1", "--dice", "--share-file", dice}, "", ExitOK, "54983cb34be8ae08822be7b0b9793d7891da5a4e4236278e6d03a1330884cd95\n", ""},
		{"no draw", nil, "Maître Dupont, huissier\n", ExitUsage, "", "rngverify share-commitment: missing --draw"},
		{"not a draw id", []string{"--draw", "bonus-crescendo"}, "Maître Dupont, huissier\n", ExitUsage, "", `--draw "bonus-crescendo": not a draw id`},
		{"too short", []string{"--draw", "bonus-crescendo/1"}, "court\n", ExitUsage, "", "share: typed share must be 8 to 256 bytes"},
		{"not dice", []string{"--draw", "bonus-crescendo/1", "--dice"}, "3 5 7\n", ExitUsage, "", "share: dice roll '7' is not 1 to 6"},
		{"nothing typed", []string{"--draw", "bonus-crescendo/1"}, "", ExitFail, "", "couldn't read the share: no share entered"},
		{"no file", []string{"--draw", "bonus-crescendo/1", "--share-file", filepath.Join(dir, "none")}, "", ExitFail, "", "couldn't read the share: "},
		{"French", []string{"--draw", "bonus-crescendo/1", "--lang", "fr"}, "court\n", ExitUsage, "", "contribution : la contribution saisie par l'huissier doit compter de 8 à 256 octets"},
	} {
		var out, errs bytes.Buffer
		code := Run(Env{Args: append([]string{"share-commitment"}, tc.args...), Stdin: strings.NewReader(tc.stdin), Stdout: &out, Stderr: &errs})
		lines := strings.Split(strings.TrimSpace(errs.String()), "\n")
		if code != tc.code || out.String() != tc.out || (tc.errLine != "" && !strings.Contains(lines[len(lines)-1], tc.errLine)) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit %d, %q, %q", tc.name, code, out.String(), errs.String(), tc.code, tc.out, tc.errLine)
		}
	}
	// A short text share is committed, with a warning: it could be found
	// from its commitment. 20 characters or dice are not warned of.
	for _, tc := range []struct {
		stdin string
		args  []string
		warn  string
	}{
		{"au tirage 1\n", nil, "warning: a text share of 11 characters can be found from its commitment"},
		{"Maître Dupont, huiss\n", nil, ""},
		{"3 5 1 6 2 4 3 5 1 2 6 6 2 3 4 1 5 2 2 3 1 6 6 4 1\n", []string{"--dice"}, ""},
	} {
		var out, errs bytes.Buffer
		code := Run(Env{Args: append([]string{"share-commitment", "--draw", "bonus-crescendo/1"}, tc.args...), Stdin: strings.NewReader(tc.stdin), Stdout: &out, Stderr: &errs})
		if code != ExitOK || len(out.String()) != 65 || strings.Contains(errs.String(), "warning") != (tc.warn != "") || !strings.Contains(errs.String(), tc.warn) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want a commitment and warning %q", tc.stdin, code, out.String(), errs.String(), tc.warn)
		}
	}
	var errs bytes.Buffer
	if code := Run(Env{Args: []string{"share-commitment", "-h"}, Stderr: &errs}); code != ExitOK || !strings.Contains(errs.String(), "usage: rngverify share-commitment --draw ID") {
		t.Errorf("help: exit %d\n%s", code, errs.String())
	}
}
