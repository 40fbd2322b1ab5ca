package tilelog

import "tirage.fr/tirage/transparency"

// Witnesses. With Config.WitnessPolicy set, tessera sends every checkpoint
// it is about to publish to the policy's witnesses (C2SP tlog-witness,
// POST <witness URL>/add-checkpoint, with a consistency proof from the size
// each witness last cosigned) and publishes it only once their
// cosignatures (C2SP tlog-cosignature, cosignature/v1) satisfy the
// policy's quorum; the cosignature lines are part of the published
// checkpoint, so receipts and /log/checkpoint carry them.
//
// A quorum not met within Config.WitnessTimeout leaves the checkpoint
// unpublished; tessera tries again at the next checkpoint interval. There is
// no fail-open: checkpoints then trail the tree, and past
// Config.CheckpointTimeout the log stalls (ErrCheckpointStalled) and refuses
// appends, as for a checkpoint signer that fails. A policy whose quorum
// tolerates a witness down ("group all-of-them 1 a b") keeps the log running
// while one of them is. Acknowledged leaves are durable in the journal
// whatever the witnesses do.

// Witnesses reports what the log saw of each witness of its policy since
// it opened (none without a policy), for metrics.
func (l *Log) Witnesses() []transparency.WitnessStat {
	if l.witnesses == nil {
		return nil
	}
	return l.witnesses.Snapshot()
}
