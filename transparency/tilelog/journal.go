package tilelog

import (
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"tirage.fr/tirage/transparency"
	"tirage.fr/tirage/transparency/atomicfile"
)

// The journal is the log's write-ahead journal: Append is acknowledged once
// its leaf is written to the journal, with its index, and the journal is
// synced (one fsync for every leaf that arrived meanwhile: a group commit).
// Tessera then integrates the journaled leaves, in journal order, in the
// background; at Open, the leaves journaled but not yet integrated are
// handed to tessera again before any new append. An acknowledged leaf is
// therefore never lost and never gets another index, and the reply to an
// append waits for one fsync instead of tessera's batch age and its
// sequence of file replacements.
//
// Files: journal/<first index, 20 digits>.wal, append-only segments of
// groups, one group per fsync:
//
//	header: "TJG1" ‖ first index (8) ‖ count (4) ‖ body length (4) ‖ CRC-32C of the body (4) ‖ CRC-32C of the 24 bytes before (4)
//	body:   count × (length (4) ‖ leaf)
//
// all big endian; the indices of a group are first .. first+count-1 and
// follow on from the group before, across segments. A group is written only
// after the one before it is synced (and acknowledged), so at Open a bad
// group is a torn write, never acknowledged, only when no whole group
// follows it (a valid header opening a body that matches its checksum,
// with a first index that can follow the bad group; a header alone may be
// bytes of a leaf of the torn group, see laterGroup). It is cut off. A bad
// group followed by a group, or in an older segment, is corruption: Open
// refuses the log. A segment is
// deleted once tessera has integrated all its leaves (and it is not the
// newest), and older segments wholly below the integrated size may be
// missing: a segment that reappears after a crash, before a gap, is only
// deleted again.
//
// Reused segments. The first integrated segment trim would delete is kept
// instead as journal/reuse.seg, and the next segment is that file renamed
// (its name made durable before any write), its groups written over the old
// ones from offset 0. A write inside the file's length changes no metadata
// the data needs, so fdatasync flushes the data without a file-system
// journal commit (PostgreSQL recycles its WAL segments for the same
// reason; docs/rngd.md, stop 50, has what it saves here). Only the newest
// segment may hold bytes after its last group, its previous life's: its
// groups end at a bad group with no whole later group, as for a torn
// write, or at a header whose first index is below the segment's own (an
// older group). Open cuts them off. A segment left for the next, and the
// newest at close, are first cut to their groups and synced, so an older
// segment, and a journal closed cleanly, end at their last group as before.
const (
	journalDir  = "journal"
	journalExt  = ".wal"
	groupHeader = 4 + 8 + 4 + 4 + 4 + 4
	// segmentBytes is the size past which the journal starts a new segment.
	segmentBytes = 16 << 20
	// reuseName is the integrated segment kept for the next segment.
	reuseName = "reuse.seg"
)

var (
	crcTable   = crc32.MakeTable(crc32.Castagnoli)
	groupMagic = [4]byte{'T', 'J', 'G', '1'}
)

// journal is the segment files. It is used by one goroutine at a time.
type journal struct {
	dir  string
	f    *os.File // the newest segment, open for writing
	size int64    // the length of its groups, where the next is written
	// spare says journal/reuse.seg is there, for the next segment.
	spare bool
	next  uint64 // index of the next record
	// segs are the segments' first indices, oldest first; the last is f's.
	segs []uint64
	buf  []byte
	// maxSegment is the size past which a new segment starts.
	maxSegment int64
	// synced, when set, is told how long each group's fsync took
	// (Config.JournalSynced).
	synced func(time.Duration)
}

// journalRecord is a leaf read back from the journal.
type journalRecord struct {
	index uint64
	leaf  []byte
}

func segmentName(first uint64) string { return fmt.Sprintf("%020d%s", first, journalExt) }

// openJournal opens the journal of a log of from leaves in dir, cuts off a
// torn tail, and returns the records it holds, in index order: those from
// index from on are the ones tessera has not integrated, those below are
// integrated and not yet trimmed (splitRecords). An empty journal starts at
// from. A torn tail cut off is logged to logger (nil: discarded).
func openJournal(dir string, from uint64, logger *slog.Logger) (*journal, []journalRecord, error) {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	if err := mkdirAll(dir); err != nil {
		return nil, nil, fmt.Errorf("couldn't create the journal directory: %w", err)
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("couldn't list the journal: %w", err)
	}
	j := &journal{dir: dir, next: from, maxSegment: segmentBytes}
	for _, e := range ents {
		name := e.Name()
		if !strings.HasSuffix(name, journalExt) {
			continue
		}
		first, err := strconv.ParseUint(strings.TrimSuffix(name, journalExt), 10, 64)
		if err != nil || segmentName(first) != name {
			return nil, nil, fmt.Errorf("%w: unexpected journal file %s", transparency.ErrSecurity, name)
		}
		j.segs = append(j.segs, first)
	}
	slices.Sort(j.segs)
	var all []journalRecord
	for i, first := range j.segs {
		last := i == len(j.segs)-1
		path := filepath.Join(dir, segmentName(first))
		raw, err := os.ReadFile(path)
		if err != nil {
			return nil, nil, fmt.Errorf("couldn't read journal segment: %w", err)
		}
		recs, good, torn, err := parseSegment(raw, first)
		if err != nil && (!last || !torn) {
			return nil, nil, fmt.Errorf("%w: journal segment %s: %w", transparency.ErrSecurity, segmentName(first), err)
		}
		// A gap is allowed below from only: the leaves missing from the
		// journal are integrated, and their segments were deleted while
		// an older one's deletion did not reach the disk (trim).
		if i > 0 && (first < j.next || first > j.next && first > from) {
			return nil, nil, fmt.Errorf("%w: journal segment %s does not follow index %d", transparency.ErrSecurity, segmentName(first), j.next-1)
		}
		if i == 0 && first > from {
			return nil, nil, fmt.Errorf("%w: the journal starts at index %d but the log holds only %d leaves", transparency.ErrSecurity, first, from)
		}
		j.next = first + uint64(len(recs))
		all = append(all, recs...)
		if last {
			// Cut a torn tail: it was never acknowledged.
			if good < len(raw) {
				if err := os.Truncate(path, int64(good)); err != nil {
					return nil, nil, fmt.Errorf("couldn't cut the journal's torn tail: %w", err)
				}
				// Its leaves would have started at j.next: groups follow
				// on from one another.
				level, msg := slog.LevelWarn, "transparency log journal: torn tail cut off (never acknowledged)"
				if olderGroup(raw[good:], first) {
					level, msg = slog.LevelInfo, "transparency log journal: a reused segment's older groups cut off"
				}
				logger.Log(context.Background(), level, msg,
					"segment", segmentName(first), "offset", good, "bytes", len(raw)-good, "index", j.next, "reason", err)
			}
			if j.f, err = os.OpenFile(path, os.O_WRONLY, 0o600); err != nil {
				return nil, nil, fmt.Errorf("couldn't open the journal: %w", err)
			}
			j.size = int64(good)
		}
	}
	if fi, err := os.Lstat(filepath.Join(dir, reuseName)); err == nil && fi.Mode().IsRegular() {
		j.spare = true
	}
	if j.next < from {
		// Everything journaled is integrated and old segments are gone, or
		// there is no journal yet: the next record continues the log.
		if j.f != nil && j.size > 0 {
			return nil, nil, fmt.Errorf("%w: the journal ends at index %d but the log holds %d leaves", transparency.ErrSecurity, j.next, from)
		}
		j.next = from
	}
	if j.f == nil || (j.size == 0 && j.segs[len(j.segs)-1] != j.next) {
		if j.f != nil {
			j.f.Close()
			os.Remove(filepath.Join(dir, segmentName(j.segs[len(j.segs)-1])))
			j.segs = j.segs[:len(j.segs)-1]
			j.f = nil
		}
		if err := j.newSegment(); err != nil {
			return nil, nil, err
		}
	}
	return j, all, nil
}

// splitRecords splits records in index order at index size: those tessera
// has integrated (a log of size leaves) and those it has not.
func splitRecords(recs []journalRecord, size uint64) (integrated, pending []journalRecord) {
	i, _ := slices.BinarySearchFunc(recs, size, func(r journalRecord, size uint64) int { return cmp.Compare(r.index, size) })
	return recs[:i], recs[i:]
}

// mkdirAll creates dir and its missing parents, as os.MkdirAll does, and
// makes their entries durable: the parent of each directory it creates is
// synced, else a power cut could lose the directory with what was synced in
// it.
func mkdirAll(dir string) error {
	var created []string
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := os.Stat(d); err == nil {
			break
		} else if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		created = append(created, d)
		if filepath.Dir(d) == d {
			break
		}
	}
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return err
	}
	for _, d := range created {
		if err := atomicfile.SyncDir(filepath.Dir(d)); err != nil {
			return err
		}
	}
	return nil
}

// groupHead is a parsed group header.
type groupHead struct {
	first         uint64
	count, length uint32
	crc           uint32
}

// parseHead parses the group header at the start of b.
func parseHead(b []byte) (groupHead, bool) {
	if len(b) < groupHeader || [4]byte(b[:4]) != groupMagic ||
		crc32.Checksum(b[:groupHeader-4], crcTable) != binary.BigEndian.Uint32(b[groupHeader-4:]) {
		return groupHead{}, false
	}
	return groupHead{
		first:  binary.BigEndian.Uint64(b[4:]),
		count:  binary.BigEndian.Uint32(b[12:]),
		length: binary.BigEndian.Uint32(b[16:]),
		crc:    binary.BigEndian.Uint32(b[20:]),
	}, true
}

// parseSegment returns the records of a segment whose first index is first
// and the length of its good groups. When a group is bad, err says why, and
// torn says whether it is a torn last write (see the file format above)
// rather than corruption.
func parseSegment(raw []byte, first uint64) (recs []journalRecord, good int, torn bool, err error) {
	want := first
	for off := 0; off < len(raw); {
		h, ok := parseHead(raw[off:])
		if !ok {
			return recs, off, !laterGroup(raw, off, want), errors.New("bad group header")
		}
		if h.first < first {
			return recs, off, true, fmt.Errorf("an older group (index %d) of a reused segment", h.first)
		}
		if h.first != want {
			return recs, off, false, fmt.Errorf("group starts at index %d, want %d", h.first, want)
		}
		end := off + groupHeader + int(h.length)
		if end > len(raw) {
			return recs, off, true, io.ErrUnexpectedEOF
		}
		body := raw[off+groupHeader : end]
		if crc32.Checksum(body, crcTable) != h.crc {
			return recs, off, !laterGroup(raw, off, want), errors.New("group checksum mismatch")
		}
		n := len(recs)
		if recs, err = parseBody(recs, body, want, h.count); err != nil {
			return recs[:n], off, false, err
		}
		want += uint64(h.count)
		off = end
	}
	return recs, len(raw), false, nil
}

// parseBody appends to recs the count records of a group body whose first
// index is first.
func parseBody(recs []journalRecord, body []byte, first uint64, count uint32) ([]journalRecord, error) {
	n := len(recs)
	for len(body) > 0 {
		if len(body) < 4 || int(binary.BigEndian.Uint32(body)) > min(len(body)-4, transparency.MaxLeafSize) {
			return recs, errors.New("malformed group body")
		}
		l := int(binary.BigEndian.Uint32(body))
		recs = append(recs, journalRecord{index: first + uint64(len(recs)-n), leaf: body[4 : 4+l]})
		body = body[4+l:]
	}
	if len(recs)-n != int(count) {
		return recs, fmt.Errorf("group holds %d records, its header says %d", len(recs)-n, count)
	}
	return recs, nil
}

// minRecord is the smallest record in a group body: a length and a
// one-byte leaf.
const minRecord = 4 + 1

// laterGroup reports whether a group follows the bad group at raw[off:],
// whose first index is want: then the bad group was synced and
// acknowledged (corruption), since a group is written only after the one
// before it is synced. A torn group may hold, inside one of its leaves,
// bytes that form a group header, so a header alone is no proof: it must
// open a whole group, its body matching its checksum, and its first index
// must follow want by at least one record and at most as many as fit
// between the two.
func laterGroup(raw []byte, off int, want uint64) bool {
	return anyHead(raw, off+1, func(i int, h groupHead) bool {
		if h.first <= want || h.first-want > uint64(max(i-off-groupHeader, 0)/minRecord) {
			return false
		}
		end := i + groupHeader + int(h.length)
		if end > len(raw) || crc32.Checksum(raw[i+groupHeader:end], crcTable) != h.crc {
			return false
		}
		_, err := parseBody(nil, raw[i+groupHeader:end], h.first, h.count)
		return err == nil
	})
}

// anyHead reports whether raw, from offset from on, holds a valid group
// header at some offset i for which match(i, header) holds.
func anyHead(raw []byte, from int, match func(i int, h groupHead) bool) bool {
	for i := from; ; i++ {
		j := bytes.Index(raw[i:], groupMagic[:])
		if j < 0 {
			return false
		}
		i += j
		if h, ok := parseHead(raw[i:]); ok && match(i, h) {
			return true
		}
	}
}

// olderGroup reports whether tail holds a group header whose first index is
// below first, the index of the segment it is in: bytes of a reused
// segment's previous life.
func olderGroup(tail []byte, first uint64) bool {
	return anyHead(tail, 0, func(_ int, h groupHead) bool { return h.first < first })
}

// appendGroup appends the group of leaves from index first to b.
func appendGroup(b []byte, first uint64, leaves [][]byte) []byte {
	start := len(b)
	b = append(b, make([]byte, groupHeader)...)
	for _, leaf := range leaves {
		b = binary.BigEndian.AppendUint32(b, uint32(len(leaf)))
		b = append(b, leaf...)
	}
	h := b[start : start+groupHeader]
	copy(h, groupMagic[:])
	binary.BigEndian.PutUint64(h[4:], first)
	binary.BigEndian.PutUint32(h[12:], uint32(len(leaves)))
	binary.BigEndian.PutUint32(h[16:], uint32(len(b)-start-groupHeader))
	binary.BigEndian.PutUint32(h[20:], crc32.Checksum(b[start+groupHeader:], crcTable))
	binary.BigEndian.PutUint32(h[24:], crc32.Checksum(h[:groupHeader-4], crcTable))
	return b
}

// newSegment starts a segment at j.next (and makes its name durable): the
// spare segment renamed, when there is one, else a new file. The segment
// it follows is first cut to its groups and synced.
func (j *journal) newSegment() error {
	if j.f != nil {
		if err := j.cutTail(); err != nil {
			return err
		}
	}
	path := filepath.Join(j.dir, segmentName(j.next))
	flags := os.O_WRONLY | os.O_CREATE | os.O_EXCL
	if j.spare {
		j.spare = false
		switch err := os.Rename(filepath.Join(j.dir, reuseName), path); {
		case err == nil:
			flags = os.O_WRONLY
		case !errors.Is(err, fs.ErrNotExist):
			return fmt.Errorf("couldn't reuse a journal segment: %w", err)
		}
	}
	f, err := os.OpenFile(path, flags, 0o600)
	if err != nil {
		return fmt.Errorf("couldn't create a journal segment: %w", err)
	}
	if err := atomicfile.SyncDir(j.dir); err != nil {
		f.Close()
		return err
	}
	if j.f != nil {
		j.f.Close()
	}
	j.f, j.size = f, 0
	j.segs = append(j.segs, j.next)
	return nil
}

// cutTail cuts the newest segment's file to its groups and syncs it, when
// it is longer (a reused segment's older bytes after them).
func (j *journal) cutTail() error {
	fi, err := j.f.Stat()
	if err == nil && fi.Size() > j.size {
		if err = j.f.Truncate(j.size); err == nil {
			err = j.f.Sync()
		}
	}
	if err != nil {
		return fmt.Errorf("couldn't cut a reused journal segment: %w", err)
	}
	return nil
}

// write journals leaves durably and returns the index of the first.
func (j *journal) write(leaves [][]byte) (uint64, error) {
	if j.size >= j.maxSegment {
		if err := j.newSegment(); err != nil {
			return 0, err
		}
	}
	first := j.next
	j.buf = appendGroup(j.buf[:0], first, leaves)
	if _, err := j.f.WriteAt(j.buf, j.size); err != nil {
		return 0, fmt.Errorf("couldn't write the journal: %w", err)
	}
	t0 := time.Now()
	if err := datasync(j.f); err != nil {
		return 0, fmt.Errorf("couldn't sync the journal: %w", err)
	}
	if j.synced != nil {
		j.synced(time.Since(t0))
	}
	j.size += int64(len(j.buf))
	j.next += uint64(len(leaves))
	if cap(j.buf) > 4<<20 {
		j.buf = nil
	}
	return first, nil
}

// trim deletes the segments (but the newest) whose leaves are all below
// size, the number of leaves tessera has integrated durably.
// The directory is synced after the deletions, though openJournal accepts
// an integrated segment that reappears after a crash anyway.
func (j *journal) trim(size uint64) error {
	removed := false
	for len(j.segs) > 1 && j.segs[1] <= size {
		path := filepath.Join(j.dir, segmentName(j.segs[0]))
		if !j.spare {
			// Kept for the next segment (see Reused segments above).
			err := os.Rename(path, filepath.Join(j.dir, reuseName))
			if err != nil && !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("couldn't keep an integrated journal segment: %w", err)
			}
			j.spare = err == nil
		} else if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("couldn't delete an integrated journal segment: %w", err)
		}
		j.segs = j.segs[1:]
		removed = true
	}
	if removed {
		return atomicfile.SyncDir(j.dir)
	}
	return nil
}

// close closes the newest segment, cut to its groups first when it is a
// reused one: a journal closed cleanly holds no older bytes, and reads as
// before segments were reused (an older rngd rolled back to reads it).
func (j *journal) close() error {
	if j.f == nil {
		return nil
	}
	return errors.Join(j.cutTail(), j.f.Close())
}
