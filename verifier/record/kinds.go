package record

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"tirage.fr/tirage/verifier/verdict"
)

// Outcomes, decisions and results as they appear in records.
const (
	OutcomeGood   = "good"
	OutcomeLosing = "losing"

	ChoiceContinue = "continue"
	ChoiceStop     = "stop"

	ResultWon      = "won"
	ResultLost     = "lost"
	ResultExpired  = "expired"
	ResultRefunded = "refunded"
)

// Key is one announced public key.
type Key struct {
	ID          string   `rec:"id"`          // the key's name in later records, e.g. "vrf-2026-1"
	Use         string   `rec:"use"`         // "vrf", "log" (checkpoint signing) or "attestation"
	Suite       string   `rec:"suite"`       // e.g. "ECVRF-P256-SHA256-SSWU", "RSA-FDH-VRF-SHA256", "Ed25519"
	PublicKey   []byte   `rec:"public_key"`  // P-256: 33-byte compressed point; RSA: DER SubjectPublicKeyInfo
	Fingerprint [32]byte `rec:"fingerprint"` // Fingerprint(PublicKey)
}

// KeyAnnouncement announces the appliance's public keys; these are the log's
// first records, so no key can be chosen after the fact.
type KeyAnnouncement struct {
	Time        time.Time `rec:"time"`
	Keys        []Key     `rec:"keys"`
	Attestation []byte    `rec:"attestation,omitempty"` // e.g. an HSM/TPM attestation or DSSE envelope over the keys
}

// Kind implements Record.
func (*KeyAnnouncement) Kind() Kind { return KindKey }

func (r *KeyAnnouncement) validate() error {
	if len(r.Keys) == 0 {
		return verdict.Errorf(verdict.MsgRecordNoKeys)
	}
	seen := map[string]bool{}
	for i, k := range r.Keys {
		switch {
		case k.ID == "":
			return verdict.Errorf(verdict.MsgRecordEmpty, fmt.Sprintf("keys[%d].id", i))
		case seen[k.ID]:
			return verdict.Errorf(verdict.MsgRecordKeyTwice, i, k.ID)
		case k.Use == "" || k.Suite == "":
			return verdict.Errorf(verdict.MsgRecordKeyUseSuite, i)
		case len(k.PublicKey) == 0:
			return verdict.Errorf(verdict.MsgRecordEmpty, fmt.Sprintf("keys[%d].public_key", i))
		case k.Fingerprint != Fingerprint(k.PublicKey):
			return verdict.Errorf(verdict.MsgRecordFingerprint, i)
		}
		seen[k.ID] = true
	}
	return checkTime("time", r.Time)
}

// Emission registers a ticket emission and the date in its published
// closure notice. StartDeadline is the first instant at which stage 2 may no
// longer start (qod.StartDeadline of the closure date). Req and ReqDigest
// identify the operator's call that registered it, as in game records
// (RequestID), so that its retry is answered from the log alone; emissions
// logged before they existed have none.
type Emission struct {
	Time          time.Time `rec:"time"`
	Emission      string    `rec:"emission"`
	Closure       string    `rec:"closure"`              // YYYY-MM-DD, from the closure notice
	StartDeadline time.Time `rec:"start_deadline"`       // starts at or after this instant are refused
	Req           [32]byte  `rec:"req,omitempty"`        // RequestID of the call that sealed this record
	ReqDigest     [32]byte  `rec:"req_digest,omitempty"` // that call's content digest
}

// Kind implements Record.
func (*Emission) Kind() Kind { return KindEmission }

func (r *Emission) validate() error {
	if r.Emission == "" {
		return verdict.Errorf(verdict.MsgRecordEmpty, "emission")
	}
	if d, err := time.Parse(time.DateOnly, r.Closure); err != nil || d.Format(time.DateOnly) != r.Closure {
		return verdict.Errorf(verdict.MsgRecordClosure, r.Closure)
	}
	if err := checkTime("start_deadline", r.StartDeadline); err != nil {
		return err
	}
	if err := checkRequest(r.Req, r.ReqDigest); err != nil {
		return err
	}
	return checkTime("time", r.Time)
}

// Manifest commits to an emission's ticket manifest: the Merkle root over its
// entries (code hash, stake S, emission) and their count. Req and ReqDigest
// identify the operator's call that imported it, as in Emission.
type Manifest struct {
	Time      time.Time `rec:"time"`
	Emission  string    `rec:"emission"`
	Root      [32]byte  `rec:"root"`
	Count     uint64    `rec:"count"`
	Total     int64     `rec:"total,omitempty"`      // sum of the stakes S, in cents
	Req       [32]byte  `rec:"req,omitempty"`        // RequestID of the call that sealed this record
	ReqDigest [32]byte  `rec:"req_digest,omitempty"` // that call's content digest
}

// Kind implements Record.
func (*Manifest) Kind() Kind { return KindManifest }

func (r *Manifest) validate() error {
	if r.Emission == "" {
		return verdict.Errorf(verdict.MsgRecordEmpty, "emission")
	}
	if r.Total < 0 {
		return verdict.Errorf(verdict.MsgRecordNegative, "total")
	}
	if err := checkRequest(r.Req, r.ReqDigest); err != nil {
		return err
	}
	return checkTime("time", r.Time)
}

// GameStart opens a stage-2 game ("CONTINUER"). The four multipliers are
// drawn from one VRF output (see package qod); when S = 50,000 € they are all
// 2 with no draw, and Key, Proof and Beta are omitted.
type GameStart struct {
	Time        time.Time `rec:"time"`
	Game        string    `rec:"game"`
	Emission    string    `rec:"emission"`
	Ticket      [32]byte  `rec:"ticket"`      // hash of the ticket's 18-character code
	Stake       int64     `rec:"stake"`       // S, cents
	Multipliers [4]int    `rec:"multipliers"` // m_1..m_4, each 2 or 3
	Amounts     [4]int64  `rec:"amounts"`     // A_1..A_4 = A_{t−1}·m_t, cents
	Commit      [32]byte  `rec:"commit"`      // Commit(r)
	Expires     time.Time `rec:"expires"`     // end of the 30-day play window
	Key         string    `rec:"key,omitempty"`
	Proof       []byte    `rec:"proof,omitempty"`      // VRF proof over StartAlpha
	Beta        []byte    `rec:"beta,omitempty"`       // VRF output
	Server      string    `rec:"server,omitempty"`     // the game server that owns the game (its certificate identity)
	Req         [32]byte  `rec:"req,omitempty"`        // RequestID of the call that sealed this record
	ReqDigest   [32]byte  `rec:"req_digest,omitempty"` // that call's content digest
}

// Kind implements Record.
func (*GameStart) Kind() Kind { return KindGameStart }

// GameID implements GameRecord.
func (r *GameStart) GameID() string { return r.Game }

// PrevHash implements GameRecord: a start has no previous record.
func (r *GameStart) PrevHash() [32]byte { return [32]byte{} }

func (r *GameStart) validate() error {
	if r.Game == "" || r.Emission == "" {
		return verdict.Errorf(verdict.MsgRecordRequired2, "game", "emission")
	}
	if r.Stake <= 0 {
		return verdict.Errorf(verdict.MsgRecordStake, r.Stake)
	}
	for t, m := range r.Multipliers {
		if m != 2 && m != 3 {
			return verdict.Errorf(verdict.MsgRecordMultiplier, t, m)
		}
	}
	if err := checkVRF(r.Key, r.Proof, r.Beta, true); err != nil {
		return err
	}
	if err := checkRequest(r.Req, r.ReqDigest); err != nil {
		return err
	}
	if err := checkTime("expires", r.Expires); err != nil {
		return err
	}
	return checkTime("time", r.Time)
}

// TicketQuit records the player's "QUITTER" (règlement art. 2.2.3): once
// the ticket's 18-character code is entered, the player renounces stage 2
// and keeps the stage-1 gain S, payable as any gain (art. 3.1). Nothing is
// drawn. The ticket can never start a game afterwards, as a started ticket
// can never be quit: a log holding both for one ticket, or a ticket quit
// twice, is the appliance's misbehaviour (verifier/audit).
//
// Its members are game_start's, with the same meaning: the ticket hash,
// its emission and S (from the operator's manifest), the time, and the game
// server that recorded the choice (its certificate identity). A new kind,
// its members are all required: rngd always knows the server, and Req and
// ReqDigest identify the call (RequestID), so that its retry is answered
// from the log alone.
type TicketQuit struct {
	Time      time.Time `rec:"time"`
	Emission  string    `rec:"emission"`
	Ticket    [32]byte  `rec:"ticket"`     // hash of the ticket's 18-character code (TicketHash)
	Stake     int64     `rec:"stake"`      // S, cents: what the player keeps
	Server    string    `rec:"server"`     // the game server that recorded the choice
	Req       [32]byte  `rec:"req"`        // RequestID of the call that sealed this record
	ReqDigest [32]byte  `rec:"req_digest"` // that call's content digest
}

// Kind implements Record.
func (*TicketQuit) Kind() Kind { return KindTicketQuit }

func (r *TicketQuit) validate() error {
	switch {
	case r.Emission == "":
		return verdict.Errorf(verdict.MsgRecordEmpty, "emission")
	case r.Server == "":
		return verdict.Errorf(verdict.MsgRecordEmpty, "server")
	case r.Stake <= 0:
		return verdict.Errorf(verdict.MsgRecordStake, r.Stake)
	case r.Req == [32]byte{}:
		return verdict.Errorf(verdict.MsgRecordEmpty, "req")
	case r.ReqDigest == [32]byte{}:
		return verdict.Errorf(verdict.MsgRecordEmpty, "req_digest")
	}
	return checkTime("time", r.Time)
}

// checkVRF requires key, proof and β together (or, when optional, none).
func checkVRF(key string, proof, beta []byte, optional bool) error {
	n := 0
	for _, ok := range []bool{key != "", len(proof) > 0, len(beta) > 0} {
		if ok {
			n++
		}
	}
	if n == 3 || (optional && n == 0) {
		return nil
	}
	return verdict.Errorf(verdict.MsgRecordTogether3, "key", "proof", "beta")
}

// checkRequest requires req and req_digest together (or neither).
func checkRequest(req, digest [32]byte) error {
	if (req == [32]byte{}) != (digest == [32]byte{}) {
		return verdict.Errorf(verdict.MsgRecordTogether2, "req", "req_digest")
	}
	return nil
}

// RequestID identifies a mutating call in the records it seals (their "req"
// member): SHA-256("tirage/request/v1" || u32be(len(caller)) || caller ||
// u32be(len(id)) || id), where caller is the game server's identity (or the
// operator's namespace) and id the request id it chose. The call's content
// digest goes in "req_digest", so a retry of the same id with the same
// content can be answered from the log alone, and the same id with other
// content refused.
func RequestID(caller, id string) [32]byte {
	const prefix = "tirage/request/v1"
	var buf [256]byte // one hash of one buffer: no allocation for common ids
	b := append(buf[:0], prefix...)
	for _, s := range []string{caller, id} {
		b = binary.BigEndian.AppendUint32(b, uint32(len(s)))
		b = append(b, s...)
	}
	return sha256.Sum256(b)
}

// Pick records one number picked and whether it is good or losing.
// Index is the number of picks before this one (0 for the first), so the
// draw is among n = 30 − Index hidden numbers.
type Pick struct {
	Time      time.Time `rec:"time"`
	Game      string    `rec:"game"`
	Index     int       `rec:"index"`
	Number    int       `rec:"number"`  // 1..30
	Outcome   string    `rec:"outcome"` // "good" or "losing"
	Key       string    `rec:"key"`
	Proof     []byte    `rec:"proof"` // VRF proof over PickAlpha
	Beta      []byte    `rec:"beta"`
	Prev      [32]byte  `rec:"prev"`
	Req       [32]byte  `rec:"req,omitempty"`        // RequestID of the call
	ReqDigest [32]byte  `rec:"req_digest,omitempty"` // the call's content digest
}

// Kind implements Record.
func (*Pick) Kind() Kind { return KindPick }

// GameID implements GameRecord.
func (r *Pick) GameID() string { return r.Game }

// PrevHash implements GameRecord.
func (r *Pick) PrevHash() [32]byte { return r.Prev }

func (r *Pick) validate() error {
	switch {
	case r.Game == "":
		return verdict.Errorf(verdict.MsgRecordEmpty, "game")
	case r.Index < 0 || r.Index > 29:
		return verdict.Errorf(verdict.MsgRecordRange, "index", r.Index, 0, 29)
	case r.Number < 1 || r.Number > 30:
		return verdict.Errorf(verdict.MsgRecordRange, "number", r.Number, 1, 30)
	case r.Outcome != OutcomeGood && r.Outcome != OutcomeLosing:
		return verdict.Errorf(verdict.MsgRecordOneOf, "outcome", r.Outcome, OutcomeGood, OutcomeLosing)
	}
	if err := checkVRF(r.Key, r.Proof, r.Beta, false); err != nil {
		return err
	}
	if err := checkRequest(r.Req, r.ReqDigest); err != nil {
		return err
	}
	return checkTime("time", r.Time)
}

// Decision records the player's choice at tier 1, 2 or 3.
type Decision struct {
	Time      time.Time `rec:"time"`
	Game      string    `rec:"game"`
	Tier      int       `rec:"tier"`   // 1..3
	Choice    string    `rec:"choice"` // "continue" or "stop"
	Prev      [32]byte  `rec:"prev"`
	Req       [32]byte  `rec:"req,omitempty"`        // RequestID of the call
	ReqDigest [32]byte  `rec:"req_digest,omitempty"` // the call's content digest
}

// Kind implements Record.
func (*Decision) Kind() Kind { return KindDecision }

// GameID implements GameRecord.
func (r *Decision) GameID() string { return r.Game }

// PrevHash implements GameRecord.
func (r *Decision) PrevHash() [32]byte { return r.Prev }

func (r *Decision) validate() error {
	switch {
	case r.Game == "":
		return verdict.Errorf(verdict.MsgRecordEmpty, "game")
	case r.Tier < 1 || r.Tier > 3:
		return verdict.Errorf(verdict.MsgRecordRange, "tier", r.Tier, 1, 3)
	case r.Choice != ChoiceContinue && r.Choice != ChoiceStop:
		return verdict.Errorf(verdict.MsgRecordOneOf, "choice", r.Choice, ChoiceContinue, ChoiceStop)
	}
	if err := checkRequest(r.Req, r.ReqDigest); err != nil {
		return err
	}
	return checkTime("time", r.Time)
}

// GameEnd closes a game and reveals its secret r, so that anyone can then
// recompute every α of the game and check every VRF proof.
type GameEnd struct {
	Time      time.Time `rec:"time"`
	Game      string    `rec:"game"`
	Result    string    `rec:"result"`           // "won", "lost", "expired" or "refunded"
	Tier      int       `rec:"tier"`             // tiers reached, 0..4
	Win       int64     `rec:"win,omitempty"`    // cents; only when won
	Refund    int64     `rec:"refund,omitempty"` // cents; only when refunded (the ticket price)
	Reason    []byte    `rec:"reason,omitempty"` // why the operator refunded, UTF-8 (CheckRefundReason; hex, as records are ASCII); only when refunded, none in older records
	Secret    [32]byte  `rec:"secret"`           // r
	Prev      [32]byte  `rec:"prev"`
	Req       [32]byte  `rec:"req,omitempty"`        // RequestID of the call; none when the sweeper ends a game
	ReqDigest [32]byte  `rec:"req_digest,omitempty"` // the call's content digest
}

// Kind implements Record.
func (*GameEnd) Kind() Kind { return KindGameEnd }

// GameID implements GameRecord.
func (r *GameEnd) GameID() string { return r.Game }

// SecretLost reports an end that does not reveal r because the appliance
// lost it (its secret store): the secret is all zero, and only a game that
// ends without a draw deciding its outcome, refunded or expired, may end so.
// Its draws cannot be verified.
func (r *GameEnd) SecretLost() bool {
	return r.Secret == [32]byte{} && (r.Result == ResultRefunded || r.Result == ResultExpired)
}

// PrevHash implements GameRecord.
func (r *GameEnd) PrevHash() [32]byte { return r.Prev }

func (r *GameEnd) validate() error {
	switch {
	case r.Game == "":
		return verdict.Errorf(verdict.MsgRecordEmpty, "game")
	case r.Tier < 0 || r.Tier > 4:
		return verdict.Errorf(verdict.MsgRecordRange, "tier", r.Tier, 0, 4)
	case r.Win < 0 || r.Refund < 0:
		return verdict.Errorf(verdict.MsgRecordWinRefund)
	}
	switch r.Result {
	case ResultWon:
		if r.Win == 0 || r.Refund != 0 || r.Tier == 0 {
			return verdict.Errorf(verdict.MsgRecordResultWon)
		}
	case ResultRefunded:
		if r.Refund == 0 || r.Win != 0 {
			return verdict.Errorf(verdict.MsgRecordResultRefunded)
		}
		if len(r.Reason) != 0 {
			if err := CheckRefundReason(string(r.Reason)); err != nil {
				return err
			}
		}
	case ResultLost, ResultExpired:
		if r.Win != 0 || r.Refund != 0 {
			return verdict.Errorf(verdict.MsgRecordResultNoWin, r.Result)
		}
	default:
		return verdict.Errorf(verdict.MsgRecordResult, r.Result)
	}
	if len(r.Reason) != 0 && r.Result != ResultRefunded {
		return verdict.Errorf(verdict.MsgRecordReasonNotRefund, r.Result)
	}
	if err := checkRequest(r.Req, r.ReqDigest); err != nil {
		return err
	}
	return checkTime("time", r.Time)
}

// MaxRefundReason bounds a refund's reason, in bytes.
const MaxRefundReason = 500

// CheckRefundReason reports whether s may be the reason of a refund
// (article 2.2.11: why the operator could not honour the 30 days), sealed
// in the game's end record: 1 to MaxRefundReason bytes of UTF-8 text on
// one line, without control or format characters (a bidi override or a
// zero-width character would make it read otherwise than it is) nor line
// or paragraph separators (U+2028, U+2029: a line break to a browser or an
// editor), and not only spaces.
func CheckRefundReason(s string) error {
	switch {
	case strings.TrimSpace(s) == "":
		return verdict.Errorf(verdict.MsgRecordEmpty, "reason")
	case len(s) > MaxRefundReason:
		return verdict.Errorf(verdict.MsgRecordReasonLong, len(s), MaxRefundReason)
	case !utf8.ValidString(s) || strings.ContainsFunc(s, func(c rune) bool { return unicode.IsControl(c) || unicode.In(c, unicode.Cf, unicode.Zl, unicode.Zp) }):
		return verdict.Errorf(verdict.MsgRecordReasonText)
	}
	return nil
}

// PromoFreeze freezes a promotion draw's entrant list before the ceremony:
// the Merkle root and count of the entrants, how many winners and reserves
// will be ranked, the appliance's commitment H(r), the SHA-256 of the
// operation's rules file, (optionally) the public beacon round announced
// in advance and the id of the VRF key that will draw it. Freezes logged
// before "rules" existed carried the rules hash in Promotion as
// "<operation> rules-sha256:<hex>" (see verifier/promo).
//
// Key binds the draw to one VRF key before the bailiff's share exists: with
// several keys announced (a rotation), an appliance free to choose the key
// at the ceremony could prove α under each and keep the ranking it prefers.
// Its draw must name this key (promo_draw "key"). Freezes logged before
// "key" existed name none; verifiers then require the single VRF key
// announced before the freeze (verifier/audit).
//
// ShareCommitment binds the bailiff's share before the beacon round is
// published: the bailiff computes it alone (verifier/promo.ShareCommitment,
// rngverify share-commitment) and the draw's share must open it. Without
// it, an operator and a bailiff together could try shares once the round
// is known and keep the winners they prefer. A freeze announcing a beacon
// holds one; freezes logged before "share_commitment" existed hold none.
type PromoFreeze struct {
	Time      time.Time `rec:"time"`
	Draw      string    `rec:"draw"`
	Promotion string    `rec:"promotion"`       // the operation, e.g. "bonus-crescendo"
	Rules     [32]byte  `rec:"rules,omitempty"` // SHA-256 of the rules file's exact bytes
	Root      [32]byte  `rec:"root"`
	Count     uint64    `rec:"count"`
	Winners   uint64    `rec:"winners"`
	Reserves  uint64    `rec:"reserves"`
	Commit    [32]byte  `rec:"commit"`           // Commit(r)
	Beacon    string    `rec:"beacon,omitempty"` // "drand:<chain hash>:<round>" (verifier/beacon.Ref); free text in older freezes
	Key       string    `rec:"key,omitempty"`    // the VRF key's id as announced, which alone may draw it; "" in older freezes
	// ShareCommitment is promo.ShareCommitment(draw, share) of the share
	// the draw must hold; zero in older freezes.
	ShareCommitment [32]byte `rec:"share_commitment,omitempty"`
	// Inputs is promo.InputsDigest of the input files the entrant list
	// was computed from (the stake files, then the closed accounts): their
	// roles and SHA-256s, in order. Zero in older freezes, which bind no
	// input file.
	Inputs [32]byte `rec:"inputs,omitempty"`
	// EntrantScheme is the entrant commitment scheme of the frozen root
	// (verifier/promo: EntrantSchemeV2, whose per-entrant opening lets a
	// player prove their own entry); 0, absent, in freezes logged before
	// it existed, which used scheme 1. 1 is never written (absent says it).
	EntrantScheme uint64 `rec:"entrant_scheme,omitempty"`
}

// Kind implements Record.
func (*PromoFreeze) Kind() Kind { return KindPromoFreeze }

// MaxEntrantScheme is the latest entrant commitment scheme a freeze may
// state (verifier/promo).
const MaxEntrantScheme = 2

func (r *PromoFreeze) validate() error {
	if r.Draw == "" || r.Promotion == "" {
		return verdict.Errorf(verdict.MsgRecordRequired2, "draw", "promotion")
	}
	if r.Winners == 0 || r.Winners+r.Reserves > r.Count {
		return verdict.Errorf(verdict.MsgRecordWinners, r.Winners, r.Reserves, r.Count)
	}
	if err := checkBeacon(r.Beacon); err != nil {
		return err
	}
	if r.EntrantScheme == 1 || r.EntrantScheme > MaxEntrantScheme {
		return verdict.Errorf(verdict.MsgRecordEntrantScheme, r.EntrantScheme)
	}
	return checkTime("time", r.Time)
}

// beaconRefRE is the canonical drand round reference of verifier/beacon.Ref.
var beaconRefRE = regexp.MustCompile(`^drand:[0-9a-f]{64}:[1-9][0-9]{0,19}$`)

// checkBeacon: a beacon that claims to be a drand round reference
// ("drand:…") must be one, in canonical form; other non-empty strings are
// the free-text beacons of freezes logged before beacons were verified.
func checkBeacon(b string) error {
	if !strings.HasPrefix(b, "drand:") {
		return nil
	}
	if !beaconRefRE.MatchString(b) {
		return verdict.Errorf(verdict.MsgRecordBeaconRef, b)
	}
	if _, err := strconv.ParseUint(b[strings.LastIndexByte(b, ':')+1:], 10, 64); err != nil {
		return verdict.Errorf(verdict.MsgRecordBeaconRound)
	}
	return nil
}

// PromoDraw is the draw itself: it reveals r, carries the bailiff's share s
// and the beacon value, and ranks Winners then Reserves entrant indices
// (0-based positions in the frozen list) from one VRF output.
type PromoDraw struct {
	Time        time.Time `rec:"time"`
	Draw        string    `rec:"draw"`
	Root        [32]byte  `rec:"root"`
	Count       uint64    `rec:"count"`
	Winners     uint64    `rec:"winners"`
	Reserves    uint64    `rec:"reserves"`
	Commit      [32]byte  `rec:"commit"`
	Secret      [32]byte  `rec:"secret"` // r
	Share       []byte    `rec:"share"`  // the bailiff's contribution s
	Beacon      string    `rec:"beacon,omitempty"`
	BeaconValue []byte    `rec:"beacon_value,omitempty"`
	Ranking     []uint64  `rec:"ranking"` // winners then reserves
	Key         string    `rec:"key"`
	Proof       []byte    `rec:"proof"` // VRF proof over PromoDrawAlpha
	Beta        []byte    `rec:"beta"`
	Prev        [32]byte  `rec:"prev"` // leaf hash of the freeze record
}

// Kind implements Record.
func (*PromoDraw) Kind() Kind { return KindPromoDraw }

func (r *PromoDraw) validate() error {
	switch {
	case r.Draw == "":
		return verdict.Errorf(verdict.MsgRecordEmpty, "draw")
	case len(r.Share) == 0:
		return verdict.Errorf(verdict.MsgRecordShare)
	case uint64(len(r.Ranking)) != r.Winners+r.Reserves:
		return verdict.Errorf(verdict.MsgRecordRanking, len(r.Ranking), r.Winners+r.Reserves)
	case r.Commit != Commit(r.Secret):
		return verdict.Errorf(verdict.MsgRecordSecret)
	case (r.Beacon == "") != (len(r.BeaconValue) == 0):
		return verdict.Errorf(verdict.MsgRecordTogether2, "beacon", "beacon_value")
	}
	if err := checkBeacon(r.Beacon); err != nil {
		return err
	}
	if i := firstBadEntry(r.Ranking, r.Count); i >= 0 {
		return verdict.Errorf(verdict.MsgRecordRankingEntry, i, r.Ranking[i])
	}
	if err := checkVRF(r.Key, r.Proof, r.Beta, false); err != nil {
		return err
	}
	return checkTime("time", r.Time)
}

// Attestation logs the digest of a signed statement (an in-toto statement in
// a DSSE envelope: the paytable and its PAR report, health-test history,
// statistical test reports, build provenance). Req and ReqDigest identify
// the operator's call that logged it (rngctl attest log), as in Emission;
// attestations logged before they existed have none.
type Attestation struct {
	Time      time.Time `rec:"time"`
	Subject   string    `rec:"subject"`              // what is attested, e.g. "qod/paytable"
	Type      string    `rec:"type"`                 // the statement's predicate type URI
	Digest    [32]byte  `rec:"digest"`               // SHA-256 of the envelope
	Key       string    `rec:"key"`                  // the signing key's id (announced)
	Statement []byte    `rec:"statement,omitempty"`  // the envelope itself, when small enough to log
	Req       [32]byte  `rec:"req,omitempty"`        // RequestID of the call that sealed this record
	ReqDigest [32]byte  `rec:"req_digest,omitempty"` // that call's content digest
}

// Kind implements Record.
func (*Attestation) Kind() Kind { return KindAttestation }

func (r *Attestation) validate() error {
	if r.Subject == "" || r.Type == "" || r.Key == "" {
		return verdict.Errorf(verdict.MsgRecordRequired3, "subject", "type", "key")
	}
	if len(r.Statement) > 0 && sha256.Sum256(r.Statement) != r.Digest {
		return verdict.Errorf(verdict.MsgRecordDigest)
	}
	if err := checkRequest(r.Req, r.ReqDigest); err != nil {
		return err
	}
	return checkTime("time", r.Time)
}
