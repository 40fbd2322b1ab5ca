package tilelog_test

import (
	"bytes"
	"context"
	"crypto"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cloudflare/circl/sign/mldsa/mldsa44"

	"tirage.fr/tirage/transparency"
	"tirage.fr/tirage/transparency/logtest"
	"tirage.fr/tirage/transparency/tilelog"
)

const origin = "tirage.fr/log/test"

func testSigners(t testing.TB) []crypto.Signer {
	_, ed, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	_, ml, err := mldsa44.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return []crypto.Signer{ml, ed}
}

func opener(t *testing.T) logtest.Opener {
	dir := t.TempDir()
	signers := testSigners(t)
	return func() (transparency.Log, error) {
		return tilelog.Open(context.Background(), tilelog.Config{
			Dir:         dir,
			Origin:      origin,
			Signers:     signers,
			BatchMaxAge: 5 * time.Millisecond,
		})
	}
}

func TestConformance(t *testing.T) { logtest.Run(t, opener) }

// A storage failure under tessera stops the append pipeline: the leaf
// already journaled keeps its index, later appends fail with ErrUnavailable
// (the draw is refused) and are counted; once the storage is repaired,
// reopening the log integrates the journaled leaf at the index it was given.
func TestAppendFailure(t *testing.T) {
	dir := t.TempDir()
	cfg := tilelog.Config{Dir: dir, Origin: origin, Signers: testSigners(t)}
	l, err := tilelog.Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Append(t.Context(), []byte("first")); err != nil {
		t.Fatal(err)
	}
	if _, err := l.AwaitCheckpoint(t.Context(), 1); err != nil {
		t.Fatal(err)
	}
	// Entry bundles can no longer be written (a file where their directory
	// should be: fails even for root).
	entries := filepath.Join(dir, "tiles", "tile", "entries")
	saved := filepath.Join(dir, "entries.saved")
	if err := os.Rename(entries, saved); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(entries, []byte("in the way"), 0o600); err != nil {
		t.Fatal(err)
	}
	idx, err := l.Append(t.Context(), []byte("second"))
	if err != nil || idx != 1 {
		t.Fatalf("Append(second) = %d, %v; want 1 (journaled)", idx, err)
	}
	deadline := time.Now().Add(time.Minute)
	for {
		_, err = l.Append(t.Context(), []byte("refused"))
		if err != nil || time.Now().After(deadline) {
			break
		}
	}
	if !errors.Is(err, transparency.ErrUnavailable) {
		t.Fatalf("Append on broken storage = %v, want ErrUnavailable", err)
	}
	if s := l.Stats(); s.Failures != 1 || s.InFlight != 0 {
		t.Fatalf("Stats = %+v", s)
	}
	// Every acknowledged leaf is sequenced, integrated or not.
	sequenced := l.Sequenced()
	if sequenced < 2 {
		t.Fatalf("Sequenced() = %d after two acknowledged appends", sequenced)
	}
	l.Close()

	if err := os.Remove(entries); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(saved, entries); err != nil {
		t.Fatal(err)
	}
	l, err = tilelog.Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if got := l.Sequenced(); got != sequenced {
		t.Fatalf("after reopening, Sequenced() = %d, want %d", got, sequenced)
	}
	cp, err := l.AwaitCheckpoint(t.Context(), sequenced)
	if err != nil {
		t.Fatal(err)
	}
	if cp.Size != sequenced {
		t.Fatalf("after reopening, the checkpoint covers %d leaves, want the %d sequenced", cp.Size, sequenced)
	}
	got, err := l.Entries(t.Context(), 0, cp.Size, cp.Size)
	if err != nil {
		t.Fatal(err)
	}
	if string(got[0]) != "first" || string(got[1]) != "second" {
		t.Fatalf("after reopening, entries 0 and 1 = %q, %q; want first, second", got[0], got[1])
	}
	for _, e := range got[2:] {
		if string(e) != "refused" {
			t.Fatalf("unexpected entry %q", e)
		}
	}
}

// A partial tile or entry bundle of a published checkpoint may be replaced
// by the full one (tessera garbage collects partials once the full resource
// exists). The resource served for .p/<W> must still be exactly W entries
// (c2sp.org/tlog-tiles), not the full bundle under the partial's name.
func TestPartialAfterFull(t *testing.T) {
	dir := t.TempDir()
	l, err := tilelog.Open(context.Background(), tilelog.Config{Dir: dir, Origin: origin, Signers: testSigners(t), BatchMaxAge: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	ctx := t.Context()
	const w = 5
	var leaves [][]byte
	for i := range 256 + 3 {
		leaves = append(leaves, []byte(fmt.Sprintf("leaf %d", i)))
		if _, err := l.Append(ctx, leaves[i]); err != nil {
			t.Fatal(err)
		}
		if i == w-1 {
			if _, err := l.AwaitCheckpoint(ctx, w); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := l.AwaitCheckpoint(ctx, uint64(len(leaves))); err != nil {
		t.Fatal(err)
	}
	// As the garbage collector would.
	for _, p := range []string{"tile/entries/000.p/5", "tile/0/000.p/5"} {
		if err := os.Remove(filepath.Join(dir, "tiles", p)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			t.Fatal(err)
		}
	}
	srv := httptest.NewServer(transparency.NewHTTPHandler(l))
	defer srv.Close()
	get := func(p string) []byte {
		t.Helper()
		resp, err := http.Get(srv.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("GET %s: %s %v", p, resp.Status, err)
		}
		return b
	}
	var want []byte
	for _, e := range leaves[:w] {
		want = binary.BigEndian.AppendUint16(want, uint16(len(e)))
		want = append(want, e...)
	}
	if got := get("/log/tile/entries/000.p/5"); !bytes.Equal(got, want) {
		t.Errorf("entry bundle 000.p/5 after the bundle filled: %d bytes, want the %d bytes of its 5 entries", len(got), len(want))
	}
	if got := get("/log/tile/0/000.p/5"); len(got) != w*32 {
		t.Errorf("tile 0/000.p/5 after the tile filled: %d bytes, want %d", len(got), w*32)
	}
	if got := get("/log/tile/entries/001.p/3"); len(got) != 3*(2+len("leaf 256")) {
		t.Errorf("entry bundle 001.p/3: %d bytes", len(got))
	}
}

// A partial replaced by the full resource (tessera's garbage collector
// removes a filled tile's .p/ directory) is read from the full one. When
// that read fails for another reason than absence (a disk error, no file
// descriptor left), the storage is unavailable: it is not a resource the
// log lacks (NotFound: HTTP 404, an auditor's NOT_FOUND, a proof's
// ErrSecurity), and a retry may succeed.
func TestPartialFallbackReadError(t *testing.T) {
	dir := t.TempDir()
	l, err := tilelog.Open(context.Background(), tilelog.Config{Dir: dir, Origin: origin, Signers: testSigners(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	ctx := t.Context()
	for i := range 256 + 3 {
		if _, err := l.Append(ctx, fmt.Appendf(nil, "leaf %d", i)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := l.AwaitCheckpoint(ctx, 256+3); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"tile/entries/000", "tile/0/000"} {
		full := filepath.Join(dir, "tiles", p)
		// As the garbage collector would, then make the full resource
		// unreadable (a directory: EISDIR, whoever runs the test).
		if err := os.RemoveAll(full + ".p"); err != nil {
			t.Fatal(err)
		}
		if err := os.Remove(full); err != nil {
			t.Fatal(err)
		}
		if err := os.Mkdir(full, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := l.ReadEntryBundle(ctx, 0, 5); !errors.Is(err, transparency.ErrUnavailable) || errors.Is(err, transparency.ErrNotFound) {
		t.Errorf("ReadEntryBundle(0, 5) with the full bundle unreadable = %v, want ErrUnavailable", err)
	}
	if _, err := l.ReadTile(ctx, 0, 0, 5); !errors.Is(err, transparency.ErrUnavailable) || errors.Is(err, transparency.ErrNotFound) {
		t.Errorf("ReadTile(0, 0, 5) with the full tile unreadable = %v, want ErrUnavailable", err)
	}
	if _, err := l.Entries(ctx, 0, 5, 5); !errors.Is(err, transparency.ErrUnavailable) || errors.Is(err, transparency.ErrNotFound) {
		t.Errorf("Entries(0, 5, 5) with the full bundle unreadable = %v, want ErrUnavailable", err)
	}
	srv := httptest.NewServer(transparency.NewHTTPHandler(l))
	defer srv.Close()
	for _, p := range []string{"/log/tile/entries/000.p/5", "/log/tile/0/000.p/5"} {
		resp, err := http.Get(srv.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusServiceUnavailable {
			t.Errorf("GET %s with the full resource unreadable = %s, want 503", p, resp.Status)
		}
	}
}

// A partial the log does not hold under its own name is cut from the
// narrowest wider partial it holds (a wider one may be damaged without
// harm), and one it holds no wider partial or full resource of is not
// found.
func TestPartialFromWider(t *testing.T) {
	dir := t.TempDir()
	l, err := tilelog.Open(context.Background(), tilelog.Config{Dir: dir, Origin: origin, Signers: testSigners(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	ctx := t.Context()
	var leaves [][]byte
	for _, n := range []int{3, 6, 10} {
		for i := len(leaves); i < n; i++ {
			leaves = append(leaves, fmt.Appendf(nil, "leaf %d", i))
			if _, err := l.Append(ctx, leaves[i]); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := l.AwaitCheckpoint(ctx, uint64(n)); err != nil {
			t.Fatal(err)
		}
	}
	tiles := filepath.Join(dir, "tiles")
	for _, p := range []string{"tile/entries/000.p/6", "tile/0/000.p/6"} {
		if _, err := os.Stat(filepath.Join(tiles, p)); err != nil {
			t.Skipf("tessera wrote no %s (its batches cut elsewhere): %v", p, err)
		}
	}
	for _, p := range []string{"tile/entries/000.p/3", "tile/0/000.p/3"} {
		if err := os.Remove(filepath.Join(tiles, p)); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{"tile/entries/000.p/10", "tile/0/000.p/10"} {
		if err := os.WriteFile(filepath.Join(tiles, p), []byte("damaged"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var want []byte
	for _, e := range leaves[:3] {
		want = binary.BigEndian.AppendUint16(want, uint16(len(e)))
		want = append(want, e...)
	}
	if got, err := l.ReadEntryBundle(ctx, 0, 3); err != nil || !bytes.Equal(got, want) {
		t.Errorf("ReadEntryBundle(0, 3) = %q, %v; want the 3 entries, from 000.p/6", got, err)
	}
	six, err := os.ReadFile(filepath.Join(tiles, "tile/0/000.p/6"))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := l.ReadTile(ctx, 0, 0, 3); err != nil || !bytes.Equal(got, six[:3*32]) {
		t.Errorf("ReadTile(0, 0, 3) = %x, %v; want the first 3 hashes of 000.p/6", got, err)
	}
	for _, w := range []uint8{11, 255} {
		if _, err := l.ReadTile(ctx, 0, 0, w); !errors.Is(err, transparency.ErrNotFound) {
			t.Errorf("ReadTile(0, 0, %d) = %v, want ErrNotFound", w, err)
		}
	}
	if _, err := l.ReadEntryBundle(ctx, 7, 1); !errors.Is(err, transparency.ErrNotFound) {
		t.Errorf("ReadEntryBundle(7, 1) = %v, want ErrNotFound", err)
	}
}
