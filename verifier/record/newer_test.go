package record

import "testing"

// TestNewer: a leaf Parse refuses for its version or kind is a later
// format's only with a higher version, or a kind named as kinds are; a
// lower version, or a kind no format names so, is a damaged or forged leaf
// (rngd's rebuild says which: TestNotNewerRecordRefused).
func TestNewer(t *testing.T) {
	for _, c := range []struct {
		leaf  string
		newer bool
	}{
		{`{"kind":"from_a_newer_rngd","v":1}`, true},
		{`{"kind":"game_start","v":2}`, true},
		// Above Version, whatever the kind. (The table had
		// {"v":2,"kind":"\u0000"}, which Parse refuses as malformed — keys
		// unsorted — so no caller asks Newer about it.)
		{`{"kind":"Game Start","v":2}`, true},
		{`{"kind":"game_start","v":0}`, false},
		{`{"kind":"game_start","v":-1}`, false},
		{`{"kind":"","v":1}`, false},
		{`{"kind":"Game Start","v":1}`, false},
		{`{"kind":"game_start\u0000","v":1}`, false},
		{`{"kind":"_","v":1}`, false},
	} {
		if got := Newer([]byte(c.leaf)); got != c.newer {
			t.Errorf("Newer(%s) = %v, want %v", c.leaf, got, c.newer)
		}
	}
}
