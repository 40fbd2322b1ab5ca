package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"unicode/utf8"

	"tirage.fr/tirage/verifier/promo"
	"tirage.fr/tirage/verifier/receipt"
	"tirage.fr/tirage/verifier/verdict"
)

func init() {
	register("share-commitment", verdict.MsgCmdShareCommitment, runShareCommitment)
}

// minTextShare is the shortest text share committed without a warning:
// 20 characters a bailiff picks carry far more than the 8 the ceremony
// requires, which a search of common texts could find from the commitment.
const minTextShare = 20

// runShareCommitment is rngverify share-commitment --draw ID [--dice]
// [--share-file FILE]: the bailiff computes, alone, the commitment to the
// share they will enter at the draw's ceremony (promo.ShareCommitment),
// for the freeze to log before the beacon round is published. The share
// is read and refused as rngctl promo draw reads it (promo.ReadShareLine,
// promo.ShareFromInput).
func runShareCommitment(env Env) int {
	lang := langOf(env.Args)
	fs := flag.NewFlagSet("rngverify share-commitment", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	draw := fs.String("draw", "", "")
	dice := fs.Bool("dice", false, "")
	shareFile := fs.String("share-file", "", "")
	langFlag := fs.String("lang", "en", "")
	say := func(w io.Writer, id verdict.MsgID, args ...any) {
		io.WriteString(w, verdict.M(id, args...).Text(lang)+"\n")
	}
	usageErr := func(why verdict.Msg) int {
		say(env.Stderr, verdict.MsgCLIUsageErr, "share-commitment", why, "share-commitment")
		return ExitUsage
	}
	if err := fs.Parse(env.Args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			io.WriteString(env.Stderr, verdict.M(verdict.MsgUsageShareCommitment).Text(lang))
			return ExitOK
		}
		return usageErr(flagError(err))
	}
	switch {
	case fs.NArg() > 0:
		return usageErr(verdict.M(verdict.MsgCLIUnexpected, fs.Arg(0)))
	case *draw == "":
		return usageErr(verdict.M(verdict.MsgCLIMissingFlag, "draw"))
	case !promo.ValidDrawID(*draw):
		return usageErr(verdict.M(verdict.MsgCLIShareDraw, *draw))
	}
	if err := checkLang(*langFlag); err != nil {
		return usageErr(receipt.Cause(err))
	}
	var raw []byte
	var err error
	if *shareFile != "" {
		if raw, err = readFileMax(*shareFile, maxDocument, verdict.MsgLimitDocument); err != nil {
			say(env.Stderr, verdict.MsgCLIReadShare, receipt.Cause(fileErr(err)))
			return ExitFail
		}
	} else {
		if *dice {
			io.WriteString(env.Stderr, verdict.M(verdict.MsgCLISharePromptDice, promo.MinDiceRolls).Text(lang))
		} else {
			io.WriteString(env.Stderr, verdict.M(verdict.MsgCLISharePromptText).Text(lang))
		}
		if raw, err = promo.ReadShareLine(env.Stdin); err != nil {
			io.WriteString(env.Stderr, "\n")
			say(env.Stderr, verdict.MsgCLIReadShare, receipt.Cause(err))
			return ExitFail
		}
	}
	share, err := promo.ShareFromInput(raw, *dice)
	if err != nil {
		return usageErr(verdict.M(verdict.MsgCLIShareBad, receipt.Cause(err)))
	}
	if n := utf8.RuneCountInString(share) - len("text:"); !*dice && n < minTextShare {
		say(env.Stderr, verdict.MsgCLIShareShort, n, minTextShare)
	}
	fmt.Fprintf(env.Stdout, "%x\n", promo.ShareCommitment(*draw, share))
	return ExitOK
}
