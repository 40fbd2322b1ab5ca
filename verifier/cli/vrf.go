package cli

import (
	"bytes"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"tirage.fr/tirage/verifier/receipt"
	"tirage.fr/tirage/verifier/verdict"
	"tirage.fr/tirage/verifier/vrf"
)

func init() {
	register("vrf", verdict.MsgCmdVRF, runVRF)
}

func runVRF(env Env) int {
	lang := langOf(env.Args)
	fs := flag.NewFlagSet("rngverify vrf", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	suiteName := fs.String("suite", "", "")
	pkHex := fs.String("pk", "", "")
	alphaHex := fs.String("alpha", "", "")
	proofHex := fs.String("proof", "", "")
	betaHex := fs.String("beta", "", "")
	langFlag := fs.String("lang", "en", "")
	say := func(w io.Writer, id verdict.MsgID, args ...any) {
		io.WriteString(w, verdict.M(id, args...).Text(lang)+"\n")
	}
	usageErr := func(why verdict.Msg) int {
		say(env.Stderr, verdict.MsgCLIUsageErr, "vrf", why, "vrf")
		return ExitUsage
	}
	if err := fs.Parse(env.Args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			io.WriteString(env.Stderr, verdict.M(verdict.MsgVRFUsage).Text(lang))
			return ExitOK
		}
		return usageErr(flagError(err))
	}
	if fs.NArg() > 0 {
		return usageErr(verdict.M(verdict.MsgCLIUnexpected, fs.Arg(0)))
	}
	if err := checkLang(*langFlag); err != nil {
		return usageErr(receipt.Cause(err))
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	for _, name := range []string{"suite", "pk", "alpha", "proof"} {
		if !set[name] {
			return usageErr(verdict.M(verdict.MsgCLIMissingFlag, name))
		}
	}
	suite, err := vrf.ParseSuite(*suiteName)
	if err != nil {
		return usageErr(verdict.M(verdict.MsgCLISuite, verdict.M(verdict.MsgUnknownSuite, *suiteName)))
	}
	values := map[string][]byte{}
	for _, f := range []struct {
		name string
		hex  string
	}{{"pk", *pkHex}, {"alpha", *alphaHex}, {"proof", *proofHex}, {"beta", *betaHex}} {
		if f.name == "beta" && !set["beta"] {
			continue
		}
		b, err := hex.DecodeString(f.hex)
		if err != nil {
			return usageErr(hexError(f.name, err))
		}
		values[f.name] = b
	}

	pk, err := vrf.ParsePublicKey(suite, values["pk"])
	if err != nil {
		// The key's defect is a message of the catalog (vrf's refused keys).
		say(env.Stderr, verdict.MsgVRFRejected, "--pk", verdict.M(verdict.MsgVRFKeyInvalidFor, suite, receipt.CauseText(err, strings.TrimPrefix(err.Error(), "vrf: "))))
		return ExitFail
	}
	beta, err := vrf.Verify(pk, values["alpha"], values["proof"])
	if err != nil {
		// The reason is a message of the catalog (vrf's invalid proof).
		say(env.Stderr, verdict.MsgVRFRejected, "--proof", receipt.CauseText(err, strings.TrimPrefix(err.Error(), "vrf: ")))
		return ExitFail
	}
	if want, ok := values["beta"]; ok && !bytes.Equal(want, beta) {
		say(env.Stderr, verdict.MsgVRFBetaDiffers, beta)
		return ExitFail
	}
	fmt.Fprintf(env.Stdout, "%x\n", beta)
	return ExitOK
}

// hexError is the reason a flag's value is not hex (encoding/hex's errors,
// without their package prefix in English).
func hexError(name string, err error) verdict.Msg {
	var ib hex.InvalidByteError
	switch {
	case errors.As(err, &ib):
		return verdict.M(verdict.MsgCLINotHexByte, name, fmt.Sprintf("%#U", rune(ib)))
	case errors.Is(err, hex.ErrLength):
		return verdict.M(verdict.MsgCLINotHexOdd, name)
	}
	return verdict.M(verdict.MsgColon, name, receipt.Cause(err))
}

// flagError is the reason package flag refused the arguments: its two
// usual errors in the catalog (same English text), others as they are.
func flagError(err error) verdict.Msg {
	s := err.Error()
	if name, ok := strings.CutPrefix(s, "flag provided but not defined: -"); ok {
		return verdict.M(verdict.MsgCLIFlagUnknown, name)
	}
	if name, ok := strings.CutPrefix(s, "flag needs an argument: -"); ok {
		return verdict.M(verdict.MsgCLIFlagValue, name)
	}
	if m, ok := flagValueError(s); ok {
		return m
	}
	return receipt.Cause(err)
}

// flagValueError reads package flag's refusal of a flag's value, s: an
// int or duration flag's ("invalid value %q for flag -%s: %v") or a
// boolean flag's ("invalid boolean value %q for -%s: %v"), the reason
// being flag's "parse error" or "value out of range".
func flagValueError(s string) (verdict.Msg, bool) {
	for _, f := range []struct {
		prefix, infix string
		id            verdict.MsgID
	}{
		{"invalid value ", " for flag -", verdict.MsgCLIFlagInvalid},
		{"invalid boolean value ", " for -", verdict.MsgCLIFlagBool},
	} {
		rest, ok := strings.CutPrefix(s, f.prefix)
		if !ok {
			continue
		}
		q, err := strconv.QuotedPrefix(rest)
		if err != nil {
			return verdict.Msg{}, false
		}
		value, _ := strconv.Unquote(q)
		rest, ok = strings.CutPrefix(rest[len(q):], f.infix)
		name, why, cut := strings.Cut(rest, ": ")
		reason := map[string]verdict.MsgID{"parse error": verdict.MsgCLIFlagParse, "value out of range": verdict.MsgCLIFlagOutRange}[why]
		if !ok || !cut || reason == "" {
			return verdict.Msg{}, false
		}
		return verdict.M(f.id, value, name, verdict.M(reason)), true
	}
	return verdict.Msg{}, false
}
