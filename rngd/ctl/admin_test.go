package ctl

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"tirage.fr/tirage/rngd/internal/testio"
	"tirage.fr/tirage/rngd/rngdtest"
)

// rngctlEnv runs rngctl with an environment.
func rngctlEnv(env map[string]string, args ...string) (code int, stdout, stderr string) {
	var o, e bytes.Buffer
	code = Run(context.Background(), Env{Args: args, Stdin: strings.NewReader(""), Stdout: &o, Stderr: &e,
		Getenv: func(k string) string { return env[k] }})
	return code, o.String(), e.String()
}

// Without --socket, rngctl uses $RNGD_ADMIN_SOCKET, else data/admin.sock
// (relative to the current directory); --socket wins over both.
func TestAdminSocketFromEnvironment(t *testing.T) {
	sock := rngdtest.Start(t).Admin
	missing := filepath.Join(t.TempDir(), "none.sock")
	for _, tc := range []struct {
		env    map[string]string
		args   []string
		code   int
		output string
	}{
		{map[string]string{AdminSocketEnv: sock}, []string{"qod", "status"}, ExitOK, "unfinished games 0"},
		{map[string]string{AdminSocketEnv: sock}, []string{"emission", "list"}, ExitOK, "no emission is registered"},
		{map[string]string{AdminSocketEnv: sock}, []string{"entropy", "status"}, ExitOK, "entropy healthy"},
		{map[string]string{AdminSocketEnv: missing}, []string{"qod", "status", "--socket", sock}, ExitOK, "unfinished games 0"},
		{map[string]string{AdminSocketEnv: missing}, []string{"qod", "status"}, ExitFail,
			"rngctl: admin socket " + missing + " (RNGD_ADMIN_SOCKET): no such file (is rngd running? set --socket or RNGD_ADMIN_SOCKET)\n"},
		{nil, []string{"qod", "status"}, ExitFail,
			"rngctl: admin socket data/admin.sock: no such file (is rngd running? set --socket or RNGD_ADMIN_SOCKET)\n"},
		{map[string]string{AdminSocketEnv: ""}, []string{"emission", "list"}, ExitFail,
			"rngctl: admin socket data/admin.sock: no such file (is rngd running? set --socket or RNGD_ADMIN_SOCKET)\n"},
	} {
		code, out, errOut := rngctlEnv(tc.env, tc.args...)
		ok := strings.Contains(out, tc.output)
		if tc.code != ExitOK {
			ok = out == "" && errOut == tc.output
		}
		if code != tc.code || !ok {
			t.Errorf("%v rngctl %s: exit %d, %q %q; want %d and %q", tc.env, strings.Join(tc.args, " "), code, out, errOut, tc.code, tc.output)
		}
	}
}

// A socket that is missing, that nothing answers on, that this user may
// not open, or whose daemon closes the connection unanswered (a user not
// in admin.allowed_uids) is one line saying so, not gRPC's transport error.
func TestAdminSocketErrors(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "none.sock")

	// A stale socket: bound, nothing listening.
	stale := filepath.Join(dir, "stale.sock")
	l, err := net.Listen("unix", stale)
	if err != nil {
		t.Fatal(err)
	}
	l.(*net.UnixListener).SetUnlinkOnClose(false)
	l.Close()

	// A daemon that closes every connection before reading a byte, as
	// rngd does to a user not in admin.allowed_uids.
	closing := filepath.Join(dir, "closing.sock")
	cl, err := net.Listen("unix", closing)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cl.Close() })
	go func() {
		for {
			c, err := cl.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"qod", "status", "--socket", missing}, "rngctl: admin socket " + missing + ": no such file (is rngd running? set --socket or RNGD_ADMIN_SOCKET)\n"},
		{[]string{"emission", "create", "--id", "E1", "--closure", "2026-12-15", "--socket", filepath.Join(dir, "nodir", "a.sock")},
			"rngctl: admin socket " + filepath.Join(dir, "nodir", "a.sock") + ": no such file (is rngd running? set --socket or RNGD_ADMIN_SOCKET)\n"},
		{[]string{"qod", "sweep", "--socket", stale}, "rngctl: admin socket " + stale + ": connection refused, nothing answers there (is rngd running? set --socket or RNGD_ADMIN_SOCKET)\n"},
		{[]string{"entropy", "status", "--socket", closing}, fmt.Sprintf("rngctl: admin socket %s: closed without an answer (rngd may refuse so a user not in its admin.allowed_uids; this is uid %d)\n", closing, os.Getuid())},
		{[]string{"qod", "refund", "--game", "g", "--reason", "r", "--socket", closing}, fmt.Sprintf("rngctl: admin socket %s: closed without an answer (rngd may refuse so a user not in its admin.allowed_uids; this is uid %d)\n", closing, os.Getuid())},
	} {
		code, out, errOut := rngctl(tc.args...)
		if code != ExitFail || out != "" || errOut != tc.want {
			t.Errorf("rngctl %s: exit %d, %q %q; want exit 1 and %q", strings.Join(tc.args, " "), code, out, errOut, tc.want)
		}
	}
}

// ctlSocketHelperEnv makes the test binary run `rngctl qod status --socket`
// on the socket it names (TestAdminSocketHelper), under another uid.
const ctlSocketHelperEnv = "TIRAGE_CTL_SOCKET_HELPER"

// A socket this user may not open: permission denied, in one line saying
// what decides. As root (who may open any socket) the check runs as
// another uid, the test binary re-run under SysProcAttr.Credential.
func TestAdminSocketPermissionDenied(t *testing.T) {
	dir, err := os.MkdirTemp("", "rngctl-socket-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "admin.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	if err := os.Chmod(sock, 0o600); err != nil {
		t.Fatal(err)
	}
	want := "rngctl: admin socket " + sock + ": permission denied (rngd's admin.allowed_uids and the socket's mode decide who may connect)\n"
	if os.Getuid() != 0 {
		if err := os.Chmod(sock, 0); err != nil {
			t.Fatal(err)
		}
		if code, out, errOut := rngctl("qod", "status", "--socket", sock); code != ExitFail || out != "" || errOut != want {
			t.Errorf("exit %d, %q %q; want exit 1 and %q", code, out, errOut, want)
		}
		return
	}
	bin := filepath.Join(dir, "ctl.test")
	testio.CopyExecutable(t, bin)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "-test.run=^TestAdminSocketHelper$", "-test.count=1")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), ctlSocketHelperEnv+"="+sock)
	const other = 65533
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: other, Gid: other}}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("helper as uid %d: %v\n%s", other, err, out)
	}
	if got := string(out); !strings.Contains(got, "exit 1\n"+want) {
		t.Errorf("as uid %d: %q; want exit 1 and %q", other, got, want)
	}
}

// TestAdminSocketHelper is TestAdminSocketPermissionDenied's rngctl, run
// under another uid; it does nothing in an ordinary run.
func TestAdminSocketHelper(t *testing.T) {
	sock := os.Getenv(ctlSocketHelperEnv)
	if sock == "" {
		t.Skip("the rngctl of TestAdminSocketPermissionDenied")
	}
	code, out, errOut := rngctl("qod", "status", "--socket", sock)
	fmt.Printf("exit %d\n%s%s", code, out, errOut)
}
