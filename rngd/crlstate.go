package rngd

import (
	"bytes"
	"cmp"
	"crypto/sha256"
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
// A CA is its name, the CRL's issuer (its DER, RawIssuer), and its key
// (keyID), as elsewhere in rngd: a file holds one CRL per CA, and a
// certificate is revoked by its issuer's name and key and its serial
// number (revokedKey). Two CAs of one name (a CA re-keyed) are two CAs,
// each with its CRL and its mark.
//
// An rngd before 2026-12-04 told CAs apart by name alone, and its
// crlStateFile (format 1) holds marks without a key: such a mark is kept
// (ofCAs, mergeMarks) and binds every CRL of that name (crls.notOlder)
// until a CRL of that name is taken, whose CA's mark, with its key,
// replaces it. It is never dropped: the rollback it refuses would
// otherwise be taken at the first start of a new rngd.

// crlStateFile, in the data directory, remembers the newest CRL rngd took
// of each CA (its CRL number and thisUpdate): one older is refused, at the
// start too. Deleting it is the way back to an older CRL (a CRL of a far
// number issued by mistake).
const crlStateFile = "client-crl-newest"

// crlStateFormat is the format of crlStateFile rngd writes; it reads
// crlStateFormatByName too, an older rngd's, whose marks have no key.
const (
	crlStateFormat       = 2
	crlStateFormatByName = 1
)

// maxCRLState bounds crlStateFile (a few hundred bytes a CA).
const maxCRLState = 1 << 20

// crlMark is where a CA's CRL stands in the order of its CRLs.
type crlMark struct {
	issuer     []byte   // the CA's DER name: x509.RevocationList.RawIssuer
	key        []byte   // the CA's keyID; nil in a mark of crlStateFormatByName, of any CA of that name
	number     *big.Int // the CRL number; nil when the CRL has none
	thisUpdate time.Time
}

// keyID is a CA's key as crlStateFile names it: the SHA-256 of its DER
// SubjectPublicKeyInfo.
func keyID(ca *x509.Certificate) []byte {
	h := sha256.Sum256(ca.RawSubjectPublicKeyInfo)
	return h[:]
}

// markOf is l's mark, l a CRL of ca (checkCRL); a mark without a key when
// ca is nil.
func markOf(l *x509.RevocationList, ca *x509.Certificate) crlMark {
	m := crlMark{issuer: l.RawIssuer, number: l.Number, thisUpdate: l.ThisUpdate}
	if ca != nil {
		m.key = keyID(ca)
	}
	return m
}

// of reports whether m is a mark of ca: its name, and its key unless m has
// none.
func (m crlMark) of(ca *x509.Certificate) bool {
	return bytes.Equal(m.issuer, ca.RawSubject) && (m.key == nil || bytes.Equal(m.key, keyID(ca)))
}

// ca names m's CA for messages: its name, and the first bytes of its key,
// which tell two CAs of one name apart.
func (m crlMark) ca() string {
	if m.key == nil {
		return fmt.Sprintf("%.120q", m.name())
	}
	return fmt.Sprintf("%.120q (key %X)", m.name(), m.key[:6])
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
	return bytes.Equal(m.issuer, o.issuer) && bytes.Equal(m.key, o.key) && sameNumber && m.thisUpdate.Equal(o.thisUpdate)
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
	for i, l := range c.lists {
		ms = append(ms, markOf(l, c.cas[i]))
	}
	return ms
}

// notOlder refuses c when it would roll back prev: every CA of prev needs
// a CRL in c that is not older (crlMark.olderThan). A mark without a key
// (crlStateFormatByName) is every CA's of its name: each CRL of that name
// must be not older, since the CRL it marks may be any of theirs.
func (c *crls) notOlder(prev crlPrev) error {
	for _, o := range prev.marks {
		found := false
		for i, l := range c.lists {
			if !o.of(c.cas[i]) {
				continue
			}
			found = true
			if err := markOf(l, c.cas[i]).olderThan(o, prev.than); err != nil {
				if o.key == nil {
					err = fmt.Errorf("%w (remembered by an older rngd by its CA's name alone: every CRL of that name must be as new)", err)
				}
				return err
			}
		}
		if !found {
			return fmt.Errorf("no CRL of %s, %s", o.ca(), prev.had)
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
	name := n.ca()
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

// ofCAs is the marks of ms whose CA is one of cas (crlMark.of): a CA no
// longer in grpc.client_ca_file needs no CRL, its certificates are refused
// anyway.
func ofCAs(ms []crlMark, cas []*x509.Certificate) []crlMark {
	var in []crlMark
	for _, m := range ms {
		if slices.ContainsFunc(cas, m.of) {
			in = append(in, m)
		}
	}
	return in
}

// mergeMarks is saved with the marks of taken in place of the same CAs',
// sorted by issuer and key: what crlStateFile must hold once taken is in
// force. Never lower than saved: taken was checked not older. A saved mark
// without a key gives way to the marks taken of its name, each checked
// not older than it.
func mergeMarks(saved, taken []crlMark) []crlMark {
	ms := slices.Clone(taken)
	for _, s := range saved {
		if !slices.ContainsFunc(taken, func(m crlMark) bool {
			return bytes.Equal(m.issuer, s.issuer) && (s.key == nil || bytes.Equal(m.key, s.key))
		}) {
			ms = append(ms, s)
		}
	}
	slices.SortFunc(ms, func(a, b crlMark) int { return cmp.Or(bytes.Compare(a.issuer, b.issuer), bytes.Compare(a.key, b.key)) })
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
	Key        []byte    `json:"key,omitempty"`    // keyID, base64; none in format 1, or in a mark kept from it
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
	if s.Format != crlStateFormat && s.Format != crlStateFormatByName {
		return nil, fmt.Errorf("format %d, not %d or %d", s.Format, crlStateFormat, crlStateFormatByName)
	}
	var ms []crlMark
	for i, j := range s.CRLs {
		m := crlMark{issuer: j.Issuer, key: j.Key, thisUpdate: j.ThisUpdate}
		var seq pkix.RDNSequence
		if rest, err := asn1.Unmarshal(j.Issuer, &seq); err != nil || len(rest) > 0 || len(j.Issuer) == 0 {
			return nil, fmt.Errorf("CRL %d: its issuer is not a DER name", i+1)
		}
		switch {
		case j.Key != nil && s.Format == crlStateFormatByName:
			return nil, fmt.Errorf("CRL %d: a key in format %d, which has none", i+1, s.Format)
		case j.Key != nil && len(j.Key) != sha256.Size:
			return nil, fmt.Errorf("CRL %d: its key is %d bytes, not a SHA-256", i+1, len(j.Key))
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
		if slices.ContainsFunc(ms, func(o crlMark) bool { return bytes.Equal(o.issuer, m.issuer) && bytes.Equal(o.key, m.key) }) {
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
		j := crlMarkJSON{Issuer: m.issuer, Key: m.key, ThisUpdate: m.thisUpdate.UTC()}
		if m.number != nil {
			j.Number = m.number.String()
		}
		s.CRLs = append(s.CRLs, j)
	}
	b, err := json.MarshalIndent(s, "", "  ")
	return append(b, '\n'), err
}
