package entropy

import (
	"bytes"
	"encoding/binary"
	"testing"
)

func simFrame(rsp []byte, ack uint32) []byte {
	b := binary.BigEndian.AppendUint32(nil, uint32(len(rsp)))
	b = append(b, rsp...)
	return binary.BigEndian.AppendUint32(b, ack)
}

// FuzzSimulatorResponse: the TPM simulator's reply comes off the network.
// Parsing never panics, and a response it accepts re-encodes to the prefix
// of the input it consumed.
func FuzzSimulatorResponse(f *testing.F) {
	getRandomRsp := []byte{0x80, 0x01, 0, 0, 0, 0x10, 0, 0, 0, 0, 0, 0x04, 1, 2, 3, 4}
	f.Add(simFrame(getRandomRsp, 0))
	f.Add(simFrame(getRandomRsp, 1))
	f.Add(simFrame(nil, 0))
	f.Add([]byte{0, 0, 0x10, 0})
	f.Add([]byte{0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, in []byte) {
		r := bytes.NewReader(in)
		rsp, err := readSimulatorResponse(r)
		if err != nil {
			return
		}
		consumed := in[:len(in)-r.Len()]
		if !bytes.Equal(simFrame(rsp, 0), consumed) {
			t.Fatalf("accepted %x but it re-encodes to %x", consumed, simFrame(rsp, 0))
		}
	})
}

func TestSimulatorResponseRejects(t *testing.T) {
	for name, in := range map[string][]byte{
		"empty":     nil,
		"zero":      simFrame(nil, 0),
		"nack":      simFrame([]byte{1}, 7),
		"truncated": simFrame([]byte{1, 2, 3}, 0)[:6],
		"huge":      {0x7f, 0xff, 0xff, 0xff},
	} {
		if _, err := readSimulatorResponse(bytes.NewReader(in)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if rsp, err := readSimulatorResponse(bytes.NewReader(simFrame([]byte{9, 8}, 0))); err != nil || !bytes.Equal(rsp, []byte{9, 8}) {
		t.Errorf("good frame: %x, %v", rsp, err)
	}
}
