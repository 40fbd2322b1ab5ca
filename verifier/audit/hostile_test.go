package audit_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"tirage.fr/tirage/verifier/audit"
	"tirage.fr/tirage/verifier/checkpoint"
	"tirage.fr/tirage/verifier/receipt/receipttest"
	"tirage.fr/tirage/verifier/record"
	"tirage.fr/tirage/verifier/verdict"
	"tirage.fr/tirage/verifier/vrf"
)

// heapInuse is the heap in use after a collection.
func heapInuse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}

// held audits a's log as cfg says (its Fetch, LogKeys, Location and Now
// filled in when unset) and returns the result with the heap the audit
// held when it had read the last entry, before it finished (the open
// games and undrawn freezes are all held then), above what was in use
// before it started.
func held(t *testing.T, a *receipttest.Appliance, cfg audit.Config) (*audit.Result, uint64) {
	t.Helper()
	keys, err := checkpoint.ParseKeys(string(a.LogKeyFile()))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Fetch == nil {
		cfg.Fetch = files(a.Tiles())
	}
	cfg.LogKeys, cfg.Location, cfg.Now, cfg.Workers = keys, a.Location, clock(a), 2
	base := heapInuse()
	var peak uint64
	cfg.Progress = func(done, total int64) {
		if done == total {
			peak = heapInuse()
		}
	}
	res, err := audit.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if peak < base {
		return res, 0
	}
	return res, peak - base
}

const mib = 1 << 20

// fresh serves a log's files as a server does: each read a new buffer
// (files hands out the test's own, which it holds anyway).
type fresh files

func (f fresh) Fetch(ctx context.Context, path string) ([]byte, error) {
	b, err := files(f).Fetch(ctx, path)
	return bytes.Clone(b), err
}

// TestAuditKeysTimesFreezes is the reviewer's log: 2,000 VRF key ids (the
// same bytes, ten records of 200) then 10,000 freezes that name no key,
// never drawn. Each freeze kept its own sorted list of the 2,000 ids
// until its draw: a 3.5 MB log held about 400 MiB. The freezes now share
// the keys announced before them.
func TestAuditKeysTimesFreezes(t *testing.T) {
	a := logWith(t, 0, nil)
	pub := a.VRF.Public().Bytes()
	for r := range 10 {
		var ks []record.Key
		for i := range 200 {
			ks = append(ks, record.Key{ID: fmt.Sprintf("k-%02d-%03d", r, i), Use: "vrf", Suite: string(vrf.SuiteP256SSWU), PublicKey: pub, Fingerprint: record.Fingerprint(pub)})
		}
		a.Append(mustFormat(t, &record.KeyAnnouncement{Time: a.Now, Keys: ks}))
	}
	for i := range 10000 {
		a.Append(mustFormat(t, &record.PromoFreeze{Time: a.Now, Draw: fmt.Sprintf("d-%06d", i), Promotion: "p", Count: 10, Winners: 1}))
	}
	res, n := held(t, a, audit.Config{})
	t.Logf("%d entries, held %d MiB", a.Size(), n/mib)
	if n > 64*mib {
		t.Errorf("the audit held %d MiB for 10,000 undrawn freezes after 2,000 key ids", n/mib)
	}
	if v := res.Verdict; v.Status() != verdict.StatusPass {
		t.Errorf("verdict:\n%s", v.Text("en"))
	}
}

// manyKeysLog is a log announcing records × per VRF key ids (the same
// key), then a draw frozen after them all.
func manyKeysLog(t testing.TB, records, per int) *receipttest.Appliance {
	a := logWith(t, 0, nil)
	pub := a.VRF.Public().Bytes()
	for r := range records {
		var ks []record.Key
		for i := range per {
			ks = append(ks, record.Key{ID: fmt.Sprintf("k-%05d-%03d", r, i), Use: "vrf", Suite: string(vrf.SuiteP256SSWU), PublicKey: pub, Fingerprint: record.Fingerprint(pub)})
		}
		a.Append(mustFormat(t, &record.KeyAnnouncement{Time: a.Now, Keys: ks}))
	}
	if _, err := a.PromoDrawWith("d1", 20, receipttest.PromoCheat{}); err != nil {
		t.Fatal(err)
	}
	return a
}

// TestAuditManyKeys: every key id announced counts, in few large records
// or many small ones. (The time it takes is BenchmarkAuditManyKeys's.)
func TestAuditManyKeys(t *testing.T) {
	for _, tc := range []struct{ records, per int }{{15, 200}, {2000, 1}} {
		res, _ := held(t, manyKeysLog(t, tc.records, tc.per), audit.Config{})
		c := res.Verdict.Find(verdict.CheckVRFKey)
		if c == nil || c.Status != verdict.StatusPass || !strings.Contains(c.Detail, fmt.Sprint(tc.records*tc.per+1)) {
			t.Errorf("vrf-key check: %+v", c)
		}
	}
}

// BenchmarkAuditManyKeys: 30,000 VRF key ids announced in 150 records
// copied the whole key map once per key (10.7 s on 2026-12-03's machine);
// then one key per record, 20,000 records, which a copy per record would
// make quadratic too (7.0 s). Each key is now added once, in place
// (0.58 s and 0.37 s).
func BenchmarkAuditManyKeys(b *testing.B) {
	for _, tc := range []struct{ records, per int }{{150, 200}, {20000, 1}} {
		b.Run(fmt.Sprintf("%dx%d", tc.records, tc.per), func(b *testing.B) {
			a := manyKeysLog(b, tc.records, tc.per)
			for b.Loop() {
				if _, err := audit.Run(context.Background(), benchConfig(b, a, nil)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestAuditUnboundFreezeListsFirstIDs: a freeze naming no key after
// several were announced fails its draw, which names how many keys and
// the first ids (sorted), not every one.
func TestAuditUnboundFreezeListsFirstIDs(t *testing.T) {
	a := logWith(t, 0, nil)
	pub := a.VRF.Public().Bytes()
	var ks []record.Key
	for i := range 40 {
		ks = append(ks, record.Key{ID: fmt.Sprintf("k-%03d", 39-i), Use: "vrf", Suite: string(vrf.SuiteP256SSWU), PublicKey: pub, Fingerprint: record.Fingerprint(pub)})
	}
	a.Append(mustFormat(t, &record.KeyAnnouncement{Time: a.Now, Keys: ks}))
	if _, err := a.PromoDrawWith("d1", 20, receipttest.PromoCheat{Legacy: true}); err != nil {
		t.Fatal(err)
	}
	res, _ := held(t, a, audit.Config{})
	c := res.Verdict.Find(verdict.CheckPromotions)
	if c == nil || c.Status != verdict.StatusFail || !strings.Contains(c.Detail, `41 VRF keys were announced before it ("k-000", "k-001", "k-002", "k-003", "k-004", …)`) {
		t.Errorf("promotions check: %+v", c)
	}
}

// TestAuditOpenGameBundles is the reviewer's log: 20 bundles, each
// holding a game left open after one pick and about 250 junk entries of
// 60 KB. A kept leaf was a slice of its bundle: 262 MiB held to the end
// of the audit. The audit now keeps a copy.
func TestAuditOpenGameBundles(t *testing.T) {
	a := logWith(t, 0, nil)
	junk := bytes.Repeat([]byte("x"), 60000)
	for i := range 20 {
		if _, err := a.PlayGame(receipttest.Play{Game: fmt.Sprintf("open-%02d", i), Unfinished: 1}); err != nil {
			t.Fatal(err)
		}
		for a.Size()%256 != 0 {
			a.Append(junk)
		}
	}
	res, n := held(t, a, audit.Config{Fetch: fresh(a.Tiles())})
	t.Logf("%d entries, held %d MiB", a.Size(), n/mib)
	if n > 64*mib {
		t.Errorf("the audit held %d MiB for 20 open games", n/mib)
	}
	if res.Games != 20 {
		t.Errorf("games %d, want 20", res.Games)
	}
}

// TestAuditGameTooLong: a game with more records than the rules allow one
// (its start, 18 picks, 3 decisions, its end: 23) is misbehaviour, named
// as such, and its records past them are not kept: here 100,000 copies of
// its one pick, the game left open.
func TestAuditGameTooLong(t *testing.T) {
	a := logWith(t, 0, nil)
	g, err := a.PlayGame(receipttest.Play{Game: "long", Unfinished: 1})
	if err != nil {
		t.Fatal(err)
	}
	pick := a.Leaf(g.Indices[1])
	for range 100000 {
		a.Append(pick)
	}
	res, n := held(t, a, audit.Config{Fetch: fresh(a.Tiles())})
	t.Logf("held %d MiB", n/mib)
	v := res.Verdict
	c := v.Find(verdict.CheckGames)
	if c == nil || c.Status != verdict.StatusMisbehaviour || !strings.Contains(c.Detail, "game long: rules: entry 26 is one record more than the rules allow a game (23:") {
		t.Fatalf("games check:\n%s", v.Text("en"))
	}
	if !strings.Contains(v.Text("fr"), "un enregistrement de plus que ce que le règlement permet") {
		t.Errorf("French:\n%s", v.Text("fr"))
	}
	if n > 16*mib {
		t.Errorf("the audit held %d MiB for one game's 100,000 records", n/mib)
	}
}

// TestAuditMalformedCounted: 300,000 malformed one-byte entries are
// counted, their first messages kept (every message was: 52 MiB for
// 200,000).
func TestAuditMalformedCounted(t *testing.T) {
	a := logWith(t, 0, nil)
	for range 300000 {
		a.Append([]byte("{"))
	}
	res, n := held(t, a, audit.Config{Fetch: fresh(a.Tiles())})
	t.Logf("held %d MiB", n/mib)
	if n > 24*mib {
		t.Errorf("the audit held %d MiB for 300,000 malformed entries", n/mib)
	}
	c := res.Verdict.Find(verdict.CheckRecord)
	if c == nil || c.Status != verdict.StatusMisbehaviour || !strings.HasPrefix(c.Detail, "300000 malformed: ") {
		t.Errorf("record check: %+v", c)
	}
}

// manifestAgainLog is a log of n records of manifest m's root, then n
// starts of tickets in no file.
func manifestAgainLog(t testing.TB, m *audit.Manifest, n int) *receipttest.Appliance {
	a := logWith(t, 0, nil)
	for range n {
		a.Append(mustFormat(t, &record.Manifest{Time: a.Now, Emission: "E1", Root: m.Root, Count: m.Count, Total: m.Total}))
	}
	for i := range n {
		a.Append(mustFormat(t, &record.GameStart{Time: a.Now, Game: fmt.Sprintf("s-%05d", i), Emission: "E1",
			Ticket: sha256.Sum256(fmt.Appendf(nil, "not manifested %d", i)), Stake: 1000, Multipliers: [4]int{2, 2, 2, 2},
			Amounts: [4]int64{2000, 4000, 8000, 16000}, Expires: a.Now.Add(30 * 24 * time.Hour)}))
	}
	return a
}

// TestAuditManifestRecordsAgain: a manifest file whose root 2,000 records
// repeat, then 2,000 starts of tickets in no file: the file is named once
// (it was once per record). (The time it takes is
// BenchmarkAuditManifestRecordsAgain's.)
func TestAuditManifestRecordsAgain(t *testing.T) {
	m := readManifest(t, "m.csv", tickets("E1", "again", 3))
	res, _ := held(t, manifestAgainLog(t, m, 2000), audit.Config{Manifests: []*audit.Manifest{m}})
	c := res.Verdict.Find(verdict.CheckGames)
	if c == nil || c.Status != verdict.StatusMisbehaviour || !strings.Contains(c.Detail, "in none of the 2000 manifest(s) of emission \"E1\" logged before it, all given (m.csv): ") {
		t.Errorf("games check: %.600s", c.Detail)
	}
}

// BenchmarkAuditManifestRecordsAgain: 20,000 records of one manifest and
// 20,000 starts in no file. Every start walked every record (quadratic:
// 38.3 s for 30,000 of each on 2026-12-03's machine, 2.3 s once a file
// was checked once).
func BenchmarkAuditManifestRecordsAgain(b *testing.B) {
	m := readManifest(b, "m.csv", tickets("E1", "again", 3))
	a := manifestAgainLog(b, m, 20000)
	for b.Loop() {
		if _, err := audit.Run(context.Background(), benchConfig(b, a, []*audit.Manifest{m})); err != nil {
			b.Fatal(err)
		}
	}
}

// cancelling serves a's tiles and, once armed, cancels the audit when it
// fetches a path with prefix at.
type cancelling struct {
	a      *receipttest.Appliance
	armed  *bool
	at     string
	cancel context.CancelFunc
}

func (c cancelling) Fetch(ctx context.Context, path string) ([]byte, error) {
	if *c.armed && strings.HasPrefix(path, c.at) {
		c.cancel()
		return nil, fmt.Errorf("%s: %w", path, ctx.Err())
	}
	return files(c.a.Tiles()).Fetch(ctx, path)
}

// TestAuditFollowInterrupted: Ctrl-C while a followed checkpoint is read
// (its checkpoint, its tiles or its entries) ends following cleanly — the
// verdict passes and covers the checkpoints followed in full, with the
// proof from the trusted one — where it failed the audit ("audit
// stopped"), and the state was not saved. During the first pass the
// audit stays incomplete: an error.
func TestAuditFollowInterrupted(t *testing.T) {
	for _, at := range []string{"checkpoint", "tile/0/", "tile/entries/"} {
		t.Run(at, func(t *testing.T) {
			a := logWith(t, 3, nil)
			keys, _ := checkpoint.ParseKeys(string(a.LogKeyFile()))
			first, _ := checkpoint.Open(a.CheckpointAt(a.Size()-2), keys)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			armed, rounds, sizes := false, 0, []int64{}
			res, err := audit.Run(ctx, audit.Config{Fetch: cancelling{a, &armed, at, cancel}, LogKeys: keys, Last: first, Follow: time.Hour, Location: a.Location,
				Now: clock(a), Wait: func(ctx context.Context, _ time.Duration) error {
					rounds++
					sizes = append(sizes, a.Size())
					if _, err := a.PlayGame(receipttest.Play{Game: fmt.Sprintf("more-%d", rounds), StopAt: 1}); err != nil {
						t.Fatal(err)
					}
					armed = rounds == 2
					return nil
				}})
			if err != nil {
				t.Fatalf("interrupted while following: %v", err)
			}
			if v := res.Verdict; v.Status() != verdict.StatusPass || res.Followed != 1 || res.Checkpoint.Size != sizes[1] {
				t.Fatalf("followed %d, checkpoint %d (want %d):\n%s", res.Followed, res.Checkpoint.Size, sizes[1], v.Text("en"))
			}
			if err := checkpoint.Consistent(first, res.Checkpoint, res.Proof); err != nil {
				t.Errorf("proof for the trust state: %v", err)
			}
		})
	}
	// The first pass.
	a := logWith(t, 3, nil)
	keys, _ := checkpoint.ParseKeys(string(a.LogKeyFile()))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	armed := true
	_, err := audit.Run(ctx, audit.Config{Fetch: cancelling{a, &armed, "tile/entries/", cancel}, LogKeys: keys, Follow: time.Hour, Location: a.Location, Now: clock(a)})
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "audit stopped after 0 of") {
		t.Errorf("interrupted in the first pass: %v", err)
	}
}

// benchConfig audits a's log as held does, without its heap readings.
func benchConfig(b *testing.B, a *receipttest.Appliance, ms []*audit.Manifest) audit.Config {
	keys, err := checkpoint.ParseKeys(string(a.LogKeyFile()))
	if err != nil {
		b.Fatal(err)
	}
	return audit.Config{Fetch: files(a.Tiles()), LogKeys: keys, Location: a.Location, Now: clock(a), Workers: 2, Manifests: ms}
}
