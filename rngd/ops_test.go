package rngd

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"

	adminv1 "tirage.fr/tirage/rngd/api/tirage/admin/v1"
	qodv1 "tirage.fr/tirage/rngd/api/tirage/qod/v1"
)

// An [[entropy.source]] key its kind does not read, a kind given twice, or
// no physical source at all is a config error naming the key (exit 2,
// nothing touched), not an ignored key or a start failure.
func TestEntropySourceKeys(t *testing.T) {
	// A file or a pipe is no device: whoever wrote it chose the bytes
	// credited as physical entropy (dev mode only: TestEntropyBinarySource).
	file := filepath.Join(t.TempDir(), "hwrng")
	if err := os.WriteFile(file, make([]byte, 4096), 0o600); err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct{ sources, want string }{
		"file as hwrng":      {fmt.Sprintf(`[{kind = "hwrng", min_entropy = 2.0, path = %q}, {kind = "getrandom"}]`, file), "entropy.source[0].path"},
		"directory as tpm":   {fmt.Sprintf(`[{kind = "tpm", min_entropy = 4.0, path = %q}]`, filepath.Dir(file)), "not a character device"},
		"path on getrandom":  {`[{kind = "hwrng", min_entropy = 4.0}, {kind = "getrandom", path = "/dev/tpmrm0"}]`, "entropy.source[1].path"},
		"path on rdseed":     {`[{kind = "rdseed", min_entropy = 4.0, path = "/dev/hwrng"}]`, "entropy.source[0].path"},
		"address on hwrng":   {`[{kind = "hwrng", min_entropy = 4.0, address = "127.0.0.1:2321"}]`, "entropy.source[0].address"},
		"tpm path + address": {`[{kind = "tpm", min_entropy = 4.0, path = "/dev/tpmrm0", address = "127.0.0.1:2321"}]`, "entropy.source[0]: path and address"},
		"kind twice":         {`[{kind = "hwrng", min_entropy = 4.0}, {kind = "hwrng", min_entropy = 4.0, path = "/dev/hwrng1"}]`, "entropy.source[1].kind"},
		"getrandom only":     {`[{kind = "getrandom"}]`, "no physical source"},
		"tpm simulator":      {`[{kind = "tpm", min_entropy = 4.0, address = "127.0.0.1:2321"}, {kind = "getrandom"}]`, "entropy.source[0].address"}, // dev mode only
		// The kernel's DRBG is no noise source: credited as one, it
		// would stand in for the hardware unannounced.
		"urandom as hwrng": {`[{kind = "hwrng", min_entropy = 2.0, path = "/dev/urandom"}, {kind = "getrandom"}]`, "entropy.source[0].path"},
		"random as tpm":    {`[{kind = "tpm", min_entropy = 4.0, path = "/dev/random"}]`, "entropy.source[0].path"},
	} {
		_, err := checkTOML(t, configTOML(map[string]string{"entropy.source": tc.sources}))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error naming %q", name, err, tc.want)
		}
	}
	for _, ok := range []string{
		`[{kind = "tpm", min_entropy = 4.0, path = "/dev/tpmrm0"}, {kind = "getrandom"}]`,
		// A character device: its health tests judge its bytes (these
		// refuse /dev/zero's at start-up).
		`[{kind = "hwrng", min_entropy = 2.0, path = "/dev/zero"}, {kind = "getrandom"}]`,
		`[{kind = "hwrng", min_entropy = 4.0, path = "/dev/hwrng"}, {kind = "rdseed", min_entropy = 2.0}, {kind = "getrandom"}]`,
	} {
		if _, err := checkTOML(t, configTOML(map[string]string{"entropy.source": ok})); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
}

// A secret typed where its file's path belongs (unquoted) is not quoted
// back by the config error.
func TestConfigSecretNotEchoed(t *testing.T) {
	for _, key := range []string{"passphrase_file", "pin_file"} {
		p := filepath.Join(t.TempDir(), "rngd.toml")
		os.WriteFile(p, []byte("[keys]\n"+key+" = hunter2secret\n"), 0o600)
		_, err := ConfigFromFlags(p, false)
		if err == nil || strings.Contains(err.Error(), "hunter") || !strings.Contains(err.Error(), "keys."+key) {
			t.Errorf("%s: %v: want an error naming keys.%s without the value", key, err, key)
		}
	}
}

// Nor when it lands in another table than [keys] (its line added at the
// end of a file whose last table is [game]) or in an inline table: the
// error names the key, and quotes no part of the value (FuzzLoadConfig).
func TestConfigSecretNotEchoedElsewhere(t *testing.T) {
	for _, key := range []string{"passphrase_file", "pin_file"} {
		for _, text := range []string{
			"[game]\nkeys." + key + " = hunter2secret\n",
			"[game]\n" + key + " = hunter2secret\n",
			"[keys]\n" + key + " = {a = hunter2secret}\n",
		} {
			p := filepath.Join(t.TempDir(), "rngd.toml")
			os.WriteFile(p, []byte(text), 0o600)
			_, err := ConfigFromFlags(p, false)
			if err == nil || strings.Contains(err.Error(), "hunter") || !strings.Contains(err.Error(), key) {
				t.Errorf("%q: %v: want an error naming %s without the value", text, err, key)
			}
		}
	}
}

// A secret's path given twice is a duplicate key, and the error says so:
// the path is quoted, and "not a quoted path" would send the operator
// looking for the wrong mistake.
func TestConfigSecretTwice(t *testing.T) {
	for _, key := range []string{"passphrase_file", "pin_file"} {
		p := filepath.Join(t.TempDir(), "rngd.toml")
		os.WriteFile(p, []byte("[keys]\n"+key+" = \"/etc/a\"\n"+key+" = \"/etc/b\"\n"), 0o600)
		_, err := ConfigFromFlags(p, false)
		if err == nil || !strings.Contains(err.Error(), "line 3, keys."+key+": given twice") {
			t.Errorf("%s twice: %v: want an error saying keys.%s is given twice", key, err, key)
		}
	}
}

// The banner names a pkcs11 custody by its token and module, not by a
// software keystore directory it does not use.
func TestBannerKeys(t *testing.T) {
	k := KeysConfig{Backend: "pkcs11", Module: "/opt/hsm/libpkcs11.so", TokenLabel: "tirage", Dir: "/var/lib/tirage/keys"}
	got := keysSummary(k, "pkcs11", false)
	if strings.Contains(got, "keystore") || strings.Contains(got, k.Dir) || !strings.Contains(got, `"tirage"`) || !strings.Contains(got, k.Module) {
		t.Errorf("pkcs11 banner line %q", got)
	}
	k = KeysConfig{Backend: "software", Dir: "/var/lib/tirage/keys"}
	if got := keysSummary(k, "software", true); !strings.Contains(got, k.Dir) || !strings.Contains(got, "SOFTWARE KEYS") {
		t.Errorf("software banner line %q", got)
	}
}

// Item 7's series exist on /metrics and move: draws by kind and outcome,
// call latency, VRF and append latency, the journal's fsyncs, the append queue, entropy health,
// refusals by reason; tirage_games_unfinished holds the games in play from
// the start, not only after the first sweep.
func TestMetricsMove(t *testing.T) {
	td := newTestDaemon(t)
	ctx := context.Background()
	codes1 := td.emission("M1", "2026-12-15", 5)
	a := td.client("server-a")
	g, err := a.StartGame(ctx, &qodv1.StartGameRequest{RequestId: "s1", Code: codes1[0]})
	if err != nil {
		t.Fatal(err)
	}
	_, err = a.Pick(ctx, &qodv1.PickRequest{RequestId: "p0", GameId: g.Game.GameId, Number: 31})
	wantStatus(t, err, codes.InvalidArgument, "number")
	if _, err := a.Pick(ctx, &qodv1.PickRequest{RequestId: "p1", GameId: g.Game.GameId, Number: 7}); err != nil {
		t.Fatal(err)
	}
	m := scrape(t, td)
	for _, want := range []string{
		`tirage_draws_total{kind="game_start",outcome="x`,
		`tirage_draws_total{kind="pick",outcome="`,
		`tirage_call_seconds_count{method="Pick"} 2`,
		`tirage_call_seconds_count{method="StartGame"} 1`,
		// A bound at the p99 goal, 25 ms: the calls over it counted.
		`tirage_call_seconds_bucket{method="Pick",le="0.025"} `,
		`tirage_log_append_seconds_bucket{le="0.025"} `,
		`tirage_vrf_prove_seconds_count`,
		`tirage_log_append_seconds_count`,
		`tirage_log_append_queue 0`,
		`tirage_entropy_generator_healthy 1`,
		`tirage_entropy_source_healthy{source="` + td.generatorSources()[0].Kind + `"} 1`,
		`tirage_refusals_total{code="InvalidArgument",reason="NUMBER_RANGE"} 1`,
		`tirage_alarms_total{component="entropy"} 0`,
	} {
		if !strings.Contains(m, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	// The journal's fsyncs: one at least for each draw (and the
	// emission's records before them), acknowledged one at a time here.
	const fsyncCount = "tirage_log_journal_fsync_seconds_count"
	var fsyncs int
	if _, err := fmt.Sscanf(grepLines(m, fsyncCount+" "), fsyncCount+" %d", &fsyncs); err != nil || fsyncs < 2 {
		t.Errorf("journal fsyncs counted: %q (%v), want 2 or more", grepLines(m, fsyncCount), err)
	}
	// A second game, without picks, stays in play.
	if _, err := a.StartGame(ctx, &qodv1.StartGameRequest{RequestId: "s2", Code: codes1[1]}); err != nil {
		t.Fatal(err)
	}
	td.restart()
	st, err := td.admin().Status(ctx, &adminv1.StatusRequest{})
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("\ntirage_games_unfinished %d\n", st.GamesUnfinished)
	if m := scrape(t, td); st.GamesUnfinished == 0 || !strings.Contains(m, want) {
		t.Errorf("after a restart with %d games in play: %s", st.GamesUnfinished, grepLines(m, "tirage_games_unfinished"))
	}
}

func scrape(t *testing.T, td *testDaemon) string {
	t.Helper()
	resp, err := http.Get("http://" + td.d.Addrs().HTTP + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

func grepLines(s, prefix string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, prefix) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
