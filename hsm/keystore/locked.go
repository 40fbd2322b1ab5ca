package keystore

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// lockedBuf is memory for secrets outside the Go heap: an anonymous private
// mapping, so the garbage collector never moves or copies it; locked with
// mlock(2), so it is never written to swap; marked MADV_DONTDUMP, so it is
// left out of core dumps. wipe zeroes and unmaps it.
type lockedBuf struct {
	b      []byte // the whole mapping, page-rounded
	locked bool   // mlock succeeded
}

// newLockedBuf maps at least n bytes. A failing mlock (RLIMIT_MEMLOCK too
// low) is not fatal: the caller is told through locked and warns.
func newLockedBuf(n int) (*lockedBuf, error) {
	page := os.Getpagesize()
	size := (n + page - 1) / page * page
	if size == 0 {
		size = page
	}
	b, err := unix.Mmap(-1, 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		return nil, fmt.Errorf("couldn't map memory for key material: %w", err)
	}
	lb := &lockedBuf{b: b}
	_ = unix.Madvise(b, unix.MADV_DONTDUMP)
	lb.locked = unix.Mlock(b) == nil
	return lb, nil
}

// wipe zeroes the buffer and releases it. It is idempotent.
func (lb *lockedBuf) wipe() {
	if lb == nil || lb.b == nil {
		return
	}
	clear(lb.b)
	if lb.locked {
		_ = unix.Munlock(lb.b)
	}
	_ = unix.Munmap(lb.b)
	lb.b = nil
}
