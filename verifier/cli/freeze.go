package cli

import (
	"errors"
	"flag"

	"tirage.fr/tirage/verifier/promo"
	"tirage.fr/tirage/verifier/receipt"
	"tirage.fr/tirage/verifier/verdict"
)

func init() {
	register("freeze", verdict.MsgCmdFreeze, runFreeze)
}

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
			v := verdict.New(receipt.DocFreezeReceipt, verdict.MsgSubjectFreezeReceipt)
			v.Fail(promo.CheckEntrantList, verdict.MsgColon, *entrants, receipt.Cause(err))
			return c.report(env, v, nil)
		}
	}
	c.input = pos[0]
	file, err := readInput(env, pos[0])
	if err != nil {
		return c.usageErr(env, verdict.M(verdict.MsgCLIReadFreeze, receipt.Cause(fileErr(err))))
	}
	if c.otherCommand(env, file, pos[0]) {
		return ExitUsage
	}
	return c.report(env, receipt.VerifyFreeze(file, list, a), nil)
}
