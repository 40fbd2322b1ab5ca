package cli

import (
	"context"
	"errors"
	"flag"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"strings"

	"golang.org/x/mod/sumdb/tlog"

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
	b, err := readInput(env, pos[0])
	if err != nil {
		c.conclude(env, verdict.MsgCLICouldntRead, name, pos[0], receipt.Cause(fileErr(err)))
		return ExitUsage
	}
	// The other command's document (GetReceipts' output given to game,
	// say): say which command reads it.
	switch receipt.Detect(b) {
	case receipt.DocTranscript:
		if name != "game" {
			c.conclude(env, verdict.MsgCLIUnreadable, name, verdict.M(verdict.MsgCLIUseGame, pos[0]))
			return ExitUsage
		}
	case receipt.DocReceipt:
		if name != "receipt" {
			c.conclude(env, verdict.MsgCLIUnreadable, name, verdict.M(verdict.MsgCLIUseReceipt, pos[0]))
			return ExitUsage
		}
	}
	if f != nil {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
		defer stop()
		a.Consistency = onlineConsistency(ctx, &wholeTiles{Fetcher: f})
	}
	return c.report(env, verify(b, a), nil)
}

// onlineConsistency is receipt.Anchors.Consistency over the log's tiles,
// read and authenticated against the newer checkpoint as rngverify log
// does (audit.Consistency): an error wrapping checkpoint.ErrFork when the
// proof read shows two histories, another error when it could not be read.
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

// wholeTiles reads a partial hash tile (tile/<L>/<N>.p/<W>) that the log no
// longer serves from the wider one it serves now (the full tile, or a wider
// partial at the log's latest size), cut to width W: a document's or the
// state's checkpoint is usually older than the log's latest, whose partial
// tiles may have been replaced (C2SP tlog-tiles). The tiles are
// authenticated against the checkpoint all the same (audit.Consistency);
// the latest size read here is only a hint of where to look.
type wholeTiles struct {
	audit.Fetcher
	size int64 // the log's latest size, 0 until read
}

func (w *wholeTiles) Fetch(ctx context.Context, path string) ([]byte, error) {
	b, err := w.Fetcher.Fetch(ctx, path)
	if err == nil || !errors.Is(err, fs.ErrNotExist) || !strings.Contains(path, ".p/") || strings.HasPrefix(path, "tile/entries/") {
		return b, err
	}
	t, perr := tlog.ParseTilePath("tile/8/" + strings.TrimPrefix(path, "tile/"))
	if perr != nil || t.L < 0 {
		return b, err
	}
	if w.size == 0 {
		note, cerr := w.Fetcher.Fetch(ctx, "checkpoint")
		if cerr != nil {
			return b, err
		}
		text, _, _ := strings.Cut(string(note), "\n\n")
		if _, size, _, cerr := checkpoint.ParseText(text + "\n"); cerr == nil {
			w.size = size
		}
	}
	wider := t
	wider.W = int(min(w.size>>(8*t.L)-t.N*256, 256))
	if wider.W <= t.W {
		return b, err
	}
	whole, ferr := w.Fetcher.Fetch(ctx, "tile/"+strings.TrimPrefix(wider.Path(), "tile/8/"))
	if ferr != nil || len(whole) < t.W*tlog.HashSize {
		return b, err
	}
	return whole[:t.W*tlog.HashSize], nil
}
