//go:build !tirage_dev

package ctl

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A production rngctl neither offers nor makes a demo manifest: its codes
// are public, and would pass for a real emission's (TestDemoManifestIsMarked,
// emission_dev_test.go, for a dev build).
func TestDemoManifestRefused(t *testing.T) {
	for _, args := range [][]string{{"help"}, {"emission", "-h"}} {
		if _, out, errOut := rngctl(args...); strings.Contains(out+errOut, "demo") {
			t.Errorf("rngctl %s offers a demo manifest: %q", strings.Join(args, " "), errOut)
		}
	}
	dir := t.TempDir()
	manifest, codes := filepath.Join(dir, "m.csv"), filepath.Join(dir, "codes.txt")
	code, out, errOut := rngctl("emission", "demo-manifest", "--id", "E1", "--count", "3", "--manifest", manifest, "--codes", codes)
	want := "rngctl: emission demo-manifest: only in a dev build of rngctl (-tags tirage_dev): a demo manifest's codes are public, and rngd imports one only in dev mode (rngctl emission -h for usage)\n"
	if code != ExitUsage || out != "" || errOut != want {
		t.Errorf("demo-manifest: exit %d %q %q; want exit 2 and %q", code, out, errOut, want)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("demo-manifest wrote %v", entries)
	}
}
