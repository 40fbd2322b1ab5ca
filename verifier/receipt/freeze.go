package receipt

import (
	"encoding/hex"
	"encoding/json"

	"tirage.fr/tirage/verifier/promo"
	"tirage.fr/tirage/verifier/verdict"
)

// freezeChecks are promo.VerifyFreezeReceipt's checks in the order it runs
// them; freezeListChecks follow them when the entrant list is given.
var (
	freezeChecks = []string{
		promo.CheckReceiptFormat, promo.CheckCheckpoint, promo.CheckFreezeRecord, promo.CheckFreezeInclusion,
		promo.CheckRules, promo.CheckShareCommitment, promo.CheckReceiptFields, promo.CheckFreezeInputs,
	}
	freezeListChecks = []string{promo.CheckEntrantList, promo.CheckEntrantRoot, promo.CheckEntrantsFile}
)

// VerifyFreeze verifies a promotion's freeze receipt
// (promo.VerifyFreezeReceipt) as a verdict naming each of its checks, as
// rngverify freeze and the browser page show it; with the draw's entrant
// list (list not nil), the bailiff's checks too. The log keys must be
// anchored (a key given, or a pinned fingerprint of one of the receipt's
// keys), as for a certificate: without an anchor the log-key check fails,
// and the other checks run with the receipt's own keys so that the user
// still sees them. A receipt is a file anyone can edit, so every failure
// is of the ordinary class (NOT VERIFIED): nothing in it is proof against
// the appliance.
//
// Facts are shown only when the log key is trusted: under an untrusted key
// the draw, index and leaf hash are only what the receipt says.
func VerifyFreeze(file []byte, list *promo.EntrantList, a Anchors) *verdict.Verdict {
	return VerifyFreezeFiles(file, list, nil, nil, a)
}

// FreezeInputs is what the bailiff was given of a freeze's input files.
type FreezeInputs struct {
	// Files are the files' roles and SHA-256s, stake files first, in the
	// order of the freeze's.
	Files []promo.InputFile
	// RulesFile and Eligibility, when Eligibility is not nil: the rules
	// given and the eligibility recomputed from the files under them
	// (stakes.Recompute), checked as entrants-recomputed.
	RulesFile   []byte
	Eligibility *promo.Eligibility
	// Rows and Rejected are the stake rows read and rejected (malformed
	// or duplicate) while recomputing Eligibility: shown as a fact.
	Rows, Rejected int64
	// Account, when not empty, is the account a player disputes the draw
	// for: once every check passed, facts say whether it is in the frozen
	// list and, with Eligibility (whose tally watched it), why
	// (accountFacts).
	Account string
}

// VerifyFreezeListRefused is VerifyFreeze for a receipt given with an
// entrant list that promo.ParseEntrantList refused (why: the list named
// and the reason): the receipt's public checks, as without a list, then
// entrant-list failed with why — whatever the receipt's checks found, so
// that both are seen — and the list's other checks not reached.
func VerifyFreezeListRefused(file []byte, why verdict.Msg, a Anchors) *verdict.Verdict {
	return VerifyFreezeFiles(file, nil, &why, nil, a)
}

// VerifyFreezeFiles is VerifyFreeze (listRefused nil) or
// VerifyFreezeListRefused, with the input files the bailiff was given (in:
// nil or no Files, not given), compared with those the freeze binds
// (promo.CompareInputFiles) as check input-files, and with the entrants
// recomputed from them (in.Eligibility), checked against the frozen list
// (promo.CheckRecomputed) as entrants-recomputed.
func VerifyFreezeFiles(file []byte, list *promo.EntrantList, listRefused *verdict.Msg, in *FreezeInputs, a Anchors) *verdict.Verdict {
	v := verdict.New(DocFreezeReceipt, verdict.MsgSubjectFreezeReceipt)
	draw, docKeys := freezeProbe(file)
	if draw != "" {
		v.SetSubject(verdict.MsgSubjectFreeze, draw)
	}
	logKeys := a.TrustedLogKeyTexts(docKeys)
	logKeyCheck(v, logKeys, docKeys)
	checks := freezeChecks
	if list != nil {
		checks = append(append([]string(nil), checks...), freezeListChecks...)
	}
	res, err := promo.VerifyFreezeReceipt(file, list, promo.Anchors{LogKeys: logKeys, Reserves: -1})
	failed, ce := failedCheck(err, promo.CheckReceiptFormat)
	checksInOrder(v, checks, failed, ce, nil, nil)
	switch {
	case listRefused != nil:
		v.Fail(promo.CheckEntrantList, verdict.MsgSame, *listRefused)
		v.Skip(promo.CheckEntrantRoot, verdict.MsgNotReached)
		v.Skip(promo.CheckEntrantsFile, verdict.MsgNotReached)
	case list == nil:
		v.Skip(promo.CheckEntrantRoot, verdict.MsgPublicOnly)
	}
	if in == nil {
		in = &FreezeInputs{}
	}
	freezeInputs(v, res, in.Files)
	switch {
	case in.Eligibility == nil:
		// Files bound or given, the list not recomputed from them: the
		// verdict must not read as if it were (input-files proves the
		// files are the freeze's, not that its list is what they give).
		if res != nil && (res.Inputs != nil || len(in.Files) > 0) {
			v.Skip(promo.CheckEntrantsRecomputed, verdict.MsgRecomputedNotAsked)
		}
	case res == nil || listRefused != nil:
		v.Skip(promo.CheckEntrantsRecomputed, verdict.MsgNotReached)
	case list == nil:
		v.Skip(promo.CheckEntrantsRecomputed, verdict.MsgRecomputedNoList)
	default:
		if err := promo.CheckRecomputed(res.Freeze, in.RulesFile, in.Eligibility, list.Key); err != nil {
			_, ce := failedCheck(err, promo.CheckEntrantsRecomputed)
			v.Fail(promo.CheckEntrantsRecomputed, verdict.MsgSame, CheckErrorMsg(ce))
		} else {
			v.Pass(promo.CheckEntrantsRecomputed, verdict.MsgRecomputedOK, res.Freeze.Count)
		}
	}
	// The witnesses, on the receipt's checkpoint (it includes the freeze:
	// freeze-inclusion), under the keys promo.VerifyFreezeReceipt used.
	cpKeys := logKeys
	if len(cpKeys) == 0 {
		cpKeys = docKeys
	}
	cp, sigs := a.witnessCheckNote(v, documentCheckpoint(file), cpKeys)
	if res != nil {
		a.beaconOrder(v, res.Freeze, cp, sigs, false)
	}
	// The facts are the receipt's own words unless its checkpoint is
	// signed by a trusted log key.
	if res != nil && len(logKeys) > 0 {
		f := res.Freeze
		v.Fact("draw", verdict.MsgDrawFact, res.Draw, f.Count)
		v.FactNamed(verdict.M(verdict.MsgFreezeFactFrozenAt), verdict.MsgSame, promo.FormatTime(f.Time))
		v.Fact("leaf hash", verdict.MsgSame, res.LeafHash)
		v.Fact("log", verdict.MsgFreezeFactLog, res.Index, res.LogOrigin, res.TreeSize)
		// The bailiff compares it with the one they computed
		// (rngverify share-commitment).
		if c := promo.ShareCommitmentHex(f); c != "" {
			v.FactNamed(verdict.M(verdict.MsgFreezeFactShareCommitment), verdict.MsgSame, c)
		}
		if res.EntrantsFile != "" {
			v.FactNamed(verdict.M(verdict.MsgFreezeFactList), verdict.MsgSha256, res.EntrantsFile)
		}
		// The files the bailiff asks the operator for, to compare.
		n := map[string]int{}
		for _, in := range res.Inputs {
			n[in.Role]++
			v.FactNamed(verdict.M(verdict.MsgFreezeFactInput, verdict.Term(in.Role), n[in.Role]), verdict.MsgFreezeFactInputValue, in.SHA256, in.Name)
		}
		// Rows the reader rejected count for no one: an entrant whose rows
		// were made malformed is left out of the recomputed list as of
		// the frozen one, so the bailiff sees how many there were.
		if in.Eligibility != nil {
			v.FactNamed(verdict.M(verdict.MsgFreezeFactRows), verdict.MsgFreezeFactRowsValue, in.Rows, in.Rejected)
		}
		v.FactNamed(verdict.M(verdict.MsgFreezeFactReceipt), verdict.MsgSha256, promo.Fingerprint(file))
	}
	if in.Account != "" {
		accountFacts(v, res, list, in)
	}
	return v
}

// freezeInputs says what the freeze binds of its input files (freeze-inputs:
// a freeze binding none, logged before freezes did, is noted, not failed)
// and, with the files given, whether they are those (input-files).
func freezeInputs(v *verdict.Verdict, res *promo.FreezeVerified, files []promo.InputFile) {
	if res != nil {
		if res.Inputs == nil {
			v.Set(promo.CheckFreezeInputs, verdict.StatusSkip, verdict.MsgFreezeInputsNone)
		} else {
			v.Set(promo.CheckFreezeInputs, verdict.StatusPass, verdict.MsgFreezeInputsOK, len(res.Inputs), hex.EncodeToString(res.Freeze.Inputs[:]))
		}
	}
	switch {
	case len(files) == 0 && res != nil && res.Inputs == nil:
		// Nothing to ask for: freeze-inputs says so.
	case len(files) == 0:
		v.Skip(promo.CheckInputFiles, verdict.MsgInputFilesNotGiven)
	case res == nil:
		v.Skip(promo.CheckInputFiles, verdict.MsgNotReached)
	case res.Inputs == nil:
		v.Skip(promo.CheckInputFiles, verdict.MsgInputFilesUnchecked)
	default:
		if err := promo.CompareInputFiles(res.Inputs, files); err != nil {
			_, ce := failedCheck(err, promo.CheckInputFiles)
			v.Fail(promo.CheckInputFiles, verdict.MsgSame, CheckErrorMsg(ce))
		} else {
			v.Pass(promo.CheckInputFiles, verdict.MsgInputFilesOK, len(files))
		}
	}
}

// FreezeDraw is the draw a freeze receipt names ("" when it names none or
// is not JSON): the draw whose entrant list the bailiff's checks need.
func FreezeDraw(file []byte) string {
	draw, _ := freezeProbe(file)
	return draw
}

// freezeProbe reads a freeze receipt's draw and log keys leniently, before
// promo.VerifyFreezeReceipt reads it strictly: the verdict's subject and
// the keys a pin may name.
func freezeProbe(file []byte) (draw string, logKeys []string) {
	var probe struct {
		Draw    string   `json:"draw"`
		LogKeys []string `json:"log_keys"`
	}
	json.Unmarshal(file, &probe)
	return probe.Draw, probe.LogKeys
}
