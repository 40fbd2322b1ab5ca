package trillian

// Leaves that may be queued but were never acknowledged.
//
// A leaf whose QueueLeaf was sent may be integrated by Trillian at any time
// later, whatever becomes of the append that sent it: the append may time
// out (signer or database stalled), lose its replies, be woken by the log
// failing closed or by Close — or rngd may be killed (SIGKILL, power loss)
// while it waits, before anything else is done. Its caller (the game
// server), told the draw failed or left without an answer, retries with a
// new record: a new time, for a start a new secret and game id. Were both
// integrated, the log would hold two picks with the same predecessor (a
// forked game chain) or two starts for one ticket.
//
// So the pending file (Config.StateFile + ".pending") is written ahead:
// Append records its leaf there, durably (written and fsynced), before it
// sends the QueueLeaf. However rngd stops, every leaf Trillian may hold
// unacknowledged is in the file. Open queues every leaf in the file again —
// Trillian deduplicates identical leaves, so one already queued or
// integrated is not appended twice — and returns only once each is
// integrated in a tree it signed and verified (Config.PendingTimeout; past
// it Open fails with ErrUnavailable and rngd does not start), then removes
// the file. Whatever Trillian answers, a leaf not integrated fails Open,
// the file kept as it is: Unavailable, a deadline or a lost reply are
// sent again until PendingTimeout, and a refusal (InvalidArgument, NotFound,
// PermissionDenied, FailedPrecondition, Unauthenticated, Unimplemented,
// ResourceExhausted: notQueued) proves only that this QueueLeaf queued
// nothing, not that the one sent before the restart did not — a tree
// named by mistake refuses every leaf, and dropping their records then
// would lose leaves Trillian may hold (Open first checks that the tree is
// an ACTIVE LOG tree, checkTree; the recovery's refusals are waited out
// the same way).
// Whatever runs after Open (rngd's catch-up) finds those leaves
// in the log, and nothing can contradict them. Open first fsyncs the file
// and its directory: a process killed between a write and its fsync left
// records in the page cache only, of leaves it had not queued — but which
// Open queues now. It queues and looks up 16 leaves at a time: a kill
// under load leaves hundreds of records (below), and all at once they
// overran the database.
//
// The file is a header, then one record per leaf — its length (4 bytes,
// big-endian), the leaf, and a CRC-32C of both. One writer, a goroutine
// started when there is work and gone when there is none, does everything
// to the file, one step at a time: it appends records after the last one,
// the leaves of the appends that arrived while it was busy written
// together, with one fsync for the lot (the directory's too, when the
// write creates the file). Each append waits for its own step only, and
// at most until its Config.AppendTimeout: a disk that hangs fails the
// append (before its QueueLeaf) and the log closed instead of holding it —
// its record may still land, and the next Open would queue it.
//
// A leaf recorded is outstanding until its append ends, in one of three
// ways:
//
//   - Acknowledged: its index was checked against a checkpoint the
//     appliance signed. Its record is dead: harmless (Open would find the
//     leaf integrated), kept until the file is emptied or rewritten.
//   - Refused: Trillian refused the QueueLeaf outright (invalid, unknown
//     tree, quota...), or the log failed closed or was closed before it
//     was sent, so Trillian does not hold the leaf. Before the error is
//     returned the file is rewritten without its record (as a compaction,
//     below): after a refusal by Trillian the log stays open and the
//     caller may retry at once, and the next Open must not integrate the
//     leaf behind the retry. (An append that finds the log closed or
//     failed closed before its write records nothing.) Killed before that
//     rewrite, it leaves its record: Open queues the leaf again, and
//     fails if Trillian refuses it again (above) — on an ACTIVE LOG tree
//     a leaf that passed CheckLeaf is refused only for a configuration
//     or a quota, which the operator fixes.
//   - Failed after its QueueLeaf was sent (timed out, replies lost, woken
//     by the log failing closed or by Close): it stays outstanding, its
//     record in the file until the next Open or the recovery from the
//     outage (Config.Resync), and the log fails closed (but for Close,
//     which closes it).
//
// When no leaf is outstanding and the file holds dead records, it is
// emptied: cut back to its header (ftruncate, fsync) before the append
// whose end left nothing outstanding returns (unless a write is queued or
// running: its leaves will be outstanding). An emptied file (the header
// alone) holds nothing to wait for, and takes the next records after its
// header.
// Under a load that always keeps some append outstanding, the file is
// compacted instead: once its dead records reach 64 KiB and outweigh the
// outstanding ones, or number 64 and outnumber them, the next write
// replaces the file with the outstanding records and its own (atomicfile:
// a temporary file, fsync, rename, directory fsync), so the file stays
// below about twice the outstanding records plus 64 KiB, and holds at most
// about twice as many records as are outstanding plus 64
// (pendingCompactRecords): what a kill leaves for Open to look up. The
// cuts and rewrites are the writer's too, never concurrent with a write,
// and the outstanding leaves are counted under the lock that adds them
// (once written) and settles them: neither ever drops the record of an
// outstanding leaf — one whose append is between
// its write and its acknowledgement, or failed after its QueueLeaf was
// sent. So the cost of the write-ahead is one fsync per batch of appends
// before their QueueLeaf, plus, when appends are spaced out, one for the
// cut after each.
//
// A crash during a write leaves a torn tail: an empty file, part of the
// header, or a last record too short for its length prefix, leaf and
// checksum — or zeros: a power loss during an appending write may leave
// the file longer than its data, the rest reading as zeros (XFS, ext4
// with data=writeback), so the tail may be, or end with, zeros to the end
// of the file (after part of the header, after the last whole record) —
// zeros that may begin inside the last record too: part of a record, then
// zeros to the end of the file, its checksum all zeros or cut by them (the
// bytes of it written matching its leaf), cannot be whole, and is torn
// (tornRecord). Only the last write can be torn — every record is
// written and fsynced before its QueueLeaf is sent, and the next write
// waits for that fsync — and the appends whose records it tore had not
// sent their QueueLeaf and never returned: Trillian does not hold their
// leaves. Open keeps the whole records before the tail, drops the tail
// with a warning naming its bytes, and rewrites the file durably before
// use (or removes it, with no whole record left). Anything else that does
// not parse — another header, a length out of range (a zero length
// followed by anything but zeros included), a record failing its checksum
// that is followed by anything but zeros, or whose checksum is there
// whole, or the bytes of it there not its leaf's (the file cut, or zeros,
// inside it), bytes after the last record that cannot begin one, a record
// torn so but for a whole record after it (a damaged length) — is
// corruption, and refused: the leaves it held cannot be waited for.
//
// A write, cut or rewrite that fails while rngd runs leaves the file as it
// was or with the same torn tail (a failed write), the old file or the new
// one (a failed rewrite), its records or its header alone (a failed cut);
// the log writes to it no more, and fails closed at once (an outage: the
// recovery reads the file again as Open does, see Config.Resync). The
// appends whose write failed, and every later one, fail before their
// QueueLeaf: a record whose write failed may be whole on disk, and the
// next Open, or the recovery, waits for its leaf as for the others. So does an append refused by Trillian
// whose record could not be removed. The file on disk is thus always
// whole records plus at most one torn batch, at its end.
//
// Without Config.StateFile nothing is written ahead: the leaf of an append
// that fails after its QueueLeaf was sent is kept in memory, and a
// reopened log waits for none (tests only; rngd always sets it).

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	"golang.org/x/mod/sumdb/tlog"
	"google.golang.org/grpc/status"

	"tirage.fr/tirage/transparency"
	"tirage.fr/tirage/transparency/atomicfile"
)

// pendingSuffix names the pending file after Config.StateFile.
const pendingSuffix = ".pending"

// pendingMagic starts the pending file.
const pendingMagic = "tirage trillian pending leaves v1\n"

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// The pending file's fsyncs; tests replace them to check their order.
var (
	pendingSyncFile = (*os.File).Sync
	pendingSyncDir  = atomicfile.SyncDir
)

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
	if len(data) < len(pendingMagic) || string(data[:len(pendingMagic)]) != pendingMagic {
		// A torn header: part of it, then maybe zeros (the header holds
		// none) — the file's first write, whose records were not durable
		// either.
		k := 0
		for k < len(data) && k < len(pendingMagic) && data[k] == pendingMagic[k] {
			k++
		}
		if !allZero(data[k:]) {
			return nil, 0, errors.New("no pending-leaves header")
		}
		return nil, 0, nil
	}
	off := len(pendingMagic)
	for off < len(data) {
		rest := data[off:]
		if allZero(rest) {
			// Zeros to the end of the file: a file system that extended
			// the file in a crash (power loss during an appending write)
			// before the data reached the disk, as XFS or ext4 with
			// data=writeback may. No record is all zeros (its length
			// is not 0), so this is the unwritten part of the last
			// write, whose fsync never returned: its QueueLeafs were
			// not sent. Zeros followed by anything else are damage.
			break
		}
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
		if uint64(len(rest)) >= 4+uint64(n)+4 {
			body := rest[:4+n]
			if binary.BigEndian.Uint32(rest[4+n:]) == crc32.Checksum(body, castagnoli) {
				leaves = append(leaves, append([]byte(nil), body[4:]...))
				off += 4 + int(n) + 4
				continue
			}
		}
		if !tornRecord(data, off, n) {
			return nil, 0, fmt.Errorf("record %d at offset %d: checksum mismatch", len(leaves), off)
		}
		// Torn — unless a whole record follows: then the length itself is
		// damaged, and taking it for a torn write would drop acknowledged
		// records.
		if j, ok := wholeRecordAfter(data, off+4); ok {
			return nil, 0, fmt.Errorf("record %d at offset %d: leaf length %d runs past the end of the file or into the zeros that end it, but a whole record starts at offset %d (a damaged length, not a torn write)", len(leaves), off, n, j)
		}
		break
	}
	return leaves, off, nil
}

// tornRecord reports whether the record at off, of leaf length n, not
// whole (the file ends inside it, or its checksum does not match), is the
// last write torn: its bytes, from some point on, are missing — the file
// ends — or zeros to the end of the file (a power loss that left the file
// longer than its data, see parsePending). Then it cannot be whole: either
// no byte of its checksum is there (the file or the bytes written end in
// its length or its leaf), or those that are match its leaf's, as the
// beginning of the record written would. A record whose checksum is there
// whole but does not match, or whose bytes of it written do not match,
// is corruption, and so is one followed by anything but zeros. (A whole
// checksum reads as zeros by chance one time in 2^32.)
func tornRecord(data []byte, off int, n uint32) bool {
	z := len(data) // data[z:] is zeros, data[z-1] is not
	for z > off && data[z-1] == 0 {
		z--
	}
	sumAt := off + 4 + int(n)
	switch {
	case z >= sumAt+4:
		return false // the whole record is there
	case z <= sumAt:
		return true // no checksum byte written
	}
	var w [4]byte
	binary.BigEndian.PutUint32(w[:], crc32.Checksum(data[off:sumAt], castagnoli))
	return bytes.Equal(data[sumAt:z], w[:z-sumAt])
}

// allZero reports whether b holds only zeros (or nothing).
func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
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

// loadPending reads the pending file, if any, into l.pending (at Open, or
// in the recovery, once nothing else uses the file: pendingQuiet).
func (l *Log) loadPending() error {
	path := l.pendingPath()
	if path == "" {
		return nil // l.pending: the leaves kept in memory
	}
	l.pending, l.pendSize = nil, 0
	raw, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("trillian: %w: couldn't read the pending-leaves file: %w", transparency.ErrUnavailable, err)
	}
	leaves, n, err := parsePending(raw)
	if err != nil {
		return fmt.Errorf("trillian: %w: pending-leaves file %s is corrupt (%v): it lists leaves that Trillian may still integrate, which the log must not contradict; refusing to open. Check that the leaves of the appends that failed or were cut short before the restart are in the log (or were never queued), then move the file away", transparency.ErrUnavailable, path, err)
	}
	if len(leaves) == 0 {
		if n > 0 && n == len(raw) {
			// The header alone: the file was emptied, nothing to wait
			// for. Records go after it (once it is durable).
			l.pendSize = int64(n)
			return l.syncPending()
		}
		// Torn before its first record was whole: the append it was
		// written for had not sent its QueueLeaf, and never returned.
		l.cfg.Logger.Warn("trillian: the pending-leaves file holds no whole record (a crash while its first record was written, before that leaf was queued; what was not written may read as zeros): removing it",
			"file", path, "dropped_bytes", len(raw))
		return l.removePending()
	}
	if n < len(raw) {
		l.cfg.Logger.Warn("trillian: the pending-leaves file ends with a torn record (a crash while it was written, before its leaf was queued; what was not written may read as zeros): dropping it, keeping the whole records before it",
			"file", path, "kept_records", len(leaves), "dropped_offset", n, "dropped_bytes", len(raw)-n)
		if err := atomicfile.Write(path, raw[:n], 0o600); err != nil {
			return fmt.Errorf("trillian: %w: couldn't drop the torn tail of the pending-leaves file %s: %w", transparency.ErrUnavailable, path, err)
		}
	} else if err := l.syncPending(); err != nil {
		return err
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

// syncPending makes the pending file as read durable, its directory entry
// included, before Open queues its leaves again or appends records to it:
// a process killed after a write but before its fsync (or before the
// directory's, the file new) leaves records in the page cache only —
// records of leaves it had not queued, but which Open queues now.
func (l *Log) syncPending() error {
	path := l.pendingPath()
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err == nil {
		err = pendingSyncFile(f)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err == nil {
		err = pendingSyncDir(filepath.Dir(path))
	}
	if err != nil {
		return fmt.Errorf("trillian: %w: couldn't make the pending-leaves file %s durable before using it: %w", transparency.ErrUnavailable, path, err)
	}
	return nil
}

// pendingCompact is how many bytes of dead records the pending file may
// hold, with appends outstanding, before a write replaces it without them
// (if they also outweigh the outstanding records). A kill leaves at most
// that many, which the next Open queues again (deduplicated) and finds
// integrated.
const pendingCompact = 64 << 10

// pendingCompactRecords bounds the dead records the same way, by count (if
// they also outnumber the outstanding ones): draw records are small (a few
// hundred bytes), so 64 KiB of them is hundreds of records, and each costs
// the next Open, or the recovery from an outage, a QueueLeaf answered
// "already exists" and a lookup by hash. 64 of them are four rounds of
// settleWorkers calls (well under a second on a healthy stack), while the
// rewrite that drops them — a temporary file, two fsyncs, a rename — comes
// at most once per 64 acknowledged appends under constant load, against
// the fsync per batch that every append pays anyway; outnumbering the
// outstanding records keeps each rewrite's copy of them paid for by the
// dead records it drops. A kill then leaves at most about twice the
// outstanding records plus 64 for Open to look up.
const pendingCompactRecords = 64

// pendingLeaf is a leaf recorded in the pending file; it is outstanding
// (in l.pendLive) from its write until its append ends.
type pendingLeaf struct {
	leaf []byte
	size int64 // its record's bytes
}

// pendingBatch is work for the pending file's writer, and what the appends
// that asked for it wait on: leaves to record (those of the appends that
// arrived while the writer was busy: one write, one fsync for the lot), a
// rewrite that drops the records of the leaves refused meanwhile
// (l.pendDrop), or the file's emptying (l.pendCut).
type pendingBatch struct {
	leaves []*pendingLeaf
	done   chan struct{} // closed once done, or failed (err)
	err    error
}

func newPendingBatch() *pendingBatch { return &pendingBatch{done: make(chan struct{})} }

// wait returns once b is done, with its error, or once ctx ends: the
// writer may be stuck in a write that does not return (a hung disk), and
// an append gives up after Config.AppendTimeout whatever holds it.
func (b *pendingBatch) wait(ctx context.Context) error {
	select {
	case <-b.done:
		return b.err
	case <-ctx.Done():
		select {
		case <-b.done:
			return b.err
		default:
		}
		return fmt.Errorf("not done when the append gave up (disk stalled?): %w", ctx.Err())
	}
}

// recordPending durably records leaf in the pending file, outstanding,
// and returns once it is, or the write failed, or ctx ended (the record
// may then be written yet: the caller fails the log closed). With
// Config.StateFile only.
func (l *Log) recordPending(ctx context.Context, leaf []byte) (*pendingLeaf, error) {
	p := &pendingLeaf{leaf: leaf, size: int64(4 + len(leaf) + 4)}
	l.pendMu.Lock()
	if l.pendNext == nil {
		l.pendNext = newPendingBatch()
	}
	b := l.pendNext
	b.leaves = append(b.leaves, p)
	l.pendingKick()
	l.pendMu.Unlock()
	if err := b.wait(ctx); err != nil {
		return nil, err
	}
	return p, nil
}

// pendingAcked settles p: its leaf is integrated, its index verified. Its
// record is dead; with no leaf outstanding any more the file is emptied,
// before pendingAcked returns (or ctx ends) — unless a write is queued or
// running, whose leaves will be outstanding. A failed cut fails the log
// closed (pendingIO); the append was acknowledged all the same.
func (l *Log) pendingAcked(ctx context.Context, p *pendingLeaf) {
	l.pendMu.Lock()
	delete(l.pendLive, p)
	l.pendLiveBytes -= p.size
	l.pendDead += p.size
	l.pendDeadRecords++
	var b *pendingBatch
	if l.pendEmptiable() && l.pendNext == nil && !l.pendRecording {
		if l.pendCut == nil {
			l.pendCut = newPendingBatch()
		}
		b = l.pendCut
		l.pendingKick()
	}
	l.pendMu.Unlock()
	if b != nil {
		_ = b.wait(ctx) // a failed cut: the writer fails the log closed
	}
}

// pendingRefused settles p: Trillian does not hold its leaf. It returns
// once the file is rewritten without p's record, durably, or that failed,
// or ctx ended (the record may stay: the caller fails the log closed).
func (l *Log) pendingRefused(ctx context.Context, p *pendingLeaf) error {
	l.pendMu.Lock()
	delete(l.pendLive, p)
	l.pendLiveBytes -= p.size
	if l.pendDrop == nil {
		l.pendDrop = newPendingBatch()
	}
	b := l.pendDrop
	l.pendingKick()
	l.pendMu.Unlock()
	return b.wait(ctx)
}

// pendingQuiet reports whether nothing but the recovery can use the
// pending file until the log's failure is cleared: no append is between
// enter and leave (none enters while the log is failed; those in flight
// when it failed settle their records first) and the writer is idle (only
// appends start it). Then it forgets the writer's state, for the recovery
// to read the file again as Open does: after a failed write only the file
// tells what it holds.
func (l *Log) pendingQuiet() bool {
	l.mu.Lock()
	n := l.appending
	l.mu.Unlock()
	if n > 0 {
		return false
	}
	l.pendMu.Lock()
	defer l.pendMu.Unlock()
	if l.pendWriting {
		return false
	}
	l.pendLive, l.pendLiveBytes, l.pendDead, l.pendDeadRecords, l.pendErr = nil, 0, 0, 0, nil
	return true
}

// pendingKick starts the writer unless it runs (pendMu held). Only appends
// start it (Close waits for them, then for the writer).
func (l *Log) pendingKick() {
	if l.pendWriting {
		return
	}
	l.pendWriting = true
	l.pendWG.Add(1)
	go l.pendingRun()
}

// pendingRun is the pending file's writer: one goroutine at a time, which
// takes the work queued, one step after another, until none is left. The
// appends wait for their own step only, and none writes for another.
func (l *Log) pendingRun() {
	defer l.pendWG.Done()
	// The appends woken together (the follower hands out a sequenced batch
	// of indices at once, and each appender's next draw follows) queue
	// their leaves before the first write takes them: one fsync for the
	// lot, not one for the first leaf, then one for the rest.
	runtime.Gosched()
	l.pendMu.Lock()
	defer l.pendMu.Unlock()
	for l.pendingStep() {
	}
	l.pendWriting = false
}

// pendEmptiable reports whether the file holds dead records and no
// outstanding one: it can be cut back to its header (pendMu held).
func (l *Log) pendEmptiable() bool {
	return len(l.pendLive) == 0 && l.pendDead > 0 && l.pendErr == nil
}

// pendingStep is one step of the writer: a rewrite dropping refused records
// if one is queued, else a write of the next batch, else, with no record
// outstanding, the file's emptying. It reports whether it did one. pendMu
// held, released during I/O.
//
// The rewrites and the cut keep every outstanding record: the outstanding
// set is read under pendMu, and leaves join it only here, once written,
// so none can be missing from a snapshot and still be in the file. Dead
// records in the old file go; those of the leaves acknowledged during the
// rewrite are in the new file, and stay counted as dead.
func (l *Log) pendingStep() bool {
	if l.pendLive == nil {
		l.pendLive = make(map[*pendingLeaf]struct{})
	}
	if b := l.pendDrop; b != nil {
		l.pendDrop = nil
		keep, dead, deadN := l.liveLeaves(), l.pendDead, l.pendDeadRecords
		if b.err = l.pendingIO(func() error { return l.rewritePending(keep) }); b.err == nil {
			l.pendDead -= dead
			l.pendDeadRecords -= deadN
		}
		close(b.done)
		return true
	}
	if b := l.pendNext; b != nil {
		l.pendNext = nil
		leaves := make([][]byte, len(b.leaves))
		for i, p := range b.leaves {
			leaves[i] = p.leaf
		}
		var keep [][]byte
		dead, deadN := l.pendDead, l.pendDeadRecords
		compact := dead >= pendingCompact && dead >= l.pendLiveBytes ||
			deadN >= pendingCompactRecords && deadN >= len(l.pendLive)
		if compact {
			keep = l.liveLeaves()
		}
		l.pendRecording = true
		b.err = l.pendingIO(func() error {
			if compact {
				return l.rewritePending(append(keep, leaves...))
			}
			return l.writePending(leaves)
		})
		l.pendRecording = false
		if b.err == nil {
			if compact {
				l.pendDead -= dead
				l.pendDeadRecords -= deadN
			}
			// Outstanding from now on, even those whose appends gave up
			// waiting (they failed the log closed): their records may
			// have been read from disk by then.
			for _, p := range b.leaves {
				l.pendLive[p] = struct{}{}
				l.pendLiveBytes += p.size
			}
		}
		close(b.done)
		return true
	}
	cut := l.pendCut
	l.pendCut = nil
	if l.pendEmptiable() {
		// No leaf outstanding: none joins the set during the cut.
		err := l.pendingIO(func() error { return l.rewritePending(nil) })
		if err == nil {
			l.pendDead, l.pendDeadRecords = 0, 0
		}
		if cut != nil {
			cut.err = err
			close(cut.done)
		}
		return true
	}
	if cut != nil {
		close(cut.done) // nothing to cut any more
	}
	return false
}

// liveLeaves returns the outstanding leaves (pendMu held).
func (l *Log) liveLeaves() [][]byte {
	out := make([][]byte, 0, len(l.pendLive))
	for p := range l.pendLive {
		out = append(out, p.leaf)
	}
	return out
}

// pendingIO runs op, the writer's I/O, with pendMu released. After one
// fails the file is written no more — op is not run, the failure returned
// — and the log fails closed at once: records whose write failed may be
// whole on disk, a rewrite may have left the old file or the new one.
func (l *Log) pendingIO(op func() error) error {
	if l.pendErr != nil {
		return fmt.Errorf("an earlier write of the pending-leaves file failed: %w", l.pendErr)
	}
	l.pendMu.Unlock()
	err := op()
	if err != nil {
		l.fail(fmt.Errorf("trillian: %w: couldn't write the pending-leaves file %s (%w): it is written no more (until it is read again, as Open reads it); %s", transparency.ErrUnavailable, l.pendingPath(), err, l.refusedUntil()))
	}
	l.pendMu.Lock()
	if err != nil {
		l.pendErr = err
	}
	return err
}

// writePending durably appends leaves' records to the pending file at
// l.pendSize, the end of its last durable record (0: no file, which it
// creates with its header). The writer's.
func (l *Log) writePending(leaves [][]byte) (err error) {
	path := l.pendingPath()
	var b []byte
	flag := os.O_WRONLY
	fresh := l.pendSize == 0
	if fresh {
		flag |= os.O_CREATE | os.O_TRUNC
		b = append(b, pendingMagic...)
	}
	for _, leaf := range leaves {
		b = appendPendingRecord(b, leaf)
	}
	f, err := os.OpenFile(path, flag, 0o600)
	if err != nil {
		return err
	}
	writeAt := (*os.File).WriteAt
	if l.pendWriteAt != nil {
		writeAt = l.pendWriteAt
	}
	if _, err = writeAt(f, b, l.pendSize); err == nil {
		err = pendingSyncFile(f)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil && fresh {
		err = pendingSyncDir(filepath.Dir(path))
	}
	if err != nil {
		return err
	}
	l.pendSize += int64(len(b))
	return nil
}

// rewritePending makes the pending file hold exactly leaves' records,
// durably: without leaves, cut back to its header (ftruncate, fsync);
// else replaced whole (atomicfile). The writer's.
func (l *Log) rewritePending(leaves [][]byte) error {
	path := l.pendingPath()
	if len(leaves) == 0 {
		head := int64(len(pendingMagic))
		if l.pendSize <= head {
			return nil
		}
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		if err = f.Truncate(head); err == nil {
			err = pendingSyncFile(f)
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
		l.pendSize = head
		return nil
	}
	b := []byte(pendingMagic)
	for _, leaf := range leaves {
		b = appendPendingRecord(b, leaf)
	}
	if err := atomicfile.Write(path, b, 0o600); err != nil {
		return err
	}
	l.pendSize = int64(len(b))
	return nil
}

// keepPending keeps the leaf of a failed append in memory, without
// Config.StateFile (nothing reopened waits for it).
func (l *Log) keepPending(leaf []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.pending = append(l.pending, leaf)
}

// pendingNote says where the leaf of an append that failed after its
// QueueLeaf was sent is recorded, for the append's error.
func (l *Log) pendingNote() string {
	path := l.pendingPath()
	if path == "" {
		return "leaf kept in memory only (no Config.StateFile): reopening does not wait for it"
	}
	return fmt.Sprintf("leaf recorded in %s before it was queued: reopening the log (or its recovery) queues it again and waits until it is integrated", path)
}

// removePending durably removes the pending file, once its leaves are
// integrated.
func (l *Log) removePending() error {
	l.pending = nil
	l.pendSize = 0
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

// settleWorkers bounds the pending leaves Open queues and looks up at once.
// A kill under load leaves up to twice the outstanding records plus
// pendingCompactRecords dead ones, whose leaves are integrated (each costs
// a QueueLeaf answered AlreadyExists, then a lookup by hash): with the
// outstanding ones, hundreds of records under load, and all at once they
// overran the database, whose calls timed out.
const settleWorkers = 16

// settlePending queues the pending leaves again and waits, within
// Config.PendingTimeout, until each is integrated in a tree the appliance
// signed and verified (as any append's); then it removes the pending file.
// The follower must be running. Open calls it, and so does the recovery
// from an outage (recovering), with nothing else using the file.
func (l *Log) settlePending(ctx context.Context, recovering bool) error {
	leaves := l.pending
	if len(leaves) == 0 {
		return nil
	}
	when, then := "before the log was reopened", "refusing to open"
	if recovering {
		when, then = "before or during the outage", "appends still refused"
	}
	l.cfg.Logger.Warn("trillian: the pending-leaves file lists leaves recorded "+when+" (appends in flight or failed then, and acknowledged ones not yet cleared): they may still be queued in Trillian, queueing them again and waiting until they are integrated",
		"count", len(leaves), "file", l.pendingPath(), "timeout", l.cfg.PendingTimeout)
	pctx, cancel := context.WithTimeout(ctx, l.cfg.PendingTimeout)
	defer cancel()
	errs := make([]error, len(leaves))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(settleWorkers, len(leaves)) {
		wg.Go(func() {
			for i := range next {
				_, _, errs[i] = l.append(pctx, leaves[i], true)
			}
		})
	}
	for i := range leaves {
		next <- i
	}
	close(next)
	wg.Wait()
	// The first error reported: a security failure, else a refusal, else
	// any.
	rank := func(err error) int {
		switch {
		case errors.Is(err, transparency.ErrSecurity):
			return 2
		case notQueued(err):
			return 1
		}
		return 0
	}
	var first error
	failed, refused := 0, 0
	for _, err := range errs {
		if err != nil {
			failed++
			if notQueued(err) {
				refused++
			}
			if first == nil || rank(err) > rank(first) {
				first = err
			}
		}
	}
	switch {
	case failed == 0:
	case errors.Is(first, transparency.ErrSecurity):
		return first
	case refused > 0:
		// Not dropped, whatever the refusal: it says that this QueueLeaf
		// queued nothing, not that none sent before did (a PREORDERED_LOG
		// or another tree named by mistake refuses every leaf).
		return fmt.Errorf("trillian: %w: %d of the %d leaves recorded %s (appends in flight or failed then, listed in %s) not integrated, %d of them refused by Trillian (%s): a refusal does not prove that no QueueLeaf sent before queued the leaf; %s, the file kept, since a new append could contradict them: check that tree %d is the ACTIVE LOG tree they were appended to: %w",
			transparency.ErrUnavailable, failed, len(leaves), when, l.pendingPath(), refused, status.Code(first), then, l.cfg.TreeID, first)
	default:
		return fmt.Errorf("trillian: %w: %d of the %d leaves recorded %s (appends in flight or failed then, listed in %s) not integrated within %v (signer or database still stalled?): %s, since a new append could contradict them: %w",
			transparency.ErrUnavailable, failed, len(leaves), when, l.pendingPath(), l.cfg.PendingTimeout, then, first)
	}
	l.cfg.Logger.Info("trillian: the leaves recorded "+when+" are integrated", "count", len(leaves))
	return l.removePending()
}
