package web

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"

	"tirage.fr/tirage/verifier/promo"
	"tirage.fr/tirage/verifier/promo/stakes"
	"tirage.fr/tirage/verifier/receipt"
	"tirage.fr/tirage/verifier/verdict"
)

// MaxInput is the most the page reads of a freeze's input file (a stake
// file or the closed-accounts file). rngverify freeze streams them, with
// no limit; the page holds each whole in memory, so it bounds them as it
// bounds an entrant list: the 10-million-row CSV stake file of
// docs/bench/promo.md (710 MB) fits.
const MaxInput = receipt.MaxEntrants

// MaxInputsTotal is the most the page reads of a freeze's input files
// together (the stake files and the closed-accounts file): each is bounded
// by MaxInput, but the page holds them all in memory at once, in the tab
// and in the verifier (whose WebAssembly memory is 4 GiB at most), so it
// bounds their sum too: two files at MaxInput fit, as does the 710 MB
// stake file of docs/bench/promo.md twice over. The files beyond are
// refused by name (NoteInputsRefused, MsgInputsTooLarge), as one over
// MaxInput is; rngverify freeze streams them, with no limit.
const MaxInputsTotal = 2 * MaxInput

// Notes on a freeze receipt's input files.
const (
	// NoteInputsMissing: a freeze receipt whose freeze binds input files,
	// checked without them (input-files skipped); the page says to give
	// the stake files, in the receipt's order, and the closed-accounts
	// file in their zones.
	NoteInputsMissing = "inputs-missing"
	// NoteRecomputeMissing: a freeze receipt checked with its input files
	// but without the draw's rules (entrants-recomputed skipped); the page
	// says to give the rules, and the entrant list, for the entrants to be
	// recomputed from the files.
	NoteRecomputeMissing = "recompute-missing"
	// NoteInputsRefused: an input file the page does not use — larger than
	// MaxInput, one that takes the files' sum over MaxInputsTotal, or a
	// closed-accounts file without stake files (as
	// rngverify freeze refuses --closed without --stakes); every freeze
	// receipt then fails input-files with the reason.
	NoteInputsRefused = "inputs-refused"
)

// docInput is the kind of the verdict on a refused input file.
const docInput = "input"

// Inputs are a promotion freeze's input files as the bailiff gave them to
// the page, read by ReadInputs: what rngverify freeze --stakes FILE …
// --closed FILE [--rules FILE] compares with the files the freeze binds
// and recomputes the entrants from.
type Inputs struct {
	refused []Result // the files refused, reported first
	// files: the files' roles and SHA-256s, and with rules the entrants
	// recomputed; nil when a file was refused.
	files *receipt.FreezeInputs
	// refusedWhy: why input-files fails (a file refused); recomputeWhy:
	// why entrants-recomputed fails (the rules refused, or a file that
	// stakes.Recompute refuses, as rngctl promo freeze would have).
	refusedWhy, recomputeWhy *verdict.Msg
	rules                    bool // the draw's rules were given
}

// ReadInputs reads a freeze's input files as rngverify freeze reads them:
// the stake files in the order given (the receipt's), then the closed
// accounts (closed, nil: none), each hashed; with the draw's rules (rules
// not nil, the rules zone's file), the entrants are recomputed from them
// too with stakes.Recompute, the code rngctl promo freeze counted them
// with. Nothing given: nil. A file larger than MaxInput, the file that
// takes their sum (by their sizes, File.size) over MaxInputsTotal, or a
// closed-accounts file without stake files, is refused by name
// (NoteInputsRefused), and no file is used. The result is the same for the same files: the page
// reads them once, and verifies with it on every call (VerifyInputs).
func ReadInputs(stakeFiles []File, closed *File, rules *File) *Inputs {
	if len(stakeFiles) == 0 && closed == nil {
		return nil
	}
	in := &Inputs{rules: rules != nil}
	refuse := func(f File, m verdict.Msg) {
		v := verdict.New(docInput, verdict.MsgSame, f.Name)
		v.Fail(promo.CheckInputFiles, verdict.MsgSame, m)
		in.refused = append(in.refused, Result{File: f.Name, Verdict: v, Note: NoteInputsRefused})
		if in.refusedWhy == nil {
			in.refusedWhy = &m
		}
	}
	all := stakeFiles
	if closed != nil {
		all = append(all[:len(all):len(all)], *closed)
		if len(stakeFiles) == 0 {
			refuse(*closed, verdict.M(verdict.MsgCLIClosedNoStakes))
		}
	}
	var total int64
	for _, f := range all {
		if f.size() > MaxInput {
			refuse(f, verdict.M(verdict.MsgFileTooLarge, f.Name, MaxInput>>20, verdict.M(verdict.MsgLimitInput)))
		}
		total += f.size()
	}
	if in.refusedWhy == nil && total > MaxInputsTotal {
		var sum int64
		for _, f := range all {
			if sum += f.size(); sum > MaxInputsTotal {
				refuse(f, verdict.M(verdict.MsgInputsTooLarge, f.Name, MaxInputsTotal>>20, (total+1<<20-1)>>20, len(all)))
				break
			}
		}
	}
	if in.refusedWhy != nil {
		return in
	}
	in.files = &receipt.FreezeInputs{}
	if rules != nil {
		r, why := parsedRules(*rules)
		if why != nil {
			in.recomputeWhy = why
		} else {
			sf := make([]stakes.File, len(stakeFiles))
			for i, f := range stakeFiles {
				sf[i] = stakes.File{Name: f.Name, R: bytes.NewReader(f.Data)}
			}
			var cf *stakes.File
			if closed != nil {
				cf = &stakes.File{Name: closed.Name, R: bytes.NewReader(closed.Data)}
			}
			rc, err := stakes.Recompute(context.Background(), r, sf, cf)
			if err == nil {
				in.files = &receipt.FreezeInputs{Files: rc.Inputs, RulesFile: rules.Data, Eligibility: rc.Eligibility, Rows: rc.Stats.Lines, Rejected: rc.Stats.Rejected}
				return in
			}
			m := verdict.M(verdict.MsgCLIRecompute, err)
			in.recomputeWhy = &m
		}
	}
	// The files' SHA-256s only (the rules not given, or refused with them).
	for _, f := range stakeFiles {
		in.files.Files = append(in.files.Files, promo.NewInputFile(promo.InputStakes, f.Name, sha256.Sum256(f.Data)))
	}
	if closed != nil {
		in.files.Files = append(in.files.Files, promo.NewInputFile(promo.InputClosed, closed.Name, sha256.Sum256(closed.Data)))
	}
	return in
}

// parsedRules is the rules of f, or why rngverify freeze --rules would
// refuse them (too large, or not rules: promo.ParseRules).
func parsedRules(f File) (*promo.Rules, *verdict.Msg) {
	var m verdict.Msg
	if f.size() > MaxRules {
		m = verdict.M(verdict.MsgCLIFreezeRules, f.Name, verdict.M(verdict.MsgFileTooLarge, f.Name, MaxRules>>20, verdict.M(verdict.MsgLimitRules)))
	} else if r, err := promo.ParseRules(f.Data); err != nil {
		m = verdict.M(verdict.MsgCLIFreezeRules, f.Name, receipt.Cause(err))
	} else {
		return r, nil
	}
	return nil, &m
}

// verifyFreeze verifies a freeze receipt with its draw's entrant list
// (list; listRefused, why a list of its draw was refused) and the input
// files given (in, nil: none), as rngverify freeze does, and names the
// note that says what more to give.
func verifyFreeze(file []byte, list *promo.EntrantList, listRefused *verdict.Msg, in *Inputs, a receipt.Anchors) (v *verdict.Verdict, notes []string) {
	var fin *receipt.FreezeInputs
	if in != nil {
		fin = in.files
	}
	v = receipt.VerifyFreezeFiles(file, list, listRefused, fin, a)
	if list == nil && listRefused == nil {
		notes = append(notes, NoteEntrantsMissing)
	}
	inputFiles := v.Find(promo.CheckInputFiles)
	switch {
	case in == nil:
		// Asked for only of a receipt that lists input files: one whose
		// freeze binds none has none to give (freeze-inputs says so).
		var probe struct {
			Inputs []json.RawMessage `json:"inputs"`
		}
		if json.Unmarshal(file, &probe); len(probe.Inputs) > 0 && inputFiles != nil && inputFiles.Status == verdict.StatusSkip {
			notes = append(notes, NoteInputsMissing)
		}
	case in.refusedWhy != nil:
		// Files were given and one is not used: input-files cannot pass.
		if inputFiles != nil {
			v.Set(promo.CheckInputFiles, verdict.StatusFail, verdict.MsgSame, *in.refusedWhy)
		}
	case in.recomputeWhy != nil:
		v.Set(promo.CheckEntrantsRecomputed, verdict.StatusFail, verdict.MsgSame, *in.recomputeWhy)
	case !in.rules:
		if c := v.Find(promo.CheckEntrantsRecomputed); c != nil && c.Status == verdict.StatusSkip {
			notes = append(notes, NoteRecomputeMissing)
		}
	}
	return v, notes
}
