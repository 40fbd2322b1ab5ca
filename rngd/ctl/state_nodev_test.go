//go:build !tirage_dev

package ctl

import (
	"os"
	"path/filepath"
	"testing"
)

// Dev mode asked of an rngctl built without it names what asked for it
// (--dev, or the config file's dev = true) and this rngctl, not rngd. An
// rngctl built with it rebuilds (TestStateRebuildDev, state_dev_test.go).
func TestStateRebuildDevRefused(t *testing.T) {
	dir := t.TempDir()
	config := filepath.Join(dir, "dev.toml")
	os.WriteFile(config, []byte("dev = true\n"), 0o600)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--dev"}, "rngctl: state rebuild: --dev: this rngctl was built without dev mode: use an rngctl built with -tags tirage_dev (go build -tags tirage_dev -o bin/rngctl-dev ./cmd/rngctl), or --config FILE (docs/rngd.md, Rebuild)\n"},
		{[]string{"--config", config}, "rngctl: state rebuild: --config " + config + ": dev = true, but this rngctl was built without dev mode: use an rngctl built with -tags tirage_dev (go build -tags tirage_dev -o bin/rngctl-dev ./cmd/rngctl), or a config without dev (docs/rngd.md, Rebuild)\n"},
	} {
		code, out, errOut := rngctl(append([]string{"state", "rebuild"}, tc.args...)...)
		if code != ExitUsage || out != "" || errOut != tc.want {
			t.Errorf("state rebuild %v: exit %d %q %q; want exit 2 and %q", tc.args, code, out, errOut, tc.want)
		}
	}
}
