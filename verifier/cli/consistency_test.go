package cli

import (
	"encoding/base64"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"tirage.fr/tirage/verifier/receipt/receipttest"
)

// tileServer serves a log's tiles (receipttest Tiles) at URL/log; set
// changes what it serves.
func tileServer(t *testing.T) (url string, set func(map[string][]byte)) {
	t.Helper()
	var mu sync.Mutex
	files := map[string][]byte{}
	srv := httptest.NewServer(http.StripPrefix("/log/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		b, ok := files[r.URL.Path]
		mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Write(b)
	})))
	t.Cleanup(srv.Close)
	return srv.URL + "/log", func(f map[string][]byte) { mu.Lock(); files = f; mu.Unlock() }
}

// TestDocumentOnlineConsistency: with --state and --log, a receipt or
// transcript whose checkpoint differs in size from the trusted one is
// checked against the log's consistency proof: consistent passes naming
// both sizes, a fork signed by the same key is misbehaviour, an
// unreachable log fails; without --log the skip says so.
func TestDocumentOnlineConsistency(t *testing.T) {
	dir := t.TempDir()
	a := newAppliance(t, 23)
	g0 := playGame(t, a, receipttest.Play{Game: "g-0"})
	early := write(t, dir, "early.json", a.Receipt(g0, 0, true)) // proven at a size below the state's
	earlySize := a.Size()
	// The log serves the partial tiles of every size it checkpointed
	// (c2sp.org/tlog-tiles; only a full tile may replace them).
	published := map[string][]byte{}
	publish := func() { maps.Copy(published, a.Tiles()) }
	publish()
	fork := a.Fork(a.Size())
	playGame(t, a, receipttest.Play{Game: "g-1", StopAt: 1})
	// The trust state: rngverify log at size n.
	tiles := filepath.Join(dir, "tiles")
	writeTiles(t, tiles, a)
	key := write(t, dir, "log.vkey", a.LogKeyFile())
	state := filepath.Join(dir, "state.json")
	if code, out, errs := run(t, "log", "--dir", tiles, "--log-key", key, "--state", state); code != ExitOK {
		t.Fatalf("log: %d\n%s%s", code, out, errs)
	}
	n := a.Size()
	publish()
	// The log grows; a receipt and a transcript proven at size m > n.
	g2 := playGame(t, a, receipttest.Play{Game: "g-2", StopAt: 2})
	m := a.Size()
	publish()
	later := write(t, dir, "later.json", a.Receipt(g2, 1, true))
	game := write(t, dir, "game.json", a.Transcript(g2, receipttest.TranscriptOptions{}))
	// Another history from size earlySize, signed by the same key, larger than n.
	fg := playGame(t, fork, receipttest.Play{Game: "g-1", StopAt: 2, Numbers: []int{9, 8, 7, 6, 5, 4, 3, 2, 1, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20}})
	for fork.Size() <= n {
		fork.Append([]byte("pad"))
	}
	forked := write(t, dir, "forked.json", fork.Receipt(fg, 1, true))
	url, serve := tileServer(t)
	serve(published)
	pin := "--pin=" + a.VRFPin()

	// (1) Consistent, the document larger or smaller than the state.
	for _, c := range []struct {
		args  []string
		sizes string
	}{
		{[]string{"receipt", later}, fmt.Sprintf("checkpoint of size %d and trusted checkpoint of size %d: the larger extends the smaller", m, n)},
		{[]string{"game", game}, fmt.Sprintf("checkpoint of size %d and trusted checkpoint of size %d: the larger extends the smaller", m, n)},
		{[]string{"receipt", early}, fmt.Sprintf("checkpoint of size %d and trusted checkpoint of size %d: the larger extends the smaller", earlySize, n)},
	} {
		code, out, errs := run(t, append(c.args, "--state", state, "--log", url, pin)...)
		if code != ExitOK || !strings.Contains(out, "[PASS] log-consistency") || !strings.Contains(out, c.sizes) {
			t.Errorf("%v: exit %d\n%s%s", c.args, code, out, errs)
		}
	}
	code, out, _ := run(t, "receipt", later, "--state", state, "--log", url, pin, "--lang", "fr")
	if code != ExitOK || !strings.Contains(out, fmt.Sprintf("point de contrôle de taille %d et point de contrôle de confiance de taille %d", m, n)) {
		t.Errorf("French: exit %d\n%s", code, out)
	}

	// (2) A fork signed by the same key, the log serving the fork's history:
	// misbehaviour naming both sizes and roots.
	serve(fork.Tiles())
	code, out, errs := run(t, "receipt", forked, "--state", state, "--log", url, "--pin", fork.VRFPin())
	if code != ExitFail || !strings.Contains(errs, "MISBEHAVIOUR PROVEN, check log-consistency") ||
		!strings.Contains(out, fmt.Sprintf("checkpoint of size %d (root %s) and trusted checkpoint of size %d (root %s)", fork.Size(), root(fork, fork.Size()), n, root(a, n))) {
		t.Errorf("fork: exit %d\n%s%s", code, out, errs)
	}
	// The log serving the other history than the document's: not proven, fails.
	serve(published)
	code, out, errs = run(t, "receipt", forked, "--state", state, "--log", url, "--pin", fork.VRFPin())
	if code != ExitFail || !strings.Contains(errs, "NOT VERIFIED, check log-consistency: could not check consistency online") {
		t.Errorf("fork, other tiles: exit %d\n%s%s", code, out, errs)
	}

	// (3) The log unreachable: fails, never passes.
	serve(map[string][]byte{})
	code, out, errs = run(t, "receipt", later, "--state", state, "--log", url, pin)
	if code != ExitFail || !strings.Contains(out, "[FAIL] log-consistency") || !strings.Contains(errs, "could not check consistency online: ") {
		t.Errorf("unreachable: exit %d\n%s%s", code, out, errs)
	}

	// (4) No --log: an explicit skip naming both sizes; still exit 0.
	code, out, errs = run(t, "receipt", later, "--state", state, pin)
	if want := fmt.Sprintf("checkpoint of size %d, trusted state at %d: consistency not checked (give --log URL", m, n); code != ExitOK ||
		!strings.Contains(out, "[skip] log-consistency") || !strings.Contains(out, want) {
		t.Errorf("no --log: exit %d\n%s%s", code, out, errs)
	}

	// Usage: --log needs --state and an http(s) URL.
	for _, args := range [][]string{{"receipt", later, "--log", url, pin}, {"game", game, "--state", state, "--log", "ftp://x"}} {
		if code, _, errs := run(t, args...); code != ExitUsage || !strings.Contains(errs, "--log") {
			t.Errorf("%v: exit %d %s", args, code, errs)
		}
	}
	if code, _, errs := run(t, "receipt", "-h"); code != ExitOK || !strings.Contains(errs, "--log URL") {
		t.Errorf("receipt -h: exit %d %s", code, errs)
	}
}

// root is the root of a's tree of size n as verdicts spell it (base64, as
// the checkpoint does).
func root(a *receipttest.Appliance, n int64) string {
	r := a.Root(n)
	return base64.StdEncoding.EncodeToString(r[:])
}

// TestDocumentStateCheckpointUnreadable: a --state whose trusted checkpoint
// no longer opens under the state's keys (a damaged or edited file) is
// refused, naming --state, as rngverify log refuses it — not silently left
// out, which would skip the comparison with the trusted checkpoint (a fork
// of the same size) and pass.
func TestDocumentStateCheckpointUnreadable(t *testing.T) {
	dir := t.TempDir()
	a := newAppliance(t, 24)
	fork := a.Fork(a.Size())
	playGame(t, a, receipttest.Play{Game: "g-0"})
	// Another history of the same size, signed by the same key.
	fg := playGame(t, fork, receipttest.Play{Game: "g-0", Numbers: []int{9, 8, 7, 6, 5, 4, 3, 2, 1, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20}})
	for a.Size() < fork.Size() {
		a.Append([]byte("pad"))
	}
	for fork.Size() < a.Size() {
		fork.Append([]byte("pad"))
	}
	tiles := filepath.Join(dir, "tiles")
	writeTiles(t, tiles, a)
	key := write(t, dir, "log.vkey", a.LogKeyFile())
	state := filepath.Join(dir, "state.json")
	if code, out, errs := run(t, "log", "--dir", tiles, "--log-key", key, "--state", state); code != ExitOK {
		t.Fatalf("log: %d\n%s%s", code, out, errs)
	}
	forked := write(t, dir, "forked.json", fork.Receipt(fg, 1, true))
	pin := "--pin=" + a.VRFPin()
	if code, _, errs := run(t, "receipt", forked, "--state", state, pin); code != ExitFail || !strings.Contains(errs, "MISBEHAVIOUR PROVEN") {
		t.Fatalf("forked receipt, same size: exit %d %s", code, errs)
	}
	// The state's checkpoint damaged: its signature no longer verifies.
	b, err := os.ReadFile(state)
	if err != nil {
		t.Fatal(err)
	}
	sig := `\n\n— ` + receipttest.Origin + " "
	i := strings.Index(string(b), sig)
	if i < 0 {
		t.Fatalf("no signature in the state:\n%s", b)
	}
	b[i+len(sig)+10] ^= 1
	write(t, dir, "state.json", b)
	code, out, errs := run(t, "receipt", forked, "--state", state, pin)
	if code != ExitUsage || !strings.Contains(errs, "--state") || out != "" {
		t.Errorf("receipt with a damaged state checkpoint: exit %d\n%s%s", code, out, errs)
	}
	// rngverify log and audit refuse it alike, in the same words (before,
	// "state file: invalid signature …": neither the flag nor the log).
	want := `--state: trust state: log "` + receipttest.Origin + `": last trusted checkpoint: invalid signature by `
	for _, cmd := range []string{"receipt", "log", "audit"} {
		args := []string{cmd, "--dir", tiles, "--state", state}
		if cmd == "receipt" {
			args = []string{cmd, forked, "--state", state, pin}
		}
		code, out, errs := run(t, args...)
		if code != ExitUsage || !strings.Contains(errs, want) || strings.Count(strings.TrimSpace(errs), "\n") != 0 || out != "" {
			t.Errorf("%s with a damaged state checkpoint: exit %d, want %d and one line with %q:\n%s%s", cmd, code, ExitUsage, want, out, errs)
		}
		code, _, errs = run(t, append(args, "--lang", "fr")...)
		if code != ExitUsage || !strings.Contains(errs, `--state : état de confiance : journal « `+receipttest.Origin+` » : dernier point de contrôle de confiance : `) {
			t.Errorf("%s --lang fr with a damaged state checkpoint: exit %d\n%s", cmd, code, errs)
		}
	}
}
