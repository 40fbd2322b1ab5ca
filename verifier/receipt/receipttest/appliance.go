// Package receipttest is a small in-memory appliance for tests: it plays
// Quitte ou Double games with the pure core (vrf, record, qod), seals every
// record in an in-memory RFC 6962 log (x/mod tlog) with checkpoints signed
// by Ed25519 and ML-DSA-44, and hands out receipts, transcripts and the
// log's tiles in the C2SP tlog-tiles layout. It can be told to cheat — a
// forged proof, a swapped outcome, a wrong r, a forked log — so that tests
// can check that verifiers catch each (grep Cheat).
//
// It does no I/O: Tiles returns the files; tests write or serve them.
package receipttest

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/cloudflare/circl/sign/mldsa/mldsa44"
	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"

	"tirage.fr/tirage/verifier/manifest"
	"tirage.fr/tirage/verifier/promo"
	"tirage.fr/tirage/verifier/qod"
	"tirage.fr/tirage/verifier/receipt"
	"tirage.fr/tirage/verifier/record"
	"tirage.fr/tirage/verifier/vrf"
)

// Origin is the test log's name.
const Origin = "tirage.test/log"

// ManifestTickets is the ticket count of emission E1's manifest.
const ManifestTickets = 1000

// Appliance is a deterministic test appliance.
type Appliance struct {
	VRF     *vrf.PrivateKey
	VRFID   string
	LogKeys []string // verifier keys: Ed25519, ML-DSA-44
	// Now is the clock; every event advances it by a minute.
	Now time.Time
	// Location is the legal time zone (nil = UTC).
	Location *time.Location
	// Tickets, when set before the first game, are E1's manifest: its
	// record then holds their root, count and total (package manifest),
	// so that an audit can check the games against the file (play them
	// with Play.Ticket and Play.Stake). Unset, the record holds a made-up
	// root of ManifestTickets tickets.
	Tickets []manifest.Ticket

	rng     *rand.ChaCha8
	signers []note.Signer
	leaves  [][]byte
	hashes  []tlog.Hash
	keysIdx uint64
	emIdx   uint64
	// manifested: E1's manifest is logged.
	manifested bool
	second     *vrf.PrivateKey // a second VRF key, announced by AnnounceVRF
}

// New returns an appliance seeded with seed; it logs its key announcement
// and one emission (E1) first, and E1's manifest before its first game.
func New(seed byte) (*Appliance, error) { return newAppliance(seed, true) }

// NewPromo returns an appliance seeded with seed that logs its key
// announcement only, as the promotion appliance's own log (rngctl promo)
// does: its promotion records (RuledCertificate, dated in 2016 by the
// example rules) then follow no record timed later. It plays no game.
func NewPromo(seed byte) (*Appliance, error) { return newAppliance(seed, false) }

func newAppliance(seed byte, emission bool) (*Appliance, error) {
	var s [32]byte
	s[0] = seed
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		return nil, err
	}
	a := &Appliance{rng: rand.NewChaCha8(s), Now: time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC), Location: paris}
	if a.VRF, err = vrf.GenerateKey(vrf.SuiteP256SSWU, a.rng); err != nil {
		return nil, err
	}
	pub := a.VRF.Public().Bytes()
	a.VRFID = vrfID(pub)
	edPub, edPriv, err := ed25519.GenerateKey(a.rng)
	if err != nil {
		return nil, err
	}
	mlPub, mlPriv, err := mldsa44.GenerateKey(a.rng)
	if err != nil {
		return nil, err
	}
	a.signers = []note.Signer{
		newSigner(Origin, append([]byte{1}, edPub...), func(m []byte) ([]byte, error) { return ed25519.Sign(edPriv, m), nil }),
		newSigner(Origin, append([]byte("\xffml-dsa-44"), mlPub.Bytes()...), func(m []byte) ([]byte, error) {
			sig := make([]byte, mldsa44.SignatureSize)
			err := mldsa44.SignTo(mlPriv, m, nil, false, sig)
			return sig, err
		}),
	}
	for _, s := range a.signers {
		a.LogKeys = append(a.LogKeys, s.(*signer).vkey)
	}
	spki := append([]byte{0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00}, edPub...)
	a.keysIdx = a.Append(must(record.Format(&record.KeyAnnouncement{Time: a.tick(), Keys: []record.Key{
		{ID: a.VRFID, Use: "vrf", Suite: string(vrf.SuiteP256SSWU), PublicKey: pub, Fingerprint: record.Fingerprint(pub)},
		{ID: "log-ed25519", Use: "log", Suite: "Ed25519", PublicKey: spki, Fingerprint: record.Fingerprint(spki)},
	}})))
	if emission {
		deadline, _ := qod.StartDeadline("2026-11-30", a.Location)
		a.emIdx = a.Append(must(record.Format(&record.Emission{Time: a.tick(), Emission: "E1", Closure: "2026-11-30", StartDeadline: deadline})))
	}
	return a, nil
}

// manifest logs emission E1's ticket manifest before its first game: rngd
// logs an emission's manifest before any of its codes can start a game
// (the audit counts the starts against it).
func (a *Appliance) manifest() {
	if a.manifested {
		return
	}
	a.manifested = true
	m := &record.Manifest{Time: a.tick(), Emission: "E1", Root: sha256.Sum256([]byte("receipttest E1 manifest")), Count: ManifestTickets}
	if len(a.Tickets) > 0 {
		tree := manifest.NewTree()
		for _, t := range a.Tickets {
			tree.Add(t)
			m.Total += t.StakeCents
		}
		copy(m.Root[:], tree.Root())
		m.Count = tree.Count()
	}
	a.Append(must(record.Format(m)))
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

func (a *Appliance) tick() time.Time {
	a.Now = a.Now.Add(time.Minute)
	return a.Now
}

// Append seals a leaf and returns its index.
func (a *Appliance) Append(leaf []byte) uint64 {
	n := int64(len(a.leaves))
	h, err := tlog.StoredHashes(n, leaf, hashReader(a.hashes))
	if err != nil {
		panic(err)
	}
	a.leaves = append(a.leaves, bytes.Clone(leaf))
	a.hashes = append(a.hashes, h...)
	return uint64(n)
}

// Size is the number of leaves.
func (a *Appliance) Size() int64 { return int64(len(a.leaves)) }

// Leaf returns leaf i.
func (a *Appliance) Leaf(i uint64) []byte { return a.leaves[i] }

// Root is the tree hash of the first n leaves.
func (a *Appliance) Root(n int64) tlog.Hash {
	h, err := tlog.TreeHash(n, hashReader(a.hashes))
	if err != nil {
		panic(err)
	}
	return h
}

// Checkpoint signs the current tree.
func (a *Appliance) Checkpoint() []byte { return a.CheckpointAt(a.Size()) }

// CheckpointAt signs the tree of the first n leaves.
func (a *Appliance) CheckpointAt(n int64) []byte {
	root := a.Root(n)
	text := fmt.Sprintf("%s\n%d\n%s\n", Origin, n, base64.StdEncoding.EncodeToString(root[:]))
	msg, err := note.Sign(&note.Note{Text: text}, a.signers...)
	if err != nil {
		panic(err)
	}
	return msg
}

// SignText signs text with the log's keys, as a checkpoint is: a test
// gives it texts that are not checkpoints.
func (a *Appliance) SignText(text string) []byte {
	msg, err := note.Sign(&note.Note{Text: text}, a.signers...)
	if err != nil {
		panic(err)
	}
	return msg
}

// Inclusion is the inclusion proof of leaf i in the tree of size n.
func (a *Appliance) Inclusion(i uint64, n int64) []string {
	p, err := tlog.ProveRecord(n, int64(i), hashReader(a.hashes))
	if err != nil {
		panic(err)
	}
	return receipt.ProofHex(p)
}

// Consistency is the consistency proof from size m to n.
func (a *Appliance) Consistency(m, n int64) tlog.TreeProof {
	p, err := tlog.ProveTree(n, m, hashReader(a.hashes))
	if err != nil {
		panic(err)
	}
	return p
}

// Fork returns an independent copy of the appliance holding the first n
// leaves, signing with the same keys: appending different leaves to it gives
// a second history of the log.
func (a *Appliance) Fork(n int64) *Appliance {
	b := *a
	b.leaves = append([][]byte(nil), a.leaves[:n]...)
	b.hashes = append([]tlog.Hash(nil), a.hashes[:tlog.StoredHashCount(n)]...)
	st := *a.rng
	b.rng = &st
	return &b
}

// Cheat makes a game dishonest.
type Cheat struct {
	// ForgeProof flips a bit of the proof of pick k (1-based) as logged.
	ForgeProof int
	// SwapOutcome records pick k (1-based) with the opposite outcome and
	// plays on according to the lie, links and inclusion intact.
	SwapOutcome int
	// WrongSecret reveals an r at the end that is not the committed one.
	WrongSecret bool
	// StartSecret draws the multipliers with an r that is not the
	// committed one (α and proof consistent with it); the end reveals the
	// committed r.
	StartSecret bool
	// Reroll draws pick k (1-based) with fresh secrets r' — not the
	// committed r — until it is losing, and logs it with that α: a re-rolled
	// pick whose α, proof and β agree with one another.
	Reroll int
	// RerollTicket draws pick k (1-based) with the committed r but fresh
	// ticket hashes in α until it is losing.
	RerollTicket int
	// BadPrev logs record k (1-based, after the start) with a prev that is
	// not the leaf hash of the game's previous record: a broken chain in
	// the log itself, the records adjacent.
	BadPrev int
	// OtherKey draws pick k (1-based) under the second VRF key
	// (AnnounceVRF), not the game's: a valid proof, β and outcome under a
	// key the operator chose for that draw (a re-roll after a rotation).
	OtherKey int
}

// Play describes a game to play.
type Play struct {
	Game  string
	Stake int64 // cents; default 1000
	// Numbers are picked in order until the game ends (default 1..30).
	Numbers []int
	// StopAt is the tier to stop at (0: continue to tier 4).
	StopAt int
	// Unfinished leaves the game after that many picks, without an end.
	Unfinished int
	// Ticket, when not zero, is the ticket hash to play (zero: a fresh one).
	Ticket [32]byte
	// Refund ends the game with the ticket's refund once the picks are
	// played (with Unfinished: after that many picks).
	Refund bool
	// RefundReason is the operator's reason sealed in a refund's end.
	RefundReason string
	// SecretLost ends the game as an appliance that lost its secret r
	// does (record.GameEnd.SecretLost): an all-zero secret. Only a refunded
	// (or expired) game may end so.
	SecretLost bool
	Cheat      Cheat
}

// Game is a played game as logged.
type Game struct {
	ID      string
	Ticket  [32]byte
	Indices []uint64
	Alphas  [][]byte // α of each record (nil when it draws nothing)
	Final   qod.Game
}

// PlayGame plays and logs a game.
func (a *Appliance) PlayGame(p Play) (*Game, error) {
	if p.Stake == 0 {
		p.Stake = 1000
	}
	if p.Numbers == nil {
		for n := 1; n <= 30; n++ {
			p.Numbers = append(p.Numbers, n)
		}
	}
	var secret, ticket [32]byte
	a.rng.Read(secret[:])
	a.rng.Read(ticket[:])
	if p.Ticket != ([32]byte{}) {
		ticket = p.Ticket
	}
	out := &Game{ID: p.Game, Ticket: ticket}
	a.manifest()
	log := func(r record.Record, alpha []byte) ([]byte, error) {
		if p.Cheat.BadPrev == len(out.Indices) {
			switch x := r.(type) {
			case *record.Pick:
				x.Prev[0] ^= 1
			case *record.Decision:
				x.Prev[0] ^= 1
			case *record.GameEnd:
				x.Prev[0] ^= 1
			}
		}
		leaf, err := record.Format(r)
		if err != nil {
			return nil, err
		}
		out.Indices = append(out.Indices, a.Append(leaf))
		out.Alphas = append(out.Alphas, alpha)
		return leaf, nil
	}
	now := a.tick()
	start := &record.GameStart{Time: now, Game: p.Game, Emission: "E1", Ticket: ticket, Stake: p.Stake,
		Commit: record.Commit(secret), Expires: qod.PlayDeadline(now, a.Location)}
	var beta []byte
	var alpha []byte
	if p.Stake != qod.MaxStake {
		alpha = start.Alpha(secret)
		if p.Cheat.StartSecret {
			var other [32]byte
			a.rng.Read(other[:])
			alpha = start.Alpha(other)
		}
		proof, err := a.VRF.Prove(alpha)
		if err != nil {
			return nil, err
		}
		beta, _ = vrf.ProofToHash(vrf.SuiteP256SSWU, proof)
		start.Key, start.Proof, start.Beta = a.VRFID, proof, beta
	}
	g, err := qod.NewGame(qod.Start{Game: p.Game, Emission: "E1", Ticket: ticket, Stake: p.Stake, Beta: beta, Now: now, Location: a.Location})
	if err != nil {
		return nil, err
	}
	start.Multipliers, start.Amounts = g.Multipliers, g.Amounts
	prev, err := log(start, alpha)
	if err != nil {
		return nil, err
	}
	for _, number := range p.Numbers {
		if g.Phase.Over() || (p.Unfinished > 0 && g.Picks == p.Unfinished) {
			break
		}
		now := a.tick()
		index := g.Picks
		var alpha, proof, beta []byte
		var next qod.Game
		var losing bool
		for try := 0; ; try++ {
			r, t := secret, ticket
			if try > 0 && p.Cheat.Reroll == index+1 {
				a.rng.Read(r[:])
			}
			if try > 0 && p.Cheat.RerollTicket == index+1 {
				a.rng.Read(t[:])
			}
			alpha = record.PickAlpha(p.Game, "E1", t, r, index, number)
			proof, err = a.signer(p.Cheat.OtherKey == index+1).Prove(alpha)
			if err != nil {
				return nil, err
			}
			beta, _ = vrf.ProofToHash(vrf.SuiteP256SSWU, proof)
			next, losing, err = g.Pick(number, beta, now)
			if err != nil {
				return nil, err
			}
			rerolled := p.Cheat.Reroll == index+1 || p.Cheat.RerollTicket == index+1
			if !rerolled || (try > 0 && losing) {
				break
			}
			if try == 1000 {
				return nil, fmt.Errorf("pick %d: no losing draw in 1000 tries", index+1)
			}
		}
		if p.Cheat.SwapOutcome == index+1 {
			// Play on according to the lie: a good number becomes losing
			// (the game ends lost); a losing one becomes good.
			losing = !losing
			if losing {
				next = g
				next.Phase, next.Picks, next.Last = qod.Lost, g.Picks+1, now
			} else {
				next = g
				next.Order[next.Picks] = number
				next.Picks++
				next.Picked |= 1 << number
				next.Last = now
				if next.Tier < qod.Tiers && next.Picks == qod.GoodAt[next.Tier] {
					next.Tier++
					next.Phase = qod.AtTier
					if next.Tier == qod.Tiers {
						next.Phase, next.Win = qod.Won, next.Amounts[qod.Tiers-1]
					}
				}
			}
		}
		if p.Cheat.ForgeProof == index+1 {
			proof = bytes.Clone(proof)
			proof[40] ^= 1
		}
		outcome := record.OutcomeGood
		if losing {
			outcome = record.OutcomeLosing
		}
		if prev, err = log(&record.Pick{Time: now, Game: p.Game, Index: index, Number: number, Outcome: outcome,
			Key: a.keyID(p.Cheat.OtherKey == index+1), Proof: proof, Beta: beta, Prev: record.LeafHash(prev)}, alpha); err != nil {
			return nil, err
		}
		g = next
		if g.Phase == qod.AtTier {
			now := a.tick()
			choice := record.ChoiceContinue
			if g.Tier == p.StopAt {
				choice = record.ChoiceStop
				g, err = g.Stop(now)
			} else {
				g, err = g.Continue(now)
			}
			if err != nil {
				return nil, err
			}
			if prev, err = log(&record.Decision{Time: now, Game: p.Game, Tier: g.Tier, Choice: choice, Prev: record.LeafHash(prev)}, nil); err != nil {
				return nil, err
			}
		}
	}
	if p.Refund && !g.Phase.Over() {
		if g, err = g.Refund(a.tick()); err != nil {
			return nil, err
		}
	}
	out.Final = g
	if !g.Phase.Over() {
		return out, nil
	}
	if p.Cheat.WrongSecret {
		secret[0] ^= 1
	}
	if p.SecretLost {
		secret = [32]byte{}
	}
	_, err = log(&record.GameEnd{Time: a.tick(), Game: p.Game, Result: g.Result(), Tier: g.Tier, Win: g.Win,
		Refund: g.RefundAmount, Reason: []byte(p.RefundReason), Secret: secret, Prev: record.LeafHash(prev)}, nil)
	return out, err
}

// TranscriptOptions alter a transcript as a cheating appliance would.
type TranscriptOptions struct {
	Drop       int  // drop record k (1-based) from the transcript
	Swap       int  // swap records k and k+1 (1-based)
	NoKeys     bool // leave the key announcement out
	NoVRFID    bool // leave the vrf_keys out
	NoEmission bool // leave the emission record out
}

// Transcript exports a game, proofs against the current checkpoint.
func (a *Appliance) Transcript(g *Game, o TranscriptOptions) []byte {
	n := a.Size()
	t := receipt.Transcript{V: 1, Type: receipt.TypeTranscript, Game: g.ID, Checkpoint: string(a.Checkpoint()), LogKeys: a.LogKeys,
		Emission: &receipt.Logged{Index: a.emIdx, Record: string(a.leaves[a.emIdx]), Proof: a.Inclusion(a.emIdx, n)}}
	if o.NoEmission {
		t.Emission = nil
	}
	if !o.NoKeys {
		t.Keys = &receipt.Logged{Index: a.keysIdx, Record: string(a.leaves[a.keysIdx]), Proof: a.Inclusion(a.keysIdx, n)}
	}
	if !o.NoVRFID {
		t.VRFKeys = a.vrfKeys()
	}
	for _, i := range g.Indices {
		t.Records = append(t.Records, receipt.Logged{Index: i, Record: string(a.leaves[i]), Proof: a.Inclusion(i, n)})
	}
	if o.Drop > 0 {
		t.Records = append(t.Records[:o.Drop-1], t.Records[o.Drop:]...)
	}
	if o.Swap > 0 {
		t.Records[o.Swap-1], t.Records[o.Swap] = t.Records[o.Swap], t.Records[o.Swap-1]
	}
	return receipt.Marshal(&t)
}

func (a *Appliance) vrfKey() receipt.VRFKey { return receiptKey(a.VRF) }

// Receipt exports record k (0-based) of a game; withAlpha includes α. A
// receipt of a record after the start carries the game's start record.
func (a *Appliance) Receipt(g *Game, k int, withAlpha bool) []byte {
	return a.ReceiptWith(g, k, ReceiptOptions{Alpha: withAlpha})
}

// ReceiptOptions say what a receipt holds.
type ReceiptOptions struct {
	Alpha   bool // include α
	NoStart bool // leave the game's start record out
}

// ReceiptWith exports record k (0-based) of a game, proofs against the
// current checkpoint.
func (a *Appliance) ReceiptWith(g *Game, k int, o ReceiptOptions) []byte {
	i := g.Indices[k]
	n := a.Size()
	rc := receipt.Receipt{V: 1, Type: receipt.TypeReceipt, Index: i, Record: string(a.leaves[i]), Proof: a.Inclusion(i, n),
		Checkpoint: string(a.Checkpoint()), LogKeys: a.LogKeys}
	if g.Alphas[k] != nil {
		k := a.vrfKeyOf(a.leaves[i])
		rc.VRFKey = &k
	}
	if o.Alpha && g.Alphas[k] != nil {
		rc.Alpha = fmt.Sprintf("%x", g.Alphas[k])
	}
	if s := g.Indices[0]; k > 0 && !o.NoStart {
		rc.Start = &receipt.Logged{Index: s, Record: string(a.leaves[s]), Proof: a.Inclusion(s, n)}
	}
	return receipt.Marshal(&rc)
}

// ForgeStart logs a game start that draws nothing — no key, proof or β —
// at any stake, with multipliers m and their amounts: a cheating appliance
// skipping the draw, which only S = 50,000 € may.
func (a *Appliance) ForgeStart(game string, stake int64, m [qod.Tiers]int) (*Game, error) {
	var secret, ticket [32]byte
	a.rng.Read(secret[:])
	a.rng.Read(ticket[:])
	a.manifest()
	now := a.tick()
	leaf, err := record.Format(&record.GameStart{Time: now, Game: game, Emission: "E1", Ticket: ticket, Stake: stake,
		Multipliers: m, Amounts: qod.Amounts(stake, m), Commit: record.Commit(secret), Expires: qod.PlayDeadline(now, a.Location)})
	if err != nil {
		return nil, err
	}
	return &Game{ID: game, Ticket: ticket, Indices: []uint64{a.Append(leaf)}, Alphas: [][]byte{nil}}, nil
}

// Quit logs a ticket_quit, a game server's QUITTER as rngd seals it: the
// player renounces stage 2 for ticket (zero: a fresh one) and keeps its
// gain S (stake; 0: 1000). It returns the ticket and the record's index.
// Nothing stops it from quitting a ticket started or quit before: a
// cheating appliance's log.
func (a *Appliance) Quit(ticket [32]byte, stake int64) ([32]byte, uint64) {
	if ticket == ([32]byte{}) {
		a.rng.Read(ticket[:])
	}
	if stake == 0 {
		stake = 1000
	}
	a.manifest()
	id := fmt.Sprintf("quit-%d", a.Size())
	leaf := must(record.Format(&record.TicketQuit{Time: a.tick(), Emission: "E1", Ticket: ticket, Stake: stake, Server: "gs-test",
		Req: record.RequestID("gs-test", id), ReqDigest: sha256.Sum256([]byte(id))}))
	return ticket, a.Append(leaf)
}

// RecordReceipt exports the receipt of log record i, one that draws
// nothing (a ticket_quit, an emission…), proofs against the current
// checkpoint.
func (a *Appliance) RecordReceipt(i uint64) []byte {
	n := a.Size()
	return receipt.Marshal(&receipt.Receipt{V: 1, Type: receipt.TypeReceipt, Index: i, Record: string(a.leaves[i]), Proof: a.Inclusion(i, n),
		Checkpoint: string(a.Checkpoint()), LogKeys: a.LogKeys})
}

// VRFPin is the VRF key's suite pin, "SUITE:FP" (receipt.ParsePin): it
// trusts the key's bytes and its suite, as a verifier given the key does.
func (a *Appliance) VRFPin() string { return receipt.VRFPin(a.VRF.Public()) }

// VRFFingerprint is the VRF key's bare fingerprint (its bytes only: pinned
// alone, it does not fix the key's suite).
func (a *Appliance) VRFFingerprint() string {
	return record.Hex(record.Fingerprint(a.VRF.Public().Bytes()))
}

// LogKeyFile is the text of a log key file (as served at /log/vkey).
func (a *Appliance) LogKeyFile() []byte { return []byte(strings.Join(a.LogKeys, "\n") + "\n") }

// Tiles returns the log in the C2SP tlog-tiles layout (paths relative to
// the log's URL prefix): checkpoint, tile/<L>/<N>[.p/<W>] hash tiles and
// tile/entries/<N>[.p/<W>] entry bundles (entries as u16be length || data).
func (a *Appliance) Tiles() map[string][]byte {
	n := a.Size()
	files := map[string][]byte{"checkpoint": a.Checkpoint()}
	for _, t := range tlog.NewTiles(8, 0, n) {
		data, err := tlog.ReadTileData(t, hashReader(a.hashes))
		if err != nil {
			panic(err)
		}
		files[TilePath(t)] = data
	}
	for start := int64(0); start < n; start += 256 {
		end := min(start+256, n)
		var b []byte
		for _, leaf := range a.leaves[start:end] {
			b = binary.BigEndian.AppendUint16(b, uint16(len(leaf)))
			b = append(b, leaf...)
		}
		t := tlog.Tile{H: 8, L: -1, N: start / 256, W: int(end - start)}
		files[TilePath(t)] = b
	}
	return files
}

// TilePath is the C2SP tlog-tiles path of an x/mod tile (height 8; level −1
// is the entry bundle).
func TilePath(t tlog.Tile) string {
	p := t.Path() // tile/8/<L or data>/<N>[.p/<W>]
	p = strings.TrimPrefix(p, "tile/8/")
	if strings.HasPrefix(p, "data/") {
		return "tile/entries/" + strings.TrimPrefix(p, "data/")
	}
	return "tile/" + p
}

type hashReader []tlog.Hash

func (h hashReader) ReadHashes(idx []int64) ([]tlog.Hash, error) {
	out := make([]tlog.Hash, len(idx))
	for i, x := range idx {
		if x >= int64(len(h)) {
			return nil, fmt.Errorf("hash %d not stored", x)
		}
		out[i] = h[x]
	}
	return out, nil
}

type signer struct {
	name string
	id   uint32
	vkey string
	sign func([]byte) ([]byte, error)
}

func newSigner(name string, typeAndKey []byte, sign func([]byte) ([]byte, error)) *signer {
	h := sha256.New()
	io.WriteString(h, name+"\n")
	h.Write(typeAndKey)
	id := binary.BigEndian.Uint32(h.Sum(nil))
	return &signer{name: name, id: id, sign: sign,
		vkey: fmt.Sprintf("%s+%08x+%s", name, id, base64.StdEncoding.EncodeToString(typeAndKey))}
}

func (s *signer) Name() string                    { return s.name }
func (s *signer) KeyHash() uint32                 { return s.id }
func (s *signer) Sign(msg []byte) ([]byte, error) { return s.sign(msg) }

// PromoDraw logs a promotion freeze over n synthetic entrants and its draw
// (promo's own ceremony). With swapWinner, the logged ranking puts the first
// reserve first: a steered draw.
func (a *Appliance) PromoDraw(id string, n int, swapWinner bool) error {
	_, err := a.PromoDrawWith(id, n, PromoCheat{SwapWinner: swapWinner})
	return err
}

// PromoCheat makes a promotion draw dishonest.
type PromoCheat struct {
	// SwapWinner puts the first reserve first in the logged ranking.
	SwapWinner bool
	// Redraw draws with a fresh r, not the one committed to at the freeze
	// (the draw record still links to the freeze; its r opens its own H(r)).
	Redraw bool
	// FreeTextBeacon, when set, is announced by the freeze as an older
	// rngd did (a free text, not a drand round), and the draw binds the
	// value "value" to it (its proof is then not checked against it).
	FreeTextBeacon string
	// OtherKey draws under the second VRF key (AnnounceVRF), not the one
	// the freeze names: a valid proof, β and ranking under that key, the
	// winner chosen by choosing the key.
	OtherKey bool
	// Legacy logs the freeze without its key, as rngd did before freezes
	// named the key that would draw them (not dishonest by itself).
	Legacy bool
	// OtherShare logs the freeze holding the bailiff's commitment to
	// another share than the one the draw binds: a share tried once the
	// beacon round was known, properly proven.
	OtherShare bool
}

// Promo is a logged promotion draw: its freeze's and draw's log indices,
// and the frozen entrant tree (a certificate's picks are proven in it).
type Promo struct {
	Freeze, Draw uint64
	Tree         *promo.EntrantTree
}

// PromoReceipt exports the receipt of a promotion draw, with its freeze
// record when withFreeze. Its VRF key is the one the draw record names.
func (a *Appliance) PromoReceipt(p *Promo, withFreeze bool) []byte {
	n := a.Size()
	k := a.vrfKey()
	if r, err := record.Parse(a.leaves[p.Draw]); err == nil && a.second != nil && r.(*record.PromoDraw).Key == a.keyID(true) {
		k = receiptKey(a.second)
	}
	rc := receipt.Receipt{V: 1, Type: receipt.TypeReceipt, Index: p.Draw, Record: string(a.leaves[p.Draw]), Proof: a.Inclusion(p.Draw, n),
		Checkpoint: string(a.Checkpoint()), LogKeys: a.LogKeys, VRFKey: &k}
	if withFreeze {
		rc.Freeze = &receipt.Logged{Index: p.Freeze, Record: string(a.leaves[p.Freeze]), Proof: a.Inclusion(p.Freeze, n)}
	}
	return receipt.Marshal(&rc)
}

// PromoDrawWith is PromoDraw, cheating as told; it returns the indices.
func (a *Appliance) PromoDrawWith(id string, n int, cheat PromoCheat) (*Promo, error) {
	l := &promo.EntrantList{Draw: "bonus/" + id}
	a.rng.Read(l.Key[:])
	for i := range n {
		l.Accounts = append(l.Accounts, fmt.Sprintf("A%06d", i))
	}
	tree, err := l.Tree()
	if err != nil {
		return nil, err
	}
	var r [32]byte
	a.rng.Read(r[:])
	f, err := promo.NewFreeze(promo.FreezeInput{Operation: "bonus", RulesHash: promo.RulesHash([]byte("rules of the test operation\n")), Draw: l.Draw, Tree: tree, Reserves: 2, KeyID: a.VRFID, R: r, Now: a.tick()})
	if err != nil {
		return nil, err
	}
	share, err := promo.ShareFromText("bailiff " + id)
	if err != nil {
		return nil, err
	}
	logged := f
	if cheat.FreeTextBeacon != "" || cheat.Legacy || cheat.OtherShare {
		c := *f
		if cheat.FreeTextBeacon != "" {
			c.Beacon = cheat.FreeTextBeacon
		}
		if cheat.Legacy {
			c.Key = ""
		}
		if cheat.OtherShare {
			c.ShareCommitment = promo.ShareCommitment(l.Draw, share+" (committed)")
		}
		logged = &c
	}
	out := &Promo{Freeze: a.Append(must(record.Format(logged))), Tree: tree}
	c := promo.Ceremony{Freeze: f, Tree: tree, R: r, Share: share, KeyID: a.keyID(cheat.OtherKey), Prover: prover{a.signer(cheat.OtherKey)}, Now: a.tick()}
	if cheat.Redraw {
		shadow := *f
		a.rng.Read(c.R[:])
		shadow.Commit = record.Commit(c.R)
		c.Freeze = &shadow
	}
	if cheat.OtherKey {
		// The ceremony refuses another key than the freeze's.
		shadow := *c.Freeze
		shadow.Key = c.KeyID
		c.Freeze = &shadow
	}
	d, err := c.Run()
	if err != nil {
		return nil, err
	}
	d.Prev = record.LeafHash(a.leaves[out.Freeze])
	if cheat.FreeTextBeacon != "" {
		d.Beacon, d.BeaconValue = cheat.FreeTextBeacon, []byte("value")
	}
	if cheat.SwapWinner && len(d.Ranking) > 1 {
		d.Ranking[0], d.Ranking[1] = d.Ranking[1], d.Ranking[0]
	}
	out.Draw = a.Append(must(record.Format(d)))
	return out, nil
}

type prover struct{ sk *vrf.PrivateKey }

func (p prover) PublicKey() *vrf.PublicKey                          { return p.sk.Public() }
func (p prover) Prove(alpha []byte) (proof, beta []byte, err error) { return p.sk.ProveHash(alpha) }
