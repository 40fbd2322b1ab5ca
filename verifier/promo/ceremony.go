package promo

import (
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"tirage.fr/tirage/verifier/beacon"
	"tirage.fr/tirage/verifier/draw"
	"tirage.fr/tirage/verifier/record"
	"tirage.fr/tirage/verifier/verdict"
	"tirage.fr/tirage/verifier/vrf"
)

// The draw, step by step (version 1). Records and α are those of package
// verifier/record (kinds promo_freeze and promo_draw, record.PromoDrawAlpha).
//
//  1. Freeze: the appliance draws r (32 bytes) from its DRBG, keeps it secret
//     and logs a promo_freeze record with the entrant root, n, the number of
//     winners (1) and reserves, commit = record.Commit(r) = SHA-256(r), the
//     announced beacon round if any ("drand:<chain hash>:<round>", a
//     beacon.Ref), promotion = the operation, rules = RulesHash(rules
//     file) (binding the rules file), key = the id of the VRF key that
//     will draw it (binding the key, with several announced) and, with a
//     beacon, share_commitment = ShareCommitment(draw, s), which the
//     bailiff computed alone (binding the share before the round is
//     published).
//  2. Ceremony, after the freeze is logged: the bailiff enters the share s
//     (ParseShare), which must open the freeze's share commitment when it
//     holds one (VerifyShareCommitment); if a beacon round was announced,
//     its published value b
//     is entered — the round's BLS signature (for a chained drand chain,
//     the previous round's signature then the round's) — and must verify
//     under the pinned key of the announced chain for the announced round
//     (VerifyBeacon). The round's randomness is SHA-256(signature); b binds
//     it. Freezes logged before beacons were verified announced a free
//     text; their value is bound as given, unverified.
//  3. α = record.PromoDrawAlpha(draw, root, n, commit, r, s, b).
//  4. π = VRF_prove(SK, α); β = VRF_proof_to_hash(π) (RFC 9381), SK the
//     key the freeze names.
//  5. (i_1, …, i_k) = draw.NewStream(β, "promo").RankedSample(k, n) with
//     k = winners + reserves: i_1 wins, i_2 … i_k are the ranked reserves.
//  6. The promo_draw record reveals r, holds s, b, π, β and the ranking, and
//     links to the freeze by prev = its leaf hash.
//
// Nobody can steer the result: the entrant list, H(r) and the VRF key are
// logged before s exists; the bailiff does not know r; with a beacon, s is
// committed before the round is published, so that not even the operator
// and the bailiff together can try shares once it is known; the VRF has one
// output per α and key, and the key is the freeze's (an appliance holding
// several announced keys cannot prove α under each once s is known and
// keep the ranking it prefers); the ceremony refuses a second draw for the
// same draw id (rngd/promo), and all reserves come from this one β — there
// is no "draw again".
const (
	// StreamLabel is the draw.Stream label of promotion draws.
	StreamLabel = "promo"
)

// Picks runs step 5: k ranked indices of [0, n) from β.
func Picks(beta []byte, k, n uint64) ([]int, error) {
	if n == 0 || k == 0 || k > n {
		return nil, fmt.Errorf("cannot rank %d of %d entrants", k, n)
	}
	return draw.NewStream(beta, StreamLabel).RankedSample(int(k), int(n))
}

// Ranked is the number of picks for reserves and n entrants: 1 + reserves,
// or everyone when there are fewer entrants.
func Ranked(reserves int, n uint64) uint64 {
	k := uint64(WinnersPerDraw + reserves)
	return min(k, n)
}

var (
	operationRE = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,63}$`)
	// legacyPromotionRE is the promotion member of freezes logged before
	// the record had "rules": "<operation> rules-sha256:<hex>".
	legacyPromotionRE = regexp.MustCompile(`^([a-z0-9][a-z0-9-]{0,63}) rules-sha256:([0-9a-f]{64})$`)
)

// FreezeRules returns the operation and the rules hash (lowercase hex) a
// freeze record binds: its promotion and rules members, or, for a freeze
// logged before "rules" existed, the two parts of its promotion member.
func FreezeRules(f *record.PromoFreeze) (operation, rulesHash string, err error) {
	if f.Rules != ([32]byte{}) {
		if !operationRE.MatchString(f.Promotion) {
			return "", "", fmt.Errorf("promotion %q is not an operation name", clip(f.Promotion))
		}
		return f.Promotion, hex.EncodeToString(f.Rules[:]), nil
	}
	m := legacyPromotionRE.FindStringSubmatch(f.Promotion)
	if m == nil {
		return "", "", fmt.Errorf("the freeze record has no rules hash (promotion %q)", clip(f.Promotion))
	}
	return m[1], m[2], nil
}

// Prover proves VRF statements; hsm.VRFProver satisfies it. Run takes β
// from its own check of the proof, not from Prove.
type Prover interface {
	PublicKey() *vrf.PublicKey
	Prove(alpha []byte) (proof, beta []byte, err error)
}

// BeaconRound is a beacon value checked against the freeze's announcement.
type BeaconRound struct {
	Announced  string        // the freeze's beacon member
	Chain      *beacon.Chain // nil for a free-text (unverified) beacon of an older freeze
	Round      uint64
	Randomness [32]byte // SHA-256(signature), when Chain is set
}

// Verified reports whether the value was checked against a drand chain.
func (b *BeaconRound) Verified() bool { return b != nil && b.Chain != nil }

// VerifyBeacon checks a draw's beacon value against the freeze's announced
// beacon: none and none; a drand round reference and that round's value
// (beacon.Chain.Verify under the pinned chain). A free-text beacon (a
// freeze of an older rngd) is refused: nothing checks its value. It returns
// nil when no beacon was announced. Its errors do not name the field: callers
// do (beacon_value, --beacon).
func VerifyBeacon(announced string, value []byte) (*BeaconRound, error) {
	if announced == "" {
		if len(value) > 0 {
			return nil, verdict.Errorf(verdict.MsgBeaconNoneAnnounced)
		}
		return nil, nil
	}
	if !beacon.IsRef(announced) {
		// A free text (freezes of an older rngd): its value binds the
		// draw but proves nothing, and whoever gives it can try values
		// until the winners suit them. Worse than no beacon: refused.
		return nil, verdict.Errorf(verdict.MsgBeaconFreeText, announced)
	}
	ref, err := beacon.ParseRef(announced)
	if err != nil {
		return nil, err
	}
	c := beacon.Pinned(hex.EncodeToString(ref.Chain[:]))
	if c == nil {
		return nil, verdict.Errorf(verdict.MsgBeaconChainUnpinned, ref.Chain)
	}
	if len(value) == 0 {
		return nil, verdict.Errorf(verdict.MsgBeaconSignatureRequired, c, ref.Round)
	}
	rnd, err := c.Verify(ref.Round, value)
	if err != nil {
		return nil, verdict.Errorf(verdict.MsgBeaconNotRound, c, ref.Round, err)
	}
	return &BeaconRound{Announced: announced, Chain: c, Round: ref.Round, Randomness: rnd}, nil
}

// FreezeInput is what a freeze commits to.
type FreezeInput struct {
	Operation string
	RulesHash [32]byte
	Draw      string // full draw id, operation/id
	Tree      *EntrantTree
	Reserves  int
	Beacon    string   // the pre-announced beacon round (a beacon.Ref of a pinned chain), or ""
	KeyID     string   // the VRF key that will draw it: its id as announced in the log
	R         [32]byte // the appliance's secret
	Now       time.Time
	// ShareCommitment is the bailiff's ShareCommitment(Draw, s), required
	// with a beacon (optional without).
	ShareCommitment [32]byte
	// Inputs are the files the entrant list was computed from, stake
	// files first (InputsDigest); the record binds their digest. None:
	// the freeze binds no input file, as older ones.
	Inputs []InputFile
}

// NewFreeze makes the freeze record (step 1). It fails when there is no
// entrant (there is nothing to draw), no VRF key is named (the key is
// bound at the freeze, before the bailiff's share exists) or a beacon is
// announced without the bailiff's share commitment (ErrNoShareCommitment),
// or its input files are not a freeze's (InputsDigest).
func NewFreeze(in FreezeInput) (*record.PromoFreeze, error) {
	n := uint64(in.Tree.Size())
	if n == 0 {
		return nil, errors.New("no entrant: nothing to freeze")
	}
	if !operationRE.MatchString(in.Operation) || in.RulesHash == ([32]byte{}) {
		return nil, fmt.Errorf("operation %q: a name of a-z, 0-9 and '-', with the rules file's hash", clip(in.Operation))
	}
	if !ValidDrawID(in.Draw) || !strings.HasPrefix(in.Draw, in.Operation+"/") {
		return nil, fmt.Errorf("draw id %q is not %s/<id>", in.Draw, in.Operation)
	}
	if in.KeyID == "" {
		return nil, errors.New("no VRF key named: a freeze binds the key that will draw it")
	}
	if in.Beacon != "" {
		// New freezes announce a verifiable round only.
		ref, err := beacon.ParseRef(in.Beacon)
		if err != nil {
			return nil, err
		}
		c := beacon.Pinned(hex.EncodeToString(ref.Chain[:]))
		if c == nil {
			return nil, fmt.Errorf("beacon: chain %x is not a drand chain this verifier pins", ref.Chain)
		}
		// The round must still be unknown when the list is frozen.
		if t := c.RoundTime(ref.Round); !t.After(in.Now) {
			return nil, fmt.Errorf("beacon: %s round %d is published at %s, not after the freeze (%s): announce a later round",
				c, ref.Round, FormatTime(t), FormatTime(in.Now))
		}
		// And so must the share be fixed before it.
		if in.ShareCommitment == ([32]byte{}) {
			return nil, fmt.Errorf("%s: %w", in.Draw, ErrNoShareCommitment)
		}
	}
	var inputs [32]byte
	if len(in.Inputs) > 0 {
		d, err := InputsDigest(in.Inputs)
		if err != nil {
			return nil, fmt.Errorf("input files: %w", err)
		}
		inputs = d
	}
	return &record.PromoFreeze{
		Time: in.Now.UTC().Truncate(time.Second), Draw: in.Draw,
		Promotion: in.Operation, Rules: in.RulesHash,
		Root: in.Tree.Root(), Count: n,
		Winners: WinnersPerDraw, Reserves: Ranked(in.Reserves, n) - WinnersPerDraw,
		Commit: record.Commit(in.R), Beacon: in.Beacon, Key: in.KeyID,
		ShareCommitment: in.ShareCommitment, Inputs: inputs,
		EntrantScheme: in.Tree.Scheme(),
	}, nil
}

// ErrNoShareCommitment: a freeze announcing a beacon round was not given
// the bailiff's share commitment (FreezeInput.ShareCommitment). Nothing was
// frozen: the bailiff computes it (rngverify share-commitment) and the
// freeze is made with it. Without it, the share could be chosen once the
// round is published.
var ErrNoShareCommitment = errors.New("a draw with a beacon round needs the bailiff's share commitment (rngverify share-commitment), fixed before the round is published")

// ErrKeyNotFrozen: the ceremony was given another VRF key than the one the
// freeze names. Nothing was drawn; hold it with the freeze's key (the error,
// a *KeyNotFrozenError, names both). Auditors count a draw under another
// key as misbehaviour.
var ErrKeyNotFrozen = errors.New("not the VRF key the freeze names")

// KeyNotFrozenError is ErrKeyNotFrozen with the keys: the one given and the
// one the freeze names.
type KeyNotFrozenError struct {
	Draw, Key, Frozen string
}

func (e *KeyNotFrozenError) Error() string {
	return fmt.Sprintf("%s: VRF key %q is %v %q: the freeze bound its draw to that key before the bailiff's share existed, "+
		"and a draw under another key would let the appliance choose the winner; hold the ceremony with key %q",
		e.Draw, e.Key, ErrKeyNotFrozen, e.Frozen, e.Frozen)
}

func (e *KeyNotFrozenError) Unwrap() error { return ErrKeyNotFrozen }

// Ceremony is the input of a draw (steps 2 to 6).
type Ceremony struct {
	Freeze      *record.PromoFreeze
	Tree        *EntrantTree // rebuilt from the frozen list; must match the freeze
	R           [32]byte     // the value committed to at the freeze
	Share       string       // normalised share (ShareFromText / ShareFromDice)
	BeaconValue []byte       // required iff the freeze announced a beacon; checked by VerifyBeacon
	KeyID       string       // the VRF key's id as announced in the log; the freeze's, when it names one
	Prover      Prover
	Now         time.Time
	// RulesFile, if set, is the rules file the freeze binds: the ceremony
	// is then refused when the freeze contradicts it or Now falls outside
	// the draw's dates (Rules.CheckFreeze), as Verify refuses its
	// certificate.
	RulesFile []byte
}

// Check reports whether Run would draw, proving nothing: the inputs match
// the freeze — the VRF key it names (ErrKeyNotFrozen), the entrant list,
// r, the beacon value, the rules and dates, a time not before the
// freeze's — and the share is one, opening the freeze's share commitment
// when it holds one. A caller that locks the draw before
// Run (rngd/promo) checks first, so that a refusal locks nothing.
func (c *Ceremony) Check() error {
	f := c.Freeze
	if f.Key != "" && c.KeyID != f.Key {
		return &KeyNotFrozenError{Draw: f.Draw, Key: c.KeyID, Frozen: f.Key}
	}
	if c.Tree.Root() != f.Root || uint64(c.Tree.Size()) != f.Count {
		return errors.New("entrant list does not match the freeze record")
	}
	if record.Commit(c.R) != f.Commit {
		return errors.New("r does not match the freeze commitment")
	}
	if _, err := ParseShare(c.Share); err != nil {
		return fmt.Errorf("bailiff share: %w", err)
	}
	if err := VerifyShareCommitment(f, c.Share); err != nil {
		return fmt.Errorf("bailiff share: %w", err)
	}
	if _, err := VerifyBeacon(f.Beacon, c.BeaconValue); err != nil {
		return fmt.Errorf("beacon_value: %w", err)
	}
	now := c.Now.UTC().Truncate(time.Second) // the draw record's time
	if now.Before(f.Time) {
		return verdict.Errorf(verdict.MsgPromoDrawnEarly, FormatTime(now), FormatTime(f.Time))
	}
	if c.RulesFile != nil {
		r, j, err := RulesOfFreeze(c.RulesFile, f)
		if err != nil {
			return err
		}
		if err := r.CheckFreeze(j, f, now); err != nil {
			return err
		}
	}
	return nil
}

// Run runs the ceremony and returns the draw record. It fails, drawing
// nothing, if the inputs do not match the freeze — among them a VRF key
// other than the one the freeze names (ErrKeyNotFrozen). That Prover holds
// the key announced as KeyID is the caller's to ensure.
func (c *Ceremony) Run() (*record.PromoDraw, error) {
	if err := c.Check(); err != nil {
		return nil, err
	}
	f := c.Freeze
	now := c.Now.UTC().Truncate(time.Second) // the draw record's time
	leaf, err := record.Format(f)
	if err != nil {
		return nil, err
	}
	alpha := record.PromoDrawAlpha(f.Draw, f.Root, f.Count, f.Commit, c.R, []byte(c.Share), c.BeaconValue)
	pk := c.Prover.PublicKey()
	proof, _, err := c.Prover.Prove(alpha)
	if err != nil {
		return nil, fmt.Errorf("couldn't prove the draw: %w", err)
	}
	// β comes from the verifier's own check of π, as auditors compute it.
	beta, err := vrf.Verify(pk, alpha, proof)
	if err != nil {
		return nil, fmt.Errorf("prover returned a proof that does not verify: %w", err)
	}
	idx, err := Picks(beta, f.Winners+f.Reserves, f.Count)
	if err != nil {
		return nil, err
	}
	d := &record.PromoDraw{
		Time: now, Draw: f.Draw,
		Root: f.Root, Count: f.Count, Winners: f.Winners, Reserves: f.Reserves,
		Commit: f.Commit, Secret: c.R, Share: []byte(c.Share),
		Beacon: f.Beacon, BeaconValue: c.BeaconValue,
		Key: c.KeyID, Proof: proof, Beta: beta,
		Prev: record.LeafHash(leaf),
	}
	for _, i := range idx {
		d.Ranking = append(d.Ranking, uint64(i))
	}
	return d, nil
}
