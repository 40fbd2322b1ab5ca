//go:build tirage_dev

package ctl

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tirage.fr/tirage/rngd"
	"tirage.fr/tirage/rngd/rngdtest"
)

// demo-manifest checks --id, --count and both outputs before it writes
// either: a failure writes nothing.
func TestDemoManifest(t *testing.T) {
	dir := t.TempDir()
	manifest, codes := filepath.Join(dir, "m.csv"), filepath.Join(dir, "codes.txt")
	for _, tc := range []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{"--id", "E1", "--count", "-1"}, ExitUsage, "--count -1: want 1 to 1000000"},
		{[]string{"--id", "E1", "--count", "0"}, ExitUsage, "--count 0: want 1 to 1000000"},
		{[]string{"--id", "E1"}, ExitUsage, "--count 0: want 1 to 1000000"},
		{[]string{"--count", "5"}, ExitUsage, "--id is required"},
		{[]string{"--id", "bad id", "--count", "5"}, ExitUsage, "--id: emission_id"},
		{[]string{"--id", "E1", "--count", "5", "--codes", manifest}, ExitUsage, "--manifest and --codes are the same file"},
		{[]string{"--id", "E1", "--count", "5", "--codes", filepath.Join(dir, "none", "c.txt")}, ExitFail, "--codes " + filepath.Join(dir, "none", "c.txt") + ": no directory"},
	} {
		args := append([]string{"emission", "demo-manifest", "--manifest", manifest, "--codes", codes}, tc.args...)
		code, out, errOut := rngctl(args...)
		if code != tc.code || out != "" || !strings.Contains(errOut, tc.stderr) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("rngctl %s: exit %d, %q %q; want %d and %q", strings.Join(args, " "), code, out, errOut, tc.code, tc.stderr)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 0 {
			t.Fatalf("rngctl %s wrote %v", strings.Join(args, " "), entries)
		}
	}
	// An output file exists: a usage error (exit 2, as rngctl promo's
	// outputs), and the other file is not written either.
	for _, f := range []struct{ flag, exists, other string }{{"--codes", codes, manifest}, {"--manifest", manifest, codes}} {
		if err := os.WriteFile(f.exists, []byte("old"), 0o600); err != nil {
			t.Fatal(err)
		}
		code, _, errOut := rngctl("emission", "demo-manifest", "--id", "E1", "--count", "5", "--manifest", manifest, "--codes", codes)
		if code != ExitUsage || !strings.Contains(errOut, f.flag+" "+f.exists+" exists: it is never overwritten") || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%s file exists: exit %d, stderr %q; want %d", f.flag, code, errOut, ExitUsage)
		}
		if _, err := os.Lstat(f.other); err == nil {
			t.Errorf("%s file exists: the other was written", f.flag)
		}
		if b, _ := os.ReadFile(f.exists); string(b) != "old" {
			t.Errorf("%s file exists: overwritten", f.flag)
		}
		os.Remove(f.exists)
	}
	// An id of "0" is an id like any other.
	if code, out, errOut := rngctl("emission", "demo-manifest", "--id", "0", "--count", "3", "--manifest", manifest, "--codes", codes); code != ExitOK || !strings.Contains(out, "(3 tickets)") {
		t.Errorf("--id 0: exit %d, %q %q", code, out, errOut)
	}
}

// A dev build's demo manifest is marked as one: its codes are the public
// demo seed's (rngd.DemoManifest), its header says so, and an rngd not in
// dev mode (rngdtest's) refuses to import it. There is no seed to give:
// none can leak through argv.
func TestDemoManifestIsMarked(t *testing.T) {
	if code, _, errOut := rngctl("emission", "-h"); code != ExitOK || !strings.Contains(errOut, "demo-manifest  dev build only") {
		t.Errorf("emission -h: exit %d %q, want demo-manifest listed", code, errOut)
	}
	dir := t.TempDir()
	manifest, codes := filepath.Join(dir, "m.csv"), filepath.Join(dir, "codes.txt")
	code, _, errOut := rngctl("emission", "demo-manifest", "--id", "E1", "--count", "3", "--manifest", manifest, "--codes", codes, "--seed", "secret")
	if code != ExitUsage || !strings.Contains(errOut, "flag provided but not defined: -seed") {
		t.Errorf("--seed: exit %d %q, want a usage error", code, errOut)
	}
	code, out, errOut := rngctl("emission", "demo-manifest", "--id", "E1", "--count", "3", "--manifest", manifest, "--codes", codes)
	if code != ExitOK || !strings.Contains(out, "public: anyone who knows the emission id can recompute them") {
		t.Fatalf("demo-manifest: exit %d %q %q", code, out, errOut)
	}
	want, _ := rngd.DemoManifest("E1", 3)
	b, err := os.ReadFile(codes)
	if err != nil {
		t.Fatal(err)
	}
	for i, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if c, _, _ := strings.Cut(line, ","); c != want[i] {
			t.Errorf("code %d: %s, want rngd.DemoManifest's %s", i, c, want[i])
		}
	}
	if m, _ := os.ReadFile(manifest); !strings.HasPrefix(string(m), "# tirage ticket manifest: emission E1, 3 DEMO tickets: their codes are public") {
		t.Errorf("manifest header: %q", m)
	}
	sock := rngdtest.Start(t).Admin
	if code, _, errOut := rngctl("emission", "create", "--socket", sock, "--id", "E1", "--closure", "2199-01-01"); code != ExitOK {
		t.Fatalf("create: exit %d %q", code, errOut)
	}
	code, _, errOut = rngctl("emission", "import", "--socket", sock, "--id", "E1", "--manifest", manifest)
	if code != ExitFail || !strings.Contains(errOut, "tickets[1]: a demo ticket") || !strings.Contains(errOut, "(InvalidArgument)") {
		t.Errorf("import of a demo manifest into a production rngd: exit %d %q, want it refused", code, errOut)
	}
}
