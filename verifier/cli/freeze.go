package cli

import (
	"errors"
	"flag"
	"slices"

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
	a, err := c.anchors()
	if err != nil {
		return c.usageErr(env, receipt.Cause(err))
	}
	// A receipt carries its log's keys; trusting them would check nothing.
	// A freeze has no VRF proof: a --vrf-key anchors it only as a key
	// announcement, whose log keys anchors pins by fingerprint.
	if len(c.logKeys)+len(c.pins) == 0 && *c.state == "" && !slices.ContainsFunc(a.Pins, barePin) {
		return c.usageErr(env, verdict.M(verdict.MsgCLINoAnchorFreeze))
	}
	var list *promo.EntrantList
	// listRefused: the list given is not one (promo.ParseEntrantList's
	// reason); the receipt is still checked, and both are shown.
	var listRefused *verdict.Msg
	if *entrants != "" {
		b, err := readFileHead(*entrants, maxEntrants, verdict.MsgLimitEntrants, receipt.EntrantsHead)
		if err != nil {
			return c.usageErr(env, verdict.M(verdict.MsgCLIReadEntrants, receipt.Cause(fileErr(err))))
		}
		if list, err = promo.ParseEntrantList(b); err != nil {
			why := verdict.M(verdict.MsgColon, *entrants, receipt.Cause(err))
			listRefused = &why
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
	if listRefused != nil {
		return c.report(env, receipt.VerifyFreezeListRefused(file, *listRefused, a), nil)
	}
	return c.report(env, receipt.VerifyFreeze(file, list, a), nil)
}

// barePin reports whether p pins a key by its fingerprint alone (a log
// key's pin; a VRF key's names its suite).
func barePin(p string) bool {
	suite, _, err := receipt.ParsePin(p)
	return err == nil && suite == ""
}
