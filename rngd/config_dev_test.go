//go:build tirage_dev

package rngd

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// devConfigErrors are TestConfigErrors' dev mode cases in a dev build: dev
// mode is taken, and relaxes only what it documents (TLS files, keys
// opt-in and passphrase file, log origin, Trillian plaintext opt-in); the
// rest of the config is checked as in production.
func devConfigErrors(t *testing.T) map[string]configErrorCase {
	dev := fmt.Sprintf("dev = true\ndata_dir = %q\n", t.TempDir())
	return map[string]configErrorCase{
		"dev, unknown key":           {dev + "grpcc = 1\n", "unknown keys: grpcc"},
		"dev, negative sweep":        {dev + "game.sweep_interval = \"-1s\"\n", "game.sweep_interval"},
		"dev, origin with space":     {dev + "log.origin = \"tirage log\"\n", "log.origin"},
		"dev, trillian remote":       {dev + "log.backend = \"trillian\"\nlog.trillian_address = \"10.0.0.1:8090\"\nlog.trillian_tree_id = 5\n", "log.trillian_address"},
		"dev, pkcs11 without pin":    {dev + "keys.backend = \"pkcs11\"\nkeys.module = \"m\"\nkeys.token_label = \"t\"\n", "keys.pin_file"},
		"dev, grpc.listen":           {dev + "grpc.listen = \"7443\"\n", "grpc.listen"},
		"dev, no server key":         {dev + "grpc.cert_file = \"c.pem\"\n", "cert_file, key_file and client_ca_file are required"},
		"dev, audit ca when off":     {dev + "audit.listen = \"off\"\naudit.client_ca_file = \"ca.pem\"\n", "audit.client_ca_file"},
		"dev, no source entropy":     {dev + "entropy.source = [{kind = \"tpm\"}]\n", "entropy.source[0].min_entropy"},
		"dev, negative keys timeout": {dev + "keys.call_timeout = \"-1s\"\n", "keys.call_timeout"},
	}
}

// A dev build takes dev mode, from the config file (dev = true) or forced
// by --dev (ConfigFromFlags's dev), with its defaults: the dev PKI's
// certificates, software keys without the opt-in or a passphrase file (the
// dev passphrase), the dev log origin; and so does a rebuild's config.
func TestDevModeAccepted(t *testing.T) {
	if !devBuild {
		t.Fatal("devBuild is false in a build with -tags tirage_dev")
	}
	t.Chdir(t.TempDir())
	data := t.TempDir()
	pki := DevPKI{Dir: filepath.Join(data, "dev")}
	write := func(toml string) string {
		p := filepath.Join(t.TempDir(), "rngd.toml")
		if err := os.WriteFile(p, []byte(toml), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	inFile := write(fmt.Sprintf("dev = true\ndata_dir = %q\n", data))
	byFlag := write(fmt.Sprintf("data_dir = %q\n", data))
	for _, tc := range []struct {
		path string
		dev  bool
	}{{inFile, false}, {byFlag, true}, {inFile, true}} {
		c, err := ConfigFromFlags(tc.path, tc.dev)
		if err != nil {
			t.Fatalf("ConfigFromFlags(%q, %v) in a dev build: %v", tc.path, tc.dev, err)
		}
		if c, err = c.withDefaults(); err != nil {
			t.Fatalf("ConfigFromFlags(%q, %v), completed: %v", tc.path, tc.dev, err)
		}
		if !c.Dev || c.DataDir != data {
			t.Errorf("ConfigFromFlags(%q, %v): dev %v, data_dir %q", tc.path, tc.dev, c.Dev, c.DataDir)
		}
		if c.GRPC.CertFile != pki.ServerCert() || c.GRPC.KeyFile != pki.ServerKey() || c.GRPC.ClientCAFile != pki.CA() {
			t.Errorf("ConfigFromFlags(%q, %v): grpc %+v, want the dev PKI in %s", tc.path, tc.dev, c.GRPC, pki.Dir)
		}
		if c.Keys.Backend != "software" || c.Keys.AllowSoftware || c.Keys.PassphraseFile != "" || c.Log.Origin != devOrigin {
			t.Errorf("ConfigFromFlags(%q, %v): keys %+v, log origin %q; want software keys (dev passphrase) and %q",
				tc.path, tc.dev, c.Keys, c.Log.Origin, devOrigin)
		}
	}
	// --dev alone: ./data.
	c, err := ConfigFromFlags("", true)
	if err != nil {
		t.Fatalf("ConfigFromFlags(\"\", dev) in a dev build: %v", err)
	}
	if c, err = c.withDefaults(); err != nil || !c.Dev || c.GRPC.CertFile != (DevPKI{Dir: filepath.Join(c.DataDir, "dev")}).ServerCert() {
		t.Errorf("ConfigFromFlags(\"\", dev), completed: %v, %+v", err, c)
	}
	// A rebuild's config: the production build's refusals
	// (TestConfigForRebuildRefuses) are accepted.
	noTLSDev := write(noTLS([]string{"cert_file", "key_file", "client_ca_file"}, map[string]string{"dev": "true"}))
	for _, tc := range []struct {
		path string
		dev  bool
	}{{noTLSDev, false}, {"", true}} {
		if c, err := ConfigForRebuild(tc.path, tc.dev); err != nil || !c.Dev {
			t.Errorf("ConfigForRebuild(%q, %v) in a dev build: %v (dev %v)", tc.path, tc.dev, err, c.Dev)
		}
	}
}
