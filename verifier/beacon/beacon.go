// Package beacon checks rounds of the drand public randomness beacon
// (https://drand.love), so that a promotion draw can bind a round announced
// in advance whose value nobody — the operator included — could choose.
//
// # Chains
//
// A drand network publishes a chain: a group public key, a scheme, a period
// and a genesis time. Its chain hash names it:
//
//	hash = SHA-256( u32be(period seconds) || i64be(genesis time)
//	                || public key || genesis seed || beacon id )
//
// where the beacon id is omitted for the "default" chain (drand
// common/chain/info.go, Info.Hash). The scheme is not hashed. Two chains are
// pinned here (Quicknet, Default), with the values of drand's chain info
// endpoint as published in drand/drand-client lib/defaults.ts; the test
// recomputes each chain hash from them.
//
// # Rounds (drand crypto/schemes.go)
//
// Round n of a chain is a BLS signature σ over BLS12-381 under the group key:
//
//   - "bls-unchained-g1-rfc9380" (quicknet): σ ∈ G1 (48 bytes compressed),
//     key ∈ G2 (96 bytes); m = SHA-256(u64be(n)); H = hash_to_curve G1 of
//     RFC 9380, suite BLS12381G1_XMD:SHA-256_SSWU_RO_, with DST
//     "BLS_SIG_BLS12381G1_XMD:SHA-256_SSWU_RO_NUL_"; valid iff
//     e(σ, g2) = e(H(m), key).
//   - "pedersen-bls-chained" (default, the original mainnet): σ ∈ G2
//     (96 bytes), key ∈ G1 (48 bytes); m = SHA-256(σ_{n-1} || u64be(n)),
//     σ_{n-1} being the previous round's signature (the genesis seed for
//     round 1); H = hash_to_curve G2 with DST
//     "BLS_SIG_BLS12381G2_XMD:SHA-256_SSWU_RO_NUL_"; valid iff
//     e(g1, σ) = e(key, H(m)).
//
// The round's randomness is SHA-256(σ) (drand RandomnessFromSignature).
//
// # Values
//
// What a ceremony records and binds is the round's value: σ for unchained
// schemes, σ_{n-1} || σ for the chained one. Only the compressed, canonical
// encoding of σ is accepted (the one drand publishes), so that a round has
// exactly one value: nobody can re-encode it to vary α.
//
// # References
//
// A freeze names a round as a Ref, "drand:<chain hash hex>:<round>".
//
// # Unknown at the freeze
//
// A round binds nothing unless its value was unknown when the entrant list
// was frozen: [Chain.PublishedAfter] requires the round's publication time
// (RoundTime) to be strictly after the freeze's time. The appliance refuses
// to freeze with an earlier round, a certificate and the log audit reject
// one.
//
// Errors are messages of the verdict catalog (verdict.Errorf), so that a
// verifier shows them in French too; their English text is the one above.
package beacon

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"

	bls "github.com/cloudflare/circl/ecc/bls12381"

	"tirage.fr/tirage/verifier/verdict"
)

// Schemes supported.
const (
	SchemeUnchainedG1 = "bls-unchained-g1-rfc9380"
	SchemeChained     = "pedersen-bls-chained"
)

// Hash-to-curve domain separation tags (RFC 9380 suites as used by drand).
const (
	dstG1 = "BLS_SIG_BLS12381G1_XMD:SHA-256_SSWU_RO_NUL_"
	dstG2 = "BLS_SIG_BLS12381G2_XMD:SHA-256_SSWU_RO_NUL_"
)

// Chain is a drand chain's public information.
type Chain struct {
	Name        string // short name: "quicknet", "default", or the beacon id
	Scheme      string
	PublicKey   []byte // compressed group key: G2 (96 bytes) or G1 (48 bytes)
	Period      uint32 // seconds
	GenesisTime int64  // Unix seconds of round 1
	GenesisSeed []byte // the "group hash"
	BeaconID    string // "" or "default" for the default chain
}

// Hash is the chain hash (see the package doc).
func (c *Chain) Hash() [32]byte {
	h := sha256.New()
	var b [12]byte
	binary.BigEndian.PutUint32(b[:4], c.Period)
	binary.BigEndian.PutUint64(b[4:], uint64(c.GenesisTime))
	h.Write(b[:])
	h.Write(c.PublicKey)
	h.Write(c.GenesisSeed)
	if c.BeaconID != "" && c.BeaconID != "default" {
		h.Write([]byte(c.BeaconID))
	}
	var out [32]byte
	h.Sum(out[:0])
	return out
}

// RoundTime is when round (≥ 1) is published: genesis + (round − 1) × period
// (drand common/time.go TimeOfRound, without the overflow cases, which
// saturate here at the largest time).
func (c *Chain) RoundTime(round uint64) time.Time {
	if round == 0 {
		round = 1
	}
	const maxUnix = 1<<62 - 1
	steps := round - 1
	if c.Period != 0 && steps > uint64(maxUnix-c.GenesisTime)/uint64(c.Period) {
		return time.Unix(maxUnix, 0).UTC()
	}
	return time.Unix(c.GenesisTime+int64(steps)*int64(c.Period), 0).UTC()
}

// PublishedAfter returns nil when round is published strictly after t (the
// freeze's time), so that its value was unknown when t was logged; else an
// error naming both times (UTC, to the second).
func (c *Chain) PublishedAfter(round uint64, t time.Time) error {
	if rt := c.RoundTime(round); !rt.After(t) {
		return verdict.Errorf(verdict.MsgBeaconNotAfter, c, round, formatTime(rt), formatTime(t))
	}
	return nil
}

// formatTime is RFC 3339 in UTC to the second, as the records write times.
func formatTime(t time.Time) string { return t.UTC().Truncate(time.Second).Format(time.RFC3339) }

// String names the chain: its name and the start of its hash.
func (c *Chain) String() string {
	h := c.Hash()
	return fmt.Sprintf("drand %s (%x…)", c.Name, h[:4])
}

// mustHex decodes a pinned constant.
func mustHex(s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		panic("beacon: bad pinned constant: " + err.Error())
	}
	return b
}

// Pinned chains of the League of Entropy mainnet. Source: drand chain info
// endpoints https://api.drand.sh/<hash>/info, as copied in drand/drand-client
// lib/defaults.ts (QUICKNET_CHAIN_INFO, DEFAULT_CHAIN_INFO); TestPinned
// recomputes their hashes from these values.
var (
	// Quicknet: unchained, signatures on G1, a round every 3 s since
	// 2023-08-23; chain hash 52db9ba7….
	Quicknet = Chain{
		Name: "quicknet", Scheme: SchemeUnchainedG1,
		PublicKey:   mustHex("83cf0f2896adee7eb8b5f01fcad3912212c437e0073e911fb90022d3e760183c8c4b450b6a0a6c3ac6a5776a2d1064510d1fec758c921cc22b0e17e63aaf4bcb5ed66304de9cf809bd274ca73bab4af5a6e9c76a4bc09e76eae8991ef5ece45a"),
		Period:      3,
		GenesisTime: 1692803367,
		GenesisSeed: mustHex("f477d5c89f21a17c863a7f937c6a6d15859414d2be09cd448d4279af331c5d3e"),
		BeaconID:    "quicknet",
	}
	// Default: the original chained mainnet, a round every 30 s since
	// 2020-07-22; chain hash 8990e7a9….
	Default = Chain{
		Name: "default", Scheme: SchemeChained,
		PublicKey:   mustHex("868f005eb8e6e4ca0a47c8a77ceaa5309a47978a7c71bc5cce96366b5d7a569937c529eeda66c7293784a9402801af31"),
		Period:      30,
		GenesisTime: 1595431050,
		GenesisSeed: mustHex("176f93498eac9ca337150b46d21dd58673ea4e3581185f869672e59fa4cb390a"),
		BeaconID:    "default",
	}
)

// Pinned returns the pinned chain with this hash or name ("quicknet",
// "default" or "mainnet"), or nil.
func Pinned(hashOrName string) *Chain {
	for _, c := range []*Chain{&Quicknet, &Default} {
		h := c.Hash()
		if hashOrName == hex.EncodeToString(h[:]) || hashOrName == c.Name || (c == &Default && hashOrName == "mainnet") {
			return c
		}
	}
	return nil
}

// Ref names one round of one chain: what a freeze announces.
type Ref struct {
	Chain [32]byte // chain hash
	Round uint64   // ≥ 1
}

const refPrefix = "drand:"

// String is the canonical form "drand:<chain hash, lowercase hex>:<round>".
func (r Ref) String() string {
	return refPrefix + hex.EncodeToString(r.Chain[:]) + ":" + strconv.FormatUint(r.Round, 10)
}

// IsRef reports whether s claims to be a Ref (starts with "drand:"); such a
// string must then parse. Other strings are free-text beacon names of
// freezes logged before beacons were verified.
func IsRef(s string) bool { return strings.HasPrefix(s, refPrefix) }

// ParseRef parses the canonical form only (lowercase hex, a round ≥ 1
// without leading zeros).
func ParseRef(s string) (Ref, error) {
	var r Ref
	rest, ok := strings.CutPrefix(s, refPrefix)
	h, n, ok2 := strings.Cut(rest, ":")
	if !ok || !ok2 || len(h) != 64 || strings.ToLower(h) != h {
		return r, verdict.Errorf(verdict.MsgBeaconRefForm, clip(s))
	}
	if _, err := hex.Decode(r.Chain[:], []byte(h)); err != nil {
		return r, verdict.Errorf(verdict.MsgBeaconRefHash, clip(s), err)
	}
	round, err := strconv.ParseUint(n, 10, 64)
	if err != nil || round == 0 || strconv.FormatUint(round, 10) != n {
		return r, verdict.Errorf(verdict.MsgBeaconRefRound, clip(s))
	}
	r.Round = round
	return r, nil
}

func clip(s string) string {
	if len(s) > 100 {
		return s[:100] + "…"
	}
	return s
}

// Errors of Verify; both mean the value is not that round's.
var (
	ErrMalformed = verdict.Errorf(verdict.MsgBeaconMalformed)
	ErrInvalid   = verdict.Errorf(verdict.MsgBeaconInvalid)
)

// Verify checks that value is round's value on chain c (see the package doc)
// and returns the round's randomness SHA-256(σ).
func (c *Chain) Verify(round uint64, value []byte) (randomness [32]byte, err error) {
	if round == 0 {
		return randomness, verdict.Errorf(verdict.MsgBeaconRoundZero)
	}
	var ok bool
	switch c.Scheme {
	case SchemeUnchainedG1:
		ok, err = verifyG1(c.PublicKey, round, value)
	case SchemeChained:
		ok, err = verifyChained(c, round, value)
	default:
		return randomness, verdict.Errorf(verdict.MsgBeaconScheme, c.Scheme, SchemeUnchainedG1, SchemeChained)
	}
	if err != nil {
		return randomness, err
	}
	if !ok {
		return randomness, ErrInvalid
	}
	return sha256.Sum256(value[len(value)-sigSize(c.Scheme):]), nil
}

func sigSize(scheme string) int {
	if scheme == SchemeChained {
		return bls.G2SizeCompressed
	}
	return bls.G1SizeCompressed
}

// message is m = SHA-256(prev || u64be(round)).
func message(prev []byte, round uint64) []byte {
	h := sha256.New()
	h.Write(prev)
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], round)
	h.Write(b[:])
	return h.Sum(nil)
}

// verifyG1: the unchained scheme with signatures on G1.
func verifyG1(key []byte, round uint64, sig []byte) (bool, error) {
	// 1. Decode the key (G2) and σ (G1), compressed, canonical, in the
	//    prime-order subgroup, not the identity.
	var pk bls.G2
	if len(key) != bls.G2SizeCompressed || pk.SetBytes(key) != nil || pk.IsIdentity() {
		return false, verdict.Errorf(verdict.MsgBeaconChainKey, "G2")
	}
	var s bls.G1
	if len(sig) != bls.G1SizeCompressed || s.SetBytes(sig) != nil || s.IsIdentity() || !bytes.Equal(s.BytesCompressed(), sig) {
		return false, ErrMalformed
	}
	// 2. m = SHA-256(u64be(round)); H(m) = hash_to_curve_G1(m, DST_G1).
	var hm bls.G1
	hm.Hash(message(nil, round), []byte(dstG1))
	// 3. e(σ, g2) · e(H(m), pk)^-1 = 1.
	return bls.ProdPairFrac([]*bls.G1{&s, &hm}, []*bls.G2{bls.G2Generator(), &pk}, []int{1, -1}).IsIdentity(), nil
}

// verifyChained: the chained scheme with signatures on G2; value = prev || σ
// where prev is the previous round's signature (96 bytes), or for round 1
// the chain's genesis seed.
func verifyChained(c *Chain, round uint64, value []byte) (bool, error) {
	// 1. Decode the key (G1) and σ (G2), as above; prev is what precedes σ.
	var pk bls.G1
	if len(c.PublicKey) != bls.G1SizeCompressed || pk.SetBytes(c.PublicKey) != nil || pk.IsIdentity() {
		return false, verdict.Errorf(verdict.MsgBeaconChainKey, "G1")
	}
	wantPrev := bls.G2SizeCompressed
	if round == 1 {
		wantPrev = len(c.GenesisSeed)
	}
	if len(value) != wantPrev+bls.G2SizeCompressed {
		return false, verdict.Errorf(verdict.MsgBeaconChainedLength, ErrMalformed, wantPrev, bls.G2SizeCompressed, len(value))
	}
	prev, sig := value[:wantPrev], value[wantPrev:]
	if round == 1 && !bytes.Equal(prev, c.GenesisSeed) {
		return false, verdict.Errorf(verdict.MsgBeaconGenesis, ErrMalformed)
	}
	var s bls.G2
	if s.SetBytes(sig) != nil || s.IsIdentity() || !bytes.Equal(s.BytesCompressed(), sig) {
		return false, ErrMalformed
	}
	// 2. m = SHA-256(prev || u64be(round)); H(m) = hash_to_curve_G2(m, DST_G2).
	var hm bls.G2
	hm.Hash(message(prev, round), []byte(dstG2))
	// 3. e(g1, σ) · e(pk, H(m))^-1 = 1.
	return bls.ProdPairFrac([]*bls.G1{bls.G1Generator(), &pk}, []*bls.G2{&s, &hm}, []int{1, -1}).IsIdentity(), nil
}
