package rngd

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"io"
	"strings"

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
// dev mode (demoTickets.is), and rngctl makes a demo manifest only in a dev
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
}

func newDemoTickets(emission string, seed []byte) *demoTickets {
	return &demoTickets{mac: hmac.New(sha256.New, seed), emission: emission}
}

// code is the code of ticket i.
func (d *demoTickets) code(i int) string {
	d.mac.Reset()
	d.mac.Write([]byte(d.emission))
	d.mac.Write(binary.BigEndian.AppendUint64(nil, uint64(i)))
	sum := d.mac.Sum(nil)
	var b strings.Builder
	for j := range CodeLen {
		b.WriteByte(codeAlphabet[sum[j]&31])
	}
	return b.String()
}

// is reports whether h is the hash of ticket i's code: a manifest's i-th
// ticket (from 0) that is the i-th demo ticket of its emission comes from
// DemoTickets with this seed. Two SHA-256 blocks and an HMAC per ticket.
func (d *demoTickets) is(i int, h [32]byte) bool {
	want, _ := record.TicketHash(d.code(i))
	return want == h
}

// ticketBatch is how many tickets ImportTickets sends per message; the
// admin server's message limit (adminMaxRecvMsgSize) is sized to hold one
// at its worst four times over (TestAdminMaxRecvMsgSizeHoldsABatch).
const ticketBatch = 10_000

// ImportTickets streams a manifest to the admin API (rngctl emission import,
// the demo and the tests use it).
func ImportTickets(ctx context.Context, adm adminv1.AdminClient, requestID, emission string, tickets []Ticket) (*adminv1.ImportManifestResponse, error) {
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
