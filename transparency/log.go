// Package transparency is the draw log: every record the appliance produces
// is a leaf of an append-only Merkle tree (RFC 6962 hashing), and the tree is
// committed to by signed checkpoints (c2sp.org/tlog-checkpoint, see package
// transparency/checkpoint). Anyone holding a checkpoint can check that a
// record is in the log (inclusion proof) and that a later checkpoint extends
// an earlier one (consistency proof); nothing appended can be dropped or
// rewritten unseen.
//
// # Contract
//
// [Log] is the one interface the daemon uses. Two backends implement it:
//
//   - transparency/tilelog: the embedded default, github.com/transparency-dev/tessera
//     with its POSIX driver in the daemon's data directory (c2sp.org/tlog-tiles).
//   - transparency/trillian: Trillian v1.8 (log server + signer on MariaDB/MySQL)
//     through its gRPC API, for deployments where several rngd share a log.
//
// Append returns an index only once the leaf is durably sequenced: a crash
// after Append returns cannot lose the leaf or move it. An error from Append
// means the draw must be refused (fail closed); see [ErrUnavailable].
//
// Proofs are x/mod sumdb/tlog values ([tlog.RecordProof], [tlog.TreeProof]),
// i.e. RFC 6962 audit paths, checked with tlog.CheckRecord / tlog.CheckTree.
//
// # Auditor API
//
// [NewHTTPHandler] serves the tlog-tiles layout under /log/ (embedded backend)
// plus /log/checkpoint and /log/vkey for both; [NewAuditServer] is the gRPC
// service (transparency/auditpb/v1) for both backends.
package transparency

import (
	"context"
	"errors"
	"fmt"

	"golang.org/x/mod/sumdb/tlog"

	"tirage.fr/tirage/transparency/checkpoint"
)

// MaxLeafSize is the largest leaf accepted, in bytes: the tlog-tiles entry
// bundle format length-prefixes entries with 16 bits. Draw records are far
// smaller.
const MaxLeafSize = 1<<16 - 1

// MaxEntries is the most entries one Entries call returns.
const MaxEntries = 1024

var (
	// ErrUnavailable wraps every failure of the log backend itself (disk,
	// database, Trillian, signer). When Append returns it the leaf was NOT
	// acknowledged: refuse the draw, raise the log alarm, and retry the
	// whole request later; never reply as if the record were logged.
	// Readers map it to gRPC Unavailable / HTTP 503.
	ErrUnavailable = errors.New("transparency log unavailable")

	// ErrInvalidLeaf is returned for an empty leaf or one larger than
	// MaxLeafSize. Nothing was appended; it is the caller's bug.
	ErrInvalidLeaf = errors.New("invalid leaf")

	// ErrInvalidRequest is returned for reads whose arguments are malformed
	// (start after end, index not below tree size, old size above new...).
	ErrInvalidRequest = errors.New("invalid request")

	// ErrNotFound is returned when a tree size beyond the latest checkpoint
	// is asked for, or when no leaf has the given hash.
	ErrNotFound = errors.New("not found")

	// ErrClosed is returned by every method after Close.
	ErrClosed = errors.New("transparency log closed")

	// ErrSecurity reports proof of misbehaviour of the storage or the
	// backend (a tile that does not hash to the signed root, a Trillian root
	// that is not consistent with the one signed before). It is never mixed
	// with ordinary failures: stop appending, alarm, investigate.
	ErrSecurity = errors.New("transparency log security error")

	// ErrNotAppended is in the error of an Append the log refused before
	// it took the leaf (closed, failed closed, its checkpoints stalled, a
	// QueueLeaf that Trillian refused outright): the leaf is not in the
	// log and never will be. It always comes with the refusal's own error
	// (ErrUnavailable, ErrClosed...), see NotAppended. Without it an
	// Append's error does not prove the leaf absent.
	ErrNotAppended = errors.New("leaf not appended")
)

// NotAppended marks err, an Append's refusal, as proof that the leaf was
// not taken (ErrNotAppended): errors.Is finds both, and the message is
// err's.
func NotAppended(err error) error {
	if err == nil {
		return nil
	}
	return notAppended{err}
}

type notAppended struct{ err error }

func (e notAppended) Error() string   { return e.err.Error() }
func (e notAppended) Unwrap() []error { return []error{ErrNotAppended, e.err} }

// Log is a draw log backend.
type Log interface {
	// Append adds leaf to the log and returns its index once it is durably
	// sequenced. Empty leaves and leaves over MaxLeafSize return
	// ErrInvalidLeaf. Backend failures (and a ctx done before the leaf is
	// sequenced) wrap ErrUnavailable. An error does not prove the leaf is
	// absent: it may have been in flight and appear later, unacknowledged;
	// unless it is ErrInvalidLeaf or wraps ErrNotAppended. The log may keep
	// leaf, without a copy, until it is written: the caller does not change
	// it afterwards, whatever Append returns.
	Append(ctx context.Context, leaf []byte) (uint64, error)

	// Checkpoint returns the latest signed checkpoint.
	Checkpoint(ctx context.Context) (*checkpoint.Checkpoint, error)

	// AwaitCheckpoint blocks until a signed checkpoint of at least size
	// leaves is published, and returns it: after Append returned i,
	// AwaitCheckpoint(ctx, i+1) returns the first checkpoint an inclusion
	// proof for i can be checked against.
	AwaitCheckpoint(ctx context.Context, size uint64) (*checkpoint.Checkpoint, error)

	// Entries returns leaves [start, end) of the tree of treeSize leaves (at
	// most MaxEntries of them; fewer may be returned).
	Entries(ctx context.Context, start, end, treeSize uint64) ([][]byte, error)

	// InclusionProof proves leaf index is in the tree of treeSize leaves.
	InclusionProof(ctx context.Context, index, treeSize uint64) (tlog.RecordProof, error)

	// InclusionProofByHash finds the (first) leaf whose RFC 6962 leaf hash
	// is leafHash and proves it is in the tree of treeSize leaves.
	InclusionProofByHash(ctx context.Context, leafHash tlog.Hash, treeSize uint64) (index uint64, proof tlog.RecordProof, err error)

	// ConsistencyProof proves the tree of oldSize leaves is a prefix of the
	// tree of newSize leaves.
	ConsistencyProof(ctx context.Context, oldSize, newSize uint64) (tlog.TreeProof, error)

	// VerifierKeys returns the signed-note verifier keys of the checkpoint
	// signers, Ed25519 first (the text served at /log/vkey).
	VerifierKeys() []string

	// Stats returns counters for metrics.
	Stats() Stats

	// Close stops the log; appends already acknowledged stay durable.
	Close() error
}

// Health is implemented by backends that fail closed (both of ours): after
// an append or a check that may leave the log and its callers disagreeing
// (a timed-out append, a rollback), every append is refused until the log
// is reopened, or, for an outage of the Trillian backend with its Resync,
// until it has recovered. Health returns that failure, nil while appends
// are taken; rngd's readiness follows it, and so does tirage_log_up
// (NewCollector).
type Health interface {
	Health() error
}

// Sequencer is implemented by backends that know how many leaves they hold
// durably, in a checkpoint or not yet (the embedded backend: its journal):
// AwaitCheckpoint(ctx, Sequenced()) returns the first checkpoint that covers
// every append acknowledged so far. A backend that cannot know it (Trillian,
// whose queue the signer drains on its own) does not implement it.
type Sequencer interface {
	Sequenced() uint64
}

// Tiles is implemented by backends stored in the c2sp.org/tlog-tiles layout
// (the embedded backend): the HTTP handler serves their files verbatim.
type Tiles interface {
	// ReadTile returns hash tile (level, index) of width entries, 0 meaning
	// a full tile (256). A partial one is exactly width hashes, also once
	// the log holds only a wider or the full tile (the HTTP handler serves
	// it as immutable).
	ReadTile(ctx context.Context, level, index uint64, width uint8) ([]byte, error)
	// ReadEntryBundle returns entry bundle index of width entries, 0
	// meaning full; a partial one is exactly width entries, as ReadTile.
	ReadEntryBundle(ctx context.Context, index uint64, width uint8) ([]byte, error)
}

// CheckLeaf returns ErrInvalidLeaf, wrapped with a reason, for a leaf no
// backend accepts.
func CheckLeaf(leaf []byte) error {
	switch {
	case len(leaf) == 0:
		return fmt.Errorf("%w: leaf is empty", ErrInvalidLeaf)
	case len(leaf) > MaxLeafSize:
		return fmt.Errorf("%w: leaf of %d bytes exceeds the %d-byte maximum", ErrInvalidLeaf, len(leaf), MaxLeafSize)
	}
	return nil
}

// CheckRange validates an Entries request and clamps end to MaxEntries.
func CheckRange(start, end, treeSize uint64) (uint64, error) {
	if start >= end {
		return 0, fmt.Errorf("%w: start %d not below end %d", ErrInvalidRequest, start, end)
	}
	if end > treeSize {
		return 0, fmt.Errorf("%w: end %d beyond tree size %d", ErrInvalidRequest, end, treeSize)
	}
	if end-start > MaxEntries {
		end = start + MaxEntries
	}
	return end, nil
}
