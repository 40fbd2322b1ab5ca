package rngd

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	adminv1 "tirage.fr/tirage/rngd/api/tirage/admin/v1"
)

// adminSocketHelperEnv makes the test binary a client of the admin socket
// it names (TestAdminSocketHelper), run under another uid.
const adminSocketHelperEnv = "TIRAGE_ADMIN_SOCKET_HELPER"

// admin.allowed_uids admits the users it names, not only root and the
// daemon's own: the socket's mode lets them connect, and the kernel's peer
// credentials decide. The repro was: allowed_uids = [0, 65534], then
// `setpriv --reuid=65534 rngctl qod status --socket …` was refused by the
// kernel (permission denied) before the peer check ran.
func TestAdminSocketOtherUsers(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root: calls the admin socket as other uids")
	}
	// A directory every user can search (t.TempDir's are 0700), holding
	// the socket and a copy of this test binary that they can run.
	dir, err := os.MkdirTemp("", "rngd-admin-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "rngd.test")
	copyExecutable(t, bin)
	sock := filepath.Join(dir, "adm.sock")
	const allowed, other = 65534, 65533
	td := newTestDaemon(t, func(c *Config) { c.Admin.Socket, c.Admin.AllowedUIDs = sock, []int{0, allowed} })
	if bytes := td.logs(); strings.Contains(string(bytes), "not searchable by others") {
		t.Errorf("a warning about a searchable directory:\n%s", bytes)
	}
	fi, err := os.Stat(sock)
	if err != nil || fi.Mode().Perm() != 0o666 {
		t.Fatalf("admin socket mode %v %v, want 0666 (the peer-credential check decides)", fi.Mode(), err)
	}

	call := func(uid int) (string, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, bin, "-test.run=^TestAdminSocketHelper$", "-test.count=1")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), adminSocketHelperEnv+"="+sock)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(uid)}} // no supplementary groups
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out, err := call(allowed)
	if err != nil || !strings.Contains(out, "admin status ok") {
		t.Fatalf("uid %d, in admin.allowed_uids: %v\n%s", allowed, err, out)
	}
	// The peer-credential check still refuses a user not in the list.
	out, err = call(other)
	if err == nil || !strings.Contains(out, "code Unavailable") {
		t.Fatalf("uid %d, not in admin.allowed_uids: %v\n%s", other, err, out)
	}
	// Root still gets in (0 is in the list).
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := td.admin().Status(ctx, &adminv1.StatusRequest{}); err != nil {
		t.Fatal(err)
	}
}

// TestAdminSocketHelper is TestAdminSocketOtherUsers' client, run under
// another uid; it does nothing in an ordinary run.
func TestAdminSocketHelper(t *testing.T) {
	sock := os.Getenv(adminSocketHelperEnv)
	if sock == "" {
		t.Skip("the client of TestAdminSocketOtherUsers")
	}
	cc, err := grpc.NewClient("unix:"+sock, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err = adminv1.NewAdminClient(cc).Status(ctx, &adminv1.StatusRequest{})
	if err != nil {
		fmt.Printf("uid %d: code %v: %v\n", os.Getuid(), status.Code(err), err)
		t.FailNow()
	}
	fmt.Printf("uid %d: admin status ok\n", os.Getuid())
}

// copyExecutable copies this test binary to dst, mode 0755.
func copyExecutable(t *testing.T, dst string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	in, err := os.Open(exe)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// The socket stays 0600 while only the daemon's own user and root are
// allowed; a directory on the way that other users cannot search is named
// when the list names another user (they could not reach the socket).
func TestAdminSocketMode(t *testing.T) {
	self := os.Getuid()
	for _, tc := range []struct {
		uids []int
		want os.FileMode
	}{
		{[]int{self}, 0o600},
		{[]int{0, self}, 0o600},
		{[]int{self, self + 4242}, 0o666},
		{[]int{0, self + 4242}, 0o666},
	} {
		if got := adminSocketMode(tc.uids); got != tc.want {
			t.Errorf("adminSocketMode(%v) = %04o, want %04o", tc.uids, got, tc.want)
		}
	}
	private := t.TempDir() // mode 0700
	if err := os.Chmod(private, 0o700); err != nil {
		t.Fatal(err)
	}
	others := AdminConfig{Socket: filepath.Join(private, "admin.sock"), AllowedUIDs: []int{self, self + 4242}}
	if got := unsearchableDir(others); got != private {
		t.Errorf("unsearchableDir(%s) = %q, want %q", others.Socket, got, private)
	}
	if got := unsearchableDir(AdminConfig{Socket: others.Socket, AllowedUIDs: []int{self}}); got != "" {
		t.Errorf("unsearchableDir for the daemon's own user only = %q, want none", got)
	}

	// The default socket, in data_dir (0700): the daemon warns that
	// another user allowed cannot reach it.
	td := newTestDaemon(t, func(c *Config) { c.Admin.AllowedUIDs = []int{self, self + 4242} })
	fi, err := os.Stat(td.d.Addrs().Admin)
	if err != nil || fi.Mode().Perm() != 0o666 {
		t.Fatalf("admin socket mode %v %v", fi.Mode(), err)
	}
	if !strings.Contains(string(td.logs()), "not searchable by others") {
		t.Errorf("no warning for a socket other users cannot reach:\n%s", td.logs())
	}
	td2 := newTestDaemon(t)
	if fi, err := os.Stat(td2.d.Addrs().Admin); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("admin socket mode for the daemon's own user: %v %v", fi.Mode(), err)
	}
}
