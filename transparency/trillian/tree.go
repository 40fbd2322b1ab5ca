package trillian

import (
	"context"
	"fmt"
	"time"

	tpb "github.com/google/trillian"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/types/known/durationpb"
)

// CreateTree creates and initialises a new LOG tree through the admin API
// (served by trillian_log_server) and returns its ID. scripts/trillian.sh
// uses Trillian's createtree; tests use this for a fresh tree each.
func CreateTree(ctx context.Context, conn grpc.ClientConnInterface, name string) (int64, error) {
	admin := tpb.NewTrillianAdminClient(conn)
	tree, err := admin.CreateTree(ctx, &tpb.CreateTreeRequest{Tree: &tpb.Tree{
		TreeState:       tpb.TreeState_ACTIVE,
		TreeType:        tpb.TreeType_LOG,
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
