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
