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
	// A freeze has no VRF proof: a --vrf-key anchors it only as a key
	// announcement, which pins the log's keys (anchors).
	if len(c.logKeys)+len(c.pins) == 0 && *c.state == "" && !c.vrfKeyAnnounces() {
		return c.usageErr(env, verdict.M(verdict.MsgCLINoAnchorFreeze))
	}
	a, err := c.anchors()
	if err != nil {
		return c.usageErr(env, receipt.Cause(err))
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

// vrfKeyAnnounces reports whether a --vrf-key file given is a key
// announcement that pins a log key (announcedKeys), the only --vrf-key
// that anchors a freeze receipt ("SUITE HEX" lines name VRF keys only). A
// file that cannot be read, or an announcement refused, is left to
// anchors, which names it.
func (c *common) vrfKeyAnnounces() bool {
	for _, f := range c.vrfKeys {
		b, err := readFileMax(f, maxKeyFile, verdict.MsgLimitKeyFile)
		if err != nil {
			return true
		}
		if !isAnnouncement(b) {
			continue
		}
		_, pins, err := announcedKeys(b)
		if err != nil {
			return true
		}
		for _, p := range pins {
			if suite, _, err := receipt.ParsePin(p); err == nil && suite == "" {
				return true
			}
		}
	}
	return false
}
