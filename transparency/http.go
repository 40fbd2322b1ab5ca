package transparency

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/transparency-dev/tessera/api/layout"
)

// NewHTTPHandler serves the log to auditors over HTTP, read-only, in the
// c2sp.org/tlog-tiles layout. Mount it at "/log/" (it expects full request
// paths):
//
//	GET /log/checkpoint                   latest signed checkpoint (both backends)
//	GET /log/vkey                         verifier keys, one per line, Ed25519 first
//	GET /log/tile/<L>/<N>[.p/<W>]         hash tiles        (backends implementing Tiles)
//	GET /log/tile/entries/<N>[.p/<W>]     entry bundles     (backends implementing Tiles)
//
// Tiles and bundles, full or partial, never change (a partial of width W is
// exactly its W entries) and are served as immutable; the checkpoint is not
// cached, nor is an error (a tile missing now may exist later), the
// router's own included (404 of an unknown path, 405 of a method other
// than GET or HEAD): every answer is no-store unless it says otherwise.
// Unknown paths and tiles answer 404, a failing backend 503, storage that
// contradicts a signed checkpoint (ErrSecurity) 500.
func NewHTTPHandler(l Log) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /log/checkpoint", func(w http.ResponseWriter, r *http.Request) {
		cp, err := l.Checkpoint(r.Context())
		if err != nil {
			httpError(w, err)
			return
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("Cache-Control", "no-cache")
		w.Write(cp.Note)
	})
	mux.HandleFunc("GET /log/vkey", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprint(w, strings.Join(l.VerifierKeys(), "\n")+"\n")
	})
	tiles, _ := l.(Tiles)
	mux.HandleFunc("GET /log/tile/", func(w http.ResponseWriter, r *http.Request) {
		if tiles == nil {
			http.Error(w, "this log backend does not serve tiles: use the gRPC audit API", http.StatusNotFound)
			return
		}
		t, err := ParseTilePath(strings.TrimPrefix(r.URL.Path, "/log/"))
		if err != nil {
			w.Header().Set("Cache-Control", "no-store")
			http.Error(w, err.Error(), http.StatusNotFound)
			return
		}
		var b []byte
		if t.Entries {
			b, err = tiles.ReadEntryBundle(r.Context(), t.Index, t.Width)
		} else {
			b, err = tiles.ReadTile(r.Context(), t.Level, t.Index, t.Width)
		}
		if err != nil {
			httpError(w, err)
			return
		}
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
		w.Write(b)
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		mux.ServeHTTP(w, r)
	})
}

func httpError(w http.ResponseWriter, err error) {
	w.Header().Set("Cache-Control", "no-store")
	switch {
	case errors.Is(err, ErrNotFound):
		http.Error(w, "not found", http.StatusNotFound)
	case errors.Is(err, ErrClosed), errors.Is(err, ErrUnavailable):
		w.Header().Set("Retry-After", "1")
		http.Error(w, "log unavailable", http.StatusServiceUnavailable)
	default:
		http.Error(w, "internal error", http.StatusInternalServerError)
	}
}

// TilePath is a parsed tlog-tiles resource path.
type TilePath struct {
	// Entries is set for an entry bundle (tile/entries/...), Level is 0.
	Entries bool
	Level   uint64
	Index   uint64
	// Width is the partial width, 0 for a full tile.
	Width uint8
}

// ParseTilePath parses "tile/<L>/<N>[.p/<W>]" or "tile/entries/<N>[.p/<W>]".
// Only canonical paths are accepted (the exact form the log writes), so a
// resource has one name.
func ParseTilePath(p string) (TilePath, error) {
	rest, ok := strings.CutPrefix(p, "tile/")
	if !ok {
		return TilePath{}, fmt.Errorf("tile path %q: does not start with tile/", p)
	}
	var t TilePath
	var err error
	if idx, ok := strings.CutPrefix(rest, "entries/"); ok {
		t.Entries = true
		t.Index, t.Width, err = layout.ParseTileIndexPartial(idx)
	} else {
		level, idx, ok := strings.Cut(rest, "/")
		if !ok {
			return TilePath{}, fmt.Errorf("tile path %q: no tile index", p)
		}
		t.Level, t.Index, t.Width, err = layout.ParseTileLevelIndexPartial(level, idx)
	}
	if err != nil {
		return TilePath{}, fmt.Errorf("tile path %q: %w", p, err)
	}
	if t.String() != p {
		return TilePath{}, fmt.Errorf("tile path %q: not canonical (want %q)", p, t.String())
	}
	return t, nil
}

// String formats the path as the log writes it.
func (t TilePath) String() string {
	if t.Entries {
		return layout.EntriesPath(t.Index, t.Width)
	}
	return layout.TilePath(t.Level, t.Index, t.Width)
}
