package rngd

import (
	"context"
	"fmt"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/encoding/protowire"

	qodv1 "tirage.fr/tirage/rngd/api/tirage/qod/v1"
)

// rawCodec sends and receives messages as the bytes given: a client that
// writes its own protobuf encoding.
type rawCodec struct{}

func (rawCodec) Marshal(v any) ([]byte, error) {
	b, ok := v.(*[]byte)
	if !ok {
		return nil, fmt.Errorf("rawCodec: %T, want *[]byte", v)
	}
	return *b, nil
}

func (rawCodec) Unmarshal(data []byte, v any) error {
	b, ok := v.(*[]byte)
	if !ok {
		return fmt.Errorf("rawCodec: %T, want *[]byte", v)
	}
	*b = append((*b)[:0], data...)
	return nil
}

func (rawCodec) Name() string { return "proto" }

// rawPick encodes a PickRequest by hand, number a varint of any width.
func rawPick(requestID, gameID string, number uint64) []byte {
	var b []byte
	b = protowire.AppendTag(b, 1, protowire.BytesType)
	b = protowire.AppendString(b, requestID)
	b = protowire.AppendTag(b, 2, protowire.BytesType)
	b = protowire.AppendString(b, gameID)
	b = protowire.AppendTag(b, 3, protowire.VarintType)
	return protowire.AppendVarint(b, number)
}

// A Pick whose number is a varint above 2^32-1 on the wire is refused
// (NUMBER_RANGE, naming number), not read as its low 32 bits (4294967301
// would pick 5); nothing changes, and the request id stays free.
func TestPickWideNumber(t *testing.T) {
	td := newTestDaemon(t)
	ctx := context.Background()
	codes1 := td.emission("WN", "2026-11-01", 2)
	a := td.client("server-a")
	g := start(t, a, codes1[0]).Game
	cc := td.conn("server-a")
	id := rid()
	for _, n := range []uint64{1<<32 + 5, 1 << 32, 1<<64 - 1} {
		req := rawPick(id, g.GameId, n)
		unchanged(t, a, g.GameId, reasonNumberRange, "number", func() error {
			var out []byte
			return cc.Invoke(ctx, qodv1.QuitteOuDouble_Pick_FullMethodName, &req, &out, grpc.ForceCodec(rawCodec{}))
		})
	}
	// The refused request id was not stored: it draws number 5 now.
	r, err := a.Pick(ctx, &qodv1.PickRequest{RequestId: id, GameId: g.GameId, Number: 5})
	if err != nil {
		t.Fatal(err)
	}
	if r.Pick.GetNumber() != 5 || len(r.Game.Picks) != 1 {
		t.Fatalf("pick after the refusals: %v", r)
	}
}

// Widening number from uint32 to uint64 keeps the encoding of every number
// a uint32 could hold, so the content digest of a retry matches the one
// stored before the change.
func TestPickDigestStable(t *testing.T) {
	for _, n := range []uint64{1, 5, 30, 1<<32 - 1} {
		c, err := newCall("server-a", "Pick", &qodv1.PickRequest{RequestId: "r", GameId: "server-a/g", Number: n})
		if err != nil {
			t.Fatal(err)
		}
		var old []byte // as a uint32 field was encoded
		old = protowire.AppendTag(old, 2, protowire.BytesType)
		old = protowire.AppendString(old, "server-a/g")
		old = protowire.AppendTag(old, 3, protowire.VarintType)
		old = protowire.AppendVarint(old, uint64(uint32(n)))
		if want := requestDigest("Pick", old); c.digest != want {
			t.Errorf("number %d: digest changed", n)
		}
	}
}
