package drbg

import (
	"errors"
	"os"
	"strings"
	"testing"
)

func TestSelfTest(t *testing.T) {
	if err := SelfTest(); err != nil {
		t.Fatal(err)
	}
}

// TestSelfTestDetects: a known answer that differs in one bit, or a
// vector whose inputs differ, fails the self-test with ErrSelfTest.
func TestSelfTestDetects(t *testing.T) {
	flip := func(s string) string { // flips the low bit of the last hex digit
		b := []byte(s)
		b[len(b)-1] ^= 1
		return string(b)
	}
	for i := range selfTestVectors {
		for _, field := range []string{"entropy", "nonce", "pers", "reseed", "addReseed", "add1", "add2", "want"} {
			v := selfTestVectors[i]
			p := map[string]*string{"entropy": &v.entropy, "nonce": &v.nonce, "pers": &v.pers, "reseed": &v.reseed,
				"addReseed": &v.addReseed, "add1": &v.add1, "add2": &v.add2, "want": &v.want}[field]
			if *p == "" {
				continue
			}
			*p = flip(*p)
			if err := selfTest([]kat{v}); !errors.Is(err, ErrSelfTest) {
				t.Errorf("vector %d with %s altered: %v, want ErrSelfTest", i, field, err)
			}
		}
	}
}

// TestSelfTestVectorsFromCAVP: the self-test's vectors are those of the
// CAVP file, field for field.
func TestSelfTestVectorsFromCAVP(t *testing.T) {
	b, err := os.ReadFile("testdata/hmac_drbg_sha256.txt")
	if err != nil {
		t.Fatal(err)
	}
	lines := map[string]string{}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.SplitN(l, ":", 3); len(f) == 3 {
			lines[f[1]] = l
		}
	}
	for _, v := range selfTestVectors {
		var want string
		if v.reseed == "" {
			want = "noreseed:" + v.name + ":" + v.entropy + ":" + v.nonce + ":" + v.pers + ":" + v.want
		} else {
			want = "nopr:" + v.name + ":" + v.entropy + v.nonce + v.reseed + ":" + v.pers + ":" + v.addReseed + ":" + v.add1 + ":" + v.add2 + ":" + v.want
		}
		if got := lines[v.name]; got != want {
			t.Errorf("vector %q is not the file's:\n got %s\nwant %s", v.name, want, got)
		}
	}
}
