package promo

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"golang.org/x/mod/sumdb/tlog"

	"tirage.fr/tirage/verifier/draw"
	"tirage.fr/tirage/verifier/vrf"
)

// The draw, step by step (version 1).
//
//  1. Freeze: the appliance draws r (32 bytes) from its DRBG, keeps it secret
//     and logs the freeze record with n, the entrant root and
//     commitment = SHA-256("tirage/promo/commit/v1" || r).
//  2. Ceremony, after the freeze is logged: the bailiff enters the share s;
//     if the rules announced a beacon round, its published value b is entered.
//  3. α = "tirage/promo/draw/v1" || lp(D) || root || u64be(n) || commitment
//     || r || lp(s) || lp(beacon source) || u64be(beacon round) || lp(b)
//     where lp(x) = u32be(len(x)) || x and the beacon fields are empty / 0
//     without a beacon.
//  4. π = VRF_prove(SK, α); β = VRF_proof_to_hash(π) (RFC 9381).
//  5. (i_1, …, i_k) = draw.NewStream(β, "promo").RankedSample(k, n) with
//     k = min(1 + reserves, n): i_1 wins, i_2 … i_k are the ranked reserves.
//  6. The draw record reveals r and holds s, π, β and the picks' leaves.
//
// Nobody can steer the result: the entrant list and H(r) are logged before s
// exists; the bailiff does not know r; the VRF has one output per α; the log
// refuses a second draw record for the same draw (see rngd/promo), and all
// reserves come from this one β — there is no "draw again".
const (
	commitDomain = "tirage/promo/commit/v1"
	alphaDomain  = "tirage/promo/draw/v1"
	// StreamLabel is the draw.Stream label of promotion draws.
	StreamLabel = "promo"
)

// Commit is the commitment H(r) logged at the freeze.
func Commit(r [32]byte) [32]byte {
	h := sha256.New()
	h.Write([]byte(commitDomain))
	h.Write(r[:])
	var out [32]byte
	h.Sum(out[:0])
	return out
}

// AlphaInput is everything α binds.
type AlphaInput struct {
	Draw       string
	Root       [32]byte
	Count      uint64
	Commitment [32]byte
	R          [32]byte
	Share      string
	Beacon     *BeaconValue
}

// Alpha builds the VRF input of step 3.
func Alpha(in AlphaInput) []byte {
	lp := func(b []byte, x []byte) []byte {
		b = binary.BigEndian.AppendUint32(b, uint32(len(x)))
		return append(b, x...)
	}
	a := []byte(alphaDomain)
	a = lp(a, []byte(in.Draw))
	a = append(a, in.Root[:]...)
	a = binary.BigEndian.AppendUint64(a, in.Count)
	a = append(a, in.Commitment[:]...)
	a = append(a, in.R[:]...)
	a = lp(a, []byte(in.Share))
	var src string
	var round uint64
	var val []byte
	if in.Beacon != nil {
		src, round = in.Beacon.Source, in.Beacon.Round
		val, _ = hex.DecodeString(in.Beacon.Value)
	}
	a = lp(a, []byte(src))
	a = binary.BigEndian.AppendUint64(a, round)
	a = lp(a, val)
	return a
}

// Picks runs step 5: the ranked indices from β.
func Picks(beta []byte, reserves int, n uint64) ([]int, error) {
	if n == 0 {
		return nil, errors.New("no entrant")
	}
	k := 1 + reserves
	if uint64(k) > n {
		k = int(n)
	}
	return draw.NewStream(beta, StreamLabel).RankedSample(k, int(n))
}

// Prover proves VRF statements; hsm.VRFProver satisfies it.
type Prover interface {
	PublicKey() *vrf.PublicKey
	Prove(alpha []byte) ([]byte, error)
}

// NewFreeze makes the freeze record of a list (step 1), given r.
func NewFreeze(rulesHash [32]byte, days []string, tree *EntrantTree, withheld int, draw string, r [32]byte, now time.Time) *FreezeRecord {
	root, c := tree.Root(), Commit(r)
	return &FreezeRecord{
		V: 1, Kind: KindFreeze, Draw: draw,
		RulesHash:  hex.EncodeToString(rulesHash[:]),
		Days:       append([]string{}, days...),
		Count:      uint64(tree.Size()),
		Root:       hex.EncodeToString(root[:]),
		Withheld:   uint64(withheld),
		Commitment: hex.EncodeToString(c[:]),
		FrozenAt:   FormatTime(now),
	}
}

// Ceremony is the input of a draw (steps 2 to 6).
type Ceremony struct {
	Freeze      *FreezeRecord
	FreezeIndex uint64       // the freeze record's index in the log
	Tree        *EntrantTree // rebuilt from the frozen list; must match the freeze
	R           [32]byte     // the value committed to at the freeze
	Share       string       // normalised share (ShareFromText / ShareFromDice)
	Beacon      *BeaconValue // required iff the rules announce a beacon
	Reserves    int
	Prover      Prover
	Now         time.Time
}

// Run runs the ceremony and returns the draw record. It fails, drawing
// nothing, if the inputs do not match the freeze.
func (c *Ceremony) Run() (*DrawRecord, error) {
	f := c.Freeze
	root := c.Tree.Root()
	if hex.EncodeToString(root[:]) != f.Root || uint64(c.Tree.Size()) != f.Count {
		return nil, errors.New("entrant list does not match the freeze record")
	}
	cm := Commit(c.R)
	if hex.EncodeToString(cm[:]) != f.Commitment {
		return nil, errors.New("r does not match the freeze commitment")
	}
	if _, err := ParseShare(c.Share); err != nil {
		return nil, fmt.Errorf("bailiff share: %w", err)
	}
	if f.Count == 0 {
		return nil, errors.New("no entrant: nothing to draw")
	}
	alpha := Alpha(AlphaInput{Draw: f.Draw, Root: root, Count: f.Count, Commitment: cm, R: c.R, Share: c.Share, Beacon: c.Beacon})
	pk := c.Prover.PublicKey()
	proof, err := c.Prover.Prove(alpha)
	if err != nil {
		return nil, fmt.Errorf("couldn't prove the draw: %w", err)
	}
	// β comes from the verifier's own check of π, as auditors compute it.
	beta, err := vrf.Verify(pk, alpha, proof)
	if err != nil {
		return nil, fmt.Errorf("prover returned a proof that does not verify: %w", err)
	}
	idx, err := Picks(beta, c.Reserves, f.Count)
	if err != nil {
		return nil, err
	}
	fl := tlog.RecordHash(FormatFreeze(f))
	d := &DrawRecord{
		V: 1, Kind: KindDraw, Draw: f.Draw,
		FreezeLeaf: hex.EncodeToString(fl[:]), FreezeIndex: c.FreezeIndex,
		Count: f.Count, Root: f.Root, Commitment: f.Commitment,
		R: hex.EncodeToString(c.R[:]), Share: c.Share, Beacon: c.Beacon,
		Suite: string(pk.Suite()), PublicKey: hex.EncodeToString(pk.Bytes()),
		Proof: hex.EncodeToString(proof), Beta: hex.EncodeToString(beta),
		DrawnAt: FormatTime(c.Now),
	}
	for rank, i := range idx {
		leaf := c.Tree.Leaf(int64(i))
		d.Winners = append(d.Winners, Pick{Rank: rank + 1, Index: uint64(i), Leaf: hex.EncodeToString(leaf[:])})
	}
	return d, nil
}
