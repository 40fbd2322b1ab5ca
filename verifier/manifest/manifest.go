// Package manifest reads and hashes ticket manifests: the list of an
// emission's stage-2 tickets that rngd imports (rngctl emission import) and
// logs as a record.Manifest of its root, and that rngverify audit --manifest
// checks the logged game starts against. rngd and the verifier share this
// one implementation, so that the root the daemon logs and the root the
// verifier recomputes cannot diverge. The package does no I/O beyond the
// io.Reader it is given.
//
// For each winning stage-1 ticket, a manifest holds the hash of its
// 18-character code (record.TicketHash: SHA-256("tirage/ticket/v1" || code))
// and its gain S. Its file form is one ticket per line:
//
//	emission_id,ticket_hash_hex,stake_cents
//
// Lines starting with '#', and empty lines, are comments. The manifest's
// root is the RFC 6962 Merkle tree hash over its tickets' lines in order
// (Ticket.Line, without its newline, is a leaf): anyone with the file can
// recompute the root that the log holds.
package manifest

import (
	"bufio"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/transparency-dev/merkle/compact"
	"github.com/transparency-dev/merkle/rfc6962"

	"tirage.fr/tirage/verifier/qod"
)

var emissionRE = regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)

// MaxLine bounds a manifest line (the reader's buffer): a ticket line is at
// most 64+1+64+1+7 bytes; a longer one is garbage, not memory to use.
const MaxLine = 4096

// maxQuoted is how many characters of an emission id an error quotes.
const maxQuoted = 64

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
	if emissionRE.MatchString(id) {
		return nil
	}
	q := strconv.Quote(id)
	if len(id) > maxQuoted {
		q = fmt.Sprintf("%.*q… (%d bytes)", maxQuoted, id, len(id))
	}
	return fmt.Errorf("emission_id %s must be 1 to 64 characters of [A-Za-z0-9._-]", q)
}

// ParseTicket parses a manifest line. It accepts only the canonical form
// (ParseTicket(t.Line()) == t): lower-case hex, no sign, no leading zero.
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

// Read reads a manifest file, calling fn for each ticket in order, without
// holding the file in memory. An error names its line ("manifest line N:
// …"); an error of fn stops the reading and is returned as is.
func Read(r io.Reader, fn func(Ticket) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, MaxLine), MaxLine)
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
		return fmt.Errorf("manifest line %d: longer than %d bytes: %w", n, MaxLine, err)
	} else if err != nil {
		return fmt.Errorf("manifest line %d: couldn't read the manifest: %w", n, err)
	}
	return nil
}

// Tree computes a manifest's Merkle root and count incrementally, in
// memory logarithmic in its size (a compact range).
type Tree struct {
	r *compact.Range
	n uint64
}

// NewTree starts an empty manifest.
func NewTree() *Tree {
	f := compact.RangeFactory{Hash: rfc6962.DefaultHasher.HashChildren}
	return &Tree{r: f.NewEmptyRange(0)}
}

// Add appends a ticket.
func (m *Tree) Add(t Ticket) {
	m.r.Append(rfc6962.DefaultHasher.HashLeaf([]byte(t.Line())), nil)
	m.n++
}

// Count is the number of tickets added.
func (m *Tree) Count() uint64 { return m.n }

// Root is the RFC 6962 root (the hash of the empty string for no ticket).
func (m *Tree) Root() []byte {
	if m.n == 0 {
		return rfc6962.DefaultHasher.EmptyRoot()
	}
	h, _ := m.r.GetRootHash(nil)
	return h
}
