package rngd

import (
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

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	"tirage.fr/tirage/internal/peertest"
	adminv1 "tirage.fr/tirage/rngd/api/tirage/admin/v1"
	"tirage.fr/tirage/rngd/internal/testio"
)

// adminSocketHelperEnv makes the test binary a client of the admin socket
// it names (TestAdminSocketHelper), run under another uid.
const adminSocketHelperEnv = "TIRAGE_ADMIN_SOCKET_HELPER"

// admin.allowed_uids admits the users it names, not only root and the
// daemon's own: the socket's mode lets them connect, and the kernel's peer
// credentials decide. The repro was: allowed_uids = [0, 65534], then
// `setpriv --reuid=65534 rngctl qod status --socket …` was refused by the
// kernel (permission denied) before the peer check ran. (65534, the
// kernel's overflow uid, is now refused in allowed_uids: the test uses
// 65532.)
func TestAdminSocketOtherUsers(t *testing.T) {
	if os.Getuid() != 0 {
		peertest.Absent(t, "not root (uid %d): the test calls the admin socket as other uids", os.Getuid())
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
	testio.CopyExecutable(t, bin)
	sock := filepath.Join(dir, "adm.sock")
	const allowed, other = 65532, 65533
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
	// The peer-credential check still refuses a user not in the list: its
	// calls get PERMISSION_DENIED naming its uid (adminGate).
	out, err = call(other)
	if err == nil || !strings.Contains(out, "code PermissionDenied") || !strings.Contains(out, fmt.Sprintf("uid %d is not in rngd's admin.allowed_uids", other)) {
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

// The socket's directory must be one no other user can write to: owned by
// root or rngd's user, writable by neither group nor others (sticky or
// not). Otherwise the start is refused, naming admin.socket, and nothing is
// left in the directory.
func TestAdminSocketDirectory(t *testing.T) {
	self := os.Getuid()
	for _, tc := range []struct {
		mode   os.FileMode
		chown  int // -1: rngd's own
		refuse string
	}{
		{0o700, -1, ""},
		{0o755, -1, ""},
		{0o750, -1, ""},
		{0o775, -1, "writable by group or others"},
		{0o757, -1, "writable by group or others"},
		{0o777 | os.ModeSticky, -1, "writable by group or others"}, // like /tmp
		{0o755, 65533, "owned by uid 65533"},
	} {
		if tc.chown >= 0 && self != 0 {
			continue // needs root
		}
		dir := filepath.Join(t.TempDir(), "run")
		if err := os.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(dir, tc.mode); err != nil {
			t.Fatal(err)
		}
		if tc.chown >= 0 {
			if err := os.Chown(dir, tc.chown, tc.chown); err != nil {
				t.Fatal(err)
			}
		}
		sock := filepath.Join(dir, "admin.sock")
		l, err := listenAdmin(AdminConfig{Socket: sock, AllowedUIDs: []int{self, self + 4242}})
		if tc.refuse == "" {
			if err != nil {
				t.Errorf("directory %v: %v", tc.mode, err)
				continue
			}
			l.Close()
			continue
		}
		if err == nil {
			l.Close()
			t.Errorf("directory %v (owner %d, -1 rngd's): admin socket opened, want refused (%s)", tc.mode, tc.chown, tc.refuse)
			continue
		}
		if !strings.Contains(err.Error(), "admin.socket") || !strings.Contains(err.Error(), tc.refuse) {
			t.Errorf("directory %v: %v, want an error naming admin.socket and %q", tc.mode, err, tc.refuse)
		}
		if ents, _ := os.ReadDir(dir); len(ents) != 0 {
			t.Errorf("directory %v: left %v", tc.mode, ents)
		}
	}

	// Through the daemon: the start is refused.
	dir := filepath.Join(t.TempDir(), "run")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o777|os.ModeSticky); err != nil {
		t.Fatal(err)
	}
	td := newTestDaemon(t)
	td.stop()
	cfg := td.cfg
	cfg.Admin.Socket = filepath.Join(dir, "admin.sock")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if d, err := Start(ctx, cfg); err == nil {
		cancel()
		d.Serve(ctx)
		t.Fatal("started with admin.socket in a world-writable directory")
	} else if !strings.Contains(err.Error(), "admin.socket") {
		t.Fatalf("%v, want an error naming admin.socket", err)
	}
}

// The socket appears at admin.socket with its final mode (nothing to wait
// for after listenAdmin, no window at a wider or narrower mode), whatever
// the umask, and nothing else is left in its directory (the private
// directory it was bound in is gone). Closing it removes it.
func TestAdminSocketFinalMode(t *testing.T) {
	self := os.Getuid()
	dir := privateDir(t)
	sock := filepath.Join(dir, "admin.sock")
	for _, tc := range []struct {
		uids []int
		want os.FileMode
	}{
		{[]int{self, self + 4242}, 0o666},
		{[]int{self}, 0o600},
	} {
		l, err := listenAdmin(AdminConfig{Socket: sock, AllowedUIDs: tc.uids})
		if err != nil {
			t.Fatal(err)
		}
		fi, err := os.Lstat(sock)
		if err != nil || fi.Mode()&os.ModeSocket == 0 || fi.Mode().Perm() != tc.want {
			t.Fatalf("allowed %v: right after listenAdmin: %v %v, want a socket %04o", tc.uids, fi.Mode(), err, tc.want)
		}
		if ents, _ := os.ReadDir(dir); len(ents) != 1 {
			t.Errorf("allowed %v: the directory holds %v, want admin.sock only", tc.uids, ents)
		}
		if got := l.Addr().String(); got != sock {
			t.Errorf("Addr %q, want %q", got, sock)
		}
		// It answers at admin.socket (this process's uid is allowed).
		done := make(chan error, 1)
		go func() {
			c, err := l.Accept()
			if err == nil {
				c.Close()
			}
			done <- err
		}()
		c, err := net.Dial("unix", sock)
		if err != nil {
			t.Fatal(err)
		}
		c.Close()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		// A second one is refused while this one serves.
		if l2, err := listenAdmin(AdminConfig{Socket: sock, AllowedUIDs: tc.uids}); err == nil {
			l2.Close()
			t.Fatal("a second admin socket took over a live one")
		} else if !strings.Contains(err.Error(), "in use") {
			t.Errorf("second listener: %v, want in use", err)
		}
		l.Close()
		if _, err := os.Lstat(sock); !os.IsNotExist(err) {
			t.Fatalf("admin.socket after Close: %v", err)
		}
	}

	// A stale socket (its daemon killed) is replaced.
	stale, err := net.ListenUnix("unix", &net.UnixAddr{Name: sock, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	stale.SetUnlinkOnClose(false)
	stale.Close()
	l, err := listenAdmin(AdminConfig{Socket: sock, AllowedUIDs: []int{self}})
	if err != nil {
		t.Fatalf("stale socket: %v", err)
	}
	// Closing does not remove a socket that is no longer this one.
	os.Remove(sock)
	other, err := net.ListenUnix("unix", &net.UnixAddr{Name: sock, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	l.Close()
	if _, err := os.Lstat(sock); err != nil {
		t.Errorf("Close removed another process's socket: %v", err)
	}
}

// The swap the old code let through: admin.socket was bound at its name,
// then chmod'ed by its name, and chmod follows a symlink, so another user
// able to write to the directory who replaced the fresh socket with a
// symlink in between got any file (rngd may run as root) made 0666. The
// hook swaps at that very moment. Now the socket is bound and chmod'ed in a
// private directory, then linked into place with linkat, which neither
// follows nor replaces the symlink: the start is refused and the file
// keeps its mode. (Such a user is also refused now by the directory rule,
// TestAdminSocketDirectory; this one plays them in a directory the test
// owns.)
func TestAdminSocketSymlinkSwap(t *testing.T) {
	self := os.Getuid()
	victim := filepath.Join(privateDir(t), "shadow")
	if err := os.WriteFile(victim, []byte("secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(victim, 0o600); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(privateDir(t), "admin.sock")
	afterAdminBind = func() {
		os.Remove(sock) // the socket, were it bound there
		if err := os.Symlink(victim, sock); err != nil {
			t.Error(err)
		}
	}
	t.Cleanup(func() { afterAdminBind = nil })
	l, err := listenAdmin(AdminConfig{Socket: sock, AllowedUIDs: []int{self, self + 4242}})
	if err == nil {
		l.Close()
		t.Error("listenAdmin succeeded with a symlink put at admin.socket")
	} else if !strings.Contains(err.Error(), "admin.socket") {
		t.Errorf("%v, want an error naming admin.socket", err)
	}
	if fi, err := os.Stat(victim); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the symlink's target: %v %v, want 0600 (untouched)", fi.Mode(), err)
	}
	if target, err := os.Readlink(sock); err != nil || target != victim {
		t.Errorf("the symlink: %q %v, want left alone", target, err)
	}
	if ents, _ := os.ReadDir(filepath.Dir(sock)); len(ents) != 1 {
		t.Errorf("left in the directory: %v", ents)
	}
}

// privateDir is a t.TempDir of mode 0700 (t.TempDir's mode follows the
// umask, and with umask 0 its directory is one others may write to).
func privateDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	return dir
}

// 65534, the kernel's overflow uid (what SO_PEERCRED reports for a user
// with no mapping in rngd's user namespace), is refused in allowed_uids.
func TestAdminSocketOverflowUID(t *testing.T) {
	_, err := checkTOML(t, configTOML(map[string]string{"admin.allowed_uids": `[0, 65534]`}))
	if err == nil || !strings.Contains(err.Error(), "admin.allowed_uids") || !strings.Contains(err.Error(), "65534") {
		t.Fatalf("allowed_uids [0, 65534]: %v, want refused naming admin.allowed_uids", err)
	}
	if _, err := checkTOML(t, configTOML(map[string]string{"admin.allowed_uids": `[0, 65532]`})); err != nil {
		t.Fatalf("allowed_uids [0, 65532]: %v", err)
	}
}
