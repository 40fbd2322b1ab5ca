package ctl

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tirage.fr/tirage/rngd"
	"tirage.fr/tirage/rngd/rngdtest"
)

// testManifest writes a manifest of n tickets of emission id, made with a
// test seed (not the demo's: rngdtest's rngd, not in dev mode, refuses a
// demo manifest), and returns their codes.
func testManifest(t *testing.T, path, id string, n int) []string {
	t.Helper()
	codes, tickets := rngd.DemoTickets(id, []byte("rngctl test"), n)
	var b strings.Builder
	for _, tk := range tickets {
		b.WriteString(tk.Line() + "\n")
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return codes
}

func rngctl(args ...string) (code int, stdout, stderr string) {
	var o, e bytes.Buffer
	code = Run(context.Background(), Env{Args: args, Stdin: strings.NewReader(""), Stdout: &o, Stderr: &e})
	return code, o.String(), e.String()
}

func TestEmissionCommands(t *testing.T) {
	sock := rngdtest.Start(t).Admin
	dir := t.TempDir()
	manifest := filepath.Join(dir, "m.csv")
	testManifest(t, manifest, "E1", 50)
	for _, tc := range []struct {
		args   []string
		code   int
		output string
	}{
		{[]string{"emission"}, ExitUsage, "usage: rngctl emission"},
		{[]string{"emission", "list", "--socket", sock}, ExitOK, "no emission is registered (rngctl emission create registers one)\n"},
		{[]string{"emission", "create", "--socket", sock, "--id", "E1"}, ExitUsage, "--closure is required"},
		// Checked before rngd is called (usage errors naming the flag);
		// rngd checks again (rngd's TestRefusalReasons).
		{[]string{"emission", "create", "--socket", sock, "--id", "E1", "--closure", "2026-02-30"}, ExitUsage, "emission create: --closure: \"2026-02-30\" is not a YYYY-MM-DD date"},
		{[]string{"emission", "create", "--socket", sock, "--id", "E1", "--closure", "2026-13-01"}, ExitUsage, "emission create: --closure: \"2026-13-01\" is not a YYYY-MM-DD date"},
		{[]string{"emission", "create", "--socket", sock, "--id", "bad id", "--closure", "2026-12-01"}, ExitUsage, "emission create: --id:"},
		// Years the log cannot record, or typos.
		{[]string{"emission", "create", "--socket", sock, "--id", "E1", "--closure", "1900-01-01"}, ExitUsage, "--closure: 1900-01-01: want a year from 2000 to 2199"},
		{[]string{"emission", "create", "--socket", sock, "--id", "E1", "--closure", "9999-12-31"}, ExitUsage, "--closure: 9999-12-31: want a year from 2000 to 2199"},
		{[]string{"emission", "create", "--socket", filepath.Join(dir, "none.sock"), "--id", "E1", "--closure", "2026-12-01"}, ExitFail, "is rngd running"},
		{[]string{"emission", "create", "--socket", sock, "--id", "E1", "--closure", "2026-12-01"}, ExitOK, "stage 2 may start until 2026-12-30T23:00:00Z"},
		// The same command again returns the same result (same request id).
		{[]string{"emission", "create", "--socket", sock, "--id", "E1", "--closure", "2026-12-01"}, ExitOK, "stage 2 may start until 2026-12-30T23:00:00Z"},
		{[]string{"emission", "create", "--socket", sock, "--id", "E1", "--closure", "2026-12-02", "--request-id", "x"}, ExitFail, "already registered (AlreadyExists)"},
		// Another closure without --request-id: a new request, which rngd refuses as such.
		{[]string{"emission", "create", "--socket", sock, "--id", "E1", "--closure", "2026-12-02"}, ExitFail, `emission "E1" is already registered`},
		{[]string{"emission", "import", "--socket", sock, "--id", "E2", "--manifest", manifest}, ExitFail, "belongs to emission"},
		// An --id no emission can have is a usage error, as for create
		// (it was exit 1, "belongs to emission", for every line).
		{[]string{"emission", "import", "--socket", sock, "--id", "bad id", "--manifest", manifest}, ExitUsage, "emission import: --id: emission_id \"bad id\" must be"},
		{[]string{"emission", "import", "--socket", sock, "--id", "E1", "--manifest", filepath.Join(dir, "none.csv")}, ExitFail, "--manifest " + filepath.Join(dir, "none.csv") + ": no such file"},
		{[]string{"emission", "import", "--socket", sock, "--id", "E1", "--manifest", manifest}, ExitOK, "50 tickets, root"},
		{[]string{"emission", "import", "--socket", sock, "--id", "E1", "--manifest", manifest, "--request-id", "again"}, ExitFail, "already imported (nothing changed) (AlreadyExists)"},
		{[]string{"emission", "list", "--socket", sock}, ExitOK, "E1\tclosure 2026-12-01"},
		{[]string{"qod", "status", "--socket", sock}, ExitOK, "unfinished games 0"},
		{[]string{"qod", "show", "--socket", sock, "--game", "nope"}, ExitFail, "no game"},
		{[]string{"qod", "refund", "--socket", sock, "--game", "nope"}, ExitUsage, "--reason are required"},
		{[]string{"qod", "sweep", "--socket", sock}, ExitOK, "0 expired games ended"},
		{[]string{"qod", "list-expired", "--socket", sock}, ExitOK, "0 games past their deadline, not ended: rngctl qod refund --game ID --reason TEXT takes each before its deadline + game.refund_grace (168h0m0s)\n"},
		{[]string{"state"}, ExitUsage, "rebuild"},
	} {
		code, out, errOut := rngctl(tc.args...)
		if code != tc.code || !strings.Contains(out+errOut, tc.output) {
			t.Errorf("rngctl %s: exit %d, %q %q; want %d and %q", strings.Join(tc.args, " "), code, out, errOut, tc.code, tc.output)
		}
	}
}

// state rebuild refuses a data directory with no log, creating nothing; a
// config it cannot read is a usage error (exit 2), as for rngd.
func TestStateRebuildRefusals(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	typo := filepath.Join(dir, "dtaa")
	empty := filepath.Join(dir, "empty")
	if err := os.Mkdir(empty, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		config string
		code   int
		stderr string
	}{
		{filepath.Join(dir, "nonexist.toml"), ExitUsage, "rngctl: state rebuild: --config: couldn't read config " + filepath.Join(dir, "nonexist.toml")},
		{write("bad.toml", "data_dir = \n"), ExitUsage, "rngctl: state rebuild: --config: couldn't read config"},
		{write("unknown.toml", "data_dri = \"x\"\n"), ExitUsage, "unknown keys: data_dri"},
		{write("typo.toml", rebuildConfig(dir, typo)), ExitFail, "data_dir " + typo + ": no such directory: nothing to rebuild from"},
		{write("empty.toml", rebuildConfig(dir, empty)), ExitFail, "data_dir " + empty + " has no log"},
	} {
		code, out, errOut := rngctl("state", "rebuild", "--config", tc.config)
		if code != tc.code || out != "" || !strings.Contains(errOut, tc.stderr) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("state rebuild --config %s: exit %d, %q %q; want %d and %q", tc.config, code, out, errOut, tc.code, tc.stderr)
		}
	}
	if _, err := os.Lstat(typo); err == nil {
		t.Error("state rebuild created the mistyped data_dir")
	}
	if entries, _ := os.ReadDir(empty); len(entries) != 0 {
		t.Errorf("state rebuild wrote %v in a data_dir with no log", entries)
	}
}

// rebuildConfig is a config rngd accepts, with data_dir data.
func rebuildConfig(dir, data string) string {
	return fmt.Sprintf(`data_dir = %q
[grpc]
cert_file = %q
key_file = %q
client_ca_file = %q
[log]
origin = "tirage.test/rebuild"
[keys]
allow_software = true
passphrase_file = %q
`, data, filepath.Join(dir, "server.pem"), filepath.Join(dir, "server.key"), filepath.Join(dir, "ca.pem"), filepath.Join(dir, "pass"))
}

// A manifest cut off in the middle of its last line (a copy one byte
// short: the last stake 100000 read as 10000) is refused, nothing
// imported, so the whole file imports afterwards; --count and --root catch a
// cut at a line break, before anything is sent.
func TestEmissionImportTruncated(t *testing.T) {
	sock := rngdtest.Start(t).Admin
	dir := t.TempDir()
	manifest := filepath.Join(dir, "m.csv")
	testManifest(t, manifest, "E1", 20)
	data, err := os.ReadFile(manifest)
	if err != nil {
		t.Fatal(err)
	}
	short := filepath.Join(dir, "short.csv")
	os.WriteFile(short, data[:len(data)-2], 0o644) // the newline and the stake's last digit
	lines := strings.SplitAfter(string(data), "\n")
	cut := filepath.Join(dir, "cut.csv")
	os.WriteFile(cut, []byte(strings.Join(lines[:19], "")), 0o644)
	if code, _, errs := rngctl("emission", "create", "--socket", sock, "--id", "E1", "--closure", "2026-12-01"); code != ExitOK {
		t.Fatalf("create: %s", errs)
	}
	for _, tc := range []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{"--manifest", short}, ExitFail, "--manifest " + short + ": ends in the middle of line 20 (truncated?): nothing imported"},
		{[]string{"--manifest", cut, "--count", "20"}, ExitFail, "--count 20: the manifest has 19 tickets: nothing imported"},
		{[]string{"--manifest", cut, "--root", strings.Repeat("ab", 32)}, ExitFail, "--root abab"},
		{[]string{"--manifest", manifest, "--count", "0"}, ExitUsage, "emission import: --count 0: want 1 or more"},
		{[]string{"--manifest", manifest, "--root", "xyz"}, ExitUsage, "emission import: --root: want 64 hex digits"},
	} {
		code, out, errs := rngctl(append([]string{"emission", "import", "--socket", sock, "--id", "E1"}, tc.args...)...)
		if code != tc.code || out != "" || !strings.Contains(errs, tc.stderr) || strings.Count(errs, "\n") != 1 {
			t.Errorf("emission import %v: exit %d, %q %q; want %d and %q", tc.args, code, out, errs, tc.code, tc.stderr)
		}
	}
	code, out, errs := rngctl("emission", "import", "--socket", sock, "--id", "E1", "--manifest", manifest, "--count", "20")
	if code != ExitOK || !strings.Contains(out, "20 tickets") {
		t.Fatalf("import of the whole manifest after the refusals: exit %d %q %q", code, out, errs)
	}
	root := out[strings.Index(out, "root ")+5:][:64]
	if code, _, errs := rngctl("emission", "import", "--socket", sock, "--id", "E1", "--manifest", manifest, "--root", root, "--request-id", "again"); code != ExitFail || !strings.Contains(errs, "already imported") {
		t.Errorf("import again with its --root: exit %d %q, want rngd's refusal (the root matched)", code, errs)
	}
}

// A flag the subcommand does not use, or a text flag that is not UTF-8, is
// a usage error naming it, found before rngd is called (the socket here does
// not exist).
func TestSubcommandFlags(t *testing.T) {
	dir := t.TempDir()
	sock := filepath.Join(dir, "none.sock")
	manifest := filepath.Join(dir, "m.csv")
	testManifest(t, manifest, "E1", 3)
	for _, tc := range []struct {
		args   []string
		stderr string
	}{
		{[]string{"emission", "list", "--id", "E1"}, "emission list: --id is not a flag of emission list"},
		{[]string{"emission", "list", "--request-id", "r"}, "emission list: --request-id is not a flag of emission list"},
		{[]string{"emission", "create", "--id", "E1", "--closure", "2026-12-01", "--manifest", manifest}, "emission create: --manifest is not a flag of emission create"},
		{[]string{"emission", "create", "--id", "E1", "--closure", "2026-12-01", "--count", "3"}, "emission create: --count is not a flag of emission create"},
		{[]string{"emission", "import", "--id", "E1", "--manifest", manifest, "--closure", "2026-12-01"}, "emission import: --closure is not a flag of emission import"},
		{[]string{"emission", "import", "--id", "E1", "--manifest", manifest, "--request-id", "r\xff"}, "emission import: --request-id is not valid UTF-8"},
		{[]string{"qod", "sweep", "--game", "G"}, "qod sweep: --game is not a flag of qod sweep"},
		{[]string{"qod", "status", "--request-id", "r"}, "qod status: --request-id is not a flag of qod status"},
		{[]string{"qod", "show", "--game", "G", "--reason", "r"}, "qod show: --reason is not a flag of qod show"},
		{[]string{"qod", "show", "--game", "G\xff"}, "qod show: --game is not valid UTF-8"},
		{[]string{"qod", "list-expired", "--request-id", "r"}, "qod list-expired: --request-id is not a flag of qod list-expired"},
		{[]string{"qod", "refund", "--game", "G", "--reason", "caf\xe9"}, "qod refund: --reason is not valid UTF-8"},
		{[]string{"entropy", "status", "--request-id", "r"}, "entropy status: --request-id is not a flag of entropy status"},
		{[]string{"entropy", "retest", "--request-id", "r"}, "entropy retest: --request-id is not a flag of entropy retest"},
	} {
		code, out, errs := rngctl(append(tc.args, "--socket", sock)...)
		if code != ExitUsage || out != "" || !strings.Contains(errs, tc.stderr) || strings.Count(errs, "\n") != 1 {
			t.Errorf("rngctl %q: exit %d, %q %q; want %d and %q", tc.args, code, out, errs, ExitUsage, tc.stderr)
		}
	}
}
