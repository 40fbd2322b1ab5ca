package rngd

import "sync"

// keyLocks serialises the calls for one key (a game, a ticket, a request
// identity) while letting calls for different keys run in parallel. An
// entry lives in the map only while someone holds or waits for it; its
// lock is then kept for reuse (up to maxFreeLocks).
type keyLocks[K comparable] struct {
	mu   sync.Mutex
	m    map[K]*keyLock // guarded by mu
	free []*keyLock     // guarded by mu
}

type keyLock struct {
	sync.Mutex
	refs int // holders and waiters, guarded by keyLocks.mu
}

// maxFreeLocks bounds the locks a keyLocks keeps for reuse: about the
// calls in flight at once.
const maxFreeLocks = 1024

// heldLock is a key's lock, held: unlock releases it.
type heldLock[K comparable] struct {
	l   *keyLocks[K]
	k   *keyLock
	key K
}

// lock locks key.
func (l *keyLocks[K]) lock(key K) heldLock[K] {
	l.mu.Lock()
	if l.m == nil {
		l.m = make(map[K]*keyLock)
	}
	k := l.m[key]
	if k == nil {
		if n := len(l.free); n > 0 {
			k, l.free = l.free[n-1], l.free[:n-1]
		} else {
			k = new(keyLock)
		}
		l.m[key] = k
	}
	k.refs++
	l.mu.Unlock()
	k.Lock()
	return heldLock[K]{l, k, key}
}

// unlock releases the key's lock; once nobody holds or waits for it, the
// key leaves the map.
func (h heldLock[K]) unlock() {
	h.k.Unlock()
	l := h.l
	l.mu.Lock()
	if h.k.refs--; h.k.refs == 0 {
		delete(l.m, h.key)
		if len(l.free) < maxFreeLocks {
			l.free = append(l.free, h.k)
		}
	}
	l.mu.Unlock()
}
