package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"tirage.fr/tirage/verifier/receipt"
	"tirage.fr/tirage/verifier/verdict"
)

func init() {
	register("receipt", verdict.MsgCmdReceipt, func(env Env) int {
		return runDocument(env, "receipt", receiptUsage, receipt.VerifyReceipt)
	})
	register("game", verdict.MsgCmdGame, func(env Env) int {
		return runDocument(env, "game", gameUsage, receipt.VerifyTranscript)
	})
}

const receiptUsage = `usage: rngverify receipt FILE [trust flags] [--lang fr|en] [--json]

Checks one receipt (one sealed record, JSON "tirage/receipt"): the record is
canonical; the checkpoint is signed by the trusted log key and the record is
in its tree; for a draw, the VRF key is trusted, α binds the record (when the
receipt carries α), the proof verifies, and the outcome is the one β gives.
FILE "-" reads stdin.

`

const gameUsage = `usage: rngverify game FILE [trust flags] [--lang fr|en] [--json]

Checks a game transcript (JSON "tirage/transcript", exported by
rngctl qod transcript --game ID): every record is canonical and in the signed
log; the records link by hash in order, none missing; the r revealed at the end
opens the start's commitment; every VRF proof verifies under the trusted key;
every outcome is the one β gives; replaying the game follows the rules.
FILE "-" reads stdin.

`

const exitUsage = `
Exit status:
  0  every check passed
  1  a check failed: "NOT VERIFIED" (nothing proven: a key, a proof is missing)
     or "MISBEHAVIOUR PROVEN" (the material contradicts itself: keep it as evidence)
  2  usage error or unreadable input
`

func runDocument(env Env, name, usage string, verify func([]byte, receipt.Anchors) *verdict.Verdict) int {
	c := newCommon(name)
	pos, err := c.parse(env.Args)
	if errors.Is(err, flag.ErrHelp) {
		io.WriteString(env.Stderr, usage+fmt.Sprintf(trustUsage, defaultStatePath())+exitUsage)
		return ExitOK
	}
	if err != nil {
		return c.usageErr(env, "%s", err)
	}
	if len(pos) != 1 {
		return c.usageErr(env, "want exactly one FILE, got %d", len(pos))
	}
	a, err := c.anchors()
	if err != nil {
		return c.usageErr(env, "%s", err)
	}
	b, err := readInput(env, pos[0])
	if err != nil {
		c.conclude(env, verdict.MsgCLICouldntRead, name, pos[0], receipt.Cause(err))
		return ExitUsage
	}
	return c.report(env, verify(b, a), nil)
}
