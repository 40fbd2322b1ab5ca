// Package cli is rngverify, the standalone verifier's command line.
//
// It does no network I/O of its own beyond what a subcommand is explicitly
// asked to fetch (rngverify log --url, rngverify audit --url), trusts only
// keys it is given (files, pinned fingerprints, or trust on first use asked
// for with --tofu and recorded in its state file), and imports nothing but
// the pure verifier core (with package attestations, pure too) and the
// standard library — a test in package verifier keeps its dependency
// closure small.
//
// Commands: vrf (one proof), receipt (one record), game (a transcript),
// certificate (a promotion draw), freeze (a promotion's freeze receipt),
// log (checkpoint and consistency), audit (the whole log), attestation (a
// signed statement: paytable, build).
// Verdicts name each check (package verdict), in English or French
// (--lang), or as JSON (--json); so are the command list (rngverify help
// --lang fr) and rngverify vrf's messages. docs/verifier.md is the manual.
//
// Exit codes: 0 every check passed, 1 a check failed (one line says which and
// why: "NOT VERIFIED" when nothing is proven, "MISBEHAVIOUR PROVEN" when the
// material contradicts itself), 2 usage error or unreadable input.
package cli

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"tirage.fr/tirage/verifier/verdict"
)

// Exit codes.
const (
	ExitOK    = 0
	ExitFail  = 1
	ExitUsage = 2
)

// Env is what a subcommand may touch.
type Env struct {
	Args   []string
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
}

type command struct {
	summary verdict.MsgID
	run     func(env Env) int
}

// commands is filled by init functions of the files of this package.
var commands = map[string]command{}

func register(name string, summary verdict.MsgID, run func(env Env) int) {
	if _, dup := commands[name]; dup {
		panic("rngverify: command registered twice: " + name)
	}
	commands[name] = command{summary: summary, run: run}
}

// Run runs rngverify with args (without the program name) and returns the exit code.
func Run(env Env) int {
	lang := langOf(env.Args)
	env.Args = langLast(env.Args)
	if len(env.Args) > 1 && env.Args[0] == "help" && !strings.HasPrefix(env.Args[1], "-") {
		// help CMD: CMD -h, after the --lang that langLast put last.
		env.Args = append(slices.Clone(env.Args[1:]), "-h")
	}
	if len(env.Args) == 0 || env.Args[0] == "-h" || env.Args[0] == "--help" || env.Args[0] == "help" {
		usage(env.Stderr, lang)
		if len(env.Args) == 0 {
			return ExitUsage
		}
		return ExitOK
	}
	c, ok := commands[env.Args[0]]
	if !ok {
		io.WriteString(env.Stderr, verdict.M(verdict.MsgCLIUnknown, env.Args[0]).Text(lang)+"\n")
		return ExitUsage
	}
	sub := env
	sub.Args = env.Args[1:]
	return c.run(sub)
}

func usage(w io.Writer, lang string) {
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	width := 0 // the summaries start in one column, after the longest name
	for _, n := range names {
		width = max(width, len(n))
	}
	var b strings.Builder
	b.WriteString(verdict.M(verdict.MsgCLIUsage).Text(lang))
	for _, n := range names {
		b.WriteString(verdict.M(verdict.MsgCLIUsageLine, fmt.Sprintf("%-*s", width, n), verdict.M(commands[n].summary)).Text(lang))
	}
	io.WriteString(w, b.String())
}

// langOf is the language asked for by --lang (or -lang, --lang=…) anywhere
// in args: "fr", or "en" (the default, and for any other value, which the
// command's own flag parsing then refuses). Messages printed before or
// instead of a command's flag parsing (usage, flag errors) use it.
func langOf(args []string) string {
	for i, a := range args {
		name, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") || name != "lang" {
			continue
		}
		if !hasVal && i+1 < len(args) {
			val = args[i+1]
		}
		if val == "fr" {
			return "fr"
		}
	}
	return "en"
}

// langLast moves a --lang flag given before the command (rngverify --lang fr
// help) after it, where the command reads its flags.
func langLast(args []string) []string {
	if len(args) == 0 || !strings.HasPrefix(args[0], "-") || !strings.HasPrefix(strings.TrimLeft(args[0], "-"), "lang") {
		return args
	}
	n := 1
	if !strings.Contains(args[0], "=") {
		n = min(2, len(args))
	}
	if n == len(args) {
		return nil // only the language: the usage
	}
	return append(append([]string{}, args[n:]...), args[:n]...)
}
