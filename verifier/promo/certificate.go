package promo

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"golang.org/x/mod/sumdb/tlog"

	"tirage.fr/tirage/verifier/checkpoint"
	"tirage.fr/tirage/verifier/record"
	"tirage.fr/tirage/verifier/verdict"
	"tirage.fr/tirage/verifier/vrf"
)

// Certificate is everything needed to re-check one promotion draw offline:
// the two log records with their inclusion proofs, a signed checkpoint they
// are included in, the keys, and each pick's inclusion proof in the entrant
// tree. It is JSON (indented, as CertificateJSON writes it); its fingerprint
// is the SHA-256 of the file's bytes (Fingerprint), printed on the
// procès-verbal with a QR code.
//
// A certificate carries its own keys for convenience; a verifier should pin
// them (Anchors) to the keys announced by the operator — the keys'
// fingerprints are printed on the procès-verbal and in the log.
type Certificate struct {
	V         int    `json:"v"` // 1
	Draw      string `json:"draw"`
	Title     string `json:"title,omitempty"`
	Prize     string `json:"prize,omitempty"`
	RulesHash string `json:"rules_sha256"`
	// Days and Withheld are informative (the procès-verbal shows them): the
	// participation days feeding the draw and how many participants were
	// left out because their account was closed.
	Days     []string `json:"days,omitempty"`
	Withheld uint64   `json:"withheld_closed"`
	// Keys is the key announcement naming the VRF key, when the log holds one.
	Keys         *LoggedRecord `json:"keys,omitempty"`
	Freeze       LoggedRecord  `json:"freeze"`
	DrawRecord   LoggedRecord  `json:"draw_record"`
	Checkpoint   string        `json:"checkpoint"` // signed note (c2sp.org/tlog-checkpoint)
	LogKeys      []string      `json:"log_keys"`   // signed-note verifier keys of the log
	VRFKeyID     string        `json:"vrf_key_id"`
	VRFSuite     string        `json:"vrf_suite"`
	VRFPublicKey string        `json:"vrf_public_key"` // hex
	Picks        []PickProof   `json:"picks"`
}

// LoggedRecord is a log leaf with its index and inclusion proof in the checkpoint.
type LoggedRecord struct {
	Index  uint64   `json:"index"`
	Record string   `json:"record"` // the leaf bytes (canonical JSON, as a string)
	Proof  []string `json:"proof"`  // RFC 6962 audit path, hex
}

// PickProof proves a pick's leaf is entrant Index of the frozen tree.
type PickProof struct {
	Rank      int      `json:"rank"`
	Index     uint64   `json:"index"`
	Leaf      string   `json:"leaf"`
	Pseudonym string   `json:"pseudonym"`
	Proof     []string `json:"proof"`
}

// CertificateJSON encodes a certificate as its file bytes.
func CertificateJSON(c *Certificate) []byte {
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		panic("promo: certificate encoding: " + err.Error())
	}
	return append(b, '\n')
}

// Fingerprint is the certificate's fingerprint: hex SHA-256 of its bytes.
func Fingerprint(certFile []byte) string {
	h := sha256.Sum256(certFile)
	return hex.EncodeToString(h[:])
}

// ProofHex encodes an audit path.
func ProofHex(p []tlog.Hash) []string {
	out := make([]string, len(p))
	for i, h := range p {
		out[i] = hex.EncodeToString(h[:])
	}
	return out
}

// Names of the checks Verify runs, in order. A failure is a *CheckError
// naming one of them.
const (
	CheckFormat          = "certificate-format"
	CheckKeys            = "pinned-keys"
	CheckCheckpoint      = "checkpoint-signature"
	CheckFreezeRecord    = "freeze-record"
	CheckFreezeInclusion = "freeze-inclusion"
	CheckDrawRecord      = "draw-record"
	CheckDrawInclusion   = "draw-inclusion"
	CheckRules           = "rules-hash"
	CheckLink            = "freeze-draw-link"
	CheckDates           = "draw-dates" // only with Anchors.Rules
	CheckCommitment      = "commitment"
	CheckShare           = "bailiff-share"
	// CheckShareCommitment: the share opens the commitment the freeze
	// holds (VerifyShareCommitment). A freeze logged before freezes held
	// one passes it; Verified.Freeze.ShareCommitment says which (zero).
	CheckShareCommitment = "share-commitment"
	CheckBeacon          = "beacon-signature"
	CheckVRF             = "vrf-proof"
	CheckPicks           = "ranked-picks"
	CheckPickInclusion   = "pick-inclusion"
	CheckEntrantList     = "entrant-list"
	CheckEntrantRoot     = "entrant-root"
)

// CheckError says which check failed and why. Errors from a certificate that
// does not verify are always *CheckError.
type CheckError struct {
	Check string
	Err   error
	// Msg is Err in language-neutral form: an id of verdict's message
	// catalog and its arguments, for readers in French or English.
	Msg verdict.Msg
}

func (e *CheckError) Error() string { return e.Check + ": " + e.Err.Error() }
func (e *CheckError) Unwrap() error { return e.Err }

// fail is check's failure with the reason id(args…) of verdict's catalog;
// Err is its English text (the template wraps errors with %w).
func fail(check string, id verdict.MsgID, args ...any) error {
	return &CheckError{Check: check, Err: fmt.Errorf(verdict.Format(id, "en"), args...), Msg: verdict.M(id, args...)}
}

// Anchors are what the verifier trusts, obtained independently of the certificate.
type Anchors struct {
	// LogKeys pins the log's signed-note verifier keys (empty: trust the
	// certificate's, and report their fingerprints).
	LogKeys []string
	// VRFPublicKey pins the VRF key (hex; empty: trust the certificate's).
	VRFPublicKey string
	// Rules is the rules file; if set it must be of the freeze's operation
	// (ErrRulesOtherOperation) and its hash must match, the records'
	// times must keep its dates (check draw-dates: frozen after the
	// participation period, drawn between the draw's date and its latest
	// date; Rules.CheckSchedule), and the freeze must announce the beacon
	// round the rules announce for the draw, none if none (check
	// beacon-signature; Rules.CheckFreezeBeacon).
	Rules []byte
	// Reserves, if ≥ 0, is the number of reserves the rules require (fewer
	// are ranked only when there are fewer entrants); -1 skips the check
	// unless Rules is set: the rules file then gives it (draws[j].reserves,
	// Rules.CheckFreezeRanking), and a count given here must be the same
	// (ErrReservesNotRules).
	Reserves int
}

// ErrReservesNotRules: Anchors.Reserves and the rules file in
// Anchors.Rules give the draw different numbers of reserves. The caller's
// inputs contradict each other — nothing is established about the
// certificate or the appliance: give the rules file alone (it is the one
// the freeze commits to by its hash), or the count it gives.
var ErrReservesNotRules = errors.New("the reserves given are not those of the rules file")

// ErrRulesOtherOperation: the rules file in Anchors.Rules is another
// operation's than the one the certificate's freeze names. The caller's
// inputs do not belong together — nothing is established about the
// certificate against those rules, nor against the appliance: verify the
// certificate without them, or with its own operation's rules. (A rules
// file of the freeze's operation whose hash is not the frozen one fails
// CheckRules: the operator froze other rules than that copy.)
var ErrRulesOtherOperation = errors.New("the rules file given is another operation's")

// inputsDisagree is one of the sentinels above (ErrReservesNotRules,
// ErrRulesOtherOperation) in the catalog's words.
type inputsDisagree struct{ sentinel, msg error }

func (e inputsDisagree) Error() string   { return e.msg.Error() }
func (e inputsDisagree) Unwrap() []error { return []error{e.msg, e.sentinel} }

// Verified is what a successful verification established.
type Verified struct {
	Draw       string
	Operation  string
	RulesHash  string
	Count      uint64
	Withheld   uint64
	Days       []string
	Share      string
	Picks      []PickProof
	Accounts   []string     // the picks' accounts, in rank order (only with the entrant list)
	Beacon     *BeaconRound // the announced beacon round, nil if none
	TreeSize   uint64       // the checkpoint's tree size
	LogOrigin  string
	LogKeys    []string
	VRFKey     string // hex
	KeyLogged  bool   // the VRF key was found in a key announcement in the log
	Freeze     *record.PromoFreeze
	DrawRecord *record.PromoDraw
}

// Verify checks a certificate file offline. With list == nil it runs the
// public checks: checkpoint signature, the records' inclusion, the
// freeze/draw link (the draw under the VRF key the freeze names, when it
// names one) and commitment, the share and the share commitment the
// freeze holds, the announced drand round's signature
// (VerifyBeacon, under the pinned chain key), α and the VRF proof, the ranked picks
// from β, each pick's inclusion in the entrant root. With the bailiff's
// entrant list it also checks that the list is canonical and hashes to the
// frozen root and count, and names the picked accounts. With the rules file
// (Anchors.Rules) it also checks the dates of the freeze and the ceremony
// (CheckDates), that the freeze announced the beacon round the rules
// announce for the draw, or none when they announce none (CheckBeacon,
// Rules.CheckFreezeBeacon), and that it ranks one winner and the reserves
// the rules give the draw (CheckPicks, Rules.CheckFreezeRanking): none of
// these is in the certificate alone. An Anchors.Reserves other than the
// rules' is ErrReservesNotRules, and rules of another operation than the
// freeze's are ErrRulesOtherOperation, not a *CheckError: the caller's
// inputs disagree.
func Verify(certFile []byte, list *EntrantList, a Anchors) (*Verified, error) {
	var c Certificate
	if err := decodeStrict(certFile, &c); err != nil {
		return nil, fail(CheckFormat, verdict.MsgPromoNotCertificate, err)
	}
	if c.V != 1 {
		return nil, fail(CheckFormat, verdict.MsgPromoVersion, c.V)
	}
	v := &Verified{Draw: c.Draw, Picks: c.Picks, Days: c.Days, Withheld: c.Withheld}
	logKeys := c.LogKeys
	if len(a.LogKeys) > 0 {
		logKeys = a.LogKeys
	}
	v.LogKeys = logKeys

	// 1. The checkpoint is signed by the log keys (verifier/checkpoint).
	cp, err := openCheckpoint(c.Checkpoint, logKeys)
	if err != nil {
		return nil, err
	}
	tree := cp.Tree()
	v.TreeSize, v.LogOrigin = uint64(cp.Size), cp.Origin

	// 2. The records are what they claim and are in the checkpoint's tree.
	f, err := loggedFreeze(tree, c.Freeze)
	if err != nil {
		return nil, err
	}
	dr, err := record.Parse([]byte(c.DrawRecord.Record))
	d, ok := dr.(*record.PromoDraw)
	if err != nil || !ok {
		return nil, fail(CheckDrawRecord, verdict.MsgPromoNotDraw, notKind(err))
	}
	if err := checkInclusion(tree, c.DrawRecord); err != nil {
		return nil, fail(CheckDrawInclusion, verdict.MsgPromoErr, err)
	}
	v.Freeze, v.DrawRecord, v.Count, v.Share = f, d, f.Count, string(d.Share)

	// 3. The VRF key: announced in the log, or the certificate's; pinned if asked.
	vrfKey, suite := c.VRFPublicKey, c.VRFSuite
	if c.Keys != nil {
		kr, err := record.Parse([]byte(c.Keys.Record))
		ka, ok := kr.(*record.KeyAnnouncement)
		if err != nil || !ok {
			return nil, fail(CheckKeys, verdict.MsgPromoNotKeys, notKind(err))
		}
		if err := checkInclusion(tree, *c.Keys); err != nil {
			return nil, fail(CheckKeys, verdict.MsgPromoKeysErr, err)
		}
		found := false
		for _, k := range ka.Keys {
			if k.ID == d.Key && k.Use == "vrf" {
				vrfKey, suite, found = hex.EncodeToString(k.PublicKey), k.Suite, true
			}
		}
		if !found {
			return nil, fail(CheckKeys, verdict.MsgPromoNoVRFKey, d.Key)
		}
		if c.Keys.Index >= c.Freeze.Index {
			return nil, fail(CheckKeys, verdict.MsgPromoKeyLate)
		}
		v.KeyLogged = true
	}
	if vrfKey != c.VRFPublicKey || suite != c.VRFSuite || d.Key != c.VRFKeyID {
		return nil, fail(CheckKeys, verdict.MsgPromoKeyOther)
	}
	if a.VRFPublicKey != "" && !strings.EqualFold(a.VRFPublicKey, vrfKey) {
		return nil, fail(CheckKeys, verdict.MsgPromoKeyNotPinned)
	}
	v.VRFKey = vrfKey

	// 4. The rules file is the frozen one.
	op, rh, err := frozenRules(f, c.RulesHash, verdict.MsgPromoRulesDiffer)
	if err != nil {
		return nil, err
	}
	v.Operation, v.RulesHash = op, rh
	var rules *Rules
	var drawIndex int
	if a.Rules != nil {
		if h := RulesHash(a.Rules); hex.EncodeToString(h[:]) != rh {
			// Not the frozen file. Another operation's rules say nothing
			// of this certificate (a bailiff holding several operations'
			// certificates gave the rules of one); the same operation's
			// say the operator froze other rules than this copy.
			r, err := ParseRules(a.Rules)
			switch {
			case err != nil:
				return nil, fail(CheckRules, verdict.MsgPromoRulesFile, h, rh)
			case r.Operation != op:
				return nil, inputsDisagree{ErrRulesOtherOperation, verdict.Errorf(verdict.MsgPromoRulesOtherOperation, r.Operation, op)}
			}
			return nil, fail(CheckRules, verdict.MsgPromoRulesNotFrozen, op, h, rh)
		}
		if rules, drawIndex, err = RulesOfFreeze(a.Rules, f); err != nil {
			// A draw the frozen rules do not have is a contradiction of the
			// freeze with its own rules: the catalog's words, which
			// receipt.CertificateAgainst takes for proof.
			var me *verdict.MsgError
			if errors.As(err, &me) && me.Msg.ID == verdict.MsgPromoRulesNoDraw {
				return nil, &CheckError{Check: CheckRules, Err: err, Msg: me.Msg}
			}
			return nil, fail(CheckRules, verdict.MsgPromoErr, err)
		}
		// A count given with the rules file must be the rules': two
		// different answers to "how many reserves?" say nothing about the
		// appliance (MISBEHAVIOUR is for what it signed), only that one of
		// the verifier's inputs is wrong — an error, not a verdict.
		if want := rules.Draws[drawIndex].Reserves; a.Reserves >= 0 && a.Reserves != want {
			return nil, inputsDisagree{ErrReservesNotRules, verdict.Errorf(verdict.MsgPromoReservesNotRules, a.Reserves, f.Draw, want)}
		}
	}

	// 5. The draw record is the draw of this freeze, logged after it, under
	//    the VRF key the freeze names (a freeze logged before freezes named
	//    their key names none: only an audit of the whole log shows whether
	//    a single key was announced before it).
	switch {
	case d.Draw != f.Draw || c.Draw != f.Draw || !strings.HasPrefix(f.Draw, op+"/"):
		return nil, fail(CheckLink, verdict.MsgPromoDrawIDs, c.Draw, f.Draw, d.Draw)
	case d.Prev != record.LeafHash([]byte(c.Freeze.Record)):
		return nil, fail(CheckLink, verdict.MsgPromoNoLink)
	case d.Root != f.Root || d.Count != f.Count || d.Winners != f.Winners || d.Reserves != f.Reserves || d.Beacon != f.Beacon:
		return nil, fail(CheckLink, verdict.MsgPromoLinkFields)
	case c.DrawRecord.Index <= c.Freeze.Index:
		return nil, fail(CheckLink, verdict.MsgPromoOrder, c.DrawRecord.Index, c.Freeze.Index)
	case d.Time.Before(f.Time):
		// Both times are the appliance's clock, which the dates and the
		// beacon's publication after the freeze are checked by.
		return nil, fail(CheckLink, verdict.MsgPromoDrawnEarly, FormatTime(d.Time), FormatTime(f.Time))
	case f.Key != "" && d.Key != f.Key:
		// The freeze bound the key before the bailiff's share existed:
		// under another key announced before it, the same α has another β.
		return nil, fail(CheckLink, verdict.MsgDrawKeyNotFrozen, d.Key, f.Key)
	}
	// 5b. With the rules file: the list was frozen after the participation
	//     period, and the ceremony held on the draw's date or by its
	//     latest date (the records' own times, sealed in the log).
	if rules != nil {
		if err := rules.CheckSchedule(drawIndex, f.Time, d.Time); err != nil {
			var me *verdict.MsgError
			if errors.As(err, &me) {
				return nil, &CheckError{Check: CheckDates, Err: err, Msg: me.Msg}
			}
			return nil, fail(CheckDates, verdict.MsgPromoErr, err)
		}
	}

	// 6. r opens the commitment H(r) logged at the freeze.
	if d.Commit != f.Commit || record.Commit(d.Secret) != f.Commit {
		return nil, fail(CheckCommitment, verdict.MsgPromoCommit)
	}
	if _, err := ParseShare(string(d.Share)); err != nil {
		return nil, fail(CheckShare, verdict.MsgPromoErr, err)
	}
	// 6a. The share opens the commitment the freeze holds: the bailiff
	//     fixed it before the beacon round was published.
	if err := VerifyShareCommitment(f, string(d.Share)); err != nil {
		return nil, fail(CheckShareCommitment, verdict.MsgPromoErr, err)
	}
	// 6b. With the rules file: the freeze announced the round the rules
	//     announce for this draw, or none when they announce none (a
	//     freeze that dropped it would leave nothing to check below).
	//     The beacon value is the announced drand round's signature, a
	//     round published after the freeze.
	if rules != nil {
		if err := rules.CheckFreezeBeacon(drawIndex, f.Beacon); err != nil {
			var me *verdict.MsgError
			if errors.As(err, &me) {
				return nil, &CheckError{Check: CheckBeacon, Err: err, Msg: me.Msg}
			}
			return nil, fail(CheckBeacon, verdict.MsgPromoErr, err)
		}
	}
	if v.Beacon, err = VerifyBeacon(f.Beacon, d.BeaconValue); err != nil {
		return nil, fail(CheckBeacon, verdict.MsgPromoErr, err)
	}
	if b := v.Beacon; b.Verified() {
		if err := b.Chain.PublishedAfter(b.Round, f.Time); err != nil {
			return nil, fail(CheckBeacon, verdict.MsgPromoErr, err)
		}
	}

	// 7. π is the VRF proof for α under the key; β follows from it.
	s, err := vrf.ParseSuite(suite)
	if err != nil {
		return nil, fail(CheckVRF, verdict.MsgPromoErr, err)
	}
	kb, _ := hex.DecodeString(vrfKey)
	pk, err := vrf.ParsePublicKey(s, kb)
	if err != nil {
		return nil, fail(CheckVRF, verdict.MsgPromoErr, err)
	}
	alpha := record.PromoDrawAlpha(f.Draw, f.Root, f.Count, f.Commit, d.Secret, d.Share, d.BeaconValue)
	beta, err := vrf.Verify(pk, alpha, d.Proof)
	if err != nil {
		return nil, fail(CheckVRF, verdict.MsgPromoErr, err)
	}
	if !bytes.Equal(beta, d.Beta) {
		return nil, fail(CheckVRF, verdict.MsgBetaNotOutput)
	}

	// 8. The freeze ranks what the rules give the draw — one winner and
	//    draws[j].reserves reserves (with the rules file), or the reserves
	//    given — and the ranking is RankedSample(β); each pick's leaf is in
	//    the entrant tree.
	switch {
	case rules != nil:
		if err := rules.CheckFreezeRanking(drawIndex, f); err != nil {
			var me *verdict.MsgError
			if errors.As(err, &me) {
				return nil, &CheckError{Check: CheckPicks, Err: err, Msg: me.Msg}
			}
			return nil, fail(CheckPicks, verdict.MsgPromoErr, err)
		}
	case a.Reserves >= 0 && f.Reserves != Ranked(a.Reserves, f.Count)-1:
		return nil, fail(CheckPicks, verdict.MsgPromoReserves, f.Reserves, a.Reserves)
	}
	idx, err := Picks(beta, f.Winners+f.Reserves, f.Count)
	if err != nil {
		return nil, fail(CheckPicks, verdict.MsgPromoErr, err)
	}
	if len(idx) != len(d.Ranking) || len(c.Picks) != len(d.Ranking) {
		return nil, fail(CheckPicks, verdict.MsgPromoPickCount, len(d.Ranking), len(c.Picks), len(idx))
	}
	for i, x := range idx {
		p := c.Picks[i]
		switch {
		case d.Ranking[i] != uint64(x):
			return nil, fail(CheckPicks, verdict.MsgPromoRankEntrant, i+1, x, d.Ranking[i])
		case p.Index != uint64(x):
			return nil, fail(CheckPicks, verdict.MsgPromoRankPick, i+1, x, p.Index)
		case p.Rank != i+1:
			return nil, fail(CheckPicks, verdict.MsgPromoPickRank, i+1, p.Rank)
		}
		var leaf tlog.Hash
		if b, err := hex.DecodeString(p.Leaf); err != nil || len(b) != 32 {
			return nil, fail(CheckPicks, verdict.MsgPromoRankLeaf, i+1)
		}
		hex.Decode(leaf[:], []byte(p.Leaf))
		if p.Pseudonym != Pseudonym(leaf) {
			return nil, fail(CheckPicks, verdict.MsgPromoRankPseudonym, i+1, p.Pseudonym, p.Leaf)
		}
		proof, err := parseProof(p.Proof)
		if err == nil {
			err = tlog.CheckRecord(proof, int64(f.Count), f.Root, int64(p.Index), leaf)
		}
		if err != nil {
			return nil, fail(CheckPickInclusion, verdict.MsgPromoRankErr, i+1, err)
		}
	}

	// 9. The bailiff's path: the list is the frozen one.
	if list != nil {
		if err := checkFrozenList(list, f); err != nil {
			return nil, err
		}
		for _, p := range c.Picks {
			v.Accounts = append(v.Accounts, list.Accounts[p.Index])
		}
	}
	return v, nil
}

// WinnersPerDraw is the number of winners of a promotion draw: rank 1 of
// its ranking, the reserves coming after it. Every draw has exactly one
// (Bonus Crescendo art. 3.1 « les quatre gagnants des tirages au sort » of
// four draws; art. 3.3.1 « Le gagnant tiré au sort du Tirage au sort
// n° 1 »).
//
// It is a constant of the verifier, not a field of the rules file: a draw
// of the schema is one prize (draws[j].prize, value_cents) given to one
// winner with ranked reserves (draws[j].reserves), the procès-verbal names
// one « Gagnant », and the appliance never freezes another count
// (NewFreeze). A field would let a rules file give one prize to several
// winners, and every reader of version 1 would need its default; an
// operation with several prizes is several draws, as Bonus Crescendo's
// four are. Only the record format (record.PromoFreeze.Winners) carries a
// count, to stay independent of the rules; a draw with several winners
// would be a new version of the rules file, with this as its default.
const WinnersPerDraw = 1

// CheckFreezeRanking returns an error when a freeze of draw j does not
// rank what the rules give the draw: WinnersPerDraw winner and
// draws[j].reserves reserves, or everyone when there are fewer entrants
// (Ranked). The freeze commits to the rules by their hash, so a freeze
// that ranks otherwise contradicts its own rules; the ceremony refuses it
// (Ceremony.Run) and Verify fails its certificate (check ranked-picks). A
// count of reserves that differs is an error of verdict's catalog.
func (r *Rules) CheckFreezeRanking(j int, f *record.PromoFreeze) error {
	if f.Winners != WinnersPerDraw {
		return verdict.Errorf(verdict.MsgPromoWinnersRules, f.Winners, r.FullDrawID(j))
	}
	if want := Ranked(r.Draws[j].Reserves, f.Count) - WinnersPerDraw; f.Reserves != want {
		return verdict.Errorf(verdict.MsgPromoReserves, f.Reserves, want)
	}
	return nil
}

// checkFrozenList checks the bailiff's entrant list against the freeze f:
// the list is of f's draw and canonical (check entrant-list), and it hashes
// under its key K to the frozen count and root (check entrant-root).
func checkFrozenList(list *EntrantList, f *record.PromoFreeze) error {
	if list.Draw != f.Draw {
		return fail(CheckEntrantList, verdict.MsgPromoListDraw, list.Draw, f.Draw)
	}
	t, err := list.ForFreeze(f).Tree()
	if err != nil {
		return fail(CheckEntrantList, verdict.MsgPromoErr, err)
	}
	if uint64(t.Size()) != f.Count {
		return fail(CheckEntrantRoot, verdict.MsgPromoListSize, t.Size(), f.Count)
	}
	if t.Root() != f.Root {
		return fail(CheckEntrantRoot, verdict.MsgPromoListRoot)
	}
	return nil
}

func errOr(err error, s string) string {
	if err != nil {
		return err.Error()
	}
	return s
}

// notKind is why a logged record is not of the kind a check expects: its
// parse error (the catalog's), or, when it parsed, that it is another kind.
func notKind(err error) error {
	if err != nil {
		return err
	}
	return verdict.Errorf(verdict.MsgPromoOtherKind)
}

// decodeStrict decodes a document's JSON into v: no unknown member, no
// member given twice (encoding/json keeps the last, a reader may see the
// first), nothing but white space after it (a fingerprint hashes the whole
// file, so trailing bytes would give one document many fingerprints;
// dec.More alone lets a stray '}' or ']' through). The error is the
// reason, in the catalog's words.
func decodeStrict(file []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(file))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return verdict.JSONError(err)
	}
	if err := verdict.RepeatedMember(file); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return verdict.Errorf(verdict.MsgDocTrailing)
	}
	return nil
}

// openCheckpoint opens a document's signed checkpoint under logKeys (the
// anchors', or the document's own): check checkpoint-signature.
func openCheckpoint(note string, logKeys []string) (*checkpoint.Checkpoint, error) {
	var keys []*checkpoint.Key
	for _, k := range logKeys {
		if pk, err := checkpoint.ParseKey(k); err == nil {
			keys = append(keys, pk)
		}
	}
	if len(keys) == 0 {
		return nil, fail(CheckCheckpoint, verdict.MsgPromoNoLogKey)
	}
	cp, err := checkpoint.Open([]byte(note), keys)
	if err != nil {
		return nil, fail(CheckCheckpoint, verdict.MsgPromoErr, err)
	}
	return cp, nil
}

// loggedFreeze parses a document's freeze record (check freeze-record: a
// canonical promo_freeze record) and checks that it is in tree at its index
// (check freeze-inclusion).
func loggedFreeze(tree tlog.Tree, lr LoggedRecord) (*record.PromoFreeze, error) {
	r, err := record.Parse([]byte(lr.Record))
	f, ok := r.(*record.PromoFreeze)
	if err != nil || !ok {
		return nil, fail(CheckFreezeRecord, verdict.MsgPromoNotFreeze, notKind(err))
	}
	if err := checkInclusion(tree, lr); err != nil {
		return nil, fail(CheckFreezeInclusion, verdict.MsgPromoErr, err)
	}
	return f, nil
}

// frozenRules returns the operation and the rules hash (hex) the freeze f
// commits to, and fails check rules-hash with differ(claimed, frozen) when
// the document says other rules (claimed).
func frozenRules(f *record.PromoFreeze, claimed string, differ verdict.MsgID) (op, rh string, err error) {
	op, rh, err = FreezeRules(f)
	if err != nil {
		return "", "", fail(CheckRules, verdict.MsgPromoErr, err)
	}
	if rh != claimed {
		return "", "", fail(CheckRules, differ, claimed, rh)
	}
	return op, rh, nil
}

func checkInclusion(tree tlog.Tree, r LoggedRecord) error {
	proof, err := parseProof(r.Proof)
	if err != nil {
		return err
	}
	if r.Index >= uint64(tree.N) {
		return verdict.Errorf(verdict.MsgPromoIndexBeyond, r.Index, tree.N)
	}
	return tlog.CheckRecord(proof, tree.N, tree.Hash, int64(r.Index), tlog.RecordHash([]byte(r.Record)))
}

func parseProof(p []string) (tlog.RecordProof, error) {
	out := make(tlog.RecordProof, len(p))
	for i, s := range p {
		h, ok := parseHash(s)
		if !ok {
			return nil, verdict.Errorf(verdict.MsgPromoProofHex, i)
		}
		out[i] = h
	}
	return out, nil
}

// parseHash reads a hash of a proof: 64 lowercase hex digits only, as
// every hash of a promotion document (one spelling per proof).
func parseHash(s string) (tlog.Hash, bool) {
	var h tlog.Hash
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != tlog.HashSize || hex.EncodeToString(b) != s {
		return h, false
	}
	copy(h[:], b)
	return h, true
}

// CertificateInput is what the appliance gathers to certify a draw.
type CertificateInput struct {
	Title, Prize string
	RulesHash    [32]byte
	Days         []string
	Withheld     uint64
	// Keys, Freeze and Draw are log leaves, each with its index and its
	// inclusion proof in the tree of Checkpoint. Keys is optional.
	Keys, Freeze, Draw *LoggedRecord
	Checkpoint         []byte // signed note
	LogKeys            []string
	Tree               *EntrantTree // the frozen entrant tree, for the picks' proofs
	VRFKey             *vrf.PublicKey
}

// NewCertificate assembles a certificate; Verify(CertificateJSON(c), …) then checks it.
func NewCertificate(in CertificateInput) (*Certificate, error) {
	r, err := record.Parse([]byte(in.Draw.Record))
	d, ok := r.(*record.PromoDraw)
	if err != nil || !ok {
		return nil, fmt.Errorf("draw leaf: %v", errOr(err, "not a promo_draw record"))
	}
	c := &Certificate{
		V: 1, Draw: d.Draw, Title: in.Title, Prize: in.Prize,
		RulesHash: hex.EncodeToString(in.RulesHash[:]), Days: in.Days, Withheld: in.Withheld,
		Keys: in.Keys, Freeze: *in.Freeze, DrawRecord: *in.Draw,
		Checkpoint: string(in.Checkpoint), LogKeys: in.LogKeys,
		VRFKeyID: d.Key, VRFSuite: string(in.VRFKey.Suite()), VRFPublicKey: hex.EncodeToString(in.VRFKey.Bytes()),
	}
	for rank, i := range d.Ranking {
		p, err := in.Tree.Prove(int64(i))
		if err != nil {
			return nil, fmt.Errorf("couldn't prove pick %d: %w", rank+1, err)
		}
		leaf := in.Tree.Leaf(int64(i))
		c.Picks = append(c.Picks, PickProof{Rank: rank + 1, Index: i, Leaf: hex.EncodeToString(leaf[:]), Pseudonym: Pseudonym(leaf), Proof: ProofHex(p)})
	}
	return c, nil
}
