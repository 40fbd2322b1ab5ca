package transparency

import (
	"context"
	"errors"
	"log/slog"

	"golang.org/x/mod/sumdb/tlog"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	auditpb "tirage.fr/tirage/transparency/auditpb/v1"
)

// NewAuditServer returns the read-only gRPC auditor service over a log (any
// backend). Register it with auditpb.RegisterAuditServer.
//
// Status codes: InvalidArgument for a malformed request (the message names
// the field), NotFound for a tree size beyond the latest checkpoint or an
// unknown leaf hash, Unavailable when the backend fails (retry), DataLoss for
// an ErrSecurity (the storage contradicts a signed checkpoint).
//
// A failure of the log reaches the auditor as its kind only (the code and
// a message of this package's); its own words go to logger, at error level
// (nil: discarded).
func NewAuditServer(l Log, logger *slog.Logger) auditpb.AuditServer {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &auditServer{l: l, log: logger}
}

// MaxEntriesBytes bounds an Entries answer (at least one entry always),
// below gRPC's default 4 MiB receive limit; entryOverhead is a generous
// bound on the protobuf framing of one entry (tag and length). An answer
// the client does not read stays in the server's memory until its
// connection ends: the server's bound on an auditor's connections and
// their calls (rngd: audit.max_connections, auditMaxConcurrentStreams)
// times this is what anonymous auditors can make it hold. 1024 entries of
// an honest log's few hundred bytes fit.
const (
	MaxEntriesBytes = 1 << 20
	entryOverhead   = 8
)

type auditServer struct {
	auditpb.UnimplementedAuditServer
	l   Log
	log *slog.Logger
}

// fail is err as the auditor gets it (grpcError); a failure of the log is
// logged whole first.
func (s *auditServer) fail(ctx context.Context, err error) error {
	st := grpcError(err)
	switch status.Code(st) {
	case codes.InvalidArgument, codes.NotFound, codes.Canceled, codes.DeadlineExceeded:
	default:
		s.log.ErrorContext(ctx, "audit call failed", "code", status.Code(st).String(), "err", err)
	}
	return st
}

// grpcError is err as an auditor reads it. A refusal of the request
// (InvalidArgument, NotFound) says what was asked amiss; a failure of the
// log says only what kind it is, as the HTTP surface does (httpError): its
// own words (file paths, the database's or Trillian's errors) are the
// operator's, in rngd's health, log and metrics, not anyone's who reaches
// the auditors' listener.
func grpcError(err error) error {
	switch {
	case errors.Is(err, ErrInvalidRequest):
		return status.Error(codes.InvalidArgument, err.Error())
	case errors.Is(err, ErrNotFound):
		return status.Error(codes.NotFound, err.Error())
	case errors.Is(err, ErrSecurity):
		return status.Error(codes.DataLoss, "transparency log security error: its storage or backend contradicts what it signed (the operator investigates)")
	case errors.Is(err, ErrUnavailable), errors.Is(err, ErrClosed):
		return status.Error(codes.Unavailable, "log unavailable: retry later")
	case errors.Is(err, context.Canceled):
		return status.Error(codes.Canceled, "canceled")
	case errors.Is(err, context.DeadlineExceeded):
		return status.Error(codes.DeadlineExceeded, "deadline exceeded")
	}
	return status.Error(codes.Internal, "internal error")
}

// treeSize resolves 0 to the latest checkpoint size.
func (s *auditServer) treeSize(ctx context.Context, n uint64) (uint64, error) {
	if n != 0 {
		return n, nil
	}
	cp, err := s.l.Checkpoint(ctx)
	if err != nil {
		return 0, err
	}
	return cp.Size, nil
}

func hashes(p []tlog.Hash) [][]byte {
	out := make([][]byte, len(p))
	for i := range p {
		out[i] = p[i][:]
	}
	return out
}

func (s *auditServer) Checkpoint(ctx context.Context, _ *auditpb.CheckpointRequest) (*auditpb.CheckpointResponse, error) {
	cp, err := s.l.Checkpoint(ctx)
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	return &auditpb.CheckpointResponse{Note: cp.Note, Origin: cp.Origin, Size: cp.Size, RootHash: cp.Hash[:]}, nil
}

func (s *auditServer) VerifierKeys(context.Context, *auditpb.VerifierKeysRequest) (*auditpb.VerifierKeysResponse, error) {
	return &auditpb.VerifierKeysResponse{Keys: s.l.VerifierKeys()}, nil
}

func (s *auditServer) Entries(ctx context.Context, req *auditpb.EntriesRequest) (*auditpb.EntriesResponse, error) {
	size, err := s.treeSize(ctx, req.GetTreeSize())
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	e, err := s.l.Entries(ctx, req.GetStart(), req.GetEnd(), size)
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	// Fewer entries may be returned (the API says so): keep the answer
	// within a default gRPC client's 4 MiB message limit, at least one
	// entry (at most MaxLeafSize bytes) always.
	n, total := 0, 0
	for n < len(e) && (n == 0 || total+len(e[n])+entryOverhead <= MaxEntriesBytes) {
		total += len(e[n]) + entryOverhead
		n++
	}
	return &auditpb.EntriesResponse{Entries: e[:n]}, nil
}

func (s *auditServer) InclusionProof(ctx context.Context, req *auditpb.InclusionProofRequest) (*auditpb.InclusionProofResponse, error) {
	size, err := s.treeSize(ctx, req.GetTreeSize())
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	var (
		idx uint64
		p   tlog.RecordProof
	)
	switch leaf := req.GetLeaf().(type) {
	case *auditpb.InclusionProofRequest_Index:
		idx = leaf.Index
		p, err = s.l.InclusionProof(ctx, idx, size)
	case *auditpb.InclusionProofRequest_LeafHash:
		if len(leaf.LeafHash) != tlog.HashSize {
			return nil, status.Errorf(codes.InvalidArgument, "leaf_hash: %d bytes, want %d", len(leaf.LeafHash), tlog.HashSize)
		}
		idx, p, err = s.l.InclusionProofByHash(ctx, tlog.Hash(leaf.LeafHash), size)
	default:
		return nil, status.Error(codes.InvalidArgument, "leaf: set index or leaf_hash")
	}
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	return &auditpb.InclusionProofResponse{Index: idx, TreeSize: size, Hashes: hashes(p)}, nil
}

func (s *auditServer) ConsistencyProof(ctx context.Context, req *auditpb.ConsistencyProofRequest) (*auditpb.ConsistencyProofResponse, error) {
	size, err := s.treeSize(ctx, req.GetNewSize())
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	p, err := s.l.ConsistencyProof(ctx, req.GetOldSize(), size)
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	return &auditpb.ConsistencyProofResponse{OldSize: req.GetOldSize(), NewSize: size, Hashes: hashes(p)}, nil
}
