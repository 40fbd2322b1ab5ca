package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestMain runs rngd's main in a child process when asked (runMain), so
// that the tests see its real exit code and output.
func TestMain(m *testing.M) {
	if os.Getenv("RNGD_TEST_MAIN") == "1" {
		os.Args = append([]string{"rngd"}, os.Args[1:]...)
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// runMain runs main with args; it returns the exit code and stderr.
func runMain(t *testing.T, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "RNGD_TEST_MAIN=1")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0, stderr.String()
	case errors.As(err, &ee):
		return ee.ExitCode(), stderr.String()
	}
	t.Fatal(err)
	return 0, ""
}

// Usage and config errors exit 2, before anything is created: a flag, a
// positional argument, a config that does not parse or does not validate.
func TestUsageErrors(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	base := "data_dir = \"" + data + "\"\n[grpc]\ncert_file = \"c.pem\"\nkey_file = \"c.key\"\nclient_ca_file = \"ca.pem\"\n" +
		"[log]\norigin = \"tirage.test/rngd\"\n[keys]\nallow_software = true\npassphrase_file = \"pass\"\n"
	write := func(name, toml string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(toml), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good.toml", base)
	cases := map[string]usageCase{
		"unknown flag":        {[]string{"--nope"}, "flag provided but not defined"},
		"positional argument": {[]string{"--config", good, "extra"}, "unexpected argument"},
		"positional first":    {[]string{"extra"}, "unexpected argument"},
		"no config":           {nil, "rngd: --config FILE is required (see docs/rngd.md; examples/rngd.toml)\nusage: rngd --config FILE"},
		"empty config":        {[]string{"--config", ""}, "rngd: --config FILE is required"},
		"parse error":         {[]string{"--config", write("parse.toml", base+"[game]\nsweep_interval = \"soon\"\n")}, "game.sweep_interval"},
		"unknown key":         {[]string{"--config", write("unknown.toml", base+"[game]\nsweep = \"1m\"\n")}, "unknown keys: game.sweep"},
		"negative sweep":      {[]string{"--config", write("sweep.toml", base+"[game]\nsweep_interval = \"-1s\"\n")}, "game.sweep_interval"},
		"software keys":       {[]string{"--config", write("soft.toml", strings.Replace(base, "allow_software = true\n", "", 1))}, "keys.allow_software"},
	}
	// Dev mode: a usage error in a production build, not in a dev build
	// (main_nodev_test.go, main_dev_test.go).
	for name, tc := range devUsageCases(write, base) {
		if _, dup := cases[name]; dup {
			t.Fatalf("case %q twice", name)
		}
		cases[name] = tc
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			code, stderr := runMain(t, tc.args...)
			if code != 2 || !strings.Contains(stderr, tc.want) {
				t.Errorf("rngd %q: exit %d, stderr %q; want 2 and %q", tc.args, code, stderr, tc.want)
			}
			if _, err := os.Stat(data); !os.IsNotExist(err) {
				t.Errorf("rngd %q made the data directory: %v", tc.args, err)
			}
		})
	}
}

// usageCase is an rngd command line TestUsageErrors refuses (exit 2), and
// what its error says.
type usageCase struct {
	args []string
	want string
}

// A runtime failure (here, the certificates are missing) exits 1.
func TestStartFailure(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "rngd.toml")
	toml := "data_dir = \"" + filepath.Join(dir, "data") + "\"\n[grpc]\nlisten = \"127.0.0.1:0\"\ncert_file = \"" + filepath.Join(dir, "c.pem") +
		"\"\nkey_file = \"c.key\"\nclient_ca_file = \"ca.pem\"\n[http]\nlisten = \"off\"\n[log]\norigin = \"tirage.test/rngd\"\n[keys]\nallow_software = true\npassphrase_file = \"pass\"\n"
	if err := os.WriteFile(p, []byte(toml), 0o600); err != nil {
		t.Fatal(err)
	}
	code, stderr := runMain(t, "--config", p)
	if code != 1 || !strings.Contains(stderr, "grpc.cert_file") {
		t.Errorf("exit %d, stderr %q; want 1 and grpc.cert_file named", code, stderr)
	}
}
