package rngd

import (
	"bufio"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/transparency-dev/merkle/compact"
	"github.com/transparency-dev/merkle/rfc6962"

	adminv1 "tirage.fr/tirage/rngd/api/tirage/admin/v1"
	"tirage.fr/tirage/verifier/qod"
	"tirage.fr/tirage/verifier/record"
)

// A ticket manifest lists the stage-2 tickets of an emission: for each
// winning stage-1 ticket, the hash of its 18-character code
// (record.TicketHash: SHA-256("tirage/ticket/v1" || code)) and its gain S.
// Its file form, which rngctl imports, is one ticket per line:
//
//	emission_id,ticket_hash_hex,stake_cents
//
// Lines starting with '#' are comments. The manifest's root is the RFC 6962
// Merkle tree hash over its lines in order (each line, without its newline,
// is a leaf): anyone with the file can recompute the root that the log holds.

// CodeLen is the length of a stage-2 code.
const CodeLen = 18

// codeAlphabet is the alphabet of demo codes (Crockford's base 32: no I, L,
// O, U). Codes given by game servers may use any of [0-9A-Z], case-insensitive
// (record.TicketHash).
const codeAlphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

var (
	emissionRE = regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)
)

// Stakes are the gains S of the prize table, in cents, highest first.
var Stakes = qod.Stakes

// Ticket is one manifest line.
type Ticket struct {
	Emission   string
	TicketHash [32]byte
	StakeCents int64
}

// Line is the ticket's manifest line (without newline): its Merkle leaf.
func (t Ticket) Line() string {
	return t.Emission + "," + hex.EncodeToString(t.TicketHash[:]) + "," + strconv.FormatInt(t.StakeCents, 10)
}

// CheckStake reports whether s is a gain of the prize table.
func CheckStake(s int64) error {
	if qod.CheckStake(s) != nil {
		return fmt.Errorf("stake_cents %d is not a gain of the prize table", s)
	}
	return nil
}

// CheckEmissionID reports whether id is a valid emission id.
func CheckEmissionID(id string) error {
	if !emissionRE.MatchString(id) {
		return fmt.Errorf("emission_id %s must be 1 to 64 characters of [A-Za-z0-9._-]", quoted(id))
	}
	return nil
}

// ParseTicket parses a manifest line.
func ParseTicket(line string) (Ticket, error) {
	var t Ticket
	parts := strings.Split(line, ",")
	if len(parts) != 3 {
		return t, errors.New("want emission_id,ticket_hash_hex,stake_cents")
	}
	if err := CheckEmissionID(parts[0]); err != nil {
		return t, err
	}
	t.Emission = parts[0]
	h, err := hex.DecodeString(parts[1])
	if err != nil || len(h) != 32 || strings.ToLower(parts[1]) != parts[1] {
		return t, errors.New("ticket_hash must be 64 lower-case hex digits")
	}
	copy(t.TicketHash[:], h)
	s, err := strconv.ParseInt(parts[2], 10, 64)
	if err != nil || strconv.FormatInt(s, 10) != parts[2] {
		return t, fmt.Errorf("stake_cents %q is not a canonical integer", parts[2])
	}
	if err := CheckStake(s); err != nil {
		return t, err
	}
	t.StakeCents = s
	return t, nil
}

// ReadManifest reads a manifest file, calling fn for each ticket in order.
func ReadManifest(r io.Reader, fn func(Ticket) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, maxManifestLine), maxManifestLine)
	n := 1 // the line being read, also when Scan stops on an error
	for ; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		t, err := ParseTicket(line)
		if err != nil {
			return fmt.Errorf("manifest line %d: %w", n, err)
		}
		if err := fn(t); err != nil {
			return err
		}
	}
	if err := sc.Err(); errors.Is(err, bufio.ErrTooLong) {
		return fmt.Errorf("manifest line %d: longer than %d bytes: %w", n, maxManifestLine, err)
	} else if err != nil {
		return fmt.Errorf("manifest line %d: couldn't read the manifest: %w", n, err)
	}
	return nil
}

// maxManifestLine bounds a manifest line (the scanner's buffer; a ticket line
// is at most 64+1+64+1+7 bytes; a longer one is garbage, not memory to use).
const maxManifestLine = 4096

// ManifestRoot computes a manifest's Merkle root incrementally.
type ManifestRoot struct {
	r *compact.Range
	n uint64
}

// NewManifestRoot starts an empty manifest.
func NewManifestRoot() *ManifestRoot {
	f := compact.RangeFactory{Hash: rfc6962.DefaultHasher.HashChildren}
	return &ManifestRoot{r: f.NewEmptyRange(0)}
}

// Add appends a ticket.
func (m *ManifestRoot) Add(t Ticket) {
	m.r.Append(rfc6962.DefaultHasher.HashLeaf([]byte(t.Line())), nil)
	m.n++
}

// Count is the number of tickets added.
func (m *ManifestRoot) Count() uint64 { return m.n }

// Root is the RFC 6962 root (the hash of the empty string for no ticket).
func (m *ManifestRoot) Root() []byte {
	if m.n == 0 {
		return rfc6962.DefaultHasher.EmptyRoot()
	}
	h, _ := m.r.GetRootHash(nil)
	return h
}

// DemoTickets makes n demo tickets of an emission, deterministically from
// seed: their codes (which a real emission prints under the scratch surface
// and never gives the appliance) and the manifest lines. Ticket i has gain
// Stakes[i mod 7], so ticket 0 is a 50,000 € ticket. For tests and make run.
func DemoTickets(emission string, seed []byte, n int) (codes []string, tickets []Ticket) {
	mac := hmac.New(sha256.New, seed)
	for i := range n {
		mac.Reset()
		mac.Write([]byte(emission))
		mac.Write(binary.BigEndian.AppendUint64(nil, uint64(i)))
		sum := mac.Sum(nil)
		var b strings.Builder
		for j := range CodeLen {
			b.WriteByte(codeAlphabet[sum[j]&31])
		}
		code := b.String()
		h, _ := record.TicketHash(code) // the alphabet is A-Z 0-9: never fails
		codes = append(codes, code)
		tickets = append(tickets, Ticket{Emission: emission, TicketHash: h, StakeCents: Stakes[i%len(Stakes)]})
	}
	return codes, tickets
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
