package trillian

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/transparency-dev/tessera"
	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"

	"tirage.fr/tirage/transparency"
	"tirage.fr/tirage/transparency/checkpoint"
)

// Witnesses. With Config.WitnessPolicy set, sign sends every checkpoint it
// signs to the policy's witnesses (C2SP tlog-witness: POST <witness
// URL>/add-checkpoint with "old <size>", a consistency proof from the
// size the witness last cosigned, from Trillian, and the signed
// checkpoint), all at once, and hands it out — and saves it in the state
// file — only once their cosignatures (C2SP tlog-cosignature,
// cosignature/v1, each checked with its witness's key) satisfy the
// policy's quorum, within Config.WitnessTimeout. There is no fail-open: a
// quorum not met is ErrUnavailable for that checkpoint (readers retry),
// and neither the state file nor the cached checkpoint advance. A reply
// 409 with Content-Type text/x.tlog.size gives the size the witness holds
// (it restarted, or cosigned a checkpoint the quorum then failed): the
// request is sent again from that size, at most maxWitnessTries times.
// The client mirrors tessera's (internal/witness), which the embedded
// backend uses.

// maxWitnessTries bounds the requests to one witness for one checkpoint
// (409s answered with another size).
const maxWitnessTries = 10

// maxWitnessReply bounds a witness's reply body: a few cosignature lines.
const maxWitnessReply = 64 << 10

// errNotWitnessed: the witnesses' quorum did not cosign a checkpoint. It
// comes wrapped with transparency.ErrUnavailable.
var errNotWitnessed = errors.New("witness policy's quorum not met")

// witnessPeer is one witness of the policy.
type witnessPeer struct {
	url      string // its add-checkpoint endpoint (no credentials: transparency.WitnessURL)
	verifier note.Verifier
}

// String names p in errors and logs: its key name and URL.
func (p witnessPeer) String() string { return p.verifier.Name() + " at " + p.url }

// witnesses is the Trillian backend's witness client.
type witnesses struct {
	group   tessera.WitnessGroup
	peers   []witnessPeer
	meter   *transparency.WitnessMeter
	client  *http.Client
	timeout time.Duration

	mu    sync.Mutex
	sizes map[string]uint64 // URL → size the witness last cosigned, as far as known
	// failedSize and failedUntil: the last round, for a checkpoint of
	// failedSize leaves, failed; until failedUntil sign refuses a
	// checkpoint no larger at once (readers queued on signMu do not each
	// wait WitnessTimeout in turn).
	failedSize  uint64
	failedUntil time.Time
	failedErr   error
}

func newWitnesses(policy []byte, timeout time.Duration) (*witnesses, error) {
	g, urls, err := transparency.ParseWitnessPolicy(policy)
	if err != nil {
		return nil, err
	}
	w := &witnesses{group: g, timeout: timeout, sizes: map[string]uint64{}}
	for url, v := range g.Endpoints() {
		w.peers = append(w.peers, witnessPeer{url: url, verifier: v})
	}
	w.meter = transparency.NewWitnessMeter(urls, httpTransport())
	w.client = transparency.NewWitnessClient(w.meter, timeout)
	return w, nil
}

func httpTransport() http.RoundTripper {
	return http.DefaultTransport.(*http.Transport).Clone()
}

// satisfied reports whether a signed checkpoint carries the quorum's
// cosignatures.
func (w *witnesses) satisfied(cp []byte) bool { return w.group.Satisfied(cp) }

// refusal returns the error of a round that failed lately for a
// checkpoint of at least size leaves, if any.
func (w *witnesses) refusal(size uint64) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.failedErr != nil && size <= w.failedSize && time.Now().Before(w.failedUntil) {
		return w.failedErr
	}
	return nil
}

// lastFailure returns the error of the last round if it failed (nil once
// a round succeeded since), for an append that timed out to say that its
// checkpoint waits for the witnesses, not for Trillian.
func (w *witnesses) lastFailure() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.failedErr
}

// proofFunc returns a consistency proof from old to the checkpoint's size.
type proofFunc func(ctx context.Context, old, size uint64) (tlog.TreeProof, error)

// cosign sends cp to every witness and returns it with the cosignatures
// received once they satisfy the quorum. hint is the size a witness whose
// state is not known yet is assumed to hold (the last checkpoint signed).
func (w *witnesses) cosign(ctx context.Context, cp *checkpoint.Checkpoint, hint uint64, prove proofFunc) (*checkpoint.Checkpoint, error) {
	ctx, cancel := context.WithTimeout(ctx, w.timeout)
	defer cancel()
	// One proof per old size, shared by the witnesses that hold it.
	var pmu sync.Mutex
	proofs := map[uint64]func() (tlog.TreeProof, error){}
	shared := func(ctx context.Context, old uint64) (tlog.TreeProof, error) {
		pmu.Lock()
		f, ok := proofs[old]
		if !ok {
			f = sync.OnceValues(func() (tlog.TreeProof, error) { return prove(ctx, old, cp.Size) })
			proofs[old] = f
		}
		pmu.Unlock()
		return f()
	}
	type result struct {
		line []byte
		err  error
	}
	results := make(chan result, len(w.peers))
	for _, p := range w.peers {
		go func() {
			line, err := w.update(ctx, p, cp, hint, shared)
			results <- result{line, err}
		}()
	}
	signed := bytes.Clone(cp.Note)
	var errs []error
	for range w.peers {
		r := <-results
		if r.err != nil {
			errs = append(errs, r.err)
			continue
		}
		signed = append(signed, r.line...)
		if w.satisfied(signed) {
			w.mu.Lock()
			w.failedErr = nil
			w.mu.Unlock()
			out := *cp
			out.Note = signed
			return &out, nil
		}
	}
	err := fmt.Errorf("trillian: %w: checkpoint of %d leaves: %w within %v: %w", transparency.ErrUnavailable, cp.Size, errNotWitnessed, w.timeout, errors.Join(errs...))
	w.mu.Lock()
	w.failedSize, w.failedUntil, w.failedErr = cp.Size, time.Now().Add(w.timeout), err
	w.mu.Unlock()
	return nil, err
}

// size returns the size p is taken to hold.
func (w *witnesses) size(p witnessPeer, hint uint64) uint64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	if s, ok := w.sizes[p.url]; ok {
		return s
	}
	return hint
}

func (w *witnesses) setSize(p witnessPeer, size uint64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.sizes[p.url] = size
}

// update asks one witness to cosign cp, from the size it holds, and
// returns its cosignature line(s), checked with its key.
func (w *witnesses) update(ctx context.Context, p witnessPeer, cp *checkpoint.Checkpoint, hint uint64, prove func(context.Context, uint64) (tlog.TreeProof, error)) ([]byte, error) {
	old := w.size(p, hint)
	for try := 0; try < maxWitnessTries; try++ {
		if old > cp.Size {
			// Our hint only: the witness's own 409 sizes are checked below.
			old = 0
		}
		var body bytes.Buffer
		fmt.Fprintf(&body, "old %d\n", old)
		if old > 0 && old < cp.Size {
			proof, err := prove(ctx, old)
			if err != nil {
				return nil, fmt.Errorf("witness %s: consistency proof from %d: %w", p.verifier.Name(), old, err)
			}
			for _, h := range proof {
				body.WriteString(base64.StdEncoding.EncodeToString(h[:]) + "\n")
			}
		}
		body.WriteString("\n")
		body.Write(cp.Note)
		status, ctype, reply, err := w.post(ctx, p.url, body.Bytes())
		if err != nil {
			return nil, fmt.Errorf("witness %s: %w", p, err)
		}
		switch status {
		case http.StatusOK:
			line, err := cosignature(p, cp.Note, reply)
			if err != nil {
				return nil, err
			}
			w.setSize(p, cp.Size)
			return line, nil
		case http.StatusConflict:
			held, err := heldSize(ctype, reply, cp.Size)
			if err != nil {
				return nil, fmt.Errorf("witness %s: %w", p, err)
			}
			w.setSize(p, held)
			old = held
		default:
			return nil, fmt.Errorf("witness %s: %d %s: %s", p, status, http.StatusText(status), clip(reply))
		}
	}
	return nil, fmt.Errorf("witness %s: still another size after %d requests", p, maxWitnessTries)
}

// heldSize reads a 409 reply: the size the witness holds (Content-Type
// text/x.tlog.size, a decimal), no larger than the checkpoint's size.
func heldSize(ctype string, reply []byte, size uint64) (uint64, error) {
	if mt, _, err := mime.ParseMediaType(ctype); err != nil || mt != "text/x.tlog.size" {
		return 0, fmt.Errorf("409 (%q): the checkpoint conflicts with the one it holds", ctype)
	}
	text := strings.TrimSpace(string(reply))
	held, err := strconv.ParseUint(text, 10, 64)
	if err != nil || strconv.FormatUint(held, 10) != text {
		return 0, fmt.Errorf("409 with size %q, not a decimal", clip(reply))
	}
	if held > size {
		return 0, fmt.Errorf("it holds a tree of %d leaves, larger than this checkpoint's %d", held, size)
	}
	return held, nil
}

// post sends one add-checkpoint request.
func (w *witnesses) post(ctx context.Context, url string, body []byte) (status int, ctype string, reply []byte, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0, "", nil, err
	}
	resp, err := w.client.Do(req)
	if err != nil {
		return 0, "", nil, err
	}
	defer resp.Body.Close()
	reply, err = io.ReadAll(io.LimitReader(resp.Body, maxWitnessReply+1))
	if err != nil {
		return 0, "", nil, fmt.Errorf("couldn't read its reply: %w", err)
	}
	if len(reply) > maxWitnessReply {
		return 0, "", nil, fmt.Errorf("reply over %d bytes", maxWitnessReply)
	}
	return resp.StatusCode, resp.Header.Get("Content-Type"), reply, nil
}

// cosignature checks a witness's 200 reply: signature lines that, after
// the checkpoint, verify with the witness's key. It returns the line
// (only the witness's: nothing else it sent is added).
func cosignature(p witnessPeer, cp, reply []byte) ([]byte, error) {
	n, err := note.Open(append(bytes.Clone(cp), reply...), note.VerifierList(p.verifier))
	if err != nil {
		return nil, fmt.Errorf("witness %s: reply %q holds no valid cosignature of the checkpoint: %w", p, clip(reply), err)
	}
	if len(n.Sigs) != 1 {
		return nil, fmt.Errorf("witness %s: reply %q holds %d cosignatures by its key, want one", p, clip(reply), len(n.Sigs))
	}
	return fmt.Appendf(nil, "— %s %s\n", n.Sigs[0].Name, n.Sigs[0].Base64), nil
}

// clip shortens a reply for an error.
func clip(b []byte) string {
	const max = 200
	if len(b) > max {
		return string(b[:max]) + "…"
	}
	return string(b)
}

// Witnesses reports what the log saw of each witness of its policy since
// it opened (none without a policy), for metrics.
func (l *Log) Witnesses() []transparency.WitnessStat {
	if l.wit == nil {
		return nil
	}
	return l.wit.meter.Snapshot()
}
