package audit_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"tirage.fr/tirage/verifier/audit"
	"tirage.fr/tirage/verifier/checkpoint"
	"tirage.fr/tirage/verifier/receipt/receipttest"
	"tirage.fr/tirage/verifier/verdict"
)

// collected is the log of a checkpointed at size old, then grown past the
// next 256-entry boundary, as tessera's POSIX storage leaves it: every
// size's tiles once written, then each partial tile and bundle whose full
// one exists deleted (its garbage collection, every minute; c2sp.org/tlog-tiles
// lets a log do so). It serves the checkpoint of size old, which names a
// partial level-0 tile and bundle the log deleted (their paths returned).
func collected(t *testing.T, a *receipttest.Appliance) (f files, old int64, hashTile, bundle string) {
	t.Helper()
	old = a.Size()
	if old%256 == 0 {
		t.Fatalf("log of %d entries: no partial tile", old)
	}
	f = files(a.Tiles())
	for i := 0; a.Size() < (old/256+1)*256+10; i++ {
		if _, err := a.PlayGame(receipttest.Play{Game: fmt.Sprintf("later-%03d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	for p, b := range a.Tiles() {
		f[p] = b
	}
	for p := range f {
		if full, _, ok := strings.Cut(p, ".p/"); ok && f[full] != nil {
			delete(f, p)
		}
	}
	f["checkpoint"] = a.CheckpointAt(old)
	hashTile = fmt.Sprintf("tile/0/%03d.p/%d", old/256, old%256)
	bundle = fmt.Sprintf("tile/entries/%03d.p/%d", old/256, old%256)
	for _, p := range []string{hashTile, bundle} {
		if f[p] != nil {
			t.Fatalf("%s not collected", p)
		}
	}
	return f, old, hashTile, bundle
}

// TestAuditCollectedPartialTiles: the checkpoint audited names partial
// tiles the log has deleted since the full ones were written: the audit
// reads the full tile's and bundle's first W hashes and entries, and an
// honest log passes (the consistency proof from a trusted checkpoint read
// the same way).
func TestAuditCollectedPartialTiles(t *testing.T) {
	a := logWith(t, 60, nil)
	keys, err := checkpoint.ParseKeys(string(a.LogKeyFile()))
	if err != nil {
		t.Fatal(err)
	}
	last, err := checkpoint.Open(a.CheckpointAt(a.Size()-300), keys)
	if err != nil {
		t.Fatal(err)
	}
	f, old, _, _ := collected(t, a)
	res := run(t, a, f, last)
	if v := res.Verdict; v.Status() != verdict.StatusPass {
		t.Fatalf("honest log, partial tiles collected:\n%s", v.Text("en"))
	}
	if res.Records != old || res.Games != 60 || res.Proof == nil {
		t.Errorf("records %d (want %d), games %d, proof %v", res.Records, old, res.Games, res.Proof)
	}
	// audit.Consistency (rngverify receipt --log) reads them the same way.
	v := verdict.New("log", verdict.MsgSubjectLog)
	audit.Consistency(context.Background(), f, last, res.Checkpoint, v)
	if c := v.Find(verdict.CheckConsistent); c == nil || c.Status != verdict.StatusPass {
		t.Errorf("consistency, partial tiles collected:\n%s", v.Text("en"))
	}
}

// TestAuditCollectedPartialTilesMissing: only a full tile stands for a
// partial one, and its hashes are still authenticated: the full tile gone
// too, cut short, or its prefix altered, the audit does not pass.
func TestAuditCollectedPartialTilesMissing(t *testing.T) {
	a := logWith(t, 60, nil)
	f, old, hashTile, bundle := collected(t, a)
	full, _, _ := strings.Cut(hashTile, ".p/")
	fullBundle, _, _ := strings.Cut(bundle, ".p/")
	keys, err := checkpoint.ParseKeys(string(a.LogKeyFile()))
	if err != nil {
		t.Fatal(err)
	}
	audit := func(f files) (*audit.Result, error) {
		return audit.Run(context.Background(), audit.Config{Fetch: f, LogKeys: keys, Workers: 2, Location: a.Location,
			VRFPins: []string{a.VRFFingerprint()}, Now: clock(a)})
	}
	edited := func(path string, b []byte) files {
		g := files{}
		for p, c := range f {
			g[p] = c
		}
		if b == nil {
			delete(g, path)
		} else {
			g[path] = b
		}
		return g
	}
	if old < 256 {
		t.Fatalf("log of %d entries: no full tile", old)
	}

	// Neither the partial nor the full tile: the audit stops at the first
	// bundle (the tree hash needs every tile of its right edge), naming the
	// partial tile the checkpoint needs.
	_, err = audit(edited(full, nil))
	if want := fmt.Sprintf("couldn't read the hash tiles of entries 0..255: %s: file does not exist", hashTile); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("no full tile: error %v, want %q", err, want)
	}
	_, err = audit(edited(fullBundle, nil))
	if want := fmt.Sprintf("couldn't read entry bundle %s: %s: file does not exist", bundle, bundle); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("no full bundle: error %v, want %q", err, want)
	}
	// A full tile cut short: not a full tile, not read.
	_, err = audit(edited(full, f[full][:len(f[full])-32]))
	if want := fmt.Sprintf("%s: %d bytes, not a full tile of 8192", full, len(f[full])-32); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("short full tile: error %v, want %q", err, want)
	}
	// A full tile whose first hashes are not the tree's: the tiles do not
	// match the signed tree, as a partial tile's would not.
	forged := bytes.Clone(f[full])
	forged[0] ^= 1
	res, err := audit(edited(full, forged))
	if err != nil {
		t.Fatal(err)
	}
	if c := res.Verdict.Find(verdict.CheckEntries); c == nil || c.Status == verdict.StatusPass || !strings.Contains(res.Verdict.Text("en"), "do not match the signed tree") {
		t.Errorf("forged full tile:\n%s", res.Verdict.Text("en"))
	}
}
