package ctl

import (
	"strings"
	"testing"
)

// Every group answers the same way: its usage for -h (exit 0) or for no
// subcommand (exit 2), and one line naming the problem, with where the usage
// is, for an unknown subcommand, an unknown flag or a stray argument
// (exit 2).
func TestUsageErrors(t *testing.T) {
	for group, sub := range map[string]string{
		"emission": "create", "qod": "status", "state": "rebuild",
		"keys": "show", "promo": "draw", "entropy": "test", "witness": "keygen",
	} {
		if code, out, errOut := rngctl(group, "-h"); code != ExitOK || out != "" || !strings.HasPrefix(errOut, "usage: rngctl "+group) {
			t.Errorf("%s -h: exit %d, stdout %q, stderr %.40q", group, code, out, errOut)
		}
		// help GROUP is GROUP -h, and help GROUP SUB is GROUP SUB -h.
		if code, out, errOut := rngctl("help", group); code != ExitOK || out != "" || !strings.HasPrefix(errOut, "usage: rngctl "+group) {
			t.Errorf("help %s: exit %d, stdout %q, stderr %.40q", group, code, out, errOut)
		}
		if code, _, errOut := rngctl("help", group, sub); code != ExitOK || !strings.HasPrefix(errOut, "usage: rngctl "+group) {
			t.Errorf("help %s %s: exit %d, stderr %.40q", group, sub, code, errOut)
		}
		if code, _, errOut := rngctl(group); code != ExitUsage || !strings.HasPrefix(errOut, "usage: rngctl "+group) {
			t.Errorf("%s: exit %d, stderr %.40q", group, code, errOut)
		}
		if code, _, errOut := rngctl(sub, "-h"); code != ExitUsage || !strings.Contains(errOut, "unknown command") {
			t.Errorf("%s -h: exit %d, stderr %.60q", sub, code, errOut)
		}
		hint := " (rngctl " + group + " -h for usage)\n"
		for _, tc := range []struct {
			args []string
			want string
		}{
			{[]string{group, "bogus"}, "rngctl: " + group + `: unknown subcommand "bogus"`},
			{[]string{group, sub, "--bogus"}, "rngctl: " + group + " " + sub + ": flag provided but not defined: -bogus"},
			{[]string{group, sub, "--help"}, "usage: rngctl " + group},
		} {
			code, _, errOut := rngctl(tc.args...)
			if tc.want[0] == 'u' { // help
				if code != ExitOK || !strings.HasPrefix(errOut, tc.want) {
					t.Errorf("%v: exit %d, stderr %.40q", tc.args, code, errOut)
				}
				continue
			}
			if code != ExitUsage || !strings.HasPrefix(errOut, tc.want) || !strings.HasSuffix(errOut, hint) || strings.Count(errOut, "\n") != 1 {
				t.Errorf("%v: exit %d, stderr %q; want one line %q…%q", tc.args, code, errOut, tc.want, hint)
			}
		}
	}
	// A stray argument, where a subcommand takes none.
	code, _, errOut := rngctl("emission", "list", "extra")
	if code != ExitUsage || errOut != "rngctl: emission list: unexpected argument \"extra\" (rngctl emission -h for usage)\n" {
		t.Errorf("stray argument: exit %d, stderr %q", code, errOut)
	}
}
