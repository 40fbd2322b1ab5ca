package cli

import (
	"errors"
	"flag"

	"tirage.fr/tirage/verifier/receipt"
	"tirage.fr/tirage/verifier/verdict"
)

func init() {
	register("receipt", verdict.MsgCmdReceipt, func(env Env) int {
		return runDocument(env, "receipt", verdict.MsgUsageReceipt, receipt.VerifyReceipt)
	})
	register("game", verdict.MsgCmdGame, func(env Env) int {
		return runDocument(env, "game", verdict.MsgUsageGame, receipt.VerifyTranscript)
	})
}

func runDocument(env Env, name string, usage verdict.MsgID, verify func([]byte, receipt.Anchors) *verdict.Verdict) int {
	c := newCommon(name)
	pos, err := c.parse(env.Args)
	if errors.Is(err, flag.ErrHelp) {
		return c.help(env, usage)
	}
	if err != nil {
		return c.usageErr(env, flagError(err))
	}
	if len(pos) != 1 {
		return c.usageErr(env, verdict.M(verdict.MsgCLIOneFile, len(pos)))
	}
	a, err := c.anchors()
	if err != nil {
		return c.usageErr(env, receipt.Cause(err))
	}
	b, err := readInput(env, pos[0])
	if err != nil {
		c.conclude(env, verdict.MsgCLICouldntRead, name, pos[0], receipt.Cause(fileErr(err)))
		return ExitUsage
	}
	return c.report(env, verify(b, a), nil)
}
