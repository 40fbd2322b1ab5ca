package audit_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"strings"
	"testing"

	"golang.org/x/mod/sumdb/tlog"

	"tirage.fr/tirage/verifier/audit"
	"tirage.fr/tirage/verifier/checkpoint"
	"tirage.fr/tirage/verifier/receipt/receipttest"
	"tirage.fr/tirage/verifier/record"
	"tirage.fr/tirage/verifier/verdict"
)

// flipEntry is f with one byte of entry n's leaf changed in its entry
// bundle: bytes that no longer match the signed tree.
func flipEntry(t *testing.T, f files, size int64, n int64) files {
	t.Helper()
	out := files{}
	for p, b := range f {
		out[p] = b
	}
	start := n / 256 * 256
	end := min(start+256, size)
	p := receipttest.TilePath(tlogTile(start, end))
	b := append([]byte(nil), out[p]...)
	i := 0
	for k := start; k < n; k++ {
		i += 2 + int(binary.BigEndian.Uint16(b[i:]))
	}
	l := int(binary.BigEndian.Uint16(b[i:]))
	b[i+2+l/2] ^= 0x01
	out[p] = b
	return out
}

// TestAuditAnyEntryRefused: an honest log whose entry bundles are served
// with any one entry altered (a mirror, a proxy, the transport: bundles are
// not signed) is never MISBEHAVIOUR — the entries check fails, and what
// rests on the entry missing is not proof — whatever the entry is: a VRF
// key announcement, an emission, a manifest, a game's start, pick or end,
// a promotion's freeze or draw.
func TestAuditAnyEntryRefused(t *testing.T) {
	a := logWith(t, 4, nil)
	sk, err := a.AnnounceVRF()
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if _, err := a.PlayGame(receipttest.Play{Game: fmt.Sprintf("h-%03d", i), StopAt: i}); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.PromoDraw("d1", 50, false); err != nil {
		t.Fatal(err)
	}
	keys, err := checkpoint.ParseKeys(string(a.LogKeyFile()))
	if err != nil {
		t.Fatal(err)
	}
	cfg := func(f files) audit.Config {
		return audit.Config{Fetch: f, LogKeys: keys, Workers: 2, Location: a.Location,
			VRFPins: []string{a.VRFFingerprint(), record.Hex(record.Fingerprint(sk.Public().Bytes()))}, Now: clock(a)}
	}
	honest, err := audit.Run(context.Background(), cfg(a.Tiles()))
	if err != nil {
		t.Fatal(err)
	}
	if s := honest.Verdict.Status(); s != verdict.StatusPass {
		t.Fatalf("honest log: %s\n%s", s, honest.Verdict.Text("en"))
	}
	for n := range a.Size() {
		res, err := audit.Run(context.Background(), cfg(flipEntry(t, a.Tiles(), a.Size(), n)))
		if err != nil {
			t.Fatal(err)
		}
		v := res.Verdict
		if s := v.Status(); s != verdict.StatusFail {
			leaf := a.Leaf(uint64(n))
			t.Errorf("entry %d (%.60s…) altered: want FAIL, got %s\n%s", n, leaf, s, v.Text("en"))
		}
	}
}

// tlogTile is the entry bundle of the entries [start, end).
func tlogTile(start, end int64) tlog.Tile {
	return tlog.Tile{H: 8, L: -1, N: start / 256, W: int(end - start)}
}

// TestAuditHashTileAltered: a hash tile served altered (not signed either)
// fails the audit, never MISBEHAVIOUR, wherever the byte changed.
func TestAuditHashTileAltered(t *testing.T) {
	a := logWith(t, 4, nil)
	if err := a.PromoDraw("d1", 50, false); err != nil {
		t.Fatal(err)
	}
	keys, err := checkpoint.ParseKeys(string(a.LogKeyFile()))
	if err != nil {
		t.Fatal(err)
	}
	for p, b := range a.Tiles() {
		if p == "checkpoint" || strings.HasPrefix(p, "tile/entries/") {
			continue
		}
		for _, off := range []int{0, len(b) / 2, len(b) - 1} {
			f := a.Tiles()
			c := append([]byte(nil), b...)
			c[off] ^= 0x01
			f[p] = c
			res, err := audit.Run(context.Background(), audit.Config{Fetch: files(f), LogKeys: keys, Workers: 2, Location: a.Location,
				VRFPins: []string{a.VRFFingerprint()}, Now: clock(a)})
			if err != nil {
				t.Fatal(err)
			}
			v := res.Verdict
			if s := v.Status(); s != verdict.StatusFail {
				t.Errorf("%s byte %d altered: want FAIL, got %s\n%s", p, off, s, v.Text("en"))
			}
		}
	}
}

// TestAuditHashTileReadsOn: a level-0 hash tile served altered leaves its
// entries out, as entries that do not match the tree, and the audit reads
// the entries after it, which later tiles authenticate; before, it
// stopped at that tile, and the entries after it were audited by no check
// while games, promotions and records passed over what had been read.
func TestAuditHashTileReadsOn(t *testing.T) {
	a := logWith(t, 60, nil)
	if a.Size() <= 256 {
		t.Fatalf("log of %d entries does not span two bundles", a.Size())
	}
	f := a.Tiles()
	const p = "tile/0/000" // the hashes of entries 0..255
	b, ok := f[p]
	if !ok {
		t.Fatalf("no tile %s", p)
	}
	b = append([]byte(nil), b...)
	b[100] ^= 0x01
	f[p] = b
	res := run(t, a, f, nil)
	v := res.Verdict
	if c := v.Find(verdict.CheckEntries); v.Status() != verdict.StatusFail || c == nil || c.Status != verdict.StatusFail || !strings.Contains(c.Reason("en"), "entries 0..255: the hash tiles served (tile/0/000") {
		t.Fatalf("altered hash tile: want the entries check to fail naming entries 0..255\n%s", v.Text("en"))
	}
	var after int // game starts read after the altered tile
	for n := int64(256); n < a.Size(); n++ {
		if strings.Contains(string(a.Leaf(uint64(n))), `"kind":"game_start"`) {
			after++
		}
	}
	if after == 0 {
		t.Fatal("no game starts after entry 255")
	}
	if res.Records != a.Size() || res.Games < after {
		t.Errorf("records %d of %d, games %d, want at least the %d started after entry 255:\n%s", res.Records, a.Size(), res.Games, after, v.Text("en"))
	}
	if c := v.Find(verdict.CheckGames); c == nil || c.Status != verdict.StatusFail {
		t.Errorf("games: want FAIL (their key announcement, entry 0, was left out)\n%s", v.Text("en"))
	}
}

// TestAuditKeyAnnouncementRefused: the log's key announcement served
// altered leaves the audit with no VRF key, and its vrf-key row says an
// entry left out may be one, not that the log announces none.
func TestAuditKeyAnnouncementRefused(t *testing.T) {
	a := logWith(t, 2, nil)
	if !strings.Contains(string(a.Leaf(0)), `"kind":"key"`) {
		t.Fatalf("entry 0 is not the key announcement: %.60s", a.Leaf(0))
	}
	res := run(t, a, flipEntry(t, a.Tiles(), a.Size(), 0), nil)
	v := res.Verdict
	c := v.Find(verdict.CheckVRFKey)
	if want := "no VRF key announced in the entries that match the signed tree: entry 0, which may be a key announcement, does not match it and was left out"; v.Status() != verdict.StatusFail || c == nil || c.Status != verdict.StatusSkip || c.Reason("en") != want {
		t.Errorf("key announcement altered: want vrf-key skipped with %q\n%s", want, v.Text("en"))
	}
	if c != nil && !strings.Contains(c.Reason("fr"), "l'entrée 0, qui peut être une annonce des clés") {
		t.Errorf("French: %s", c.Reason("fr"))
	}
}

// TestAuditAnyEntryRefusedManifests: with every manifest file given, a
// start whose ticket is in none is misbehaviour — unless a manifest
// record may be missing: an entry refused before it (the second
// manifest's, altered on the wire) leaves it a failure.
func TestAuditAnyEntryRefusedManifests(t *testing.T) {
	first, second := tickets("E1", "first", 10), tickets("E1", "second", 10)
	m1, m2 := readManifest(t, "first.csv", first), readManifest(t, "second.csv", second)
	a := manifested(t, first, 2)
	a.Append(mustFormat(t, &record.Manifest{Time: a.Now, Emission: "E1", Root: m2.Root, Count: m2.Count, Total: m2.Total}))
	playTicket(t, a, "g-second", second[0].TicketHash, second[0].StakeCents)
	if v := runManifests(t, a, m1, m2); v.Status() != verdict.StatusPass {
		t.Fatalf("honest log:\n%s", v.Text("en"))
	}
	for n := range a.Size() {
		f := flipEntry(t, a.Tiles(), a.Size(), n)
		v := runWith(t, a, func(c *audit.Config) { c.Manifests, c.Fetch, c.Now = []*audit.Manifest{m1, m2}, f, clock(a) })
		if s := v.Status(); s != verdict.StatusFail {
			t.Errorf("entry %d (%.60s…) altered: want FAIL, got %s\n%s", n, a.Leaf(uint64(n)), s, v.Text("en"))
		}
	}
}
