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
