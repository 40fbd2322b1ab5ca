package entropy

import (
	"context"
	"errors"
	"fmt"
	"io"
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
// that the Generator can stop waiting for it at a deadline. Its fields are
// written by that goroutine before done is closed and read only after.
type pendingRead struct {
	buf  []byte
	n    int
	err  error
	done chan struct{}
	// abandoned: the Generator stopped waiting for it (deadline, or a
	// cancelled Retest); its samples will be discarded, never used.
	// Guarded by Generator.mu.
	abandoned bool
}

// start hands a read of n bytes to a new goroutine, unless a read of the
// source is still outstanding: a source stuck in Read keeps at most that one
// goroutine, however many seeds and retests come after. Generator.mu is
// held.
func (st *sourceState) start(n int) {
	if st.inflight != nil {
		return
	}
	p := &pendingRead{buf: make([]byte, n), done: make(chan struct{})}
	st.inflight = p
	src := st.src
	go func() {
		p.n, p.err = io.ReadFull(src, p.buf)
		close(p.done)
	}()
}

// read returns n fresh bytes of st's source, read on the source's own
// goroutine (see start), waiting at most Config.ReadTimeout. A read that
// was abandoned earlier and is still outstanding is waited for first, within
// the same deadline; if it comes back, its samples are wiped and a fresh
// read is made. On timeout the read is abandoned (left to its goroutine) and
// the error is a *HealthError for TestTimeout. Generator.mu is held.
func (g *Generator) read(ctx context.Context, st *sourceState, n int, during string) ([]byte, error) {
	deadline := g.cfg.After(g.cfg.ReadTimeout)
	for {
		st.start(n)
		p := st.inflight
		stale := p.abandoned
		select {
		case <-p.done:
		case <-deadline:
			select {
			case <-p.done: // it made it after all
			default:
				p.abandoned = true
				detail := fmt.Sprintf("no samples within %v %s", g.cfg.ReadTimeout, during)
				if stale {
					detail = fmt.Sprintf("a read abandoned earlier has still not returned after %v more %s", g.cfg.ReadTimeout, during)
				}
				return nil, &HealthError{Source: st.cfg.Name, Test: TestTimeout, Detail: detail, Err: ErrTimeout}
			}
		case <-ctx.Done():
			p.abandoned = true
			return nil, ctx.Err()
		}
		st.inflight = nil
		g.m.bytesRead.WithLabelValues(st.cfg.Name).Add(float64(p.n))
		if p.abandoned {
			// Late samples of a seed or start-up test already given up
			// on: never used.
			clear(p.buf)
			continue
		}
		if p.err != nil {
			clear(p.buf)
			return nil, &HealthError{Source: st.cfg.Name, Test: TestRead, Detail: "read failed " + during, Err: p.err}
		}
		return p.buf, nil
	}
}
