package record_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"tirage.fr/tirage/verifier/record"
)

// A beacon that claims to be a drand round reference ("drand:…", see
// verifier/beacon.Ref) must be canonical; the free-text beacons of older
// freezes still parse. The fuzz seeds named *beacon* and *-drand cover both.
func TestBeaconRefStrict(t *testing.T) {
	files, _ := filepath.Glob("testdata/fuzz/FuzzParse/*")
	n := 0
	for _, name := range files {
		base := filepath.Base(name)
		if !strings.Contains(base, "beacon") && !strings.HasSuffix(base, "-drand") {
			continue
		}
		n++
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		line := strings.Split(string(b), "\n")[1]
		leaf, err := strconv.Unquote(strings.TrimSuffix(strings.TrimPrefix(line, "[]byte("), ")"))
		if err != nil {
			t.Fatal(err)
		}
		_, err = record.Parse([]byte(leaf))
		if valid := strings.HasPrefix(base, "valid-"); valid != (err == nil) {
			t.Errorf("%s: Parse error %v", base, err)
		} else if !valid && !strings.Contains(err.Error(), "beacon") {
			t.Errorf("%s: the error does not name the beacon: %v", base, err)
		}
	}
	if n < 6 {
		t.Fatalf("only %d beacon seeds", n)
	}
}
