package tilelog_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/klog/v2"

	"tirage.fr/tirage/transparency/tilelog"
)

// tesseraLogsChild, in the environment, makes TestTesseraLogsAreJSON the
// child process: the routing is process-wide and set by the first Open.
const tesseraLogsChild = "TILELOG_TESSERA_LOGS_FILE"

// Every line tessera writes — through klog (a real one: "Initializing
// directory for POSIX log" at Open; "GarbageCollect failed" as in a
// checkpoint stall) and through log/slog's default logger ("Failed to
// remove temporary file", as its POSIX driver logs a failed write's
// temporary file; it was plain text on stderr, outside rngd's JSON log) —
// comes out as a JSON record of the log's logger, nothing on stderr; klog's
// verbose lines and debug records stay off.
func TestTesseraLogsAreJSON(t *testing.T) {
	if path := os.Getenv(tesseraLogsChild); path != "" {
		tesseraLogsChildMain(t, path)
		return
	}
	out := filepath.Join(t.TempDir(), "log.json")
	cmd := exec.Command(os.Args[0], "-test.run=^TestTesseraLogsAreJSON$", "-test.count=1")
	cmd.Env = append(os.Environ(), tesseraLogsChild+"="+out)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("child: %v\n%s", err, stderr.String())
	}
	if stderr.Len() > 0 {
		t.Errorf("written to stderr, outside the logger:\n%s", stderr.String())
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var records []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var r map[string]any
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("not a JSON record: %q: %v", line, err)
		}
		records = append(records, r)
	}
	find := func(prefix string) map[string]any {
		for _, r := range records {
			if msg, _ := r["msg"].(string); strings.HasPrefix(msg, prefix) {
				return r
			}
		}
		return nil
	}
	for prefix, level := range map[string]string{"Initializing directory for POSIX log": "INFO", "GarbageCollect failed": "ERROR",
		"Failed to remove temporary file": "WARN", "http: URL query contains semicolon": "INFO"} {
		r := find(prefix)
		if r == nil || r["level"] != level || r["component"] != "log" {
			t.Errorf("%s… logged as %v, want a %s record of the log's logger (component log)", prefix, r, level)
		}
	}
	if r := find("verbose"); r != nil {
		t.Errorf("a verbose line logged: %v", r)
	}
}

func tesseraLogsChildMain(t *testing.T, path string) {
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	logger := slog.New(slog.NewJSONHandler(f, nil)).With("component", "log")
	l, err := tilelog.Open(context.Background(), tilelog.Config{Dir: t.TempDir(), Origin: origin, Signers: testSigners(t), Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	klog.ErrorS(errors.New("no space left on device"), "GarbageCollect failed")
	klog.V(1).Info("verbose klog line")
	slog.WarnContext(context.Background(), "Failed to remove temporary file", slog.String("name", ""), slog.Any("error", errors.New("no such file or directory")))
	slog.Debug("verbose slog record")
	log.Print("http: URL query contains semicolon") // net/http's server errors without ErrorLog
	klog.Flush()
}

// defaultLoggerChild, in the environment, makes TestOpenWithDefaultLogger
// the child process.
const defaultLoggerChild = "TILELOG_DEFAULT_LOGGER_CHILD"

// A log opened with a logger derived from slog.Default() (as rngd gives its
// log Config.Logger.With("component", "log"), with Config.Logger
// slog.Default()): that handler writes through the log package, so making
// it slog's default (which sends the log package to the default handler)
// deadlocked Open at tessera's first line, and any later line of the log
// package or slog's default. Open returns, and every line reaches stderr
// once, through the log package as before.
func TestOpenWithDefaultLogger(t *testing.T) {
	if os.Getenv(defaultLoggerChild) != "" {
		l, err := tilelog.Open(context.Background(), tilelog.Config{Dir: t.TempDir(), Origin: origin, Signers: testSigners(t),
			Logger: slog.Default().With("component", "log")})
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		log.Print("a line of the log package")
		slog.Info("a line of slog's default logger")
		return
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestOpenWithDefaultLogger$", "-test.count=1")
	cmd.Env = append(os.Environ(), defaultLoggerChild+"=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("child still running after 30 s (a logging loop?): %v\n%s", err, stderr.String())
	}
	if err != nil {
		t.Fatalf("child: %v\n%s", err, stderr.String())
	}
	for _, line := range []string{"Initializing directory for POSIX log", "a line of the log package", "a line of slog's default logger"} {
		if n := strings.Count(stderr.String(), line); n != 1 {
			t.Errorf("%q on stderr %d times, want once:\n%s", line, n, stderr.String())
		}
	}
}
