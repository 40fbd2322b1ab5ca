package tilelog

import (
	"fmt"
	"sync"

	"golang.org/x/mod/sumdb/tlog"

	"tirage.fr/tirage/internal/hashindex"
	"tirage.fr/tirage/transparency"
)

// The leaf hash index maps each leaf's RFC 6962 hash to the first index it
// was appended at, for InclusionProofByHash: a hashindex.Index (sorted runs
// merged by size, each covering a range of leaves) in the directory
// leafIndexDir. It is derived data, rebuilt from the tree when lost, and
// not authoritative: InclusionProofByHash checks the tree holds the hash at
// the index it names.
const (
	leafIndexDir = "leafhash"
	// oldLeafIndexFile is the index before runs (a bbolt B+tree): Open
	// removes it, and the index is rebuilt from the tree.
	oldLeafIndexFile = "leafhash.db"
)

// leafIndex is the leaf hash index and the state of its catch-up.
type leafIndex struct {
	*hashindex.Index
	mu sync.Mutex // serialises catch-up (Add, Repair, Reset)
	// matched is set, under mu, once the runs opened were found to index
	// the tree beside them, or removed (matchIndex, at the first catch-up
	// after open).
	matched bool
}

// errIndexClosed is a use of the index after close: never "not found".
var errIndexClosed = fmt.Errorf("tilelog: %w: leaf index closed", transparency.ErrClosed)

// indexErr is an outage of the leaf index: ErrUnavailable.
func indexErr(err error) error {
	return fmt.Errorf("tilelog: %w: leaf index: %w", transparency.ErrUnavailable, err)
}

// openLeafIndex opens the leaf index in dir (creating it): each hash keeps
// its first index.
func openLeafIndex(dir string) (*leafIndex, error) {
	x, err := hashindex.Open(dir, hashindex.Options{Err: indexErr, Closed: errIndexClosed})
	if err != nil {
		return nil, err
	}
	return &leafIndex{Index: x}, nil
}

// add indexes hashes, the leaf hashes of the leaves first, first+1, …
// (first is Next()): each hash keeps the first index it was seen at.
func (x *leafIndex) add(first uint64, hashes []tlog.Hash) error {
	es := make([]hashindex.Entry, len(hashes))
	for i, h := range hashes {
		es[i] = hashindex.Entry{Hash: h, Value: first + uint64(i)}
	}
	return x.Add(first, first+uint64(len(hashes)), es)
}
