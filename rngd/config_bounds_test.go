package rngd

import (
	"testing"

	"tirage.fr/tirage/verifier/audit"
)

// The bounds of rngd's settings are those the audit's tolerances assume
// (config.go): a silence counts at most audit.MaxActiveGap, rngd's longest
// game.sweep_interval; a record waits at most two Trillian appends (plus
// two VRF proofs) between its time and its place, within audit.MaxTimeSkew.
func TestConfigBoundsWithinAudit(t *testing.T) {
	if maxSweepInterval > audit.MaxActiveGap {
		t.Errorf("maxSweepInterval %s > audit.MaxActiveGap %s", maxSweepInterval, audit.MaxActiveGap)
	}
	if 2*maxTrillianAppendTimeout >= audit.MaxTimeSkew {
		t.Errorf("2 × maxTrillianAppendTimeout (%s) leaves no room within audit.MaxTimeSkew %s", 2*maxTrillianAppendTimeout, audit.MaxTimeSkew)
	}
}
