package promo

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"strings"

	"tirage.fr/tirage/verifier/record"
	"tirage.fr/tirage/verifier/verdict"
)

// FreezeReceipt is the bailiff's receipt of a freeze (JSON, as
// FreezeReceiptJSON writes it): what was committed, when, and where in the
// log, with the proof. The appliance hands it over at the freeze with a PDF
// printing its SHA-256, and the private entrant list (EntrantList) whose
// SHA-256 it carries. VerifyFreezeReceipt checks it offline.
//
// Only the freeze record (Freeze), the checkpoint and the proof are the
// log's; every other member is what the receipt displays, checked against
// the record (count, root, commitment, reserves, beacon, share
// commitment, time, rules hash, leaf hash, input files), or informative: Title, Days,
// Withheld and Participants are the appliance's bookkeeping, in no record
// (Participants must be Count + Withheld).
type FreezeReceipt struct {
	V            int          `json:"v"` // 1
	Draw         string       `json:"draw"`
	Title        string       `json:"title"`
	RulesHash    string       `json:"rules_sha256"`
	Days         []string     `json:"days"`
	Count        uint64       `json:"count"`
	Root         string       `json:"entrants_root"`
	Commitment   string       `json:"commitment"`
	Reserves     uint64       `json:"reserves"`
	Beacon       string       `json:"beacon,omitempty"`
	FrozenAt     string       `json:"frozen_at"`
	Withheld     int          `json:"withheld_closed"`
	Participants int          `json:"participants"`
	Freeze       LoggedRecord `json:"freeze"`
	// FreezeLeafHash is the freeze record's RFC 6962 leaf hash: the stable
	// fingerprint of the freeze, shown again at the ceremony.
	FreezeLeafHash string   `json:"freeze_leaf_hash"`
	Checkpoint     string   `json:"checkpoint"` // signed note (c2sp.org/tlog-checkpoint)
	LogKeys        []string `json:"log_keys"`
	EntrantsFile   string   `json:"entrants_sha256"` // SHA-256 of the private entrant list file
	// ShareCommitment is the bailiff's share commitment the freeze holds
	// (hex), for the bailiff to compare with the one they computed; none
	// in freezes logged before freezes held one.
	ShareCommitment string `json:"share_commitment,omitempty"`
	// Inputs are the files the entrant list was computed from (the stake
	// files, then the closed accounts), whose roles and SHA-256s the
	// freeze binds (InputsDigest, promo_freeze inputs); none in freezes
	// logged before freezes bound them. The names are display only.
	Inputs []InputFile `json:"inputs,omitempty"`
}

// FreezeReceiptJSON is the receipt file's bytes (indented JSON); the PDF
// prints their SHA-256 (Fingerprint).
func FreezeReceiptJSON(r *FreezeReceipt) []byte {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		panic("promo: receipt encoding: " + err.Error()) // strings, numbers and slices only
	}
	return append(b, '\n')
}

// Names of the checks VerifyFreezeReceipt runs that Verify does not. It
// also runs CheckCheckpoint, CheckFreezeRecord, CheckFreezeInclusion,
// CheckRules and, with the entrant list, CheckEntrantList and
// CheckEntrantRoot; a failure is a *CheckError naming one of them.
const (
	// CheckReceiptFormat: the file is a freeze receipt of version 1.
	CheckReceiptFormat = verdict.CheckFormat
	// CheckReceiptFields: what the receipt displays is the logged record's.
	CheckReceiptFields = "receipt-fields"
	// CheckEntrantsFile: the list's SHA-256 is the receipt's entrants_sha256.
	CheckEntrantsFile = "entrants-sha256"
	// CheckFreezeInputs: the input files the receipt lists are those the
	// freeze record binds (InputsDigest); a freeze binding none (logged
	// before freezes did) is no error, FreezeVerified.Inputs nil (the
	// verdict shows it skipped: receipt.VerifyFreeze).
	CheckFreezeInputs = "freeze-inputs"
	// CheckInputFiles: the files the bailiff was given are the freeze's
	// input files (CompareInputFiles).
	CheckInputFiles = "input-files"
	// CheckEntrantsRecomputed: the entrant list recomputed from the input
	// files under the frozen rules is the frozen one (CheckRecomputed).
	CheckEntrantsRecomputed = "entrants-recomputed"
)

// FreezeVerified is what a successful VerifyFreezeReceipt established.
type FreezeVerified struct {
	Draw      string
	Operation string
	RulesHash string // hex
	Index     uint64 // the freeze record's log index
	LeafHash  string // hex, the freeze record's leaf hash
	TreeSize  uint64 // the checkpoint's tree size
	LogOrigin string
	LogKeys   []string
	Freeze    *record.PromoFreeze
	// EntrantsFile is the entrant list file's SHA-256 (hex), only when the
	// list was given and checked.
	EntrantsFile string
	// Inputs are the input files the freeze binds, as the receipt lists
	// them (checked against the record); nil when it binds none.
	Inputs []InputFile
}

// VerifyFreezeReceipt checks a freeze receipt file offline: that it is one
// (strictly: no unknown or repeated member, nothing after it, version 1 —
// as Verify reads a certificate), that its checkpoint is signed by the log
// keys (a.LogKeys; empty: the receipt's own, as for Verify), that its
// record is a promo_freeze record included in that checkpoint at its
// index, that it holds the share commitment it must (CheckShareCommitted),
// that the receipt displays what that record says (draw, count,
// entrant root, commitment, reserves, beacon, share commitment, time,
// rules hash, leaf hash), that its input files are those the record binds
// (CheckFreezeInputs) and, with the bailiff's entrant list, that the
// list is this draw's, canonical, hashes under its key to the frozen root
// and count, and is the file whose SHA-256 the receipt gives. Only
// a.LogKeys is used of the anchors: a freeze holds no VRF proof, and its
// ranking and dates are checked with the draw (Verify).
//
// A receipt is a file anyone can edit: none of its failures proves
// anything against the appliance, and every error is a *CheckError.
func VerifyFreezeReceipt(file []byte, list *EntrantList, a Anchors) (*FreezeVerified, error) {
	var r FreezeReceipt
	if err := decodeStrict(file, &r); err != nil {
		return nil, fail(CheckReceiptFormat, verdict.MsgFreezeNotReceipt, err)
	}
	if r.V != 1 {
		return nil, fail(CheckReceiptFormat, verdict.MsgPromoVersion, r.V)
	}
	v := &FreezeVerified{LogKeys: r.LogKeys}
	if len(a.LogKeys) > 0 {
		v.LogKeys = a.LogKeys
	}

	// 1. The checkpoint is signed by the log keys.
	cp, err := openCheckpoint(r.Checkpoint, v.LogKeys)
	if err != nil {
		return nil, err
	}
	v.TreeSize, v.LogOrigin = uint64(cp.Size), cp.Origin

	// 2. The record is a promo_freeze record, in the checkpoint's tree at
	//    its index.
	f, err := loggedFreeze(cp.Tree(), r.Freeze)
	if err != nil {
		return nil, err
	}
	lh := record.LeafHash([]byte(r.Freeze.Record))
	v.Freeze, v.Draw, v.Index, v.LeafHash = f, f.Draw, r.Freeze.Index, hex.EncodeToString(lh[:])

	// 3. The rules are the frozen ones.
	if v.Operation, v.RulesHash, err = frozenRules(f, r.RulesHash, verdict.MsgFreezeRulesDiffer); err != nil {
		return nil, err
	}

	// 3b. A freeze announcing a beacon holds the bailiff's share
	//     commitment, unless it is older than them: the bailiff, who gave
	//     theirs, learns before the ceremony that it was left out.
	if err := CheckShareCommitted(f); err != nil {
		return nil, fail(CheckShareCommitment, verdict.MsgPromoErr, err)
	}

	// 4. Every member the receipt displays is the record's.
	for _, m := range []struct{ name, shown, logged string }{
		{"draw", r.Draw, f.Draw},
		{"count", strconv.FormatUint(r.Count, 10), strconv.FormatUint(f.Count, 10)},
		{"entrants_root", r.Root, hex.EncodeToString(f.Root[:])},
		{"commitment", r.Commitment, hex.EncodeToString(f.Commit[:])},
		{"reserves", strconv.FormatUint(r.Reserves, 10), strconv.FormatUint(f.Reserves, 10)},
		{"beacon", r.Beacon, f.Beacon},
		{"share_commitment", r.ShareCommitment, ShareCommitmentHex(f)},
		{"frozen_at", r.FrozenAt, FormatTime(f.Time)},
		{"freeze_leaf_hash", r.FreezeLeafHash, v.LeafHash},
	} {
		if m.shown != m.logged {
			return nil, fail(CheckReceiptFields, verdict.MsgFreezeField, m.name, m.shown, m.logged)
		}
	}
	// The appliance's bookkeeping, in no record, must add up: the
	// participants are the entrants and those withheld (closed accounts),
	// and the list's SHA-256, printed whether or not the list is given,
	// must be one.
	if r.Withheld < 0 || r.Participants < 0 || uint64(r.Participants) != r.Count+uint64(r.Withheld) {
		return nil, fail(CheckReceiptFields, verdict.MsgFreezeParticipants, r.Participants, r.Count, r.Withheld)
	}
	if len(r.EntrantsFile) != 2*sha256.Size || strings.Trim(r.EntrantsFile, "0123456789abcdef") != "" {
		return nil, fail(CheckReceiptFields, verdict.MsgFreezeListDigest, r.EntrantsFile)
	}

	// 4b. The input files the receipt lists are those the freeze binds:
	//     their roles and SHA-256s, in order, encode to its inputs.
	if err := checkFreezeInputs(f, r.Inputs); err != nil {
		return nil, err
	}
	if len(r.Inputs) > 0 {
		v.Inputs = r.Inputs
	}

	// 5. The bailiff's path: the list is the frozen one, and the file the
	//    receipt names.
	if list == nil {
		return v, nil
	}
	if err := checkFrozenList(list, f); err != nil {
		return nil, err
	}
	// ParseEntrantList accepts only the bytes Format gives back, so this is
	// the SHA-256 of the file the bailiff holds.
	h := sha256.Sum256(list.Format())
	if v.EntrantsFile = hex.EncodeToString(h[:]); v.EntrantsFile != r.EntrantsFile {
		return nil, fail(CheckEntrantsFile, verdict.MsgFreezeListFile, v.EntrantsFile, r.EntrantsFile)
	}
	return v, nil
}

// checkFreezeInputs: the input files a receipt lists encode to the inputs
// the freeze f binds, and list none when it binds none.
func checkFreezeInputs(f *record.PromoFreeze, files []InputFile) error {
	if f.Inputs == ([32]byte{}) {
		if len(files) > 0 {
			return fail(CheckFreezeInputs, verdict.MsgFreezeInputsUnbound, len(files))
		}
		return nil
	}
	d, err := InputsDigest(files)
	if err != nil {
		return fail(CheckFreezeInputs, verdict.MsgFreezeInputsBad, err)
	}
	if d != f.Inputs {
		return fail(CheckFreezeInputs, verdict.MsgFreezeInputsDiffer, len(files), hex.EncodeToString(d[:]), hex.EncodeToString(f.Inputs[:]))
	}
	return nil
}

// ShareCommitmentHex is the share commitment the freeze f holds, in hex, as
// a freeze receipt shows it; "" when it holds none.
func ShareCommitmentHex(f *record.PromoFreeze) string {
	if f.ShareCommitment == ([32]byte{}) {
		return ""
	}
	return hex.EncodeToString(f.ShareCommitment[:])
}
