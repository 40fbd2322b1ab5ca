package verifier

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestDependencyClosure keeps the trusted verifier small: neither the verifier
// core nor the rngverify program (nor its WebAssembly build) may pull in the
// daemon's heavy machinery.
func TestDependencyClosure(t *testing.T) {
	forbidden := []string{
		"google.golang.org/grpc",
		"github.com/google/trillian",
		"github.com/transparency-dev/tessera",
		"github.com/prometheus/",
		"database/sql",
		"github.com/go-sql-driver/",
		"go.etcd.io/bbolt",
		"github.com/miekg/pkcs11",
		"tirage.fr/tirage/rngd",
		"tirage.fr/tirage/hsm",
		"tirage.fr/tirage/transparency",
	}
	targets := [][]string{
		{"go", "list", "-deps", "tirage.fr/tirage/verifier/...", "tirage.fr/tirage/cmd/rngverify"},
		// The browser page's engine (verifier/web/wasm) is the WebAssembly build.
		{"env", "GOOS=js", "GOARCH=wasm", "go", "list", "-deps", "tirage.fr/tirage/verifier/...", "tirage.fr/tirage/cmd/rngverify", "tirage.fr/tirage/verifier/web/wasm"},
	}
	for _, argv := range targets {
		out, err := exec.Command(argv[0], argv[1:]...).CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", strings.Join(argv, " "), err, out)
		}
		deps := strings.Fields(string(out))
		if len(deps) < 10 {
			t.Fatalf("%s listed only %d packages; the test is not looking at the closure", strings.Join(argv, " "), len(deps))
		}
		if argv[1] == "GOOS=js" && !slices.Contains(deps, "syscall/js") {
			t.Errorf("%s: the WebAssembly page's engine is not in the listed closure", strings.Join(argv, " "))
		}
		for _, d := range deps {
			for _, f := range forbidden {
				if strings.HasPrefix(d, f) {
					t.Errorf("%s: verifier closure contains %s", strings.Join(argv, " "), d)
				}
			}
		}
	}
}
