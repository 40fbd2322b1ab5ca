package rngd

import (
	"path/filepath"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"tirage.fr/tirage/verifier/record"
)

// Stored replies older than the retention are pruned; newer ones stay and
// read back intact.
func TestPruneRequests(t *testing.T) {
	st, err := openStore(filepath.Join(t.TempDir(), "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.close()
	t0 := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	err = st.db.Update(func(tx *bolt.Tx) error {
		for i, id := range []string{"old-1", "old-2", "new"} {
			at := t0.AddDate(0, 0, -200)
			if id == "new" {
				at = t0
			}
			if err := putRequest(tx, record.RequestID("gs", id), storedRequest{digest: [32]byte{byte(i)}, at: at.Unix(), reply: []byte(id)}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n, err := st.pruneRequests(t0.AddDate(0, 0, -100), 1); err != nil || n != 1 {
		t.Fatalf("pruned %d (limit 1): %v", n, err)
	}
	if n, err := st.pruneRequests(t0.AddDate(0, 0, -100), 10); err != nil || n != 1 {
		t.Fatalf("pruned %d: %v", n, err)
	}
	st.db.View(func(tx *bolt.Tx) error {
		for _, id := range []string{"old-1", "old-2"} {
			if _, ok := getRequest(tx, record.RequestID("gs", id)); ok {
				t.Errorf("%s not pruned", id)
			}
		}
		r, ok := getRequest(tx, record.RequestID("gs", "new"))
		if !ok || string(r.reply) != "new" || r.digest[0] != 2 || r.at != t0.Unix() {
			t.Errorf("new request: %+v %v", r, ok)
		}
		return nil
	})
}
