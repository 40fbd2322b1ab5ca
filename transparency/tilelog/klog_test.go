package tilelog

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
)

// tessera's repeated messages (a failing checkpoint publication, retried
// at every interval) are logged once per klogRepeat, the next one saying
// how many were left out; other kinds of message are not held back.
func TestRepeatLimiter(t *testing.T) {
	var buf bytes.Buffer
	now := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	h := newRepeatLimiter(slog.NewJSONHandler(&buf, nil), 10*time.Second, func() time.Time { return now })
	log := logr.FromSlogHandler(h).WithValues("component", "tessera")
	for i := range 100 { // 10 s at 10 a second
		log.Info("publishCheckpoint: newCP: witness policy was not satisfied", "try", i)
		if i == 50 {
			log.Info("Initializing directory for POSIX log")
		}
		now = now.Add(99 * time.Millisecond)
	}
	now = now.Add(200 * time.Millisecond) // 10.1 s after the first
	log.Info("publishCheckpoint: newCP: witness policy was not satisfied", "try", 100)

	var lines []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("%q: %v", l, err)
		}
		lines = append(lines, m)
	}
	if len(lines) != 3 {
		t.Fatalf("%d lines logged, want 3 (the first, the other kind, the next after 10 s):\n%s", len(lines), buf.String())
	}
	if lines[0]["try"] != 0.0 || lines[0]["repeated"] != nil || lines[0]["component"] != "tessera" {
		t.Errorf("first line %v", lines[0])
	}
	if !strings.HasPrefix(lines[1]["msg"].(string), "Initializing") {
		t.Errorf("second line %v, want the other kind of message", lines[1])
	}
	if lines[2]["try"] != 100.0 || lines[2]["repeated"] != 99.0 {
		t.Errorf("third line %v, want try 100 saying 99 repeated", lines[2])
	}
}
