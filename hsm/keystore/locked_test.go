package keystore

import (
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

func TestLockedBuf(t *testing.T) {
	lb, err := newLockedBuf(100)
	if err != nil {
		t.Fatal(err)
	}
	if len(lb.b) != os.Getpagesize() {
		t.Errorf("mapping of %d bytes, want one page", len(lb.b))
	}
	var lim unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_MEMLOCK, &lim); err == nil && lim.Cur >= uint64(len(lb.b)) && !lb.locked {
		t.Errorf("mlock failed although RLIMIT_MEMLOCK is %d", lim.Cur)
	}
	copy(lb.b, "secret")
	view := lb.b
	lb.wipe()
	if lb.b != nil {
		t.Error("wipe left the buffer in place")
	}
	_ = view  // unmapped: reading it would fault, which is the point
	lb.wipe() // idempotent
}
