package witness

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"strconv"

	"golang.org/x/mod/sumdb/tlog"

	vcheckpoint "tirage.fr/tirage/verifier/checkpoint"
)

// MaxProofLines is the most consistency proof lines a request may carry
// (tlog-witness: "The client MUST NOT send more than 63").
const MaxProofLines = 63

// MaxRequestSize bounds an add-checkpoint body: the old size line, 63 proof
// lines of 44 base64 characters, the empty line and a checkpoint of at most
// vcheckpoint.MaxSize bytes. A larger body is refused (413) unread.
const MaxRequestSize = len("old 18446744073709551615\n") + MaxProofLines*(44+1) + 1 + vcheckpoint.MaxSize

// Request is the body of an add-checkpoint call (c2sp.org/tlog-witness):
//
//	old <size>\n
//	<proof hash, base64>\n   (zero to 63 lines)
//	\n
//	<signed checkpoint>
type Request struct {
	// OldSize is the size of the checkpoint the client believes the
	// witness last cosigned for this log (0 if none).
	OldSize uint64
	// Proof is the RFC 6962 consistency proof from OldSize to the
	// checkpoint's size.
	Proof tlog.TreeProof
	// Checkpoint is the signed note, as the log signed it.
	Checkpoint []byte
}

// Marshal returns the request body.
func (r *Request) Marshal() []byte {
	b := fmt.Appendf(nil, "old %d\n", r.OldSize)
	for _, h := range r.Proof {
		b = base64.StdEncoding.AppendEncode(b, h[:])
		b = append(b, '\n')
	}
	b = append(b, '\n')
	return append(b, r.Checkpoint...)
}

// ParseRequest parses an add-checkpoint body. It checks the framing only
// (the old size line, at most 63 proof lines of one 32-byte hash each in
// canonical base64, the empty line, a non-empty checkpoint), not the
// checkpoint. Errors wrap ErrMalformed.
func ParseRequest(body []byte) (*Request, error) {
	if len(body) > MaxRequestSize {
		return nil, fmt.Errorf("%w: body of %d bytes exceeds %d", ErrMalformed, len(body), MaxRequestSize)
	}
	line, rest, ok := bytes.Cut(body, []byte("\n"))
	if !ok {
		return nil, fmt.Errorf("%w: no old size line", ErrMalformed)
	}
	num, ok := bytes.CutPrefix(line, []byte("old "))
	if !ok {
		return nil, fmt.Errorf("%w: first line is not \"old <size>\"", ErrMalformed)
	}
	old, err := strconv.ParseUint(string(num), 10, 64)
	if err != nil || strconv.FormatUint(old, 10) != string(num) {
		// Leading zeroes, signs and spaces are refused: one size, one spelling.
		return nil, fmt.Errorf("%w: old size %q is not a decimal without leading zeroes", ErrMalformed, clip(num))
	}
	r := &Request{OldSize: old}
	for {
		line, rest, ok = bytes.Cut(rest, []byte("\n"))
		if !ok {
			return nil, fmt.Errorf("%w: no empty line before the checkpoint", ErrMalformed)
		}
		if len(line) == 0 {
			break
		}
		if len(r.Proof) == MaxProofLines {
			return nil, fmt.Errorf("%w: more than %d consistency proof lines", ErrMalformed, MaxProofLines)
		}
		// Exactly 44 characters: the decoder would skip a '\r'.
		h, err := base64.StdEncoding.Strict().DecodeString(string(line))
		if err != nil || len(line) != base64.StdEncoding.EncodedLen(tlog.HashSize) || len(h) != tlog.HashSize {
			return nil, fmt.Errorf("%w: proof line %d is not a base64 SHA-256 hash", ErrMalformed, len(r.Proof)+1)
		}
		r.Proof = append(r.Proof, tlog.Hash(h))
	}
	if len(rest) == 0 {
		return nil, fmt.Errorf("%w: no checkpoint", ErrMalformed)
	}
	r.Checkpoint = rest
	return r, nil
}

func clip(b []byte) string {
	if len(b) > 24 {
		return string(b[:24]) + "…"
	}
	return string(b)
}
