package rngd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	adminv1 "tirage.fr/tirage/rngd/api/tirage/admin/v1"
)

// The documented example parses, with every key known; its production
// layout keeps the keys in an HSM, and its commented software layout needs
// the opt-in.
func TestExampleConfig(t *testing.T) {
	c, err := LoadConfig("../examples/rngd.toml")
	if err != nil {
		t.Fatal(err)
	}
	if c.GRPC.Listen != "0.0.0.0:7443" || c.Keys.AnnouncementFile == "" || len(c.Entropy.Sources) != 2 || c.Game.SweepInterval.Minutes() != 1 {
		t.Fatalf("example config: %+v", c)
	}
	// Its sources are the defaults, written out.
	var def EntropyConfig
	if err := def.check(false); err != nil {
		t.Fatal(err)
	}
	for i, s := range def.Sources {
		if got := c.Entropy.Sources[i]; got.Kind != s.Kind || got.MinEntropy != s.MinEntropy {
			t.Errorf("example entropy source %d: %s, H = %v; the default is %s, H = %v", i, got.Kind, got.MinEntropy, s.Kind, s.MinEntropy)
		}
	}
	if c.Keys.Backend != "pkcs11" || c.Keys.AllowSoftware || c.Log.Origin == "" {
		t.Fatalf("example config's production layout: keys %+v, origin %q", c.Keys, c.Log.Origin)
	}
	if _, err := c.withDefaults(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile("../examples/rngd.toml")
	if err != nil {
		t.Fatal(err)
	}
	// The commented software layout, uncommented in place of the pkcs11 one.
	var soft []string
	for _, l := range strings.Split(string(b), "\n") {
		if l == `backend = "pkcs11"` {
			continue
		}
		soft = append(soft, strings.TrimPrefix(l, "#   "))
	}
	p := filepath.Join(t.TempDir(), "soft.toml")
	os.WriteFile(p, []byte(strings.Join(soft, "\n")), 0o600)
	if c, err = LoadConfig(p); err != nil {
		t.Fatal(err)
	}
	if c.Keys.Backend != "software" || !c.Keys.AllowSoftware {
		t.Fatalf("example's software layout: %+v", c.Keys)
	}
	if _, err := c.withDefaults(); err != nil {
		t.Fatal(err)
	}
}

// configTOML is a valid production config (dotted keys) with some keys
// replaced, or removed ("-").
func configTOML(over map[string]string) string {
	kv := map[string]string{
		"grpc.cert_file":       `"a"`,
		"grpc.key_file":        `"b"`,
		"grpc.client_ca_file":  `"c"`,
		"log.origin":           `"tirage.test/rngd"`,
		"keys.allow_software":  `true`,
		"keys.passphrase_file": `"p"`,
	}
	for k, v := range over {
		kv[k] = v
	}
	var b strings.Builder
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range kv {
			if !yield(k) {
				return
			}
		}
	}) {
		if kv[k] != "-" {
			fmt.Fprintf(&b, "%s = %s\n", k, kv[k])
		}
	}
	return b.String()
}

// checkTOML loads and checks a config as ConfigFromFlags does.
func checkTOML(t *testing.T, toml string) (Config, error) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "rngd.toml")
	if err := os.WriteFile(p, []byte(toml), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := ConfigFromFlags(p, false)
	if err != nil {
		return c, err
	}
	return c.withDefaults()
}

func TestConfigErrors(t *testing.T) {
	if _, err := checkTOML(t, configTOML(nil)); err != nil {
		t.Fatalf("base config: %v", err)
	}
	cases := map[string]configErrorCase{
		"unknown key": {"data_dir = \"x\"\ngrpcc = 1\n", "unknown keys: grpcc"},
		"no certs":    {configTOML(map[string]string{"grpc.cert_file": "-"}), "cert_file, key_file and client_ca_file are required"},
		"bad zone":    {configTOML(map[string]string{"game.time_zone": `"Mars/Olympus"`}), "game.time_zone"},
		// The host's zone, not the configuration's: deadlines would move
		// with the machine.
		// At 1h the default checkpoint timeout, 10 × the interval, was
		// 10 hours, past the 10 minutes an explicit one may be.
		"checkpoint interval": {configTOML(map[string]string{"log.checkpoint_interval": `"2m"`}), "log.checkpoint_interval = 2m0s: at most 1m0s"},
		"local zone":          {configTOML(map[string]string{"game.time_zone": `"Local"`}), `game.time_zone = "Local"`},
		"localtime zone":      {configTOML(map[string]string{"game.time_zone": `"localtime"`}), `game.time_zone = "localtime"`},
		"bad backend":         {configTOML(map[string]string{"log.backend": `"mysql"`}), "log.backend"},
		"bad duration":        {configTOML(map[string]string{"game.sweep_interval": `"soon"`}), "game.sweep_interval"},
		"bad log level":       {configTOML(map[string]string{"log_level": `"loud"`}), "log_level"},
		"bad scheduling":      {configTOML(map[string]string{"scheduling": `"fifo"`}), `scheduling = "fifo"`},
		"bad keys":            {configTOML(map[string]string{"keys.backend": `"tpm"`}), "keys.backend"},
		"grpc.listen":         {configTOML(map[string]string{"grpc.listen": `"7443"`}), "grpc.listen"},
		"grpc port":           {configTOML(map[string]string{"grpc.listen": `"127.0.0.1:99999"`}), "grpc.listen"},
		"http.listen":         {configTOML(map[string]string{"http.listen": `"localhost"`}), "http.listen"},
		"socket length":       {configTOML(map[string]string{"admin.socket": `"/` + strings.Repeat("s", 120) + `"`}), "admin.socket"},

		// Durations and counts: negative is an error naming the key.
		"negative sweep":                   {configTOML(map[string]string{"game.sweep_interval": `"-1s"`}), "game.sweep_interval"},
		"negative retention":               {configTOML(map[string]string{"game.reply_retention": `"-1h"`}), "game.reply_retention"},
		"retention shorter than a game":    {configTOML(map[string]string{"game.reply_retention": `"1m"`}), "game.reply_retention"},
		"retention short of the grace":     {configTOML(map[string]string{"game.reply_retention": `"911h"`}), "at least 912h0m0s"},
		"negative grpc connections":        {configTOML(map[string]string{"grpc.max_connections": `-1`}), "grpc.max_connections"},
		"negative audit connections":       {configTOML(map[string]string{"audit.max_connections": `-1`}), "audit.max_connections"},
		"manifest bound too large":         {configTOML(map[string]string{"admin.max_manifest_tickets": `50000001`}), "admin.max_manifest_tickets = 50000001: at most 50000000"},
		"negative batch age":               {configTOML(map[string]string{"log.batch_max_age": `"-1ms"`}), "log.batch_max_age"},
		"negative journal interval":        {configTOML(map[string]string{"log.journal_interval": `"-1ms"`}), "log.journal_interval = -1ms: want a positive duration"},
		"long journal interval":            {configTOML(map[string]string{"log.journal_interval": `"11ms"`}), "log.journal_interval = 11ms: at most 10ms"},
		"negative batch size":              {configTOML(map[string]string{"log.batch_max_size": `-2`}), "log.batch_max_size"},
		"batch size too large":             {configTOML(map[string]string{"log.batch_max_size": `65537`}), "log.batch_max_size = 65537: want at most 65536 records"},
		"negative receipts":                {configTOML(map[string]string{"log.receipt_wait": `"-1s"`}), "log.receipt_wait"},
		"negative checkpoint":              {configTOML(map[string]string{"log.checkpoint_interval": `"-1s"`}), "log.checkpoint_interval"},
		"negative trillian append timeout": {configTOML(map[string]string{"log.trillian_append_timeout": `"-1s"`}), "log.trillian_append_timeout"},
		"short checkpoint":                 {configTOML(map[string]string{"log.checkpoint_interval": `"10ms"`}), "log.checkpoint_interval"},
		// Upper bounds the audit's tolerances assume of an honest log.
		"long sweep":                    {configTOML(map[string]string{"game.sweep_interval": `"11m"`}), "game.sweep_interval = 11m0s: at most 10m0s"},
		"long trillian append timeout":  {configTOML(map[string]string{"log.trillian_append_timeout": `"5m"`}), "log.trillian_append_timeout = 5m0s: at most 4m0s"},
		"negative reseed":               {configTOML(map[string]string{"entropy.reseed_interval": `"-1m"`}), "entropy.reseed_interval"},
		"negative reseeds":              {configTOML(map[string]string{"entropy.reseed_requests": `-3`}), "entropy.reseed_requests"},
		"reseeds past the DRBG's limit": {configTOML(map[string]string{"entropy.reseed_requests": `281474976710657`}), "entropy.reseed_requests = 281474976710657: want at most 2^48"},
		"negative read":                 {configTOML(map[string]string{"entropy.read_timeout": `"-2s"`}), "entropy.read_timeout"},
		"negative sessions":             {configTOML(map[string]string{"keys.sessions": `-1`}), "keys.sessions"},
		"negative timeout":              {configTOML(map[string]string{"keys.call_timeout": `"-1s"`}), "keys.call_timeout"},
		"negative uid":                  {configTOML(map[string]string{"admin.allowed_uids": `[0, -1]`}), "admin.allowed_uids"},
		"negative tree":                 {configTOML(map[string]string{"log.backend": `"trillian"`, "log.trillian_address": `"127.0.0.1:8090"`, "log.trillian_tree_id": `-5`}), "log.trillian_tree_id"},
		"streams":                       {configTOML(map[string]string{"grpc.max_concurrent_streams": `-1`}), "grpc.max_concurrent_streams"},
		"source kind":                   {configTOML(map[string]string{"entropy.source": `[{kind = "lava"}]`}), "entropy.source[0].kind"},
		"source entropy":                {configTOML(map[string]string{"entropy.source": `[{kind = "getrandom"}, {kind = "hwrng", min_entropy = 9.0}]`}), "entropy.source[1].min_entropy"},
		"no source entropy":             {configTOML(map[string]string{"entropy.source": `[{kind = "tpm"}]`}), "entropy.source[0].min_entropy"},
		"minute source entropy":         {configTOML(map[string]string{"entropy.source": `[{kind = "hwrng", min_entropy = 1e-300}, {kind = "getrandom"}]`}), "could never fail"},
		"silent APT":                    {configTOML(map[string]string{"entropy.source": `[{kind = "hwrng", min_entropy = 0.05}, {kind = "getrandom"}]`}), "entropy.source[0].min_entropy = 0.05 (kind \"hwrng\"): entropy: source hwrng: min-entropy 0.05 bits per 8-bit sample is too low for the adaptive proportion test"},
		"small source entropy":          {configTOML(map[string]string{"entropy.source": `[{kind = "hwrng", min_entropy = 0.005}, {kind = "getrandom"}]`}), "declare more than 0.05859 bits"},

		// Software keys outside dev mode need the opt-in; the log its name.
		"software keys":       {configTOML(map[string]string{"keys.allow_software": "-"}), "keys.allow_software"},
		"default keys":        {configTOML(map[string]string{"keys.allow_software": "-", "keys.passphrase_file": "-"}), "keys.allow_software"},
		"pkcs11 without pin":  {configTOML(map[string]string{"keys.allow_software": "-", "keys.backend": `"pkcs11"`, "keys.module": `"m"`, "keys.token_label": `"t"`}), "keys.pin_file"},
		"no passphrase file":  {configTOML(map[string]string{"keys.passphrase_file": "-"}), "keys.passphrase_file"},
		"no origin":           {configTOML(map[string]string{"log.origin": "-"}), "log.origin"},
		"origin with space":   {configTOML(map[string]string{"log.origin": `"tirage log"`}), "log.origin"},
		"origin with plus":    {configTOML(map[string]string{"log.origin": `"tirage+log"`}), "log.origin"},
		"trillian plaintext":  {configTOML(map[string]string{"log.backend": `"trillian"`, "log.trillian_address": `"10.0.0.1:8090"`, "log.trillian_tree_id": `5`, "log.trillian_plaintext": `true`}), "log.trillian_ca_file"},
		"trillian named host": {configTOML(map[string]string{"log.backend": `"trillian"`, "log.trillian_address": `"localhost:8090"`, "log.trillian_tree_id": `5`, "log.trillian_plaintext": `true`}), "log.trillian_ca_file"},
		// Plaintext to Trillian is never a silent default, even on loopback.
		"trillian no opt-in": {configTOML(map[string]string{"log.backend": `"trillian"`, "log.trillian_address": `"127.0.0.1:8090"`, "log.trillian_tree_id": `5`}), "log.trillian_plaintext"},
		"trillian both":      {configTOML(map[string]string{"log.backend": `"trillian"`, "log.trillian_address": `"127.0.0.1:8090"`, "log.trillian_tree_id": `5`, "log.trillian_plaintext": `true`, "log.trillian_ca_file": `"ca.pem"`}), "log.trillian_plaintext"},
		"plaintext tessera":  {configTOML(map[string]string{"log.trillian_plaintext": `true`}), "log.trillian_plaintext"},
		// A Trillian log named without backend = "trillian" would be
		// ignored: rngd would run an embedded log of its own instead.
		"trillian address tessera": {configTOML(map[string]string{"log.trillian_address": `"10.0.0.1:8090"`, "log.trillian_tree_id": `5`, "log.trillian_ca_file": `"ca.pem"`}), "log.trillian_address"},
		"trillian tree tessera":    {configTOML(map[string]string{"log.backend": `"tessera"`, "log.trillian_tree_id": `5`}), "log.trillian_tree_id"},
		"trillian ca tessera":      {configTOML(map[string]string{"log.trillian_ca_file": `"ca.pem"`}), "log.trillian_ca_file"},
		"audit.listen":             {configTOML(map[string]string{"audit.listen": `"7444"`}), "audit.listen"},
		"audit port":               {configTOML(map[string]string{"audit.listen": `"127.0.0.1:99999"`}), "audit.listen"},
		"audit ca when off":        {configTOML(map[string]string{"audit.listen": `"off"`, "audit.client_ca_file": `"ca.pem"`}), "audit.client_ca_file"},
	}
	// Dev mode: refused by a production build, checked like the rest by a
	// dev build (config_nodev_test.go, config_dev_test.go).
	for name, tc := range devConfigErrors(t) {
		if _, dup := cases[name]; dup {
			t.Fatalf("case %q twice", name)
		}
		cases[name] = tc
	}
	for name, tc := range cases {
		_, err := checkTOML(t, tc.toml)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error naming %q", name, err, tc.want)
		}
	}
}

// configErrorCase is a config (TOML) TestConfigErrors refuses, and what its
// error names.
type configErrorCase struct {
	toml string
	want string
}

// Zero, or no key, selects the documented defaults.
func TestConfigDefaults(t *testing.T) {
	c, err := checkTOML(t, configTOML(map[string]string{
		"game.sweep_interval": `"0s"`, "game.reply_retention": `"0s"`, "log.batch_max_age": `"0s"`, "log.journal_interval": `"0s"`, "log.checkpoint_interval": `"0s"`,
		"log.trillian_append_timeout": `"0s"`, "entropy.reseed_interval": `"0s"`, "entropy.read_timeout": `"0s"`, "keys.sessions": `0`,
	}))
	if err != nil {
		t.Fatal(err)
	}
	for key, got := range map[string][2]time.Duration{
		"game.sweep_interval":         {c.Game.SweepInterval.Duration, time.Minute},
		"game.reply_retention":        {c.Game.ReplyRetention.Duration, 2400 * time.Hour},
		"log.batch_max_age":           {c.Log.BatchMaxAge.Duration, time.Second},
		"log.journal_interval":        {c.Log.JournalInterval.Duration, 4 * time.Millisecond},
		"log.checkpoint_interval":     {c.Log.CheckpointInterval.Duration, 100 * time.Millisecond},
		"log.trillian_append_timeout": {c.Log.TrillianAppendTimeout.Duration, 30 * time.Second},
		"entropy.reseed_interval":     {c.Entropy.ReseedInterval.Duration, time.Minute},
		"entropy.read_timeout":        {c.Entropy.ReadTimeout.Duration, 2 * time.Second},
	} {
		if got[0] != got[1] {
			t.Errorf("%s = %s, want %s", key, got[0], got[1])
		}
	}
	if c.LogLevel != slog.LevelInfo {
		t.Errorf("log_level = %v, want INFO", c.LogLevel)
	}
	for in, want := range map[string]slog.Level{"debug": slog.LevelDebug, "warn": slog.LevelWarn, "ERROR": slog.LevelError} {
		c, err := checkTOML(t, configTOML(map[string]string{"log_level": `"` + in + `"`}))
		if err != nil || c.LogLevel != want {
			t.Errorf("log_level %q: %v, %v; want %v", in, c.LogLevel, err, want)
		}
	}
	if c.Scheduling != SchedBatch {
		t.Errorf("scheduling = %q, want %q", c.Scheduling, SchedBatch)
	}
	if c, err := checkTOML(t, configTOML(map[string]string{"scheduling": `"inherit"`})); err != nil || c.Scheduling != SchedInherit {
		t.Errorf("scheduling \"inherit\": %q, %v", c.Scheduling, err)
	}
	if c.Log.BatchMaxSize != 16384 {
		t.Errorf("log.batch_max_size = %d, want 16384", c.Log.BatchMaxSize)
	}
	if c.Keys.Backend != "software" || c.Log.Backend != "tessera" || c.Log.Origin != "tirage.test/rngd" {
		t.Errorf("defaults: keys %q, log %q origin %q", c.Keys.Backend, c.Log.Backend, c.Log.Origin)
	}
	if c.Audit.Listen != "127.0.0.1:7444" || c.Audit.ClientCAFile != "" || c.HTTP.Listen != "127.0.0.1:7480" {
		t.Errorf("defaults: audit %+v, http %+v", c.Audit, c.HTTP)
	}
	if c.GRPC.MaxConnections != 256 || c.Audit.MaxConnections != 64 || c.HTTP.MaxConnections != 256 {
		t.Errorf("defaults: grpc.max_connections %d, audit.max_connections %d, http.max_connections %d, want 256, 64, 256", c.GRPC.MaxConnections, c.Audit.MaxConnections, c.HTTP.MaxConnections)
	}
	if c.Admin.MaxManifestTickets != 5_000_000 {
		t.Errorf("defaults: admin.max_manifest_tickets %d, want 5000000", c.Admin.MaxManifestTickets)
	}
	if c, err := checkTOML(t, configTOML(map[string]string{"audit.listen": `"off"`, "http.listen": `"off"`})); err != nil || c.Audit.Listen != "" || c.HTTP.Listen != "" {
		t.Errorf("audit.listen and http.listen \"off\": %+v %+v %v", c.Audit, c.HTTP, err)
	}
	// Plaintext to a loopback Trillian with the explicit opt-in; TLS with a CA.
	for _, kv := range []map[string]string{
		{"log.backend": `"trillian"`, "log.trillian_address": `"127.0.0.1:8090"`, "log.trillian_tree_id": `5`, "log.trillian_plaintext": `true`},
		{"log.backend": `"trillian"`, "log.trillian_address": `"10.0.0.1:8090"`, "log.trillian_tree_id": `5`, "log.trillian_ca_file": `"ca.pem"`},
	} {
		if _, err := checkTOML(t, configTOML(kv)); err != nil {
			t.Errorf("%v: %v", kv, err)
		}
	}
}

// freshConfig is a working daemon's config on a new, not yet created, data
// directory, with the keys of td (rngctl keys init made them) and ports
// picked by the kernel.
func freshConfig(t *testing.T, td *testDaemon) Config {
	t.Helper()
	cfg := td.cfg
	cfg.DataDir = filepath.Join(t.TempDir(), "data")
	cfg.Keys.Dir = filepath.Join(td.dir, "data", "keys")
	cfg.Admin.Socket = ""
	return cfg
}

// untouched checks that a refused start left no data directory behind:
// nothing created, nothing appended to a log.
func untouched(t *testing.T, name string, cfg Config) {
	t.Helper()
	if _, err := os.Stat(cfg.DataDir); !errors.Is(err, os.ErrNotExist) {
		entries, _ := os.ReadDir(cfg.DataDir)
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("%s: the refused start made the data directory (%v), holding %v", name, err, names)
	}
}

// startFails starts a daemon that must be refused with an error naming
// want; a daemon that starts anyway is stopped.
func startFails(t *testing.T, name string, cfg Config, want string) {
	t.Helper()
	d, err := Start(context.Background(), cfg)
	if err == nil {
		d.shutdown(0)
		t.Errorf("%s: started", name)
		return
	}
	if !strings.Contains(err.Error(), want) {
		t.Errorf("%s: %v, want an error naming %q", name, err, want)
	}
}

// A start that fails on its config, its certificates or its addresses has
// changed nothing: checked before the data directory and the log are
// opened (the old order appended the key announcement to the log first).
func TestStartRefusedChangesNothing(t *testing.T) {
	td := newTestDaemon(t)
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	dir := t.TempDir()
	badCA := filepath.Join(dir, "ca.pem")
	os.WriteFile(badCA, []byte("not a certificate\n"), 0o600)
	for name, tc := range map[string]struct {
		mod  func(*Config)
		want string
	}{
		"grpc port in use":    {func(c *Config) { c.GRPC.Listen = taken.Addr().String() }, "grpc.listen"},
		"http port in use":    {func(c *Config) { c.HTTP.Listen = taken.Addr().String() }, "http.listen"},
		"audit port in use":   {func(c *Config) { c.Audit.Listen = taken.Addr().String() }, "audit.listen"},
		"missing audit ca":    {func(c *Config) { c.Audit.ClientCAFile = filepath.Join(dir, "none.pem") }, "audit.client_ca_file"},
		"bad audit ca":        {func(c *Config) { c.Audit.ClientCAFile = badCA }, "audit.client_ca_file"},
		"bad grpc address":    {func(c *Config) { c.GRPC.Listen = "192.0.2.1:0" }, "grpc.listen"},
		"missing certificate": {func(c *Config) { c.GRPC.CertFile = filepath.Join(dir, "none.pem") }, "grpc.cert_file"},
		"missing key":         {func(c *Config) { c.GRPC.KeyFile = filepath.Join(dir, "none.key") }, "grpc.key_file"},
		"missing ca":          {func(c *Config) { c.GRPC.ClientCAFile = filepath.Join(dir, "none.pem") }, "grpc.client_ca_file"},
		// The daemon's TLS key, readable by its group: refused as a PIN file is.
		"key open to group": {func(c *Config) {
			c.GRPC.KeyFile = copyMode(t, c.GRPC.KeyFile, filepath.Join(dir, "open.key"), 0o640)
		}, "grpc.key_file " + filepath.Join(dir, "open.key") + ": the private key is open to group or others (mode 0640): chmod 600 it, owned by the user rngd runs as (uid " + strconv.Itoa(os.Geteuid()) + ") — give rngd its own copy if another service shares it"},
		// The CA bundles that admit clients, writable by group or others:
		// whoever may change one may add a CA of their own.
		"ca writable by group": {func(c *Config) {
			c.GRPC.ClientCAFile = copyMode(t, c.GRPC.ClientCAFile, filepath.Join(dir, "group.pem"), 0o664)
		}, "grpc.client_ca_file: the ca bundle " + filepath.Join(dir, "group.pem") + " has mode 0664: writable by group or others"},
		"audit ca writable by others": {func(c *Config) {
			c.Audit.ClientCAFile = copyMode(t, c.GRPC.ClientCAFile, filepath.Join(dir, "others.pem"), 0o646)
		}, "audit.client_ca_file: the ca bundle " + filepath.Join(dir, "others.pem") + " has mode 0646: writable by group or others"},
		"bad ca":              {func(c *Config) { c.GRPC.ClientCAFile = badCA }, "grpc.client_ca_file"},
		"negative sweep":      {func(c *Config) { c.Game.SweepInterval = Duration{-time.Second} }, "game.sweep_interval"},
		"negative retention":  {func(c *Config) { c.Game.ReplyRetention = Duration{-time.Hour} }, "game.reply_retention"},
		"negative checkpoint": {func(c *Config) { c.Log.CheckpointInterval = Duration{-time.Second} }, "log.checkpoint_interval"},
		"negative reseed":     {func(c *Config) { c.Entropy.ReseedInterval = Duration{-time.Second} }, "entropy.reseed_interval"},
		"negative read":       {func(c *Config) { c.Entropy.ReadTimeout = Duration{-time.Second} }, "entropy.read_timeout"},
		"no software opt-in":  {func(c *Config) { c.Keys.AllowSoftware = false }, "keys.allow_software"},
		"no origin":           {func(c *Config) { c.Log.Origin = "" }, "log.origin"},
		"bad origin":          {func(c *Config) { c.Log.Origin = "tirage log" }, "log.origin"},
		"missing passphrase":  {func(c *Config) { c.Keys.PassphraseFile = filepath.Join(dir, "none") }, "keys.passphrase_file"},
		"bad source":          {func(c *Config) { c.Entropy.Sources = []EntropySource{{Kind: "hwrng", MinEntropy: 9}} }, "entropy.source[0].min_entropy"},
		"binary source":       {func(c *Config) { c.Entropy.Sources = []EntropySource{{Kind: "hwrng", SampleBits: 1, MinEntropy: 2}} }, "entropy.source[0].min_entropy"},
		// entropy.New would refuse it too, after opening the device.
		"short seeds": {func(c *Config) { c.Entropy.Sources = []EntropySource{{Kind: "hwrng", MinEntropy: 4, SeedBytes: 64}} }, "entropy.source[0].seed_bytes = 64"},
		// The Trillian log's CA is read before the stores are made.
		"bad trillian ca": {func(c *Config) {
			c.Log = LogConfig{Backend: "trillian", TrillianAddress: "192.0.2.1:8090", TrillianTreeID: 5, TrillianCAFile: badCA, Origin: c.Log.Origin}
		}, "log.trillian_ca_file"},
	} {
		cfg := freshConfig(t, td)
		tc.mod(&cfg)
		startFails(t, name, cfg, tc.want)
		untouched(t, name, cfg)
	}
}

// copyMode copies the file from to to (copyFile), with mode, and returns
// to.
func copyMode(t *testing.T, from, to string, mode os.FileMode) string {
	t.Helper()
	copyFile(t, from, to)
	if err := os.Chmod(to, mode); err != nil {
		t.Fatal(err)
	}
	return to
}

// The daemon's TLS key and the client CA bundles owned by another user
// than root or rngd's are refused: that user could read the key, or add a
// CA of their own. As root (chown).
func TestTLSFilesOwnerChecked(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("chown to another user needs root")
	}
	td := newTestDaemon(t)
	dir := t.TempDir()
	for name, tc := range map[string]struct {
		mod  func(*Config) string
		want string
	}{
		"key": {func(c *Config) string {
			c.GRPC.KeyFile = copyMode(t, c.GRPC.KeyFile, filepath.Join(dir, "k.key"), 0o600)
			return c.GRPC.KeyFile
		}, "grpc.key_file " + filepath.Join(dir, "k.key") + ": the private key is owned by uid 4242, neither root nor the user reading it (uid 0), who could read it: chown it"},
		"grpc ca": {func(c *Config) string {
			c.GRPC.ClientCAFile = copyMode(t, c.GRPC.ClientCAFile, filepath.Join(dir, "ca.pem"), 0o644)
			return c.GRPC.ClientCAFile
		}, "grpc.client_ca_file: the ca bundle " + filepath.Join(dir, "ca.pem") + " is owned by uid 4242"},
		"audit ca": {func(c *Config) string {
			c.Audit.ClientCAFile = copyMode(t, c.GRPC.ClientCAFile, filepath.Join(dir, "audit.pem"), 0o644)
			return c.Audit.ClientCAFile
		}, "audit.client_ca_file: the ca bundle " + filepath.Join(dir, "audit.pem") + " is owned by uid 4242"},
	} {
		cfg := freshConfig(t, td)
		if err := os.Chown(tc.mod(&cfg), 4242, -1); err != nil {
			t.Fatal(err)
		}
		startFails(t, name, cfg, tc.want)
		untouched(t, name, cfg)
	}
}

// A second daemon (another data directory, the same admin socket) does not
// take the first one's socket over; a stale socket is replaced.
func TestAdminSocketInUse(t *testing.T) {
	td := newTestDaemon(t)
	cfg := freshConfig(t, td)
	cfg.Admin.Socket = td.d.Addrs().Admin
	startFails(t, "second daemon", cfg, "in use by another process")
	untouched(t, "second daemon", cfg)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := td.admin().Status(ctx, &adminv1.StatusRequest{}); err != nil {
		t.Fatalf("the first daemon's admin socket: %v", err)
	}

	// A file that is not a socket is left alone.
	cfg = freshConfig(t, td)
	cfg.Admin.Socket = filepath.Join(t.TempDir(), "admin.sock")
	os.WriteFile(cfg.Admin.Socket, []byte("keep me"), 0o600)
	startFails(t, "not a socket", cfg, "not a socket")
	if b, _ := os.ReadFile(cfg.Admin.Socket); string(b) != "keep me" {
		t.Errorf("the file at admin.socket: %q", b)
	}

	// A stale socket (its daemon killed) is replaced.
	stale := filepath.Join(t.TempDir(), "admin.sock")
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: stale, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	l.SetUnlinkOnClose(false)
	l.Close()
	td2 := newTestDaemon(t, func(c *Config) { c.Admin.Socket = stale })
	if _, err := td2.admin().Status(ctx, &adminv1.StatusRequest{}); err != nil {
		t.Fatalf("daemon on a stale socket: %v", err)
	}
	td2.stop()
	if _, err := os.Lstat(stale); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("admin socket after shutdown: %v", err)
	}
}

// Software keys outside dev mode (keys.allow_software) are announced:
// banner, an ERROR log line, tirage_software_keys 1. HSM keys are not.
func TestSoftwareKeysAnnounced(t *testing.T) {
	var banner bytes.Buffer
	td := newTestDaemon(t, func(c *Config) { c.Banner = &banner })
	if !strings.Contains(banner.String(), "!!  SOFTWARE KEYS (keys.allow_software)") || !strings.Contains(banner.String(), "NOT FOR PRODUCTION") {
		t.Errorf("banner:\n%s", banner.String())
	}
	if !bytes.Contains(td.logs(), []byte(`level=ERROR msg="SOFTWARE KEYS`)) {
		t.Errorf("no ERROR log line for software keys:\n%s", td.logs())
	}
	if v, ok := gaugeValue(t, td, "tirage_software_keys"); !ok || v != 1 {
		t.Errorf("tirage_software_keys = %v (registered: %v), want 1", v, ok)
	}

	// What is announced, and when.
	cfg := Config{Keys: KeysConfig{Backend: "software", AllowSoftware: true}, Log: LogConfig{Backend: "trillian", TrillianAddress: "127.0.0.1:8090"}}
	notes := insecureNotes(cfg, true)
	if len(notes) != 2 || !strings.Contains(notes[0].banner, "SOFTWARE KEYS") || !strings.Contains(notes[1].banner, "TRILLIAN LOG IN PLAINTEXT") ||
		notes[1].level < 0 || !strings.Contains(notes[1].log, "not encrypted") {
		t.Errorf("notes: %+v", notes)
	}
	cfg.Log.TrillianCAFile = "ca.pem"
	if notes := insecureNotes(cfg, false); len(notes) != 0 {
		t.Errorf("notes for HSM keys and TLS: %+v", notes)
	}
	// A software token behind pkcs11 is named by its token and module,
	// not by the keystore directory it does not use.
	cfg.Keys = KeysConfig{Backend: "pkcs11", AllowSoftware: true, Module: "/usr/lib/softhsm/libsofthsm2.so", TokenLabel: "tirage", Dir: "/var/lib/tirage/keys"}
	notes = insecureNotes(cfg, true)
	if len(notes) != 1 {
		t.Fatalf("software token's notes: %+v", notes)
	}
	if attrs := fmt.Sprint(notes[0].attrs); strings.Contains(attrs, cfg.Keys.Dir) || !strings.Contains(attrs, "tirage") || !strings.Contains(attrs, cfg.Keys.Module) {
		t.Errorf("software token's note: %+v", notes)
	}
}

// The passphrase file is read as rngctl reads it: mode 0600 or stricter,
// at most 4096 bytes, one trailing newline (LF or CRLF) dropped.
func TestPassphraseFile(t *testing.T) {
	td := newTestDaemon(t)
	dir := t.TempDir()
	for name, tc := range map[string]struct {
		content string
		mode    os.FileMode
		want    string // "" : starts
	}{
		"lf":           {testPassphrase + "\n", 0o600, ""},
		"crlf":         {testPassphrase + "\r\n", 0o400, ""},
		"readable":     {testPassphrase + "\n", 0o644, "chmod 600"},
		"group":        {testPassphrase + "\n", 0o640, "chmod 600"},
		"two newlines": {testPassphrase + "\n\n", 0o600, "keys.passphrase_file"}, // a wrong passphrase: the second newline is part of it
		"too long":     {strings.Repeat("x", 5000), 0o600, "longer than 4096 bytes"},
		"empty":        {"\n", 0o600, "keys.passphrase_file: empty"},
		"trailing cr":  {testPassphrase + "\r", 0o600, "keys.passphrase_file"}, // not a newline: part of the passphrase
	} {
		cfg := freshConfig(t, td)
		cfg.Keys.PassphraseFile = filepath.Join(dir, strings.ReplaceAll(name, " ", "-"))
		if err := os.WriteFile(cfg.Keys.PassphraseFile, []byte(tc.content), 0o600); err != nil {
			t.Fatal(err)
		}
		os.Chmod(cfg.Keys.PassphraseFile, tc.mode)
		if tc.want != "" {
			startFails(t, name, cfg, tc.want)
			untouched(t, name, cfg)
			continue
		}
		d, err := Start(context.Background(), cfg)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		d.shutdown(0)
	}
	for in, want := range map[string]string{"a\n": "a", "a\r\n": "a", "a\n\n": "a\n", "a\r": "a\r", "a": "a", "\n": "", "a\r\r\n": "a\r"} {
		if got := string(TrimNewline([]byte(in))); got != want {
			t.Errorf("TrimNewline(%q) = %q, want %q", in, got, want)
		}
	}
	// Errors never hold the path (an operator may type the secret there).
	secret := filepath.Join(dir, "s3cret passphrase")
	if _, err := ReadSecretFile(secret); err == nil || strings.Contains(err.Error(), "s3cret") {
		t.Errorf("ReadSecretFile of a missing file: %v", err)
	}
}

// A PIN or passphrase file of another user than root or rngd's is refused,
// mode 0600 or not: its owner may read it. As root (chown).
func TestSecretFileOwnerChecked(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("chown to another user needs root")
	}
	td := newTestDaemon(t)
	cfg := freshConfig(t, td)
	cfg.Keys.PassphraseFile = copyMode(t, cfg.Keys.PassphraseFile, filepath.Join(t.TempDir(), "pass"), 0o600)
	if err := os.Chown(cfg.Keys.PassphraseFile, 4242, -1); err != nil {
		t.Fatal(err)
	}
	startFails(t, "passphrase of uid 4242", cfg, "keys.passphrase_file: the file is owned by uid 4242, neither root nor the user reading it (uid 0), who could read it: chown it")
	untouched(t, "passphrase of uid 4242", cfg)
}

// keys.announcement_file is read up to 4 MiB.
func TestAnnouncementFileBounded(t *testing.T) {
	td := newTestDaemon(t)
	cfg := freshConfig(t, td)
	cfg.Keys.AnnouncementFile = filepath.Join(t.TempDir(), "announcement.json")
	if err := os.WriteFile(cfg.Keys.AnnouncementFile, bytes.Repeat([]byte(" "), 5<<20), 0o600); err != nil {
		t.Fatal(err)
	}
	startFails(t, "huge announcement", cfg, "larger than 4 MiB")
}

// gaugeValue is the value of a gauge of the daemon's metrics.
func gaugeValue(t *testing.T, td *testDaemon, name string) (float64, bool) {
	t.Helper()
	if mf := metricFamily(t, td, name); len(mf.GetMetric()) == 1 {
		return mf.GetMetric()[0].GetGauge().GetValue(), true
	}
	return 0, false
}

// metricFamily is the daemon's metric name, nil when it has none.
func metricFamily(t *testing.T, td *testDaemon, name string) *dto.MetricFamily {
	t.Helper()
	mfs, err := td.d.engine.metrics.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == name {
			return mf
		}
	}
	return nil
}

// A passphrase_file that is a FIFO no one writes to does not hold the start
// forever: a cancelled start (SIGTERM in cmd/rngd) returns, and changes
// nothing.
func TestPassphraseFIFOCancelled(t *testing.T) {
	td := newTestDaemon(t)
	cfg := freshConfig(t, td)
	cfg.Keys.PassphraseFile = filepath.Join(t.TempDir(), "pass.fifo")
	if err := syscall.Mkfifo(cfg.Keys.PassphraseFile, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		d, err := Start(ctx, cfg)
		if err == nil {
			d.shutdown(0)
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "keys.passphrase_file: not read") || !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("start with a silent FIFO: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the start still waits for the FIFO after its context was done")
	}
	untouched(t, "fifo", cfg)
}

// A passphrase or PIN file that is a FIFO is refused, as a regular file is,
// when its group or others may access it: another user could read the
// secret its writer sends (whichever reader comes first gets it), or write
// one of their own. Mode 0600 is read.
func TestSecretFIFOMode(t *testing.T) {
	dir := t.TempDir()
	for name, tc := range map[string]struct {
		mode os.FileMode
		want string // "": read
	}{
		"0644": {0o644, "chmod 600"},
		"0622": {0o622, "chmod 600"},
		"0600": {0o600, ""},
	} {
		p := filepath.Join(dir, name)
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, tc.mode); err != nil {
			t.Fatal(err)
		}
		// The writer: its open returns once a reader opens the FIFO.
		go func() {
			f, err := os.OpenFile(p, os.O_WRONLY, 0)
			if err != nil {
				return
			}
			f.WriteString(testPassphrase + "\n")
			f.Close()
		}()
		b, err := ReadSecretFile(p)
		// A writer still waiting for a reader (the FIFO refused before it
		// opened) is let through.
		if f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
		switch {
		case tc.want == "" && (err != nil || string(b) != testPassphrase):
			t.Errorf("FIFO mode %s: %q, %v; want the passphrase", name, b, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("FIFO mode %s: %q, %v; want an error naming %q", name, b, err, tc.want)
		}
	}
}

// [[entropy.source]] sample_bits and seed_bytes: a binary noise source is
// declared per bit (0 < min_entropy ≤ sample_bits), and seed_bytes may
// require several physical sources together, but never so few bytes that
// all of them credit less than a seed needs (entropy.New would refuse it
// at the start; the check refuses it first, naming the keys).
func TestEntropySampleAndSeedBytes(t *testing.T) {
	for _, ok := range []string{
		`[{kind = "hwrng", min_entropy = 0.5, sample_bits = 1}, {kind = "getrandom"}]`,
		`[{kind = "hwrng", min_entropy = 1.0, sample_bits = 1, seed_bytes = 48}]`,                                        // 48 × 8 × 1 = 384
		`[{kind = "hwrng", min_entropy = 4.0, sample_bits = 8, seed_bytes = 96}, {kind = "getrandom", seed_bytes = 64}]`, // 96 × 4 = 384
		`[{kind = "hwrng", min_entropy = 7.5, sample_bits = 0}]`,
		// No physical source trusted alone: 192 + 192, both needed.
		`[{kind = "hwrng", min_entropy = 2.0, seed_bytes = 96}, {kind = "rdseed", min_entropy = 4.0, seed_bytes = 48}, {kind = "getrandom"}]`,
		// One source short alone, the other at its default: redundancy kept.
		`[{kind = "hwrng", min_entropy = 2.0, seed_bytes = 10}, {kind = "tpm", min_entropy = 4.0}]`,
		`[{kind = "tpm", min_entropy = 4.0, seed_bytes = 65536}]`,
	} {
		if _, err := checkTOML(t, configTOML(map[string]string{"entropy.source": ok})); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	for name, tc := range map[string]struct{ sources, want string }{
		"sample_bits 4":            {`[{kind = "hwrng", min_entropy = 2.0, sample_bits = 4}]`, "entropy.source[0].sample_bits"},
		"sample_bits -1":           {`[{kind = "hwrng", min_entropy = 1.0, sample_bits = -1}]`, "entropy.source[0].sample_bits"},
		"min_entropy > 1 bit":      {`[{kind = "getrandom"}, {kind = "rdseed", min_entropy = 2.0, sample_bits = 1}]`, "entropy.source[1].min_entropy"},
		"min_entropy 0, binary":    {`[{kind = "tpm", sample_bits = 1}]`, "entropy.source[0].min_entropy"},
		"min_entropy > 8":          {`[{kind = "hwrng", min_entropy = 8.5, sample_bits = 8}]`, "entropy.source[0].min_entropy"},
		"sample_bits on getrandom": {`[{kind = "hwrng", min_entropy = 4.0}, {kind = "getrandom", sample_bits = 8}]`, "entropy.source[1].sample_bits"},
		"seed_bytes negative":      {`[{kind = "hwrng", min_entropy = 4.0, seed_bytes = -1}]`, "entropy.source[0].seed_bytes"},
		"seed_bytes too many":      {`[{kind = "hwrng", min_entropy = 4.0, seed_bytes = 65537}]`, "entropy.source[0].seed_bytes"},
		"seed_bytes on getrandom":  {`[{kind = "hwrng", min_entropy = 4.0}, {kind = "getrandom", seed_bytes = 100000}]`, "entropy.source[1].seed_bytes"},
		"tiny min_entropy":         {`[{kind = "hwrng", min_entropy = 0.001}]`, "entropy.source[0].min_entropy"},
		// 95 × 4 = 380 < 384.
		"one source short": {`[{kind = "hwrng", min_entropy = 4.0, seed_bytes = 95}, {kind = "getrandom", seed_bytes = 1024}]`, "entropy.source[0].seed_bytes = 95"},
		// 47 × 8 × 1 = 376.
		"binary source short": {`[{kind = "hwrng", min_entropy = 1.0, sample_bits = 1, seed_bytes = 47}]`, "entropy.source[0].seed_bytes = 47"},
		// 64 × 2 + 32 × 4 = 256 < 384: both keys named.
		"two sources short": {`[{kind = "hwrng", min_entropy = 2.0, seed_bytes = 64}, {kind = "rdseed", min_entropy = 4.0, seed_bytes = 32}]`, "entropy.source[1].seed_bytes = 32"},
	} {
		_, err := checkTOML(t, configTOML(map[string]string{"entropy.source": tc.sources}))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error naming %q", name, err, tc.want)
		}
		if err != nil && strings.Contains(tc.want, "seed_bytes =") && !strings.Contains(err.Error(), "384") {
			t.Errorf("%s: %v, want the requirement (384 bits)", name, err)
		}
	}
	// The check completes nothing in the caller's sources (no side effect).
	src := []EntropySource{{Kind: "hwrng", MinEntropy: 0.5, SampleBits: 1}}
	e := EntropyConfig{Sources: src}
	if err := e.check(false); err != nil || src[0] != (EntropySource{Kind: "hwrng", MinEntropy: 0.5, SampleBits: 1}) {
		t.Errorf("check: %v, sources now %+v", err, src)
	}
}

// A config file larger than maxConfigFile is refused, in an error naming
// the file: LoadConfig read it whole, whatever its size. One of
// maxConfigFile bytes is read.
func TestConfigFileBounded(t *testing.T) {
	toml := configTOML(nil)
	p := filepath.Join(t.TempDir(), "rngd.toml")
	if err := os.WriteFile(p, []byte(toml+strings.Repeat("\n", maxConfigFile-len(toml)+1)), 0o600); err != nil {
		t.Fatal(err)
	}
	want := "couldn't read config " + p + ": larger than 1 MiB"
	if _, err := LoadConfig(p); err == nil || err.Error() != want {
		t.Fatalf("LoadConfig of a file of maxConfigFile+1 bytes: %v; want %q", err, want)
	}
	if err := os.Truncate(p, maxConfigFile); err != nil {
		t.Fatal(err)
	}
	if c, err := LoadConfig(p); err != nil || c.Log.Origin != "tirage.test/rngd" {
		t.Errorf("LoadConfig of a file of maxConfigFile bytes: origin %q, %v", c.Log.Origin, err)
	}
}
