package promo

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/mod/sumdb/tlog"

	"tirage.fr/tirage/verifier/record"
	"tirage.fr/tirage/verifier/verdict"
)

// Entrant commitments.
//
// Each entrant of a draw is committed as one leaf of an RFC 6962 Merkle tree
// (the hashing of golang.org/x/mod/sumdb/tlog and transparency-dev/merkle):
//
//	salt   = the freeze key K, 32 random bytes from the appliance's DRBG
//	data_i = HMAC-SHA-256(K, "tirage/promo/entrant/v1" || u32be(len(D)) || D || u32be(len(A_i)) || A_i)
//	leaf_i = SHA-256(0x00 || data_i)                          (tlog.RecordHash)
//	root   = the RFC 6962 root of leaf_0 … leaf_{n-1}          (tlog.TreeHash)
//
// where D is the full draw id ("operation/id") and A_0 < A_1 < … < A_{n-1}
// are the entrants' account ids in byte order, without duplicates. The
// public log and the certificate hold only leaf hashes: without K nobody can
// test whether an account is in the list. The bailiff receives K with the
// list and recomputes everything. The pseudonymous id of entrant i is the
// first 8 bytes of leaf_i in hex, grouped by four (e.g. "3f2a-91bc-0d4e-77a1").
//
// That is scheme 1, of the freezes whose promo_freeze record states no
// entrant_scheme. It hides the list, but no player can check their own
// entry: data_i cannot be recomputed without K, and K opens every leaf.
// Scheme 2 (entrant_scheme 2, every freeze made since) gives each entrant
// an opening of their own:
//
//	salt_i = HMAC-SHA-256(K, "tirage/promo/entrant-salt/v2" || u32be(len(D)) || D || u32be(len(A_i)) || A_i)
//	data_i = SHA-256("tirage/promo/entrant/v2" || u32be(len(D)) || D || u32be(len(A_i)) || A_i || salt_i)
//	leaf_i = SHA-256(0x00 || data_i)
//
// The tree, the order, the root and the pseudonyms are as in scheme 1.
// Given (D, A_i, salt_i) anyone recomputes leaf_i and checks its
// inclusion proof against the frozen root (EntrantProof): it is binding —
// the fields are length-prefixed under a domain of their own, so another
// draw or account gives the same leaf only with a SHA-256 collision — and
// reveals nothing of the others: salt_i is a PRF output under K, so
// knowing it tells nothing of K or of any other salt, and without a leaf's
// salt (256 unknown bits) nobody can test an account id against it.
const entrantDomain = "tirage/promo/entrant/v1"

// Scheme 2's domains.
const (
	entrantDomainV2 = "tirage/promo/entrant/v2"
	entrantSaltV2   = "tirage/promo/entrant-salt/v2"
)

// Entrant commitment schemes, as a promo_freeze record's entrant_scheme
// states them (record.PromoFreeze.EntrantScheme): 0 (absent) is scheme 1.
const (
	EntrantSchemeV1 uint64 = 0
	EntrantSchemeV2 uint64 = 2
	// EntrantSchemeNew is the scheme the appliance freezes with.
	EntrantSchemeNew = EntrantSchemeV2
)

// EntrantSchemeName is the scheme's version as the documents print it (1 or 2).
func EntrantSchemeName(scheme uint64) uint64 {
	if scheme == EntrantSchemeV1 {
		return 1
	}
	return scheme
}

// EntrantList is a draw's canonical entrant list with its freeze key. It is
// private: it goes to the bailiff and stays on the appliance.
type EntrantList struct {
	Draw     string   // full draw id, operation/id
	Key      [32]byte // the freeze key K
	Accounts []string // sorted, no duplicates
	// Scheme is the entrant commitment scheme of the leaves (EntrantSchemeV1,
	// the zero value, or EntrantSchemeV2). The list file does not hold it:
	// it is the freeze's (ForFreeze).
	Scheme uint64
}

// ForFreeze is the list under the entrant commitment scheme the freeze
// f states (a copy: l is not changed).
func (l *EntrantList) ForFreeze(f *record.PromoFreeze) *EntrantList {
	c := *l
	c.Scheme = f.EntrantScheme
	return &c
}

// Canonicalize sorts accounts and removes duplicates, in place.
func Canonicalize(accounts []string) []string {
	slices.Sort(accounts)
	return slices.Compact(accounts)
}

// EntrantData is data_i for account in draw (see the package's entrant commitments).
func EntrantData(key [32]byte, draw, account string) [32]byte {
	m := hmac.New(sha256.New, key[:])
	m.Write([]byte(entrantDomain))
	writeLP(m, draw)
	writeLP(m, account)
	var out [32]byte
	m.Sum(out[:0])
	return out
}

// EntrantSalt is salt_i of scheme 2, account's opening in draw: what the
// player is given to check their own entry (EntrantProof).
func EntrantSalt(key [32]byte, draw, account string) [32]byte {
	m := hmac.New(sha256.New, key[:])
	m.Write([]byte(entrantSaltV2))
	writeLP(m, draw)
	writeLP(m, account)
	var out [32]byte
	m.Sum(out[:0])
	return out
}

// EntrantDataV2 is data_i of scheme 2 from the account's opening salt.
func EntrantDataV2(draw, account string, salt [32]byte) [32]byte {
	h := sha256.New()
	h.Write([]byte(entrantDomainV2))
	writeLP(h, draw)
	writeLP(h, account)
	h.Write(salt[:])
	var out [32]byte
	h.Sum(out[:0])
	return out
}

// EntrantLeaf is leaf_i of account in draw under the freeze key and scheme.
func EntrantLeaf(scheme uint64, key [32]byte, draw, account string) (tlog.Hash, error) {
	switch scheme {
	case EntrantSchemeV1:
		d := EntrantData(key, draw, account)
		return tlog.RecordHash(d[:]), nil
	case EntrantSchemeV2:
		d := EntrantDataV2(draw, account, EntrantSalt(key, draw, account))
		return tlog.RecordHash(d[:]), nil
	}
	return tlog.Hash{}, verdict.Errorf(verdict.MsgRecordEntrantScheme, scheme)
}

func writeLP(w io.Writer, s string) {
	var l [4]byte
	binary.BigEndian.PutUint32(l[:], uint32(len(s)))
	w.Write(l[:])
	io.WriteString(w, s)
}

// Pseudonym is the public id of an entrant: its leaf hash's first 8 bytes.
func Pseudonym(leaf tlog.Hash) string {
	h := hex.EncodeToString(leaf[:8])
	return h[0:4] + "-" + h[4:8] + "-" + h[8:12] + "-" + h[12:16]
}

// EntrantTree is the Merkle tree over a list's leaves, all hashes kept in the
// tlog storage layout so that inclusion proofs can be made for any entrant.
type EntrantTree struct {
	scheme uint64 // the list's entrant commitment scheme
	n      int64
	hashes []tlog.Hash
	leaves []tlog.Hash
}

// ReadHashes implements tlog.HashReader.
func (t *EntrantTree) ReadHashes(indexes []int64) ([]tlog.Hash, error) {
	out := make([]tlog.Hash, len(indexes))
	for i, x := range indexes {
		if x < 0 || x >= int64(len(t.hashes)) {
			return nil, fmt.Errorf("promo: hash index %d out of range", x)
		}
		out[i] = t.hashes[x]
	}
	return out, nil
}

// Tree builds the entrant tree of a canonical list. It checks the list is
// canonical.
func (l *EntrantList) Tree() (*EntrantTree, error) {
	if err := l.checkCanonical(); err != nil {
		return nil, err
	}
	t := &EntrantTree{
		hashes: make([]tlog.Hash, 0, 2*len(l.Accounts)),
		leaves: make([]tlog.Hash, 0, len(l.Accounts)),
		scheme: l.Scheme,
	}
	for _, a := range l.Accounts {
		leaf, err := EntrantLeaf(l.Scheme, l.Key, l.Draw, a)
		if err != nil {
			return nil, err
		}
		if err := t.add(leaf); err != nil {
			return nil, err
		}
	}
	return t, nil
}

func (t *EntrantTree) add(leaf tlog.Hash) error {
	hs, err := tlog.StoredHashesForRecordHash(t.n, leaf, t)
	if err != nil {
		return err
	}
	t.hashes = append(t.hashes, hs...)
	t.leaves = append(t.leaves, leaf)
	t.n++
	return nil
}

// Scheme is the entrant commitment scheme of the tree's leaves.
func (t *EntrantTree) Scheme() uint64 { return t.scheme }

// Size is the number of entrants.
func (t *EntrantTree) Size() int64 { return t.n }

// Root is the RFC 6962 root (the hash of the empty string for no entrant).
func (t *EntrantTree) Root() tlog.Hash {
	if t.n == 0 {
		return sha256.Sum256(nil)
	}
	h, err := tlog.TreeHash(t.n, t)
	if err != nil {
		panic("promo: entrant tree inconsistent: " + err.Error()) // all hashes are in memory
	}
	return h
}

// Leaf is the leaf hash of entrant i.
func (t *EntrantTree) Leaf(i int64) tlog.Hash { return t.leaves[i] }

// Prove returns the inclusion proof of entrant i.
func (t *EntrantTree) Prove(i int64) (tlog.RecordProof, error) {
	return tlog.ProveRecord(t.n, i, t)
}

func (l *EntrantList) checkCanonical() error {
	for i, a := range l.Accounts {
		if !validAccount(a) {
			return verdict.Errorf(verdict.MsgListAccount, i+1, clip(a))
		}
		if i > 0 && l.Accounts[i-1] >= a {
			return verdict.Errorf(verdict.MsgListOrder, i+1, clip(a), clip(l.Accounts[i-1]))
		}
	}
	return nil
}

// The entrant list file (version 1), text, one field per line:
//
//	tirage promotion entrants v1
//	draw <operation/id>
//	key <64 hex digits>
//	count <n>
//	<account 1>
//	…
//	<account n>
const listMagic = "tirage promotion entrants v1"

// EntrantListHead begins every entrant list (its first line).
const EntrantListHead = listMagic + "\n"

// Format encodes the list in the entrant list file format.
func (l *EntrantList) Format() []byte {
	var b bytes.Buffer
	size := 0
	for _, a := range l.Accounts {
		size += len(a) + 1
	}
	b.Grow(size + 200)
	fmt.Fprintf(&b, "%s\ndraw %s\nkey %x\ncount %d\n", listMagic, l.Draw, l.Key, len(l.Accounts))
	for _, a := range l.Accounts {
		b.WriteString(a)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// ErrEntrantList wraps every defect of an entrant list file.
var ErrEntrantList = errors.New("invalid entrant list")

// ListDraw is the draw an entrant list names on its second line ("draw
// ID"), read without the rest of the list: the draw of a list that
// ParseEntrantList refused, if it names one.
func ListDraw(data []byte) (string, bool) {
	_, rest, _ := bytes.Cut(data, []byte("\n"))
	line, _, ok := bytes.Cut(rest, []byte("\n"))
	d, isDraw := strings.CutPrefix(string(line), "draw ")
	return d, ok && isDraw && ValidDrawID(d)
}

// ParseEntrantList parses an entrant list file; it must be canonical (sorted,
// no duplicates) and Format must give back the same bytes.
func ParseEntrantList(data []byte) (*EntrantList, error) {
	fail := func(line int, id verdict.MsgID, args ...any) (*EntrantList, error) {
		return nil, verdict.Errorf(id, append([]any{ErrEntrantList, line}, args...)...)
	}
	var l EntrantList
	rest := data
	next := func() (string, bool) {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			return "", false
		}
		s := string(rest[:i])
		rest = rest[i+1:]
		return s, true
	}
	if s, ok := next(); !ok || s != listMagic {
		return fail(1, verdict.MsgListHeader, listMagic)
	}
	s, ok := next()
	if !ok || !strings.HasPrefix(s, "draw ") || !ValidDrawID(s[5:]) {
		return fail(2, verdict.MsgListDrawLine)
	}
	l.Draw = s[5:]
	s, ok = next()
	k, err := hex.DecodeString(strings.TrimPrefix(s, "key "))
	if !ok || !strings.HasPrefix(s, "key ") || err != nil || len(k) != 32 || hex.EncodeToString(k) != s[4:] {
		return fail(3, verdict.MsgListKeyLine)
	}
	copy(l.Key[:], k)
	s, ok = next()
	n, err := strconv.ParseUint(strings.TrimPrefix(s, "count "), 10, 32)
	if !ok || !strings.HasPrefix(s, "count ") || err != nil || strconv.FormatUint(n, 10) != s[6:] {
		return fail(4, verdict.MsgListCountLine)
	}
	if n > uint64(len(rest)) {
		return fail(4, verdict.MsgListCountExceeds, n)
	}
	l.Accounts = make([]string, 0, n)
	for i := uint64(0); i < n; i++ {
		a, ok := next()
		if !ok {
			return fail(5+int(i), verdict.MsgListCountShort, n, i)
		}
		l.Accounts = append(l.Accounts, a)
	}
	if len(rest) != 0 {
		return fail(5+int(n), verdict.MsgListTrailing, n)
	}
	if err := l.checkCanonical(); err != nil {
		return nil, verdict.Errorf(verdict.MsgListEntrant, ErrEntrantList, err)
	}
	return &l, nil
}

// ValidDrawID reports whether s is a full draw id, <operation>/<id>.
func ValidDrawID(s string) bool {
	op, id, ok := strings.Cut(s, "/")
	return ok && idRE.MatchString(op) && drawIDRE.MatchString(id)
}
