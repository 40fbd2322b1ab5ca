package ctl

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"tirage.fr/tirage/rngd"
)

// FuzzReadManifestFile: rngctl emission import (readManifest) reads a manifest file as
// manifest.Read does, and accepts it exactly when that reading accepts it,
// with at least one ticket, every one of the emission imported, and the
// file's last line ends with its newline (a file cut short is refused).
func FuzzReadManifestFile(f *testing.F) {
	hash := strings.Repeat("ab", 32)
	f.Add([]byte("# emission E1\nE1," + hash + ",1000\n"))
	f.Add([]byte("E1," + hash + ",1000\nE1," + hash + ",2000\r\n\n"))
	f.Add([]byte("E1," + hash + ",1000\nE1," + hash + ",100"))
	f.Add([]byte("E2," + hash + ",1000\n"))
	f.Add([]byte("# nothing\n"))
	f.Add([]byte(""))
	f.Fuzz(func(t *testing.T, b []byte) {
		p := filepath.Join(t.TempDir(), "manifest.csv")
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		got, err := readManifest(p, "E1")
		var want []rngd.Ticket
		rerr := rngd.ReadManifest(bytes.NewReader(b), func(tk rngd.Ticket) error {
			want = append(want, tk)
			return nil
		})
		ok := rerr == nil && len(want) > 0 && bytes.HasSuffix(b, []byte("\n")) &&
			!slices.ContainsFunc(want, func(tk rngd.Ticket) bool { return tk.Emission != "E1" })
		if (err == nil) != ok {
			t.Fatalf("%q: %d tickets, %v; manifest.Read: %d tickets, %v", b, len(got), err, len(want), rerr)
		}
		if err == nil && !slices.Equal(got, want) {
			t.Fatalf("%q: %v, want %v", b, got, want)
		}
		if err != nil && got != nil {
			t.Fatalf("%q refused (%v) with %d tickets", b, err, len(got))
		}
	})
}
