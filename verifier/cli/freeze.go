package cli

import (
	"encoding/json"
	"errors"
	"flag"

	"tirage.fr/tirage/verifier/promo"
	"tirage.fr/tirage/verifier/receipt"
	"tirage.fr/tirage/verifier/verdict"
)

func init() {
	register("freeze", verdict.MsgCmdFreeze, runFreeze)
}

// docFreezeReceipt is the verdict's kind for a freeze receipt.
const docFreezeReceipt = "freeze-receipt"

// freezeChecks are promo.VerifyFreezeReceipt's checks in the order it runs
// them; listChecks follow them when the entrant list is given.
var (
	freezeChecks = []string{
		promo.CheckReceiptFormat, promo.CheckCheckpoint, promo.CheckFreezeRecord, promo.CheckFreezeInclusion,
		promo.CheckRules, promo.CheckReceiptFields,
	}
	listChecks = []string{promo.CheckEntrantList, promo.CheckEntrantRoot, promo.CheckEntrantsFile}
)

// runFreeze is rngverify freeze FILE [--entrants LIST]: the bailiff checks
// the receipt the appliance gave at a promotion's freeze.
func runFreeze(env Env) int {
	c := newCommon("freeze")
	entrants := c.fs.String("entrants", "", "")
	pos, err := c.parse(env.Args)
	if errors.Is(err, flag.ErrHelp) {
		return c.help(env, verdict.MsgUsageFreeze)
	}
	if err != nil {
		return c.usageErr(env, flagError(err))
	}
	switch {
	case len(pos) == 0:
		return c.usageErr(env, verdict.M(verdict.MsgCLIMissingFreeze))
	case len(pos) > 1:
		return c.usageErr(env, verdict.M(verdict.MsgCLIUnexpected, pos[1]))
	}
	// A receipt carries its log's keys; trusting them would check nothing.
	if len(c.logKeys)+len(c.vrfKeys)+len(c.pins) == 0 && *c.state == "" {
		return c.usageErr(env, verdict.M(verdict.MsgCLINoAnchorFreeze))
	}
	a, err := c.anchors()
	if err != nil {
		return c.usageErr(env, receipt.Cause(err))
	}
	var list *promo.EntrantList
	if *entrants != "" {
		b, err := readFileHead(*entrants, maxEntrants, verdict.MsgLimitEntrants, receipt.EntrantsHead)
		if err != nil {
			return c.usageErr(env, verdict.M(verdict.MsgCLIReadEntrants, receipt.Cause(fileErr(err))))
		}
		if list, err = promo.ParseEntrantList(b); err != nil {
			v := verdict.New(docFreezeReceipt, verdict.MsgSubjectFreezeReceipt)
			v.Fail(promo.CheckEntrantList, verdict.MsgColon, *entrants, receipt.Cause(err))
			return c.report(env, v, nil)
		}
	}
	c.input = pos[0]
	file, err := readInput(env, pos[0])
	if err != nil {
		return c.usageErr(env, verdict.M(verdict.MsgCLIReadFreeze, receipt.Cause(fileErr(err))))
	}
	return c.report(env, verifyFreeze(file, list, a), nil)
}

// verifyFreeze verifies a freeze receipt (promo.VerifyFreezeReceipt) as a
// verdict naming each of its checks; with the draw's entrant list, the
// bailiff's checks too. The log keys must be anchored (a key given, or a
// pinned fingerprint of one of the receipt's keys), as for a certificate:
// without an anchor the log-key check fails, and the other checks run
// with the receipt's own keys so that the user still sees them. A receipt
// is a file anyone can edit, so every failure is of the ordinary class
// (NOT VERIFIED): nothing in it is proof against the appliance.
func verifyFreeze(file []byte, list *promo.EntrantList, a receipt.Anchors) *verdict.Verdict {
	v := verdict.New(docFreezeReceipt, verdict.MsgSubjectFreezeReceipt)
	var probe struct {
		Draw    string   `json:"draw"`
		LogKeys []string `json:"log_keys"`
	}
	json.Unmarshal(file, &probe)
	if probe.Draw != "" {
		v.SetSubject(verdict.MsgSubjectFreeze, probe.Draw)
	}
	logKeys := a.TrustedLogKeyTexts(probe.LogKeys)
	if len(logKeys) == 0 {
		v.Fail(verdict.CheckLogKey, verdict.MsgNoTrustedLogKeyCert)
	} else {
		v.Pass(verdict.CheckLogKey, verdict.MsgKeyCount, len(logKeys))
	}
	checks := freezeChecks
	if list != nil {
		checks = append(append([]string(nil), checks...), listChecks...)
	}
	res, err := promo.VerifyFreezeReceipt(file, list, promo.Anchors{LogKeys: logKeys, Reserves: -1})
	failed := ""
	var ce *promo.CheckError
	if errors.As(err, &ce) {
		failed = ce.Check
	} else if err != nil {
		failed = promo.CheckReceiptFormat
		ce = &promo.CheckError{Check: failed, Err: err}
	}
	reached := true
	for _, c := range checks {
		switch {
		case !reached:
			v.Skip(c, verdict.MsgNotReached)
		case c == failed:
			reached = false
			v.Fail(c, verdict.MsgSame, receipt.CheckErrorMsg(ce))
		default:
			v.Pass(c, verdict.NoDetail)
		}
	}
	if list == nil {
		v.Skip(promo.CheckEntrantRoot, verdict.MsgPublicOnly)
	}
	if res != nil {
		f := res.Freeze
		v.Fact("draw", verdict.MsgDrawFact, res.Draw, f.Count)
		v.FactNamed(verdict.M(verdict.MsgFreezeFactFrozenAt), verdict.MsgSame, promo.FormatTime(f.Time))
		v.Fact("leaf hash", verdict.MsgSame, res.LeafHash)
		v.Fact("log", verdict.MsgFreezeFactLog, res.Index, res.LogOrigin, res.TreeSize)
		if res.EntrantsFile != "" {
			v.FactNamed(verdict.M(verdict.MsgFreezeFactList), verdict.MsgSha256, res.EntrantsFile)
		}
		v.FactNamed(verdict.M(verdict.MsgFreezeFactReceipt), verdict.MsgSha256, promo.Fingerprint(file))
	}
	return v
}
