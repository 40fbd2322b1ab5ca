package witness

import (
	"bytes"
	"strings"
	"testing"
)

// The spec's example request (c2sp.org/tlog-witness).
const specExample = `old 20852014
PlRNCrwHpqhGrupue0L7gxbjbMiKA9temvuZZDDpkaw=
jrJZDmY8Y7SyJE0MWLpLozkIVMSMZcD5kvuKxPC3swk=
5+pKlUdi2LeF/BcMHBn+Ku6yhPGNCswZZD1X/6QgPd8=
/6WVhPs2CwSsb5rYBH5cjHV/wSmA79abXAwhXw3Kj/0=

example.com/behind-the-sofa
20852163
CsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=

— example.com/behind-the-sofa Az3grlgtzPICa5OS8npVmf1Myq/5IZniMp+ZJurmRDeOoRDe4URYN7u5/Zhcyv2q1gGzGku9nTo+zyWE+xeMcTOAYQ8=
`

var parseSeeds = []struct {
	body string
	ok   bool
}{
	{specExample, true},
	{"old 0\n\nx\n1\nAAAA\n\n— x AAAA\n", true},
	{"old 0\n\n", false},
	{"old 00\n\ncp", false},
	{"old +1\n\ncp", false},
	{"old 1 \n\ncp", false},
	{"old 18446744073709551616\n\ncp", false},
	{"old 1\nPlRNCrwHpqhGrupue0L7gxbjbMiKA9temvuZZDDpkaw\n\ncp", false},
	{"old 1\nPlRNCrwHpqhGrupue0L7gxbjbMiKA9temvuZZDDpkax=\n\ncp", false},
	{"old 1\nPlRNCrwHpqhGrupue0L7gxbjbMiKA9temvuZZDD\rpkaw=\n\ncp", false},
	{"old 1\r\n\r\ncp", false},
	{"old 1\n" + strings.Repeat("PlRNCrwHpqhGrupue0L7gxbjbMiKA9temvuZZDDpkaw=\n", 64) + "\ncp", false},
	{"old 1\n" + strings.Repeat("PlRNCrwHpqhGrupue0L7gxbjbMiKA9temvuZZDDpkaw=\n", 63) + "\ncp", true},
	{"", false},
	{"new 1\n\ncp", false},
}

// The seeds parse as they should: a corpus of only refusals would fuzz
// little.
func TestParseRequestSeeds(t *testing.T) {
	for _, s := range parseSeeds {
		r, err := ParseRequest([]byte(s.body))
		if (err == nil) != s.ok {
			t.Errorf("ParseRequest(%.50q): %v, want ok=%v", s.body, err, s.ok)
		}
		if err == nil && !bytes.Equal(r.Marshal(), []byte(s.body)) {
			t.Errorf("%.50q does not round-trip", s.body)
		}
	}
	r, err := ParseRequest([]byte(specExample))
	if err != nil || r.OldSize != 20852014 || len(r.Proof) != 4 || !strings.HasPrefix(string(r.Checkpoint), "example.com/behind-the-sofa\n") {
		t.Fatalf("spec example: %+v %v", r, err)
	}
}

// Every body ParseRequest accepts is the Marshal of what it returned (one
// spelling per request: no leading zeroes, canonical base64, no '\r'), with
// at most 63 proof lines and a checkpoint.
func FuzzParseRequest(f *testing.F) {
	for _, s := range parseSeeds {
		f.Add([]byte(s.body))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		r, err := ParseRequest(body)
		if err != nil {
			return
		}
		if len(r.Proof) > MaxProofLines || len(r.Checkpoint) == 0 {
			t.Fatalf("accepted %d proof lines, checkpoint %d bytes", len(r.Proof), len(r.Checkpoint))
		}
		if got := r.Marshal(); !bytes.Equal(got, body) {
			t.Fatalf("round trip: %q → %q", body, got)
		}
	})
}
