// Package cli is rngverify, the standalone verifier's command line.
//
// It does no network I/O of its own beyond what a subcommand is explicitly
// asked to fetch (rngverify log --url, rngverify audit --url), trusts only
// keys it is given (files, pinned fingerprints, or trust on first use asked
// for with --tofu and recorded in its state file), and imports nothing but
// the pure verifier core and the standard library — a test in package
// verifier keeps its dependency closure small.
//
// Commands: vrf (one proof), receipt (one record), game (a transcript),
// certificate (a promotion draw), log (checkpoint and consistency), audit
// (the whole log). Verdicts name each check (package verdict), in English or
// French (--lang), or as JSON (--json). docs/verifier.md is the manual.
//
// Exit codes: 0 every check passed, 1 a check failed (one line says which and
// why: "NOT VERIFIED" when nothing is proven, "MISBEHAVIOUR PROVEN" when the
// material contradicts itself), 2 usage error or unreadable input.
package cli

import (
	"fmt"
	"io"
	"sort"
	"strings"
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
	summary string
	run     func(env Env) int
}

// commands is filled by init functions of the files of this package.
var commands = map[string]command{}

func register(name, summary string, run func(env Env) int) {
	if _, dup := commands[name]; dup {
		panic("rngverify: command registered twice: " + name)
	}
	commands[name] = command{summary: summary, run: run}
}

// Run runs rngverify with args (without the program name) and returns the exit code.
func Run(env Env) int {
	if len(env.Args) == 0 || env.Args[0] == "-h" || env.Args[0] == "--help" || env.Args[0] == "help" {
		usage(env.Stderr)
		if len(env.Args) == 0 {
			return ExitUsage
		}
		return ExitOK
	}
	c, ok := commands[env.Args[0]]
	if !ok {
		fmt.Fprintf(env.Stderr, "rngverify: unknown command %q (rngverify help lists them)\n", env.Args[0])
		return ExitUsage
	}
	sub := env
	sub.Args = env.Args[1:]
	return c.run(sub)
}

func usage(w io.Writer) {
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	b.WriteString("usage: rngverify COMMAND [ARGS]\n\ncommands:\n")
	for _, n := range names {
		fmt.Fprintf(&b, "  %-12s %s\n", n, commands[n].summary)
	}
	io.WriteString(w, b.String())
}
