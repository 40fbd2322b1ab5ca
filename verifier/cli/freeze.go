package cli

import (
	"context"
	"errors"
	"flag"
	"io"
	"os"
	"slices"

	"tirage.fr/tirage/verifier/promo"
	"tirage.fr/tirage/verifier/promo/stakes"
	"tirage.fr/tirage/verifier/receipt"
	"tirage.fr/tirage/verifier/verdict"
)

func init() {
	register("freeze", verdict.MsgCmdFreeze, runFreeze)
}

// runFreeze is rngverify freeze FILE [--entrants LIST] [--stakes FILE ...
// --closed FILE]: the bailiff checks the receipt the appliance gave at a
// promotion's freeze, and the input files the operator gave them.
func runFreeze(env Env) int {
	c := newCommon("freeze")
	entrants := c.fs.String("entrants", "", "")
	var stakes multiFlag
	c.fs.Var(&stakes, "stakes", "")
	closed := c.fs.String("closed", "", "")
	rules := c.fs.String("rules", "", "")
	account := c.fs.String("account", "", "")
	pos, err := c.parse(env.Args)
	if errors.Is(err, flag.ErrHelp) {
		return c.help(env, verdict.MsgUsageFreeze)
	}
	if err != nil {
		return c.usageErr(env, flagError(err))
	}
	switch {
	case len(pos) == 0:
		return c.usageErr(env, verdict.M(verdict.MsgCLIMissingFreeze))
	case len(pos) > 1:
		return c.usageErr(env, verdict.M(verdict.MsgCLIUnexpected, pos[1]))
	}
	a, err := c.anchors()
	if err != nil {
		return c.usageErr(env, receipt.Cause(err))
	}
	// A receipt carries its log's keys; trusting them would check nothing.
	// A freeze has no VRF proof: a --vrf-key anchors it only as a key
	// announcement, whose log keys anchors pins by fingerprint.
	if len(c.logKeys)+len(c.pins) == 0 && *c.state == "" && !slices.ContainsFunc(a.Pins, barePin) {
		return c.usageErr(env, verdict.M(verdict.MsgCLINoAnchorFreeze))
	}
	var list *promo.EntrantList
	// listRefused: the list given is not one (promo.ParseEntrantList's
	// reason); the receipt is still checked, and both are shown.
	var listRefused *verdict.Msg
	if *entrants != "" {
		b, err := readFileHead(*entrants, maxEntrants, verdict.MsgLimitEntrants, receipt.EntrantsHead)
		if err != nil {
			return c.usageErr(env, verdict.M(verdict.MsgCLIReadEntrants, receipt.Cause(fileErr(err))))
		}
		if list, err = promo.ParseEntrantList(b); err != nil {
			why := verdict.M(verdict.MsgColon, *entrants, receipt.Cause(err))
			listRefused = &why
		}
	}
	if *closed != "" && len(stakes) == 0 {
		return c.usageErr(env, verdict.M(verdict.MsgCLIClosedNoStakes))
	}
	// "-" is standard input, which is read once: for the receipt or for
	// one input file.
	if n := countDash(append([]string{pos[0], *closed}, stakes...)); n > 1 {
		return c.usageErr(env, verdict.M(verdict.MsgCLIStdinTwice, n))
	}
	if *rules != "" && (len(stakes) == 0 || *entrants == "") {
		return c.usageErr(env, verdict.M(verdict.MsgCLIFreezeRecompute))
	}
	// A player disputes the draw: the account's answer needs the list's
	// key; its rows are noted as the files are read, with everyone's.
	accountSet := false
	c.fs.Visit(func(f *flag.Flag) { accountSet = accountSet || f.Name == "account" })
	if accountSet {
		switch {
		case promo.CheckAccount(*account) != nil:
			return c.usageErr(env, verdict.M(verdict.MsgCLIAccountBad, *account))
		case *entrants == "":
			return c.usageErr(env, verdict.M(verdict.MsgCLIAccountNoList))
		}
	}
	inputs := &receipt.FreezeInputs{}
	if *rules != "" {
		// The entrants recomputed from the files, hashed as they are read.
		if inputs, err = recomputeEntrants(env, *rules, stakes, *closed, *account); err != nil {
			return c.usageErr(env, receipt.Cause(err))
		}
	} else {
		// The input files are hashed as they are read (a stake file may
		// hold millions of rows): only their SHA-256s are compared.
		for _, in := range []struct {
			role, flag string
			names      []string
		}{{promo.InputStakes, "--stakes", stakes}, {promo.InputClosed, "--closed", nonEmpty(*closed)}} {
			for _, name := range in.names {
				sum, err := fileSHA256(env, name)
				if err != nil {
					return c.usageErr(env, verdict.M(verdict.MsgCLIReadInput, in.flag, name, receipt.Cause(fileErr(err))))
				}
				inputs.Files = append(inputs.Files, promo.NewInputFile(in.role, name, sum))
			}
		}
	}
	inputs.Account = *account
	c.input = pos[0]
	file, err := readInput(env, pos[0])
	if err != nil {
		return c.usageErr(env, verdict.M(verdict.MsgCLIReadFreeze, receipt.Cause(fileErr(err))))
	}
	if c.otherCommand(env, file, pos[0]) {
		return ExitUsage
	}
	return c.report(env, receipt.VerifyFreezeFiles(file, list, listRefused, inputs, a), nil)
}

// recomputeEntrants reads the rules and the input files (each once,
// hashed as it is read) and recomputes the eligibility from them with
// stakes.Recompute, the code rngctl promo freeze reads them with.
// The rows of account (none: "") are noted as they are read.
func recomputeEntrants(env Env, rulesPath string, stakeNames []string, closedName, account string) (*receipt.FreezeInputs, error) {
	rulesFile, err := readFileMax(rulesPath, maxRules, verdict.MsgLimitRules)
	if err != nil {
		return nil, verdict.Errorf(verdict.MsgCLIFreezeRules, rulesPath, receipt.Cause(fileErr(err)))
	}
	r, err := promo.ParseRules(rulesFile)
	if err != nil {
		return nil, verdict.Errorf(verdict.MsgCLIFreezeRules, rulesPath, receipt.Cause(err))
	}
	var files []io.Closer
	defer func() {
		for _, f := range files {
			f.Close()
		}
	}()
	open := func(flag, name string) (stakes.File, error) {
		f, err := openInputFile(env, name)
		if err != nil {
			return stakes.File{}, verdict.Errorf(verdict.MsgCLIReadInput, flag, name, receipt.Cause(fileErr(err)))
		}
		files = append(files, f)
		return stakes.File{Name: name, R: f}, nil
	}
	var sf []stakes.File
	for _, name := range stakeNames {
		f, err := open("--stakes", name)
		if err != nil {
			return nil, err
		}
		sf = append(sf, f)
	}
	var cf *stakes.File
	if closedName != "" {
		f, err := open("--closed", closedName)
		if err != nil {
			return nil, err
		}
		cf = &f
	}
	rc, err := stakes.RecomputeAccount(context.Background(), r, sf, cf, account)
	if err != nil {
		return nil, verdict.Errorf(verdict.MsgCLIRecompute, err)
	}
	return &receipt.FreezeInputs{Files: rc.Inputs, RulesFile: rulesFile, Eligibility: rc.Eligibility, Rows: rc.Stats.Lines, Rejected: rc.Stats.Rejected}, nil
}

// fileSHA256 is the SHA-256 of the file at path ("-": standard input),
// read once, streamed.
func fileSHA256(env Env, path string) ([32]byte, error) {
	f, err := openInputFile(env, path)
	if err != nil {
		return [32]byte{}, err
	}
	defer f.Close()
	return stakes.Hashed(f, func(io.Reader) error { return nil })
}

// openInputFile opens an input file of a freeze, "-" being standard input.
func openInputFile(env Env, path string) (io.ReadCloser, error) {
	if path == "-" {
		return io.NopCloser(env.Stdin), nil
	}
	return os.Open(path)
}

// countDash counts the names that are "-" (standard input).
func countDash(names []string) int {
	n := 0
	for _, name := range names {
		if name == "-" {
			n++
		}
	}
	return n
}

// nonEmpty is []string{s}, or none for "".
func nonEmpty(s string) []string {
	if s == "" {
		return nil
	}
	return []string{s}
}

// barePin reports whether p pins a key by its fingerprint alone (a log
// key's pin; a VRF key's names its suite).
func barePin(p string) bool {
	suite, _, err := receipt.ParsePin(p)
	return err == nil && suite == ""
}
