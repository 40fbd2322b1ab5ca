package transparency_test

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
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/cloudflare/circl/sign/mldsa/mldsa44"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"golang.org/x/mod/sumdb/tlog"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"tirage.fr/tirage/transparency"
	auditpb "tirage.fr/tirage/transparency/auditpb/v1"
	"tirage.fr/tirage/transparency/checkpoint"
	"tirage.fr/tirage/transparency/logtest"
	"tirage.fr/tirage/transparency/tilelog"
)

func openLog(t *testing.T, n int) (*tilelog.Log, [][]byte) {
	t.Helper()
	_, ed, _ := ed25519.GenerateKey(rand.Reader)
	_, ml, _ := mldsa44.GenerateKey(rand.Reader)
	l, err := tilelog.Open(t.Context(), tilelog.Config{Dir: t.TempDir(), Origin: "tirage.fr/log/api-test", Signers: []crypto.Signer{ed, ml}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l, appendN(t, l, 0, n)
}

func appendN(t *testing.T, l transparency.Log, from, n int) [][]byte {
	t.Helper()
	// Concurrent appenders share batches; order the leaves by index.
	leaves := make([][]byte, n)
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			lf := fmt.Appendf(nil, "record %d", from+i)
			idx, err := l.Append(t.Context(), lf)
			if err != nil || idx < uint64(from) || idx >= uint64(from+n) {
				errs <- fmt.Errorf("Append = %d, %v", idx, err)
				return
			}
			leaves[idx-uint64(from)] = lf
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if _, err := l.AwaitCheckpoint(t.Context(), uint64(from+n)); err != nil {
		t.Fatal(err)
	}
	return leaves
}

// httpTiles is an auditor's tile reader over HTTP, written from the
// tlog-tiles spec (not with the log's own path code).
type httpTiles struct {
	t    *testing.T
	base string
}

func tileN(n int64) string {
	s := fmt.Sprintf("%03d", n%1000)
	for n /= 1000; n > 0; n /= 1000 {
		s = fmt.Sprintf("x%03d/", n%1000) + s
	}
	return s
}

func (h httpTiles) get(path string) ([]byte, error) {
	resp, err := http.Get(h.base + path)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		return nil, fmt.Errorf("GET %s: %s", path, resp.Status)
	}
	return b, err
}

func (h httpTiles) Height() int { return 8 }
func (h httpTiles) ReadTiles(tiles []tlog.Tile) ([][]byte, error) {
	var out [][]byte
	for _, t := range tiles {
		p := fmt.Sprintf("/log/tile/%d/%s", t.L, tileN(t.N))
		if t.W < 256 {
			p += fmt.Sprintf(".p/%d", t.W)
		}
		b, err := h.get(p)
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}
func (h httpTiles) SaveTiles([]tlog.Tile, [][]byte) {}

// bundle fetches entry bundle n of a tree of size leaves and splits it.
func (h httpTiles) bundle(n, size int64) [][]byte {
	p := "/log/tile/entries/" + tileN(n)
	if w := size - n*256; w < 256 {
		p += fmt.Sprintf(".p/%d", w)
	}
	b, err := h.get(p)
	if err != nil {
		h.t.Fatal(err)
	}
	var out [][]byte
	for len(b) > 0 {
		if len(b) < 2 {
			h.t.Fatal("truncated entry bundle")
		}
		k := int(binary.BigEndian.Uint16(b))
		if len(b) < 2+k {
			h.t.Fatal("truncated entry")
		}
		out = append(out, b[2:2+k])
		b = b[2+k:]
	}
	return out
}

// An auditor with only HTTP, x/mod note and tlog follows the log.
func TestHTTPAuditor(t *testing.T) {
	l, leaves := openLog(t, 300)
	srv := httptest.NewServer(transparency.NewHTTPHandler(l))
	defer srv.Close()
	h := httpTiles{t: t, base: srv.URL}

	vkeys, err := h.get("/log/vkey")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(vkeys)), "\n")
	if len(lines) != 2 {
		t.Fatalf("/log/vkey has %d lines, want Ed25519 and ML-DSA-44", len(lines))
	}
	cpRaw, err := h.get("/log/checkpoint")
	if err != nil {
		t.Fatal(err)
	}
	old := logtest.VerifyCheckpoint(t, cpRaw, lines[0])
	if old.Size != 300 {
		t.Fatalf("checkpoint size %d, want 300", old.Size)
	}
	check := func(v logtest.Verified, all [][]byte) {
		r := tlog.TileHashReader(tlog.Tree{N: int64(v.Size), Hash: v.Hash}, h)
		for _, i := range []int64{0, 1, 255, 256, 257, int64(v.Size) - 1} {
			entries := h.bundle(i/256, int64(v.Size))
			got := entries[i%256]
			if string(got) != string(all[i]) {
				t.Fatalf("entry %d over HTTP = %q", i, got)
			}
			p, err := tlog.ProveRecord(int64(v.Size), i, r)
			if err != nil {
				t.Fatalf("ProveRecord(%d) over HTTP tiles: %v", i, err)
			}
			if err := tlog.CheckRecord(p, int64(v.Size), v.Hash, i, tlog.RecordHash(got)); err != nil {
				t.Fatalf("inclusion of %d: %v", i, err)
			}
		}
	}
	check(old, leaves)

	leaves = append(leaves, appendN(t, l, 300, 60)...)
	cpRaw, err = h.get("/log/checkpoint")
	if err != nil {
		t.Fatal(err)
	}
	cur := logtest.VerifyCheckpoint(t, cpRaw, lines[0])
	check(cur, leaves)
	r := tlog.TileHashReader(tlog.Tree{N: int64(cur.Size), Hash: cur.Hash}, h)
	p, err := tlog.ProveTree(int64(cur.Size), int64(old.Size), r)
	if err != nil {
		t.Fatal(err)
	}
	if err := tlog.CheckTree(p, int64(cur.Size), cur.Hash, int64(old.Size), old.Hash); err != nil {
		t.Fatalf("consistency %d -> %d over HTTP: %v", old.Size, cur.Size, err)
	}

	for path, want := range map[string]int{
		"/log/tile/0/999":          404,
		"/log/tile/0/000.p/0":      404,
		"/log/tile/0/0":            404, // not canonical
		"/log/tile/entries/x000/1": 404,
		"/log/nothing":             404,
	} {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("GET %s = %d, want %d", path, resp.StatusCode, want)
		}
	}
	resp, err := http.Post(srv.URL+"/log/checkpoint", "text/plain", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST /log/checkpoint = %d", resp.StatusCode)
	}
}

// A backend without tiles (Trillian) still serves checkpoint and vkey.
func TestHTTPNoTiles(t *testing.T) {
	l, _ := openLog(t, 3)
	srv := httptest.NewServer(transparency.NewHTTPHandler(struct{ transparency.Log }{l}))
	defer srv.Close()
	for path, want := range map[string]int{"/log/checkpoint": 200, "/log/vkey": 200, "/log/tile/0/000.p/3": 404} {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("GET %s = %d, want %d", path, resp.StatusCode, want)
		}
	}
}

func TestAuditGRPC(t *testing.T) {
	l, leaves := openLog(t, 20)
	c := auditClient(t, transparency.NewAuditServer(l, nil))
	ctx := t.Context()

	keys, err := c.VerifierKeys(ctx, &auditpb.VerifierKeysRequest{})
	if err != nil {
		t.Fatal(err)
	}
	cpr, err := c.Checkpoint(ctx, &auditpb.CheckpointRequest{})
	if err != nil {
		t.Fatal(err)
	}
	v := logtest.VerifyCheckpoint(t, cpr.GetNote(), keys.GetKeys()[0])
	ent, err := c.Entries(ctx, &auditpb.EntriesRequest{Start: 0, End: 20})
	if err != nil {
		t.Fatal(err)
	}
	if len(ent.GetEntries()) != 20 || string(ent.GetEntries()[7]) != string(leaves[7]) {
		t.Fatalf("Entries = %q", ent.GetEntries())
	}
	toProof := func(hs [][]byte) []tlog.Hash {
		var p []tlog.Hash
		for _, h := range hs {
			p = append(p, tlog.Hash(h))
		}
		return p
	}
	lh := tlog.RecordHash(leaves[11])
	for _, req := range []*auditpb.InclusionProofRequest{
		{Leaf: &auditpb.InclusionProofRequest_Index{Index: 11}},
		{Leaf: &auditpb.InclusionProofRequest_LeafHash{LeafHash: lh[:]}},
	} {
		ip, err := c.InclusionProof(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		if ip.GetIndex() != 11 || ip.GetTreeSize() != v.Size {
			t.Fatalf("InclusionProof = index %d size %d", ip.GetIndex(), ip.GetTreeSize())
		}
		if err := tlog.CheckRecord(toProof(ip.GetHashes()), int64(v.Size), v.Hash, 11, lh); err != nil {
			t.Fatal(err)
		}
	}
	cp, err := c.ConsistencyProof(ctx, &auditpb.ConsistencyProofRequest{OldSize: 5})
	if err != nil {
		t.Fatal(err)
	}
	p5, _ := l.ConsistencyProof(ctx, 5, v.Size)
	if len(p5) != len(cp.GetHashes()) || cp.GetNewSize() != v.Size {
		t.Fatalf("ConsistencyProof over gRPC differs from the log's")
	}

	for name, tc := range map[string]struct {
		call func() error
		want codes.Code
	}{
		"index beyond": {func() error {
			_, err := c.InclusionProof(ctx, &auditpb.InclusionProofRequest{Leaf: &auditpb.InclusionProofRequest_Index{Index: 20}})
			return err
		}, codes.InvalidArgument},
		"no leaf": {func() error {
			_, err := c.InclusionProof(ctx, &auditpb.InclusionProofRequest{})
			return err
		}, codes.InvalidArgument},
		"short hash": {func() error {
			_, err := c.InclusionProof(ctx, &auditpb.InclusionProofRequest{Leaf: &auditpb.InclusionProofRequest_LeafHash{LeafHash: []byte{1}}})
			return err
		}, codes.InvalidArgument},
		"unknown hash": {func() error {
			_, err := c.InclusionProof(ctx, &auditpb.InclusionProofRequest{Leaf: &auditpb.InclusionProofRequest_LeafHash{LeafHash: make([]byte, 32)}})
			return err
		}, codes.NotFound},
		"future tree": {func() error {
			_, err := c.ConsistencyProof(ctx, &auditpb.ConsistencyProofRequest{OldSize: 1, NewSize: 1000})
			return err
		}, codes.NotFound},
		"bad range": {func() error {
			_, err := c.Entries(ctx, &auditpb.EntriesRequest{Start: 5, End: 2})
			return err
		}, codes.InvalidArgument},
	} {
		if got := status.Code(tc.call()); got != tc.want {
			t.Errorf("%s: code %v, want %v", name, got, tc.want)
		}
	}
	l.Close()
	if _, err := c.Checkpoint(ctx, &auditpb.CheckpointRequest{}); status.Code(err) != codes.Unavailable {
		t.Errorf("Checkpoint after Close: %v, want Unavailable", err)
	}
}

func TestCheckLeaf(t *testing.T) {
	for _, n := range []int{0, transparency.MaxLeafSize + 1} {
		if err := transparency.CheckLeaf(make([]byte, n)); !errors.Is(err, transparency.ErrInvalidLeaf) {
			t.Errorf("CheckLeaf(%d bytes) = %v", n, err)
		}
	}
	if err := transparency.CheckLeaf(make([]byte, transparency.MaxLeafSize)); err != nil {
		t.Error(err)
	}
}

func FuzzParseTilePath(f *testing.F) {
	for _, s := range []string{"tile/0/000", "tile/1/x001/234.p/17", "tile/entries/x123/x456/789", "tile/entries/000.p/255", "tile/0/0", "tile/3/001.p/0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		tp, err := transparency.ParseTilePath(p)
		if err != nil {
			return
		}
		if tp.String() != p {
			t.Fatalf("ParseTilePath(%q) accepted a path it formats as %q", p, tp.String())
		}
		if again, err := transparency.ParseTilePath(tp.String()); err != nil || again != tp {
			t.Fatalf("round trip of %q: %+v, %v", p, again, err)
		}
	})
}

func TestCollector(t *testing.T) {
	l, _ := openLog(t, 5)
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(transparency.NewCollector(l))
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]*dto.MetricFamily{}
	for _, mf := range mfs {
		got[mf.GetName()] = mf
	}
	if v := got["tirage_log_appends_total"].GetMetric()[0].GetCounter().GetValue(); v != 5 {
		t.Errorf("tirage_log_appends_total = %v, want 5", v)
	}
	if v := got["tirage_log_append_queue_depth"].GetMetric()[0].GetGauge().GetValue(); v != 0 {
		t.Errorf("queue depth = %v after all appends returned", v)
	}
	if v := got["tirage_log_append_failures_total"].GetMetric()[0].GetCounter().GetValue(); v != 0 {
		t.Errorf("failures = %v", v)
	}
	h := got["tirage_log_append_latency_seconds"].GetMetric()[0].GetHistogram()
	if h.GetSampleCount() != 5 || h.GetSampleSum() <= 0 {
		t.Errorf("latency histogram: count %d sum %v", h.GetSampleCount(), h.GetSampleSum())
	}
	// A closed log refuses appends; ErrClosed is not counted as a backend failure.
	l.Close()
	if _, err := l.Append(t.Context(), []byte("x")); !errors.Is(err, transparency.ErrClosed) {
		t.Fatalf("Append after Close = %v", err)
	}
}

// bigLeaves is a log of 2048 leaves of 60 000 bytes (attestations can be
// large): only Entries is served.
type bigLeaves struct{ transparency.Log }

func (bigLeaves) Entries(_ context.Context, start, end, treeSize uint64) ([][]byte, error) {
	end, err := transparency.CheckRange(start, end, treeSize)
	if err != nil {
		return nil, err
	}
	var out [][]byte
	for i := start; i < end; i++ {
		out = append(out, bytes.Repeat([]byte{byte(i)}, 60000))
	}
	return out, nil
}

// An Entries answer must fit a default gRPC client's 4 MiB message limit,
// and MaxEntriesBytes: 1024 leaves of 60 kB do not, so the server returns
// fewer (as the API allows) and the auditor reads on from start +
// len(entries).
func TestAuditEntriesFitMessage(t *testing.T) {
	c := auditClient(t, transparency.NewAuditServer(bigLeaves{}, nil))
	const size = 2048
	for start := uint64(0); start < size; {
		resp, err := c.Entries(t.Context(), &auditpb.EntriesRequest{Start: start, End: size, TreeSize: size})
		if err != nil {
			t.Fatalf("Entries(%d, %d): %v", start, size, err)
		}
		if len(resp.GetEntries()) == 0 {
			t.Fatalf("Entries(%d, %d) returned nothing", start, size)
		}
		// Within MaxEntriesBytes: the server holds an answer nobody reads
		// until its connection ends.
		if n := proto.Size(resp); n > transparency.MaxEntriesBytes {
			t.Fatalf("Entries(%d, %d): an answer of %d bytes, over %d", start, size, n, transparency.MaxEntriesBytes)
		}
		for i, e := range resp.GetEntries() {
			if len(e) != 60000 || e[0] != byte(start+uint64(i)) {
				t.Fatalf("entry %d is wrong", start+uint64(i))
			}
		}
		start += uint64(len(resp.GetEntries()))
	}
}

// Content types and caching (c2sp.org/tlog-tiles): the checkpoint is
// text/plain and not cached; tiles and entry bundles, full or partial, are
// application/octet-stream and immutable (a partial's content never
// changes: the log serves exactly W entries for .p/<W>).
func TestHTTPHeaders(t *testing.T) {
	l, _ := openLog(t, 3)
	srv := httptest.NewServer(transparency.NewHTTPHandler(l))
	defer srv.Close()
	for path, want := range map[string][2]string{
		"/log/checkpoint":           {"text/plain; charset=utf-8", "no-cache"},
		"/log/vkey":                 {"text/plain; charset=utf-8", "no-store"},
		"/log/tile/0/000.p/3":       {"application/octet-stream", "public, max-age=31536000, immutable"},
		"/log/tile/entries/000.p/3": {"application/octet-stream", "public, max-age=31536000, immutable"},
	} {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Errorf("GET %s = %s", path, resp.Status)
			continue
		}
		if got := resp.Header.Get("Content-Type"); got != want[0] {
			t.Errorf("GET %s: Content-Type %q, want %q", path, got, want[0])
		}
		if got := resp.Header.Get("Cache-Control"); got != want[1] {
			t.Errorf("GET %s: Cache-Control %q, want %q", path, got, want[1])
		}
	}
	// Errors are not cached, the router's own too (an unknown path, a
	// method other than GET): a resource missing now may exist later.
	for _, req := range [][2]string{{"GET", "/log/nothing"}, {"POST", "/log/checkpoint"}, {"GET", "/log/tile/0/999"}} {
		r, err := http.NewRequest(req[0], srv.URL+req[1], nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := http.DefaultClient.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode < 400 || resp.Header.Get("Cache-Control") != "no-store" {
			t.Errorf("%s %s = %s, Cache-Control %q, want an error, no-store", req[0], req[1], resp.Status, resp.Header.Get("Cache-Control"))
		}
	}
}

// NotAppended keeps its refusal's message and chain, and adds
// ErrNotAppended; nil stays nil.
func TestNotAppended(t *testing.T) {
	refusal := fmt.Errorf("log: %w: disk full", transparency.ErrUnavailable)
	err := transparency.NotAppended(refusal)
	if !errors.Is(err, transparency.ErrNotAppended) || !errors.Is(err, transparency.ErrUnavailable) {
		t.Fatalf("NotAppended(%v) = %v, want ErrNotAppended and ErrUnavailable", refusal, err)
	}
	if err.Error() != refusal.Error() {
		t.Fatalf("NotAppended changed the message: %q, want %q", err, refusal)
	}
	if errors.Is(refusal, transparency.ErrNotAppended) {
		t.Fatal("the refusal itself is ErrNotAppended")
	}
	if transparency.NotAppended(nil) != nil {
		t.Fatal("NotAppended(nil) != nil")
	}
}

// failingLog fails every call with err.
type failingLog struct {
	transparency.Log
	err error
}

func (f *failingLog) Checkpoint(context.Context) (*checkpoint.Checkpoint, error) { return nil, f.err }

// A failure of the log reaches an auditor as its kind (the gRPC code) and a
// message of its own, never the log's words: file paths, the database's
// errors are the operator's log's (the HTTP surface says as little).
func TestAuditGRPCHidesFailures(t *testing.T) {
	const secret = "/srv/tirage/data/log/leafhash.db: input/output error"
	var l failingLog
	var logged bytes.Buffer
	c := auditClient(t, transparency.NewAuditServer(&l, slog.New(slog.NewJSONHandler(&logged, nil))))
	for _, tc := range []struct {
		err  error
		want codes.Code
	}{
		{fmt.Errorf("tilelog: %w: %s", transparency.ErrUnavailable, secret), codes.Unavailable},
		{fmt.Errorf("tilelog: %w: %s", transparency.ErrSecurity, secret), codes.DataLoss},
		{errors.New(secret), codes.Internal},
	} {
		l.err = tc.err
		logged.Reset()
		_, err := c.Checkpoint(t.Context(), &auditpb.CheckpointRequest{})
		if status.Code(err) != tc.want || strings.Contains(err.Error(), "leafhash.db") || strings.Contains(err.Error(), "/srv/") {
			t.Errorf("log failing with %q: %v, want %v without the log's words", tc.err, err, tc.want)
		}
		if !strings.Contains(logged.String(), "leafhash.db: input/output error") {
			t.Errorf("log failing with %q: the operator's log has %q, want the log's words", tc.err, logged.String())
		}
	}
}

// auditClient serves srv to a client, over TCP, until the test ends.
func auditClient(t *testing.T, srv auditpb.AuditServer) auditpb.AuditClient {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := grpc.NewServer()
	auditpb.RegisterAuditServer(s, srv)
	go s.Serve(lis)
	t.Cleanup(s.Stop)
	conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return auditpb.NewAuditClient(conn)
}
