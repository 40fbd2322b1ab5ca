package tilelog

import (
	"errors"
	"fmt"
	"net/http"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/transparency-dev/tessera"
)

// Witnesses. With Config.WitnessPolicy set, tessera sends every checkpoint
// it is about to publish to the policy's witnesses (C2SP tlog-witness,
// POST <witness URL>/add-checkpoint, with a consistency proof from the size
// each witness last cosigned) and publishes it only once their
// cosignatures (C2SP tlog-cosignature, cosignature/v1) satisfy the
// policy's quorum; the cosignature lines are part of the published
// checkpoint, so receipts and /log/checkpoint carry them.
//
// A quorum not met within Config.WitnessTimeout leaves the checkpoint
// unpublished; tessera tries again at the next checkpoint interval. There is
// no fail-open: checkpoints then trail the tree, and past
// Config.CheckpointTimeout the log stalls (ErrCheckpointStalled) and refuses
// appends, as for a checkpoint signer that fails. A policy whose quorum
// tolerates a witness down ("group all-of-them 1 a b") keeps the log running
// while one of them is. Acknowledged leaves are durable in the journal
// whatever the witnesses do.

// DefaultWitnessTimeout bounds how long one checkpoint waits for the
// witnesses' quorum.
const DefaultWitnessTimeout = 2 * time.Second

// MaxWitnessPolicy bounds the policy text (a few lines per witness).
const MaxWitnessPolicy = 64 << 10

// ParseWitnessPolicy checks a witness policy: the Sigsum policy format
// (lines "witness NAME VKEY URL", "group NAME N|any|all MEMBER...",
// "quorum NAME"; "log" lines are ignored) with C2SP cosignature/v1 verifier
// keys (signature type 0x04), as tessera reads it. It returns the witnesses'
// key names by URL, for the metrics. A policy must name a quorum, and one
// of at least one witness ("quorum none" is refused: leave the policy out).
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
	// Name is the witness's key name, URL its add-checkpoint endpoint.
	Name, URL string
	// Cosigned counts the replies with a cosignature (200), Conflicts the
	// replies giving another size than the one sent (409, which tessera
	// retries with that size), Failures every other reply or a request
	// that got no reply.
	Cosigned, Conflicts, Failures uint64
	// LastCosigned is when the last cosignature came (zero: none yet).
	LastCosigned time.Time
}

// witnessMeter counts the witnesses' replies: it is the transport of the
// HTTP client tessera uses to reach them (only them: the posix driver
// makes no other request).
type witnessMeter struct {
	next  http.RoundTripper
	names map[string]string // URL → key name
	mu    sync.Mutex
	stats map[string]*witnessCounts
}

type witnessCounts struct {
	cosigned, conflicts, failures atomic.Uint64
	last                          atomic.Int64 // unix nanoseconds
}

func newWitnessMeter(names map[string]string, next http.RoundTripper) *witnessMeter {
	m := &witnessMeter{next: next, names: names, stats: map[string]*witnessCounts{}}
	for url := range names {
		m.stats[url] = &witnessCounts{}
	}
	return m
}

func (m *witnessMeter) counts(url string) *witnessCounts {
	m.mu.Lock()
	defer m.mu.Unlock()
	c, ok := m.stats[url]
	if !ok {
		c = &witnessCounts{}
		m.stats[url] = c
	}
	return c
}

func (m *witnessMeter) RoundTrip(req *http.Request) (*http.Response, error) {
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

func (m *witnessMeter) snapshot() []WitnessStat {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]WitnessStat, 0, len(m.stats))
	for url, c := range m.stats {
		s := WitnessStat{Name: m.names[url], URL: url, Cosigned: c.cosigned.Load(), Conflicts: c.conflicts.Load(), Failures: c.failures.Load()}
		if t := c.last.Load(); t != 0 {
			s.LastCosigned = time.Unix(0, t)
		}
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].URL < out[j].URL })
	return out
}

// Witnesses reports what the log saw of each witness of its policy since
// it opened (none without a policy), for metrics.
func (l *Log) Witnesses() []WitnessStat {
	if l.witnesses == nil {
		return nil
	}
	return l.witnesses.snapshot()
}
