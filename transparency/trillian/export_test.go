package trillian

// PendingHeader is the pending file's header, the whole of an emptied one.
const PendingHeader = pendingMagic

// ParsePending returns the leaves a pending file holds and the length of
// its well-formed prefix.
var ParsePending = parsePending
