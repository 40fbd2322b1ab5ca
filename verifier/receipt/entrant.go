package receipt

import (
	"encoding/hex"
	"encoding/json"

	"tirage.fr/tirage/verifier/promo"
	"tirage.fr/tirage/verifier/verdict"
)

// DocEntrantProof: a player's entrant proof (promo.EntrantProof).
const DocEntrantProof = "entrant-proof"

// entrantChecks are promo.VerifyEntrantProof's checks in the order it runs
// them: the freeze receipt's (freezeChecks), then the entrant's own.
var entrantChecks = append(append([]string(nil), freezeChecks...), promo.CheckEntrantScheme, promo.CheckEntrantInclusion)

// VerifyEntrant verifies a player's entrant proof
// (promo.VerifyEntrantProof) as a verdict naming each of its checks, as
// rngverify entrant shows it. The log keys must be anchored, as for a
// freeze receipt: without an anchor the log-key check fails, and the
// other checks run with the proof's own keys so that the user still sees
// them. A proof is a file anyone can edit: every failure is of the
// ordinary class (NOT VERIFIED). The account's pseudonym, index and leaf
// are facts only under a trusted log key.
func VerifyEntrant(file []byte, a Anchors) *verdict.Verdict {
	v := verdict.New(DocEntrantProof, verdict.MsgSubjectEntrantProof)
	var probe struct {
		Draw          string          `json:"draw"`
		Account       string          `json:"account"`
		FreezeReceipt json.RawMessage `json:"freeze_receipt"`
	}
	json.Unmarshal(file, &probe)
	if probe.Draw != "" && probe.Account != "" {
		v.SetSubject(verdict.MsgSubjectEntrant, probe.Account, probe.Draw)
	}
	_, docKeys := freezeProbe(probe.FreezeReceipt)
	logKeys := a.TrustedLogKeyTexts(docKeys)
	logKeyCheck(v, logKeys, docKeys)
	res, err := promo.VerifyEntrantProof(file, promo.Anchors{LogKeys: logKeys, Reserves: -1})
	failed, ce := failedCheck(err, promo.CheckReceiptFormat)
	checksInOrder(v, entrantChecks, failed, ce, nil, func(c string) bool {
		switch c {
		case promo.CheckEntrantScheme:
			// Passed: the only scheme with openings.
			v.Pass(c, verdict.MsgEntrantSchemeOK, promo.EntrantSchemeName(promo.EntrantSchemeV2))
		case promo.CheckEntrantInclusion:
			v.Pass(c, verdict.MsgEntrantIn, res.Account, res.Index+1, res.Count, res.Freeze.Draw, res.Proof)
		default:
			return false
		}
		return true
	})
	// The witnesses, on the receipt's checkpoint (it includes the freeze).
	cpKeys := logKeys
	if len(cpKeys) == 0 {
		cpKeys = docKeys
	}
	a.witnessCheckNote(v, documentCheckpoint(probe.FreezeReceipt), cpKeys)
	if res != nil && len(logKeys) > 0 {
		f := res.Freeze
		v.FactNamed(verdict.M(verdict.MsgEntrantFactAccount), verdict.MsgEntrantFactValue, res.Account, res.Index+1, res.Count, res.Index, f.Draw)
		v.FactNamed(verdict.M(verdict.MsgEntrantFactPseudo), verdict.MsgSame, res.Pseudonym())
		v.Fact("leaf hash", verdict.MsgSame, hex.EncodeToString(res.Leaf[:]))
		v.FactNamed(verdict.M(verdict.MsgFreezeFactFrozenAt), verdict.MsgSame, promo.FormatTime(f.Freeze.Time))
		v.Fact("log", verdict.MsgFreezeFactLog, f.Index, f.LogOrigin, f.TreeSize)
	}
	return v
}
