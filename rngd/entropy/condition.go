package entropy

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
)

// conditioningKey is the HMAC key of the conditioning component. SP 800-90B
// §3.1.5.1.1 lets a vetted keyed conditioning function use a fixed key; this
// one is public and only separates our use of HMAC from any other.
var conditioningKey = sha256.Sum256([]byte("tirage.fr/tirage/rngd/entropy conditioning key v1"))

// rawInput is the raw output of one source for one seed.
type rawInput struct {
	source string
	data   []byte
}

// condition is the vetted conditioning component of SP 800-90B §3.1.5.1.1,
// HMAC-SHA-256, applied to the concatenation of the sources' raw outputs,
// each prefixed by its name and length so that no two different inputs
// encode alike. It returns outLen bytes: Y_j = HMAC(K, j || outLen || input)
// for j = 1, 2, …, truncated. Per §3.1.5.1.2 the output carries at most
// min(h_in, 8·outLen, 256) bits of entropy, where h_in is the entropy
// credited to the inputs and 256 the narrowest internal width nw of
// SHA-256 (Output_Entropy works with n = min(n_out, nw)): however long the
// output, it carries at most 256 bits, and full entropy for a 256-bit output
// needs h_in ≥ 320. The caller sizes inputs so that h_in meets its
// requirement.
func condition(inputs []rawInput, outLen int) []byte {
	out := make([]byte, 0, outLen+sha256.Size)
	var n [4]byte
	for j := uint32(1); len(out) < outLen; j++ {
		m := hmac.New(sha256.New, conditioningKey[:])
		m.Write(binary.BigEndian.AppendUint32(n[:0], j))
		m.Write(binary.BigEndian.AppendUint32(n[:0], uint32(outLen)))
		for _, in := range inputs {
			m.Write(binary.BigEndian.AppendUint32(n[:0], uint32(len(in.source))))
			m.Write([]byte(in.source))
			m.Write(binary.BigEndian.AppendUint32(n[:0], uint32(len(in.data))))
			m.Write(in.data)
		}
		out = m.Sum(out)
	}
	clear(out[outLen:cap(out)])
	return out[:outLen]
}
