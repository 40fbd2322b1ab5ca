package trillian

import "os"

// PendingHeader is the pending file's header, the whole of an emptied one.
const PendingHeader = pendingMagic

// ParsePending returns the leaves a pending file holds and the length of
// its well-formed prefix.
var ParsePending = parsePending

// AppendPendingRecord appends a leaf's record to a pending file's bytes.
var AppendPendingRecord = appendPendingRecord

// CreateTreeOfType is CreateTree for a tree of any type.
var CreateTreeOfType = createTree

// SetPendingWriteAt replaces the pending file's writes (nil: the real
// ones), before the appends that use it.
func (l *Log) SetPendingWriteAt(f func(*os.File, []byte, int64) (int, error)) {
	l.pendMu.Lock()
	defer l.pendMu.Unlock()
	l.pendWriteAt = f
}

// SetPendingSyncs replaces the pending file's fsyncs (of the file, of its
// directory) until the test ends; nil keeps the real one.
func SetPendingSyncs(t interface{ Cleanup(func()) }, file func(*os.File) error, dir func(string) error) {
	realFile, realDir := pendingSyncFile, pendingSyncDir
	t.Cleanup(func() { pendingSyncFile, pendingSyncDir = realFile, realDir })
	if file != nil {
		pendingSyncFile = file
	}
	if dir != nil {
		pendingSyncDir = dir
	}
}
