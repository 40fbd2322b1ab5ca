package tilelog

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"time"
)

// klogRepeat is how often one kind of tessera message is logged at most:
// tessera retries a failing step at every checkpoint interval (10 a second
// by default) and logs each failure (publishCheckpoint: a witness quorum
// not met, a full disk), which would bury rngd's own log lines.
const klogRepeat = 10 * time.Second

// repeatLimiter is the slog handler tessera's klog lines go through: a
// message of a kind (its text up to its first ':', e.g.
// "publishCheckpoint") already logged within the last klogRepeat is
// counted, not logged; the next one logged says how many were left out
// ("repeated": N). Messages of other kinds are not held back.
type repeatLimiter struct {
	slog.Handler
	state *repeatState
}

type repeatState struct {
	mu    sync.Mutex
	every time.Duration
	now   func() time.Time
	kinds map[string]*repeatKind
}

type repeatKind struct {
	last    time.Time
	skipped int
}

func newRepeatLimiter(h slog.Handler, every time.Duration, now func() time.Time) *repeatLimiter {
	return &repeatLimiter{Handler: h, state: &repeatState{every: every, now: now, kinds: map[string]*repeatKind{}}}
}

// maxRepeatKinds bounds the kinds remembered; past it, they are forgotten
// at once (each then logged again).
const maxRepeatKinds = 1024

func (h *repeatLimiter) Handle(ctx context.Context, r slog.Record) error {
	kind, _, _ := strings.Cut(r.Message, ":")
	s := h.state
	s.mu.Lock()
	now := s.now()
	k := s.kinds[kind]
	if k != nil && now.Sub(k.last) < s.every {
		k.skipped++
		s.mu.Unlock()
		return nil
	}
	if k == nil {
		if len(s.kinds) >= maxRepeatKinds {
			clear(s.kinds)
		}
		k = &repeatKind{}
		s.kinds[kind] = k
	}
	skipped := k.skipped
	k.skipped, k.last = 0, now
	s.mu.Unlock()
	if skipped > 0 {
		r = r.Clone()
		r.AddAttrs(slog.Int("repeated", skipped))
	}
	return h.Handler.Handle(ctx, r)
}

func (h *repeatLimiter) WithAttrs(as []slog.Attr) slog.Handler {
	return &repeatLimiter{Handler: h.Handler.WithAttrs(as), state: h.state}
}

func (h *repeatLimiter) WithGroup(name string) slog.Handler {
	return &repeatLimiter{Handler: h.Handler.WithGroup(name), state: h.state}
}
