package rngd

import (
	"bytes"
	"fmt"
	"time"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"

	qodv1 "tirage.fr/tirage/rngd/api/tirage/qod/v1"
	"tirage.fr/tirage/transparency/checkpoint"
	"tirage.fr/tirage/verifier/qod"
	"tirage.fr/tirage/verifier/receipt"
	"tirage.fr/tirage/verifier/record"
	"tirage.fr/tirage/verifier/vrf"
)

// VerifiedGame is what VerifyReceipts established about one game. Proofs
// counts the VRF proofs checked against their α (given once the game has
// ended).
type VerifiedGame struct {
	Game           qod.Game
	Ended          bool
	Records        int
	Proofs         int    // VRF proofs verified
	Included       int    // records proven included in a signed checkpoint
	CheckpointSize uint64 // size of the newest checkpoint seen
}

// VerifyReceipts checks a game's receipts (GetReceipts) the way an auditor
// does, offline, trusting only the log's verifier key logVKey and the VRF
// public key announced in the log (vrfKey, as a receipt carries it; nil:
// take it from the receipts): every VRF proof against its α and β, the
// replay of the state machine with verifier/qod (outcomes, amounts, hash
// links, H(r)), and the inclusion of every record in a signed checkpoint.
// A receipt's vrf_proof and vrf_output must be its record's, as rngverify
// requires (receipt.DrawFieldsOfRecord).
// A receipt without a checkpoint is reported as not included, not as an
// error.
func VerifyReceipts(receipts []*qodv1.Receipt, logVKey string, vrfKey []byte, loc *time.Location) (VerifiedGame, error) {
	var v VerifiedGame
	if len(receipts) == 0 {
		return v, fmt.Errorf("no receipts")
	}
	noteVerifier, err := checkpoint.ParseVerifierKey(logVKey)
	if err != nil {
		return v, fmt.Errorf("log verifier key: %w", err)
	}
	var pk *vrf.PublicKey
	var suite vrf.Suite
	leaves := make([][]byte, len(receipts))
	for i, r := range receipts {
		leaves[i] = r.Record
		// The proof and β shown are the record's (rngverify's check):
		// the replay below verifies the record's, not the receipt's.
		if err := receipt.DrawFieldsOfRecord(r.Record, r.VrfProof, r.VrfOutput); err != nil {
			return v, fmt.Errorf("receipt %d (log index %d): %w", i, r.LogIndex, err)
		}
		if len(r.VrfProof) > 0 {
			key := vrfKey
			if key == nil {
				key = r.VrfPublicKey
			}
			if pk == nil {
				suite = vrf.Suite(r.VrfSuite)
				if pk, err = vrf.ParsePublicKey(suite, key); err != nil {
					return v, fmt.Errorf("receipt %d: vrf public key: %w", i, err)
				}
			}
			if !bytes.Equal(pk.Bytes(), r.VrfPublicKey) {
				return v, fmt.Errorf("receipt %d: proof made with another key than the announced one", i)
			}
			// α is given once the game has ended (it contains r); before
			// that only the replay below, after the end, can check π.
			if len(r.VrfAlpha) > 0 {
				beta, err := vrf.Verify(pk, r.VrfAlpha, r.VrfProof)
				if err != nil {
					return v, fmt.Errorf("receipt %d: %w", i, err)
				}
				if !bytes.Equal(beta, r.VrfOutput) {
					return v, fmt.Errorf("receipt %d: β differs from the proof's output", i)
				}
				v.Proofs++
			}
		}
		size, err := included(r, noteVerifier)
		if err != nil {
			return v, fmt.Errorf("receipt %d: %w", i, err)
		}
		if size > 0 {
			v.Included++
			v.CheckpointSize = max(v.CheckpointSize, size)
		}
	}
	rep, err := qod.Replay(leaves, qod.ReplayConfig{Location: loc, Verify: func(_ string, alpha, proof []byte) ([]byte, error) {
		if pk == nil {
			return nil, fmt.Errorf("no vrf key")
		}
		return vrf.Verify(pk, alpha, proof)
	}})
	if err != nil {
		return v, err
	}
	v.Game, v.Ended, v.Records = rep.Game, rep.Ended, len(leaves)
	if rep.Ended && rep.ProofsChecked != v.Proofs {
		return v, fmt.Errorf("replay checked %d proofs, the receipts carry %d", rep.ProofsChecked, v.Proofs)
	}
	return v, nil
}

// included checks the receipt's inclusion proof in its checkpoint, signed
// by the log key of verifier: the checkpoint's size once proven, 0 for a
// receipt without a checkpoint.
func included(r *qodv1.Receipt, verifier note.Verifier) (uint64, error) {
	if len(r.Checkpoint) == 0 {
		return 0, nil
	}
	cp, err := checkpoint.Open(r.Checkpoint, verifier)
	if err != nil {
		return 0, fmt.Errorf("checkpoint: %w", err)
	}
	proof := make(tlog.RecordProof, len(r.InclusionProof))
	for j, h := range r.InclusionProof {
		if len(h) != tlog.HashSize {
			return 0, fmt.Errorf("inclusion proof hash %d has %d bytes", j, len(h))
		}
		copy(proof[j][:], h)
	}
	if err := tlog.CheckRecord(proof, int64(cp.Size), cp.Hash, int64(r.LogIndex), tlog.RecordHash(r.Record)); err != nil {
		return 0, fmt.Errorf("log index %d: not included in checkpoint %d: %w", r.LogIndex, cp.Size, err)
	}
	return cp.Size, nil
}

// VerifiedQuit is what VerifyQuitReceipt established about a Quit's
// receipt.
type VerifiedQuit struct {
	Quit *record.TicketQuit
	// CheckpointSize is the size of the signed checkpoint the record is
	// proven included in; 0 when the receipt carries none (by default:
	// log.receipt_wait unset).
	CheckpointSize uint64
}

// VerifyQuitReceipt checks the receipt of a Quit (QuitResponse.receipt),
// offline, trusting only the log's verifier key logVKey: its record is a
// ticket_quit whose leaf hash the receipt shows, with no VRF member
// (QUITTER draws nothing), keeping an S of the prize table; and, when it
// carries a checkpoint, its inclusion in it. That the ticket never started
// a game nor was quit again, only the whole log shows (rngverify audit).
// rngverify receipt checks the same receipt as grpcurl prints it.
func VerifyQuitReceipt(r *qodv1.Receipt, logVKey string) (VerifiedQuit, error) {
	var v VerifiedQuit
	verifier, err := checkpoint.ParseVerifierKey(logVKey)
	if err != nil {
		return v, fmt.Errorf("log verifier key: %w", err)
	}
	rec, err := record.Parse(r.Record)
	if err != nil {
		return v, err
	}
	q, ok := rec.(*record.TicketQuit)
	if !ok {
		return v, fmt.Errorf("a %s record, not a ticket_quit", rec.Kind())
	}
	if h := record.LeafHash(r.Record); !bytes.Equal(h[:], r.LeafHash) {
		return v, fmt.Errorf("leaf_hash is not the record's")
	}
	if len(r.VrfAlpha)+len(r.VrfProof)+len(r.VrfOutput)+len(r.VrfPublicKey) > 0 || r.VrfSuite != "" || r.VrfKeyId != "" || len(r.StartRecord) > 0 {
		return v, fmt.Errorf("a ticket_quit draws nothing and belongs to no game: the receipt shows VRF or start members")
	}
	if err := qod.CheckStake(q.Stake); err != nil {
		return v, fmt.Errorf("ticket_quit: %w", err)
	}
	if v.CheckpointSize, err = included(r, verifier); err != nil {
		return v, err
	}
	v.Quit = q
	return v, nil
}
