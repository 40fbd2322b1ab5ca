package ctl

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"tirage.fr/tirage/rngd/rngdtest"
)

func rngctl(args ...string) (code int, stdout, stderr string) {
	var o, e bytes.Buffer
	code = Run(context.Background(), Env{Args: args, Stdin: strings.NewReader(""), Stdout: &o, Stderr: &e})
	return code, o.String(), e.String()
}

func TestEmissionCommands(t *testing.T) {
	sock := rngdtest.Start(t).Admin
	dir := t.TempDir()
	manifest, codes := filepath.Join(dir, "m.csv"), filepath.Join(dir, "codes.txt")
	for _, tc := range []struct {
		args   []string
		code   int
		output string
	}{
		{[]string{"emission"}, ExitUsage, "usage: rngctl emission"},
		{[]string{"emission", "create", "--socket", sock, "--id", "E1"}, ExitUsage, "--closure is required"},
		{[]string{"emission", "create", "--socket", sock, "--id", "E1", "--closure", "2026-02-30"}, ExitFail, "closure_date"},
		{[]string{"emission", "create", "--socket", sock, "--id", "bad id", "--closure", "2026-12-01"}, ExitFail, "emission_id"},
		{[]string{"emission", "create", "--socket", filepath.Join(dir, "none.sock"), "--id", "E1", "--closure", "2026-12-01"}, ExitFail, "is rngd running"},
		{[]string{"emission", "create", "--socket", sock, "--id", "E1", "--closure", "2026-12-01"}, ExitOK, "stage 2 may start until 2026-12-30T23:00:00Z"},
		// The same command again returns the same result (same request id).
		{[]string{"emission", "create", "--socket", sock, "--id", "E1", "--closure", "2026-12-01"}, ExitOK, "stage 2 may start until 2026-12-30T23:00:00Z"},
		{[]string{"emission", "create", "--socket", sock, "--id", "E1", "--closure", "2026-12-02", "--request-id", "x"}, ExitFail, "already registered"},
		{[]string{"emission", "demo-manifest", "--id", "E1", "--count", "50", "--manifest", manifest, "--codes", codes}, ExitOK, "50 tickets"},
		{[]string{"emission", "import", "--socket", sock, "--id", "E2", "--manifest", manifest}, ExitFail, "belongs to emission"},
		{[]string{"emission", "import", "--socket", sock, "--id", "E1", "--manifest", manifest}, ExitOK, "50 tickets, root"},
		{[]string{"emission", "import", "--socket", sock, "--id", "E1", "--manifest", manifest, "--request-id", "again"}, ExitFail, "already imported"},
		{[]string{"emission", "list", "--socket", sock}, ExitOK, "E1\tclosure 2026-12-01"},
		{[]string{"qod", "status", "--socket", sock}, ExitOK, "unfinished games 0"},
		{[]string{"qod", "show", "--socket", sock, "--game", "nope"}, ExitFail, "no game"},
		{[]string{"qod", "refund", "--socket", sock, "--game", "nope"}, ExitUsage, "--reason are required"},
		{[]string{"qod", "sweep", "--socket", sock}, ExitOK, "0 expired games ended"},
		{[]string{"state"}, ExitUsage, "rebuild"},
	} {
		code, out, errOut := rngctl(tc.args...)
		if code != tc.code || !strings.Contains(out+errOut, tc.output) {
			t.Errorf("rngctl %s: exit %d, %q %q; want %d and %q", strings.Join(tc.args, " "), code, out, errOut, tc.code, tc.output)
		}
	}
}
