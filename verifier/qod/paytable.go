package qod

import (
	"fmt"
	"math/big"
	"strconv"

	"tirage.fr/tirage/verifier/draw"
)

// The grid and the game's constants (spec "Stage 2", rules art. 2.2.6–2.2.8).
const (
	Numbers     = 30        // the grid: numbers 1..30
	Losing      = 3         // losing numbers among them
	Tiers       = 4         // paliers
	MaxStake    = 5_000_000 // S = 50,000 € in cents: every multiplier is 2, no draw
	TicketPrice = 300       // 3 € in cents: the refund of art. 2.2.11
)

// Stakes are the gains S of stage 1's prize table (spec "The game in one
// paragraph"), in cents, highest first: the only stakes stage 2 is played
// with.
var Stakes = []int64{5_000_000, 100_000, 10_000, 5_000, 2_000, 1_000, 500}

// CheckStake refuses a stake that is not a gain of the prize table
// (ErrStake).
func CheckStake(stake int64) error {
	for _, v := range Stakes {
		if stake == v {
			return nil
		}
	}
	return fmt.Errorf("stake %d cents is not a gain of the prize table: %w", stake, ErrStake)
}

// GoodAt[t-1] is G_t, the number of good numbers that reaches tier t.
var GoodAt = [Tiers]int{6, 11, 15, 18}

// Fraction is an exact probability P/Q, drawn as Bernoulli(P, Q) exactly as
// written: Triple's are in lowest terms, LosingChance's 3/n are not reduced
// (3/30 for the first pick: Uniform(30) < 3, not Uniform(10) < 1).
type Fraction struct{ P, Q uint64 }

// Rat returns f as a big.Rat.
func (f Fraction) Rat() *big.Rat {
	return new(big.Rat).SetFrac(new(big.Int).SetUint64(f.P), new(big.Int).SetUint64(f.Q))
}

func (f Fraction) String() string {
	return strconv.FormatUint(f.P, 10) + "/" + strconv.FormatUint(f.Q, 10)
}

// Triple[t-1] is q_t = P(m_t = 3) for S < 50,000 €: the unique values for
// which every step is a fair bet, P_t·(2 + q_t) = 1.
var Triple = [Tiers]Fraction{{3, 506}, {86, 969}, {59, 455}, {3, 44}}

// Reach returns P_t, the probability of reaching tier t (1..4) from tier
// t−1 by picking only good numbers: C(27−G_{t−1}, k_t) / C(30−G_{t−1}, k_t)
// with k_t = G_t − G_{t−1}.
func Reach(t int) *big.Rat {
	if t < 1 || t > Tiers {
		panic(fmt.Sprintf("qod: tier %d out of 1..4", t))
	}
	prev := 0
	if t > 1 {
		prev = GoodAt[t-2]
	}
	k := int64(GoodAt[t-1] - prev)
	good := new(big.Int).Binomial(int64(Numbers-Losing-prev), k)
	all := new(big.Int).Binomial(int64(Numbers-prev), k)
	return new(big.Rat).SetFrac(good, all)
}

// LosingChance is the probability that the pick made with n numbers still
// hidden is losing: 3/n (all three losing numbers are hidden while the game goes on).
func LosingChance(n int) Fraction { return Fraction{Losing, uint64(n)} }

// Draw labels: the stream of β each draw reads (package draw).
const (
	labelPick = "pick"
)

// tierLabel is "tier1".."tier4".
func tierLabel(t int) string { return "tier" + strconv.Itoa(t) }

// Multipliers draws m_1..m_4 from the start's VRF output β: m_t = 3 when
// Bernoulli(q_t) on the stream of β labelled "tier<t>" is true, else 2.
// When stake = MaxStake (50,000 €) they are all 2 and β must be empty (no
// draw is made). Stakes outside 1..MaxStake cents are refused.
func Multipliers(stake int64, beta []byte) ([Tiers]int, error) {
	m := [Tiers]int{2, 2, 2, 2}
	if stake <= 0 || stake > MaxStake {
		return m, fmt.Errorf("stake %d cents outside 1..%d: %w", stake, MaxStake, ErrStake)
	}
	if stake == MaxStake {
		if len(beta) != 0 {
			return m, fmt.Errorf("stake is 50,000 €, multipliers are not drawn: %w", ErrBeta)
		}
		return m, nil
	}
	if len(beta) == 0 {
		return m, fmt.Errorf("multipliers need the start's VRF output: %w", ErrBeta)
	}
	for t := 1; t <= Tiers; t++ {
		v, err := multiplier(draw.NewStream(beta, tierLabel(t)), t)
		if err != nil {
			return m, err
		}
		m[t-1] = v
	}
	return m, nil
}

// multiplier draws m_t from its stream: 3 with probability q_t, else 2.
func multiplier(s *draw.Stream, t int) (int, error) {
	x3, err := s.Bernoulli(Triple[t-1].P, Triple[t-1].Q)
	if x3 {
		return 3, err
	}
	return 2, err
}

// Amounts returns A_1..A_4 in cents: A_0 = S, A_t = A_{t−1}·m_t.
func Amounts(stake int64, m [Tiers]int) [Tiers]int64 {
	var a [Tiers]int64
	prev := stake
	for t := range Tiers {
		prev *= int64(m[t])
		a[t] = prev
	}
	return a
}

// pickLosing decides a pick with n numbers hidden: Bernoulli(3, n).
func pickLosing(s *draw.Stream, n int) (bool, error) {
	f := LosingChance(n)
	return s.Bernoulli(f.P, f.Q)
}
