package witnesspolicy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tirage.fr/tirage/transparency/witness"
)

// policyText is a policy naming one witness at url.
func policyText(t *testing.T, url string) string {
	t.Helper()
	_, vkey, err := witness.GenerateKey("bailiff.example/witness")
	if err != nil {
		t.Fatal(err)
	}
	return "witness bailiff " + vkey + " " + url + "\nquorum bailiff\n"
}

// write writes text as dir/witnesses.policy with mode, dir having dirMode.
func write(t *testing.T, dir, text string, mode, dirMode os.FileMode) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "witnesses.policy")
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, dirMode); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(dir, 0o700) })
	return p
}

// Read refuses a policy that someone other than root and the user reading
// it could write (by its mode, or by that of the directory holding it, who
// could swap it), or read when it holds credentials; the secret is never
// in the error.
func TestRead(t *testing.T) {
	plain := policyText(t, "http://127.0.0.1:7490")
	secret := policyText(t, "https://bastion:s3cret@127.0.0.1:7490")
	for _, tc := range []struct {
		name          string
		text          string
		mode, dirMode os.FileMode
		want          string // "": accepted
	}{
		{"plain 0644 in 0755", plain, 0o644, 0o755, ""},
		{"plain 0644 in 0700", plain, 0o644, 0o700, ""},
		{"credentials 0600", secret, 0o600, 0o755, ""},
		{"group-writable file", plain, 0o664, 0o755, "it has mode 0664: writable by group or others, who could name a witness of their own"},
		{"credentials readable", secret, 0o640, 0o755, "it has mode 0640: readable by group or others, and witness bailiff's URL holds credentials: chmod 600 it"},
		{"group-writable directory", plain, 0o644, 0o775, "has mode 0775: writable by group or others, who could swap the file: chmod go-w it"},
		{"world-writable directory", secret, 0o600, 0o777, "has mode 0777: writable by group or others, who could swap the file"},
		{"sticky world-writable directory", plain, 0o644, 0o777 | os.ModeSticky, "has mode 0777: writable by group or others"},
		{"not a policy", "witness\n", 0o644, 0o755, "invalid witness definition"},
	} {
		dir := filepath.Join(t.TempDir(), "etc")
		p := write(t, dir, tc.text, tc.mode, tc.dirMode)
		b, err := Read(p)
		switch {
		case tc.want == "" && (err != nil || string(b) != tc.text):
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "s3cret")):
			t.Errorf("%s: %v; want %q", tc.name, err, tc.want)
		case tc.want != "" && strings.HasPrefix(tc.want, "has mode") && !strings.HasPrefix(err.Error(), "its directory "+dir+" has mode"):
			t.Errorf("%s: %v; want the directory named", tc.name, err)
		}
	}
	if _, err := Read(filepath.Join(t.TempDir(), "none")); err == nil || strings.Contains(err.Error(), "none") {
		t.Errorf("a missing file: %v; want an error without the path (the caller names it)", err)
	}
}

// A symbolic link in a closed directory to a policy in an open one is
// refused: whoever may write the open one may swap the file it names.
func TestReadSymlink(t *testing.T) {
	open := filepath.Join(t.TempDir(), "open")
	target := write(t, open, policyText(t, "http://127.0.0.1:7490"), 0o644, 0o777)
	link := filepath.Join(t.TempDir(), "witnesses.policy")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(link); err == nil || !strings.Contains(err.Error(), "its directory "+open+" has mode 0777") {
		t.Errorf("a link to a policy in an open directory: %v", err)
	}
	os.Chmod(open, 0o755)
	if _, err := Read(link); err != nil {
		t.Errorf("a link to a policy in a closed directory: %v", err)
	}
}

// A policy, or the directory holding it, owned by another user than root
// and the reader is refused whatever its mode: its owner may write it.
func TestReadOwner(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("chown needs root")
	}
	dir := filepath.Join(t.TempDir(), "etc")
	p := write(t, dir, policyText(t, "http://127.0.0.1:7490"), 0o644, 0o755)
	if err := os.Chown(p, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(p); err == nil || !strings.Contains(err.Error(), "it is owned by uid 65534, neither root nor the user reading it (uid 0), who could name a witness of their own: chown it") {
		t.Errorf("a file owned by uid 65534: %v", err)
	}
	os.Chown(p, 0, 0)
	if err := os.Chown(dir, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(p); err == nil || !strings.Contains(err.Error(), "its directory "+dir+" is owned by uid 65534, neither root nor the user reading it (uid 0), who could swap the file: chown it") {
		t.Errorf("a directory owned by uid 65534: %v", err)
	}
}
