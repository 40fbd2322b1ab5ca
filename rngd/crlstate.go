package rngd

import (
	"bytes"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/big"
	"slices"
	"time"

	"tirage.fr/tirage/rngd/internal/boundedfile"
	"tirage.fr/tirage/transparency/atomicfile"
)

// The order of a CA's CRLs, and its memory across restarts.
//
// A CRL replaces the one in force only if it is not older (crls.notOlder):
// a rollback would lift revocations. rngd remembers the newest CRL it took
// of each CA in the data directory (crlStateFile), so that a restart does
// not take an older one either: whoever may replace grpc.client_crl_file
// could otherwise roll it back across a restart.
//
// A CA is its name, the CRL's issuer (its DER, RawIssuer), as elsewhere in
// rngd: a file holds one CRL per name, and a certificate is revoked by its
// issuer's name and its serial number (revokedKey).

// crlStateFile, in the data directory, remembers the newest CRL rngd took
// of each CA (its CRL number and thisUpdate): one older is refused, at the
// start too. Deleting it is the way back to an older CRL (a CA re-keyed
// that numbers its CRLs from 1 again).
const crlStateFile = "client-crl-newest"

// crlStateFormat is the format of crlStateFile rngd writes and reads.
const crlStateFormat = 1

// maxCRLState bounds crlStateFile (a few hundred bytes a CA).
const maxCRLState = 1 << 20

// crlMark is where a CA's CRL stands in the order of its CRLs.
type crlMark struct {
	issuer     []byte   // the CA's DER name: x509.RevocationList.RawIssuer
	number     *big.Int // the CRL number; nil when the CRL has none
	thisUpdate time.Time
}

// markOf is l's mark.
func markOf(l *x509.RevocationList) crlMark {
	return crlMark{issuer: l.RawIssuer, number: l.Number, thisUpdate: l.ThisUpdate}
}

// name is the CA's name as a string, for messages.
func (m crlMark) name() string {
	var seq pkix.RDNSequence
	if rest, err := asn1.Unmarshal(m.issuer, &seq); err != nil || len(rest) > 0 {
		return fmt.Sprintf("%X", m.issuer)
	}
	var n pkix.Name
	n.FillFromRDNSequence(&seq)
	return n.String()
}

// check refuses a mark no CRL can have: a negative CRL number (RFC 5280
// §5.2.3: a non-negative integer), a thisUpdate not within years 1 to
// 9999. parseCRLState refuses such a mark, so checkCRL refuses its CRL:
// taken, it would be remembered, and the next start refused the memory as
// damaged.
func (m crlMark) check() error {
	if m.number != nil && m.number.Sign() < 0 {
		return fmt.Errorf("CRL number %s is negative: not a CRL number (RFC 5280 §5.2.3)", m.number)
	}
	if y := m.thisUpdate.UTC().Year(); m.thisUpdate.IsZero() || y < 1 || y > 9999 {
		return fmt.Errorf("thisUpdate %s: not a CRL's", m.thisUpdate.UTC().Format(time.RFC3339))
	}
	return nil
}

// equal reports whether m and o are the same mark.
func (m crlMark) equal(o crlMark) bool {
	sameNumber := m.number == nil && o.number == nil || m.number != nil && o.number != nil && m.number.Cmp(o.number) == 0
	return bytes.Equal(m.issuer, o.issuer) && sameNumber && m.thisUpdate.Equal(o.thisUpdate)
}

// crlPrev is what a CRL of grpc.client_crl_file must not be older than,
// and how messages call it.
type crlPrev struct {
	marks []crlMark
	than  string // "the one in force"
	had   string // of a CA left out: "whose CRL is in force"
}

// inForce is c as what a replacement must not be older than.
func (c *crls) inForce() crlPrev {
	return crlPrev{marks: c.marks(), than: "the one in force", had: "whose CRL is in force"}
}

// marks are c's CRLs' marks.
func (c *crls) marks() []crlMark {
	var ms []crlMark
	for _, l := range c.lists {
		ms = append(ms, markOf(l))
	}
	return ms
}

// notOlder refuses c when it would roll back prev: every CA of prev needs
// a CRL in c that is not older (crlMark.olderThan).
func (c *crls) notOlder(prev crlPrev) error {
	for _, o := range prev.marks {
		var n *x509.RevocationList
		for _, l := range c.lists {
			if bytes.Equal(l.RawIssuer, o.issuer) {
				n = l
			}
		}
		if n == nil {
			return fmt.Errorf("no CRL of %.120q, %s", o.name(), prev.had)
		}
		if err := markOf(n).olderThan(o, prev.than); err != nil {
			return err
		}
	}
	return nil
}

// olderThan refuses n, a CRL's mark, when it is older than o, the same
// CA's, called than. When both have a CRL number, the number decides
// (RFC 5280 §5.2.3: it increases with every CRL the CA issues), whatever
// their thisUpdate: a CA whose clock was ahead issues a CRL "from the
// future", and the correct CRLs after it must still replace it. A CRL
// without a number never replaces one with. thisUpdate decides when o has
// no number, and between CRLs of the same number: the number then says
// nothing, and taking the earlier would let a CA's second CRL of a number
// roll back its first.
func (n crlMark) olderThan(o crlMark, than string) error {
	name := fmt.Sprintf("%.120q", o.name())
	switch {
	case o.number != nil && n.number == nil:
		return fmt.Errorf("the CRL of %s has no CRL number, %s has %s", name, than, o.number)
	case o.number != nil && n.number.Cmp(o.number) < 0:
		return fmt.Errorf("the CRL of %s has CRL number %s, lower than %s (%s): an older CRL", name, n.number, than, o.number)
	case o.number != nil && n.number.Cmp(o.number) > 0:
		return nil
	case n.thisUpdate.Before(o.thisUpdate):
		return fmt.Errorf("the CRL of %s was issued %s, before %s (%s): an older CRL", name, n.thisUpdate.UTC().Format(time.RFC3339), than, o.thisUpdate.UTC().Format(time.RFC3339))
	}
	return nil
}

// ofCAs is the marks of ms whose CA is one of cas: a CA no longer in
// grpc.client_ca_file needs no CRL, its certificates are refused anyway.
func ofCAs(ms []crlMark, cas []*x509.Certificate) []crlMark {
	var in []crlMark
	for _, m := range ms {
		if slices.ContainsFunc(cas, func(ca *x509.Certificate) bool { return bytes.Equal(ca.RawSubject, m.issuer) }) {
			in = append(in, m)
		}
	}
	return in
}

// mergeMarks is saved with the marks of taken in place of the same CAs',
// sorted by issuer: what crlStateFile must hold once taken is in force.
// Never lower than saved: taken was checked not older.
func mergeMarks(saved, taken []crlMark) []crlMark {
	ms := slices.Clone(taken)
	for _, s := range saved {
		if !slices.ContainsFunc(taken, func(m crlMark) bool { return bytes.Equal(m.issuer, s.issuer) }) {
			ms = append(ms, s)
		}
	}
	slices.SortFunc(ms, func(a, b crlMark) int { return bytes.Compare(a.issuer, b.issuer) })
	return ms
}

// crlStateJSON is crlStateFile's content.
type crlStateJSON struct {
	Format int           `json:"format"`
	CRLs   []crlMarkJSON `json:"crls"`
}

// crlMarkJSON is a crlMark in crlStateFile.
type crlMarkJSON struct {
	Issuer     []byte    `json:"issuer"`           // DER, base64
	Number     string    `json:"number,omitempty"` // decimal; none when the CRL has none
	ThisUpdate time.Time `json:"this_update"`
}

// loadCRLState reads crlStateFile at path: its marks, and whether it
// exists. A file that does not read whole and well is an error: the caller
// refuses the start (taking the file's CRLs would forget what it held).
func loadCRLState(path string) ([]crlMark, bool, error) {
	b, _, err := boundedfile.ReadStat(path, maxCRLState)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("couldn't read it: %w", err)
	}
	ms, err := parseCRLState(b)
	return ms, true, err
}

// parseCRLState parses crlStateFile's content b.
func parseCRLState(b []byte) ([]crlMark, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var s crlStateJSON
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("not a CRL memory: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("not a CRL memory: more after it")
	}
	if s.Format != crlStateFormat {
		return nil, fmt.Errorf("format %d, not %d", s.Format, crlStateFormat)
	}
	var ms []crlMark
	for i, j := range s.CRLs {
		m := crlMark{issuer: j.Issuer, thisUpdate: j.ThisUpdate}
		var seq pkix.RDNSequence
		if rest, err := asn1.Unmarshal(j.Issuer, &seq); err != nil || len(rest) > 0 || len(j.Issuer) == 0 {
			return nil, fmt.Errorf("CRL %d: its issuer is not a DER name", i+1)
		}
		if j.Number != "" {
			var ok bool
			if m.number, ok = new(big.Int).SetString(j.Number, 10); !ok || m.number.String() != j.Number {
				return nil, fmt.Errorf("CRL %d: number %.40q is not a CRL number", i+1, j.Number)
			}
		}
		if err := m.check(); err != nil {
			return nil, fmt.Errorf("CRL %d: %w", i+1, err)
		}
		if slices.ContainsFunc(ms, func(o crlMark) bool { return bytes.Equal(o.issuer, m.issuer) }) {
			return nil, fmt.Errorf("CRL %d: a second of the same CA", i+1)
		}
		ms = append(ms, m)
	}
	return ms, nil
}

// saveCRLState replaces crlStateFile at path with ms, durably
// (atomicfile: the file fsynced, renamed, the directory fsynced).
func saveCRLState(path string, ms []crlMark) error {
	b, err := formatCRLState(ms)
	if err != nil {
		return err
	}
	return atomicfile.Write(path, b, 0o600)
}

// formatCRLState is crlStateFile's content for ms, which parseCRLState
// reads back.
func formatCRLState(ms []crlMark) ([]byte, error) {
	s := crlStateJSON{Format: crlStateFormat, CRLs: []crlMarkJSON{}}
	for _, m := range ms {
		j := crlMarkJSON{Issuer: m.issuer, ThisUpdate: m.thisUpdate.UTC()}
		if m.number != nil {
			j.Number = m.number.String()
		}
		s.CRLs = append(s.CRLs, j)
	}
	b, err := json.MarshalIndent(s, "", "  ")
	return append(b, '\n'), err
}
