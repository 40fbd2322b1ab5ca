package cli

import (
	"context"
	"errors"
	"flag"
	"io"
	"os"
	"os/signal"

	"tirage.fr/tirage/verifier/audit"
	"tirage.fr/tirage/verifier/checkpoint"
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
	logURL := c.fs.String("log", "", "")
	pos, err := c.parse(env.Args)
	if errors.Is(err, flag.ErrHelp) {
		l := c.argLang
		io.WriteString(env.Stderr, verdict.M(usage).Text(l)+verdict.M(verdict.MsgUsageDocLog).Text(l)+
			verdict.M(verdict.MsgUsageTrust, defaultStatePath()).Text(l)+verdict.M(verdict.MsgUsageExit).Text(l))
		return ExitOK
	}
	if err != nil {
		return c.usageErr(env, flagError(err))
	}
	if len(pos) != 1 {
		return c.usageErr(env, verdict.M(verdict.MsgCLIOneFile, len(pos)))
	}
	var f audit.Fetcher
	if *logURL != "" {
		if *c.state == "" {
			return c.usageErr(env, verdict.M(verdict.MsgCLILogNeedsState))
		}
		if f, err = newHTTPFetcher(*logURL, verdict.MsgCLILogURLBad); err != nil {
			return c.usageErr(env, receipt.Cause(err))
		}
	}
	a, err := c.anchors()
	if err != nil {
		return c.usageErr(env, receipt.Cause(err))
	}
	c.input = pos[0]
	b, err := readInput(env, pos[0])
	if err != nil {
		c.conclude(env, verdict.MsgCLICouldntRead, name, pos[0], receipt.Cause(fileErr(err)))
		return ExitUsage
	}
	if c.otherCommand(env, b, pos[0]) {
		return ExitUsage
	}
	if f != nil {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
		defer stop()
		a.Consistency = onlineConsistency(ctx, f)
	}
	return c.report(env, verify(b, a), nil)
}

// documentCommands: the command that checks each kind of document
// receipt.Detect names, and the hint that names it.
var documentCommands = map[string]struct {
	name string
	use  verdict.MsgID
}{
	receipt.DocReceipt:       {"receipt", verdict.MsgCLIUseReceipt},
	receipt.DocTranscript:    {"game", verdict.MsgCLIUseGame},
	receipt.DocCertificate:   {"certificate", verdict.MsgCLIUseCert},
	receipt.DocFreezeReceipt: {"freeze", verdict.MsgCLIUseFreeze},
	receipt.DocEntrantProof:  {"entrant", verdict.MsgCLIUseEntrant},
	receipt.DocAttestation:   {"attestation", verdict.MsgCLIUseAttest},
}

// otherInputs: what else than a document receipt.Detect names, given as
// the document to check, and the hint that names the flag taking it (a
// key file or an entrant list, swapped with the document). The flags are
// the trust flags and --entrants: attestation, which takes neither, says
// what it reads itself.
var otherInputs = map[string]verdict.MsgID{
	receipt.DocLogKeys:   verdict.MsgCLIUseLogKeys,
	receipt.DocKeyRecord: verdict.MsgCLIUseAnnouncement,
	receipt.DocEntrants:  verdict.MsgCLIUseEntrants,
}

// otherCommand reports whether b (read from file) is a document that
// another command than c's checks (GetReceipts' output given to game, a
// certificate given to freeze, say), or a key file or entrant list given
// in the document's place, having then said which command or flag takes
// it, as an unreadable input (exit 2). A document of no known kind is
// left to c's own parser, which says what is wrong with it.
func (c *common) otherCommand(env Env, b []byte, file string) bool {
	kind := receipt.Detect(b)
	use, ok := otherInputs[kind]
	ok = ok && c.name != "attestation"
	if d, doc := documentCommands[kind]; doc {
		if d.name == c.name {
			return false
		}
		use, ok = d.use, true
	}
	if !ok {
		return false
	}
	c.conclude(env, verdict.MsgCLIUnreadable, c.name, verdict.M(use, file))
	return true
}

// onlineConsistency is receipt.Anchors.Consistency over the log's tiles,
// read and authenticated against the newer checkpoint as rngverify log
// does (audit.Consistency, which reads a partial tile the log has since
// deleted from the full tile): an error wrapping checkpoint.ErrFork when
// the proof read shows two histories, another error when it could not be
// read.
func onlineConsistency(ctx context.Context, f audit.Fetcher) func(older, newer *checkpoint.Checkpoint) error {
	return func(older, newer *checkpoint.Checkpoint) error {
		v := verdict.New("log", verdict.MsgSubjectLog)
		audit.Consistency(ctx, f, older, newer, v)
		c := v.Find(verdict.CheckConsistent)
		switch {
		case c != nil && c.Status == verdict.StatusPass:
			return nil
		case c == nil || c.Message == nil:
			return errors.New("no consistency check made") // audit.Consistency always records one, with a reason when it does not pass
		case c.Status == verdict.StatusMisbehaviour:
			return forkError{verdict.Errorf(verdict.MsgSame, *c.Message)}
		}
		return verdict.Errorf(verdict.MsgSame, *c.Message)
	}
}

// forkError is a fork proven by a consistency proof: its text is the
// check's reason; it wraps checkpoint.ErrFork.
type forkError struct{ error }

func (e forkError) Unwrap() []error { return []error{e.error, checkpoint.ErrFork} }
