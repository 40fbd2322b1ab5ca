package rngd

import (
	"cmp"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"io"
	"slices"

	adminv1 "tirage.fr/tirage/rngd/api/tirage/admin/v1"
	"tirage.fr/tirage/verifier/manifest"
	"tirage.fr/tirage/verifier/qod"
	"tirage.fr/tirage/verifier/record"
)

// A ticket manifest lists the stage-2 tickets of an emission; its file
// form, which rngctl imports, and its root are package manifest's
// (verifier/manifest), shared with rngverify audit --manifest: the names
// below are that one implementation's.

// CodeLen is the length of a stage-2 code.
const CodeLen = 18

// codeAlphabet is the alphabet of demo codes (Crockford's base 32: no I, L,
// O, U). Codes given by game servers may use any of [0-9A-Z], case-insensitive
// (record.TicketHash).
const codeAlphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

// Stakes are the gains S of the prize table, in cents, highest first.
var Stakes = qod.Stakes

// Ticket is one manifest line (manifest.Ticket).
type Ticket = manifest.Ticket

// CheckStake reports whether s is a gain of the prize table.
func CheckStake(s int64) error { return manifest.CheckStake(s) }

// CheckEmissionID reports whether id is a valid emission id.
func CheckEmissionID(id string) error { return manifest.CheckEmissionID(id) }

// ParseTicket parses a manifest line.
func ParseTicket(line string) (Ticket, error) { return manifest.ParseTicket(line) }

// ReadManifest reads a manifest file, calling fn for each ticket in order
// (manifest.Read).
func ReadManifest(r io.Reader, fn func(Ticket) error) error { return manifest.Read(r, fn) }

// ManifestRoot computes a manifest's Merkle root incrementally (manifest.Tree).
type ManifestRoot = manifest.Tree

// NewManifestRoot starts an empty manifest.
func NewManifestRoot() *ManifestRoot { return manifest.NewTree() }

// demoSeed seeds every demo manifest (DemoManifest). It is public on
// purpose: it is what marks a demo manifest. Anyone who knows an emission id
// can recompute the codes of its demo tickets, so rngd refuses them outside
// dev mode (demoIndex), and rngctl makes a demo manifest only in a dev
// build. A random seed would keep the codes secret, but then nothing would
// tell a demo manifest from a real one once it leaves the operator's desk.
const demoSeed = "tirage demo"

// DemoManifest makes the n tickets of emission's demo manifest and their
// codes (rngctl emission demo-manifest in a dev build, make run's demo):
// DemoTickets with the public demo seed. Only rngd in dev mode imports them.
func DemoManifest(emission string, n int) (codes []string, tickets []Ticket) {
	return DemoTickets(emission, []byte(demoSeed), n)
}

// DemoTickets makes n demo tickets of an emission, deterministically from
// seed: their codes (which a real emission prints under the scratch surface
// and never gives the appliance) and the manifest lines. Ticket i has gain
// Stakes[i mod 7], so ticket 0 is a 50,000 € ticket. For tests (with a seed
// of their own) and DemoManifest.
func DemoTickets(emission string, seed []byte, n int) (codes []string, tickets []Ticket) {
	d := newDemoTickets(emission, seed)
	for i := range n {
		code := d.code(i)
		h, _ := record.TicketHash(code) // the alphabet is A-Z 0-9: never fails
		codes = append(codes, code)
		tickets = append(tickets, Ticket{Emission: emission, TicketHash: h, StakeCents: Stakes[i%len(Stakes)]})
	}
	return codes, tickets
}

// demoTickets derives the codes of an emission's demo tickets from a seed:
// code i is HMAC-SHA256(seed, emission || uint64be(i)) in codeAlphabet.
type demoTickets struct {
	mac      hash.Hash
	emission string
	msg, sum []byte // code's buffers
}

func newDemoTickets(emission string, seed []byte) *demoTickets {
	return &demoTickets{mac: hmac.New(sha256.New, seed), emission: emission}
}

// code is the code of ticket i.
func (d *demoTickets) code(i int) string {
	d.msg = binary.BigEndian.AppendUint64(append(d.msg[:0], d.emission...), uint64(i))
	d.mac.Reset()
	d.mac.Write(d.msg)
	d.sum = d.mac.Sum(d.sum[:0])
	var b [CodeLen]byte
	for j := range b {
		b[j] = codeAlphabet[d.sum[j]&31]
	}
	return string(b[:])
}

// is reports whether h is the hash of ticket i's code. Two SHA-256 blocks
// and an HMAC per ticket.
func (d *demoTickets) is(i int, h [32]byte) bool {
	return d.hash(i) == h
}

// hash is the ticket hash of ticket i's code.
func (d *demoTickets) hash(i int) [32]byte {
	h, _ := record.TicketHash(d.code(i)) // the alphabet is A-Z 0-9: never fails
	return h
}

// MaxDemoTickets bounds a demo manifest (rngctl emission demo-manifest
// --count): an import is checked against that many demo tickets of its
// emission (demoIndex), so that a demo manifest made by the tools
// is recognised whole, in part, reordered or split among imports.
const MaxDemoTickets = 1_000_000

// demoIndex finds an emission's demo tickets 0..n-1 (DemoManifest) by their
// hash. Built once per import: n HMACs and hashes (about a second per
// million), 16 bytes per ticket.
type demoIndex struct {
	d    *demoTickets
	keys []demoKey // sorted by prefix
}

// demoKey is demo ticket i by its hash's first 8 bytes.
type demoKey struct {
	prefix uint64
	i      int
}

func newDemoIndex(emission string, n int) *demoIndex {
	x := &demoIndex{d: newDemoTickets(emission, []byte(demoSeed)), keys: make([]demoKey, n)}
	for i := range n {
		h := x.d.hash(i)
		x.keys[i] = demoKey{binary.BigEndian.Uint64(h[:8]), i}
	}
	slices.SortFunc(x.keys, func(a, b demoKey) int { return cmp.Compare(a.prefix, b.prefix) })
	return x
}

// find returns i when h is the hash of demo ticket i (i < n), else -1. A
// prefix found is checked against the whole hash.
func (x *demoIndex) find(h [32]byte) int {
	p := binary.BigEndian.Uint64(h[:8])
	j, _ := slices.BinarySearchFunc(x.keys, p, func(k demoKey, p uint64) int { return cmp.Compare(k.prefix, p) })
	for ; j < len(x.keys) && x.keys[j].prefix == p; j++ {
		if x.d.is(x.keys[j].i, h) {
			return x.keys[j].i
		}
	}
	return -1
}

// ticketBatch is how many tickets ImportTickets sends per message; the
// admin server's message limit (adminMaxRecvMsgSize) is sized to hold one
// at its worst four times over (TestAdminMaxRecvMsgSizeHoldsABatch).
const ticketBatch = 10_000

// ImportTickets streams a manifest to the admin API (rngctl emission import,
// the demo and the tests use it).
func ImportTickets(ctx context.Context, adm adminv1.AdminClient, requestID, emission string, tickets []Ticket) (*adminv1.ImportManifestResponse, error) {
	// Cancelled on return: a stream given up half sent (a ticket of
	// another emission) ends, and rngd's handler with it.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	st, err := adm.ImportManifest(ctx)
	if err != nil {
		return nil, err
	}
	err = st.Send(&adminv1.ImportManifestRequest{Part: &adminv1.ImportManifestRequest_Header{Header: &adminv1.ManifestHeader{
		RequestId: requestID, EmissionId: emission, Count: uint64(len(tickets))}}})
	for len(tickets) > 0 && err == nil {
		n := min(len(tickets), ticketBatch)
		batch := &adminv1.TicketBatch{}
		for _, t := range tickets[:n] {
			if t.Emission != emission {
				return nil, fmt.Errorf("ticket %x belongs to emission %q, not %q", t.TicketHash, t.Emission, emission)
			}
			batch.Tickets = append(batch.Tickets, &adminv1.Ticket{TicketHash: t.TicketHash[:], StakeCents: t.StakeCents})
		}
		err = st.Send(&adminv1.ImportManifestRequest{Part: &adminv1.ImportManifestRequest_Tickets{Tickets: batch}})
		tickets = tickets[n:]
	}
	if errors.Is(err, io.EOF) {
		err = nil // the server ended the stream: its status comes with CloseAndRecv
	}
	if err != nil {
		return nil, err
	}
	return st.CloseAndRecv()
}
