package rngd

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"tirage.fr/tirage/transparency/atomicfile"
)

// An imported manifest's file is durable before its record is sealed:
// atomicfile syncs the file and the manifests directory, and the data
// directory is synced too, which holds the manifests directory's entry made
// by the first import. Without it a crash could keep the record and lose
// the directory, and rngd would refuse to start until the file was
// restored.
func TestWriteManifestSyncsDataDir(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	if err := os.Mkdir(data, 0o700); err != nil {
		t.Fatal(err)
	}
	var synced []string
	syncDir = func(dir string) error {
		synced = append(synced, dir)
		return atomicfile.SyncDir(dir)
	}
	t.Cleanup(func() { syncDir = atomicfile.SyncDir })
	_, tickets := DemoTickets("E1", []byte("test seed"), 2)
	if err := writeManifest(filepath.Join(data, "manifests", "r.csv"), tickets); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(synced, data) {
		t.Fatalf("synced %q, not the data directory %s (the manifests directory's entry)", synced, data)
	}
}
