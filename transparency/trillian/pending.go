package trillian

// Leaves that may be queued but were never acknowledged.
//
// An Append that fails after its QueueLeaf was sent — the append timed out
// with the signer stalled, the QueueLeaf reply was lost, the append was
// woken by the log failing closed or by Close — leaves a leaf that Trillian
// may hold in its queue and integrate later, after its caller was told the
// draw failed. The caller (the game server) then retries with a new record:
// a new time, for a start a new secret and game id. Were both integrated,
// the log would hold two picks with the same predecessor (a forked game
// chain) or two starts for one ticket.
//
// So such a leaf is recorded in the pending file (Config.StateFile +
// ".pending") before Append returns its error, and the log fails closed.
// Open queues every pending leaf again — Trillian deduplicates identical
// leaves, so one already queued is not appended twice — and returns only
// once each is integrated in a tree it signed and verified
// (Config.PendingTimeout; past it Open fails with ErrUnavailable and rngd
// does not start), then removes the file. Whatever runs after Open (rngd's
// catch-up) finds those leaves in the log, and nothing can contradict them.
//
// The file is append-only: a header, then one record per leaf — its length
// (4 bytes, big-endian), the leaf, and a CRC-32C of both — written and
// fsynced (the directory too, when the write may have created the file)
// before the append's error is returned.
//
// A crash during that write (before its append returned) leaves a torn
// tail: an empty file, part of the header, or a last record too short for
// its length prefix, leaf and checksum. Open keeps the whole records before
// it, drops the tail with a warning naming its bytes, and rewrites the file
// durably before use (or removes it, with no whole record left): the append
// whose record was torn never returned, the case of rngd killed while an
// append waits. Anything else that does not parse — another header, a
// length out of range, a whole record failing its checksum, bytes after the
// last record that cannot begin one — is corruption, and refused: the
// leaves it held cannot be waited for.
//
// A write that fails while rngd runs leaves the same torn tail; the next
// write (the appends failing later were in flight when the log failed
// closed, and each one not recorded costs an operator a manual check)
// first cuts the file back to its last durable record and fsyncs the cut,
// then writes at that offset, the header first if no header is durable. So
// the file on disk is always whole records plus at most one torn batch.

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"golang.org/x/mod/sumdb/tlog"

	"tirage.fr/tirage/transparency"
	"tirage.fr/tirage/transparency/atomicfile"
)

// pendingSuffix names the pending file after Config.StateFile.
const pendingSuffix = ".pending"

// pendingMagic starts the pending file.
const pendingMagic = "tirage trillian pending leaves v1\n"

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// pendingPath is the pending file, "" without Config.StateFile.
func (l *Log) pendingPath() string {
	if l.cfg.StateFile == "" {
		return ""
	}
	return l.cfg.StateFile + pendingSuffix
}

// appendPendingRecord appends leaf's record to b.
func appendPendingRecord(b, leaf []byte) []byte {
	start := len(b)
	b = binary.BigEndian.AppendUint32(b, uint32(len(leaf)))
	b = append(b, leaf...)
	return binary.BigEndian.AppendUint32(b, crc32.Checksum(b[start:], castagnoli))
}

// parsePending returns the leaves a pending file holds, in order, and the
// length of its well-formed prefix (the header and the whole records; 0 if
// even the header is torn): data[n:] is a torn tail, which a crash while
// writing leaves. Corruption is an error naming the first malformed byte
// range.
func parsePending(data []byte) (leaves [][]byte, n int, err error) {
	if len(data) < len(pendingMagic) {
		if string(data) != pendingMagic[:len(data)] {
			return nil, 0, errors.New("no pending-leaves header")
		}
		return nil, 0, nil // torn header
	}
	if string(data[:len(pendingMagic)]) != pendingMagic {
		return nil, 0, errors.New("no pending-leaves header")
	}
	off := len(pendingMagic)
	for off < len(data) {
		rest := data[off:]
		if len(rest) < 4 {
			// A torn length prefix, if a length in range can begin so:
			// the smallest it can begin is in range (the largest is
			// not 0, with at least one byte missing).
			var lo [4]byte
			copy(lo[:], rest)
			if binary.BigEndian.Uint32(lo[:]) > transparency.MaxLeafSize {
				return nil, 0, fmt.Errorf("record %d at offset %d: %d bytes that cannot begin a record", len(leaves), off, len(rest))
			}
			break
		}
		n := binary.BigEndian.Uint32(rest)
		if n == 0 || n > transparency.MaxLeafSize {
			return nil, 0, fmt.Errorf("record %d at offset %d: leaf length %d out of range", len(leaves), off, n)
		}
		if uint64(len(rest)) < 4+uint64(n)+4 {
			// Torn, the file ending inside the record — unless a whole
			// record follows: then the length itself is damaged, and
			// taking it for a torn write would drop acknowledged records.
			if j, ok := wholeRecordAfter(data, off+4); ok {
				return nil, 0, fmt.Errorf("record %d at offset %d: leaf length %d runs past the end of the file, but a whole record starts at offset %d (a damaged length, not a torn write)", len(leaves), off, n, j)
			}
			break
		}
		body := rest[:4+n]
		if sum := binary.BigEndian.Uint32(rest[4+n:]); sum != crc32.Checksum(body, castagnoli) {
			return nil, 0, fmt.Errorf("record %d at offset %d: checksum mismatch", len(leaves), off)
		}
		leaves = append(leaves, append([]byte(nil), body[4:]...))
		off += 4 + int(n) + 4
	}
	return leaves, off, nil
}

// wholeRecordAfter reports the first offset from i where a whole record
// (a length in range, its leaf and a matching checksum) starts in data.
func wholeRecordAfter(data []byte, i int) (int, bool) {
	for ; i+4 <= len(data); i++ {
		n := binary.BigEndian.Uint32(data[i:])
		if n == 0 || n > transparency.MaxLeafSize || uint64(len(data)-i) < 4+uint64(n)+4 {
			continue
		}
		if binary.BigEndian.Uint32(data[i+4+int(n):]) == crc32.Checksum(data[i:i+4+int(n)], castagnoli) {
			return i, true
		}
	}
	return 0, false
}

// loadPending reads the pending file, if any, into l.pending.
func (l *Log) loadPending() error {
	path := l.pendingPath()
	if path == "" {
		return nil
	}
	raw, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("trillian: %w: couldn't read the pending-leaves file: %w", transparency.ErrUnavailable, err)
	}
	leaves, n, err := parsePending(raw)
	if err != nil {
		return fmt.Errorf("trillian: %w: pending-leaves file %s is corrupt (%v): it lists leaves of failed appends that Trillian may still integrate, which the log must not contradict; refusing to open. Check that the leaves of the appends that failed before the restart are in the log (or were never queued), then move the file away", transparency.ErrUnavailable, path, err)
	}
	if len(leaves) == 0 {
		// Torn before its first record was whole: the append it was
		// written for never returned.
		l.cfg.Logger.Warn("trillian: the pending-leaves file holds no whole record (a crash while its first record was written, before that append returned): removing it",
			"file", path, "dropped_bytes", len(raw))
		return l.removePending()
	}
	if n < len(raw) {
		l.cfg.Logger.Warn("trillian: the pending-leaves file ends with a torn record (a crash while it was written, before that append returned): dropping it, keeping the whole records before it",
			"file", path, "kept_records", len(leaves), "dropped_offset", n, "dropped_bytes", len(raw)-n)
		if err := atomicfile.Write(path, raw[:n], 0o600); err != nil {
			return fmt.Errorf("trillian: %w: couldn't drop the torn tail of the pending-leaves file %s: %w", transparency.ErrUnavailable, path, err)
		}
	}
	l.pendSize = int64(n)
	seen := make(map[tlog.Hash]bool, len(leaves))
	for _, leaf := range leaves {
		if h := tlog.RecordHash(leaf); !seen[h] {
			seen[h] = true
			l.pending = append(l.pending, leaf)
		}
	}
	return nil
}

// writePending durably appends leaves' records to the pending file (to
// l.pending alone without Config.StateFile). One writer at a time
// (recordPending).
//
// It writes at l.pendSize, the end of the file's last durable record (0:
// no durable header, the file absent or torn), never behind a torn write:
// after a failed write it first cuts the file back there, durably. Failing
// closed instead (refusing every later write) would leave the leaves of the
// appends failing after it unrecorded, each a manual check; the cut keeps
// the durable records intact, and a later write counts only if its own
// fsync succeeds.
func (l *Log) writePending(leaves [][]byte) (err error) {
	path := l.pendingPath()
	if path == "" {
		l.mu.Lock()
		l.pending = append(l.pending, leaves...)
		l.mu.Unlock()
		return nil
	}
	var b []byte
	flag := os.O_WRONLY
	fresh := l.pendSize == 0
	if fresh {
		// No durable header: whatever the file holds (a failed first
		// write's bytes) goes.
		flag |= os.O_CREATE | os.O_TRUNC
		b = append(b, pendingMagic...)
	}
	for _, leaf := range leaves {
		b = appendPendingRecord(b, leaf)
	}
	f, err := os.OpenFile(path, flag, 0o600)
	if err != nil {
		l.pendTorn = true
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err == nil && fresh {
			err = atomicfile.SyncDir(filepath.Dir(path))
		}
		if err != nil {
			l.pendTorn = true
			return
		}
		l.pendSize += int64(len(b))
	}()
	if l.pendTorn {
		// A failed write may have left bytes past the last durable
		// record: cut them, durably, before writing there again.
		if err := f.Truncate(l.pendSize); err != nil {
			return err
		}
		if err := f.Sync(); err != nil {
			return err
		}
		l.pendTorn = false
	}
	writeAt := (*os.File).WriteAt
	if l.pendWriteAt != nil {
		writeAt = l.pendWriteAt
	}
	if _, err := writeAt(f, b, l.pendSize); err != nil {
		return err
	}
	return f.Sync()
}

// pendingBatch is a group of leaves written to the pending file together:
// the appends woken at once by fail each record their leaf, with one fsync
// for the lot rather than one each.
type pendingBatch struct {
	leaves [][]byte
	done   chan struct{}
	err    error
}

// recordPending durably records leaf as possibly queued and returns once
// it is (or the write failed).
func (l *Log) recordPending(leaf []byte) error {
	l.pendMu.Lock()
	if l.pendNext == nil {
		l.pendNext = &pendingBatch{done: make(chan struct{})}
	}
	b := l.pendNext
	b.leaves = append(b.leaves, leaf)
	if l.pendWriting {
		l.pendMu.Unlock()
		<-b.done
		return b.err
	}
	l.pendWriting = true
	for l.pendNext != nil {
		cur := l.pendNext
		l.pendNext = nil
		l.pendMu.Unlock()
		cur.err = l.writePending(cur.leaves)
		close(cur.done)
		l.pendMu.Lock()
	}
	l.pendWriting = false
	l.pendMu.Unlock()
	<-b.done
	return b.err
}

// pendingNote says where a possibly queued leaf was recorded, for the
// append's error.
func (l *Log) pendingNote(err error) string {
	switch path := l.pendingPath(); {
	case err != nil:
		return fmt.Sprintf("COULD NOT RECORD THE LEAF in %s (%v): it may still be integrated, unacknowledged; check the log before retrying the draw", path, err)
	case path == "":
		return "leaf kept in memory only (no Config.StateFile): reopening does not wait for it"
	default:
		return fmt.Sprintf("leaf recorded in %s: reopening the log queues it again and waits until it is integrated", path)
	}
}

// removePending durably removes the pending file, once its leaves are
// integrated.
func (l *Log) removePending() error {
	l.pending = nil
	l.pendSize, l.pendTorn = 0, false
	path := l.pendingPath()
	if path == "" {
		return nil
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("trillian: %w: couldn't remove the pending-leaves file: %w", transparency.ErrUnavailable, err)
	}
	if err := atomicfile.SyncDir(filepath.Dir(path)); err != nil {
		return fmt.Errorf("trillian: %w: couldn't remove the pending-leaves file durably: %w", transparency.ErrUnavailable, err)
	}
	return nil
}

// settlePending queues the pending leaves again and waits, within
// Config.PendingTimeout, until each is integrated in a tree the appliance
// signed and verified (as any append's); then it removes the pending file.
// The follower must be running.
func (l *Log) settlePending(ctx context.Context) error {
	leaves := l.pending
	if len(leaves) == 0 {
		return nil
	}
	l.cfg.Logger.Warn("leaves of appends that failed before the log was reopened may still be queued in Trillian: queueing them again and waiting until they are integrated",
		"count", len(leaves), "file", l.pendingPath(), "timeout", l.cfg.PendingTimeout)
	pctx, cancel := context.WithTimeout(ctx, l.cfg.PendingTimeout)
	defer cancel()
	errs := make([]error, len(leaves))
	var wg sync.WaitGroup
	for i, leaf := range leaves {
		wg.Go(func() { _, _, errs[i] = l.append(pctx, leaf) })
	}
	wg.Wait()
	var first error
	failed := 0
	for _, err := range errs {
		if err != nil {
			failed++
			if first == nil || errors.Is(err, transparency.ErrSecurity) && !errors.Is(first, transparency.ErrSecurity) {
				first = err
			}
		}
	}
	if failed > 0 {
		if errors.Is(first, transparency.ErrSecurity) {
			return first
		}
		return fmt.Errorf("trillian: %w: %d of the %d leaves of appends that failed before (listed in %s) not integrated within %v (signer or database still stalled?): refusing to open, since a new append could contradict them: %w",
			transparency.ErrUnavailable, failed, len(leaves), l.pendingPath(), l.cfg.PendingTimeout, first)
	}
	l.cfg.Logger.Info("leaves of appends that failed before are integrated", "count", len(leaves))
	return l.removePending()
}
