package rngd

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	adminv1 "tirage.fr/tirage/rngd/api/tirage/admin/v1"
)

// noTLS is configTOML without the game servers' TLS files, or some of them,
// with other keys replaced (see configTOML).
func noTLS(files []string, over map[string]string) string {
	kv := map[string]string{}
	for _, f := range files {
		kv["grpc."+f] = "-"
	}
	for k, v := range over {
		kv[k] = v
	}
	return configTOML(kv)
}

const mtlsRequired = "config grpc: cert_file, key_file and client_ca_file are required (mutual TLS)"

// A rebuild's config may leave out the game servers' TLS files, in whole or
// in part, which the daemon's config may not; the daemon refuses to start
// on such a config even once a rebuild has accepted it.
func TestConfigForRebuildWithoutTLS(t *testing.T) {
	all := []string{"cert_file", "key_file", "client_ca_file"}
	for _, files := range [][]string{all, {"cert_file"}, {"key_file", "client_ca_file"}} {
		p := filepath.Join(t.TempDir(), "rngd.toml")
		if err := os.WriteFile(p, []byte(noTLS(files, nil)), 0o600); err != nil {
			t.Fatal(err)
		}
		cfg, err := ConfigForRebuild(p, false)
		if err != nil {
			t.Errorf("ConfigForRebuild without %v: %v", files, err)
			continue
		}
		if cfg.Log.Origin != "tirage.test/rngd" || cfg.Version == "" {
			t.Errorf("ConfigForRebuild without %v: %+v", files, cfg)
		}
		// The daemon's own loader still requires them, naming the file.
		if _, err := ConfigFromFlags(p, false); err == nil || err.Error() != p+": "+mtlsRequired {
			t.Errorf("ConfigFromFlags without %v: %v, want %q", files, err, mtlsRequired)
		}
		// And so does Start, given what ConfigForRebuild returned, before
		// anything is made.
		cfg.DataDir = filepath.Join(t.TempDir(), "data")
		startFails(t, "Start on a rebuild's config", cfg, mtlsRequired)
		untouched(t, "Start on a rebuild's config", cfg)
	}
	// No file at all: the secure defaults, which need a file's keys (the
	// log's origin), whether for the daemon or for a rebuild.
	if _, err := ConfigForRebuild("", false); err == nil || !strings.Contains(err.Error(), "log.origin is required") {
		t.Errorf("ConfigForRebuild without a file: %v, want log.origin required", err)
	}
}

// Everything but the TLS files is checked for a rebuild as for the daemon,
// with the same error, naming the file and the key.
func TestConfigForRebuildRefuses(t *testing.T) {
	for name, over := range map[string]map[string]string{
		"unknown key":       {"grpcc": `1`},
		"unknown grpc key":  {"grpc.cert": `"a"`},
		"bad duration":      {"game.sweep_interval": `"soon"`},
		"negative duration": {"game.sweep_interval": `"-1s"`},
		"negative sessions": {"keys.sessions": `-1`},
		"no origin":         {"log.origin": "-"},
		"software keys":     {"keys.allow_software": "-"},
		"no passphrase":     {"keys.passphrase_file": "-"},
		"bad log backend":   {"log.backend": `"mysql"`},
		"bad time zone":     {"game.time_zone": `"Mars/Olympus"`},
		"source kind":       {"entropy.source": `[{kind = "lava"}]`},
		"grpc.listen":       {"grpc.listen": `"7443"`},
		"http.listen":       {"http.listen": `"localhost"`},
		"audit ca when off": {"audit.listen": `"off"`, "audit.client_ca_file": `"ca.pem"`},
		"overflow uid":      {"admin.allowed_uids": `[65534]`},
	} {
		p := filepath.Join(t.TempDir(), "rngd.toml")
		if err := os.WriteFile(p, []byte(noTLS([]string{"cert_file", "key_file", "client_ca_file"}, over)), 0o600); err != nil {
			t.Fatal(err)
		}
		_, rebuildErr := ConfigForRebuild(p, false)
		// The daemon's error, for the same config with its TLS files.
		if err := os.WriteFile(p, []byte(configTOML(over)), 0o600); err != nil {
			t.Fatal(err)
		}
		_, daemonErr := ConfigFromFlags(p, false)
		if daemonErr == nil {
			t.Fatalf("%s: the daemon accepts it", name)
		}
		if rebuildErr == nil || rebuildErr.Error() != daemonErr.Error() {
			t.Errorf("%s: ConfigForRebuild: %v; want the daemon's error %q", name, rebuildErr, daemonErr)
		}
		if !strings.Contains(daemonErr.Error(), p) {
			t.Errorf("%s: %q does not name the file", name, daemonErr)
		}
	}
	if !devBuild {
		p := filepath.Join(t.TempDir(), "rngd.toml")
		os.WriteFile(p, []byte(noTLS([]string{"cert_file", "key_file", "client_ca_file"}, map[string]string{"dev": "true"})), 0o600)
		for _, tc := range []struct {
			path string
			dev  bool
		}{{p, false}, {"", true}} {
			if _, err := ConfigForRebuild(tc.path, tc.dev); err == nil || !strings.Contains(err.Error(), "built without dev mode") {
				t.Errorf("ConfigForRebuild(%q, %v) in a build without dev mode: %v", tc.path, tc.dev, err)
			}
		}
	}
}

// Rebuild, given a config without the game servers' TLS files, rebuilds;
// the daemon then starts on its full config.
func TestRebuildWithoutTLS(t *testing.T) {
	td := newTestDaemon(t)
	td.emission("T1", "2026-12-31", 3)
	td.stop()
	cfg := td.cfg
	cfg.GRPC.CertFile, cfg.GRPC.KeyFile, cfg.GRPC.ClientCAFile = "", "", ""
	n, err := Rebuild(context.Background(), cfg)
	if err != nil {
		t.Fatalf("Rebuild without the TLS files: %v", err)
	}
	if n < 2 {
		t.Fatalf("Rebuild replayed %d records", n)
	}
	// The rest is checked as Start checks it.
	bad := cfg
	bad.Game.SweepInterval.Duration = -1
	if _, err := Rebuild(context.Background(), bad); err == nil || !strings.Contains(err.Error(), "game.sweep_interval") {
		t.Errorf("Rebuild with a negative sweep interval: %v", err)
	}
	td.start()
}

// Rebuild replays the log once: the state store it opens is not first
// brought level by a catch-up (the whole log again, when state.db is gone)
// and then rebuilt.
func TestRebuildReplaysOnce(t *testing.T) {
	td := newTestDaemon(t)
	td.emission("T1", "2026-12-31", 3)
	td.stop()
	if err := os.Remove(filepath.Join(td.cfg.DataDir, "state.db")); err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	cfg := td.cfg
	cfg.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	if _, err := Rebuild(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(logs.String(), "state store rebuilt from the log"); n != 1 || strings.Contains(logs.String(), "applying the log's tail") {
		t.Errorf("Rebuild replayed the log %d times whole, and applied its tail: %v; want once, and no tail:\n%s",
			n, strings.Contains(logs.String(), "applying the log's tail"), logs.String())
	}
	td.start()
	em, err := td.admin().ListEmissions(context.Background(), &adminv1.ListEmissionsRequest{})
	if err != nil || len(em.Emissions) != 1 || em.Emissions[0].Tickets != 3 {
		t.Errorf("after the rebuild: %v, %v; want emission T1 with its 3 tickets", em, err)
	}
}
