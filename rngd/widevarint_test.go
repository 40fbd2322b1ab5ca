package rngd

import (
	"context"
	"crypto/sha256"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

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

// newCall's digest is that of the request's deterministic encoding with
// request_id cleared, for every request that carries one, whatever its
// fields hold (a stored digest of an earlier rngd must match its retry).
func TestCallDigestOfClearedRequest(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 9))
	n := 0
	protoregistry.GlobalTypes.RangeMessages(func(mt protoreflect.MessageType) bool {
		d := mt.Descriptor()
		fd := d.Fields().ByName("request_id")
		if !strings.HasPrefix(string(d.FullName()), "tirage.") || fd == nil {
			return true
		}
		n++
		for i := range 50 {
			m := mt.New()
			fillProto(rng, m, 0)
			m.Set(fd, protoreflect.ValueOfString(fmt.Sprintf("req-%d", i)))
			if i%5 == 0 { // fields of a newer client's
				m.SetUnknown(protowire.AppendVarint(protowire.AppendTag(nil, 999, protowire.VarintType), rng.Uint64()))
			}
			c, err := newCall("server-a", "M", m.Interface())
			if err != nil {
				t.Fatalf("%s: %v", d.FullName(), err)
			}
			cleared := proto.Clone(m.Interface())
			cleared.ProtoReflect().Clear(fd)
			b, err := proto.MarshalOptions{Deterministic: true}.Marshal(cleared)
			if err != nil {
				t.Fatal(err)
			}
			if c.digest != requestDigest("M", b) {
				t.Fatalf("%s: digest differs from the cleared request's for %v", d.FullName(), m)
			}
			if c.id != fmt.Sprintf("req-%d", i) || m.Get(fd).String() != c.id {
				t.Fatalf("%s: request id %q, request left with %q", d.FullName(), c.id, m.Get(fd).String())
			}
		}
		return true
	})
	if n < 5 {
		t.Fatalf("only %d request messages with a request_id registered", n)
	}
}

// requestDigest is newCall's digest as its doc states it, computed apart:
// SHA-256 of method, 0x00, content.
func requestDigest(method string, content []byte) [32]byte {
	h := sha256.New()
	h.Write([]byte(method))
	h.Write([]byte{0})
	h.Write(content)
	return [32]byte(h.Sum(nil))
}

// A request around and past newCall's buffer (512 bytes, grown, and past
// maxCallBuffer, then left out of the pool) gets the same digest, as does
// the next call on a buffer a larger one grew.
func TestCallDigestLargeRequest(t *testing.T) {
	for _, n := range []int{0, 400, 495, 496, 497, 511, 512, 4096, 3000, 10} {
		req := &qodv1.StartGameRequest{RequestId: "r-1", Code: strings.Repeat("C", n)}
		c, err := newCall("server-a", "StartGame", req)
		if err != nil {
			t.Fatal(err)
		}
		b, err := proto.MarshalOptions{Deterministic: true}.Marshal(&qodv1.StartGameRequest{Code: req.Code})
		if err != nil {
			t.Fatal(err)
		}
		if c.digest != requestDigest("StartGame", b) {
			t.Errorf("code of %d bytes: digest differs from the cleared request's", n)
		}
	}
}

// newCall allocates nothing for a game call: the encoding it hashes goes in
// a reused buffer, the request identity is hashed on the stack.
func TestNewCallAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector drops sync.Pool items")
	}
	req := &qodv1.PickRequest{RequestId: "req-1", GameId: "server-a/g", Number: 7}
	if n := testing.AllocsPerRun(200, func() {
		if _, err := newCall("server-a", "Pick", req); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Errorf("newCall: %v allocations, want 0", n)
	}
}

// fillProto sets every field of m to a random value (nested messages to a
// depth of 3), some left empty.
func fillProto(rng *rand.Rand, m protoreflect.Message, depth int) {
	fields := m.Descriptor().Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		if rng.IntN(4) == 0 || fd.ContainingOneof() != nil && m.WhichOneof(fd.ContainingOneof()) != nil {
			continue
		}
		switch {
		case fd.IsList():
			l := m.Mutable(fd).List()
			for range rng.IntN(4) {
				if fd.Kind() == protoreflect.MessageKind {
					if depth < 3 {
						fillProto(rng, l.AppendMutable().Message(), depth+1)
					}
					continue
				}
				l.Append(randomValue(rng, fd))
			}
		case fd.IsMap():
			// no request has a map
		case fd.Kind() == protoreflect.MessageKind || fd.Kind() == protoreflect.GroupKind:
			if depth < 3 {
				fillProto(rng, m.Mutable(fd).Message(), depth+1)
			}
		default:
			m.Set(fd, randomValue(rng, fd))
		}
	}
}

func randomValue(rng *rand.Rand, fd protoreflect.FieldDescriptor) protoreflect.Value {
	switch fd.Kind() {
	case protoreflect.BoolKind:
		return protoreflect.ValueOfBool(rng.IntN(2) == 1)
	case protoreflect.EnumKind:
		return protoreflect.ValueOfEnum(protoreflect.EnumNumber(rng.IntN(4)))
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return protoreflect.ValueOfInt32(int32(rng.Uint32()))
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return protoreflect.ValueOfInt64(int64(rng.Uint64()))
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return protoreflect.ValueOfUint32(rng.Uint32())
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return protoreflect.ValueOfUint64(rng.Uint64())
	case protoreflect.FloatKind:
		return protoreflect.ValueOfFloat32(rng.Float32())
	case protoreflect.DoubleKind:
		return protoreflect.ValueOfFloat64(rng.Float64())
	case protoreflect.StringKind:
		return protoreflect.ValueOfString(fmt.Sprintf("s%x", rng.Uint64()>>rng.IntN(64)))
	default: // bytes
		b := make([]byte, rng.IntN(40))
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		return protoreflect.ValueOfBytes(b)
	}
}
