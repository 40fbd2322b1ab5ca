package entropy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"
)

// ErrTimeout is the underlying error of a *HealthError with Test
// TestTimeout: a source did not deliver its samples within
// Config.ReadTimeout. Like any health failure, the source is no longer used
// until an operator Retest, which succeeds once the source answers again.
var ErrTimeout = errors.New("entropy source read timed out")

// DefaultReadTimeout bounds each read from a source: a seed's samples or
// the 1,024 start-up samples. /dev/hwrng (virtio-rng, about 10 kB/s)
// delivers the start-up samples in about 0.1 s.
const DefaultReadTimeout = 2 * time.Second

// A pendingRead is one read of a source running on its own goroutine, so
// that the reader can stop waiting for it at a deadline. Its fields are
// written by that goroutine before done is closed and read only after.
type pendingRead struct {
	buf  []byte
	n    int
	err  error
	done chan struct{}
	// abandoned: the reader stopped waiting for it (deadline, or a
	// cancelled context); its samples will be discarded, never used.
	// Guarded by the lock of the stallGuard's owner.
	abandoned bool
}

// A stallGuard reads a source with a deadline. Each read runs on a
// goroutine of its own; one that does not finish in time is abandoned and
// stays the source's one outstanding read: a source stuck in Read keeps at
// most one goroutine, however many reads are asked of it later. Not safe
// for concurrent use: its owner (the Generator, or timedSource) holds a
// lock.
type stallGuard struct {
	src      Source
	name     string
	timeout  time.Duration
	after    func(time.Duration) <-chan time.Time
	inflight *pendingRead // the outstanding read, if any
}

// start hands a read of n bytes to a new goroutine, unless a read is still
// outstanding.
func (s *stallGuard) start(n int) {
	if s.inflight != nil {
		return
	}
	p := &pendingRead{buf: make([]byte, n), done: make(chan struct{})}
	s.inflight = p
	src := s.src
	go func() {
		p.n, p.err = readSource(src, p.buf)
		close(p.done)
	}()
}

// read returns n fresh bytes of the source, waiting at most s.timeout, and
// the number of bytes the source delivered (late ones included). A read
// abandoned earlier and still outstanding is waited for first, within the
// same deadline; if it comes back, its samples are wiped and a fresh read is
// made. On timeout the read is abandoned and the error is a *HealthError for
// TestTimeout (during says when: "while seeding"); a failed read returns
// the source's error.
func (s *stallGuard) read(ctx context.Context, n int, during string) (buf []byte, got int, err error) {
	deadline := s.after(s.timeout)
	for {
		s.start(n)
		p := s.inflight
		stale := p.abandoned
		select {
		case <-p.done:
		case <-deadline:
			select {
			case <-p.done: // it made it after all
			default:
				p.abandoned = true
				detail := fmt.Sprintf("no samples within %v", s.timeout)
				if stale {
					detail = fmt.Sprintf("a read abandoned earlier has still not returned after %v more", s.timeout)
				}
				if during != "" {
					detail += " " + during
				}
				return nil, got, &HealthError{Source: s.name, Test: TestTimeout, Detail: detail, Err: ErrTimeout}
			}
		case <-ctx.Done():
			p.abandoned = true
			return nil, got, ctx.Err()
		}
		s.inflight = nil
		got += p.n
		if p.abandoned {
			// Late samples of a read already given up on: never used.
			clear(p.buf)
			continue
		}
		if p.err != nil {
			clear(p.buf)
			return nil, got, p.err
		}
		return p.buf, got, nil
	}
}

// read is stallGuard.read for one of the Generator's sources, counting the
// bytes read and turning a failed read into a TestRead failure. g.mu is
// held.
func (g *Generator) read(ctx context.Context, st *sourceState, n int, during string) ([]byte, error) {
	buf, got, err := st.guard.read(ctx, n, during)
	g.m.bytesRead.WithLabelValues(st.cfg.Name).Add(float64(got))
	var he *HealthError
	if err != nil && !errors.As(err, &he) && err != ctx.Err() {
		return nil, &HealthError{Source: st.cfg.Name, Test: TestRead, Detail: "read failed " + during, Err: err}
	}
	return buf, err
}

// WithReadTimeout returns src with a deadline on every Read, for code that
// reads a source directly (rngctl entropy test); the Generator applies
// Config.ReadTimeout by itself. A Read that gets no data within timeout
// returns a *HealthError for TestTimeout (wrapping ErrTimeout); the stalled
// read stays outstanding, and the next Read waits for it again (its late
// samples are discarded) rather than start a second one. Close, when src has
// one, closes src without waiting. The result is safe for concurrent use.
func WithReadTimeout(src Source, timeout time.Duration) Source {
	return newTimedSource(src, timeout, time.After)
}

func newTimedSource(src Source, timeout time.Duration, after func(time.Duration) <-chan time.Time) *timedSource {
	return &timedSource{g: stallGuard{src: src, name: src.Name(), timeout: timeout, after: after}}
}

type timedSource struct {
	mu sync.Mutex // guards g
	g  stallGuard
}

func (t *timedSource) Name() string   { return t.g.name }
func (t *timedSource) Physical() bool { return t.g.src.Physical() }

func (t *timedSource) Read(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	buf, _, err := t.g.read(context.Background(), len(p), "")
	if err != nil {
		return 0, err
	}
	copy(p, buf)
	clear(buf)
	return len(p), nil
}

func (t *timedSource) Close() error {
	if c, ok := t.g.src.(io.Closer); ok {
		return c.Close()
	}
	return nil
}
