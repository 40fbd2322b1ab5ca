package receipt

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"

	"tirage.fr/tirage/verifier/record"
	"tirage.fr/tirage/verifier/verdict"
)

// The daemon's gRPC replies carry a protobuf Receipt (tirage.qod.v1.Receipt);
// printed as JSON by grpcurl or protojson it reads
//
//	{"record": "<base64>", "logIndex": "17", "leafHash": "<base64>",
//	 "vrfAlpha": …, "vrfProof": …, "vrfOutput": …, "vrfSuite": "…",
//	 "vrfKeyId": "…", "vrfPublicKey": …, "checkpoint": "<base64>",
//	 "inclusionProof": ["<base64>", …],
//	 "startRecord": "<base64>", "startLogIndex": "12",
//	 "startInclusionProof": ["<base64>", …]}
//
// The start fields (a pick's game start, proven in the same checkpoint,
// which binds the pick's α to the game's commitment: see the package
// documentation) are those of tirage.qod.v1.Receipt fields start_record,
// start_log_index and start_inclusion_proof.
//
// FromProtoJSON turns that into a Receipt, so that an auditor can pipe
// grpcurl's output into rngverify receipt. Fields keep their protobuf
// meaning; nothing is trusted more for it.

// protoReceipt mirrors tirage.qod.v1.Receipt in protojson (camelCase names,
// bytes in base64, uint64 as a decimal string).
type protoReceipt struct {
	Record         []byte   `json:"record"`
	LogIndex       string   `json:"logIndex"`
	LeafHash       []byte   `json:"leafHash"`
	VrfAlpha       []byte   `json:"vrfAlpha"`
	VrfProof       []byte   `json:"vrfProof"`
	VrfOutput      []byte   `json:"vrfOutput"`
	VrfSuite       string   `json:"vrfSuite"`
	VrfKeyID       string   `json:"vrfKeyId"`
	VrfPublicKey   []byte   `json:"vrfPublicKey"`
	Checkpoint     []byte   `json:"checkpoint"`
	InclusionProof [][]byte `json:"inclusionProof"`
	// The game's start, for a later record of the game.
	StartRecord         []byte   `json:"startRecord"`
	StartLogIndex       string   `json:"startLogIndex"`
	StartInclusionProof [][]byte `json:"startInclusionProof"`
}

// isProtoJSON reports whether b looks like a protojson Receipt.
func isProtoJSON(b []byte) bool {
	var probe map[string]json.RawMessage
	if json.Unmarshal(b, &probe) != nil {
		return false
	}
	_, rec := probe["record"]
	_, typ := probe["type"]
	_, leaf := probe["leafHash"]
	return rec && leaf && !typ
}

// FromProtoJSON converts the daemon's protobuf Receipt, as JSON, into a
// Receipt (log keys are not part of it: give them as anchors).
func FromProtoJSON(b []byte) (*Receipt, error) {
	var p protoReceipt
	if err := decodeStrict(b, &p); err != nil {
		return nil, err
	}
	idx := uint64(0)
	if p.LogIndex != "" {
		var err error
		if idx, err = strconv.ParseUint(p.LogIndex, 10, 64); err != nil {
			return nil, verdict.Errorf(verdict.MsgLogIndexNotInt, p.LogIndex)
		}
	}
	r := &Receipt{V: 1, Type: TypeReceipt, Index: idx, Record: string(p.Record), Checkpoint: string(p.Checkpoint)}
	for i, h := range p.InclusionProof {
		if len(h) != 32 {
			return nil, verdict.Errorf(verdict.MsgProofNot32, i)
		}
		r.Proof = append(r.Proof, hex.EncodeToString(h))
	}
	if len(p.LeafHash) > 0 {
		if h := record.LeafHash([]byte(r.Record)); !bytes.Equal(h[:], p.LeafHash) {
			return nil, verdict.Errorf(verdict.MsgLeafHashWrong)
		}
	}
	if err := drawFieldsOfRecord(&p); err != nil {
		return nil, err
	}
	if p.VrfKeyID != "" {
		r.VRFKey = &VRFKey{ID: p.VrfKeyID, Suite: p.VrfSuite, PublicKey: hex.EncodeToString(p.VrfPublicKey), daemon: true}
	}
	if len(p.VrfAlpha) > 0 {
		r.Alpha = hex.EncodeToString(p.VrfAlpha)
	}
	if len(p.StartRecord) > 0 {
		r.Start = &Logged{Record: string(p.StartRecord)}
		if p.StartLogIndex != "" {
			var err error
			if r.Start.Index, err = strconv.ParseUint(p.StartLogIndex, 10, 64); err != nil {
				return nil, verdict.Errorf(verdict.MsgProtoFieldNotInt, "startLogIndex", p.StartLogIndex)
			}
		}
		for i, h := range p.StartInclusionProof {
			if len(h) != 32 {
				return nil, verdict.Errorf(verdict.MsgProtoFieldNotHash, "startInclusionProof", i)
			}
			r.Start.Proof = append(r.Start.Proof, hex.EncodeToString(h))
		}
	}
	return r, nil
}

// drawFieldsOfRecord checks a protobuf receipt's draw fields against its
// record (DrawFieldsOfRecord).
func drawFieldsOfRecord(p *protoReceipt) error {
	return DrawFieldsOfRecord(p.Record, p.VrfProof, p.VrfOutput)
}

// DrawFieldsOfRecord checks that a daemon receipt's vrfProof and vrfOutput
// (tirage.qod.v1.Receipt vrf_proof, vrf_output), when given, are the proof
// and β of its record rec. The verdict checks the record's (the logged
// ones); a receipt showing others beside them would pass with a proof and
// an output that nothing verified, read by whoever reads the receipt
// rather than the record. A record that does not parse is left to the
// record check (nil). The daemon's own check of its receipts
// (rngd.VerifyReceipts) applies it too.
func DrawFieldsOfRecord(rec, vrfProof, vrfOutput []byte) error {
	if len(vrfProof) == 0 && len(vrfOutput) == 0 {
		return nil
	}
	r, err := record.Parse(rec)
	if err != nil {
		return nil
	}
	_, proof, beta := drawOf(r)
	if len(vrfProof) > 0 && !bytes.Equal(vrfProof, proof) {
		return verdict.Errorf(verdict.MsgProtoFieldNotRec, "vrfProof", "proof")
	}
	if len(vrfOutput) > 0 && !bytes.Equal(vrfOutput, beta) {
		return verdict.Errorf(verdict.MsgProtoFieldNotRec, "vrfOutput", "beta")
	}
	return nil
}

// The daemon's GetTranscript and GetReceipts replies, as grpcurl or
// protojson print them, are read too, so that what the API returns can be
// checked as it is:
//
//	{"document": "<base64>"}       tirage.qod.v1.GetTranscriptResponse: the transcript file
//	{"receipts": [<Receipt>, …]}   tirage.qod.v1.GetReceiptsResponse: the game's receipts
//
// A reply is exactly that one member (nothing else, nothing after it), and
// what it carries is read as strictly as a file: the transcript by the same
// parser, each receipt as FromProtoJSON reads one.

// The members of the replies (the protobuf fields' JSON names).
const (
	replyDocument = "document"
	replyReceipts = "receipts"
)

// replyMember is the name of b's one member when b begins with a JSON
// object of exactly one member, else "": what tells a reply from a
// document. What follows the object is for the reply's parser to refuse.
// An object whose members all have that one name, given more than once,
// is still told a reply (replyMembers counts them): its parser refuses
// it, saying so.
func replyMember(b []byte) string {
	name, _ := replyMembers(b)
	return name
}

// replyMembers is the name of the members of the JSON object b begins
// with, when they all have one name, and how many they are (n > 1: the
// name repeated, which encoding/json reads as the last one given); "" when
// b does not begin with an object, or its members have several names or
// none. The members are counted one by one (json.Decoder.Token): a map
// would keep one of them.
func replyMembers(b []byte) (name string, n int) {
	dec := json.NewDecoder(bytes.NewReader(b))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return "", 0
	}
	for dec.More() {
		t, err := dec.Token()
		k, ok := t.(string)
		if err != nil || !ok || (n > 0 && k != name) {
			return "", 0
		}
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return "", 0
		}
		name, n = k, n+1
	}
	if t, err := dec.Token(); err != nil || t != json.Delim('}') {
		return "", 0
	}
	return name, n
}

// oneMember checks that b is a reply of the one member want, given once.
func oneMember(b []byte, want string) error {
	switch m, n := replyMembers(b); {
	case m != want:
		return verdict.Errorf(verdict.MsgReplyMember, want)
	case n != 1:
		return verdict.Errorf(verdict.MsgReplyMemberRepeated, want, n)
	}
	return nil
}

// TranscriptFromReply returns the transcript file that the daemon's
// GetTranscript reply, as JSON, carries: {"document": "<base64>"}, that
// member only. The caller parses the file as any transcript.
func TranscriptFromReply(b []byte) ([]byte, error) {
	if err := oneMember(b, replyDocument); err != nil {
		return nil, err
	}
	var r struct {
		Document []byte `json:"document"`
	}
	if err := decodeStrict(b, &r); err != nil {
		return nil, err
	}
	if len(r.Document) == 0 {
		return nil, verdict.Errorf(verdict.MsgReplyNoDocument)
	}
	return r.Document, nil
}

// ReceiptsFromReply converts the daemon's GetReceipts reply, as JSON
// ({"receipts": [<Receipt>, …]}, that member only), into its receipts, in
// order; each is read as FromProtoJSON reads one, and an error names the
// first that does not read (receipts[i]). The reply is one game's
// receipts: every receipt's record is of one game, and their log indices
// increase (no receipt twice, none out of order). That is all it shows of
// the set: that none of the game's records is missing only the game's
// transcript shows (VerifyTranscript).
func ReceiptsFromReply(b []byte) ([]*Receipt, error) {
	rcs, _, err := receiptsFromReply(b)
	return rcs, err
}

// receiptsFromReply is ReceiptsFromReply, with the game the receipts are
// of ("" when no record reads: each receipt's verdict says why).
func receiptsFromReply(b []byte) ([]*Receipt, string, error) {
	if err := oneMember(b, replyReceipts); err != nil {
		return nil, "", err
	}
	var r struct {
		Receipts []json.RawMessage `json:"receipts"`
	}
	if err := decodeStrict(b, &r); err != nil {
		return nil, "", err
	}
	if len(r.Receipts) == 0 {
		return nil, "", verdict.Errorf(verdict.MsgReplyNoReceipts)
	}
	out := make([]*Receipt, 0, len(r.Receipts))
	for i, m := range r.Receipts {
		item := fmt.Sprintf("%s[%d]", replyReceipts, i)
		if m == nil || bytes.Equal(m, []byte("null")) {
			// protojson writes no null in a list of messages.
			return nil, "", verdict.Errorf(verdict.MsgColon, item, verdict.Errorf(verdict.MsgReplyNullReceipt))
		}
		rc, err := FromProtoJSON(m)
		if err != nil {
			return nil, "", verdict.Errorf(verdict.MsgColon, item, err)
		}
		out = append(out, rc)
	}
	game, err := replyGame(out)
	if err != nil {
		return nil, "", err
	}
	return out, game, nil
}

// replyGame is the one game a GetReceipts reply's receipts are of: each
// record of a game (a record that does not read is left to its receipt's
// verdict), all of the same game, at increasing log indices — the daemon
// returns a game's receipts in log order, each once. A reply mixing games,
// or giving a receipt twice, would pass as "the game's receipts" with
// each receipt sound.
func replyGame(rcs []*Receipt) (string, error) {
	game, first := "", -1
	for i, rc := range rcs {
		if i > 0 && rc.Index <= rcs[i-1].Index {
			return "", verdict.Errorf(verdict.MsgReplyOrder, i, rc.Index, i-1, rcs[i-1].Index)
		}
		r, err := record.Parse([]byte(rc.Record))
		if err != nil {
			continue
		}
		g, ok := r.(record.GameRecord)
		switch {
		case !ok:
			return "", verdict.Errorf(verdict.MsgReplyNotGame, i, kind(r))
		case first < 0:
			game, first = g.GameID(), i
		case g.GameID() != game:
			return "", verdict.Errorf(verdict.MsgReplyGames, i, g.GameID(), first, game)
		}
	}
	return game, nil
}
