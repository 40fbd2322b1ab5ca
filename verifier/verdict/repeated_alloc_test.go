package verdict

import (
	"bytes"
	"runtime"
	"testing"
)

// TestRepeatedMemberAllocBound: RepeatedMember allocates in proportion to
// its document, however deep: each nested container once kept its whole
// path, and a megabyte of "[" cost 160 MB (an admin request, a file dropped
// on the page).
func TestRepeatedMemberAllocBound(t *testing.T) {
	for name, b := range map[string][]byte{
		"nested arrays":  bytes.Repeat([]byte("["), 1<<20),
		"nested objects": bytes.Repeat([]byte(`{"a":`), 1<<18),
		"wide object":    append(append([]byte("{"), bytes.Repeat([]byte(`"a":0,`), 1<<17)...), `"b":0}`...),
	} {
		RepeatedMember(b) // warm up
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		err := RepeatedMember(b)
		runtime.ReadMemStats(&m1)
		got := m1.TotalAlloc - m0.TotalAlloc
		t.Logf("%s: %d bytes, %d allocated, %v", name, len(b), got, err)
		if limit := uint64(8*len(b) + 64<<10); got > limit {
			t.Errorf("%s: %d bytes allocated for a document of %d, want at most %d", name, got, len(b), limit)
		}
	}
}
