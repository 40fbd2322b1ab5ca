package rngd

import "sync"

// keyLocks serialises the calls for one game (or one ticket code) while
// letting calls for different games run in parallel. An entry lives only
// while someone holds or waits for it.
type keyLocks struct {
	mu sync.Mutex
	m  map[string]*keyLock // guarded by mu
}

type keyLock struct {
	sync.Mutex
	refs int // guarded by keyLocks.mu
}

// lock locks key and returns its unlock function.
func (l *keyLocks) lock(key string) (unlock func()) {
	l.mu.Lock()
	if l.m == nil {
		l.m = make(map[string]*keyLock)
	}
	k := l.m[key]
	if k == nil {
		k = new(keyLock)
		l.m[key] = k
	}
	k.refs++
	l.mu.Unlock()
	k.Lock()
	return func() {
		k.Unlock()
		l.mu.Lock()
		if k.refs--; k.refs == 0 {
			delete(l.m, key)
		}
		l.mu.Unlock()
	}
}
