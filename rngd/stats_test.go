package rngd

import (
	"context"
	"fmt"
	"math"
	"math/big"
	"os"
	"runtime"
	"strconv"
	"sync"
	"testing"

	qodv1 "tirage.fr/tirage/rngd/api/tirage/qod/v1"
	"tirage.fr/tirage/rngd/loadtest"
	"tirage.fr/tirage/verifier/qod"
	"tirage.fr/tirage/verifier/record"
)

// The statistical tests play Quitte ou Double games that always continue,
// through the real draw path — the DRBG seeded from /dev/hwrng for each
// game's secret r and id, α from verifier/record, RFC 9381 proofs from the
// software keystore's VRF key, β from the proof, outcomes and transitions
// from verifier/qod — and compare the observed frequencies with the exact
// rationals of the spec (shared/spec/quitte-ou-double.md), written here
// independently of verifier/qod:
//
//   - the losing frequency of the pick made with n hidden numbers: 3/n;
//   - the ×3 frequency at each tier: q = 3/506, 86/969, 59/455, 3/44;
//   - the frequency of reaching tier t from tier t−1:
//     P = 506/1015, 969/2024, 455/969, 44/91.
//
// Each count is checked against two-sided Chernoff bounds (rigorous for a
// binomial count, no normal approximation): for mean μ and L = ln(2m/α),
// P(X ≤ (1−δ)μ) ≤ exp(−δ²μ/2) and P(X ≥ (1+δ)μ) ≤ exp(−δ²μ/(2+δ)), with δ
// chosen so that each side is ≤ α/(2m). With m checks in all, a correct
// implementation fails the test with probability at most α = 1e-6. Given
// the number of trials of a step (the games that reached it), its count is
// exactly binomial, so conditioning on it keeps the bound.
const falseFailureRate = 1e-6

var (
	specQ     = [4]*big.Rat{big.NewRat(3, 506), big.NewRat(86, 969), big.NewRat(59, 455), big.NewRat(3, 44)}
	specReach = [4]*big.Rat{big.NewRat(506, 1015), big.NewRat(969, 2024), big.NewRat(455, 969), big.NewRat(44, 91)}
)

// tally counts what the games drew.
type tally struct {
	mu       sync.Mutex
	games    uint64
	drawn    uint64    // starts that drew multipliers (S < 50,000 €)
	x3       [4]uint64 // m_t = 3 among drawn
	picks    [30]uint64
	losing   [30]uint64
	reach    [5]uint64 // reach[t]: games that reached tier t (reach[0] = games)
	vrfCalls uint64
}

func (t *tally) game(g qod.Game, drew bool, picks []bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.games++
	if drew {
		t.drawn++
		t.vrfCalls++
		for i, m := range g.Multipliers {
			if m == 3 {
				t.x3[i]++
			}
		}
	}
	for i, losing := range picks {
		t.picks[i]++
		t.vrfCalls++
		if losing {
			t.losing[i]++
		}
	}
	for tier := 0; tier <= g.Tier; tier++ {
		t.reach[tier]++
	}
}

// check compares every count with its exact probability.
func (t *tally) check(tb testing.TB) {
	type test struct {
		name string
		k, n uint64
		p    *big.Rat
	}
	var tests []test
	for i := 0; i < qod.GoodAt[3]; i++ {
		tests = append(tests, test{fmt.Sprintf("losing at pick %d (n=%d)", i+1, 30-i), t.losing[i], t.picks[i], big.NewRat(3, int64(30-i))})
	}
	for i := range 4 {
		tests = append(tests, test{fmt.Sprintf("x3 at tier %d", i+1), t.x3[i], t.drawn, specQ[i]})
		tests = append(tests, test{fmt.Sprintf("reach tier %d from %d", i+1, i), t.reach[i+1], t.reach[i], specReach[i]})
	}
	alpha := falseFailureRate / float64(len(tests))
	for _, c := range tests {
		lo, hi := chernoff(c.n, c.p, alpha)
		p, _ := c.p.Float64()
		tb.Logf("%-26s %8d / %-9d = %.5f  want %-9s = %.5f  accept [%.0f, %.0f]", c.name, c.k, c.n, float64(c.k)/math.Max(1, float64(c.n)), c.p.RatString(), p, lo, hi)
		if float64(c.k) < lo || float64(c.k) > hi {
			tb.Errorf("%s: %d of %d, outside [%.1f, %.1f] (p = %s, false-failure rate %.1e per check)", c.name, c.k, c.n, lo, hi, c.p.RatString(), alpha)
		}
	}
	// The product of the steps: reaching tier 4 by always continuing is 11/203.
	if r := new(big.Rat).Mul(new(big.Rat).Mul(specReach[0], specReach[1]), new(big.Rat).Mul(specReach[2], specReach[3])); r.Cmp(big.NewRat(11, 203)) != 0 {
		tb.Errorf("spec rationals: tier 4 reach %s, want 11/203", r.RatString())
	}
	for i := range 4 {
		if qod.Reach(i+1).Cmp(specReach[i]) != 0 || big.NewRat(int64(qod.Triple[i].P), int64(qod.Triple[i].Q)).Cmp(specQ[i]) != 0 {
			tb.Errorf("verifier/qod's tier %d rationals differ from the spec", i+1)
		}
	}
	tb.Logf("%d games, %d VRF proofs, false-failure rate %.0e over %d checks", t.games, t.vrfCalls, falseFailureRate, len(tests))
}

// chernoff returns the acceptance interval of a Binomial(n, p) count at a
// two-sided false-failure rate alpha.
func chernoff(n uint64, p *big.Rat, alpha float64) (lo, hi float64) {
	pf, _ := p.Float64()
	mu := float64(n) * pf
	if mu == 0 {
		return 0, 0
	}
	l := math.Log(2 / alpha)
	dl := math.Sqrt(2 * l / mu)
	du := (l + math.Sqrt(l*l+8*l*mu)) / (2 * mu)
	return max(0, (1-dl)*mu), (1 + du) * mu
}

// playDirect plays n always-continue games through the engine's draw
// functions (drawStart, drawPick: DRBG, α, VRF proof, β, verifier/qod), on
// all cores, without the network, the log or the store.
func playDirect(tb testing.TB, e *engine, n int, t *tally) {
	var wg sync.WaitGroup
	work := make(chan int)
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// A game that fails goes on to the next (continue games): a
			// worker that returned would leave the sender blocked once
			// every worker had, and the test would hang instead of failing.
		games:
			for i := range work {
				var ticket [32]byte
				copy(ticket[:], strconv.Itoa(i))
				now := e.now()
				stake := Stakes[1+i%(len(Stakes)-1)] // every stake below 50,000 €: multipliers are drawn
				d, err := e.drawStart("stats", emissionTicket{ticket: ticket, emission: "STATS", stake: stake}, now, now.AddDate(0, 0, 1), nil)
				if err != nil {
					tb.Error(err)
					continue games
				}
				sg := &storedGame{Game: d.game, Secret: d.secret, HasSecret: true}
				var picks []bool
				for !sg.Game.Phase.Over() {
					if sg.Game.Phase == qod.AtTier {
						if sg.Game, err = sg.Game.Continue(now); err != nil {
							tb.Error(err)
							continue games
						}
						continue
					}
					g, losing, _, _, _, err := e.drawPick(sg, sg.Game.Picks+1, now)
					if err != nil {
						tb.Error(err)
						continue games
					}
					picks = append(picks, losing)
					sg.Game = g
				}
				t.game(sg.Game, true, picks)
			}
		}()
	}
	for i := range n {
		work <- i
	}
	close(work)
	wg.Wait()
}

// TestQoDStatistics is the default-run version: games played as a game
// server plays them, each call through the engine with its durable log
// appends and store commits (the network alone is bypassed), then a
// direct run. Its counts are small, so its acceptance intervals are wide;
// TestQoDStatisticsLong is the real check.
func TestQoDStatistics(t *testing.T) {
	td := newTestDaemon(t)
	e := td.d.engine
	const full = 100
	codes := td.emission("STATS", "2026-12-31", full)
	var tl tally
	ctx := context.Background()
	var wg sync.WaitGroup
	work := make(chan string)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
		games: // as in playDirect: a failed game does not end the worker
			for code := range work {
				r, err := e.startGame(ctx, "stats", &qodv1.StartGameRequest{RequestId: "s-" + code, Code: code})
				if err != nil {
					t.Error(err)
					continue games
				}
				g := r.Game
				var picks []bool
				for n := 0; g.Status == qodv1.Status_STATUS_PLAYING || g.Status == qodv1.Status_STATUS_AT_TIER; n++ {
					rid := fmt.Sprintf("%s-%d", g.GameId, n)
					if g.Status == qodv1.Status_STATUS_AT_TIER {
						r, err = e.decide(ctx, "stats", &qodv1.DecideRequest{RequestId: rid, GameId: g.GameId, Decision: qodv1.Decision_DECISION_CONTINUE})
					} else {
						r, err = e.pick(ctx, "stats", &qodv1.PickRequest{RequestId: rid, GameId: g.GameId, Number: loadtest.NextNumber(g)})
						if err == nil {
							picks = append(picks, r.Pick.Losing)
						}
					}
					if err != nil {
						t.Error(err)
						continue games
					}
					g = r.Game
				}
				sg, err := e.loadGame(g.GameId, "stats")
				if err != nil || !sg.Ended {
					t.Errorf("game %s not ended: %v", g.GameId, err)
					continue games
				}
				// Not t.Fatal: this is not the test's goroutine.
				rs, err := e.receipts(ctx, "stats", g.GameId)
				if err != nil || len(rs) == 0 {
					t.Errorf("receipts of %s: %v", g.GameId, err)
					continue games
				}
				start, err := record.Parse(rs[0].Record)
				gs, ok := start.(*record.GameStart)
				if err != nil || !ok {
					t.Errorf("start receipt of %s: %T, %v; want a game start", g.GameId, start, err)
					continue games
				}
				tl.game(sg.Game, gs.Beta != nil, picks)
			}
		}()
	}
	for _, c := range codes {
		work <- c
	}
	close(work)
	wg.Wait()
	playDirect(t, e, 700, &tl)
	tl.check(t)
}

// TestQoDStatisticsLong plays 200,000 games (TIRAGE_QOD_GAMES overrides)
// through the draw functions on all cores. About 8.6 VRF proofs per game:
// ≈ 1.7 million proofs, a few minutes on 2 cores at 0.17 ms per proof.
func TestQoDStatisticsLong(t *testing.T) {
	if os.Getenv("TIRAGE_LONG_TESTS") != "1" {
		t.Skip("long statistical test: set TIRAGE_LONG_TESTS=1 (make test-long)")
	}
	n := 200_000
	if v := os.Getenv("TIRAGE_QOD_GAMES"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil {
			t.Fatal(err)
		}
	}
	td := newTestDaemon(t)
	var tl tally
	playDirect(t, td.d.engine, n, &tl)
	tl.check(t)
}
