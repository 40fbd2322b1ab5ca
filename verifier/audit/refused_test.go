package audit_test

import (
	"bytes"
	"encoding/binary"
	"strconv"
	"strings"
	"testing"

	"tirage.fr/tirage/verifier/checkpoint"
	"tirage.fr/tirage/verifier/receipt/receipttest"
	"tirage.fr/tirage/verifier/verdict"
)

// editLeaf replaces old by new (same length) in the first leaf of the
// entry bundles of f holding both want and old, and returns its entry
// index: an entry that no longer matches the signed tree.
func editLeaf(t *testing.T, f files, want, old, new string) int {
	t.Helper()
	for p, b := range f {
		if !strings.HasPrefix(p, "tile/entries/") {
			continue
		}
		for i, n := 0, 0; i+2 <= len(b); n++ {
			l := int(binary.BigEndian.Uint16(b[i:]))
			leaf := b[i+2 : i+2+l]
			if bytes.Contains(leaf, []byte(want)) && bytes.Contains(leaf, []byte(old)) {
				copy(leaf[bytes.Index(leaf, []byte(old)):], new)
				return n // one bundle: the log is smaller than a tile
			}
			i += 2 + l
		}
	}
	t.Fatalf("no leaf with %q and %q", want, old)
	return 0
}

// TestAuditRefusedEntryGames: an entry that does not match the signed
// tree is left out of the games, so the game it belongs to reads with a
// record missing. That gap is the entry's doing, not the appliance's: the
// games check fails, saying so, and proves nothing (the entries check
// reports the entry). Before, the game's broken chain (a pick edited) or
// its orphaned records (its start edited) were MISBEHAVIOUR PROVEN at
// games, claiming the appliance dropped a record it had logged.
func TestAuditRefusedEntryGames(t *testing.T) {
	for _, tc := range []struct{ name, kind string }{
		{"pick", `"kind":"pick","number"`},
		{"start", `"kind":"game_start"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := logWith(t, 5, nil)
			f := a.Tiles()
			n := editLeaf(t, f, tc.kind, `"time":"2`, `"time":"3`)
			v := run(t, a, f, nil).Verdict
			if c := v.Find(verdict.CheckEntries); c == nil || c.Status != verdict.StatusFail {
				t.Fatalf("edited entry %d not reported:\n%s", n, v.Text("en"))
			}
			c := v.Find(verdict.CheckGames)
			if c == nil || c.Status != verdict.StatusFail {
				t.Fatalf("games: want a failure, not proof, for the game missing entry %d:\n%s", n, v.Text("en"))
			}
			want := "entry " + strconv.Itoa(n) + ", which may be one of the game's records, does not match the signed tree and was left out: the game's records are not proven complete: not proof of misbehaviour: "
			if !strings.Contains(c.Detail, want) {
				t.Errorf("games reason, want %q:\n%s", want, c.Detail)
			}
			if fr := c.Reason("fr"); !strings.Contains(fr, "l'entrée "+strconv.Itoa(n)+", qui peut être un enregistrement de la partie, ne correspond pas à l'arbre signé") {
				t.Errorf("games reason in French:\n%s", fr)
			}
		})
	}
}

// TestAuditSmallerFork: a log serving a checkpoint smaller than the
// trusted one is stale (a cache) unless the trusted tree, read from the
// log's tiles and authenticated against the trusted checkpoint, does not
// extend it: then both are signed and are two histories, MISBEHAVIOUR, as
// rngverify receipt --log and audit --follow find it. Before, the first
// pass (rngverify log, audit) only said "stale or rolled-back", a failure.
func TestAuditSmallerFork(t *testing.T) {
	a := logWith(t, 5, nil)
	keys, err := checkpoint.ParseKeys(string(a.LogKeyFile()))
	if err != nil {
		t.Fatal(err)
	}
	n := a.Size()
	fork := a.Fork(n - 3) // another history from entry n-3 on
	for fork.Size() < n-1 {
		fork.Append([]byte("not a record"))
	}
	stale := a.Fork(n - 1) // the log as it was at n-1
	last, err := checkpoint.Open(a.CheckpointAt(n), keys)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		log   *receipttest.Appliance
		trees bool // the log still serves the trusted tree's tiles
		want  verdict.Status
		text  string
	}{
		{"fork", fork, true, verdict.StatusMisbehaviour, "checkpoint of size " + strconv.FormatInt(n-1, 10) + " (root "},
		{"stale", stale, true, verdict.StatusFail, "a stale or rolled-back log"},
		// Only the fork's own tiles: nothing proven either way.
		{"fork's tiles only", fork, false, verdict.StatusFail, "a stale or rolled-back log"},
	} {
		f := tc.log.Tiles()
		if tc.trees {
			for p, b := range a.Tiles() {
				if _, ok := f[p]; !ok {
					f[p] = b
				}
			}
		}
		v := run(t, tc.log, f, last).Verdict
		c := v.Find(verdict.CheckConsistent)
		if c == nil || c.Status != tc.want || !strings.Contains(c.Detail, tc.text) {
			t.Errorf("%s: want %s with %q:\n%s", tc.name, tc.want, tc.text, v.Text("en"))
		}
	}
}
