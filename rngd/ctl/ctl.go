// Package ctl is rngctl, the operator's and auditor's command line.
//
// Each group of subcommands lives in its own file and registers itself in
// commands (keys, entropy, emission, qod, state, promo, attest). Run
// dispatches on the first argument. Exit codes: 0 success, 1 the operation
// failed (one line on stderr says why), 2 usage error.
package ctl

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
)

// Env is what a subcommand may touch: its arguments, the standard streams
// and the environment. Secrets (PINs, passphrases) are read from files or
// file descriptors named by flags, or from Stdin — never from a flag's value
// nor from the environment.
type Env struct {
	Args   []string
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// Getenv reads the environment (os.Getenv); nil is an empty one.
	// rngctl reads RNGD_ADMIN_SOCKET (AdminSocketEnv) through it.
	Getenv func(string) string
}

// Command is one rngctl subcommand group.
type Command struct {
	Summary string
	Run     func(ctx context.Context, env Env) int
}

// newFlags is the flag set of subcommand name ("emission create"): errors
// are reported by parseArgs, not by the flag package.
func newFlags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

// parseArgs parses args into fs for the subcommand name, whose group's
// usage text is usage. ok is false when the caller should return code: -h
// prints the usage (ExitOK); a bad flag or, unless positional arguments are
// the caller's, any argument left is a usage error naming it (ExitUsage).
// The flag package quotes values only for flags we define, none of which
// holds a secret; a stray argument of a group that reads secrets is not
// quoted.
func parseArgs(env Env, fs *flag.FlagSet, args []string, name, usage string, positional bool) (code int, ok bool) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			io.WriteString(env.Stderr, usage)
			return ExitOK, false
		}
		return usageError(env, name, "%s: %v", name, err), false
	}
	if !positional && fs.NArg() > 0 {
		if readsSecrets(name) {
			// Not echoed: it may be the PIN or passphrase, typed where
			// its file belongs.
			return usageError(env, name, "%s: %d unexpected argument(s), not shown: secrets are read from a file, a descriptor or a prompt, never from an argument", name, fs.NArg()), false
		}
		return usageError(env, name, "%s: unexpected argument %q", name, fs.Arg(0)), false
	}
	return 0, true
}

// readsSecrets reports whether the subcommand name ("keys init") reads a
// PIN or passphrase: the groups that open a key custody.
func readsSecrets(name string) bool {
	group, _, _ := strings.Cut(name, " ")
	return group == "keys" || group == "promo" || group == "attest"
}

// groupHelp prints a group's usage when its subcommand is missing (a usage
// error) or is -h, --help or help; done says the caller should return code.
func groupHelp(env Env, usage string) (code int, done bool) {
	if len(env.Args) > 0 && env.Args[0] != "-h" && env.Args[0] != "--help" && env.Args[0] != "help" {
		return 0, false
	}
	io.WriteString(env.Stderr, usage)
	if len(env.Args) == 0 {
		return ExitUsage, true
	}
	return ExitOK, true
}

// usageError reports a usage error of a subcommand of group (its first
// word is the group's name) in one line, which says where the usage is.
func usageError(env Env, group, format string, args ...any) int {
	group, _, _ = strings.Cut(group, " ")
	fmt.Fprintf(env.Stderr, "rngctl: "+format+" (rngctl %s -h for usage)\n", append(args, group)...)
	return ExitUsage
}

// commands is filled by init functions of the files of this package.
var commands = map[string]Command{}

func register(name string, c Command) {
	if _, dup := commands[name]; dup {
		panic("rngctl: command registered twice: " + name)
	}
	commands[name] = c
}

// Exit codes.
const (
	ExitOK    = 0
	ExitFail  = 1
	ExitUsage = 2
)

// Run runs rngctl with args (without the program name) and returns the exit code.
func Run(ctx context.Context, env Env) int {
	if len(env.Args) > 1 && env.Args[0] == "help" {
		// help CMD [SUB]: CMD [SUB] -h.
		env.Args = append(slices.Clone(env.Args[1:]), "-h")
	}
	if len(env.Args) == 0 || env.Args[0] == "-h" || env.Args[0] == "--help" || env.Args[0] == "help" {
		usage(env.Stderr)
		if len(env.Args) == 0 {
			return ExitUsage
		}
		return ExitOK
	}
	c, ok := commands[env.Args[0]]
	if !ok {
		fmt.Fprintf(env.Stderr, "rngctl: unknown command %q (rngctl help lists them)\n", env.Args[0])
		return ExitUsage
	}
	sub := env
	sub.Args = env.Args[1:]
	return c.Run(ctx, sub)
}

func usage(w io.Writer) {
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	b.WriteString("usage: rngctl COMMAND [ARGS]\n\ncommands:\n")
	for _, n := range names {
		fmt.Fprintf(&b, "  %-12s %s\n", n, commands[n].Summary)
	}
	io.WriteString(w, b.String())
}
