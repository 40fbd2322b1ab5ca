package demo

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"tirage.fr/tirage/rngd/rngdtest"
)

// The demo of make run, against a real daemon on free ports: it plays its
// games and every verification passes; a second run plays new tickets.
func TestDemo(t *testing.T) {
	d := rngdtest.Start(t, "client")
	data := d.DataDir
	for run := 0; run < 2; run++ {
		var out bytes.Buffer
		err := Run(context.Background(), Config{GRPC: d.GRPC, AdminSocket: d.Admin, PKI: d.PKI, Client: "client",
			Emission: "DEMO", Closure: "2099-12-31", Tickets: 50, Games: 3, TranscriptDir: filepath.Join(data, "transcripts"), Out: &out})
		if err != nil {
			t.Fatalf("run %d: %v\n%s", run, err, out.String())
		}
		if !strings.Contains(out.String(), "verification summary: 3 games") || strings.Count(out.String(), "VERDICT: every check passed") != 3 {
			t.Fatalf("run %d output:\n%s", run, out.String())
		}
	}
	if m, _ := filepath.Glob(filepath.Join(data, "transcripts", "*.json")); len(m) != 6 {
		t.Fatalf("%d transcripts, want 6", len(m))
	}
}
