package rngd

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"tirage.fr/tirage/verifier/record"
)

// putRequests stores the replies of requests "<prefix>i" for i in [from,
// to), 1,000 to a transaction, their reply the request id.
func putRequests(t *testing.T, st *store, prefix string, from, to int, at time.Time) {
	t.Helper()
	for i := from; i < to; i += 1000 {
		err := st.db.Update(func(tx *bolt.Tx) error {
			for j := i; j < min(i+1000, to); j++ {
				id := fmt.Sprint(prefix, j)
				if err := st.putRequest(tx, record.RequestID("gs", id), storedRequest{digest: [32]byte{byte(j)}, at: at.Unix(), reply: []byte(id)}); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// putIndexed stores the replies of putRequests, then writes them as runs.
func putIndexed(t *testing.T, st *store, prefix string, from, to int, at time.Time) {
	t.Helper()
	putRequests(t, st, prefix, from, to, at)
	if err := st.flushRequests(t.Context(), 1); err != nil {
		t.Fatal(err)
	}
}

// mustOpenStore opens the state store at path.
func mustOpenStore(t *testing.T, path string) *store {
	t.Helper()
	st, err := openStore(path)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// wantReplies checks that the requests "<prefix>i", i in [from, to), have
// the reply want(i) ("" for none).
func wantReplies(t *testing.T, st *store, prefix string, from, to int, want func(i int) string) {
	t.Helper()
	bad := 0
	for i := from; i < to && bad < 5; i++ {
		id := fmt.Sprint(prefix, i)
		r, ok, err := st.request(record.RequestID("gs", id))
		switch w := want(i); {
		case err != nil:
			t.Errorf("%s: %v", id, err)
			bad++
		case w == "" && ok:
			t.Errorf("%s: found %q, want none", id, r.reply)
			bad++
		case w != "" && (!ok || string(r.reply) != w):
			t.Errorf("%s: %q %v, want %q", id, r.reply, ok, w)
			bad++
		}
	}
}

// recentCount is the number of replies the index holds in memory.
func recentCount(st *store) int {
	st.mu.Lock()
	defer st.mu.Unlock()
	return len(st.reqs.recent)
}

// The request index holds the replies in runs once there are enough of
// them, the rest in memory, and finds every one, before and after a
// reopen: a request stored again has its latest reply, in memory or in a
// newer run, and merges keep it; pruned replies are dropped by merges and
// not found; the others are.
func TestRequestIndex(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	st, err := openStore(path)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	const n = 3*requestFlush + 1234
	putRequests(t, st, "a-", 0, n, t0)
	// Stored again later: the first requestFlush of them.
	again := func(i int) bool { return i < requestFlush }
	err = st.db.Update(func(tx *bolt.Tx) error {
		for i := range requestFlush {
			id := fmt.Sprint("a-", i)
			if err := st.putRequest(tx, record.RequestID("gs", id), storedRequest{at: t0.Add(time.Hour).Unix(), reply: []byte("again " + id)}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	reply := func(i int) string {
		if again(i) {
			return fmt.Sprint("again a-", i)
		}
		return fmt.Sprint("a-", i)
	}
	wantReplies(t, st, "a-", 0, n, reply)
	if err := st.close(); err != nil {
		t.Fatal(err)
	}
	if st, err = openStore(path); err != nil {
		t.Fatal(err)
	}
	if got := st.reqs.x.Count(); got == 0 {
		t.Error("no run after a reopen")
	}
	if got := recentCount(st); got >= requestFlush {
		t.Errorf("%d replies in memory after a reopen, want fewer than %d", got, requestFlush)
	}
	wantReplies(t, st, "a-", 0, n, reply)
	wantReplies(t, st, "b-", 0, 100, func(int) string { return "" })

	// The first replies pruned (all but those stored again later), then
	// the runs merged into one: the pruned ones are dropped from it.
	if got, err := st.pruneRequests(t0.Add(time.Second), n); err != nil || got != n {
		t.Fatalf("pruned %d, want %d: %v", got, n, err)
	}
	putRequests(t, st, "c-", 0, 2*requestFlush, t0.Add(2*time.Hour))
	if err := st.flushRequests(t.Context(), 1); err != nil {
		t.Fatal(err)
	}
	if err := st.reqs.x.Compact(t.Context()); err != nil {
		t.Fatal(err)
	}
	wantReplies(t, st, "a-", 0, n, func(i int) string {
		if again(i) {
			return reply(i)
		}
		return ""
	})
	wantReplies(t, st, "c-", 0, 2*requestFlush, func(i int) string { return fmt.Sprint("c-", i) })
	st.close()
}

// An index that is not its store's is not used: one of another state.db
// (moved aside, the store rebuilt) is removed, and one covering replies the
// store does not have (a copy of state.db put back) is rebuilt from the
// store; neither answers a request from the other store's replies.
func TestRequestIndexOfAnotherStore(t *testing.T) {
	dir, t0 := t.TempDir(), time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	path := filepath.Join(dir, "state.db")
	storeInRuns(t, path, requestFlush, t0)
	copyFile(t, path, path+".copy")
	st := mustOpenStore(t, path)
	// Replies the copy does not have, in runs.
	putIndexed(t, st, "b-", 0, 2*requestFlush, t0)
	st.close()

	t.Run("copy put back", func(t *testing.T) {
		copyFile(t, path+".copy", path)
		st, err := openStore(path)
		if err != nil {
			t.Fatal(err)
		}
		defer st.close()
		// New replies take the seqs the index gave b- replies.
		putRequests(t, st, "c-", 0, 2*requestFlush, t0)
		wantReplies(t, st, "a-", 0, requestFlush, func(i int) string { return fmt.Sprint("a-", i) })
		wantReplies(t, st, "b-", 0, 2*requestFlush, func(int) string { return "" })
		wantReplies(t, st, "c-", 0, 2*requestFlush, func(i int) string { return fmt.Sprint("c-", i) })
	})
	t.Run("another store", func(t *testing.T) {
		if err := os.Rename(path, path+".aside"); err != nil {
			t.Fatal(err)
		}
		st, err := openStore(path)
		if err != nil {
			t.Fatal(err)
		}
		defer st.close()
		des, _ := os.ReadDir(dir)
		var indexes []string
		for _, de := range des {
			if strings.HasPrefix(de.Name(), requestIndexPrefix) {
				indexes = append(indexes, de.Name())
			}
		}
		if len(indexes) != 1 {
			t.Errorf("request indexes in the data directory: %v, want the new store's alone", indexes)
		}
		wantReplies(t, st, "a-", 0, requestFlush, func(int) string { return "" })
		wantReplies(t, st, "c-", 0, 100, func(int) string { return "" })
	})
}

// storeInRuns makes the store at path with the replies of requests "a-i",
// i in [0, n), indexed in runs, and closes it.
func storeInRuns(t *testing.T, path string, n int, at time.Time) {
	t.Helper()
	st := mustOpenStore(t, path)
	defer st.close()
	putIndexed(t, st, "a-", 0, n, at)
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// A run of the index that does not match its checksum fails the lookups
// that read it — never "no such request", which would let a retry draw
// again — and the next flush removes it and indexes its replies again from
// the store, after which they are found.
func TestRequestIndexDamagedRun(t *testing.T) {
	dir, t0 := t.TempDir(), time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	path := filepath.Join(dir, "state.db")
	storeInRuns(t, path, requestFlush, t0)
	// Damaged once the store is open: a repair at open (its flush, after
	// the run's filter was built in the background and found the damage)
	// would leave no lookup to fail.
	st, err := openStore(path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.close()
	runs, _ := filepath.Glob(filepath.Join(dir, requestIndexPrefix+"*", "*"))
	if len(runs) != 1 {
		t.Fatalf("runs: %v, want one", runs)
	}
	b, err := os.ReadFile(runs[0])
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(runs[0], os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(b)/2; i += 4096 {
		// An entry of every block of the first half, in place.
		if _, err := f.WriteAt([]byte{b[i+100] ^ 1}, int64(i+100)); err != nil {
			t.Fatal(err)
		}
	}
	f.Close()
	failed := 0
	for i := range requestFlush {
		r, ok, err := st.request(record.RequestID("gs", fmt.Sprint("a-", i)))
		switch {
		case err != nil:
			failed++
		case !ok || string(r.reply) != fmt.Sprint("a-", i):
			t.Fatalf("a-%d: %q %v, want its reply or an error", i, r.reply, ok)
		}
	}
	if failed == 0 {
		t.Fatal("no lookup failed on the damaged run")
	}
	if err := st.flushRequests(t.Context(), requestFlush); err != nil {
		t.Fatal(err)
	}
	wantReplies(t, st, "a-", 0, requestFlush, func(i int) string { return fmt.Sprint("a-", i) })
}

// Two copies of one state.db that went on apart (a copy put back and run,
// then the other put back) give the same seqs to other requests: the
// index one of them left is not the other's, though it covers no seq the
// other lacks. It was kept, and a request the other stored under a seq
// the index gave another request was not found (its retry would draw
// again).
func TestRequestIndexOfDivergedCopy(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	st := mustOpenStore(t, path)
	t0 := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	putRequests(t, st, "a-", 0, requestFlush, t0)
	st.close()
	copyFile(t, path, path+".copy")
	// The store goes on: b- in the seqs [requestFlush, 2*requestFlush).
	st = mustOpenStore(t, path)
	putIndexed(t, st, "b-", 0, requestFlush, t0)
	st.close()
	copyFile(t, path, path+".b")
	// The copy put back goes on: c- in the same seqs, indexed.
	copyFile(t, path+".copy", path)
	st = mustOpenStore(t, path)
	putIndexed(t, st, "c-", 0, requestFlush, t0)
	st.close()
	// The other put back.
	copyFile(t, path+".b", path)
	st = mustOpenStore(t, path)
	defer st.close()
	wantReplies(t, st, "a-", 0, requestFlush, func(i int) string { return fmt.Sprint("a-", i) })
	wantReplies(t, st, "b-", 0, requestFlush, func(i int) string { return fmt.Sprint("b-", i) })
	wantReplies(t, st, "c-", 0, 100, func(int) string { return "" })
}

// A lookup waiting for the index (a damaged run being replaced: its mu held
// while the flush reads request-log) does not hold a read transaction of
// state.db meanwhile: a commit that grows the file waits for every read
// transaction to end before it maps the file again, and the read the flush
// then begins waits behind that commit (sync.RWMutex), so that the lookup,
// the commit and the flush all waited for one another, the store's writer
// with them. Here the test holds the index's mu as the flush does.
func TestRequestLookupHoldsNoReadWhileIndexRepaired(t *testing.T) {
	st := mustOpenStore(t, filepath.Join(t.TempDir(), "state.db"))
	defer st.close()
	q := st.reqs
	q.mu.Lock()
	locked := true
	defer func() {
		if locked {
			q.mu.Unlock()
		}
	}()
	looked := make(chan error, 1)
	go func() {
		_, _, err := st.request(record.RequestID("gs", "a-1"))
		looked <- err
	}()
	time.Sleep(100 * time.Millisecond) // the lookup waits for q.mu
	grown := make(chan error, 1)
	go func() {
		grown <- st.db.Update(func(tx *bolt.Tx) error {
			b, err := tx.CreateBucketIfNotExists([]byte("test-growth"))
			if err != nil {
				return err
			}
			return b.Put([]byte("k"), make([]byte, 8<<20)) // the file grows
		})
	}()
	time.Sleep(100 * time.Millisecond) // the commit waits to map the file again
	// What the flush does next, q.mu held: read request-log.
	read := make(chan error, 1)
	go func() { read <- st.db.View(func(*bolt.Tx) error { return nil }) }()
	select {
	case err := <-read:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		q.mu.Unlock()
		locked = false
		<-read
		t.Fatal("a read of state.db waited for a lookup waiting for the index: deadlock")
	}
	if err := <-grown; err != nil {
		t.Fatal(err)
	}
	q.mu.Unlock()
	locked = false
	if err := <-looked; err != nil {
		t.Fatal(err)
	}
}

// A reply stored first with a time ahead of the others (a clock set
// forward, then back) holds up none of the index's merges either: they
// drop the entries of the replies pruned after it, as they drop those of
// replies pruned in order, and keep its own. Merges dropped only the seqs
// below the first one request-log still held, that reply's: the index kept
// the entry of every reply stored after it, on disk and in its filters,
// until its time came.
func TestPruneRequestsIndexAhead(t *testing.T) {
	st := mustOpenStore(t, filepath.Join(t.TempDir(), "state.db"))
	defer st.close()
	t0 := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	ahead := record.RequestID("gs", "ahead")
	err := st.db.Update(func(tx *bolt.Tx) error {
		return st.putRequest(tx, ahead, storedRequest{at: t0.AddDate(1, 0, 0).Unix(), reply: []byte("ahead")})
	})
	if err != nil {
		t.Fatal(err)
	}
	putIndexed(t, st, "old-", 0, requestFlush, t0.AddDate(0, 0, -200))
	if got, err := st.pruneRequests(t0.AddDate(0, 0, -100), 2*requestFlush); err != nil || got != requestFlush {
		t.Fatalf("pruned %d, want %d: %v", got, requestFlush, err)
	}
	// A run as large, which the next compaction merges with the first.
	putIndexed(t, st, "new-", 0, requestFlush, t0)
	if err := st.reqs.x.Compact(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got := st.reqs.x.Count(); got != 1 {
		t.Fatalf("%d runs after the compaction, want 1", got)
	}
	kept := 0
	for i := range requestFlush {
		if _, ok, err := st.reqs.x.Lookup(record.RequestID("gs", fmt.Sprint("old-", i))); err != nil {
			t.Fatal(err)
		} else if ok {
			kept++
		}
	}
	if kept > 0 {
		t.Errorf("the merged run holds %d of the %d pruned replies, want none", kept, requestFlush)
	}
	if r, ok, err := st.request(ahead); err != nil || !ok || string(r.reply) != "ahead" {
		t.Errorf("the reply stored ahead: %q %v %v", r.reply, ok, err)
	}
	wantReplies(t, st, "old-", 0, requestFlush, func(int) string { return "" })
	wantReplies(t, st, "new-", 0, requestFlush, func(i int) string { return fmt.Sprint("new-", i) })
}
