package ctl

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"tirage.fr/tirage/internal/peertest"
	adminv1 "tirage.fr/tirage/rngd/api/tirage/admin/v1"
	"tirage.fr/tirage/rngd/entropy/entropytest"
	"tirage.fr/tirage/rngd/rngdtest"
)

// TestEntropyBinary builds rngctl and runs `rngctl entropy test` against
// real sources, a stuck "device" (a file of zeros) and bad input, checking
// exit codes and output. The battery's P-values do not change the exit
// status, so these cases have no statistical false-failure rate; the health
// tests' false-alarm rate is at most 2·(1024+N)·2^-30 per run (< 2^-15).
func TestEntropyBinary(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "rngctl")
	build := exec.Command("go", "build", "-o", bin, "tirage.fr/tirage/cmd/rngctl")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	zeros := filepath.Join(dir, "zeros")
	if err := os.WriteFile(zeros, make([]byte, 8192), 0o600); err != nil {
		t.Fatal(err)
	}
	tpm := entropytest.StartSwtpm(t)

	type tc struct {
		name     string
		args     []string
		code     int
		stdout   []string
		stderr   string
		needsDev string
	}
	cases := []tc{
		{name: "getrandom", args: []string{"--source", "getrandom", "--bytes", "4096"}, code: 0,
			stdout: []string{"non-physical", "start-up tests  pass", "frequency (monobit)", "runs", "serial (m=", "byte chi-square", "health tests passed"}},
		{name: "hwrng", args: []string{"--source", "hwrng", "--bytes", "2048"}, code: 0, needsDev: "/dev/hwrng",
			stdout: []string{"hwrng, physical", "repetition count 16; adaptive proportion 190 in a window of 512", "start-up tests  pass"}},
		{name: "tpm", args: []string{"--source", "tpm", "--tpm-address", tpm, "--bytes", "2048", "--min-entropy", "4", "--alpha", "2^-20"},
			code: 0, stdout: []string{"tpm, physical", "alpha = 2^-20", "start-up tests  pass"}},
		{name: "stuck device", args: []string{"--source", "hwrng", "--device", zeros, "--bytes", "1024"}, code: 1,
			stdout: []string{"start-up tests  FAIL"}, stderr: "failed the repetition-count test"},
		{name: "missing device", args: []string{"--source", "hwrng", "--device", filepath.Join(dir, "none"), "--bytes", "1024"}, code: 1,
			stderr: "--device " + filepath.Join(dir, "none") + ": no such device"},
		{name: "device for getrandom", args: []string{"--source", "getrandom", "--device", zeros}, code: 2, stderr: "--device is for --source hwrng or tpm"},
		{name: "address for hwrng", args: []string{"--source", "hwrng", "--tpm-address", "127.0.0.1:1"}, code: 2, stderr: "--tpm-address is for --source tpm"},
		{name: "no source", args: []string{"--bytes", "10"}, code: 2, stderr: "missing --source"},
		{name: "unknown source", args: []string{"--source", "lava"}, code: 2, stderr: "--source \"lava\""},
		{name: "bad bytes", args: []string{"--source", "getrandom", "--bytes", "-3"}, code: 2, stderr: "--bytes -3"},
		// 2^30 bytes took about 10 GB in the battery.
		{name: "too many bytes", args: []string{"--source", "getrandom", "--bytes", "16777217"}, code: 2, stderr: "--bytes 16777217: want 16 to 2^24 (16 MiB)"},
		{name: "binary", args: []string{"--source", "getrandom", "--bytes", "2048", "--sample-bits", "1", "--min-entropy", "0.9"}, code: 0,
			stdout: []string{"0.9 bits per 1-bit sample", "in a window of 1024", "pass over 16384 samples"}},
		{name: "bad sample bits", args: []string{"--source", "getrandom", "--sample-bits", "4"}, code: 2, stderr: "--sample-bits 4"},
		{name: "bad H", args: []string{"--source", "getrandom", "--min-entropy", "9"}, code: 2, stderr: "--min-entropy 9"},
		{name: "bad alpha", args: []string{"--source", "getrandom", "--alpha", "2^-8"}, code: 2, stderr: "--alpha \"2^-8\""},
		{name: "extra arg", args: []string{"--source", "getrandom", "x"}, code: 2, stderr: "unexpected argument"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.needsDev != "" {
				peertest.Device(t, c.needsDev)
			}
			var stdout, stderr bytes.Buffer
			cmd := exec.Command(bin, append([]string{"entropy", "test"}, c.args...)...)
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			code := 0
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != c.code {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, c.code, stdout.String(), stderr.String())
			}
			for _, want := range c.stdout {
				if !strings.Contains(stdout.String(), want) {
					t.Errorf("stdout lacks %q:\n%s", want, stdout.String())
				}
			}
			if c.stderr != "" {
				if !strings.Contains(stderr.String(), c.stderr) {
					t.Errorf("stderr lacks %q: %s", c.stderr, stderr.String())
				}
				if n := strings.Count(strings.TrimSpace(stderr.String()), "\n"); n != 0 {
					t.Errorf("stderr is %d lines, want one: %s", n+1, stderr.String())
				}
			}
		})
	}
}

func TestEntropyUsage(t *testing.T) {
	var out, errb bytes.Buffer
	if code := Run(context.Background(), Env{Args: []string{"entropy"}, Stdout: &out, Stderr: &errb}); code != ExitUsage {
		t.Errorf("rngctl entropy: exit %d, want 2", code)
	}
	if !strings.Contains(errb.String(), "usage: rngctl entropy test") {
		t.Errorf("no usage: %s", errb.String())
	}
	errb.Reset()
	if code := Run(context.Background(), Env{Args: []string{"entropy", "frob"}, Stdout: &out, Stderr: &errb}); code != ExitUsage {
		t.Errorf("unknown subcommand: exit %d, want 2", code)
	}
}

// rngctl entropy status|retest against a running rngd: the sources and their
// health, exit 0 while rngd draws; usage errors exit 2; no daemon exits 1.
// (An unhealthy source refusing draws, and its recovery by a retest, are
// tested in rngd's TestEntropyAdmin.)
func TestEntropyDaemonCommands(t *testing.T) {
	sock := rngdtest.Start(t).Admin
	for _, tc := range []struct {
		args   []string
		code   int
		output string
	}{
		{[]string{"entropy", "status", "--socket", sock}, ExitOK, "entropy healthy: rngd draws"},
		{[]string{"entropy", "status", "--socket", sock}, ExitOK, ": healthy"},
		{[]string{"entropy", "retest", "--socket", sock}, ExitOK, "entropy healthy: rngd draws"},
		{[]string{"entropy", "status", "--socket", sock, "extra"}, ExitUsage, "unexpected argument"},
		{[]string{"entropy", "retest", "--socket", filepath.Join(t.TempDir(), "none.sock")}, ExitFail, "is rngd running"},
	} {
		code, out, errOut := rngctl(tc.args...)
		if code != tc.code || !strings.Contains(out+errOut, tc.output) {
			t.Errorf("rngctl %s: exit %d, %q %q; want %d and %q", strings.Join(tc.args, " "), code, out, errOut, tc.code, tc.output)
		}
	}
}

// rngctl entropy status of a degraded rngd (the response rngd's
// TestEntropyAdminDegraded gets: a source failed, the other credits the
// requirement): the failed source, and DEGRADED rather than "healthy",
// exit 0 since rngd draws; refusing exits 1.
func TestEntropyStatusDegraded(t *testing.T) {
	sources := []*adminv1.EntropySource{
		{Name: "hwrng", Physical: true, CreditedBits: 384},
		{Name: "dying", Physical: true, CreditedBits: 384, Failure: "entropy source dying failed the repetition-count test: a value repeated 9 times in a row (cutoff 9)"},
		{Name: "getrandom"},
	}
	for _, tc := range []struct {
		st   *adminv1.EntropyStatusResponse
		code int
		want []string
		not  string
	}{
		{&adminv1.EntropyStatusResponse{Healthy: true, Sources: sources}, ExitOK, []string{
			"source dying (physical, credited 384.0 bits per seed): FAILED: entropy source dying failed the repetition-count test",
			"source hwrng (physical, credited 384.0 bits per seed): healthy",
			"entropy DEGRADED: rngd draws from its healthy sources alone (384.0 bits per seed credited); failed: dying; repair, then rngctl entropy retest",
		}, "entropy healthy"},
		{&adminv1.EntropyStatusResponse{Healthy: false, Error: "entropy: healthy sources credit 0.0 bits per seed, 384 required", Sources: sources}, ExitFail, []string{
			"rngctl: entropy unhealthy, rngd refuses draws: entropy: healthy sources credit 0.0 bits per seed",
		}, "DEGRADED"},
	} {
		var out, errOut bytes.Buffer
		code := writeEntropyStatus(Env{Stdout: &out, Stderr: &errOut}, tc.st)
		all := out.String() + errOut.String()
		if code != tc.code || strings.Contains(all, tc.not) {
			t.Errorf("exit %d, want %d; output (must not say %q):\n%s", code, tc.code, tc.not, all)
		}
		for _, w := range tc.want {
			if !strings.Contains(all, w) {
				t.Errorf("output lacks %q:\n%s", w, all)
			}
		}
	}
}
