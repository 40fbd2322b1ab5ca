package rngd

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// dirNames lists dir's entries.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

// rngd creates its data directory 0700 and secrets.db 0600, and refuses to
// start, or to rebuild, with either open to group or others (as ssh
// refuses a private key), naming the path, its mode and the mode wanted,
// with nothing created or changed; back to 0700 and 0600, it starts.
func TestDataDirModeChecked(t *testing.T) {
	td := newTestDaemon(t)
	td.stop()
	data := td.cfg.DataDir
	secrets := filepath.Join(data, "secrets.db")
	for path, want := range map[string]os.FileMode{data: 0o700, secrets: 0o600} {
		if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != want {
			t.Fatalf("%s as rngd made it: %v, %v; want mode %04o", path, fi.Mode(), err, want)
		}
	}
	for _, c := range []struct {
		path       string
		mode, back os.FileMode
		want       string
	}{
		{secrets, 0o644, 0o600, "the secret store " + secrets + " has mode 0644: want 0600"},
		{secrets, 0o620, 0o600, "the secret store " + secrets + " has mode 0620: want 0600"},
		{data, 0o755, 0o700, "data_dir " + data + " has mode 0755: want 0700"},
		{data, 0o701, 0o700, "data_dir " + data + " has mode 0701: want 0700"},
	} {
		if err := os.Chmod(c.path, c.mode); err != nil {
			t.Fatal(err)
		}
		before := dirNames(t, data)
		if err := td.tryStart(); err == nil || !strings.Contains(err.Error(), c.want) {
			td.stop()
			t.Errorf("start with %s at %04o: %v, want %q", c.path, c.mode, err, c.want)
		}
		if _, err := Rebuild(context.Background(), td.cfg); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("rebuild with %s at %04o: %v, want %q", c.path, c.mode, err, c.want)
		}
		if after := dirNames(t, data); !slices.Equal(before, after) {
			t.Errorf("a refused start with %s at %04o changed the data directory: %v, was %v", c.path, c.mode, after, before)
		}
		if err := os.Chmod(c.path, c.back); err != nil {
			t.Fatal(err)
		}
	}
	td.start()
}

// Neither the data directory nor secrets.db may be another user's: that
// user could open them again. Changing a file's owner needs root.
func TestDataDirOwnerChecked(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("chown to another user needs root")
	}
	td := newTestDaemon(t)
	td.stop()
	data := td.cfg.DataDir
	for _, path := range []string{filepath.Join(data, "secrets.db"), data} {
		if err := os.Chown(path, 4242, -1); err != nil {
			t.Fatal(err)
		}
		want := path + " is owned by uid 4242, not by rngd's user (uid 0)"
		if err := td.tryStart(); err == nil || !strings.Contains(err.Error(), want) {
			td.stop()
			t.Errorf("start with %s owned by uid 4242: %v, want %q", path, err, want)
		}
		if err := os.Chown(path, 0, -1); err != nil {
			t.Fatal(err)
		}
	}
	td.start()
}
