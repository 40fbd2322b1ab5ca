package attestations

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"math/big"
	"slices"
	"strconv"

	"tirage.fr/tirage/verifier/qod"
)

// The paytable attestation (docs/attestations.md).
const (
	PaytableType    = "https://tirage.fr/attestation/paytable/v1"
	PaytableSubject = "qod/paytable"
	// Game names the game whose paytable is attested.
	Game = "quitte-ou-double"
)

// Paytable is the PAR sheet of Quitte ou Double's stage 2
// (../shared/spec/quitte-ou-double.md), every figure an exact rational "p/q"
// in lowest terms (big.Rat's String), except OneIn's, which are the
// published "1 chance in X" to two decimals, for display only. Members are
// in lexicographic order (canonical JSON).
type Paytable struct {
	Game string `json:"game"`
	Grid Grid   `json:"grid"`
	// MaxStake is the stake, in cents, with which every multiplier is 2 (no
	// draw).
	MaxStake int64 `json:"max_stake"`
	// Picks are the pick-by-pick losing chances, from the first pick to
	// the last that can reach tier 4.
	Picks []Pick `json:"picks"`
	// Returns are the expected returns per stake and per strategy.
	Returns []Return `json:"returns"`
	// Stakes are the gains S of stage 1 that stage 2 is played with, in
	// cents, highest first.
	Stakes []int64 `json:"stakes"`
	Tiers  []Tier  `json:"tiers"`
}

// PredicateType implements Predicate.
func (*Paytable) PredicateType() string { return PaytableType }

// Grid are the game's constants.
type Grid struct {
	Losing  int `json:"losing"`  // losing numbers
	Numbers int `json:"numbers"` // the grid: 1..Numbers
	Tiers   int `json:"tiers"`   // paliers
}

// Pick is the chance that a pick is losing with Hidden numbers not yet
// selected (all the losing ones among them): 3/Hidden.
type Pick struct {
	Hidden int    `json:"hidden"`
	Losing string `json:"losing"`
}

// Tier is one tier's figures.
type Tier struct {
	Double   string `json:"double"`              // P(m_t = 2) = 1 − q_t
	Expected string `json:"expected_multiplier"` // E[m_t] = 2 + q_t, for S below MaxStake
	Good     int    `json:"good"`                // G_t, good numbers that reach the tier
	Needed   int    `json:"needed"`              // k_t = G_t − G_{t−1}
	OneIn    OneIn  `json:"one_in"`              // the published figures, display only
	Reach    string `json:"reach"`               // P_t = P(reach t | reached t−1)
	// ReachDouble and ReachTriple are P_t·(1 − q_t) and P_t·q_t.
	ReachDouble string `json:"reach_double"`
	ReachTriple string `json:"reach_triple"`
	// Step is the expected value of continuing to the tier, per unit of
	// the amount given up: P_t·(2 + q_t); StepMax is 2·P_t, for MaxStake.
	Step    string `json:"step_return"`
	StepMax string `json:"step_return_max_stake"`
	Tier    int    `json:"tier"`
	Triple  string `json:"triple"` // q_t = P(m_t = 3), for S below MaxStake
}

// OneIn are "1 chance in X" figures, X = 1/p rounded to two decimals (half
// away from zero), as the rules publish them.
type OneIn struct {
	Double string `json:"double"`
	Reach  string `json:"reach"`
	Triple string `json:"triple"`
}

// Return is the expected outcome of the strategy "continue until tier
// StopAt, then stop" (StopAt = 4: play to the end) with stake Stake: the
// probability of reaching the tier and the expected amount won per unit of
// stake, Π P_t·E[m_t] over the tiers played.
type Return struct {
	Reach  string `json:"reach"`
	Return string `json:"return"`
	Stake  int64  `json:"stake"`
	StopAt int    `json:"stop_at"`
}

// NewPaytable computes the paytable from the game's rules (package qod).
func NewPaytable() *Paytable {
	p := &Paytable{
		Game:     Game,
		Grid:     Grid{Losing: qod.Losing, Numbers: qod.Numbers, Tiers: qod.Tiers},
		MaxStake: qod.MaxStake,
		Stakes:   slices.Clone(qod.Stakes),
	}
	for hidden := qod.Numbers; hidden > qod.Numbers-qod.GoodAt[qod.Tiers-1]; hidden-- {
		p.Picks = append(p.Picks, Pick{Hidden: hidden, Losing: qod.LosingChance(hidden).Rat().String()})
	}
	one, two := big.NewRat(1, 1), big.NewRat(2, 1)
	prev := 0
	for t := 1; t <= qod.Tiers; t++ {
		reach, q := qod.Reach(t), qod.Triple[t-1].Rat()
		double := new(big.Rat).Sub(one, q)
		m := new(big.Rat).Add(two, q)
		rd, rt := new(big.Rat).Mul(reach, double), new(big.Rat).Mul(reach, q)
		p.Tiers = append(p.Tiers, Tier{
			Tier:        t,
			Good:        qod.GoodAt[t-1],
			Needed:      qod.GoodAt[t-1] - prev,
			Reach:       reach.String(),
			Triple:      q.String(),
			Double:      double.String(),
			Expected:    m.String(),
			ReachDouble: rd.String(),
			ReachTriple: rt.String(),
			Step:        new(big.Rat).Mul(reach, m).String(),
			StepMax:     new(big.Rat).Mul(reach, two).String(),
			OneIn:       OneIn{Reach: oneIn(reach), Double: oneIn(rd), Triple: oneIn(rt)},
		})
		prev = qod.GoodAt[t-1]
	}
	for _, stake := range qod.Stakes {
		reach, ret := big.NewRat(1, 1), big.NewRat(1, 1)
		for t := 1; t <= qod.Tiers; t++ {
			m := new(big.Rat).Add(two, qod.Triple[t-1].Rat())
			if stake == qod.MaxStake {
				m = two
			}
			reach.Mul(reach, qod.Reach(t))
			ret.Mul(ret, new(big.Rat).Mul(qod.Reach(t), m))
			p.Returns = append(p.Returns, Return{Stake: stake, StopAt: t, Reach: reach.String(), Return: ret.String()})
		}
	}
	return p
}

// oneIn is 1/p to two decimals.
func oneIn(p *big.Rat) string { return new(big.Rat).Inv(p).FloatString(2) }

// NewPaytableStatement is the paytable's statement: subject
// [PaytableSubject], whose digest is the SHA-256 of the predicate's
// canonical encoding.
func NewPaytableStatement() (*Statement, error) {
	p := NewPaytable()
	b, err := canonical(p)
	if err != nil {
		return nil, err
	}
	return &Statement{Subject: []Subject{{Name: PaytableSubject, SHA256: sha256.Sum256(b)}}, Predicate: p}, nil
}

// FigureError is an attested figure that is not the one the rules give.
type FigureError struct {
	Field    string // its path in the predicate: "tiers[2].triple"
	Attested string
	Want     string
}

func (e *FigureError) Error() string {
	return fmt.Sprintf("%s: attested %s, the rules give %s", e.Field, e.Attested, e.Want)
}

// Unwrap returns ErrBad.
func (e *FigureError) Unwrap() error { return ErrBad }

// verifyPaytable recomputes the paytable and compares s's with it, figure
// by figure, then the subject's digest.
func verifyPaytable(s *Statement, p *Paytable) error {
	if err := checkSubject(s, PaytableSubject); err != nil {
		return err
	}
	want, err := NewPaytableStatement()
	if err != nil {
		return err
	}
	got, err := canonical(p)
	if err != nil {
		return err
	}
	exp, err := canonical(want.Predicate)
	if err != nil {
		return err
	}
	if fe := diff(got, exp); fe != nil {
		return fe
	}
	if s.Subject[0].SHA256 != want.Subject[0].SHA256 {
		return &FigureError{Field: "subject[0].digest.sha256", Attested: fmt.Sprintf("%x", s.Subject[0].SHA256), Want: fmt.Sprintf("%x", want.Subject[0].SHA256)}
	}
	return nil
}

// diff returns the first member where the JSON documents got and want
// differ, by its path, or nil when they are equal.
func diff(got, want []byte) *FigureError {
	var g, w any
	for _, x := range []struct {
		b []byte
		v *any
	}{{got, &g}, {want, &w}} {
		dec := json.NewDecoder(bytes.NewReader(x.b))
		dec.UseNumber()
		if err := dec.Decode(x.v); err != nil {
			return &FigureError{Field: "predicate", Attested: err.Error(), Want: "JSON"}
		}
	}
	return diffValue("", g, w)
}

func diffValue(path string, g, w any) *FigureError {
	show := func(v any) string {
		b, _ := json.Marshal(v)
		if s, ok := v.(string); ok {
			return s
		}
		return string(b)
	}
	switch w := w.(type) {
	case map[string]any:
		gm, ok := g.(map[string]any)
		if !ok {
			break
		}
		keys := make([]string, 0, len(w))
		for k := range w {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			p := k
			if path != "" {
				p = path + "." + k
			}
			if fe := diffValue(p, gm[k], w[k]); fe != nil {
				return fe
			}
		}
		return nil
	case []any:
		ga, ok := g.([]any)
		if !ok {
			break
		}
		for i := range min(len(ga), len(w)) {
			if fe := diffValue(path+"["+strconv.Itoa(i)+"]", ga[i], w[i]); fe != nil {
				return fe
			}
		}
		if len(ga) != len(w) {
			return &FigureError{Field: path, Attested: strconv.Itoa(len(ga)) + " entries", Want: strconv.Itoa(len(w))}
		}
		return nil
	default:
		if show(g) == show(w) {
			return nil
		}
	}
	return &FigureError{Field: path, Attested: show(g), Want: show(w)}
}
