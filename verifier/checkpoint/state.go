package checkpoint

import (
	"bytes"
	"encoding/json"
	"slices"
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
type State struct {
	V    int                  `json:"v"` // 1
	Logs map[string]*LogState `json:"logs"`
}

// LogState is what is trusted about one log (keyed by origin).
type LogState struct {
	Keys  []string `json:"keys"`  // verifier key texts
	Trust string   `json:"trust"` // "pinned" or "first-use"
	Since string   `json:"since"` // RFC 3339 time the keys were first trusted
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
