package transparency

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/transparency-dev/tessera"
)

// Witnesses, for both backends: a witness policy names the witnesses
// (C2SP tlog-witness, POST <witness URL>/add-checkpoint) whose
// cosignatures (C2SP tlog-cosignature, cosignature/v1) a checkpoint must
// carry before it is published. The embedded log has tessera send them its
// checkpoints (transparency/tilelog, witness.go); the Trillian backend
// sends them itself (transparency/trillian, witness.go).

// DefaultWitnessTimeout bounds how long one checkpoint waits for the
// witnesses' quorum.
const DefaultWitnessTimeout = 2 * time.Second

// MaxWitnessPolicy bounds the policy text (a few lines per witness).
const MaxWitnessPolicy = 64 << 10

// ParseWitnessPolicy checks a witness policy: the Sigsum policy format
// (lines "witness NAME VKEY URL", "group NAME N|any|all MEMBER...",
// "quorum NAME"; "log" lines are ignored) with C2SP cosignature/v1 verifier
// keys (signature type 0x04), as tessera reads it. It returns the witnesses'
// key names by add-checkpoint URL, for the metrics. A policy must name a
// quorum, and one of at least one witness ("quorum none" is refused: leave
// the policy out).
func ParseWitnessPolicy(policy []byte) (tessera.WitnessGroup, map[string]string, error) {
	if len(policy) > MaxWitnessPolicy {
		return tessera.WitnessGroup{}, nil, fmt.Errorf("witness policy of %d bytes: at most %d", len(policy), MaxWitnessPolicy)
	}
	g, err := tessera.NewWitnessGroupFromPolicy(policy)
	if err != nil {
		return tessera.WitnessGroup{}, nil, fmt.Errorf("witness policy: %w", err)
	}
	if g.N <= 0 {
		return tessera.WitnessGroup{}, nil, errors.New("witness policy: its quorum asks for no witness (leave the policy out to publish checkpoints without witnesses)")
	}
	names := map[string]string{}
	for url, v := range g.Endpoints() {
		names[url] = v.Name()
	}
	return g, names, nil
}

// WitnessStat is what the log saw of one witness since it opened.
type WitnessStat struct {
	// Name is the witness's key name, URL its add-checkpoint endpoint
	// (a password in it, a bastion's, redacted: it is shown in metrics).
	Name, URL string
	// Cosigned counts the replies with a cosignature (200), Conflicts the
	// replies giving another size than the one sent (409, retried with
	// that size), Failures every other reply or a request that got no
	// reply.
	Cosigned, Conflicts, Failures uint64
	// LastCosigned is when the last cosignature came (zero: none yet).
	LastCosigned time.Time
}

// WitnessMeter counts the witnesses' replies: it is the transport of the
// HTTP client that reaches them (only them).
type WitnessMeter struct {
	next  http.RoundTripper
	names map[string]string // URL → key name
	mu    sync.Mutex
	stats map[string]*witnessCounts // guarded by mu
}

type witnessCounts struct {
	cosigned, conflicts, failures atomic.Uint64
	last                          atomic.Int64 // unix nanoseconds
}

// NewWitnessMeter returns a meter for the witnesses names lists (URL → key
// name, as ParseWitnessPolicy returns them) in front of next.
func NewWitnessMeter(names map[string]string, next http.RoundTripper) *WitnessMeter {
	m := &WitnessMeter{next: next, names: names, stats: map[string]*witnessCounts{}}
	for url := range names {
		m.stats[url] = &witnessCounts{}
	}
	return m
}

func (m *WitnessMeter) counts(url string) *witnessCounts {
	m.mu.Lock()
	defer m.mu.Unlock()
	c, ok := m.stats[url]
	if !ok {
		c = &witnessCounts{}
		m.stats[url] = c
	}
	return c
}

// RoundTrip implements http.RoundTripper.
func (m *WitnessMeter) RoundTrip(req *http.Request) (*http.Response, error) {
	c := m.counts(req.URL.String())
	resp, err := m.next.RoundTrip(req)
	switch {
	case err != nil:
		c.failures.Add(1)
	case resp.StatusCode == http.StatusOK:
		c.cosigned.Add(1)
		c.last.Store(time.Now().UnixNano())
	case resp.StatusCode == http.StatusConflict:
		c.conflicts.Add(1)
	default:
		c.failures.Add(1)
	}
	return resp, err
}

// redacted is raw with the password of its user information, if any,
// replaced by "xxxxx" (url.URL.Redacted).
func redacted(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparsable URL)"
	}
	return u.Redacted()
}

// Snapshot returns the counts so far, by URL.
func (m *WitnessMeter) Snapshot() []WitnessStat {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]WitnessStat, 0, len(m.stats))
	for u, c := range m.stats {
		s := WitnessStat{Name: m.names[u], URL: redacted(u), Cosigned: c.cosigned.Load(), Conflicts: c.conflicts.Load(), Failures: c.failures.Load()}
		if t := c.last.Load(); t != 0 {
			s.LastCosigned = time.Unix(0, t)
		}
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].URL < out[j].URL })
	return out
}

// NewWitnessClient returns the HTTP client that reaches the witnesses
// through meter, each request bounded by timeout. A witness answers at its
// own URL: a redirect is not followed (the policy names where each
// witness is).
func NewWitnessClient(meter *WitnessMeter, timeout time.Duration) *http.Client {
	return &http.Client{
		Transport:     meter,
		Timeout:       timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}
