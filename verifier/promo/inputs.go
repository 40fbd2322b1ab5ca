package promo

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"strings"

	"tirage.fr/tirage/verifier/record"
	"tirage.fr/tirage/verifier/verdict"
)

// Roles of a freeze's input files (InputFile.Role).
const (
	// InputStakes is a stake file (rngctl promo freeze --stakes), in the
	// order given: the rows the entrants were counted from.
	InputStakes = "stakes"
	// InputClosed is the closed-accounts file (--closed), whose accounts
	// were withheld; after the stake files, and at most one.
	InputClosed = "closed"
)

// InputFile is one of the files a freeze's entrant list was computed from,
// as the freeze receipt lists it.
type InputFile struct {
	Role string `json:"role"` // InputStakes or InputClosed
	// Name is the file's name as given to rngctl: display only, not
	// hashed (the bailiff's copy may have another).
	Name   string `json:"name"`
	SHA256 string `json:"sha256"` // the file's SHA-256, 64 lowercase hex digits
}

// NewInputFile is the InputFile of a file named name of role role whose
// SHA-256 is sum.
func NewInputFile(role, name string, sum [32]byte) InputFile {
	return InputFile{Role: role, Name: name, SHA256: hex.EncodeToString(sum[:])}
}

// InputsDigest is what a freeze's record binds of its input files
// (promo_freeze inputs): the SHA-256 of their roles and SHA-256s, in
// order, domain-separated and length-prefixed:
//
//	SHA-256("tirage/freeze-inputs/v1" || u32be(n) ||
//	        for each of the n files: u32be(len(role)) || role || SHA-256(file))
//
// with SHA-256(file) as its 32 bytes. The files are the stake files in the
// order rngctl read them, then the closed-accounts file if one was given;
// their names are not bound. It fails (naming the file, from 1) when the
// list is empty, holds no stake file, a role other than InputStakes or
// InputClosed, a closed-accounts file that is not the last, or a SHA-256
// that is not 64 lowercase hex digits: such a list is no freeze's.
func InputsDigest(files []InputFile) ([32]byte, error) {
	pre, err := inputsPreimage(files)
	if err != nil {
		return [32]byte{}, err
	}
	return sha256.Sum256(pre), nil
}

// inputsPreimage is what InputsDigest hashes.
func inputsPreimage(files []InputFile) ([]byte, error) {
	if len(files) == 0 || files[0].Role != InputStakes {
		return nil, verdict.Errorf(verdict.MsgFreezeInputsNoStakes)
	}
	b := append([]byte("tirage/freeze-inputs/v1"), binary.BigEndian.AppendUint32(nil, uint32(len(files)))...)
	for i, f := range files {
		switch {
		case f.Role != InputStakes && f.Role != InputClosed:
			return nil, verdict.Errorf(verdict.MsgFreezeInputRole, i+1, clip(f.Role))
		case f.Role == InputClosed && i != len(files)-1:
			return nil, verdict.Errorf(verdict.MsgFreezeInputClosedLast, i+1)
		}
		sum, err := hex.DecodeString(f.SHA256)
		if err != nil || len(sum) != sha256.Size || strings.ToLower(f.SHA256) != f.SHA256 {
			return nil, verdict.Errorf(verdict.MsgFreezeInputDigest, i+1, clip(f.SHA256))
		}
		b = binary.BigEndian.AppendUint32(b, uint32(len(f.Role)))
		b = append(append(b, f.Role...), sum...)
	}
	return b, nil
}

// CompareInputFiles compares the files the bailiff was given (given: their
// roles and SHA-256s, in the order of the freeze's) with those a freeze
// binds (bound: a verified receipt's list, FreezeVerified.Inputs): a
// *CheckError of CheckInputFiles naming the first file that differs, or
// the role whose count differs.
func CompareInputFiles(bound, given []InputFile) error {
	for _, role := range []string{InputStakes, InputClosed} {
		if n, m := countRole(bound, role), countRole(given, role); n != m {
			return fail(CheckInputFiles, verdict.MsgInputFilesCount, verdict.Term(role), m, n)
		}
	}
	// Same counts by role, stakes first in both: the files pair up in order.
	for i, g := range given {
		b := bound[i]
		if g.Role != b.Role || g.SHA256 != b.SHA256 {
			return fail(CheckInputFiles, verdict.MsgInputFileDiffers, verdict.Term(g.Role), g.Name, g.SHA256, verdict.Term(b.Role), i+1, b.Name, b.SHA256)
		}
	}
	return nil
}

func countRole(files []InputFile, role string) int {
	n := 0
	for _, f := range files {
		if f.Role == role {
			n++
		}
	}
	return n
}

// CheckRecomputed checks the entrant list recomputed from a freeze's input
// files against the freeze f: rulesFile must be the rules f binds
// (RulesOfFreeze), el the eligibility computed from the files under them
// (package stakes' Recompute: the code rngctl froze with), and the frozen
// draw's entrants of el, under the list's key K (the bailiff's entrant
// list), must hash to f's root and count. A *CheckError of
// CheckEntrantsRecomputed otherwise: the frozen list is not the one these
// files give.
func CheckRecomputed(f *record.PromoFreeze, rulesFile []byte, el *Eligibility, key [32]byte) error {
	r, j, err := RulesOfFreeze(rulesFile, f)
	if err != nil {
		return fail(CheckEntrantsRecomputed, verdict.MsgPromoErr, err)
	}
	if el == nil || el.rules == nil || len(el.Entrants) != len(r.Draws) || el.rules.FullDrawID(j) != f.Draw {
		return fail(CheckEntrantsRecomputed, verdict.MsgRecomputedRules)
	}
	list := &EntrantList{Draw: f.Draw, Key: key, Accounts: el.Entrants[j], Scheme: f.EntrantScheme}
	t, err := list.Tree()
	if err != nil {
		return fail(CheckEntrantsRecomputed, verdict.MsgPromoErr, err)
	}
	switch {
	case uint64(t.Size()) != f.Count:
		return fail(CheckEntrantsRecomputed, verdict.MsgRecomputedCount, t.Size(), f.Count)
	case t.Root() != f.Root:
		return fail(CheckEntrantsRecomputed, verdict.MsgRecomputedRoot, t.Size())
	}
	return nil
}
