package peertest

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// recorder is a testing.TB that records how a helper ended the test
// instead of ending it.
type recorder struct {
	testing.TB
	skipped, failed, errored, logged string
}

func (r *recorder) Helper()                        {}
func (r *recorder) Skipf(format string, a ...any)  { r.skipped = fmt.Sprintf(format, a...) }
func (r *recorder) Fatalf(format string, a ...any) { r.failed = fmt.Sprintf(format, a...) }
func (r *recorder) Errorf(format string, a ...any) { r.errored = fmt.Sprintf(format, a...) }
func (r *recorder) Logf(format string, a ...any)   { r.logged = fmt.Sprintf(format, a...) }

// what returns the one outcome r recorded, by kind, and its message.
func (r *recorder) what() (kind, msg string) {
	var kinds []string
	for _, o := range []struct{ kind, msg string }{{"skip", r.skipped}, {"fatal", r.failed}, {"error", r.errored}, {"log", r.logged}} {
		if o.msg != "" {
			kinds, msg = append(kinds, o.kind), o.msg
		}
	}
	return strings.Join(kinds, "+"), msg
}

func TestAbsentAndWithout(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "hwrng")
	for _, tc := range []struct {
		ci   string
		call func(testing.TB)
		kind string
		want string
	}{
		{"", func(t testing.TB) { Absent(t, "swtpm not installed (%s)", "make deps") }, "skip", "swtpm not installed (make deps)"},
		{"true", func(t testing.TB) { Absent(t, "swtpm not installed (%s)", "make deps") }, "fatal", "swtpm not installed (make deps)"},
		{"1", func(t testing.TB) { Absent(t, "swtpm") }, "skip", "swtpm"}, // CI=true only
		{"", func(t testing.TB) { Without(t, "no RDSEED") }, "log", "no RDSEED"},
		{"true", func(t testing.TB) { Without(t, "no RDSEED") }, "error", "no RDSEED"},
		{"", func(t testing.TB) { Device(t, missing) }, "skip", missing},
		{"true", func(t testing.TB) { Device(t, missing) }, "fatal", missing},
		{"true", func(t testing.TB) { Device(t, "/dev/null") }, "", ""},
	} {
		t.Setenv("CI", tc.ci)
		r := &recorder{TB: t}
		tc.call(r)
		kind, msg := r.what()
		if kind != tc.kind || !strings.Contains(msg, tc.want) {
			t.Errorf("CI=%q: %s %q, want %s naming %q", tc.ci, kind, msg, tc.kind, tc.want)
		}
		if kind == "fatal" || kind == "error" {
			if !strings.Contains(msg, "CI=true") {
				t.Errorf("CI=%q: %q does not say the failure comes from CI=true", tc.ci, msg)
			}
		}
	}
}
