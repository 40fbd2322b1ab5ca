// Package receipt defines the documents the appliance hands out so that
// anyone can check a draw offline — a receipt (one record), a game
// transcript (every record of one game) — and verifies them, and promotion
// certificates (package promo), into a [verdict.Verdict] that names each
// check.
//
// # Receipt (JSON, version 1)
//
//	{
//	  "v": 1,
//	  "type": "tirage/receipt",
//	  "index": 17,                        // the record's log index
//	  "record": "{\"beta\":…}",           // the leaf, byte for byte, as a JSON string
//	  "inclusion_proof": ["<hex>", …],    // RFC 6962 audit path in the checkpoint's tree
//	  "checkpoint": "<signed note>",      // a C2SP checkpoint whose tree holds the record
//	  "log_keys": ["<vkey>", …],          // the log's verifier keys (informative, see Trust)
//	  "vrf_key": {"id": "vrf-…", "suite": "ECVRF-P256-SHA256-SSWU", "public_key": "<hex>"},
//	  "alpha": "<hex>",                   // optional: α of the draw (it contains r)
//	  "start": {"index": 12, "record": "…", "inclusion_proof": […]},  // a game record after the start: the game's start
//	  "freeze": {"index": 40, "record": "…", "inclusion_proof": […]}  // a promotion draw: its freeze
//	}
//
// vrf_key is present when the record carries a VRF proof (game start with a
// draw, pick, promotion draw). α contains the game's secret r, so a receipt
// handed out before the game ends should omit it; its proof is then checked
// from the game's transcript once r is revealed.
//
// A ticket_quit record (the player's QUITTER, art. 2.2.3) draws nothing:
// its receipt carries no vrf_key, and its outcome check is that the S the
// player keeps is a gain of the prize table. That the ticket never started
// a game, nor was quit twice, only the whole log shows (verifier/audit).
//
// α alone proves nothing about r: an appliance could draw a pick with any r
// it likes. What ties r to the game is the commitment H(r) logged at its
// start (for a promotion draw, at its freeze) before the draw. So a pick's
// receipt with α carries the game's start record ("start", proven in the
// same checkpoint, logged before the pick): its emission, ticket and H(r)
// are what α must contain. Without it a pick's proof is not passed (the
// verdict says to give the transcript or the start record). A start's α
// must open the start's own H(r); a promotion draw's r must open the H(r)
// of its freeze ("freeze"), to which the draw links.
//
// # Transcript (JSON, version 1)
//
//	{
//	  "v": 1,
//	  "type": "tirage/transcript",
//	  "game": "g-…",
//	  "records": [{"index": 12, "record": "…", "inclusion_proof": […]}, …],   // start, picks, decisions, end, in log order
//	  "emission": {"index": 3, "record": "…", "inclusion_proof": […]},         // optional: the emission (start deadline)
//	  "keys": {"index": 0, "record": "…", "inclusion_proof": […]},             // optional: the key announcement
//	  "vrf_keys": [{"id": …, "suite": …, "public_key": …}],
//	  "checkpoint": "<signed note>",
//	  "log_keys": ["<vkey>", …]
//	}
//
// # The daemon's replies
//
// What rngd's gRPC API returns is read as grpcurl prints it (daemon.go): a
// protobuf Receipt (FromProtoJSON), the GetReceipts reply {"receipts": […]}
// (ReceiptsFromReply; VerifyReceipt verifies every receipt, each into a
// part of its verdict) and the GetTranscript reply {"document": "<base64>"}
// (TranscriptFromReply; VerifyTranscript verifies the transcript it
// carries) — each exactly that, as strictly as a file.
//
// # Trust
//
// Nothing in a document is trusted because the document says so. The log
// key must be given by the caller ([Anchors].LogKeys) or pinned by
// fingerprint (SHA-256 of its announced encoding, [checkpoint.Key.Fingerprint]).
// A VRF key is trusted when given, or pinned with its suite ("SUITE:FP",
// FP the SHA-256 of its bytes, record.Fingerprint; [ParsePin]), or when the
// transcript's key announcement is in the trusted log before the game
// started — keys are announced first, so none can be chosen after the
// fact. A bare fingerprint of a P-256 VRF key fixes its bytes, not its
// suite: the same key proves under ECVRF-P256-SHA256-TAI and -SSWU, so a
// document that chose the suite could choose between two outputs for one
// α; the vrf-key check fails then (verdict.MsgVRFKeyBytesOnly), unless the
// transcript's or certificate's key announcement fixes the suite. (An RSA
// key's bare fingerprint is enough: RSA-FDH-VRF-SHA256 is its only suite.)
//
// Records name their VRF key by id, and a document says which bytes an id
// names: that pairing is the document's. A proof that fails under the
// document's key proves misbehaviour only when a key announcement the
// verifier authenticated pairs the id with those bytes — the document's
// own, logged before the game (or freeze), or one given as an anchor
// ([Anchors].Announced); else it is a failure saying so
// (verdict.MsgWhyKeyPairing, verdict.MsgWhyKeyRelabelled when the proof
// verifies under another trusted key), and an authenticated announcement
// naming the id with other bytes fails vrf-key (verdict.MsgVRFKeyIDMismatch).
//
// # Checks
//
// Check names are those of package verdict. Contradictions — a proof that
// does not verify, an outcome β does not give, a broken or reordered chain,
// an r that does not open its commitment, a forked log — are
// StatusMisbehaviour when what they rest on is proven to be the appliance's:
// the records included under a checkpoint signed by a trusted log key, a
// trusted VRF key that the record's key id is proven to name (see
// evidence.go and Game.Included). A contradiction in
// material not so proven — an edited document, one checked without anchors,
// the document's own members — is StatusFail, its reason saying why it
// proves nothing (verdict.MsgNotProof). A missing or untrusted anchor is
// StatusFail. An end that does not reveal r because the appliance lost it
// (record.GameEnd.SecretLost) fails the commitment check, ordinary class.
//
// The package does no I/O.
package receipt

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strings"
	"time"

	"golang.org/x/mod/sumdb/tlog"

	"tirage.fr/tirage/verifier/announce"
	"tirage.fr/tirage/verifier/checkpoint"
	"tirage.fr/tirage/verifier/promo"
	"tirage.fr/tirage/verifier/record"
	"tirage.fr/tirage/verifier/verdict"
	"tirage.fr/tirage/verifier/vrf"
)

// Document types (the "type" member).
const (
	TypeReceipt    = "tirage/receipt"
	TypeTranscript = "tirage/transcript"
)

// MaxSize bounds a document this package reads.
const MaxSize = 16 << 20

// The most a verifier (rngverify, the offline page) reads of the other
// files it is given, by kind.
const (
	// MaxEntrants bounds a promotion's entrant list. Account ids are at
	// most 64 characters (promo.CheckAccount), so 10 million entrants take
	// at most 650 MB; the largest draw of the 10-million-row benchmark
	// (docs/bench/promo.md) has 139,571, a 9 MB list.
	MaxEntrants = 1 << 30
	// MaxKeyFile bounds a key file or key announcement (a few kB).
	MaxKeyFile = 1 << 20
)

// EntrantsHead begins an entrant list (promo.ParseEntrantList): a document
// that begins with it may be as large as MaxEntrants.
const EntrantsHead = promo.EntrantListHead

// Logged is a log leaf with its index and its inclusion proof.
type Logged struct {
	Index  uint64   `json:"index"`
	Record string   `json:"record"`
	Proof  []string `json:"inclusion_proof,omitempty"`
}

// VRFKey names a VRF public key.
type VRFKey struct {
	ID        string `json:"id"`
	Suite     string `json:"suite"`
	PublicKey string `json:"public_key"` // hex, as rngverify vrf --pk takes it
	// daemon: read from the daemon's protobuf receipt (FromProtoJSON),
	// whose fields are vrfSuite and vrfPublicKey: what errors name.
	daemon bool
}

// keyError is err, from parseVRFKey(*k), naming the receipt's field that
// holds what it refused: its suite, or its public key (missing, said so).
func (k *VRFKey) keyError(err error) verdict.Msg {
	suite, pub := "vrf_key.suite", "vrf_key.public_key"
	if k.daemon {
		suite, pub = "vrfSuite", "vrfPublicKey"
	}
	switch _, serr := vrf.ParseSuite(k.Suite); {
	case serr != nil:
		return verdict.M(verdict.MsgReceiptKeyField, suite, Cause(err))
	case k.PublicKey == "":
		return verdict.M(verdict.MsgReceiptKeyMissing, pub, k.ID)
	}
	return verdict.M(verdict.MsgReceiptKeyField, pub, Cause(err))
}

// Receipt is one sealed record.
type Receipt struct {
	V          int      `json:"v"`
	Type       string   `json:"type"`
	Index      uint64   `json:"index"`
	Record     string   `json:"record"`
	Proof      []string `json:"inclusion_proof,omitempty"`
	Checkpoint string   `json:"checkpoint,omitempty"`
	LogKeys    []string `json:"log_keys,omitempty"`
	VRFKey     *VRFKey  `json:"vrf_key,omitempty"`
	Alpha      string   `json:"alpha,omitempty"`
	// Start is the game's start record, for a receipt of a later record of
	// the game (a pick above all): it binds α to the game's commitment.
	Start *Logged `json:"start,omitempty"`
	// Freeze is the freeze record, for a receipt of a promotion draw.
	Freeze *Logged `json:"freeze,omitempty"`
}

// Transcript is every record of one game.
type Transcript struct {
	V          int      `json:"v"`
	Type       string   `json:"type"`
	Game       string   `json:"game"`
	Records    []Logged `json:"records"`
	Emission   *Logged  `json:"emission,omitempty"`
	Keys       *Logged  `json:"keys,omitempty"`
	VRFKeys    []VRFKey `json:"vrf_keys,omitempty"`
	Checkpoint string   `json:"checkpoint"`
	LogKeys    []string `json:"log_keys,omitempty"`
}

// Marshal encodes a receipt or transcript as its file bytes (indented JSON).
func Marshal(doc any) []byte {
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		panic("receipt: " + err.Error())
	}
	return append(b, '\n')
}

// ProofHex encodes an inclusion proof for Logged.Proof (as certificates do).
func ProofHex(p []tlog.Hash) []string { return promo.ProofHex(p) }

// Kinds of document Detect recognises.
const (
	DocReceipt     = "receipt"
	DocTranscript  = "transcript"
	DocCertificate = "certificate"
	DocEntrants    = "entrants"
	DocLogKeys     = "log-keys"
	DocKeyRecord   = "key-record" // the log's key announcement record (its keys' fingerprints can be pinned)
	// DocFreezeReceipt: a promotion's freeze receipt (promo.FreezeReceipt).
	DocFreezeReceipt = "freeze-receipt"
	// DocAttestation: an attestation, a DSSE envelope (its "payloadType")
	// or the attestation log record embedding one.
	DocAttestation = "attestation"
)

// Detect names the kind of document in b ("" when unknown): a receipt (or
// the daemon's GetReceipts reply), a transcript (or its GetTranscript
// reply), a promotion certificate, a promotion's freeze receipt, an
// attestation (envelope or record), a promotion entrant list, a file of
// log verifier keys, or the log's key announcement record. It reads only
// enough to tell them apart, so that a document edited or damaged is
// still named by its kind, for its verifier to say what is wrong with it
// (and rngverify to name the command that reads it).
func Detect(b []byte) string {
	var probe struct {
		Type        string          `json:"type"`
		DrawRecord  json.RawMessage `json:"draw_record"`
		Freeze      json.RawMessage `json:"freeze"`
		LeafHash    json.RawMessage `json:"freeze_leaf_hash"`
		PayloadType json.RawMessage `json:"payloadType"`
		Kind        json.RawMessage `json:"kind"`
		Entrant     json.RawMessage `json:"freeze_receipt"`
	}
	t := bytes.TrimSpace(b)
	if len(t) > 0 && t[0] == '{' {
		// The daemon's replies, which their parsers read or refuse (with
		// what follows them) as strictly as documents.
		switch replyMember(t) {
		case replyReceipts:
			return DocReceipt
		case replyDocument:
			return DocTranscript
		}
		if json.Unmarshal(t, &probe) != nil {
			return ""
		}
		switch {
		case probe.Type == TypeReceipt || isProtoJSON(t):
			return DocReceipt
		case probe.Type == TypeTranscript:
			return DocTranscript
		case probe.DrawRecord != nil:
			return DocCertificate
		case probe.Entrant != nil:
			return DocEntrantProof
		case probe.Freeze != nil || probe.LeafHash != nil: // a certificate has a freeze too
			return DocFreezeReceipt
		case probe.PayloadType != nil || string(probe.Kind) == `"`+string(record.KindAttestation)+`"`:
			return DocAttestation
		}
		if r, err := record.Parse(t); err == nil && r.Kind() == record.KindKey {
			return DocKeyRecord
		}
		return ""
	}
	if _, err := checkpoint.ParseKeys(string(t)); err == nil {
		return DocLogKeys
	}
	if bytes.HasPrefix(t, []byte(EntrantsHead)) {
		return DocEntrants
	}
	return ""
}

// Anchors is what the verifier trusts, obtained independently of the
// documents it checks.
type Anchors struct {
	// LogKeys are trusted log verifier keys.
	LogKeys []*checkpoint.Key
	// VRFKeys are trusted VRF public keys.
	VRFKeys []*vrf.PublicKey
	// Announced are VRF keys with the id a key announcement given as a
	// trust anchor names them (AnnouncedAnchors). Records name their VRF
	// key by id; VRFKeys and Pins trust bytes, not which id names them. A
	// document pairs an id with its key itself, and anyone may edit that
	// pairing: a proof that fails under the document's key is proof of
	// misbehaviour only when an announcement the verifier authenticated
	// pairs the id with that key — one given here, or the document's own,
	// logged before the draw (a transcript's or certificate's keys).
	// An announcement here that names the id with another key says the
	// document is wrong. Keys given here are trusted as VRFKeys are.
	Announced []AnnouncedKey
	// Pins are pinned key fingerprints (ParsePin): a bare fingerprint
	// (lower-case hex SHA-256 of a VRF key's bytes or of a log key's
	// announced encoding), or "SUITE:FP" for a VRF key, which fixes its
	// suite as well as its bytes (a bare fingerprint of a P-256 VRF key
	// does not: VRFTrusted).
	Pins []string
	// Last are the last checkpoints this verifier trusted (one per log):
	// a document's checkpoint of the same log and size must have the same root.
	Last []*checkpoint.Checkpoint
	// Consistency, when set, checks that newer extends older, two
	// checkpoints of the same log signed by trusted keys (a document's and
	// one of Last, whichever is smaller first), by reading a consistency
	// proof from the log. It is called only when the sizes differ; without
	// it that case is skipped. It returns an error wrapping
	// verdict.ErrMisbehaviour (checkpoint.ErrFork) only when a proof it
	// checked shows the two are different histories, any other error when it
	// could not check (the log unreachable). The package itself does no I/O:
	// the caller (rngverify --log) supplies the reading.
	Consistency func(older, newer *checkpoint.Checkpoint) error
	// Location is the operator's legal time zone for the game rules
	// (Europe/Paris); nil means UTC.
	Location *time.Location
	// Witnesses are trusted witness keys (rngverify --witness): when any
	// is given, every checkpoint a document is checked against must carry
	// valid cosignatures (c2sp.org/tlog-cosignature) of WitnessQuorum of
	// them (0: all), check witness-cosignatures; a freeze announcing a
	// beacon round must be witnessed before the round is published
	// (witnessed-before-beacon).
	Witnesses     []*checkpoint.Witness
	WitnessQuorum int
	// LogWitnesses are, by log origin, the witnesses a trust state
	// requires of that log (rngverify --state: checkpoint.LogState.
	// TrustedWitnesses): a checkpoint of one of these logs is checked
	// against its own, never against Witnesses and WitnessQuorum, which
	// are for the other logs.
	LogWitnesses map[string]WitnessRule
}

// WitnessRule is what a log's checkpoints must carry: valid cosignatures
// of Quorum of Witnesses (0: all of them).
type WitnessRule struct {
	Witnesses []*checkpoint.Witness
	Quorum    int
}

// ParsePin reads a pin: a bare fingerprint "FP" (64 hex digits, the
// SHA-256 of a VRF key's bytes or of a log key's announced encoding), also
// spelled "SHA256:FP" (rngctl keys init and keys show print it so; the
// prefix in any case) with the same meaning, or a VRF key's suite pin
// "SUITE:FP" (suite as RFC 9381 writes it, e.g. ECVRF-P256-SHA256-SSWU:…).
// suite is "" for a bare fingerprint, which fixes a VRF key's bytes but not
// its suite (Anchors.VRFTrusted); fp is lower case.
func ParsePin(p string) (suite vrf.Suite, fp string, err error) {
	pin := strings.TrimSpace(p)
	fp = pin
	if name, rest, ok := strings.Cut(pin, ":"); ok {
		if !strings.EqualFold(name, "SHA256") {
			if suite, err = vrf.ParseSuite(name); err != nil {
				return "", "", verdict.Errorf(verdict.MsgCLIPinBad, pin)
			}
		}
		fp = rest
	}
	if b, err := hex.DecodeString(fp); err != nil || len(b) != 32 {
		return "", "", verdict.Errorf(verdict.MsgCLIPinBad, pin)
	}
	return suite, strings.ToLower(fp), nil
}

// VRFPin is the suite pin of pk: "SUITE:FP", which fixes the key's bytes
// and its suite.
func VRFPin(pk *vrf.PublicKey) string {
	return string(pk.Suite()) + ":" + record.Hex(record.Fingerprint(pk.Bytes()))
}

// AnnouncedKey is a VRF key with the id a key announcement gives it.
type AnnouncedKey struct {
	ID  string
	Key *vrf.PublicKey
}

// AnnouncedAnchors are the trust anchors a key announcement record gives
// (one announce.Parse accepted): the pins of its log keys (bare
// fingerprints), its VRF keys with their suite pins (a P-256 key's bytes
// alone do not fix its suite), and its VRF keys with their ids
// (Anchors.Announced: the announcement proves which key each id names).
// Its attestation keys pin nothing here: they sign attestations, never a
// checkpoint, and a bare pin of one would let a checkpoint signed by it
// pass as the log's (a note verifier key made from the same Ed25519 public
// key has the same fingerprint).
func AnnouncedAnchors(ka *record.KeyAnnouncement) (keys []*vrf.PublicKey, pins []string, ids []AnnouncedKey) {
	for _, k := range ka.Keys {
		switch k.Use {
		case announce.UseLog:
			pins = append(pins, record.Hex(k.Fingerprint))
		case announce.UseVRF:
			if s, err := vrf.ParseSuite(k.Suite); err == nil {
				if pk, err := vrf.ParsePublicKey(s, k.PublicKey); err == nil {
					keys = append(keys, pk)
					pins = append(pins, VRFPin(pk))
					ids = append(ids, AnnouncedKey{ID: k.ID, Key: pk})
				}
			}
		}
	}
	return keys, pins, ids
}

// pinned reports whether fp is pinned by a bare fingerprint (a suite pin
// names a VRF key, never a log key).
func (a *Anchors) pinned(fp string) bool {
	return slices.ContainsFunc(a.barePins(), func(f string) bool { return strings.EqualFold(f, fp) })
}

// barePins are the fingerprints a pins bare (no suite), as a log key is
// pinned (--pin, or the key announcement given to --log-key).
func (a *Anchors) barePins() []string {
	var fps []string
	for _, p := range a.Pins {
		if s, f, err := ParsePin(p); err == nil && s == "" {
			fps = append(fps, f)
		}
	}
	return fps
}

// TrustedLogKeyTexts returns the texts of the log keys a trusts for a
// document that offers the keys doc (a certificate's or a freeze receipt's
// log_keys): the keys given, and those of doc whose fingerprint is pinned
// by a bare fingerprint.
func (a *Anchors) TrustedLogKeyTexts(doc []string) []string {
	var out []string
	for _, k := range a.LogKeys {
		out = append(out, k.Text)
	}
	for _, t := range doc {
		if k, err := checkpoint.ParseKey(t); err == nil && a.pinned(k.Fingerprint()) {
			out = append(out, t)
		}
	}
	return out
}

// logKeys returns the trusted log keys: the anchors' plus the document's
// keys whose fingerprint is pinned.
func (a *Anchors) logKeys(doc []string) (trusted []*checkpoint.Key, offered []*checkpoint.Key) {
	trusted = append(trusted, a.LogKeys...)
	for _, t := range doc {
		k, err := checkpoint.ParseKey(t)
		if err != nil {
			continue
		}
		offered = append(offered, k)
		if a.pinned(k.Fingerprint()) && !slices.ContainsFunc(trusted, func(t *checkpoint.Key) bool { return t.Text == k.Text }) {
			trusted = append(trusted, k)
		}
	}
	return trusted, offered
}

// VRFTrusted reports whether pk's bytes are trusted — pk is given
// (Anchors.VRFKeys, Anchors.Announced), or its fingerprint pinned — and whether its suite is
// known to be the appliance's too: a key given, or pinned as "SUITE:FP"
// with pk's suite, or pinned by a bare fingerprint when its bytes are a key
// of one suite only (an RSA key: RSA-FDH has one suite). A bare fingerprint
// of a P-256 key fixes only its bytes: the same key proves under
// ECVRF-P256-SHA256-TAI and -SSWU, two outputs for one α. A suite pin for
// pk's bytes that names another suite trusts nothing, nor does a bare pin
// of the same bytes then (the user said which suite the key is).
func (a *Anchors) VRFTrusted(pk *vrf.PublicKey) (trusted, suiteKnown bool) {
	for _, k := range a.VRFKeys {
		if k.Equal(pk) {
			return true, true
		}
	}
	for _, k := range a.Announced {
		if k.Key.Equal(pk) {
			return true, true
		}
	}
	fp := record.Hex(record.Fingerprint(pk.Bytes()))
	bare, suitePinned := false, false
	for _, p := range a.Pins {
		s, f, err := ParsePin(p)
		switch {
		case err != nil || !strings.EqualFold(f, fp):
		case s == pk.Suite():
			return true, true
		case s == "":
			bare = true
		default:
			suitePinned = true // another suite for these bytes
		}
	}
	if !bare || suitePinned {
		return false, false
	}
	return true, oneSuite(pk)
}

// oneSuite reports whether pk's bytes are a key of its suite only.
func oneSuite(pk *vrf.PublicKey) bool {
	for _, s := range vrf.Suites() {
		if s == pk.Suite() {
			continue
		}
		if _, err := vrf.ParsePublicKey(s, pk.Bytes()); err == nil {
			return false
		}
	}
	return true
}

// decodeStrict decodes one JSON document with no unknown field and no
// member given twice in any object (verdict.RepeatedMember). Its errors
// are in the catalog (verdict.JSONError; a protojson bytes field that is not
// base64), their English text encoding/json's.
func decodeStrict(b []byte, v any) error {
	if len(b) > MaxSize {
		return verdict.Errorf(verdict.MsgDocTooLarge, len(b), MaxSize)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var ce base64.CorruptInputError
		if errors.As(err, &ce) && err.Error() == ce.Error() {
			return verdict.Errorf(verdict.MsgBase64Corrupt, int64(ce))
		}
		return verdict.JSONError(err)
	}
	// Only white space may follow (dec.More alone lets a stray '}' or ']'
	// through).
	if _, err := dec.Token(); err != io.EOF {
		return verdict.Errorf(verdict.MsgDocTrailing)
	}
	// A member given twice (encoding/json keeps the last without a word):
	// one file, two readings.
	return verdict.RepeatedMember(b)
}

// parseVRFKey decodes a VRFKey.
func parseVRFKey(k VRFKey) (*vrf.PublicKey, error) {
	s, err := vrf.ParseSuite(k.Suite)
	if err != nil {
		return nil, err
	}
	b, err := hex.DecodeString(k.PublicKey)
	if err != nil {
		return nil, verdict.Errorf(verdict.MsgPublicKeyHex)
	}
	return vrf.ParsePublicKey(s, b)
}

func parseProof(p []string) (tlog.RecordProof, error) {
	out := make(tlog.RecordProof, len(p))
	for i, s := range p {
		b, err := hex.DecodeString(s)
		if err != nil || len(b) != tlog.HashSize {
			return nil, verdict.Errorf(verdict.MsgProofHex, i)
		}
		copy(out[i][:], b)
	}
	return out, nil
}

// logCheck runs the log checks shared by receipts and transcripts:
// log-key, checkpoint-signature, log-consistency (with Anchors.Last, and
// Anchors.Consistency when the sizes differ), and
// inclusion of each entry. It returns which entries are proven in the
// authenticated checkpoint (all false when it could not be authenticated).
// what, when not empty, says what the entries are, so that their count
// does not read as another count of the verdict (a game's records).
func logCheck(v *verdict.Verdict, a *Anchors, note string, docKeys []string, entries []Logged, names []verdict.Msg, what verdict.Series) (included []bool) {
	included = make([]bool, len(entries))
	if note == "" {
		v.Fail(verdict.CheckSignature, verdict.MsgNoCheckpoint)
		v.Skip(verdict.CheckInclusion, verdict.MsgNoCheckpointShort)
		return included
	}
	trusted, offered := a.logKeys(docKeys)
	if len(trusted) == 0 {
		var fps []string
		for _, k := range offered {
			fps = append(fps, k.Algorithm+" "+k.Fingerprint())
		}
		hint := verdict.M(verdict.MsgHintNoLogKey)
		switch {
		case len(fps) > 0:
			hint = verdict.M(verdict.MsgHintLogKeys, strings.Join(fps, ", "))
		case len(a.barePins()) > 0:
			// A pin, or an announcement's, had nothing to match: the user
			// gave a key, but not one a document without keys can use.
			hint = verdict.M(verdict.MsgHintPinNoLogKey)
		}
		v.Fail(verdict.CheckLogKey, verdict.MsgNoTrustedLogKey, hint)
		v.Skip(verdict.CheckSignature, verdict.MsgNoTrustedLogKeyShort)
		v.Skip(verdict.CheckInclusion, verdict.MsgUnauthenticated)
		return included
	}
	fps := make([]string, 0, len(trusted))
	for _, k := range trusted {
		fps = append(fps, k.Algorithm+" "+k.Fingerprint())
	}
	v.Pass(verdict.CheckLogKey, verdict.MsgSame, strings.Join(fps, ", "))
	cp, err := checkpoint.Open([]byte(note), trusted)
	if err != nil {
		v.Fail(verdict.CheckSignature, verdict.MsgSame, Cause(err))
		v.Skip(verdict.CheckInclusion, verdict.MsgUnauthenticated)
		return included
	}
	v.Pass(verdict.CheckSignature, verdict.MsgSame, CheckpointMsg(cp))
	a.WitnessCheck(v, cp)
	for _, last := range a.Last {
		if last.Origin != cp.Origin {
			continue
		}
		switch err := checkpoint.Consistent(last, cp, nil); {
		case cp.Size != last.Size && a.Consistency == nil:
			v.Skip(verdict.CheckConsistent, verdict.MsgConsistencyNotChecked, cp.Size, last.Size)
		case cp.Size != last.Size:
			onlineConsistency(v, a, last, cp)
		case err != nil:
			v.Misbehaviour(verdict.CheckConsistent, verdict.MsgForkRoots, Cause(err), rootText(last), rootText(cp))
		default:
			v.Pass(verdict.CheckConsistent, verdict.MsgSameTree)
		}
	}
	var failed []verdict.Msg
	for i, e := range entries {
		p, err := parseProof(e.Proof)
		var why verdict.Msg
		if err == nil {
			if e.Index >= uint64(cp.Size) {
				why = verdict.M(verdict.MsgIndexBeyond, e.Index, cp.Size)
			} else if err = tlog.CheckRecord(p, cp.Size, cp.Root, int64(e.Index), tlog.RecordHash([]byte(e.Record))); err != nil {
				why = Cause(err)
			}
		} else {
			why = Cause(err)
		}
		if why.ID != verdict.NoDetail {
			failed = append(failed, verdict.M(verdict.MsgNotIncludedAt, names[i], e.Index, why))
			continue
		}
		included[i] = true
	}
	switch {
	case len(failed) > 0:
		v.Fail(verdict.CheckInclusion, verdict.MsgSame, failed)
	case len(what) > 0:
		v.Pass(verdict.CheckInclusion, verdict.MsgIncludedOf, len(entries), what, cp.Size)
	default:
		v.Pass(verdict.CheckInclusion, verdict.MsgIncluded, len(entries), cp.Size)
	}
	v.Fact("log", verdict.MsgSame, CheckpointMsg(cp))
	return included
}

// onlineConsistency records the log-consistency check between the trusted
// checkpoint last and the document's cp (both authenticated, sizes
// different) through Anchors.Consistency: a fork is misbehaviour — both
// checkpoints are signed by trusted log keys — and a check that could not
// be made fails, never passes.
func onlineConsistency(v *verdict.Verdict, a *Anchors, last, cp *checkpoint.Checkpoint) {
	older, newer := last, cp
	if cp.Size < last.Size {
		older, newer = cp, last
	}
	switch err := a.Consistency(older, newer); {
	case err == nil:
		v.Pass(verdict.CheckConsistent, verdict.MsgConsistencyOnline, cp.Size, last.Size)
	case errors.Is(err, verdict.ErrMisbehaviour):
		v.Misbehaviour(verdict.CheckConsistent, verdict.MsgConsistencyOnlineFork, cp.Size, rootText(cp), last.Size, rootText(last), Cause(err))
	default:
		v.Fail(verdict.CheckConsistent, verdict.MsgConsistencyOffline, Cause(err))
	}
}

// recordProblem records a record that does not parse: a version or kind
// this verifier does not know is an ordinary failure (a newer verifier may
// read it); anything else is a malformed record, which the appliance never
// writes — misbehaviour when the record is proven to be in its log (why
// nil), else a damaged or edited file (a failure saying why).
func recordProblem(v *verdict.Verdict, err error, what verdict.Msg, why *verdict.Msg) {
	if errors.Is(err, record.ErrVersion) || errors.Is(err, record.ErrUnknownKind) {
		v.Fail(verdict.CheckRecord, verdict.MsgRecordTooNew, what, Cause(err))
		return
	}
	claim(v, verdict.CheckRecord, why, verdict.MsgColon, what, Cause(err))
}

// CheckpointMsg is cp in language-neutral form; its English rendering is
// cp.String().
func CheckpointMsg(cp *checkpoint.Checkpoint) verdict.Msg {
	return verdict.M(verdict.MsgCheckpoint, cp.Origin, cp.Size, rootText(cp))
}

// rootText is cp's root as the checkpoint spells it (base64): the one
// spelling of a root in a verdict.
func rootText(cp *checkpoint.Checkpoint) string { return cp.RootText() }
