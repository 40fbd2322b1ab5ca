package rngd

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"

	"golang.org/x/mod/sumdb/tlog"

	"tirage.fr/tirage/hsm"
	qodv1 "tirage.fr/tirage/rngd/api/tirage/qod/v1"
	"tirage.fr/tirage/verifier/receipt"
)

// transcript builds a game's transcript document (verifier/receipt): its
// records, its emission's record and the VRF key its records name with
// that key's first announcement, each with an inclusion proof in one
// checkpoint that covers them all.
func (e *engine) transcript(ctx context.Context, server, id string) ([]byte, error) {
	rs, err := e.receipts(ctx, server, id)
	if err != nil {
		return nil, err
	}
	sg, err := e.loadGame(id, server)
	if err != nil {
		return nil, err
	}
	em, err := e.emission(sg.Game.Emission)
	if err != nil {
		return nil, err
	}
	// The VRF key is the one the game's records name, not the one rngd
	// runs on now (a rotation since the game ended changes that), with
	// its first announcement: auditors know an id by it.
	leaves := make([][]byte, len(rs))
	for i, r := range rs {
		leaves[i] = r.Record
	}
	keyID, err := gameKey(leaves)
	if err != nil {
		return nil, refuseHiding(reasonInternal, err, "game %s: couldn't read its VRF key from its records", id)
	}
	cp, err := e.tlog.Checkpoint(ctx)
	if err != nil {
		return nil, e.refuseLog(err, "couldn't read the log's checkpoint", "")
	}
	if cp.Size <= sg.LastIndex {
		return nil, refuse(reasonCheckpointPending, "no checkpoint covers the game's records yet: retry in a moment")
	}
	lk, err := e.loggedKeysUpTo(ctx, cp.Size, true)
	if errors.Is(err, errStoreFailed) {
		return nil, storeError(err)
	}
	if err != nil {
		return nil, e.refuseLog(err, "couldn't read log entry (a key announcement)", "")
	}
	if keyID == "" && len(rs) > 0 {
		// No draw yet (a start at the maximum stake): the key the next
		// draw will use, if announced before the game started.
		if at := lk.vrfIndex(e.keyID); at >= 0 && uint64(at) < rs[0].LogIndex {
			keyID = e.keyID
		}
	}
	var vrfKeys []receipt.VRFKey
	keysIndex, announced := uint64(0), false
	if f, ok := lk.first[keyUse{hsm.UseVRF, keyID}]; keyID != "" && ok {
		vrfKeys = []receipt.VRFKey{{ID: keyID, Suite: f.suite, PublicKey: hex.EncodeToString(f.pub)}}
		keysIndex, announced = f.index, true
	} else if keyID != "" && lk.pending {
		// Its announcement is beyond the checkpoint (as its records are).
		return nil, refuse(reasonCheckpointPending, "no checkpoint covers the game's key announcement yet: retry in a moment")
	} else if keyID != "" && keyID == e.keyID {
		// Not announced in the log the store knows of: the key alone
		// (the verifier then needs it given or pinned).
		vrfKeys = []receipt.VRFKey{{ID: e.keyID, Suite: string(e.suite), PublicKey: hex.EncodeToString(e.pub)}}
	} else if keyID != "" {
		e.log.Error("transcript: the VRF key the game's records name is not announced in the log", "game", id, "vrf_key", keyID)
	}
	if announced && cp.Size <= keysIndex {
		return nil, refuse(reasonCheckpointPending, "no checkpoint covers the game's key announcement yet: retry in a moment")
	}
	logged := func(idx uint64, leaf []byte) (*receipt.Logged, error) {
		if leaf == nil {
			leaves, err := e.tlog.Entries(ctx, idx, idx+1, cp.Size)
			if err == nil && len(leaves) != 1 {
				err = fmt.Errorf("%d entries returned", len(leaves))
			}
			if err != nil {
				return nil, e.refuseLog(err, fmt.Sprintf("couldn't read log entry %d", idx), "")
			}
			leaf = leaves[0]
		}
		p, err := e.tlog.InclusionProof(ctx, idx, cp.Size)
		if err != nil {
			return nil, e.refuseLog(err, fmt.Sprintf("couldn't prove log entry %d", idx), "")
		}
		return &receipt.Logged{Index: idx, Record: string(leaf), Proof: receipt.ProofHex(tlog.RecordProof(p))}, nil
	}
	t := receipt.Transcript{V: 1, Type: receipt.TypeTranscript, Game: id, Checkpoint: string(cp.Note), LogKeys: e.tlog.VerifierKeys(),
		VRFKeys: vrfKeys}
	for _, r := range rs {
		l, err := logged(r.LogIndex, r.Record)
		if err != nil {
			return nil, err
		}
		t.Records = append(t.Records, *l)
	}
	if t.Emission, err = logged(em.Index, nil); err != nil {
		return nil, err
	}
	if announced {
		if t.Keys, err = logged(keysIndex, nil); err != nil {
			return nil, err
		}
	}
	return receipt.Marshal(t), nil
}

func (s *qodService) GetTranscript(ctx context.Context, req *qodv1.GetTranscriptRequest) (*qodv1.GetTranscriptResponse, error) {
	server, err := callerIdentity(ctx)
	if err != nil {
		return nil, err
	}
	doc, err := s.e.transcript(ctx, server, req.GameId)
	if err != nil {
		return nil, err
	}
	return &qodv1.GetTranscriptResponse{Document: doc}, nil
}
