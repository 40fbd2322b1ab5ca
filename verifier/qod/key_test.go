package qod_test

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"tirage.fr/tirage/verifier/qod"
	"tirage.fr/tirage/verifier/vrf"
)

// twoKeys verifies proofs under "vrf-1" and "vrf-2", both announced (after
// a rotation): each proof is valid under the key it names.
func twoKeys(k1, k2 *vrf.PublicKey) qod.VerifyFunc {
	return func(key string, alpha, proof []byte) ([]byte, error) {
		switch key {
		case "vrf-1":
			return vrf.Verify(k1, alpha, proof)
		case "vrf-2":
			return vrf.Verify(k2, alpha, proof)
		}
		return nil, fmt.Errorf("key %q not announced", key)
	}
}

func secondKey(t testing.TB) *vrf.PrivateKey {
	raw := sha256.Sum256([]byte("qod replay second key"))
	sk, err := vrf.NewPrivateKey(vrf.SuiteP256SSWU, raw[:])
	if err != nil {
		t.Fatal(err)
	}
	return sk
}

// playReroll plays a game as an operator holding two announced keys would
// to re-roll: each pick is proved under both keys and logged under the one
// that loses, if either does (always continuing at a tier). ended: the
// game's end is logged. It reports whether a pick was logged under vrf-2.
func playReroll(t *testing.T, k1, k2 *vrf.PrivateKey, id string, stake int64, ended bool) (*transcript, bool) {
	tr := startGame(t, k1, id, stake)
	switched := false
	for !tr.g.Phase.Over() {
		if tr.g.Phase == qod.AtTier {
			tr.decide(false)
			continue
		}
		// Try vrf-1 on a copy: keep it unless it is good and vrf-2 loses.
		try := *tr
		try.leaves, try.recs = append([][]byte(nil), tr.leaves...), append(try.recs[:0:0], tr.recs...)
		try.pickUnder("vrf-1", k1)
		if try.g.Phase == qod.Lost {
			*tr = try
			continue
		}
		other := *tr
		other.leaves, other.recs = append([][]byte(nil), tr.leaves...), append(other.recs[:0:0], tr.recs...)
		other.pickUnder("vrf-2", k2)
		if other.g.Phase == qod.Lost {
			*tr, switched = other, true
			continue
		}
		*tr = try
	}
	if ended {
		tr.end()
	}
	return tr, switched
}

// TestReplayOneKeyPerGame: every VRF proof of one game is under one key.
// With two keys announced, each proof valid under the key it names, an
// operator choosing the key pick by pick chooses the outcome: the replay
// refuses the game, ended (proofs checked) or in play (r not revealed).
func TestReplayOneKeyPerGame(t *testing.T) {
	k1, k2 := testKey(t), secondKey(t)
	verify := twoKeys(k1.Public(), k2.Public())
	var cheat *transcript
	for i := range 200 {
		tr, switched := playReroll(t, k1, k2, fmt.Sprintf("reroll-%d", i), 2000, true)
		if switched {
			cheat = tr
			break
		}
	}
	if cheat == nil {
		t.Fatal("no game where the second key re-rolled a pick")
	}
	inPlay := cheat.leaves[:len(cheat.leaves)-1]
	for _, c := range []struct {
		name   string
		leaves [][]byte
		cfg    qod.ReplayConfig
	}{
		{"ended, proofs checked", cheat.leaves, qod.ReplayConfig{Verify: verify, StartDeadline: t0.Add(time.Hour), Location: paris}},
		{"without its end, proofs unchecked", inPlay, qod.ReplayConfig{Location: paris}},
	} {
		_, err := qod.Replay(c.leaves, c.cfg)
		if !errors.Is(err, qod.ErrTranscript) || !strings.Contains(err.Error(), `drawn under VRF key "vrf-2", but the game's draws are under key "vrf-1"`) {
			t.Errorf("%s: %v, want ErrTranscript naming the two keys", c.name, err)
		}
		t.Logf("%s: %v", c.name, err)
	}

	// S = 50,000 €: the start draws nothing, the first pick fixes the key.
	for i := 0; ; i++ {
		if i == 200 {
			t.Fatal("no S = 50,000 € game still playing after its first pick in 200")
		}
		big := startGame(t, k1, fmt.Sprintf("max-two-keys-%d", i), qod.MaxStake)
		big.pickUnder("vrf-2", k2)
		if big.g.Phase != qod.Playing {
			continue
		}
		big.pickUnder("vrf-1", k1)
		_, err := qod.Replay(big.leaves, qod.ReplayConfig{Location: paris})
		if !errors.Is(err, qod.ErrTranscript) || !strings.Contains(err.Error(), `record 2 (pick): drawn under VRF key "vrf-1", but the game's draws are under key "vrf-2"`) {
			t.Errorf("S = 50,000 €, picks under vrf-2 then vrf-1: %v", err)
		}
		break
	}

	// Honest after a rotation: a game on the new key throughout replays,
	// S = 50,000 € (the first pick's key) as any other.
	for _, stake := range []int64{qod.MaxStake, 2000} {
		tr := startGameUnder(t, "vrf-2", k2, fmt.Sprintf("new-key-%d", stake), stake)
		for !tr.g.Phase.Over() {
			if tr.g.Phase == qod.AtTier {
				tr.decide(false)
				continue
			}
			tr.pickUnder("vrf-2", k2)
		}
		tr.end()
		rep, err := qod.Replay(tr.leaves, qod.ReplayConfig{Verify: verify, StartDeadline: t0.Add(time.Hour), Location: paris})
		proofs := tr.g.Picks + 1
		if stake == qod.MaxStake {
			proofs-- // the start draws nothing
		}
		if err != nil || rep.ProofsChecked != proofs {
			t.Errorf("stake %d on the new key alone: %+v, %v", stake, rep, err)
		}
	}
}
