package audit

import (
	"cmp"
	"io"
	"maps"
	"slices"
	"strings"

	"tirage.fr/tirage/verifier/manifest"
	"tirage.fr/tirage/verifier/qod"
	"tirage.fr/tirage/verifier/record"
	"tirage.fr/tirage/verifier/verdict"
)

// Manifest is a ticket manifest file given to the audit (rngverify audit
// --manifest), as ReadManifest reads it: its root and count as rngd
// computes them when it imports the file (package manifest), and each
// ticket's gain S.
//
// A game start holds its ticket (the hash of its code) and its gain S with
// no proof of either: the log holds only the root of the manifest the
// ticket came from (record.Manifest). With the manifest file, the audit
// checks every start of its emission against it: its ticket must be in a
// manifest of its emission logged before it (rngd logs a manifest before
// any of its codes can start a game), with that S. A start that
// contradicts the manifests is misbehaviour: the appliance signed both.
type Manifest struct {
	// Name names the file in the verdict and in errors (rngverify: its path).
	Name     string
	Emission string
	Root     [32]byte
	Count    uint64
	Total    int64 // the sum of the gains S, in cents (record.Manifest.Total)
	// stake is each ticket's gain, by its index in qod.Stakes (a byte: a
	// manifest of a 3-million-ticket block holds some 800,000 tickets).
	stake map[[32]byte]uint8
}

// ReadManifest reads a manifest file from r, streaming it: one emission's
// tickets, each once, at least one (what rngd imports). The error, which
// names the file, says why rngd would not have imported it.
func ReadManifest(name string, r io.Reader) (*Manifest, error) {
	m := &Manifest{Name: name, stake: map[[32]byte]uint8{}}
	tree := manifest.NewTree()
	err := manifest.Read(r, func(t manifest.Ticket) error {
		n := tree.Count() + 1
		switch {
		case n == 1:
			m.Emission = t.Emission
		case t.Emission != m.Emission:
			return verdict.Errorf(verdict.MsgAuditManifestEmissions, n, t.Emission, m.Emission)
		}
		if _, dup := m.stake[t.TicketHash]; dup {
			return verdict.Errorf(verdict.MsgAuditManifestTwice, n, t.TicketHash[:])
		}
		m.stake[t.TicketHash] = uint8(slices.Index(qod.Stakes, t.StakeCents)) // Read checked it is one
		m.Total += t.StakeCents
		tree.Add(t)
		return nil
	})
	if err == nil && tree.Count() == 0 {
		err = verdict.Errorf(verdict.MsgAuditManifestEmpty)
	}
	if err != nil {
		return nil, verdict.Errorf(verdict.MsgAuditManifestBad, name, err)
	}
	m.Count = tree.Count()
	copy(m.Root[:], tree.Root())
	return m, nil
}

// stakeOf is the gain S of ticket h, if the manifest lists it.
func (m *Manifest) stakeOf(h [32]byte) (int64, bool) {
	i, ok := m.stake[h]
	if !ok {
		return 0, false
	}
	return qod.Stakes[i], true
}

// loggedManifest is a manifest file given that a record.Manifest of the
// log has the root of.
type loggedManifest struct {
	file  *Manifest
	index uint64 // the record's entry
}

// emissionManifests is what the audit knows of an emission's manifests
// when it is given manifest files (the reading goroutine's).
type emissionManifests struct {
	first   uint64             // entry of its first manifest record
	given   []loggedManifest   // files given whose root its manifest records have, each once, in log order of its first record
	seen    map[*Manifest]bool // the files of given: a file logged again (the same root) is checked once
	logged  int                // manifest records
	missing int                // manifest records whose file was not given
	checked int                // starts checked against the files given
	blind   int                // starts whose ticket is in no file given, some manifest not given
	// The same for the ticket_quit records (manifestQuit).
	quitChecked, quitBlind int
}

// manifestRecord notes a record.Manifest (entry index) when manifest files
// are given. A file whose root the record has is the manifest the record
// commits to: the record's emission, count and total must be the file's,
// else the appliance signed a record that contradicts its own root.
func (a *auditor) manifestRecord(index uint64, x *record.Manifest) {
	if len(a.cfg.Manifests) == 0 {
		return
	}
	e := a.mans[x.Emission]
	if e == nil {
		e = &emissionManifests{first: index}
		a.mans[x.Emission] = e
	}
	e.logged++
	f := a.byRoot[x.Root]
	if f == nil {
		e.missing++
		return
	}
	if x.Emission != f.Emission || x.Count != f.Count || (x.Total != 0 && x.Total != f.Total) {
		// An rngd older than record.Manifest.Total logs none (0).
		a.issue(verdict.CheckGames, true, verdict.MsgAuditManifestRecord, index, f.Name, x.Emission, x.Count, x.Total, f.Emission, f.Count, f.Total)
	}
	if x.Emission != f.Emission {
		e.missing++ // its tickets are not this emission's
		return
	}
	if _, seen := a.matched[f]; !seen {
		a.matched[f] = index
	}
	// A start is checked against each file once, whatever the number of
	// records with its root: one entry per record would make every start
	// whose ticket is in no file walk them all.
	if !e.seen[f] {
		if e.seen == nil {
			e.seen = map[*Manifest]bool{}
		}
		e.seen[f] = true
		e.given = append(e.given, loggedManifest{file: f, index: index})
	}
}

// manifestStart checks game start x (entry index) against the manifest
// files given of its emission logged before it: its ticket must be in one,
// with its gain S. A ticket in none is a contradiction only when every
// manifest of the emission logged before it was given; otherwise it may be
// in one not given, and the start is not checked. (A start before any
// manifest of its emission is MsgAuditStartUnmanifested.)
func (a *auditor) manifestStart(index uint64, x *record.GameStart) {
	e := a.mans[x.Emission]
	if e == nil {
		return
	}
	switch g, s, found, names := e.lookup(x.Ticket); {
	case found && s != x.Stake:
		a.issue(verdict.CheckGames, true, verdict.MsgAuditStartStake, x.Game, index, x.Ticket[:], x.Stake, g.file.Name, g.index, s)
	case found:
		e.checked++
	case e.missing > 0:
		e.blind++
	default:
		// "Every manifest logged before it" is of the entries read: one
		// refused before it may be another manifest record.
		a.missing(verdict.CheckGames, verdict.M(verdict.MsgAuditStartNotInManifest, x.Game, index, x.Ticket[:], e.logged, x.Emission, names))
	}
}

// manifestQuit checks a ticket_quit x (entry index) as manifestStart does
// a start: the S it keeps is its ticket's in the manifests of its emission
// logged before it.
func (a *auditor) manifestQuit(index uint64, x *record.TicketQuit) {
	e := a.mans[x.Emission]
	if e == nil {
		return
	}
	switch g, s, found, names := e.lookup(x.Ticket); {
	case found && s != x.Stake:
		a.issue(verdict.CheckGames, true, verdict.MsgAuditQuitStake, index, x.Ticket[:], x.Stake, g.file.Name, g.index, s)
	case found:
		e.quitChecked++
	case e.missing > 0:
		e.quitBlind++
	default:
		a.missing(verdict.CheckGames, verdict.M(verdict.MsgAuditQuitNotInManifest, index, x.Ticket[:], e.logged, x.Emission, names))
	}
}

// lookup finds ticket h in the manifest files given of the emission: the
// file's record and h's gain S when found, else the files' names.
func (e *emissionManifests) lookup(h [32]byte) (g loggedManifest, stake int64, found bool, names string) {
	for _, g := range e.given {
		if s, ok := g.file.stakeOf(h); ok {
			return g, s, true, ""
		}
	}
	n := make([]string, len(e.given))
	for i, g := range e.given {
		n[i] = g.file.Name
	}
	return loggedManifest{}, 0, false, strings.Join(n, ", ")
}

// manifestFacts says what the manifest files given checked: each file with
// the entry of the record that has its root (a file no record has is not
// the manifest logged), then each emission whose manifests were logged:
// checked, or which of its starts were not.
func (a *auditor) manifestFacts() {
	if len(a.cfg.Manifests) == 0 {
		return
	}
	label := verdict.M(verdict.MsgAuditFactManifests)
	for _, f := range a.manifests {
		if i, ok := a.matched[f]; ok {
			a.v.FactNamed(label, verdict.MsgAuditManifestLogged, f.Name, f.Emission, f.Count, f.Root[:], i)
		} else {
			a.v.FactNamed(label, verdict.MsgAuditManifestUnmatched, f.Name, f.Emission, f.Count, f.Root[:])
		}
	}
	ems := slices.SortedFunc(maps.Keys(a.mans), func(x, y string) int { return cmp.Compare(a.mans[x].first, a.mans[y].first) })
	for _, em := range ems {
		e := a.mans[em]
		if e.missing == 0 {
			a.v.FactNamed(label, verdict.MsgAuditManifestEmissionChecked, em, e.logged, e.checked)
		} else {
			a.v.FactNamed(label, verdict.MsgAuditManifestEmissionUnchecked, em, e.missing, e.logged, e.checked, e.blind)
		}
		if e.quitChecked+e.quitBlind > 0 {
			a.v.FactNamed(label, verdict.MsgAuditManifestQuits, em, e.quitChecked, e.quitBlind)
		}
	}
}
