package trillian

import (
	"context"
	"fmt"
	"time"

	tpb "github.com/google/trillian"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"
)

// CreateTree creates and initialises a new LOG tree through the admin API
// (served by trillian_log_server) and returns its ID. scripts/trillian.sh
// uses Trillian's createtree; tests use this for a fresh tree each.
func CreateTree(ctx context.Context, conn grpc.ClientConnInterface, name string) (int64, error) {
	return createTree(ctx, conn, name, tpb.TreeType_LOG)
}

// createTree is CreateTree for a tree of any type (tests create the
// PREORDERED_LOG trees Open must refuse).
func createTree(ctx context.Context, conn grpc.ClientConnInterface, name string, typ tpb.TreeType) (int64, error) {
	admin := tpb.NewTrillianAdminClient(conn)
	tree, err := admin.CreateTree(ctx, &tpb.CreateTreeRequest{Tree: &tpb.Tree{
		TreeState:       tpb.TreeState_ACTIVE,
		TreeType:        typ,
		DisplayName:     name,
		MaxRootDuration: durationpb.New(0),
	}})
	if err != nil {
		return 0, fmt.Errorf("trillian: couldn't create tree: %w", err)
	}
	logc := tpb.NewTrillianLogClient(conn)
	for {
		_, err := logc.InitLog(ctx, &tpb.InitLogRequest{LogId: tree.GetTreeId()})
		if err == nil {
			break
		}
		select {
		case <-ctx.Done():
			return 0, fmt.Errorf("trillian: couldn't init tree %d: %w", tree.GetTreeId(), err)
		case <-time.After(20 * time.Millisecond):
		}
	}
	// Wait until the initial root is readable.
	for {
		if _, err := logc.GetLatestSignedLogRoot(ctx, &tpb.GetLatestSignedLogRootRequest{LogId: tree.GetTreeId()}); err == nil {
			return tree.GetTreeId(), nil
		} else if ctx.Err() != nil {
			return 0, fmt.Errorf("trillian: tree %d has no root: %w", tree.GetTreeId(), err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// checkTree reads Config.TreeID's tree through the admin API (GetTree,
// served by trillian_log_server on the same connection) and refuses one
// that cannot take rngd's leaves, before anything is queued — the pending
// leaves included — or the pending file touched:
//
//   - not a LOG tree: a PREORDERED_LOG tree answers InvalidArgument to
//     every QueueLeaf (its leaves are sequenced by the caller, with
//     AddSequencedLeaves), so every append would be refused, and the
//     pending leaves could not be queued again;
//   - not ACTIVE: DRAINING and FROZEN trees answer PermissionDenied to
//     every QueueLeaf (a DRAINING tree still integrates its queue, a
//     FROZEN one nothing). The appliance exists to append draws: a tree
//     that takes none is a configuration to fix, not a log to open;
//   - deleted (GetTree still answers for a soft-deleted tree).
//
// Trillian v1.8 trees carry no hash strategy or signature algorithm any
// more (RFC 6962 SHA-256 is the only one, roots are unsigned): the leaf
// hash each QueueLeaf returns is still checked against RFC 6962 (append).
//
// A GetTree that fails for lack of an answer (Unavailable, a deadline, a
// server error) is an outage like a root that cannot be read: Open fails
// with ErrUnavailable and is retried as for any other outage at start.
// PermissionDenied, Unauthenticated or Unimplemented are not: they are the
// answer of a server or proxy that does not let rngd read its tree, which
// no retry changes, and opening without the check would take the tree on
// trust; they fail Open with an error naming what to allow.
func (l *Log) checkTree(ctx context.Context) error {
	id := l.cfg.TreeID
	rctx, cancel := l.rpcCtx(ctx)
	defer cancel()
	tree, err := tpb.NewTrillianAdminClient(l.cfg.Conn).GetTree(rctx, &tpb.GetTreeRequest{TreeId: id})
	switch status.Code(err) {
	case codes.OK:
	case codes.NotFound:
		return fmt.Errorf("trillian: no tree %d on the log server (Config.TreeID; scripts/trillian.sh creates a LOG tree): %w", id, err)
	case codes.PermissionDenied, codes.Unauthenticated, codes.Unimplemented:
		return fmt.Errorf("trillian: couldn't read tree %d with the admin API (GetTree), which rngd needs to check, before it queues any leaf, that the tree is an ACTIVE LOG tree: allow TrillianAdmin/GetTree for rngd's connection: %w", id, err)
	default:
		return rpcErr(fmt.Sprintf("couldn't read tree %d (GetTree)", id), err)
	}
	switch {
	case tree.GetDeleted():
		return fmt.Errorf("trillian: tree %d is deleted (UndeleteTree restores it until it is purged); rngd needs an ACTIVE LOG tree", id)
	case tree.GetTreeType() != tpb.TreeType_LOG:
		return fmt.Errorf("trillian: tree %d is a %s tree; rngd needs a LOG tree (scripts/trillian.sh creates one): QueueLeaf refuses its leaves", id, tree.GetTreeType())
	case tree.GetTreeState() != tpb.TreeState_ACTIVE:
		return fmt.Errorf("trillian: tree %d is %s, not ACTIVE: it takes no new leaves, and rngd must append draws (UpdateTree sets it ACTIVE again)", id, tree.GetTreeState())
	}
	return nil
}
