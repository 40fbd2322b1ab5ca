//go:build !tirage_dev

package rngd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// devConfigErrors are TestConfigErrors' dev mode cases in a production
// build: dev = true is refused, whatever the rest of the config.
func devConfigErrors(*testing.T) map[string]configErrorCase {
	return map[string]configErrorCase{
		"dev in prod":             {"dev = true\n", "built without dev mode"},
		"dev in a prod config":    {"dev = true\n" + configTOML(nil), "built without dev mode"},
		"dev with a config error": {"dev = true\n" + configTOML(map[string]string{"log.origin": "-"}), "built without dev mode"},
	}
}

// A production build refuses dev mode asked for by --dev (ConfigFromFlags's
// dev) too. config_rebuild_test.go checks ConfigForRebuild's refusals.
func TestDevModeRefused(t *testing.T) {
	if devBuild {
		t.Fatal("devBuild is true in a build without -tags tirage_dev")
	}
	t.Chdir(t.TempDir())
	p := filepath.Join(t.TempDir(), "rngd.toml")
	if err := os.WriteFile(p, []byte(configTOML(nil)), 0o600); err != nil {
		t.Fatal(err)
	}
	// The error names the flag: the file does not say dev = true.
	for _, path := range []string{"", p} {
		if _, err := ConfigFromFlags(path, true); err == nil || !strings.Contains(err.Error(), "built without dev mode") ||
			!strings.HasPrefix(err.Error(), "--dev: ") || strings.Contains(err.Error(), "dev = true") {
			t.Errorf("ConfigFromFlags(%q, dev) in a production build: %v, want dev mode refused, naming --dev", path, err)
		}
	}
}
