package rngd

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

var bucketTest = []byte("test")

// lingering opens a bbolt file with a writer that lets batches linger.
func lingering(t *testing.T, linger time.Duration) *writer {
	t.Helper()
	db, err := bolt.Open(filepath.Join(t.TempDir(), "w.db"), 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Update(func(tx *bolt.Tx) error { _, err := tx.CreateBucket(bucketTest); return err }); err != nil {
		t.Fatal(err)
	}
	w := &writer{db: db, linger: linger}
	w.start()
	t.Cleanup(func() { w.close() })
	return w
}

// put is a change writing key i.
func put(i int) storeWrite {
	return storeWrite{fn: func(tx *bolt.Tx) error {
		return tx.Bucket(bucketTest).Put(fmt.Appendf(nil, "k%05d", i), []byte{1})
	}}
}

// committed counts the keys in the file.
func committed(t *testing.T, db *bolt.DB) int {
	t.Helper()
	n := 0
	db.View(func(tx *bolt.Tx) error { n = tx.Bucket(bucketTest).Stats().KeyN; return nil })
	return n
}

// within fails the test unless fn returns within d (a writer that does not
// commit would hang it).
func within(t *testing.T, d time.Duration, what string, fn func() error) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- fn() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	case <-time.After(d):
		t.Fatalf("%s: not done after %v", what, d)
	}
}

// A change nobody waits for lingers: it is not committed until a sync, a
// waiting change or close asks for it, and then with everything queued
// before, in order.
func TestWriterLingers(t *testing.T) {
	w := lingering(t, time.Hour)
	for i := range 10 {
		if err := w.hand(put(i), false, nil); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(100 * time.Millisecond)
	if n := committed(t, w.db); n != 0 {
		t.Fatalf("%d changes committed while lingering, want 0", n)
	}
	within(t, 10*time.Second, "sync", w.sync)
	if n := committed(t, w.db); n != 10 {
		t.Fatalf("%d changes committed after sync, want 10", n)
	}

	// A waiting change takes the lingering ones with it.
	for i := range 5 {
		if err := w.hand(put(100+i), false, nil); err != nil {
			t.Fatal(err)
		}
	}
	within(t, 10*time.Second, "waiting change", func() error { return w.hand(put(200), true, nil) })
	if n := committed(t, w.db); n != 16 {
		t.Fatalf("%d changes committed after a waiting one, want 16", n)
	}

	// Close commits what lingers.
	if err := w.hand(put(300), false, nil); err != nil {
		t.Fatal(err)
	}
	path := w.db.Path()
	within(t, 10*time.Second, "close", w.close)
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if n := committed(t, db); n != 17 {
		t.Fatalf("%d changes in the file after close, want 17", n)
	}
}

// A lingering batch is committed once it is linger old, or lingerMax long,
// with nobody asking.
func TestWriterLingerDue(t *testing.T) {
	t.Run("age", func(t *testing.T) {
		w := lingering(t, 20*time.Millisecond)
		if err := w.hand(put(1), false, nil); err != nil {
			t.Fatal(err)
		}
		waitCommitted(t, w, 1)
	})
	t.Run("length", func(t *testing.T) {
		w := lingering(t, time.Hour)
		for i := range lingerMax {
			if err := w.hand(put(i), false, nil); err != nil {
				t.Fatal(err)
			}
		}
		waitCommitted(t, w, lingerMax)
	})
}

func waitCommitted(t *testing.T, w *writer, want int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		n := committed(t, w.db)
		if n == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d changes committed after 10 s, want %d", n, want)
		}
	}
}

// A game's calls in one batch write its state once, the last one handed
// over, whatever the order of the batch's games.
func TestStoreGameOncePerBatch(t *testing.T) {
	st, err := openStore(filepath.Join(t.TempDir(), "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.close()
	st.linger = time.Hour
	for seq := uint32(1); seq <= 5; seq++ {
		for _, id := range []string{"g1", "g2"} {
			g := &storedGame{Server: "gs", Records: seq}
			g.Game.ID = id
			if id == "g2" {
				g.Records = 10 - seq
			}
			if err := st.write(storeWrite{game: g, fn: func(*bolt.Tx) error { return nil }}, nil, false); err != nil {
				t.Fatal(err)
			}
		}
	}
	st.mu.Lock()
	queued := len(st.queue)
	st.mu.Unlock()
	if queued != 10 {
		t.Fatalf("%d changes queued, want the 10 lingering", queued)
	}
	err = st.view(func(tx *bolt.Tx) error {
		for id, want := range map[string]uint32{"g1": 5, "g2": 5} {
			var g storedGame
			if ok, err := getStoredGame(tx, []byte(id), &g); err != nil || !ok {
				return fmt.Errorf("game %s: found %v, %v", id, ok, err)
			}
			if g.Records != want {
				return fmt.Errorf("game %s stored with %d records, want the last state's %d", id, g.Records, want)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
