package cli

import (
	"errors"
	"flag"
	"slices"

	"tirage.fr/tirage/verifier/receipt"
	"tirage.fr/tirage/verifier/verdict"
)

func init() {
	register("entrant", verdict.MsgCmdEntrant, runEntrant)
}

// runEntrant is rngverify entrant FILE: a player checks the entrant proof
// the operator gave them (rngctl promo entrant-proof) — the freeze it
// hangs on, and their account's leaf in the frozen root.
func runEntrant(env Env) int {
	c := newCommon("entrant")
	pos, err := c.parse(env.Args)
	if errors.Is(err, flag.ErrHelp) {
		return c.help(env, verdict.MsgUsageEntrant)
	}
	if err != nil {
		return c.usageErr(env, flagError(err))
	}
	switch {
	case len(pos) == 0:
		return c.usageErr(env, verdict.M(verdict.MsgCLIMissingEntrant))
	case len(pos) > 1:
		return c.usageErr(env, verdict.M(verdict.MsgCLIUnexpected, pos[1]))
	}
	a, err := c.anchors()
	if err != nil {
		return c.usageErr(env, receipt.Cause(err))
	}
	// A proof carries its log's keys (in its freeze receipt); trusting
	// them would check nothing.
	if len(c.logKeys)+len(c.pins) == 0 && *c.state == "" && !slices.ContainsFunc(a.Pins, barePin) {
		return c.usageErr(env, verdict.M(verdict.MsgCLINoAnchorEntrant))
	}
	c.input = pos[0]
	file, err := readInput(env, pos[0])
	if err != nil {
		return c.usageErr(env, verdict.M(verdict.MsgCLIReadEntrant, receipt.Cause(fileErr(err))))
	}
	if c.otherCommand(env, file, pos[0]) {
		return ExitUsage
	}
	return c.report(env, receipt.VerifyEntrant(file, a), nil)
}
