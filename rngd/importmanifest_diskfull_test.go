package rngd

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	adminv1 "tirage.fr/tirage/rngd/api/tirage/admin/v1"
)

// An import whose manifest file cannot be kept (walked on a full disk,
// 2026-12-04: `write …/manifests/<root>.csv.tmp: no space left on device`)
// is refused UNAVAILABLE, MANIFEST_UNAVAILABLE, naming the file's error:
// nothing was imported nor sealed, and the same import, retried once the
// cause is fixed, succeeds without a restart. It was INTERNAL, the reason
// of a bug, which the same call meets again. Here the manifests directory
// is a file (the same write path fails; no root needed to fill a disk).
func TestImportManifestFileUnwritable(t *testing.T) {
	td := newTestDaemon(t)
	ctx := context.Background()
	adm := td.admin()
	em, err := adm.CreateEmission(ctx, &adminv1.CreateEmissionRequest{RequestId: rid(), EmissionId: "EM", ClosureDate: "2099-12-31"})
	if err != nil {
		t.Fatal(err)
	}
	manifests := filepath.Join(td.cfg.DataDir, "manifests")
	if err := os.RemoveAll(manifests); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(manifests, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	_, tickets := DemoTickets("EM", []byte("test seed"), 3)
	_, err = ImportTickets(ctx, adm, "import-1", "EM", tickets)
	wantRefusal(t, err, reasonManifestUnavailable, "couldn't keep the manifest")

	if err := os.Remove(manifests); err != nil {
		t.Fatal(err)
	}
	r, err := ImportTickets(ctx, adm, "import-1", "EM", tickets)
	if err != nil {
		t.Fatalf("the same import retried once the manifests directory is writable: %v", err)
	}
	if r.Count != 3 {
		t.Fatalf("imported %d tickets, want 3", r.Count)
	}
	// The refused import sealed nothing: the retry's record follows the
	// emission's.
	if got, want := r.Receipt.GetLogIndex(), em.Receipt.GetLogIndex()+1; got != want {
		t.Fatalf("the import's record is at log index %d, want %d (the refused import appended a record)", got, want)
	}
}
