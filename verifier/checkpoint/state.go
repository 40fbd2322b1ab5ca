package checkpoint

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"time"

	"golang.org/x/mod/sumdb/tlog"

	"tirage.fr/tirage/verifier/verdict"
)

// State is the verifier's local trust state: per log, the keys it trusts
// and the last checkpoint it accepted. rngverify keeps it in a file; this
// package only encodes it and decides how it may change.
//
// A log's keys enter the state in one of two ways, recorded in Trust:
// "pinned" (given as files or fingerprints by the user) or "first-use"
// (taken from the log itself the first time, because the user asked for
// trust on first use explicitly). Later runs trust exactly these keys.
//
// A log's witnesses (c2sp.org/tlog-witness) and their quorum enter the
// state the first time they are given for it (rngverify --witness,
// --witness-quorum): later runs require their cosignatures of every
// checkpoint of the log, given again or not. A state without them (one
// written by an older rngverify) requires none. They are an optional
// member of version 1, not a version 2: an rngverify older than them
// refuses a state that has them (unknown field), rather than reading it
// without the witnesses.
type State struct {
	V    int                  `json:"v"` // 1
	Logs map[string]*LogState `json:"logs"`
}

// LogState is what is trusted about one log (keyed by origin).
type LogState struct {
	Keys  []string `json:"keys"`  // verifier key texts
	Trust string   `json:"trust"` // "pinned" or "first-use"
	Since string   `json:"since"` // RFC 3339 time the keys were first trusted
	// Witnesses are the witnesses' cosignature/v1 verifier key texts
	// (sorted); every checkpoint of the log must carry valid cosignatures
	// of Quorum of them (1 to their number). None: no witness required.
	Witnesses      []string `json:"witnesses,omitempty"`
	Quorum         int      `json:"quorum,omitempty"`
	WitnessesSince string   `json:"witnesses_since,omitempty"` // RFC 3339 time they were recorded
	// Checkpoint is the last checkpoint accepted (signed note text); the
	// next one must be consistent with it.
	Checkpoint string `json:"checkpoint,omitempty"`
	Updated    string `json:"updated,omitempty"`
}

// Trust modes.
const (
	TrustPinned   = "pinned"
	TrustFirstUse = "first-use"
)

// ParseState decodes a state file (empty input: a new state).
func ParseState(b []byte) (*State, error) {
	s := &State{V: 1, Logs: map[string]*LogState{}}
	if len(bytes.TrimSpace(b)) == 0 {
		return s, nil
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(s); err != nil {
		return nil, verdict.Errorf(verdict.MsgStateErr, verdict.JSONError(err))
	}
	if s.V != 1 {
		return nil, verdict.Errorf(verdict.MsgStateVersion, s.V)
	}
	if s.Logs == nil {
		s.Logs = map[string]*LogState{}
	}
	for origin, l := range s.Logs {
		if l == nil { // "logs": {"<origin>": null}
			return nil, verdict.Errorf(verdict.MsgStateLog, origin, verdict.Errorf(verdict.MsgStateNoKey))
		}
		if _, err := l.TrustedKeys(); err != nil {
			return nil, verdict.Errorf(verdict.MsgStateLog, origin, err)
		}
		if _, _, err := l.TrustedWitnesses(); err != nil {
			return nil, verdict.Errorf(verdict.MsgStateLog, origin, err)
		}
	}
	return s, nil
}

// Marshal encodes the state file.
func (s *State) Marshal() []byte {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		panic("checkpoint: state: " + err.Error())
	}
	return append(b, '\n')
}

// TrustedKeys parses the log's keys.
func (l *LogState) TrustedKeys() ([]*Key, error) {
	var out []*Key
	for _, t := range l.Keys {
		k, err := ParseKey(t)
		if err != nil {
			return nil, err
		}
		out = append(out, k)
	}
	if len(out) == 0 {
		return nil, verdict.Errorf(verdict.MsgStateNoKey)
	}
	return out, nil
}

// TrustedWitnesses parses the log's witnesses and returns them with their
// quorum (none and 0 when the state records no witness). A quorum outside 1
// to their number, or one without witnesses, is an error.
func (l *LogState) TrustedWitnesses() ([]*Witness, int, error) {
	var out []*Witness
	for _, t := range l.Witnesses {
		w, err := ParseWitness(t)
		if err == nil {
			out, err = AddWitness(out, w)
		}
		if err != nil {
			return nil, 0, err
		}
	}
	if (l.Quorum != 0 || len(out) > 0) && (l.Quorum < 1 || l.Quorum > len(out)) {
		return nil, 0, verdict.Errorf(verdict.MsgStateQuorum, l.Quorum, len(out))
	}
	return out, l.Quorum, nil
}

// Witness records for origin, a log already in the state, the witnesses ws
// and their quorum (0: all of them) when the state has none for it:
// recorded is then true. A log whose state has witnesses keeps them: ws
// must be the same witnesses (by name and key) with the same quorum, else
// an error says how they are changed (editing the state file, as its
// keys). No witness given changes nothing.
func (s *State) Witness(origin string, ws []*Witness, quorum int, now time.Time) (recorded bool, err error) {
	l := s.Logs[origin]
	if len(ws) == 0 || l == nil {
		return false, nil
	}
	if quorum == 0 {
		quorum = len(ws)
	}
	if len(l.Witnesses) == 0 {
		texts := make([]string, 0, len(ws))
		for _, w := range ws {
			texts = append(texts, w.Text)
		}
		slices.Sort(texts)
		l.Witnesses, l.Quorum, l.WitnessesSince = texts, quorum, now.UTC().Format(time.RFC3339)
		return true, nil
	}
	trusted, q, err := l.TrustedWitnesses()
	if err != nil {
		return false, err
	}
	if !SameWitnesses(trusted, ws) || q != quorum {
		names := make([]string, 0, len(trusted))
		for _, w := range trusted {
			names = append(names, w.String())
		}
		return false, verdict.Errorf(verdict.MsgStateOtherWitnesses, origin, q, strings.Join(names, ", "), l.WitnessesSince)
	}
	return false, nil
}

// SameWitnesses reports whether a and b are the same witnesses: the same
// keys under the same names (a key ID spelled otherwise is the same).
func SameWitnesses(a, b []*Witness) bool {
	notIn := func(ws []*Witness) func(*Witness) bool {
		return func(w *Witness) bool {
			return !slices.ContainsFunc(ws, func(x *Witness) bool { return x.Name == w.Name && bytes.Equal(x.Public, w.Public) })
		}
	}
	return !slices.ContainsFunc(a, notIn(b)) && !slices.ContainsFunc(b, notIn(a))
}

// Last returns the last accepted checkpoint (nil if none), re-opened with
// the log's keys.
func (l *LogState) Last() (*Checkpoint, error) {
	if l.Checkpoint == "" {
		return nil, nil
	}
	keys, err := l.TrustedKeys()
	if err != nil {
		return nil, err
	}
	return Open([]byte(l.Checkpoint), keys)
}

// Trust records keys for origin (replacing none: a log already in the state
// keeps its keys unless they are the same set).
func (s *State) Trust(origin string, keys []*Key, mode string, now time.Time) (*LogState, error) {
	texts := make([]string, 0, len(keys))
	for _, k := range keys {
		if k.Name != origin {
			return nil, verdict.Errorf(verdict.MsgStateKeyOtherLog, k.Fingerprint(), k.Name, origin)
		}
		texts = append(texts, k.Text)
	}
	slices.Sort(texts)
	if l, ok := s.Logs[origin]; ok {
		if !slices.Equal(l.Keys, texts) {
			return nil, verdict.Errorf(verdict.MsgStateOtherKeys, origin, l.Since)
		}
		return l, nil
	}
	l := &LogState{Keys: texts, Trust: mode, Since: now.UTC().Format(time.RFC3339)}
	s.Logs[origin] = l
	return l, nil
}

// Advance accepts c as the log's latest checkpoint when it is consistent
// with the last accepted one (proof from the smaller to the larger size);
// a fork wraps ErrFork and changes nothing. A checkpoint older than the
// last accepted one is checked but does not replace it.
func (l *LogState) Advance(c *Checkpoint, proof tlog.TreeProof, now time.Time) error {
	last, err := l.Last()
	if err != nil {
		return verdict.Errorf(verdict.MsgStateLast, err)
	}
	if last != nil {
		if err := Consistent(last, c, proof); err != nil {
			return err
		}
		if c.Size <= last.Size {
			return nil
		}
	}
	l.Checkpoint = string(c.Note)
	l.Updated = now.UTC().Format(time.RFC3339)
	return nil
}
