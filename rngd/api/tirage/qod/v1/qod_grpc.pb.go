// Quitte ou Double, stage 2: the game servers' API of the Tirage appliance.
//
// A game server authenticates with its own TLS client certificate (mutual TLS);
// its identity is the certificate's first DNS SAN, or its subject CN when it
// has none. A game belongs to the server that started it, a ticket's quit
// to the server that quit it (GetQuit): any other server gets
// PERMISSION_DENIED. A connection without a certificate, or with one the
// game servers' CA did not issue (or expired), is refused by the TLS handshake
// before any call reaches rngd: the client's gRPC library reports UNAVAILABLE,
// with no reason detail (grpc-go: "remote error: tls: certificate required",
// or a broken pipe for another CA's certificate). Retrying does not help: fix
// the certificate.
//
// Every mutating call carries a request_id chosen by the game server (1..128
// printable ASCII characters, unique per server). Replaying a request_id with
// the same content returns the very same reply, without drawing again;
// replaying it with other content is refused with ALREADY_EXISTS and changes
// nothing. The content is the request's fields as sent: a code spelled
// otherwise (lower case, with hyphens) is other content. With the operator's
// log.receipt_wait set, the receipts of a replayed reply carry a checkpoint
// and inclusion proofs as the first reply's did, of a later checkpoint when
// the log has signed one since; every other byte is the same.
//
// Deadlines and cancellation: once a mutating call has reached rngd, its draw
// and its record are not cancelled with the call. A client whose deadline
// passed (DEADLINE_EXCEEDED) or that cancelled (CANCELLED) cannot tell
// whether the call was drawn: it retries with the same request_id, which
// returns the reply of the draw if there was one, or draws now — never a
// second draw. Never retry with a new request_id: a StartGame drawn under the
// old one then answers CODE_PLAYED (its game is listed by
// ListUnfinishedGames), a Pick NUMBER_PICKED, AT_TIER or GAME_OVER, a Quit
// TICKET_QUIT.
//
// Every reply that changes a game or a ticket comes after the record of that
// change has been durably appended to the transparency log, and carries a
// Receipt: the record bytes, their log index, the VRF proof and what an
// auditor needs to check them offline.
//
// Status codes: INVALID_ARGUMENT (a malformed field, named in the message),
// NOT_FOUND (unknown game or code; GetQuit: a ticket not quit),
// PERMISSION_DENIED (another server's game or quit),
// FAILED_PRECONDITION (a rule of the game forbids the call now: already picked,
// game over, not at a tier, past the start deadline, code already played,
// ticket quit, ticket started),
// ALREADY_EXISTS (request_id reused with other content), UNAVAILABLE (entropy,
// key or log failure: nothing was drawn; retry later with the same request_id).
//
// Reasons: every refusal also carries a google.rpc.ErrorInfo detail, domain
// "tirage.fr", whose reason is a stable word to branch on (the message is for
// people and may change). A reason is never renamed nor given another
// meaning; new ones may be added. Refusals rngd makes no reason for carry
// their code's name (INTERNAL, CANCELLED, ...). The game servers' reasons:
//   INVALID_ARGUMENT: REQUEST_ID_INVALID (missing, over 128 characters or not
//     printable ASCII), CODE_INVALID (not an 18-character code),
//     GAME_ID_MISSING, NUMBER_RANGE (not 1..30), DECISION_INVALID,
//     PAGE_SIZE_INVALID (ListUnfinishedGames: negative page_size),
//     PAGE_TOKEN_INVALID (ListUnfinishedGames: a page_token that is not a
//     next_page_token this server's ListUnfinishedGames returned),
//     CALL_MISSING (Play: a PlayCall that holds no call).
//   UNAUTHENTICATED: CLIENT_CERT_REQUIRED (no verified client certificate:
//     the TLS handshake refuses such a connection first, see above),
//     IDENTITY_INVALID (the certificate names no usable identity),
//     CERT_REVOKED (the operator revoked the certificate after the
//     connection's handshake, grpc.client_crl_file: a new connection with
//     it is refused at the handshake; a new certificate is needed).
//   PERMISSION_DENIED: GAME_NOT_OWNED (another game server's game),
//     QUIT_NOT_OWNED (GetQuit: another game server quit the ticket).
//   NOT_FOUND: UNKNOWN_GAME, UNKNOWN_CODE (in no imported manifest),
//     TICKET_NOT_QUIT (GetQuit: the ticket was neither quit nor started).
//   ALREADY_EXISTS: REQUEST_ID_REUSED (with other content).
//   FAILED_PRECONDITION: DEADLINE_PASSED (start after the emission's closure
//     + 29 days), CODE_PLAYED, GAME_OVER (won, lost, expired or refunded),
//     AT_TIER (a pick while a decision is due), NOT_AT_TIER (continue or
//     stop while playing), NUMBER_PICKED, GAME_EXPIRED (the 30 days are
//     over), SECRET_LOST (the game's secret was lost: only the operator's
//     refund ends it), TICKET_QUIT (StartGame, Quit: the ticket was quit,
//     QUITTER; a Quit retried with its first request_id gets its first
//     reply), TICKET_STARTED (Quit, GetQuit: the ticket started a game,
//     and CONTINUER is irrevocable).
//   UNAVAILABLE (retry later with the same request_id; the message says
//     whether the call's record was sealed, and nothing of the failed
//     component's own words: those are the operator's): ENTROPY_UNAVAILABLE,
//     KEYS_UNAVAILABLE, LOG_UNAVAILABLE, STORE_UNAVAILABLE,
//     SECRETS_UNAVAILABLE, CLOCK_BACKWARDS, CHECKPOINT_PENDING (no signed
//     checkpoint covers the game yet: GetTranscript; the ticket's quit yet:
//     GetQuit).
//   INTERNAL: LOG_INTEGRITY (the log was found rolled back or forked: draws
//     are refused until an operator investigates), INTERNAL.

// Code generated by protoc-gen-go-grpc. DO NOT EDIT.
// versions:
// - protoc-gen-go-grpc v1.6.2
// - protoc             v3.21.12
// source: tirage/qod/v1/qod.proto

package qodv1

import (
	context "context"
	grpc "google.golang.org/grpc"
	codes "google.golang.org/grpc/codes"
	status "google.golang.org/grpc/status"
)

// This is a compile-time assertion to ensure that this generated file
// is compatible with the grpc package it is being compiled against.
// Requires gRPC-Go v1.64.0 or later.
const _ = grpc.SupportPackageIsVersion9

const (
	QuitteOuDouble_StartGame_FullMethodName           = "/tirage.qod.v1.QuitteOuDouble/StartGame"
	QuitteOuDouble_Quit_FullMethodName                = "/tirage.qod.v1.QuitteOuDouble/Quit"
	QuitteOuDouble_Pick_FullMethodName                = "/tirage.qod.v1.QuitteOuDouble/Pick"
	QuitteOuDouble_Decide_FullMethodName              = "/tirage.qod.v1.QuitteOuDouble/Decide"
	QuitteOuDouble_GetGame_FullMethodName             = "/tirage.qod.v1.QuitteOuDouble/GetGame"
	QuitteOuDouble_ListUnfinishedGames_FullMethodName = "/tirage.qod.v1.QuitteOuDouble/ListUnfinishedGames"
	QuitteOuDouble_GetReceipts_FullMethodName         = "/tirage.qod.v1.QuitteOuDouble/GetReceipts"
	QuitteOuDouble_GetTranscript_FullMethodName       = "/tirage.qod.v1.QuitteOuDouble/GetTranscript"
	QuitteOuDouble_GetQuit_FullMethodName             = "/tirage.qod.v1.QuitteOuDouble/GetQuit"
	QuitteOuDouble_Play_FullMethodName                = "/tirage.qod.v1.QuitteOuDouble/Play"
)

// QuitteOuDoubleClient is the client API for QuitteOuDouble service.
//
// For semantics around ctx use and closing/ending streaming RPCs, please refer to https://pkg.go.dev/google.golang.org/grpc/?tab=doc#ClientConn.NewStream.
type QuitteOuDoubleClient interface {
	// StartGame is the player's "CONTINUER": irrevocable. It looks the ticket
	// up by its code (the stake S comes from the operator's manifest, never
	// from the game server), draws the four tier multipliers and commits to
	// the game's secret.
	StartGame(ctx context.Context, in *StartGameRequest, opts ...grpc.CallOption) (*GameReply, error)
	// Quit is the player's "QUITTER" (règlement art. 2.2.3): once the code is
	// entered, the player renounces stage 2 and keeps the stage-1 gain S
	// (payable as any gain, art. 3.1). It looks the ticket up by its code, as
	// StartGame does, draws nothing, and seals the choice in the log (a
	// ticket_quit record: the ticket hash, emission, S, time and the calling
	// game server) before it replies. From then on the ticket never starts a
	// game (StartGame: TICKET_QUIT) and is quit once (another request_id:
	// TICKET_QUIT; the same request_id and code: the same reply). A ticket
	// that started a game cannot be quit (TICKET_STARTED: CONTINUER is
	// irrevocable). The rules set no deadline on QUITTER (art. 2.2.4's 29
	// days bound CONTINUER): a Quit after the emission's start deadline is
	// taken. As with StartGame, a code is no game server's before it is
	// played: a Quit by another game server than the one that quit it is
	// TICKET_QUIT, not PERMISSION_DENIED.
	Quit(ctx context.Context, in *QuitRequest, opts ...grpc.CallOption) (*QuitResponse, error)
	// Pick draws whether the chosen number is good or losing.
	Pick(ctx context.Context, in *PickRequest, opts ...grpc.CallOption) (*GameReply, error)
	// Decide answers the question asked at tiers 1 to 3: stop and win the
	// tier's amount, or continue (irrevocable).
	Decide(ctx context.Context, in *DecideRequest, opts ...grpc.CallOption) (*GameReply, error)
	// GetGame returns a game's exact state, to resume it after a suspension.
	GetGame(ctx context.Context, in *GetGameRequest, opts ...grpc.CallOption) (*Game, error)
	// ListUnfinishedGames lists the calling server's games not ended
	// (ended_at unset): those in play, and those past their 30-day deadline
	// until their end is sealed. The latter show STATUS_EXPIRED and take no
	// pick or decision (GAME_EXPIRED); the operator may still refund them
	// (article 2.2.11) until game.refund_grace (default 7 days) has passed
	// since the deadline, then the sweeper seals their expiry. Either end
	// takes the game off the list: GetGame then shows it STATUS_REFUNDED or
	// STATUS_EXPIRED, with ended_at and secret. A game whose end record could
	// not be sealed (a log outage) stays listed, with its final status, until
	// the sweeper seals it.
	//
	// The list comes in pages (AIP-158), in a stable order (by start time,
	// then game id): each reply holds at most page_size games, and
	// next_page_token, when set, asks for the next page. A game started or
	// ended between two pages may be on none or on a later one; an empty
	// next_page_token ends the list.
	ListUnfinishedGames(ctx context.Context, in *ListUnfinishedGamesRequest, opts ...grpc.CallOption) (*ListUnfinishedGamesResponse, error)
	// GetReceipts returns every receipt of a game, in order, with inclusion
	// proofs in the latest checkpoint when the log has published one.
	GetReceipts(ctx context.Context, in *GetReceiptsRequest, opts ...grpc.CallOption) (*GetReceiptsResponse, error)
	// GetTranscript returns the game's transcript document (verifier/receipt
	// format, "tirage/transcript"): every record of the game, the emission and
	// the key announcement, with inclusion proofs in one signed checkpoint.
	// rngverify checks it offline. Before the game ends its secret r is not
	// revealed, so proofs can only be checked once it has ended.
	GetTranscript(ctx context.Context, in *GetTranscriptRequest, opts ...grpc.CallOption) (*GetTranscriptResponse, error)
	// GetQuit returns the quit of the ticket with this code as Quit replied
	// it — emission, S, quit time and the receipt of its ticket_quit record
	// (the same record bytes, leaf hash and log index) — with the latest
	// signed checkpoint and the record's inclusion proof in it: the receipt
	// that proves the QUITTER in a dispute (art. 4.2: the log counts), which
	// Quit's own reply carries only with log.receipt_wait set. The record is
	// read from the log. It waits up to 3 s for a checkpoint that covers the
	// record, as GetReceipts does; when none does yet, it is refused
	// CHECKPOINT_PENDING (UNAVAILABLE: retry in a moment). Read-only: it takes
	// no request_id and changes nothing. A quit is its game server's, as a
	// game is: another game server gets PERMISSION_DENIED (QUIT_NOT_OWNED),
	// at once, without the wait.
	// A ticket with no quit is refused by why it has none: never played,
	// NOT_FOUND (TICKET_NOT_QUIT: there is no quit to return, and a Quit
	// may still make one, as UNKNOWN_GAME is no game yet); started a game,
	// FAILED_PRECONDITION (TICKET_STARTED, as Quit answers it: CONTINUER is
	// irrevocable, the ticket never will have a quit).
	GetQuit(ctx context.Context, in *GetQuitRequest, opts ...grpc.CallOption) (*QuitResponse, error)
	// Play carries many calls on one long-lived stream, for a game server
	// that makes many: each PlayCall holds one StartGame, Quit, Pick, Decide
	// or GetGame request and a tag of the client's choosing; each PlayResult
	// answers one call with its tag and either the reply the unary call would
	// have returned or the refusal it would have ended with (its code,
	// message and ErrorInfo, as a google.rpc.Status). A call on the stream is
	// that unary call: the same identity (the stream's client certificate),
	// ownership, request_id and replay rules, records, metrics and refusals;
	// a refused call does not end the stream. The stream saves each call the
	// HTTP/2 stream, its headers and its trailers: about a third of the
	// daemon's CPU for a call that draws nothing (docs/rngd.md, Play).
	//
	// Calls on a stream run concurrently, as calls on a connection do:
	// results come as the calls end, not in the order they came, and a
	// client that needs one call's effect before the next (a game's pick
	// after its start) waits for the first's result. The Play streams of a
	// connection hold at most grpc.max_concurrent_streams calls in flight
	// together: the next call is read when one ends. A call has no deadline
	// of its own; it ends when its stream does (the draw's record may still
	// be sealed: retry it with the same request_id, as after a cancelled
	// unary call).
	//
	// When rngd shuts down, a stream stops taking calls, sends the results of
	// those in flight, then ends with UNAVAILABLE: a call the client sent
	// that got no result was not taken, and is retried (with its request_id)
	// on a new stream.
	Play(ctx context.Context, opts ...grpc.CallOption) (grpc.BidiStreamingClient[PlayCall, PlayResult], error)
}

type quitteOuDoubleClient struct {
	cc grpc.ClientConnInterface
}

func NewQuitteOuDoubleClient(cc grpc.ClientConnInterface) QuitteOuDoubleClient {
	return &quitteOuDoubleClient{cc}
}

func (c *quitteOuDoubleClient) StartGame(ctx context.Context, in *StartGameRequest, opts ...grpc.CallOption) (*GameReply, error) {
	cOpts := append([]grpc.CallOption{grpc.StaticMethod()}, opts...)
	out := new(GameReply)
	err := c.cc.Invoke(ctx, QuitteOuDouble_StartGame_FullMethodName, in, out, cOpts...)
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (c *quitteOuDoubleClient) Quit(ctx context.Context, in *QuitRequest, opts ...grpc.CallOption) (*QuitResponse, error) {
	cOpts := append([]grpc.CallOption{grpc.StaticMethod()}, opts...)
	out := new(QuitResponse)
	err := c.cc.Invoke(ctx, QuitteOuDouble_Quit_FullMethodName, in, out, cOpts...)
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (c *quitteOuDoubleClient) Pick(ctx context.Context, in *PickRequest, opts ...grpc.CallOption) (*GameReply, error) {
	cOpts := append([]grpc.CallOption{grpc.StaticMethod()}, opts...)
	out := new(GameReply)
	err := c.cc.Invoke(ctx, QuitteOuDouble_Pick_FullMethodName, in, out, cOpts...)
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (c *quitteOuDoubleClient) Decide(ctx context.Context, in *DecideRequest, opts ...grpc.CallOption) (*GameReply, error) {
	cOpts := append([]grpc.CallOption{grpc.StaticMethod()}, opts...)
	out := new(GameReply)
	err := c.cc.Invoke(ctx, QuitteOuDouble_Decide_FullMethodName, in, out, cOpts...)
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (c *quitteOuDoubleClient) GetGame(ctx context.Context, in *GetGameRequest, opts ...grpc.CallOption) (*Game, error) {
	cOpts := append([]grpc.CallOption{grpc.StaticMethod()}, opts...)
	out := new(Game)
	err := c.cc.Invoke(ctx, QuitteOuDouble_GetGame_FullMethodName, in, out, cOpts...)
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (c *quitteOuDoubleClient) ListUnfinishedGames(ctx context.Context, in *ListUnfinishedGamesRequest, opts ...grpc.CallOption) (*ListUnfinishedGamesResponse, error) {
	cOpts := append([]grpc.CallOption{grpc.StaticMethod()}, opts...)
	out := new(ListUnfinishedGamesResponse)
	err := c.cc.Invoke(ctx, QuitteOuDouble_ListUnfinishedGames_FullMethodName, in, out, cOpts...)
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (c *quitteOuDoubleClient) GetReceipts(ctx context.Context, in *GetReceiptsRequest, opts ...grpc.CallOption) (*GetReceiptsResponse, error) {
	cOpts := append([]grpc.CallOption{grpc.StaticMethod()}, opts...)
	out := new(GetReceiptsResponse)
	err := c.cc.Invoke(ctx, QuitteOuDouble_GetReceipts_FullMethodName, in, out, cOpts...)
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (c *quitteOuDoubleClient) GetTranscript(ctx context.Context, in *GetTranscriptRequest, opts ...grpc.CallOption) (*GetTranscriptResponse, error) {
	cOpts := append([]grpc.CallOption{grpc.StaticMethod()}, opts...)
	out := new(GetTranscriptResponse)
	err := c.cc.Invoke(ctx, QuitteOuDouble_GetTranscript_FullMethodName, in, out, cOpts...)
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (c *quitteOuDoubleClient) GetQuit(ctx context.Context, in *GetQuitRequest, opts ...grpc.CallOption) (*QuitResponse, error) {
	cOpts := append([]grpc.CallOption{grpc.StaticMethod()}, opts...)
	out := new(QuitResponse)
	err := c.cc.Invoke(ctx, QuitteOuDouble_GetQuit_FullMethodName, in, out, cOpts...)
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (c *quitteOuDoubleClient) Play(ctx context.Context, opts ...grpc.CallOption) (grpc.BidiStreamingClient[PlayCall, PlayResult], error) {
	cOpts := append([]grpc.CallOption{grpc.StaticMethod()}, opts...)
	stream, err := c.cc.NewStream(ctx, &QuitteOuDouble_ServiceDesc.Streams[0], QuitteOuDouble_Play_FullMethodName, cOpts...)
	if err != nil {
		return nil, err
	}
	x := &grpc.GenericClientStream[PlayCall, PlayResult]{ClientStream: stream}
	return x, nil
}

// This type alias is provided for backwards compatibility with existing code that references the prior non-generic stream type by name.
type QuitteOuDouble_PlayClient = grpc.BidiStreamingClient[PlayCall, PlayResult]

// QuitteOuDoubleServer is the server API for QuitteOuDouble service.
// All implementations must embed UnimplementedQuitteOuDoubleServer
// for forward compatibility.
type QuitteOuDoubleServer interface {
	// StartGame is the player's "CONTINUER": irrevocable. It looks the ticket
	// up by its code (the stake S comes from the operator's manifest, never
	// from the game server), draws the four tier multipliers and commits to
	// the game's secret.
	StartGame(context.Context, *StartGameRequest) (*GameReply, error)
	// Quit is the player's "QUITTER" (règlement art. 2.2.3): once the code is
	// entered, the player renounces stage 2 and keeps the stage-1 gain S
	// (payable as any gain, art. 3.1). It looks the ticket up by its code, as
	// StartGame does, draws nothing, and seals the choice in the log (a
	// ticket_quit record: the ticket hash, emission, S, time and the calling
	// game server) before it replies. From then on the ticket never starts a
	// game (StartGame: TICKET_QUIT) and is quit once (another request_id:
	// TICKET_QUIT; the same request_id and code: the same reply). A ticket
	// that started a game cannot be quit (TICKET_STARTED: CONTINUER is
	// irrevocable). The rules set no deadline on QUITTER (art. 2.2.4's 29
	// days bound CONTINUER): a Quit after the emission's start deadline is
	// taken. As with StartGame, a code is no game server's before it is
	// played: a Quit by another game server than the one that quit it is
	// TICKET_QUIT, not PERMISSION_DENIED.
	Quit(context.Context, *QuitRequest) (*QuitResponse, error)
	// Pick draws whether the chosen number is good or losing.
	Pick(context.Context, *PickRequest) (*GameReply, error)
	// Decide answers the question asked at tiers 1 to 3: stop and win the
	// tier's amount, or continue (irrevocable).
	Decide(context.Context, *DecideRequest) (*GameReply, error)
	// GetGame returns a game's exact state, to resume it after a suspension.
	GetGame(context.Context, *GetGameRequest) (*Game, error)
	// ListUnfinishedGames lists the calling server's games not ended
	// (ended_at unset): those in play, and those past their 30-day deadline
	// until their end is sealed. The latter show STATUS_EXPIRED and take no
	// pick or decision (GAME_EXPIRED); the operator may still refund them
	// (article 2.2.11) until game.refund_grace (default 7 days) has passed
	// since the deadline, then the sweeper seals their expiry. Either end
	// takes the game off the list: GetGame then shows it STATUS_REFUNDED or
	// STATUS_EXPIRED, with ended_at and secret. A game whose end record could
	// not be sealed (a log outage) stays listed, with its final status, until
	// the sweeper seals it.
	//
	// The list comes in pages (AIP-158), in a stable order (by start time,
	// then game id): each reply holds at most page_size games, and
	// next_page_token, when set, asks for the next page. A game started or
	// ended between two pages may be on none or on a later one; an empty
	// next_page_token ends the list.
	ListUnfinishedGames(context.Context, *ListUnfinishedGamesRequest) (*ListUnfinishedGamesResponse, error)
	// GetReceipts returns every receipt of a game, in order, with inclusion
	// proofs in the latest checkpoint when the log has published one.
	GetReceipts(context.Context, *GetReceiptsRequest) (*GetReceiptsResponse, error)
	// GetTranscript returns the game's transcript document (verifier/receipt
	// format, "tirage/transcript"): every record of the game, the emission and
	// the key announcement, with inclusion proofs in one signed checkpoint.
	// rngverify checks it offline. Before the game ends its secret r is not
	// revealed, so proofs can only be checked once it has ended.
	GetTranscript(context.Context, *GetTranscriptRequest) (*GetTranscriptResponse, error)
	// GetQuit returns the quit of the ticket with this code as Quit replied
	// it — emission, S, quit time and the receipt of its ticket_quit record
	// (the same record bytes, leaf hash and log index) — with the latest
	// signed checkpoint and the record's inclusion proof in it: the receipt
	// that proves the QUITTER in a dispute (art. 4.2: the log counts), which
	// Quit's own reply carries only with log.receipt_wait set. The record is
	// read from the log. It waits up to 3 s for a checkpoint that covers the
	// record, as GetReceipts does; when none does yet, it is refused
	// CHECKPOINT_PENDING (UNAVAILABLE: retry in a moment). Read-only: it takes
	// no request_id and changes nothing. A quit is its game server's, as a
	// game is: another game server gets PERMISSION_DENIED (QUIT_NOT_OWNED),
	// at once, without the wait.
	// A ticket with no quit is refused by why it has none: never played,
	// NOT_FOUND (TICKET_NOT_QUIT: there is no quit to return, and a Quit
	// may still make one, as UNKNOWN_GAME is no game yet); started a game,
	// FAILED_PRECONDITION (TICKET_STARTED, as Quit answers it: CONTINUER is
	// irrevocable, the ticket never will have a quit).
	GetQuit(context.Context, *GetQuitRequest) (*QuitResponse, error)
	// Play carries many calls on one long-lived stream, for a game server
	// that makes many: each PlayCall holds one StartGame, Quit, Pick, Decide
	// or GetGame request and a tag of the client's choosing; each PlayResult
	// answers one call with its tag and either the reply the unary call would
	// have returned or the refusal it would have ended with (its code,
	// message and ErrorInfo, as a google.rpc.Status). A call on the stream is
	// that unary call: the same identity (the stream's client certificate),
	// ownership, request_id and replay rules, records, metrics and refusals;
	// a refused call does not end the stream. The stream saves each call the
	// HTTP/2 stream, its headers and its trailers: about a third of the
	// daemon's CPU for a call that draws nothing (docs/rngd.md, Play).
	//
	// Calls on a stream run concurrently, as calls on a connection do:
	// results come as the calls end, not in the order they came, and a
	// client that needs one call's effect before the next (a game's pick
	// after its start) waits for the first's result. The Play streams of a
	// connection hold at most grpc.max_concurrent_streams calls in flight
	// together: the next call is read when one ends. A call has no deadline
	// of its own; it ends when its stream does (the draw's record may still
	// be sealed: retry it with the same request_id, as after a cancelled
	// unary call).
	//
	// When rngd shuts down, a stream stops taking calls, sends the results of
	// those in flight, then ends with UNAVAILABLE: a call the client sent
	// that got no result was not taken, and is retried (with its request_id)
	// on a new stream.
	Play(grpc.BidiStreamingServer[PlayCall, PlayResult]) error
	mustEmbedUnimplementedQuitteOuDoubleServer()
}

// UnimplementedQuitteOuDoubleServer must be embedded to have
// forward compatible implementations.
//
// NOTE: this should be embedded by value instead of pointer to avoid a nil
// pointer dereference when methods are called.
type UnimplementedQuitteOuDoubleServer struct{}

func (UnimplementedQuitteOuDoubleServer) StartGame(context.Context, *StartGameRequest) (*GameReply, error) {
	return nil, status.Error(codes.Unimplemented, "method StartGame not implemented")
}
func (UnimplementedQuitteOuDoubleServer) Quit(context.Context, *QuitRequest) (*QuitResponse, error) {
	return nil, status.Error(codes.Unimplemented, "method Quit not implemented")
}
func (UnimplementedQuitteOuDoubleServer) Pick(context.Context, *PickRequest) (*GameReply, error) {
	return nil, status.Error(codes.Unimplemented, "method Pick not implemented")
}
func (UnimplementedQuitteOuDoubleServer) Decide(context.Context, *DecideRequest) (*GameReply, error) {
	return nil, status.Error(codes.Unimplemented, "method Decide not implemented")
}
func (UnimplementedQuitteOuDoubleServer) GetGame(context.Context, *GetGameRequest) (*Game, error) {
	return nil, status.Error(codes.Unimplemented, "method GetGame not implemented")
}
func (UnimplementedQuitteOuDoubleServer) ListUnfinishedGames(context.Context, *ListUnfinishedGamesRequest) (*ListUnfinishedGamesResponse, error) {
	return nil, status.Error(codes.Unimplemented, "method ListUnfinishedGames not implemented")
}
func (UnimplementedQuitteOuDoubleServer) GetReceipts(context.Context, *GetReceiptsRequest) (*GetReceiptsResponse, error) {
	return nil, status.Error(codes.Unimplemented, "method GetReceipts not implemented")
}
func (UnimplementedQuitteOuDoubleServer) GetTranscript(context.Context, *GetTranscriptRequest) (*GetTranscriptResponse, error) {
	return nil, status.Error(codes.Unimplemented, "method GetTranscript not implemented")
}
func (UnimplementedQuitteOuDoubleServer) GetQuit(context.Context, *GetQuitRequest) (*QuitResponse, error) {
	return nil, status.Error(codes.Unimplemented, "method GetQuit not implemented")
}
func (UnimplementedQuitteOuDoubleServer) Play(grpc.BidiStreamingServer[PlayCall, PlayResult]) error {
	return status.Error(codes.Unimplemented, "method Play not implemented")
}
func (UnimplementedQuitteOuDoubleServer) mustEmbedUnimplementedQuitteOuDoubleServer() {}
func (UnimplementedQuitteOuDoubleServer) testEmbeddedByValue()                        {}

// UnsafeQuitteOuDoubleServer may be embedded to opt out of forward compatibility for this service.
// Use of this interface is not recommended, as added methods to QuitteOuDoubleServer will
// result in compilation errors.
type UnsafeQuitteOuDoubleServer interface {
	mustEmbedUnimplementedQuitteOuDoubleServer()
}

func RegisterQuitteOuDoubleServer(s grpc.ServiceRegistrar, srv QuitteOuDoubleServer) {
	// If the following call panics, it indicates UnimplementedQuitteOuDoubleServer was
	// embedded by pointer and is nil.  This will cause panics if an
	// unimplemented method is ever invoked, so we test this at initialization
	// time to prevent it from happening at runtime later due to I/O.
	if t, ok := srv.(interface{ testEmbeddedByValue() }); ok {
		t.testEmbeddedByValue()
	}
	s.RegisterService(&QuitteOuDouble_ServiceDesc, srv)
}

func _QuitteOuDouble_StartGame_Handler(srv interface{}, ctx context.Context, dec func(interface{}) error, interceptor grpc.UnaryServerInterceptor) (interface{}, error) {
	in := new(StartGameRequest)
	if err := dec(in); err != nil {
		return nil, err
	}
	if interceptor == nil {
		return srv.(QuitteOuDoubleServer).StartGame(ctx, in)
	}
	info := &grpc.UnaryServerInfo{
		Server:     srv,
		FullMethod: QuitteOuDouble_StartGame_FullMethodName,
	}
	handler := func(ctx context.Context, req interface{}) (interface{}, error) {
		return srv.(QuitteOuDoubleServer).StartGame(ctx, req.(*StartGameRequest))
	}
	return interceptor(ctx, in, info, handler)
}

func _QuitteOuDouble_Quit_Handler(srv interface{}, ctx context.Context, dec func(interface{}) error, interceptor grpc.UnaryServerInterceptor) (interface{}, error) {
	in := new(QuitRequest)
	if err := dec(in); err != nil {
		return nil, err
	}
	if interceptor == nil {
		return srv.(QuitteOuDoubleServer).Quit(ctx, in)
	}
	info := &grpc.UnaryServerInfo{
		Server:     srv,
		FullMethod: QuitteOuDouble_Quit_FullMethodName,
	}
	handler := func(ctx context.Context, req interface{}) (interface{}, error) {
		return srv.(QuitteOuDoubleServer).Quit(ctx, req.(*QuitRequest))
	}
	return interceptor(ctx, in, info, handler)
}

func _QuitteOuDouble_Pick_Handler(srv interface{}, ctx context.Context, dec func(interface{}) error, interceptor grpc.UnaryServerInterceptor) (interface{}, error) {
	in := new(PickRequest)
	if err := dec(in); err != nil {
		return nil, err
	}
	if interceptor == nil {
		return srv.(QuitteOuDoubleServer).Pick(ctx, in)
	}
	info := &grpc.UnaryServerInfo{
		Server:     srv,
		FullMethod: QuitteOuDouble_Pick_FullMethodName,
	}
	handler := func(ctx context.Context, req interface{}) (interface{}, error) {
		return srv.(QuitteOuDoubleServer).Pick(ctx, req.(*PickRequest))
	}
	return interceptor(ctx, in, info, handler)
}

func _QuitteOuDouble_Decide_Handler(srv interface{}, ctx context.Context, dec func(interface{}) error, interceptor grpc.UnaryServerInterceptor) (interface{}, error) {
	in := new(DecideRequest)
	if err := dec(in); err != nil {
		return nil, err
	}
	if interceptor == nil {
		return srv.(QuitteOuDoubleServer).Decide(ctx, in)
	}
	info := &grpc.UnaryServerInfo{
		Server:     srv,
		FullMethod: QuitteOuDouble_Decide_FullMethodName,
	}
	handler := func(ctx context.Context, req interface{}) (interface{}, error) {
		return srv.(QuitteOuDoubleServer).Decide(ctx, req.(*DecideRequest))
	}
	return interceptor(ctx, in, info, handler)
}

func _QuitteOuDouble_GetGame_Handler(srv interface{}, ctx context.Context, dec func(interface{}) error, interceptor grpc.UnaryServerInterceptor) (interface{}, error) {
	in := new(GetGameRequest)
	if err := dec(in); err != nil {
		return nil, err
	}
	if interceptor == nil {
		return srv.(QuitteOuDoubleServer).GetGame(ctx, in)
	}
	info := &grpc.UnaryServerInfo{
		Server:     srv,
		FullMethod: QuitteOuDouble_GetGame_FullMethodName,
	}
	handler := func(ctx context.Context, req interface{}) (interface{}, error) {
		return srv.(QuitteOuDoubleServer).GetGame(ctx, req.(*GetGameRequest))
	}
	return interceptor(ctx, in, info, handler)
}

func _QuitteOuDouble_ListUnfinishedGames_Handler(srv interface{}, ctx context.Context, dec func(interface{}) error, interceptor grpc.UnaryServerInterceptor) (interface{}, error) {
	in := new(ListUnfinishedGamesRequest)
	if err := dec(in); err != nil {
		return nil, err
	}
	if interceptor == nil {
		return srv.(QuitteOuDoubleServer).ListUnfinishedGames(ctx, in)
	}
	info := &grpc.UnaryServerInfo{
		Server:     srv,
		FullMethod: QuitteOuDouble_ListUnfinishedGames_FullMethodName,
	}
	handler := func(ctx context.Context, req interface{}) (interface{}, error) {
		return srv.(QuitteOuDoubleServer).ListUnfinishedGames(ctx, req.(*ListUnfinishedGamesRequest))
	}
	return interceptor(ctx, in, info, handler)
}

func _QuitteOuDouble_GetReceipts_Handler(srv interface{}, ctx context.Context, dec func(interface{}) error, interceptor grpc.UnaryServerInterceptor) (interface{}, error) {
	in := new(GetReceiptsRequest)
	if err := dec(in); err != nil {
		return nil, err
	}
	if interceptor == nil {
		return srv.(QuitteOuDoubleServer).GetReceipts(ctx, in)
	}
	info := &grpc.UnaryServerInfo{
		Server:     srv,
		FullMethod: QuitteOuDouble_GetReceipts_FullMethodName,
	}
	handler := func(ctx context.Context, req interface{}) (interface{}, error) {
		return srv.(QuitteOuDoubleServer).GetReceipts(ctx, req.(*GetReceiptsRequest))
	}
	return interceptor(ctx, in, info, handler)
}

func _QuitteOuDouble_GetTranscript_Handler(srv interface{}, ctx context.Context, dec func(interface{}) error, interceptor grpc.UnaryServerInterceptor) (interface{}, error) {
	in := new(GetTranscriptRequest)
	if err := dec(in); err != nil {
		return nil, err
	}
	if interceptor == nil {
		return srv.(QuitteOuDoubleServer).GetTranscript(ctx, in)
	}
	info := &grpc.UnaryServerInfo{
		Server:     srv,
		FullMethod: QuitteOuDouble_GetTranscript_FullMethodName,
	}
	handler := func(ctx context.Context, req interface{}) (interface{}, error) {
		return srv.(QuitteOuDoubleServer).GetTranscript(ctx, req.(*GetTranscriptRequest))
	}
	return interceptor(ctx, in, info, handler)
}

func _QuitteOuDouble_GetQuit_Handler(srv interface{}, ctx context.Context, dec func(interface{}) error, interceptor grpc.UnaryServerInterceptor) (interface{}, error) {
	in := new(GetQuitRequest)
	if err := dec(in); err != nil {
		return nil, err
	}
	if interceptor == nil {
		return srv.(QuitteOuDoubleServer).GetQuit(ctx, in)
	}
	info := &grpc.UnaryServerInfo{
		Server:     srv,
		FullMethod: QuitteOuDouble_GetQuit_FullMethodName,
	}
	handler := func(ctx context.Context, req interface{}) (interface{}, error) {
		return srv.(QuitteOuDoubleServer).GetQuit(ctx, req.(*GetQuitRequest))
	}
	return interceptor(ctx, in, info, handler)
}

func _QuitteOuDouble_Play_Handler(srv interface{}, stream grpc.ServerStream) error {
	return srv.(QuitteOuDoubleServer).Play(&grpc.GenericServerStream[PlayCall, PlayResult]{ServerStream: stream})
}

// This type alias is provided for backwards compatibility with existing code that references the prior non-generic stream type by name.
type QuitteOuDouble_PlayServer = grpc.BidiStreamingServer[PlayCall, PlayResult]

// QuitteOuDouble_ServiceDesc is the grpc.ServiceDesc for QuitteOuDouble service.
// It's only intended for direct use with grpc.RegisterService,
// and not to be introspected or modified (even as a copy)
var QuitteOuDouble_ServiceDesc = grpc.ServiceDesc{
	ServiceName: "tirage.qod.v1.QuitteOuDouble",
	HandlerType: (*QuitteOuDoubleServer)(nil),
	Methods: []grpc.MethodDesc{
		{
			MethodName: "StartGame",
			Handler:    _QuitteOuDouble_StartGame_Handler,
		},
		{
			MethodName: "Quit",
			Handler:    _QuitteOuDouble_Quit_Handler,
		},
		{
			MethodName: "Pick",
			Handler:    _QuitteOuDouble_Pick_Handler,
		},
		{
			MethodName: "Decide",
			Handler:    _QuitteOuDouble_Decide_Handler,
		},
		{
			MethodName: "GetGame",
			Handler:    _QuitteOuDouble_GetGame_Handler,
		},
		{
			MethodName: "ListUnfinishedGames",
			Handler:    _QuitteOuDouble_ListUnfinishedGames_Handler,
		},
		{
			MethodName: "GetReceipts",
			Handler:    _QuitteOuDouble_GetReceipts_Handler,
		},
		{
			MethodName: "GetTranscript",
			Handler:    _QuitteOuDouble_GetTranscript_Handler,
		},
		{
			MethodName: "GetQuit",
			Handler:    _QuitteOuDouble_GetQuit_Handler,
		},
	},
	Streams: []grpc.StreamDesc{
		{
			StreamName:    "Play",
			Handler:       _QuitteOuDouble_Play_Handler,
			ServerStreams: true,
			ClientStreams: true,
		},
	},
	Metadata: "tirage/qod/v1/qod.proto",
}
