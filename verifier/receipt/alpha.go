package receipt

import (
	"bytes"
	"encoding/binary"

	"tirage.fr/tirage/verifier/record"
	"tirage.fr/tirage/verifier/verdict"
)

// alphaFields splits a VRF input α (record's layout: domain || u16be(len(kind))
// || kind || (u32be(len) || value)*) into its kind and fields.
func alphaFields(a []byte) (kind string, fields [][]byte, err error) {
	if !bytes.HasPrefix(a, []byte(record.AlphaDomain)) {
		return "", nil, verdict.Errorf(verdict.MsgAlphaDomain, record.AlphaDomain)
	}
	a = a[len(record.AlphaDomain):]
	if len(a) < 2 || len(a) < 2+int(binary.BigEndian.Uint16(a)) {
		return "", nil, verdict.Errorf(verdict.MsgAlphaTruncatedKind)
	}
	n := int(binary.BigEndian.Uint16(a))
	kind, a = string(a[2:2+n]), a[2+n:]
	for len(a) > 0 {
		if len(a) < 4 || uint64(len(a)-4) < uint64(binary.BigEndian.Uint32(a)) {
			return "", nil, verdict.Errorf(verdict.MsgAlphaTruncatedField, len(fields)+1)
		}
		l := int(binary.BigEndian.Uint32(a))
		fields, a = append(fields, a[4:4+l]), a[4+l:]
	}
	return kind, fields, nil
}

// secretFromAlpha checks that α is the α of rec (the fields the record
// carries) and returns the secret r it contains, with which the α is then
// rebuilt byte for byte by package record. A pick carries neither emission
// nor ticket: they are the game's start's when start is given (the caller
// checked it is this game's), else α's own. Whether r is the committed one
// is the caller's business (record.Commit against the start's commit).
func secretFromAlpha(rec record.Record, a []byte, start *record.GameStart) ([32]byte, error) {
	var r [32]byte
	kind, f, err := alphaFields(a)
	if err != nil {
		return r, err
	}
	var want []byte
	switch x := rec.(type) {
	case *record.Pick:
		if kind != "qod/pick" || len(f) != 6 || len(f[2]) != 32 || len(f[3]) != 32 {
			return r, verdict.Errorf(verdict.MsgAlphaNotPick)
		}
		emission, ticket := string(f[1]), [32]byte(f[2])
		if start != nil {
			emission, ticket = start.Emission, start.Ticket
		}
		copy(r[:], f[3])
		want = record.PickAlpha(x.Game, emission, ticket, r, x.Index, x.Number)
	case *record.GameStart:
		if kind != "qod/start" || len(f) != 5 || len(f[4]) != 32 {
			return r, verdict.Errorf(verdict.MsgAlphaNotStart)
		}
		copy(r[:], f[4])
		want = x.Alpha(r)
	case *record.PromoDraw:
		want, r = x.Alpha(), x.Secret
	default:
		return r, verdict.Errorf(verdict.MsgAlphaNoInput, verdict.Term(rec.Kind()))
	}
	if !bytes.Equal(want, a) {
		return r, verdict.Errorf(verdict.MsgAlphaNotBound)
	}
	return r, nil
}
