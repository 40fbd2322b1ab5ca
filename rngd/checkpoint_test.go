package rngd

import (
	"context"
	"crypto"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"google.golang.org/grpc/status"

	qodv1 "tirage.fr/tirage/rngd/api/tirage/qod/v1"
	"tirage.fr/tirage/transparency"
	"tirage.fr/tirage/transparency/tilelog"
	"tirage.fr/tirage/verifier/qod"
)

// flakySigner is the log key, which stops signing while fail is set (a
// token that does not answer).
type flakySigner struct {
	crypto.Signer
	fail atomic.Bool
}

func (s *flakySigner) Sign(r io.Reader, msg []byte, opts crypto.SignerOpts) ([]byte, error) {
	if s.fail.Load() {
		return nil, errors.New("pkcs11: CKR_DEVICE_ERROR")
	}
	return s.Signer.Sign(r, msg, opts)
}

// An embedded log whose key cannot sign checkpoints stalls: draws are
// refused with LOG_UNAVAILABLE saying the log retries by itself (not that
// rngd must be restarted), the log alarm rises, readiness and the
// checkpoint gauges say so; once the key signs again, draws resume without
// a restart.
func TestCheckpointStall(t *testing.T) {
	ls := &flakySigner{}
	td := newTestDaemon(t, func(c *Config) {
		c.wrapLogSigner = func(s crypto.Signer) crypto.Signer { ls.Signer = s; return ls }
	})
	e := td.d.engine
	codes := td.emission("CS", "2026-12-31", 10)
	a := td.client("server-a")
	ctx := context.Background()
	alarm := func() float64 {
		var m dto.Metric
		e.metrics.alarms.WithLabelValues("log").Write(&m)
		return m.GetCounter().GetValue()
	}
	health := func() error { return e.tlog.(transparency.Health).Health() }
	waitFor := func(what string, ok func() bool) {
		t.Helper()
		for deadline := time.Now().Add(15 * time.Second); !ok(); time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("timed out waiting for %s (log health: %v)", what, health())
			}
		}
	}
	unsigned := func() bool { v, ok := gaugeValue(t, td, "tirage_log_unsigned_leaves"); return ok && v == 0 }
	start(t, a, codes[1])
	if v, ok := gaugeValue(t, td, "tirage_log_checkpoint_stalled"); !ok || v != 0 {
		t.Fatalf("tirage_log_checkpoint_stalled = %v (registered: %v), want 0", v, ok)
	}
	// A start is acknowledged once journaled: its checkpoint may still be
	// on its way. Wait for it, so that the failing key meets the next one.
	waitFor("a checkpoint covering the first start", unsigned)

	// The key fails: the next checkpoint, of the next record, is not signed.
	ls.fail.Store(true)
	start(t, a, codes[2]) // acknowledged once journaled
	waitFor("the stall", func() bool { return errors.Is(health(), tilelog.ErrCheckpointStalled) })
	before := alarm()
	_, err := a.StartGame(ctx, &qodv1.StartGameRequest{RequestId: rid(), Code: codes[3]})
	wantRefusal(t, err, reasonLogUnavailable, "the log cannot publish signed checkpoints")
	if msg := err.Error(); strings.Contains(msg, "restart") || !strings.Contains(msg, "retries by itself") {
		t.Errorf("refusal %q: want a retry later, without restart", msg)
	}
	if got := alarm(); got != before+1 {
		t.Errorf("tirage_alarms_total{component=\"log\"}: %v -> %v, want +1", before, got)
	}
	wantReady(t, td, false, "log")
	for name, want := range map[string]func(float64) bool{
		"tirage_log_checkpoint_stalled":      func(v float64) bool { return v == 1 },
		"tirage_log_unsigned_leaves":         func(v float64) bool { return v >= 1 },
		"tirage_log_checkpoint_wait_seconds": func(v float64) bool { return v >= 0 },
		"tirage_log_up":                      func(v float64) bool { return v == 0 },
	} {
		if v, ok := gaugeValue(t, td, name); !ok || !want(v) {
			t.Errorf("%s = %v (registered: %v) while stalled", name, v, ok)
		}
	}

	// The key is back: the log publishes by itself, and draws resume.
	ls.fail.Store(false)
	waitFor("the log's recovery", func() bool { return health() == nil })
	wantReady(t, td, true, "")
	start(t, a, codes[3])
	for name, want := range map[string]float64{"tirage_log_checkpoint_stalled": 0, "tirage_log_up": 1} {
		if v, ok := gaugeValue(t, td, name); !ok || v != want {
			t.Errorf("%s = %v (registered: %v) after recovery, want %v", name, v, ok, want)
		}
	}
	waitFor("a checkpoint covering the tree", unsigned)
}

// log.checkpoint_timeout: 0 is the embedded log's default; otherwise 1s to
// 10m and at least three checkpoint intervals, for the embedded log only.
func TestCheckpointTimeoutConfig(t *testing.T) {
	for name, tc := range map[string]configErrorCase{
		"negative":       {configTOML(map[string]string{"log.checkpoint_timeout": `"-1s"`}), "log.checkpoint_timeout"},
		"too short":      {configTOML(map[string]string{"log.checkpoint_timeout": `"500ms"`}), "log.checkpoint_timeout = 500ms: want 1s to 10m0s"},
		"too long":       {configTOML(map[string]string{"log.checkpoint_timeout": `"1h"`}), "log.checkpoint_timeout = 1h0m0s: want 1s to 10m0s"},
		"under interval": {configTOML(map[string]string{"log.checkpoint_timeout": `"5s"`, "log.checkpoint_interval": `"2s"`}), "at least 3 × log.checkpoint_interval"},
		"trillian": {configTOML(map[string]string{"log.checkpoint_timeout": `"30s"`, "log.backend": `"trillian"`,
			"log.trillian_address": `"127.0.0.1:8090"`, "log.trillian_tree_id": `5`, "log.trillian_plaintext": `true`}), "log.trillian_append_timeout bounds Trillian's"},
	} {
		_, err := checkTOML(t, tc.toml)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error containing %q", name, err, tc.want)
		}
	}
	for in, want := range map[string]time.Duration{`"0s"`: 0, `"1s"`: time.Second, `"2m"`: 2 * time.Minute, `"10m"`: 10 * time.Minute} {
		c, err := checkTOML(t, configTOML(map[string]string{"log.checkpoint_timeout": in}))
		if err != nil || c.Log.CheckpointTimeout.Duration != want {
			t.Errorf("log.checkpoint_timeout = %s: %v %v, want %v", in, c.Log.CheckpointTimeout, err, want)
		}
	}
}

// A TPM simulator over TCP (a tpm source's address) is refused outside dev
// mode, naming the key and the device to use instead; in dev mode it is
// taken and announced.
func TestTPMAddressDevOnly(t *testing.T) {
	sources := func() EntropyConfig {
		return EntropyConfig{Sources: []EntropySource{{Kind: "tpm", MinEntropy: 4, Address: "203.0.113.7:2321"}, {Kind: "getrandom"}}}
	}
	ec := sources()
	err := ec.check(false)
	if err == nil || !strings.Contains(err.Error(), "entropy.source[0].address") || !strings.Contains(err.Error(), "dev mode only") ||
		!strings.Contains(err.Error(), "/dev/tpmrm0") {
		t.Errorf("production config with a TPM simulator: %v, want a refusal naming entropy.source[0].address and the device path", err)
	}
	_, err = checkTOML(t, configTOML(map[string]string{"entropy.source": `[{kind = "tpm", min_entropy = 4.0, address = "127.0.0.1:2321"}, {kind = "getrandom"}]`}))
	if err == nil || !strings.Contains(err.Error(), "entropy.source[0].address") {
		t.Errorf("production config file with a TPM simulator: %v", err)
	}
	ec = sources()
	if err := ec.check(true); err != nil {
		t.Errorf("dev mode, TPM simulator: %v", err)
	}
	cfg := Config{Dev: true, Entropy: sources(), Keys: KeysConfig{Backend: "software"}}
	notes := insecureNotes(cfg, true)
	if len(notes) != 1 || !strings.Contains(notes[0].banner, "TPM SIMULATOR") || !strings.Contains(notes[0].banner, "203.0.113.7:2321") ||
		!strings.Contains(notes[0].log, "entropy.source[0]") {
		t.Errorf("dev mode TPM simulator notes: %+v", notes)
	}
	cfg.Entropy.Sources[0].Address, cfg.Entropy.Sources[0].Path = "", "/dev/tpmrm0"
	if notes := insecureNotes(cfg, true); len(notes) != 0 {
		t.Errorf("notes for a TPM device: %+v", notes)
	}
}

// The state machine's refusals name the request field they are about, as
// the daemon's own checks do.
func TestRuleErrorNamesField(t *testing.T) {
	for _, tc := range []struct {
		err   error
		r     reason
		field string
	}{
		{qod.ErrGameOver, reasonGameOver, "game_id"},
		{qod.ErrAtTier, reasonAtTier, "game_id"},
		{qod.ErrNotAtTier, reasonNotAtTier, "game_id"},
		{qod.ErrExpired, reasonGameExpired, "game_id"},
		{qod.ErrNotExpired, reasonNotExpired, "game_id"},
		{qod.ErrStartClosed, reasonDeadlinePassed, "code"},
		{qod.ErrTicketPlayed, reasonCodePlayed, "code"},
		{qod.ErrTicketQuit, reasonTicketQuit, "code"},
		{qod.ErrTicketStarted, reasonTicketStarted, "code"},
		{fmt.Errorf("number 31: %w", qod.ErrNumberRange), reasonNumberRange, "number"},
	} {
		err := ruleError(tc.err)
		wantRefusal(t, err, tc.r, tc.err.Error())
		if msg := status.Convert(err).Message(); !strings.HasPrefix(msg, tc.field+": ") {
			t.Errorf("%v: %q does not start with %q", tc.r, msg, tc.field+": ")
		}
	}
}
