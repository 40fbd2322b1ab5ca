package rngd

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
)

// gRPC's errors come out as JSON records of the daemon's logger; its info
// and warning lines and verbose levels are dropped, as gRPC's default
// logger drops them.
func TestGRPCLogger(t *testing.T) {
	var buf bytes.Buffer
	g := grpcLogger{slog.New(slog.NewJSONHandler(&buf, nil))}
	g.Info("info")
	g.Infof("info %d", 1)
	g.Warning("warning")
	g.Warningln("warning")
	if g.V(0) || g.V(2) {
		t.Error("V(l) = true: gRPC would build verbose lines for nothing")
	}
	g.Errorf("transport: %s", "bogus greeting")
	g.Errorln("a", "b")
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d lines, want the 2 errors only:\n%s", len(lines), buf.String())
	}
	for i, want := range []string{"transport: bogus greeting", "a b"} {
		var rec map[string]any
		if err := json.Unmarshal([]byte(lines[i]), &rec); err != nil {
			t.Fatalf("line %d is not JSON: %v: %s", i, err, lines[i])
		}
		if rec["msg"] != want || rec["level"] != "ERROR" || rec["component"] != "grpc" {
			t.Errorf("line %d = %v, want msg %q, level ERROR, component grpc", i, rec, want)
		}
	}
}
