package ctl

import (
	"flag"
	"slices"
	"unicode/utf8"
)

// onlyFlags refuses, as a usage error naming the flag and the subcommand,
// any flag given on the command line that the subcommand fs.Name() (e.g.
// "emission list") does not use. The subcommands of a group share its flag
// set: a flag accepted and ignored would do other than the operator asked
// (qod sweep --game G sweeping every expired game). used names the
// subcommand's flags, without their dashes. ok is false when the caller
// should return code.
func onlyFlags(env Env, fs *flag.FlagSet, used ...string) (code int, ok bool) {
	var unused string
	fs.Visit(func(f *flag.Flag) {
		if unused == "" && !slices.Contains(used, f.Name) {
			unused = f.Name
		}
	})
	if unused != "" {
		return usageError(env, fs.Name(), "%s: --%s is not a flag of %s", fs.Name(), unused, fs.Name()), false
	}
	return 0, true
}

// textFlags refuses, as a usage error naming the flag, a flag among names
// whose value is not valid UTF-8: those values go to rngd in protobuf
// strings, which must be UTF-8, and the marshalling error would not say
// which flag holds the bad bytes. ok is false when the caller should return
// code.
func textFlags(env Env, fs *flag.FlagSet, names ...string) (code int, ok bool) {
	for _, n := range names {
		if !utf8.ValidString(fs.Lookup(n).Value.String()) {
			return usageError(env, fs.Name(), "%s: --%s is not valid UTF-8", fs.Name(), n), false
		}
	}
	return 0, true
}
