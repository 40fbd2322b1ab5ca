package promo

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"golang.org/x/mod/sumdb/tlog"

	"tirage.fr/tirage/verifier/verdict"
)

// EntrantProof is a player's proof of their own entry in a frozen draw
// (JSON, as EntrantProofJSON writes it; rngctl promo entrant-proof, checked
// by rngverify entrant): the account, its scheme 2 opening salt_i
// (EntrantSalt), its index in the frozen list with the leaf's inclusion
// proof in the frozen entrants_root, and the freeze receipt the root is
// read from (its record, inclusion proof and checkpoint: VerifyFreezeReceipt).
// It reveals no other entrant: their leaves stay hidden without their salts.
type EntrantProof struct {
	V       int      `json:"v"` // 1
	Draw    string   `json:"draw"`
	Account string   `json:"account"`
	Salt    string   `json:"salt"` // salt_i, hex
	Index   uint64   `json:"index"`
	Count   uint64   `json:"count"`
	Proof   []string `json:"proof"` // the leaf's RFC 6962 audit path in the entrant tree, hex
	// FreezeReceipt is the freeze receipt (FreezeReceipt) of the draw.
	FreezeReceipt json.RawMessage `json:"freeze_receipt"`
}

// EntrantProofJSON is the proof file's bytes (indented JSON). Its freeze
// receipt must be JSON (NewEntrantProof checks it).
func EntrantProofJSON(p *EntrantProof) []byte {
	b, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		panic("promo: entrant proof encoding: " + err.Error()) // a receipt that is not JSON
	}
	return append(b, '\n')
}

// ErrNotEntrant: the account is not in the frozen entrant list.
var ErrNotEntrant = errors.New("not in the frozen entrant list")

// ErrEntrantSchemeV1: a freeze of scheme 1 has no opening of one entrant.
var ErrEntrantSchemeV1 = errors.New("the freeze commits its entrants under scheme 1 (made before entrant proofs existed): no entrant can be proven alone")

// NewEntrantProof makes account's entrant proof from the draw's entrant
// list (under the freeze's scheme: EntrantList.ForFreeze), its tree and the
// draw's freeze receipt (the receipt file's bytes). ErrNotEntrant when the
// account is not in the list, ErrEntrantSchemeV1 for a scheme 1 freeze.
func NewEntrantProof(list *EntrantList, tree *EntrantTree, receiptFile []byte, account string) (*EntrantProof, error) {
	if list.Scheme != EntrantSchemeV2 || tree.Scheme() != EntrantSchemeV2 {
		return nil, fmt.Errorf("%s: %w", list.Draw, ErrEntrantSchemeV1)
	}
	if int64(len(list.Accounts)) != tree.Size() {
		return nil, fmt.Errorf("%s: the entrant tree is not the list's", list.Draw)
	}
	if !json.Valid(receiptFile) {
		return nil, fmt.Errorf("%s: the freeze receipt is not JSON", list.Draw)
	}
	i, in := slices.BinarySearch(list.Accounts, account)
	if !in {
		return nil, fmt.Errorf("%s: account %q: %w", list.Draw, clip(account), ErrNotEntrant)
	}
	p, err := tree.Prove(int64(i))
	if err != nil {
		return nil, err
	}
	salt := EntrantSalt(list.Key, list.Draw, account)
	return &EntrantProof{
		V: 1, Draw: list.Draw, Account: account, Salt: hex.EncodeToString(salt[:]),
		Index: uint64(i), Count: uint64(tree.Size()), Proof: ProofHex(p),
		FreezeReceipt: json.RawMessage(receiptFile),
	}, nil
}

// Names of the checks VerifyEntrantProof runs after the freeze receipt's
// (VerifyFreezeReceipt's without the entrant list).
const (
	// CheckEntrantScheme: the freeze commits its entrants under scheme 2.
	CheckEntrantScheme = "entrant-scheme"
	// CheckEntrantInclusion: the leaf recomputed from the draw, the
	// account and its salt is the proof's index in the frozen root.
	CheckEntrantInclusion = "entrant-inclusion"
)

// EntrantVerified is what a successful VerifyEntrantProof established.
type EntrantVerified struct {
	Freeze  *FreezeVerified
	Account string
	Index   uint64
	Count   uint64
	Leaf    tlog.Hash
	Proof   int // the inclusion proof's number of hashes
}

// Pseudonym is the entrant's public id, as the certificate prints it.
func (v *EntrantVerified) Pseudonym() string { return Pseudonym(v.Leaf) }

// VerifyEntrantProof checks an entrant proof file offline: that it is one
// (strictly, version 1, a valid account and a 32-byte salt), that its
// freeze receipt verifies under the log keys a.LogKeys
// (VerifyFreezeReceipt, without the private list), that the freeze
// commits its entrants under scheme 2 (CheckEntrantScheme), and that the
// leaf recomputed from the freeze's draw, the account and the salt is the
// entrant at the proof's index of the frozen root and count
// (CheckEntrantInclusion). Every error is a *CheckError.
func VerifyEntrantProof(file []byte, a Anchors) (*EntrantVerified, error) {
	var p EntrantProof
	if err := decodeStrict(file, &p); err != nil {
		return nil, fail(CheckReceiptFormat, verdict.MsgEntrantNotProof, err)
	}
	if p.V != 1 {
		return nil, fail(CheckReceiptFormat, verdict.MsgPromoVersion, p.V)
	}
	if !validAccount(p.Account) {
		return nil, fail(CheckReceiptFormat, verdict.MsgEntrantAccount, clip(p.Account))
	}
	var salt [32]byte
	if b, err := hex.DecodeString(p.Salt); err != nil || len(b) != len(salt) || hex.EncodeToString(b) != p.Salt {
		return nil, fail(CheckReceiptFormat, verdict.MsgEntrantSalt)
	} else {
		copy(salt[:], b)
	}
	fv, err := VerifyFreezeReceipt(p.FreezeReceipt, nil, a)
	if err != nil {
		return nil, err
	}
	f := fv.Freeze
	if f.EntrantScheme != EntrantSchemeV2 {
		return nil, fail(CheckEntrantScheme, verdict.MsgEntrantSchemeOld, EntrantSchemeName(f.EntrantScheme))
	}
	switch {
	case p.Draw != f.Draw:
		return nil, fail(CheckEntrantInclusion, verdict.MsgEntrantField, "draw", strconv.Quote(clip(p.Draw)), strconv.Quote(f.Draw))
	case p.Count != f.Count:
		return nil, fail(CheckEntrantInclusion, verdict.MsgEntrantField, "count", strconv.FormatUint(p.Count, 10), strconv.FormatUint(f.Count, 10))
	case p.Index >= f.Count || f.Count > 1<<62:
		return nil, fail(CheckEntrantInclusion, verdict.MsgEntrantIndex, p.Index, f.Count)
	}
	proof := make(tlog.RecordProof, len(p.Proof))
	for i, s := range p.Proof {
		h, ok := parseHash(s)
		if !ok {
			return nil, fail(CheckEntrantInclusion, verdict.MsgEntrantProofHex, i)
		}
		proof[i] = h
	}
	d := EntrantDataV2(f.Draw, p.Account, salt)
	leaf := tlog.RecordHash(d[:])
	if tlog.CheckRecord(proof, int64(f.Count), f.Root, int64(p.Index), leaf) != nil {
		return nil, fail(CheckEntrantInclusion, verdict.MsgEntrantNotIn, hex.EncodeToString(leaf[:]), p.Account, p.Index+1, f.Count, hex.EncodeToString(f.Root[:]))
	}
	return &EntrantVerified{Freeze: fv, Account: p.Account, Index: p.Index, Count: f.Count, Leaf: leaf, Proof: len(proof)}, nil
}
