package rngd

import (
	"context"
	"encoding/hex"
	"fmt"

	bolt "go.etcd.io/bbolt"
	"golang.org/x/mod/sumdb/tlog"

	"tirage.fr/tirage/hsm"
	qodv1 "tirage.fr/tirage/rngd/api/tirage/qod/v1"
	"tirage.fr/tirage/verifier/receipt"
)

// transcript builds a game's transcript document (verifier/receipt): its
// records, its emission's record and the key announcement, each with an
// inclusion proof in one checkpoint that covers them all.
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
	var keysIndex uint64
	var announced bool
	e.store.view(func(tx *bolt.Tx) error {
		if v := tx.Bucket(bucketMeta).Get([]byte("announced/" + hsm.Fingerprint(e.pub))); len(v) >= 8 {
			keysIndex, announced = beUint64(v), true
		}
		return nil
	})
	cp, err := e.tlog.Checkpoint(ctx)
	if err != nil {
		return nil, logRefusal(err, e.logFailedClosed(), "couldn't read the log's checkpoint", "")
	}
	if cp.Size <= sg.LastIndex {
		return nil, refuse(reasonCheckpointPending, "no checkpoint covers the game's records yet: retry in a moment")
	}
	logged := func(idx uint64, leaf []byte) (*receipt.Logged, error) {
		if leaf == nil {
			leaves, err := e.tlog.Entries(ctx, idx, idx+1, cp.Size)
			if err == nil && len(leaves) != 1 {
				err = fmt.Errorf("%d entries returned", len(leaves))
			}
			if err != nil {
				return nil, logRefusal(err, e.logFailedClosed(), fmt.Sprintf("couldn't read log entry %d", idx), "")
			}
			leaf = leaves[0]
		}
		p, err := e.tlog.InclusionProof(ctx, idx, cp.Size)
		if err != nil {
			return nil, logRefusal(err, e.logFailedClosed(), fmt.Sprintf("couldn't prove log entry %d", idx), "")
		}
		return &receipt.Logged{Index: idx, Record: string(leaf), Proof: receipt.ProofHex(tlog.RecordProof(p))}, nil
	}
	t := receipt.Transcript{V: 1, Type: receipt.TypeTranscript, Game: id, Checkpoint: string(cp.Note), LogKeys: e.tlog.VerifierKeys(),
		VRFKeys: []receipt.VRFKey{{ID: e.keyID, Suite: string(e.suite), PublicKey: hex.EncodeToString(e.pub)}}}
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
