package logtest

import (
	"errors"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/transparency-dev/tessera/api/layout"
)

// Partials lists the partial tiles and entry bundles of the tlog-tiles
// directory tiles (tessera's POSIX log: tile/<L>/<N>.p/<W> and
// tile/entries/<N>.p/<W>, and any other file in a .p directory, such as a
// temporary file a failed write left), by their paths relative to tiles.
// Obsolete are those whose full resource a tree of size leaves holds: a
// checkpoint of that size made them obsolete, and tessera's garbage
// collector is to remove them. A file removed while the directory is
// walked (the collector at work) is not listed.
func Partials(tiles string, size uint64) (all, obsolete []string, err error) {
	root := filepath.Join(tiles, "tile")
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() || !strings.Contains(rel, ".p/") {
			return nil
		}
		all = append(all, "tile/"+rel)
		level, index, _ := strings.Cut(rel, "/")
		l := uint64(0)
		if level != "entries" {
			if l, err = layout.ParseTileLevel(level); err != nil {
				return nil
			}
		}
		// The width is ignored: a temporary file's name is no width.
		dir, _, _ := strings.Cut(index, ".p/")
		n, _, err := layout.ParseTileIndexPartial(dir)
		if err != nil || l > 6 {
			return nil // not a resource of a tree of 2^64 leaves or fewer
		}
		// Full resource n of level l ends at leaf (n+1)·256^(l+1).
		if n+1 < 1<<(64-8*(l+1)) && (n+1)<<(8*(l+1)) <= size {
			obsolete = append(obsolete, "tile/"+rel)
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return all, obsolete, nil
}
