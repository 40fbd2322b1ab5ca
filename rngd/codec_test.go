package rngd

import (
	"bytes"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/timestamppb"

	qodv1 "tirage.fr/tirage/rngd/api/tirage/qod/v1"
)

// codecReplies are replies as the daemon sends them: a pick's (with the
// start's record and a proof of inclusion), a refusal with details, a
// game's state, and receipts past gRPC's pooling threshold (1 KiB).
func codecReplies() []proto.Message {
	at := &timestamppb.Timestamp{Seconds: 1_780_000_000, Nanos: 123_000_000}
	game := &qodv1.Game{GameId: "server-a/0192a3b4c5d6e7f8091a2b3c4d5e6f7081", Server: "server-a", EmissionId: "QOD-2026-07",
		Status: qodv1.Status_STATUS_AT_TIER, StakeCents: 500, Multipliers: []uint32{2, 3, 2, 2}, TierAmountsCents: []int64{1000, 3000, 6000, 12000},
		GoodCount: 6, Tier: 1, PrizeCents: 1000, StartedAt: at, ExpiresAt: &timestamppb.Timestamp{Seconds: 1_782_592_000}, Commitment: bytes.Repeat([]byte{7}, 32),
		LastLogIndex: 1 << 40}
	for n := range uint32(7) {
		game.Picks = append(game.Picks, &qodv1.PickResult{Number: 3*n + 1, Losing: n == 6})
	}
	receipt := &qodv1.Receipt{Record: bytes.Repeat([]byte("record "), 100), LogIndex: 1 << 40, LeafHash: bytes.Repeat([]byte{1}, 32),
		VrfAlpha: []byte("tirage/alpha/v1 …"), VrfProof: bytes.Repeat([]byte{2}, 81), VrfOutput: bytes.Repeat([]byte{3}, 32),
		VrfSuite: "ECVRF-P256-SHA256-SSWU", VrfKeyId: "vrf-2026", VrfPublicKey: bytes.Repeat([]byte{4}, 33),
		Checkpoint: []byte("tirage.fr/log\n12\nAAAA\n"), InclusionProof: [][]byte{bytes.Repeat([]byte{5}, 32), {}, bytes.Repeat([]byte{6}, 32)},
		StartRecord: bytes.Repeat([]byte("start "), 100), StartLogIndex: 12, StartInclusionProof: [][]byte{bytes.Repeat([]byte{8}, 32)}}
	reply := &qodv1.GameReply{Game: game, Receipt: receipt, Pick: &qodv1.PickResult{Number: 19, Losing: true}, EndReceipt: receipt}
	detail, err := anypb.New(&qodv1.PickResult{Number: 31})
	if err != nil {
		panic(err)
	}
	many := &qodv1.GetReceiptsResponse{}
	for range 20 {
		many.Receipts = append(many.Receipts, receipt)
	}
	return []proto.Message{
		reply,
		&qodv1.PlayResult{Tag: 1, Result: &qodv1.PlayResult_GameReply{GameReply: reply}},
		&qodv1.PlayResult{Tag: 1<<64 - 1, Result: &qodv1.PlayResult_Game{Game: game}},
		&qodv1.PlayResult{Tag: 2, Result: &qodv1.PlayResult_Refusal{Refusal: &qodv1.Refusal{Code: int32(codes.FailedPrecondition), Message: "number: 31 is not in 1..30", Details: []*anypb.Any{detail}}}},
		&qodv1.PlayResult{},
		&qodv1.GameReply{Game: &qodv1.Game{}},
		many,
		&healthpb.HealthCheckResponse{Status: healthpb.HealthCheckResponse_SERVING}, // no generated encoder
	}
}

// checkCodecBytes fails unless replyCodec encodes m as gRPC's own codec
// does, byte for byte, and decodes those bytes back to m.
func checkCodecBytes(t *testing.T, m proto.Message) {
	t.Helper()
	want, err := proto.Marshal(m)
	if err != nil {
		t.Fatalf("%T: proto.Marshal: %v", m, err)
	}
	data, err := replyCodec{}.Marshal(m)
	if err != nil {
		t.Fatalf("%T: replyCodec: %v", m, err)
	}
	got := data.Materialize()
	if !bytes.Equal(got, want) {
		t.Fatalf("%T: replyCodec wrote\n%x\nproto.Marshal\n%x", m, got, want)
	}
	back := m.ProtoReflect().New().Interface()
	if err := (replyCodec{}).Unmarshal(data, back); err != nil {
		t.Fatalf("%T: decoding its own bytes: %v", m, err)
	}
	data.Free()
	if !proto.Equal(back, m) {
		t.Fatalf("%T: decoded %v, want %v", m, back, m)
	}
}

// TestReplyCodecBytes: the generated encoder writes what gRPC's proto codec
// writes for every kind of reply, above and below the pooling threshold,
// and a message without one (health) goes through gRPC's codec.
func TestReplyCodecBytes(t *testing.T) {
	for _, m := range codecReplies() {
		checkCodecBytes(t, m)
	}
	if _, ok := any(&qodv1.GameReply{}).(vtMessage); !ok {
		t.Fatal("GameReply has no generated encoder: run make generate")
	}
	if n := proto.Size(codecReplies()[6]); mem.IsBelowBufferPoolingThreshold(n) {
		t.Fatalf("the receipts reply is %d bytes: below the pooling threshold, that path is untested", n)
	}
}

// TestReplyCodecRefusesBadUTF8: decoding is protobuf-go's, which refuses a
// string field that is not UTF-8 (vtprotobuf's decoder would take it).
func TestReplyCodecRefusesBadUTF8(t *testing.T) {
	good, err := proto.Marshal(&qodv1.PickRequest{GameId: "server-a/xx", Number: 3})
	if err != nil {
		t.Fatal(err)
	}
	bad := bytes.Replace(good, []byte("xx"), []byte{0xff, 0xfe}, 1)
	var r qodv1.PickRequest
	err = replyCodec{}.Unmarshal(mem.BufferSlice{mem.SliceBuffer(bad)}, &r)
	if err == nil || !strings.Contains(err.Error(), "UTF-8") {
		t.Fatalf("decoded a game_id that is not UTF-8: %q, %v", r.GameId, err)
	}
	if err := (replyCodec{}).Unmarshal(mem.BufferSlice{mem.SliceBuffer(good)}, &r); err != nil || r.Number != 3 {
		t.Fatalf("decoding a good request: %v, %v", &r, err)
	}
}

// FuzzReplyCodec: any PlayResult protobuf-go decodes (fields known and
// unknown, oneofs, repeated and empty values) is encoded by replyCodec as
// by proto.Marshal, byte for byte — but for unknown fields inside a
// Timestamp or an Any, which vtprotobuf's encoders of these well-known
// types drop. The daemon's replies carry none: it builds them, and their
// timestamps and status details, itself.
func FuzzReplyCodec(f *testing.F) {
	for _, m := range codecReplies() {
		b, err := proto.Marshal(m)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte{0xf8, 0x3e, 0x01}) // an unknown field, 999
	f.Fuzz(func(t *testing.T, raw []byte) {
		for _, m := range []proto.Message{&qodv1.PlayResult{}, &qodv1.GameReply{}, &qodv1.GetReceiptsResponse{}} {
			if proto.Unmarshal(raw, m) != nil {
				continue
			}
			dropWellKnownUnknowns(m.ProtoReflect())
			checkCodecBytes(t, m)
		}
	})
}

// dropWellKnownUnknowns removes the unknown fields of every Timestamp and
// Any in m.
func dropWellKnownUnknowns(m protoreflect.Message) {
	switch m.Descriptor().FullName() {
	case "google.protobuf.Timestamp", "google.protobuf.Any":
		m.SetUnknown(nil)
		return
	}
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.Message() == nil:
		case fd.IsList():
			for i := range v.List().Len() {
				dropWellKnownUnknowns(v.List().Get(i).Message())
			}
		default:
			dropWellKnownUnknowns(v.Message())
		}
		return true
	})
}

// BenchmarkReplyCodec: a pick's reply that ends its game (game, receipt,
// end receipt) encoded by gRPC's proto codec and by replyCodec.
func BenchmarkReplyCodec(b *testing.B) {
	reply := codecReplies()[0]
	for _, c := range []struct {
		name  string
		codec interface {
			Marshal(any) (mem.BufferSlice, error)
		}
	}{{"grpc", protoCodec}, {"generated", replyCodec{}}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				data, err := c.codec.Marshal(reply)
				if err != nil {
					b.Fatal(err)
				}
				data.Free()
			}
		})
	}
}
