package rngd

import (
	"fmt"

	"google.golang.org/grpc/encoding"
	protocodec "google.golang.org/grpc/encoding/proto"
	"google.golang.org/grpc/mem"
)

// replyCodec is the TCP listeners' gRPC codec (grpc.ForceServerCodecV2). It
// encodes a message that has generated size and marshal methods (the game
// servers' API, tirage/qod/v1: scripts/protoc.sh's protoc_vt) with them,
// and every other message, and every request it decodes, with gRPC's own
// proto codec. The bytes are the same (TestReplyCodecBytes,
// FuzzReplyCodec); the generated encoder takes about a third of the
// generic one's time for a pick's reply (BenchmarkReplyCodec). Decoding stays protobuf-go's: it
// refuses a string that is not UTF-8, which the generated decoder would
// take (vtprotobuf's issue 146).
type replyCodec struct{}

// vtMessage is a message with vtprotobuf's generated size and marshal.
type vtMessage interface {
	SizeVT() int
	MarshalToSizedBufferVT([]byte) (int, error)
}

// protoCodec is gRPC's proto codec (registered by its package's init).
var protoCodec = encoding.GetCodecV2(protocodec.Name)

func (replyCodec) Name() string { return protocodec.Name }

func (replyCodec) Marshal(v any) (mem.BufferSlice, error) {
	m, ok := v.(vtMessage)
	if !ok {
		return protoCodec.Marshal(v)
	}
	size := m.SizeVT()
	if mem.IsBelowBufferPoolingThreshold(size) {
		buf := make([]byte, size)
		if _, err := m.MarshalToSizedBufferVT(buf); err != nil {
			return nil, fmt.Errorf("proto: couldn't encode %T: %w", v, err)
		}
		return mem.BufferSlice{mem.SliceBuffer(buf)}, nil
	}
	// As gRPC's codec: a buffer from its pool, back to it once written.
	pool := mem.DefaultBufferPool()
	buf := pool.Get(size)
	if _, err := m.MarshalToSizedBufferVT((*buf)[:size]); err != nil {
		pool.Put(buf)
		return nil, fmt.Errorf("proto: couldn't encode %T: %w", v, err)
	}
	return mem.BufferSlice{mem.NewBuffer(buf, pool)}, nil
}

func (replyCodec) Unmarshal(data mem.BufferSlice, v any) error {
	return protoCodec.Unmarshal(data, v)
}
