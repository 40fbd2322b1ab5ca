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

// Code generated by protoc-gen-go. DO NOT EDIT.
// versions:
// 	protoc-gen-go v1.36.12
// 	protoc        v3.21.12
// source: tirage/qod/v1/qod.proto

package qodv1

import (
	protoreflect "google.golang.org/protobuf/reflect/protoreflect"
	protoimpl "google.golang.org/protobuf/runtime/protoimpl"
	anypb "google.golang.org/protobuf/types/known/anypb"
	timestamppb "google.golang.org/protobuf/types/known/timestamppb"
	reflect "reflect"
	sync "sync"
	unsafe "unsafe"
)

const (
	// Verify that this generated code is sufficiently up-to-date.
	_ = protoimpl.EnforceVersion(20 - protoimpl.MinVersion)
	// Verify that runtime/protoimpl is sufficiently up-to-date.
	_ = protoimpl.EnforceVersion(protoimpl.MaxVersion - 20)
)

type Decision int32

const (
	Decision_DECISION_UNSPECIFIED Decision = 0
	// "Arrêter la partie": the game ends, won, with the tier's amount.
	Decision_DECISION_STOP Decision = 1
	// "Tenter d'atteindre le prochain palier": gives up the tier's amount.
	Decision_DECISION_CONTINUE Decision = 2
)

// Enum value maps for Decision.
var (
	Decision_name = map[int32]string{
		0: "DECISION_UNSPECIFIED",
		1: "DECISION_STOP",
		2: "DECISION_CONTINUE",
	}
	Decision_value = map[string]int32{
		"DECISION_UNSPECIFIED": 0,
		"DECISION_STOP":        1,
		"DECISION_CONTINUE":    2,
	}
)

func (x Decision) Enum() *Decision {
	p := new(Decision)
	*p = x
	return p
}

func (x Decision) String() string {
	return protoimpl.X.EnumStringOf(x.Descriptor(), protoreflect.EnumNumber(x))
}

func (Decision) Descriptor() protoreflect.EnumDescriptor {
	return file_tirage_qod_v1_qod_proto_enumTypes[0].Descriptor()
}

func (Decision) Type() protoreflect.EnumType {
	return &file_tirage_qod_v1_qod_proto_enumTypes[0]
}

func (x Decision) Number() protoreflect.EnumNumber {
	return protoreflect.EnumNumber(x)
}

// Deprecated: Use Decision.Descriptor instead.
func (Decision) EnumDescriptor() ([]byte, []int) {
	return file_tirage_qod_v1_qod_proto_rawDescGZIP(), []int{0}
}

type Status int32

const (
	Status_STATUS_UNSPECIFIED Status = 0
	// Picking: the player must pick a number.
	Status_STATUS_PLAYING Status = 1
	// At tier 1, 2 or 3: the player must stop or continue.
	Status_STATUS_AT_TIER Status = 2
	// Ended, won: prize_cents is payable.
	Status_STATUS_WON Status = 3
	// Ended on a losing number: no gain.
	Status_STATUS_LOST Status = 4
	// Not finished within 30 days ("expirée"): no gain. Shown from the
	// deadline on; until the expiry is sealed (game.refund_grace later) the
	// operator may still refund the game (article 2.2.11).
	Status_STATUS_EXPIRED Status = 5
	// Refunded by the operator (article 2.2.11): the ticket price, no gain.
	Status_STATUS_REFUNDED Status = 6
)

// Enum value maps for Status.
var (
	Status_name = map[int32]string{
		0: "STATUS_UNSPECIFIED",
		1: "STATUS_PLAYING",
		2: "STATUS_AT_TIER",
		3: "STATUS_WON",
		4: "STATUS_LOST",
		5: "STATUS_EXPIRED",
		6: "STATUS_REFUNDED",
	}
	Status_value = map[string]int32{
		"STATUS_UNSPECIFIED": 0,
		"STATUS_PLAYING":     1,
		"STATUS_AT_TIER":     2,
		"STATUS_WON":         3,
		"STATUS_LOST":        4,
		"STATUS_EXPIRED":     5,
		"STATUS_REFUNDED":    6,
	}
)

func (x Status) Enum() *Status {
	p := new(Status)
	*p = x
	return p
}

func (x Status) String() string {
	return protoimpl.X.EnumStringOf(x.Descriptor(), protoreflect.EnumNumber(x))
}

func (Status) Descriptor() protoreflect.EnumDescriptor {
	return file_tirage_qod_v1_qod_proto_enumTypes[1].Descriptor()
}

func (Status) Type() protoreflect.EnumType {
	return &file_tirage_qod_v1_qod_proto_enumTypes[1]
}

func (x Status) Number() protoreflect.EnumNumber {
	return protoreflect.EnumNumber(x)
}

// Deprecated: Use Status.Descriptor instead.
func (Status) EnumDescriptor() ([]byte, []int) {
	return file_tirage_qod_v1_qod_proto_rawDescGZIP(), []int{1}
}

// PlayCall is one call on a Play stream.
type PlayCall struct {
	state protoimpl.MessageState `protogen:"open.v1"`
	// Chosen by the client, returned with the call's result; rngd does not
	// read it.
	Tag uint64 `protobuf:"varint,1,opt,name=tag,proto3" json:"tag,omitempty"`
	// Types that are valid to be assigned to Call:
	//
	//	*PlayCall_StartGame
	//	*PlayCall_Pick
	//	*PlayCall_Decide
	//	*PlayCall_GetGame
	//	*PlayCall_Quit
	Call          isPlayCall_Call `protobuf_oneof:"call"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *PlayCall) Reset() {
	*x = PlayCall{}
	mi := &file_tirage_qod_v1_qod_proto_msgTypes[0]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *PlayCall) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*PlayCall) ProtoMessage() {}

func (x *PlayCall) ProtoReflect() protoreflect.Message {
	mi := &file_tirage_qod_v1_qod_proto_msgTypes[0]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use PlayCall.ProtoReflect.Descriptor instead.
func (*PlayCall) Descriptor() ([]byte, []int) {
	return file_tirage_qod_v1_qod_proto_rawDescGZIP(), []int{0}
}

func (x *PlayCall) GetTag() uint64 {
	if x != nil {
		return x.Tag
	}
	return 0
}

func (x *PlayCall) GetCall() isPlayCall_Call {
	if x != nil {
		return x.Call
	}
	return nil
}

func (x *PlayCall) GetStartGame() *StartGameRequest {
	if x != nil {
		if x, ok := x.Call.(*PlayCall_StartGame); ok {
			return x.StartGame
		}
	}
	return nil
}

func (x *PlayCall) GetPick() *PickRequest {
	if x != nil {
		if x, ok := x.Call.(*PlayCall_Pick); ok {
			return x.Pick
		}
	}
	return nil
}

func (x *PlayCall) GetDecide() *DecideRequest {
	if x != nil {
		if x, ok := x.Call.(*PlayCall_Decide); ok {
			return x.Decide
		}
	}
	return nil
}

func (x *PlayCall) GetGetGame() *GetGameRequest {
	if x != nil {
		if x, ok := x.Call.(*PlayCall_GetGame); ok {
			return x.GetGame
		}
	}
	return nil
}

func (x *PlayCall) GetQuit() *QuitRequest {
	if x != nil {
		if x, ok := x.Call.(*PlayCall_Quit); ok {
			return x.Quit
		}
	}
	return nil
}

type isPlayCall_Call interface {
	isPlayCall_Call()
}

type PlayCall_StartGame struct {
	StartGame *StartGameRequest `protobuf:"bytes,2,opt,name=start_game,json=startGame,proto3,oneof"`
}

type PlayCall_Pick struct {
	Pick *PickRequest `protobuf:"bytes,3,opt,name=pick,proto3,oneof"`
}

type PlayCall_Decide struct {
	Decide *DecideRequest `protobuf:"bytes,4,opt,name=decide,proto3,oneof"`
}

type PlayCall_GetGame struct {
	GetGame *GetGameRequest `protobuf:"bytes,5,opt,name=get_game,json=getGame,proto3,oneof"`
}

type PlayCall_Quit struct {
	Quit *QuitRequest `protobuf:"bytes,6,opt,name=quit,proto3,oneof"`
}

func (*PlayCall_StartGame) isPlayCall_Call() {}

func (*PlayCall_Pick) isPlayCall_Call() {}

func (*PlayCall_Decide) isPlayCall_Call() {}

func (*PlayCall_GetGame) isPlayCall_Call() {}

func (*PlayCall_Quit) isPlayCall_Call() {}

// PlayResult answers one PlayCall.
type PlayResult struct {
	state protoimpl.MessageState `protogen:"open.v1"`
	// The call's tag.
	Tag uint64 `protobuf:"varint,1,opt,name=tag,proto3" json:"tag,omitempty"`
	// Types that are valid to be assigned to Result:
	//
	//	*PlayResult_GameReply
	//	*PlayResult_Game
	//	*PlayResult_Quit
	//	*PlayResult_Refusal
	Result        isPlayResult_Result `protobuf_oneof:"result"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *PlayResult) Reset() {
	*x = PlayResult{}
	mi := &file_tirage_qod_v1_qod_proto_msgTypes[1]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *PlayResult) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*PlayResult) ProtoMessage() {}

func (x *PlayResult) ProtoReflect() protoreflect.Message {
	mi := &file_tirage_qod_v1_qod_proto_msgTypes[1]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use PlayResult.ProtoReflect.Descriptor instead.
func (*PlayResult) Descriptor() ([]byte, []int) {
	return file_tirage_qod_v1_qod_proto_rawDescGZIP(), []int{1}
}

func (x *PlayResult) GetTag() uint64 {
	if x != nil {
		return x.Tag
	}
	return 0
}

func (x *PlayResult) GetResult() isPlayResult_Result {
	if x != nil {
		return x.Result
	}
	return nil
}

func (x *PlayResult) GetGameReply() *GameReply {
	if x != nil {
		if x, ok := x.Result.(*PlayResult_GameReply); ok {
			return x.GameReply
		}
	}
	return nil
}

func (x *PlayResult) GetGame() *Game {
	if x != nil {
		if x, ok := x.Result.(*PlayResult_Game); ok {
			return x.Game
		}
	}
	return nil
}

func (x *PlayResult) GetQuit() *QuitResponse {
	if x != nil {
		if x, ok := x.Result.(*PlayResult_Quit); ok {
			return x.Quit
		}
	}
	return nil
}

func (x *PlayResult) GetRefusal() *Refusal {
	if x != nil {
		if x, ok := x.Result.(*PlayResult_Refusal); ok {
			return x.Refusal
		}
	}
	return nil
}

type isPlayResult_Result interface {
	isPlayResult_Result()
}

type PlayResult_GameReply struct {
	// StartGame's, Pick's or Decide's reply.
	GameReply *GameReply `protobuf:"bytes,2,opt,name=game_reply,json=gameReply,proto3,oneof"`
}

type PlayResult_Game struct {
	// GetGame's reply.
	Game *Game `protobuf:"bytes,3,opt,name=game,proto3,oneof"`
}

type PlayResult_Quit struct {
	// Quit's reply.
	Quit *QuitResponse `protobuf:"bytes,4,opt,name=quit,proto3,oneof"`
}

type PlayResult_Refusal struct {
	// The call was refused: the status the unary call would have ended
	// with.
	Refusal *Refusal `protobuf:"bytes,5,opt,name=refusal,proto3,oneof"`
}

func (*PlayResult_GameReply) isPlayResult_Result() {}

func (*PlayResult_Game) isPlayResult_Result() {}

func (*PlayResult_Quit) isPlayResult_Result() {}

func (*PlayResult_Refusal) isPlayResult_Result() {}

// Refusal is a refused call's status, with google.rpc.Status's fields and
// numbers (a client may decode it as one): the gRPC code, the message
// naming the problem, and the details, among them the ErrorInfo whose
// reason is in the list above.
type Refusal struct {
	state         protoimpl.MessageState `protogen:"open.v1"`
	Code          int32                  `protobuf:"varint,1,opt,name=code,proto3" json:"code,omitempty"`
	Message       string                 `protobuf:"bytes,2,opt,name=message,proto3" json:"message,omitempty"`
	Details       []*anypb.Any           `protobuf:"bytes,3,rep,name=details,proto3" json:"details,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *Refusal) Reset() {
	*x = Refusal{}
	mi := &file_tirage_qod_v1_qod_proto_msgTypes[2]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *Refusal) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*Refusal) ProtoMessage() {}

func (x *Refusal) ProtoReflect() protoreflect.Message {
	mi := &file_tirage_qod_v1_qod_proto_msgTypes[2]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use Refusal.ProtoReflect.Descriptor instead.
func (*Refusal) Descriptor() ([]byte, []int) {
	return file_tirage_qod_v1_qod_proto_rawDescGZIP(), []int{2}
}

func (x *Refusal) GetCode() int32 {
	if x != nil {
		return x.Code
	}
	return 0
}

func (x *Refusal) GetMessage() string {
	if x != nil {
		return x.Message
	}
	return ""
}

func (x *Refusal) GetDetails() []*anypb.Any {
	if x != nil {
		return x.Details
	}
	return nil
}

type GetTranscriptRequest struct {
	state         protoimpl.MessageState `protogen:"open.v1"`
	GameId        string                 `protobuf:"bytes,1,opt,name=game_id,json=gameId,proto3" json:"game_id,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *GetTranscriptRequest) Reset() {
	*x = GetTranscriptRequest{}
	mi := &file_tirage_qod_v1_qod_proto_msgTypes[3]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *GetTranscriptRequest) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*GetTranscriptRequest) ProtoMessage() {}

func (x *GetTranscriptRequest) ProtoReflect() protoreflect.Message {
	mi := &file_tirage_qod_v1_qod_proto_msgTypes[3]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use GetTranscriptRequest.ProtoReflect.Descriptor instead.
func (*GetTranscriptRequest) Descriptor() ([]byte, []int) {
	return file_tirage_qod_v1_qod_proto_rawDescGZIP(), []int{3}
}

func (x *GetTranscriptRequest) GetGameId() string {
	if x != nil {
		return x.GameId
	}
	return ""
}

type GetTranscriptResponse struct {
	state protoimpl.MessageState `protogen:"open.v1"`
	// The transcript file, JSON.
	Document      []byte `protobuf:"bytes,1,opt,name=document,proto3" json:"document,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *GetTranscriptResponse) Reset() {
	*x = GetTranscriptResponse{}
	mi := &file_tirage_qod_v1_qod_proto_msgTypes[4]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *GetTranscriptResponse) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*GetTranscriptResponse) ProtoMessage() {}

func (x *GetTranscriptResponse) ProtoReflect() protoreflect.Message {
	mi := &file_tirage_qod_v1_qod_proto_msgTypes[4]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use GetTranscriptResponse.ProtoReflect.Descriptor instead.
func (*GetTranscriptResponse) Descriptor() ([]byte, []int) {
	return file_tirage_qod_v1_qod_proto_rawDescGZIP(), []int{4}
}

func (x *GetTranscriptResponse) GetDocument() []byte {
	if x != nil {
		return x.Document
	}
	return nil
}

type GetQuitRequest struct {
	state protoimpl.MessageState `protogen:"open.v1"`
	// The ticket's 18-character stage-2 code, as printed (case-insensitive).
	Code          string `protobuf:"bytes,1,opt,name=code,proto3" json:"code,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *GetQuitRequest) Reset() {
	*x = GetQuitRequest{}
	mi := &file_tirage_qod_v1_qod_proto_msgTypes[5]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *GetQuitRequest) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*GetQuitRequest) ProtoMessage() {}

func (x *GetQuitRequest) ProtoReflect() protoreflect.Message {
	mi := &file_tirage_qod_v1_qod_proto_msgTypes[5]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use GetQuitRequest.ProtoReflect.Descriptor instead.
func (*GetQuitRequest) Descriptor() ([]byte, []int) {
	return file_tirage_qod_v1_qod_proto_rawDescGZIP(), []int{5}
}

func (x *GetQuitRequest) GetCode() string {
	if x != nil {
		return x.Code
	}
	return ""
}

type StartGameRequest struct {
	state     protoimpl.MessageState `protogen:"open.v1"`
	RequestId string                 `protobuf:"bytes,1,opt,name=request_id,json=requestId,proto3" json:"request_id,omitempty"`
	// The ticket's 18-character stage-2 code, as printed (case-insensitive).
	Code          string `protobuf:"bytes,2,opt,name=code,proto3" json:"code,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *StartGameRequest) Reset() {
	*x = StartGameRequest{}
	mi := &file_tirage_qod_v1_qod_proto_msgTypes[6]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *StartGameRequest) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*StartGameRequest) ProtoMessage() {}

func (x *StartGameRequest) ProtoReflect() protoreflect.Message {
	mi := &file_tirage_qod_v1_qod_proto_msgTypes[6]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use StartGameRequest.ProtoReflect.Descriptor instead.
func (*StartGameRequest) Descriptor() ([]byte, []int) {
	return file_tirage_qod_v1_qod_proto_rawDescGZIP(), []int{6}
}

func (x *StartGameRequest) GetRequestId() string {
	if x != nil {
		return x.RequestId
	}
	return ""
}

func (x *StartGameRequest) GetCode() string {
	if x != nil {
		return x.Code
	}
	return ""
}

type QuitRequest struct {
	state     protoimpl.MessageState `protogen:"open.v1"`
	RequestId string                 `protobuf:"bytes,1,opt,name=request_id,json=requestId,proto3" json:"request_id,omitempty"`
	// The ticket's 18-character stage-2 code, as printed (case-insensitive).
	Code          string `protobuf:"bytes,2,opt,name=code,proto3" json:"code,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *QuitRequest) Reset() {
	*x = QuitRequest{}
	mi := &file_tirage_qod_v1_qod_proto_msgTypes[7]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *QuitRequest) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*QuitRequest) ProtoMessage() {}

func (x *QuitRequest) ProtoReflect() protoreflect.Message {
	mi := &file_tirage_qod_v1_qod_proto_msgTypes[7]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use QuitRequest.ProtoReflect.Descriptor instead.
func (*QuitRequest) Descriptor() ([]byte, []int) {
	return file_tirage_qod_v1_qod_proto_rawDescGZIP(), []int{7}
}

func (x *QuitRequest) GetRequestId() string {
	if x != nil {
		return x.RequestId
	}
	return ""
}

func (x *QuitRequest) GetCode() string {
	if x != nil {
		return x.Code
	}
	return ""
}

type QuitResponse struct {
	state      protoimpl.MessageState `protogen:"open.v1"`
	EmissionId string                 `protobuf:"bytes,1,opt,name=emission_id,json=emissionId,proto3" json:"emission_id,omitempty"`
	// The stage-1 gain S the player keeps, in euro cents (from the
	// operator's manifest, never from the game server).
	StakeCents int64 `protobuf:"varint,2,opt,name=stake_cents,json=stakeCents,proto3" json:"stake_cents,omitempty"`
	// When the choice was sealed: the ticket_quit record's time.
	QuitAt *timestamppb.Timestamp `protobuf:"bytes,3,opt,name=quit_at,json=quitAt,proto3" json:"quit_at,omitempty"`
	// The sealed ticket_quit record (no VRF fields: nothing is drawn). With
	// log.receipt_wait set it carries a checkpoint and its inclusion proof;
	// GetQuit's always does.
	Receipt       *Receipt `protobuf:"bytes,4,opt,name=receipt,proto3" json:"receipt,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *QuitResponse) Reset() {
	*x = QuitResponse{}
	mi := &file_tirage_qod_v1_qod_proto_msgTypes[8]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *QuitResponse) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*QuitResponse) ProtoMessage() {}

func (x *QuitResponse) ProtoReflect() protoreflect.Message {
	mi := &file_tirage_qod_v1_qod_proto_msgTypes[8]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use QuitResponse.ProtoReflect.Descriptor instead.
func (*QuitResponse) Descriptor() ([]byte, []int) {
	return file_tirage_qod_v1_qod_proto_rawDescGZIP(), []int{8}
}

func (x *QuitResponse) GetEmissionId() string {
	if x != nil {
		return x.EmissionId
	}
	return ""
}

func (x *QuitResponse) GetStakeCents() int64 {
	if x != nil {
		return x.StakeCents
	}
	return 0
}

func (x *QuitResponse) GetQuitAt() *timestamppb.Timestamp {
	if x != nil {
		return x.QuitAt
	}
	return nil
}

func (x *QuitResponse) GetReceipt() *Receipt {
	if x != nil {
		return x.Receipt
	}
	return nil
}

type PickRequest struct {
	state     protoimpl.MessageState `protogen:"open.v1"`
	RequestId string                 `protobuf:"bytes,1,opt,name=request_id,json=requestId,proto3" json:"request_id,omitempty"`
	GameId    string                 `protobuf:"bytes,2,opt,name=game_id,json=gameId,proto3" json:"game_id,omitempty"`
	// A number of the grid, 1..30, not picked before in this game. uint64
	// (wire-compatible with the uint32 it was): a varint above 2^32-1 is
	// refused (INVALID_ARGUMENT, NUMBER_RANGE), where a uint32 field would
	// have been decoded as its low 32 bits.
	Number        uint64 `protobuf:"varint,3,opt,name=number,proto3" json:"number,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *PickRequest) Reset() {
	*x = PickRequest{}
	mi := &file_tirage_qod_v1_qod_proto_msgTypes[9]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *PickRequest) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*PickRequest) ProtoMessage() {}

func (x *PickRequest) ProtoReflect() protoreflect.Message {
	mi := &file_tirage_qod_v1_qod_proto_msgTypes[9]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use PickRequest.ProtoReflect.Descriptor instead.
func (*PickRequest) Descriptor() ([]byte, []int) {
	return file_tirage_qod_v1_qod_proto_rawDescGZIP(), []int{9}
}

func (x *PickRequest) GetRequestId() string {
	if x != nil {
		return x.RequestId
	}
	return ""
}

func (x *PickRequest) GetGameId() string {
	if x != nil {
		return x.GameId
	}
	return ""
}

func (x *PickRequest) GetNumber() uint64 {
	if x != nil {
		return x.Number
	}
	return 0
}

type DecideRequest struct {
	state         protoimpl.MessageState `protogen:"open.v1"`
	RequestId     string                 `protobuf:"bytes,1,opt,name=request_id,json=requestId,proto3" json:"request_id,omitempty"`
	GameId        string                 `protobuf:"bytes,2,opt,name=game_id,json=gameId,proto3" json:"game_id,omitempty"`
	Decision      Decision               `protobuf:"varint,3,opt,name=decision,proto3,enum=tirage.qod.v1.Decision" json:"decision,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *DecideRequest) Reset() {
	*x = DecideRequest{}
	mi := &file_tirage_qod_v1_qod_proto_msgTypes[10]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *DecideRequest) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*DecideRequest) ProtoMessage() {}

func (x *DecideRequest) ProtoReflect() protoreflect.Message {
	mi := &file_tirage_qod_v1_qod_proto_msgTypes[10]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use DecideRequest.ProtoReflect.Descriptor instead.
func (*DecideRequest) Descriptor() ([]byte, []int) {
	return file_tirage_qod_v1_qod_proto_rawDescGZIP(), []int{10}
}

func (x *DecideRequest) GetRequestId() string {
	if x != nil {
		return x.RequestId
	}
	return ""
}

func (x *DecideRequest) GetGameId() string {
	if x != nil {
		return x.GameId
	}
	return ""
}

func (x *DecideRequest) GetDecision() Decision {
	if x != nil {
		return x.Decision
	}
	return Decision_DECISION_UNSPECIFIED
}

type GetGameRequest struct {
	state         protoimpl.MessageState `protogen:"open.v1"`
	GameId        string                 `protobuf:"bytes,1,opt,name=game_id,json=gameId,proto3" json:"game_id,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *GetGameRequest) Reset() {
	*x = GetGameRequest{}
	mi := &file_tirage_qod_v1_qod_proto_msgTypes[11]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *GetGameRequest) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*GetGameRequest) ProtoMessage() {}

func (x *GetGameRequest) ProtoReflect() protoreflect.Message {
	mi := &file_tirage_qod_v1_qod_proto_msgTypes[11]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use GetGameRequest.ProtoReflect.Descriptor instead.
func (*GetGameRequest) Descriptor() ([]byte, []int) {
	return file_tirage_qod_v1_qod_proto_rawDescGZIP(), []int{11}
}

func (x *GetGameRequest) GetGameId() string {
	if x != nil {
		return x.GameId
	}
	return ""
}

type ListUnfinishedGamesRequest struct {
	state protoimpl.MessageState `protogen:"open.v1"`
	// The most games in the reply: 0 is the default, 500; above 1000 is
	// taken as 1000. Negative is refused (INVALID_ARGUMENT,
	// PAGE_SIZE_INVALID).
	PageSize int32 `protobuf:"varint,1,opt,name=page_size,json=pageSize,proto3" json:"page_size,omitempty"`
	// Empty for the first page; otherwise the next_page_token of the reply
	// before. An opaque value: anything else, another game server's token
	// included, is refused (INVALID_ARGUMENT, PAGE_TOKEN_INVALID).
	PageToken     string `protobuf:"bytes,2,opt,name=page_token,json=pageToken,proto3" json:"page_token,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *ListUnfinishedGamesRequest) Reset() {
	*x = ListUnfinishedGamesRequest{}
	mi := &file_tirage_qod_v1_qod_proto_msgTypes[12]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *ListUnfinishedGamesRequest) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*ListUnfinishedGamesRequest) ProtoMessage() {}

func (x *ListUnfinishedGamesRequest) ProtoReflect() protoreflect.Message {
	mi := &file_tirage_qod_v1_qod_proto_msgTypes[12]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use ListUnfinishedGamesRequest.ProtoReflect.Descriptor instead.
func (*ListUnfinishedGamesRequest) Descriptor() ([]byte, []int) {
	return file_tirage_qod_v1_qod_proto_rawDescGZIP(), []int{12}
}

func (x *ListUnfinishedGamesRequest) GetPageSize() int32 {
	if x != nil {
		return x.PageSize
	}
	return 0
}

func (x *ListUnfinishedGamesRequest) GetPageToken() string {
	if x != nil {
		return x.PageToken
	}
	return ""
}

type ListUnfinishedGamesResponse struct {
	state protoimpl.MessageState `protogen:"open.v1"`
	Games []*Game                `protobuf:"bytes,1,rep,name=games,proto3" json:"games,omitempty"`
	// Set when more games follow: the page_token of the next page. Empty on
	// the last page.
	NextPageToken string `protobuf:"bytes,2,opt,name=next_page_token,json=nextPageToken,proto3" json:"next_page_token,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *ListUnfinishedGamesResponse) Reset() {
	*x = ListUnfinishedGamesResponse{}
	mi := &file_tirage_qod_v1_qod_proto_msgTypes[13]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *ListUnfinishedGamesResponse) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*ListUnfinishedGamesResponse) ProtoMessage() {}

func (x *ListUnfinishedGamesResponse) ProtoReflect() protoreflect.Message {
	mi := &file_tirage_qod_v1_qod_proto_msgTypes[13]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use ListUnfinishedGamesResponse.ProtoReflect.Descriptor instead.
func (*ListUnfinishedGamesResponse) Descriptor() ([]byte, []int) {
	return file_tirage_qod_v1_qod_proto_rawDescGZIP(), []int{13}
}

func (x *ListUnfinishedGamesResponse) GetGames() []*Game {
	if x != nil {
		return x.Games
	}
	return nil
}

func (x *ListUnfinishedGamesResponse) GetNextPageToken() string {
	if x != nil {
		return x.NextPageToken
	}
	return ""
}

type GetReceiptsRequest struct {
	state         protoimpl.MessageState `protogen:"open.v1"`
	GameId        string                 `protobuf:"bytes,1,opt,name=game_id,json=gameId,proto3" json:"game_id,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *GetReceiptsRequest) Reset() {
	*x = GetReceiptsRequest{}
	mi := &file_tirage_qod_v1_qod_proto_msgTypes[14]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *GetReceiptsRequest) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*GetReceiptsRequest) ProtoMessage() {}

func (x *GetReceiptsRequest) ProtoReflect() protoreflect.Message {
	mi := &file_tirage_qod_v1_qod_proto_msgTypes[14]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use GetReceiptsRequest.ProtoReflect.Descriptor instead.
func (*GetReceiptsRequest) Descriptor() ([]byte, []int) {
	return file_tirage_qod_v1_qod_proto_rawDescGZIP(), []int{14}
}

func (x *GetReceiptsRequest) GetGameId() string {
	if x != nil {
		return x.GameId
	}
	return ""
}

type GetReceiptsResponse struct {
	state         protoimpl.MessageState `protogen:"open.v1"`
	Receipts      []*Receipt             `protobuf:"bytes,1,rep,name=receipts,proto3" json:"receipts,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *GetReceiptsResponse) Reset() {
	*x = GetReceiptsResponse{}
	mi := &file_tirage_qod_v1_qod_proto_msgTypes[15]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *GetReceiptsResponse) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*GetReceiptsResponse) ProtoMessage() {}

func (x *GetReceiptsResponse) ProtoReflect() protoreflect.Message {
	mi := &file_tirage_qod_v1_qod_proto_msgTypes[15]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use GetReceiptsResponse.ProtoReflect.Descriptor instead.
func (*GetReceiptsResponse) Descriptor() ([]byte, []int) {
	return file_tirage_qod_v1_qod_proto_rawDescGZIP(), []int{15}
}

func (x *GetReceiptsResponse) GetReceipts() []*Receipt {
	if x != nil {
		return x.Receipts
	}
	return nil
}

type GameReply struct {
	state protoimpl.MessageState `protogen:"open.v1"`
	// The game's state after the call.
	Game *Game `protobuf:"bytes,1,opt,name=game,proto3" json:"game,omitempty"`
	// The sealed record of this call.
	Receipt *Receipt `protobuf:"bytes,2,opt,name=receipt,proto3" json:"receipt,omitempty"`
	// For a Pick: the outcome of this pick.
	Pick *PickResult `protobuf:"bytes,3,opt,name=pick,proto3" json:"pick,omitempty"`
	// When this call ended the game (a losing pick, tier 4, a stop): the
	// sealed end record, which reveals the game's secret r.
	EndReceipt    *Receipt `protobuf:"bytes,4,opt,name=end_receipt,json=endReceipt,proto3" json:"end_receipt,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *GameReply) Reset() {
	*x = GameReply{}
	mi := &file_tirage_qod_v1_qod_proto_msgTypes[16]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *GameReply) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*GameReply) ProtoMessage() {}

func (x *GameReply) ProtoReflect() protoreflect.Message {
	mi := &file_tirage_qod_v1_qod_proto_msgTypes[16]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use GameReply.ProtoReflect.Descriptor instead.
func (*GameReply) Descriptor() ([]byte, []int) {
	return file_tirage_qod_v1_qod_proto_rawDescGZIP(), []int{16}
}

func (x *GameReply) GetGame() *Game {
	if x != nil {
		return x.Game
	}
	return nil
}

func (x *GameReply) GetReceipt() *Receipt {
	if x != nil {
		return x.Receipt
	}
	return nil
}

func (x *GameReply) GetPick() *PickResult {
	if x != nil {
		return x.Pick
	}
	return nil
}

func (x *GameReply) GetEndReceipt() *Receipt {
	if x != nil {
		return x.EndReceipt
	}
	return nil
}

type PickResult struct {
	state         protoimpl.MessageState `protogen:"open.v1"`
	Number        uint32                 `protobuf:"varint,1,opt,name=number,proto3" json:"number,omitempty"`
	Losing        bool                   `protobuf:"varint,2,opt,name=losing,proto3" json:"losing,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *PickResult) Reset() {
	*x = PickResult{}
	mi := &file_tirage_qod_v1_qod_proto_msgTypes[17]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *PickResult) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*PickResult) ProtoMessage() {}

func (x *PickResult) ProtoReflect() protoreflect.Message {
	mi := &file_tirage_qod_v1_qod_proto_msgTypes[17]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use PickResult.ProtoReflect.Descriptor instead.
func (*PickResult) Descriptor() ([]byte, []int) {
	return file_tirage_qod_v1_qod_proto_rawDescGZIP(), []int{17}
}

func (x *PickResult) GetNumber() uint32 {
	if x != nil {
		return x.Number
	}
	return 0
}

func (x *PickResult) GetLosing() bool {
	if x != nil {
		return x.Losing
	}
	return false
}

type Game struct {
	state  protoimpl.MessageState `protogen:"open.v1"`
	GameId string                 `protobuf:"bytes,1,opt,name=game_id,json=gameId,proto3" json:"game_id,omitempty"`
	// The game server that owns the game (its certificate identity).
	Server     string `protobuf:"bytes,2,opt,name=server,proto3" json:"server,omitempty"`
	EmissionId string `protobuf:"bytes,3,opt,name=emission_id,json=emissionId,proto3" json:"emission_id,omitempty"`
	Status     Status `protobuf:"varint,4,opt,name=status,proto3,enum=tirage.qod.v1.Status" json:"status,omitempty"`
	// The stake S, in euro cents.
	StakeCents int64 `protobuf:"varint,5,opt,name=stake_cents,json=stakeCents,proto3" json:"stake_cents,omitempty"`
	// The four multipliers m_1..m_4 (2 or 3).
	Multipliers []uint32 `protobuf:"varint,6,rep,packed,name=multipliers,proto3" json:"multipliers,omitempty"`
	// The four tier amounts A_1..A_4 in cents, A_t = A_{t-1} * m_t, A_0 = S.
	TierAmountsCents []int64 `protobuf:"varint,7,rep,packed,name=tier_amounts_cents,json=tierAmountsCents,proto3" json:"tier_amounts_cents,omitempty"`
	// The picks so far, in order.
	Picks     []*PickResult `protobuf:"bytes,8,rep,name=picks,proto3" json:"picks,omitempty"`
	GoodCount uint32        `protobuf:"varint,9,opt,name=good_count,json=goodCount,proto3" json:"good_count,omitempty"`
	// The highest tier reached (0..4).
	Tier uint32 `protobuf:"varint,10,opt,name=tier,proto3" json:"tier,omitempty"`
	// When ended: the amount won (0 unless STATUS_WON).
	PrizeCents int64                  `protobuf:"varint,11,opt,name=prize_cents,json=prizeCents,proto3" json:"prize_cents,omitempty"`
	StartedAt  *timestamppb.Timestamp `protobuf:"bytes,12,opt,name=started_at,json=startedAt,proto3" json:"started_at,omitempty"`
	// Picks are refused from this instant on (started_at + 30 days).
	ExpiresAt *timestamppb.Timestamp `protobuf:"bytes,13,opt,name=expires_at,json=expiresAt,proto3" json:"expires_at,omitempty"`
	EndedAt   *timestamppb.Timestamp `protobuf:"bytes,14,opt,name=ended_at,json=endedAt,proto3" json:"ended_at,omitempty"`
	// H(r): SHA-256 of the game's secret, committed in the start record.
	Commitment []byte `protobuf:"bytes,15,opt,name=commitment,proto3" json:"commitment,omitempty"`
	// r, revealed once the game has ended.
	Secret []byte `protobuf:"bytes,16,opt,name=secret,proto3" json:"secret,omitempty"`
	// Log index of the game's last record.
	LastLogIndex  uint64 `protobuf:"varint,17,opt,name=last_log_index,json=lastLogIndex,proto3" json:"last_log_index,omitempty"`
	unknownFields protoimpl.UnknownFields
	sizeCache     protoimpl.SizeCache
}

func (x *Game) Reset() {
	*x = Game{}
	mi := &file_tirage_qod_v1_qod_proto_msgTypes[18]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *Game) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*Game) ProtoMessage() {}

func (x *Game) ProtoReflect() protoreflect.Message {
	mi := &file_tirage_qod_v1_qod_proto_msgTypes[18]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use Game.ProtoReflect.Descriptor instead.
func (*Game) Descriptor() ([]byte, []int) {
	return file_tirage_qod_v1_qod_proto_rawDescGZIP(), []int{18}
}

func (x *Game) GetGameId() string {
	if x != nil {
		return x.GameId
	}
	return ""
}

func (x *Game) GetServer() string {
	if x != nil {
		return x.Server
	}
	return ""
}

func (x *Game) GetEmissionId() string {
	if x != nil {
		return x.EmissionId
	}
	return ""
}

func (x *Game) GetStatus() Status {
	if x != nil {
		return x.Status
	}
	return Status_STATUS_UNSPECIFIED
}

func (x *Game) GetStakeCents() int64 {
	if x != nil {
		return x.StakeCents
	}
	return 0
}

func (x *Game) GetMultipliers() []uint32 {
	if x != nil {
		return x.Multipliers
	}
	return nil
}

func (x *Game) GetTierAmountsCents() []int64 {
	if x != nil {
		return x.TierAmountsCents
	}
	return nil
}

func (x *Game) GetPicks() []*PickResult {
	if x != nil {
		return x.Picks
	}
	return nil
}

func (x *Game) GetGoodCount() uint32 {
	if x != nil {
		return x.GoodCount
	}
	return 0
}

func (x *Game) GetTier() uint32 {
	if x != nil {
		return x.Tier
	}
	return 0
}

func (x *Game) GetPrizeCents() int64 {
	if x != nil {
		return x.PrizeCents
	}
	return 0
}

func (x *Game) GetStartedAt() *timestamppb.Timestamp {
	if x != nil {
		return x.StartedAt
	}
	return nil
}

func (x *Game) GetExpiresAt() *timestamppb.Timestamp {
	if x != nil {
		return x.ExpiresAt
	}
	return nil
}

func (x *Game) GetEndedAt() *timestamppb.Timestamp {
	if x != nil {
		return x.EndedAt
	}
	return nil
}

func (x *Game) GetCommitment() []byte {
	if x != nil {
		return x.Commitment
	}
	return nil
}

func (x *Game) GetSecret() []byte {
	if x != nil {
		return x.Secret
	}
	return nil
}

func (x *Game) GetLastLogIndex() uint64 {
	if x != nil {
		return x.LastLogIndex
	}
	return 0
}

type Receipt struct {
	state protoimpl.MessageState `protogen:"open.v1"`
	// The record, exactly as appended to the log (canonical bytes).
	Record []byte `protobuf:"bytes,1,opt,name=record,proto3" json:"record,omitempty"`
	// The index the log assigned to it.
	LogIndex uint64 `protobuf:"varint,2,opt,name=log_index,json=logIndex,proto3" json:"log_index,omitempty"`
	// RFC 6962 leaf hash of the record.
	LeafHash []byte `protobuf:"bytes,3,opt,name=leaf_hash,json=leafHash,proto3" json:"leaf_hash,omitempty"`
	// The VRF input α, proof π and output β of the draw (empty for records
	// that draw nothing, such as a decision). α contains the game's secret r:
	// it is given only once the game has ended.
	VrfAlpha  []byte `protobuf:"bytes,4,opt,name=vrf_alpha,json=vrfAlpha,proto3" json:"vrf_alpha,omitempty"`
	VrfProof  []byte `protobuf:"bytes,5,opt,name=vrf_proof,json=vrfProof,proto3" json:"vrf_proof,omitempty"`
	VrfOutput []byte `protobuf:"bytes,6,opt,name=vrf_output,json=vrfOutput,proto3" json:"vrf_output,omitempty"`
	// RFC 9381 suite name and the VRF public key's id (fingerprint).
	VrfSuite string `protobuf:"bytes,7,opt,name=vrf_suite,json=vrfSuite,proto3" json:"vrf_suite,omitempty"`
	VrfKeyId string `protobuf:"bytes,8,opt,name=vrf_key_id,json=vrfKeyId,proto3" json:"vrf_key_id,omitempty"`
	// The VRF public key itself, encoded as in rngverify vrf --pk.
	VrfPublicKey []byte `protobuf:"bytes,9,opt,name=vrf_public_key,json=vrfPublicKey,proto3" json:"vrf_public_key,omitempty"`
	// When available: a signed checkpoint (C2SP signed note) that includes
	// the record, and the inclusion proof (RFC 6962 hashes) against it.
	Checkpoint     []byte   `protobuf:"bytes,10,opt,name=checkpoint,proto3" json:"checkpoint,omitempty"`
	InclusionProof [][]byte `protobuf:"bytes,11,rep,name=inclusion_proof,json=inclusionProof,proto3" json:"inclusion_proof,omitempty"`
	// With the checkpoint, for a record of a game after its start: the
	// game's start record, its log index and its inclusion proof against the
	// same checkpoint. They bind α to the game's commitment H(r): without
	// them a verifier cannot tell that a pick was drawn with the game's r.
	StartRecord         []byte   `protobuf:"bytes,12,opt,name=start_record,json=startRecord,proto3" json:"start_record,omitempty"`
	StartLogIndex       uint64   `protobuf:"varint,13,opt,name=start_log_index,json=startLogIndex,proto3" json:"start_log_index,omitempty"`
	StartInclusionProof [][]byte `protobuf:"bytes,14,rep,name=start_inclusion_proof,json=startInclusionProof,proto3" json:"start_inclusion_proof,omitempty"`
	unknownFields       protoimpl.UnknownFields
	sizeCache           protoimpl.SizeCache
}

func (x *Receipt) Reset() {
	*x = Receipt{}
	mi := &file_tirage_qod_v1_qod_proto_msgTypes[19]
	ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
	ms.StoreMessageInfo(mi)
}

func (x *Receipt) String() string {
	return protoimpl.X.MessageStringOf(x)
}

func (*Receipt) ProtoMessage() {}

func (x *Receipt) ProtoReflect() protoreflect.Message {
	mi := &file_tirage_qod_v1_qod_proto_msgTypes[19]
	if x != nil {
		ms := protoimpl.X.MessageStateOf(protoimpl.Pointer(x))
		if ms.LoadMessageInfo() == nil {
			ms.StoreMessageInfo(mi)
		}
		return ms
	}
	return mi.MessageOf(x)
}

// Deprecated: Use Receipt.ProtoReflect.Descriptor instead.
func (*Receipt) Descriptor() ([]byte, []int) {
	return file_tirage_qod_v1_qod_proto_rawDescGZIP(), []int{19}
}

func (x *Receipt) GetRecord() []byte {
	if x != nil {
		return x.Record
	}
	return nil
}

func (x *Receipt) GetLogIndex() uint64 {
	if x != nil {
		return x.LogIndex
	}
	return 0
}

func (x *Receipt) GetLeafHash() []byte {
	if x != nil {
		return x.LeafHash
	}
	return nil
}

func (x *Receipt) GetVrfAlpha() []byte {
	if x != nil {
		return x.VrfAlpha
	}
	return nil
}

func (x *Receipt) GetVrfProof() []byte {
	if x != nil {
		return x.VrfProof
	}
	return nil
}

func (x *Receipt) GetVrfOutput() []byte {
	if x != nil {
		return x.VrfOutput
	}
	return nil
}

func (x *Receipt) GetVrfSuite() string {
	if x != nil {
		return x.VrfSuite
	}
	return ""
}

func (x *Receipt) GetVrfKeyId() string {
	if x != nil {
		return x.VrfKeyId
	}
	return ""
}

func (x *Receipt) GetVrfPublicKey() []byte {
	if x != nil {
		return x.VrfPublicKey
	}
	return nil
}

func (x *Receipt) GetCheckpoint() []byte {
	if x != nil {
		return x.Checkpoint
	}
	return nil
}

func (x *Receipt) GetInclusionProof() [][]byte {
	if x != nil {
		return x.InclusionProof
	}
	return nil
}

func (x *Receipt) GetStartRecord() []byte {
	if x != nil {
		return x.StartRecord
	}
	return nil
}

func (x *Receipt) GetStartLogIndex() uint64 {
	if x != nil {
		return x.StartLogIndex
	}
	return 0
}

func (x *Receipt) GetStartInclusionProof() [][]byte {
	if x != nil {
		return x.StartInclusionProof
	}
	return nil
}

var File_tirage_qod_v1_qod_proto protoreflect.FileDescriptor

const file_tirage_qod_v1_qod_proto_rawDesc = "" +
	"\n" +
	"\x17tirage/qod/v1/qod.proto\x12\rtirage.qod.v1\x1a\x19google/protobuf/any.proto\x1a\x1fgoogle/protobuf/timestamp.proto\"\xbe\x02\n" +
	"\bPlayCall\x12\x10\n" +
	"\x03tag\x18\x01 \x01(\x04R\x03tag\x12@\n" +
	"\n" +
	"start_game\x18\x02 \x01(\v2\x1f.tirage.qod.v1.StartGameRequestH\x00R\tstartGame\x120\n" +
	"\x04pick\x18\x03 \x01(\v2\x1a.tirage.qod.v1.PickRequestH\x00R\x04pick\x126\n" +
	"\x06decide\x18\x04 \x01(\v2\x1c.tirage.qod.v1.DecideRequestH\x00R\x06decide\x12:\n" +
	"\bget_game\x18\x05 \x01(\v2\x1d.tirage.qod.v1.GetGameRequestH\x00R\agetGame\x120\n" +
	"\x04quit\x18\x06 \x01(\v2\x1a.tirage.qod.v1.QuitRequestH\x00R\x04quitB\x06\n" +
	"\x04call\"\xf5\x01\n" +
	"\n" +
	"PlayResult\x12\x10\n" +
	"\x03tag\x18\x01 \x01(\x04R\x03tag\x129\n" +
	"\n" +
	"game_reply\x18\x02 \x01(\v2\x18.tirage.qod.v1.GameReplyH\x00R\tgameReply\x12)\n" +
	"\x04game\x18\x03 \x01(\v2\x13.tirage.qod.v1.GameH\x00R\x04game\x121\n" +
	"\x04quit\x18\x04 \x01(\v2\x1b.tirage.qod.v1.QuitResponseH\x00R\x04quit\x122\n" +
	"\arefusal\x18\x05 \x01(\v2\x16.tirage.qod.v1.RefusalH\x00R\arefusalB\b\n" +
	"\x06result\"g\n" +
	"\aRefusal\x12\x12\n" +
	"\x04code\x18\x01 \x01(\x05R\x04code\x12\x18\n" +
	"\amessage\x18\x02 \x01(\tR\amessage\x12.\n" +
	"\adetails\x18\x03 \x03(\v2\x14.google.protobuf.AnyR\adetails\"/\n" +
	"\x14GetTranscriptRequest\x12\x17\n" +
	"\agame_id\x18\x01 \x01(\tR\x06gameId\"3\n" +
	"\x15GetTranscriptResponse\x12\x1a\n" +
	"\bdocument\x18\x01 \x01(\fR\bdocument\"$\n" +
	"\x0eGetQuitRequest\x12\x12\n" +
	"\x04code\x18\x01 \x01(\tR\x04code\"E\n" +
	"\x10StartGameRequest\x12\x1d\n" +
	"\n" +
	"request_id\x18\x01 \x01(\tR\trequestId\x12\x12\n" +
	"\x04code\x18\x02 \x01(\tR\x04code\"@\n" +
	"\vQuitRequest\x12\x1d\n" +
	"\n" +
	"request_id\x18\x01 \x01(\tR\trequestId\x12\x12\n" +
	"\x04code\x18\x02 \x01(\tR\x04code\"\xb7\x01\n" +
	"\fQuitResponse\x12\x1f\n" +
	"\vemission_id\x18\x01 \x01(\tR\n" +
	"emissionId\x12\x1f\n" +
	"\vstake_cents\x18\x02 \x01(\x03R\n" +
	"stakeCents\x123\n" +
	"\aquit_at\x18\x03 \x01(\v2\x1a.google.protobuf.TimestampR\x06quitAt\x120\n" +
	"\areceipt\x18\x04 \x01(\v2\x16.tirage.qod.v1.ReceiptR\areceipt\"]\n" +
	"\vPickRequest\x12\x1d\n" +
	"\n" +
	"request_id\x18\x01 \x01(\tR\trequestId\x12\x17\n" +
	"\agame_id\x18\x02 \x01(\tR\x06gameId\x12\x16\n" +
	"\x06number\x18\x03 \x01(\x04R\x06number\"|\n" +
	"\rDecideRequest\x12\x1d\n" +
	"\n" +
	"request_id\x18\x01 \x01(\tR\trequestId\x12\x17\n" +
	"\agame_id\x18\x02 \x01(\tR\x06gameId\x123\n" +
	"\bdecision\x18\x03 \x01(\x0e2\x17.tirage.qod.v1.DecisionR\bdecision\")\n" +
	"\x0eGetGameRequest\x12\x17\n" +
	"\agame_id\x18\x01 \x01(\tR\x06gameId\"X\n" +
	"\x1aListUnfinishedGamesRequest\x12\x1b\n" +
	"\tpage_size\x18\x01 \x01(\x05R\bpageSize\x12\x1d\n" +
	"\n" +
	"page_token\x18\x02 \x01(\tR\tpageToken\"p\n" +
	"\x1bListUnfinishedGamesResponse\x12)\n" +
	"\x05games\x18\x01 \x03(\v2\x13.tirage.qod.v1.GameR\x05games\x12&\n" +
	"\x0fnext_page_token\x18\x02 \x01(\tR\rnextPageToken\"-\n" +
	"\x12GetReceiptsRequest\x12\x17\n" +
	"\agame_id\x18\x01 \x01(\tR\x06gameId\"I\n" +
	"\x13GetReceiptsResponse\x122\n" +
	"\breceipts\x18\x01 \x03(\v2\x16.tirage.qod.v1.ReceiptR\breceipts\"\xce\x01\n" +
	"\tGameReply\x12'\n" +
	"\x04game\x18\x01 \x01(\v2\x13.tirage.qod.v1.GameR\x04game\x120\n" +
	"\areceipt\x18\x02 \x01(\v2\x16.tirage.qod.v1.ReceiptR\areceipt\x12-\n" +
	"\x04pick\x18\x03 \x01(\v2\x19.tirage.qod.v1.PickResultR\x04pick\x127\n" +
	"\vend_receipt\x18\x04 \x01(\v2\x16.tirage.qod.v1.ReceiptR\n" +
	"endReceipt\"<\n" +
	"\n" +
	"PickResult\x12\x16\n" +
	"\x06number\x18\x01 \x01(\rR\x06number\x12\x16\n" +
	"\x06losing\x18\x02 \x01(\bR\x06losing\"\x88\x05\n" +
	"\x04Game\x12\x17\n" +
	"\agame_id\x18\x01 \x01(\tR\x06gameId\x12\x16\n" +
	"\x06server\x18\x02 \x01(\tR\x06server\x12\x1f\n" +
	"\vemission_id\x18\x03 \x01(\tR\n" +
	"emissionId\x12-\n" +
	"\x06status\x18\x04 \x01(\x0e2\x15.tirage.qod.v1.StatusR\x06status\x12\x1f\n" +
	"\vstake_cents\x18\x05 \x01(\x03R\n" +
	"stakeCents\x12 \n" +
	"\vmultipliers\x18\x06 \x03(\rR\vmultipliers\x12,\n" +
	"\x12tier_amounts_cents\x18\a \x03(\x03R\x10tierAmountsCents\x12/\n" +
	"\x05picks\x18\b \x03(\v2\x19.tirage.qod.v1.PickResultR\x05picks\x12\x1d\n" +
	"\n" +
	"good_count\x18\t \x01(\rR\tgoodCount\x12\x12\n" +
	"\x04tier\x18\n" +
	" \x01(\rR\x04tier\x12\x1f\n" +
	"\vprize_cents\x18\v \x01(\x03R\n" +
	"prizeCents\x129\n" +
	"\n" +
	"started_at\x18\f \x01(\v2\x1a.google.protobuf.TimestampR\tstartedAt\x129\n" +
	"\n" +
	"expires_at\x18\r \x01(\v2\x1a.google.protobuf.TimestampR\texpiresAt\x125\n" +
	"\bended_at\x18\x0e \x01(\v2\x1a.google.protobuf.TimestampR\aendedAt\x12\x1e\n" +
	"\n" +
	"commitment\x18\x0f \x01(\fR\n" +
	"commitment\x12\x16\n" +
	"\x06secret\x18\x10 \x01(\fR\x06secret\x12$\n" +
	"\x0elast_log_index\x18\x11 \x01(\x04R\flastLogIndex\"\xdd\x03\n" +
	"\aReceipt\x12\x16\n" +
	"\x06record\x18\x01 \x01(\fR\x06record\x12\x1b\n" +
	"\tlog_index\x18\x02 \x01(\x04R\blogIndex\x12\x1b\n" +
	"\tleaf_hash\x18\x03 \x01(\fR\bleafHash\x12\x1b\n" +
	"\tvrf_alpha\x18\x04 \x01(\fR\bvrfAlpha\x12\x1b\n" +
	"\tvrf_proof\x18\x05 \x01(\fR\bvrfProof\x12\x1d\n" +
	"\n" +
	"vrf_output\x18\x06 \x01(\fR\tvrfOutput\x12\x1b\n" +
	"\tvrf_suite\x18\a \x01(\tR\bvrfSuite\x12\x1c\n" +
	"\n" +
	"vrf_key_id\x18\b \x01(\tR\bvrfKeyId\x12$\n" +
	"\x0evrf_public_key\x18\t \x01(\fR\fvrfPublicKey\x12\x1e\n" +
	"\n" +
	"checkpoint\x18\n" +
	" \x01(\fR\n" +
	"checkpoint\x12'\n" +
	"\x0finclusion_proof\x18\v \x03(\fR\x0einclusionProof\x12!\n" +
	"\fstart_record\x18\f \x01(\fR\vstartRecord\x12&\n" +
	"\x0fstart_log_index\x18\r \x01(\x04R\rstartLogIndex\x122\n" +
	"\x15start_inclusion_proof\x18\x0e \x03(\fR\x13startInclusionProof*N\n" +
	"\bDecision\x12\x18\n" +
	"\x14DECISION_UNSPECIFIED\x10\x00\x12\x11\n" +
	"\rDECISION_STOP\x10\x01\x12\x15\n" +
	"\x11DECISION_CONTINUE\x10\x02*\x92\x01\n" +
	"\x06Status\x12\x16\n" +
	"\x12STATUS_UNSPECIFIED\x10\x00\x12\x12\n" +
	"\x0eSTATUS_PLAYING\x10\x01\x12\x12\n" +
	"\x0eSTATUS_AT_TIER\x10\x02\x12\x0e\n" +
	"\n" +
	"STATUS_WON\x10\x03\x12\x0f\n" +
	"\vSTATUS_LOST\x10\x04\x12\x12\n" +
	"\x0eSTATUS_EXPIRED\x10\x05\x12\x13\n" +
	"\x0fSTATUS_REFUNDED\x10\x062\xff\x05\n" +
	"\x0eQuitteOuDouble\x12F\n" +
	"\tStartGame\x12\x1f.tirage.qod.v1.StartGameRequest\x1a\x18.tirage.qod.v1.GameReply\x12?\n" +
	"\x04Quit\x12\x1a.tirage.qod.v1.QuitRequest\x1a\x1b.tirage.qod.v1.QuitResponse\x12<\n" +
	"\x04Pick\x12\x1a.tirage.qod.v1.PickRequest\x1a\x18.tirage.qod.v1.GameReply\x12@\n" +
	"\x06Decide\x12\x1c.tirage.qod.v1.DecideRequest\x1a\x18.tirage.qod.v1.GameReply\x12=\n" +
	"\aGetGame\x12\x1d.tirage.qod.v1.GetGameRequest\x1a\x13.tirage.qod.v1.Game\x12l\n" +
	"\x13ListUnfinishedGames\x12).tirage.qod.v1.ListUnfinishedGamesRequest\x1a*.tirage.qod.v1.ListUnfinishedGamesResponse\x12T\n" +
	"\vGetReceipts\x12!.tirage.qod.v1.GetReceiptsRequest\x1a\".tirage.qod.v1.GetReceiptsResponse\x12Z\n" +
	"\rGetTranscript\x12#.tirage.qod.v1.GetTranscriptRequest\x1a$.tirage.qod.v1.GetTranscriptResponse\x12E\n" +
	"\aGetQuit\x12\x1d.tirage.qod.v1.GetQuitRequest\x1a\x1b.tirage.qod.v1.QuitResponse\x12>\n" +
	"\x04Play\x12\x17.tirage.qod.v1.PlayCall\x1a\x19.tirage.qod.v1.PlayResult(\x010\x01B/Z-tirage.fr/tirage/rngd/api/tirage/qod/v1;qodv1b\x06proto3"

var (
	file_tirage_qod_v1_qod_proto_rawDescOnce sync.Once
	file_tirage_qod_v1_qod_proto_rawDescData []byte
)

func file_tirage_qod_v1_qod_proto_rawDescGZIP() []byte {
	file_tirage_qod_v1_qod_proto_rawDescOnce.Do(func() {
		file_tirage_qod_v1_qod_proto_rawDescData = protoimpl.X.CompressGZIP(unsafe.Slice(unsafe.StringData(file_tirage_qod_v1_qod_proto_rawDesc), len(file_tirage_qod_v1_qod_proto_rawDesc)))
	})
	return file_tirage_qod_v1_qod_proto_rawDescData
}

var file_tirage_qod_v1_qod_proto_enumTypes = make([]protoimpl.EnumInfo, 2)
var file_tirage_qod_v1_qod_proto_msgTypes = make([]protoimpl.MessageInfo, 20)
var file_tirage_qod_v1_qod_proto_goTypes = []any{
	(Decision)(0),                       // 0: tirage.qod.v1.Decision
	(Status)(0),                         // 1: tirage.qod.v1.Status
	(*PlayCall)(nil),                    // 2: tirage.qod.v1.PlayCall
	(*PlayResult)(nil),                  // 3: tirage.qod.v1.PlayResult
	(*Refusal)(nil),                     // 4: tirage.qod.v1.Refusal
	(*GetTranscriptRequest)(nil),        // 5: tirage.qod.v1.GetTranscriptRequest
	(*GetTranscriptResponse)(nil),       // 6: tirage.qod.v1.GetTranscriptResponse
	(*GetQuitRequest)(nil),              // 7: tirage.qod.v1.GetQuitRequest
	(*StartGameRequest)(nil),            // 8: tirage.qod.v1.StartGameRequest
	(*QuitRequest)(nil),                 // 9: tirage.qod.v1.QuitRequest
	(*QuitResponse)(nil),                // 10: tirage.qod.v1.QuitResponse
	(*PickRequest)(nil),                 // 11: tirage.qod.v1.PickRequest
	(*DecideRequest)(nil),               // 12: tirage.qod.v1.DecideRequest
	(*GetGameRequest)(nil),              // 13: tirage.qod.v1.GetGameRequest
	(*ListUnfinishedGamesRequest)(nil),  // 14: tirage.qod.v1.ListUnfinishedGamesRequest
	(*ListUnfinishedGamesResponse)(nil), // 15: tirage.qod.v1.ListUnfinishedGamesResponse
	(*GetReceiptsRequest)(nil),          // 16: tirage.qod.v1.GetReceiptsRequest
	(*GetReceiptsResponse)(nil),         // 17: tirage.qod.v1.GetReceiptsResponse
	(*GameReply)(nil),                   // 18: tirage.qod.v1.GameReply
	(*PickResult)(nil),                  // 19: tirage.qod.v1.PickResult
	(*Game)(nil),                        // 20: tirage.qod.v1.Game
	(*Receipt)(nil),                     // 21: tirage.qod.v1.Receipt
	(*anypb.Any)(nil),                   // 22: google.protobuf.Any
	(*timestamppb.Timestamp)(nil),       // 23: google.protobuf.Timestamp
}
var file_tirage_qod_v1_qod_proto_depIdxs = []int32{
	8,  // 0: tirage.qod.v1.PlayCall.start_game:type_name -> tirage.qod.v1.StartGameRequest
	11, // 1: tirage.qod.v1.PlayCall.pick:type_name -> tirage.qod.v1.PickRequest
	12, // 2: tirage.qod.v1.PlayCall.decide:type_name -> tirage.qod.v1.DecideRequest
	13, // 3: tirage.qod.v1.PlayCall.get_game:type_name -> tirage.qod.v1.GetGameRequest
	9,  // 4: tirage.qod.v1.PlayCall.quit:type_name -> tirage.qod.v1.QuitRequest
	18, // 5: tirage.qod.v1.PlayResult.game_reply:type_name -> tirage.qod.v1.GameReply
	20, // 6: tirage.qod.v1.PlayResult.game:type_name -> tirage.qod.v1.Game
	10, // 7: tirage.qod.v1.PlayResult.quit:type_name -> tirage.qod.v1.QuitResponse
	4,  // 8: tirage.qod.v1.PlayResult.refusal:type_name -> tirage.qod.v1.Refusal
	22, // 9: tirage.qod.v1.Refusal.details:type_name -> google.protobuf.Any
	23, // 10: tirage.qod.v1.QuitResponse.quit_at:type_name -> google.protobuf.Timestamp
	21, // 11: tirage.qod.v1.QuitResponse.receipt:type_name -> tirage.qod.v1.Receipt
	0,  // 12: tirage.qod.v1.DecideRequest.decision:type_name -> tirage.qod.v1.Decision
	20, // 13: tirage.qod.v1.ListUnfinishedGamesResponse.games:type_name -> tirage.qod.v1.Game
	21, // 14: tirage.qod.v1.GetReceiptsResponse.receipts:type_name -> tirage.qod.v1.Receipt
	20, // 15: tirage.qod.v1.GameReply.game:type_name -> tirage.qod.v1.Game
	21, // 16: tirage.qod.v1.GameReply.receipt:type_name -> tirage.qod.v1.Receipt
	19, // 17: tirage.qod.v1.GameReply.pick:type_name -> tirage.qod.v1.PickResult
	21, // 18: tirage.qod.v1.GameReply.end_receipt:type_name -> tirage.qod.v1.Receipt
	1,  // 19: tirage.qod.v1.Game.status:type_name -> tirage.qod.v1.Status
	19, // 20: tirage.qod.v1.Game.picks:type_name -> tirage.qod.v1.PickResult
	23, // 21: tirage.qod.v1.Game.started_at:type_name -> google.protobuf.Timestamp
	23, // 22: tirage.qod.v1.Game.expires_at:type_name -> google.protobuf.Timestamp
	23, // 23: tirage.qod.v1.Game.ended_at:type_name -> google.protobuf.Timestamp
	8,  // 24: tirage.qod.v1.QuitteOuDouble.StartGame:input_type -> tirage.qod.v1.StartGameRequest
	9,  // 25: tirage.qod.v1.QuitteOuDouble.Quit:input_type -> tirage.qod.v1.QuitRequest
	11, // 26: tirage.qod.v1.QuitteOuDouble.Pick:input_type -> tirage.qod.v1.PickRequest
	12, // 27: tirage.qod.v1.QuitteOuDouble.Decide:input_type -> tirage.qod.v1.DecideRequest
	13, // 28: tirage.qod.v1.QuitteOuDouble.GetGame:input_type -> tirage.qod.v1.GetGameRequest
	14, // 29: tirage.qod.v1.QuitteOuDouble.ListUnfinishedGames:input_type -> tirage.qod.v1.ListUnfinishedGamesRequest
	16, // 30: tirage.qod.v1.QuitteOuDouble.GetReceipts:input_type -> tirage.qod.v1.GetReceiptsRequest
	5,  // 31: tirage.qod.v1.QuitteOuDouble.GetTranscript:input_type -> tirage.qod.v1.GetTranscriptRequest
	7,  // 32: tirage.qod.v1.QuitteOuDouble.GetQuit:input_type -> tirage.qod.v1.GetQuitRequest
	2,  // 33: tirage.qod.v1.QuitteOuDouble.Play:input_type -> tirage.qod.v1.PlayCall
	18, // 34: tirage.qod.v1.QuitteOuDouble.StartGame:output_type -> tirage.qod.v1.GameReply
	10, // 35: tirage.qod.v1.QuitteOuDouble.Quit:output_type -> tirage.qod.v1.QuitResponse
	18, // 36: tirage.qod.v1.QuitteOuDouble.Pick:output_type -> tirage.qod.v1.GameReply
	18, // 37: tirage.qod.v1.QuitteOuDouble.Decide:output_type -> tirage.qod.v1.GameReply
	20, // 38: tirage.qod.v1.QuitteOuDouble.GetGame:output_type -> tirage.qod.v1.Game
	15, // 39: tirage.qod.v1.QuitteOuDouble.ListUnfinishedGames:output_type -> tirage.qod.v1.ListUnfinishedGamesResponse
	17, // 40: tirage.qod.v1.QuitteOuDouble.GetReceipts:output_type -> tirage.qod.v1.GetReceiptsResponse
	6,  // 41: tirage.qod.v1.QuitteOuDouble.GetTranscript:output_type -> tirage.qod.v1.GetTranscriptResponse
	10, // 42: tirage.qod.v1.QuitteOuDouble.GetQuit:output_type -> tirage.qod.v1.QuitResponse
	3,  // 43: tirage.qod.v1.QuitteOuDouble.Play:output_type -> tirage.qod.v1.PlayResult
	34, // [34:44] is the sub-list for method output_type
	24, // [24:34] is the sub-list for method input_type
	24, // [24:24] is the sub-list for extension type_name
	24, // [24:24] is the sub-list for extension extendee
	0,  // [0:24] is the sub-list for field type_name
}

func init() { file_tirage_qod_v1_qod_proto_init() }
func file_tirage_qod_v1_qod_proto_init() {
	if File_tirage_qod_v1_qod_proto != nil {
		return
	}
	file_tirage_qod_v1_qod_proto_msgTypes[0].OneofWrappers = []any{
		(*PlayCall_StartGame)(nil),
		(*PlayCall_Pick)(nil),
		(*PlayCall_Decide)(nil),
		(*PlayCall_GetGame)(nil),
		(*PlayCall_Quit)(nil),
	}
	file_tirage_qod_v1_qod_proto_msgTypes[1].OneofWrappers = []any{
		(*PlayResult_GameReply)(nil),
		(*PlayResult_Game)(nil),
		(*PlayResult_Quit)(nil),
		(*PlayResult_Refusal)(nil),
	}
	type x struct{}
	out := protoimpl.TypeBuilder{
		File: protoimpl.DescBuilder{
			GoPackagePath: reflect.TypeOf(x{}).PkgPath(),
			RawDescriptor: unsafe.Slice(unsafe.StringData(file_tirage_qod_v1_qod_proto_rawDesc), len(file_tirage_qod_v1_qod_proto_rawDesc)),
			NumEnums:      2,
			NumMessages:   20,
			NumExtensions: 0,
			NumServices:   1,
		},
		GoTypes:           file_tirage_qod_v1_qod_proto_goTypes,
		DependencyIndexes: file_tirage_qod_v1_qod_proto_depIdxs,
		EnumInfos:         file_tirage_qod_v1_qod_proto_enumTypes,
		MessageInfos:      file_tirage_qod_v1_qod_proto_msgTypes,
	}.Build()
	File_tirage_qod_v1_qod_proto = out.File
	file_tirage_qod_v1_qod_proto_goTypes = nil
	file_tirage_qod_v1_qod_proto_depIdxs = nil
}
