package cli

import (
	"bytes"
	"crypto/rsa"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"errors"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// vrfCase is one RFC 9381 example in the form rngverify vrf takes.
type vrfCase struct {
	id, suite, pk, alpha, proof, beta string
}

// vrfCases reads the RFC 9381 examples of the suites rngverify supports
// from the vrf package's test data (source named in its README).
func vrfCases(t *testing.T) []vrfCase {
	t.Helper()
	b, err := os.ReadFile("../vrf/testdata/rfc9381-vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Vectors []struct {
			ID, Suite, Alpha, Pi, Beta string
			PK                         json.RawMessage
		}
	}
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	var out []vrfCase
	for _, v := range f.Vectors {
		c := vrfCase{id: v.ID, suite: v.Suite, alpha: v.Alpha, proof: v.Pi, beta: v.Beta}
		switch v.Suite {
		case "ECVRF-P256-SHA256-SSWU", "ECVRF-P256-SHA256-TAI":
			if err := json.Unmarshal(v.PK, &c.pk); err != nil {
				t.Fatal(err)
			}
		case "RSA-FDH-VRF-SHA256":
			var k struct{ N, E string }
			if err := json.Unmarshal(v.PK, &k); err != nil {
				t.Fatal(err)
			}
			n, _ := new(big.Int).SetString(k.N, 16)
			e, _ := new(big.Int).SetString(k.E, 16)
			der, err := x509.MarshalPKIXPublicKey(&rsa.PublicKey{N: n, E: int(e.Int64())})
			if err != nil {
				t.Fatal(err)
			}
			c.pk = hex.EncodeToString(der)
		default:
			continue
		}
		out = append(out, c)
	}
	if len(out) != 9 {
		t.Fatalf("%d examples, want 9", len(out))
	}
	return out
}

func (c vrfCase) args() []string {
	return []string{"--suite", c.suite, "--pk", c.pk, "--alpha", c.alpha, "--proof", c.proof}
}

// flip returns hex string h with one bit of byte i flipped.
func flip(t *testing.T, h string, i int) string {
	b, err := hex.DecodeString(h)
	if err != nil {
		t.Fatal(err)
	}
	b[i] ^= 1
	return hex.EncodeToString(b)
}

type cliCase struct {
	name   string
	args   []string
	code   int
	stdout string
	stderr string // a substring of the one-line message
}

func vrfCLICases(t *testing.T) []cliCase {
	vs := vrfCases(t)
	var cs []cliCase
	for _, v := range vs {
		cs = append(cs, cliCase{v.id + "/valid", append([]string{"vrf"}, v.args()...), ExitOK, v.beta + "\n", ""})
		cs = append(cs, cliCase{v.id + "/valid with --beta", append([]string{"vrf"}, append(v.args(), "--beta", v.beta)...), ExitOK, v.beta + "\n", ""})
	}
	rsa, tai, sswu := vs[0], vs[3], vs[6]
	with := func(c vrfCase, field, value string) []string {
		a := append([]string{"vrf"}, c.args()...)
		for i := range a {
			if a[i] == "--"+field {
				a[i+1] = value
			}
		}
		return a
	}
	drop := func(c vrfCase, field string) []string {
		var a []string
		for i := 0; i < len(c.args()); i += 2 {
			if c.args()[i] != "--"+field {
				a = append(a, c.args()[i], c.args()[i+1])
			}
		}
		return append([]string{"vrf"}, a...)
	}
	cs = append(cs,
		// Failed checks: exit 1.
		cliCase{"flipped proof", with(sswu, "proof", flip(t, sswu.proof, 40)), ExitFail, "", "--proof rejected: proof does not verify under this key"},
		cliCase{"flipped Gamma", with(sswu, "proof", flip(t, sswu.proof, 1)), ExitFail, "", "--proof rejected: "},
		cliCase{"changed alpha", with(tai, "alpha", "00"), ExitFail, "", "does not verify under this key"},
		cliCase{"short proof", with(sswu, "proof", sswu.proof[:160]), ExitFail, "", "proof has 80 bytes, want 81"},
		cliCase{"s not reduced", with(sswu, "proof", sswu.proof[:98]+strings.Repeat("ff", 32)), ExitFail, "", "s is not reduced mod q"},
		cliCase{"RSA flipped proof", with(rsa, "proof", flip(t, rsa.proof, 100)), ExitFail, "", "does not verify"},
		cliCase{"RSA proof not below n", with(rsa, "proof", strings.Repeat("ff", 256)), ExitFail, "", "not less than the RSA modulus"},
		cliCase{"wrong key", with(sswu, "pk", vs[8].pk), ExitFail, "", "does not verify under this key"},
		cliCase{"pk not on the curve", with(sswu, "pk", "02"+strings.Repeat("00", 31)+"01"), ExitFail, "", "--pk rejected: public key: not a point on P-256"},
		cliCase{"pk x not reduced", with(sswu, "pk", "02ffffffff00000001000000000000000000000000ffffffffffffffffffffffff"), ExitFail, "", "--pk rejected: "},
		cliCase{"pk uncompressed length", with(sswu, "pk", "04"+strings.Repeat("11", 64)), ExitFail, "", "--pk rejected: public key: uncompressed point"},
		cliCase{"RSA key for P-256 suite", with(sswu, "pk", rsa.pk), ExitFail, "", "--pk rejected: "},
		cliCase{"P-256 key for RSA suite", with(rsa, "pk", sswu.pk), ExitFail, "", "--pk rejected: RSA public key is not a DER"},
		cliCase{"wrong --beta", append(append([]string{"vrf"}, sswu.args()...), "--beta", tai.beta), ExitFail, "", "differs from --beta"},
		// Usage errors: exit 2.
		cliCase{"missing suite", drop(sswu, "suite"), ExitUsage, "", "missing --suite"},
		cliCase{"missing alpha", drop(sswu, "alpha"), ExitUsage, "", "missing --alpha"},
		cliCase{"missing proof", drop(sswu, "proof"), ExitUsage, "", "missing --proof"},
		cliCase{"missing pk", drop(sswu, "pk"), ExitUsage, "", "missing --pk"},
		cliCase{"unknown suite", with(sswu, "suite", "ECVRF-EDWARDS25519-SHA512-TAI"), ExitUsage, "", "--suite: unknown suite"},
		cliCase{"pk not hex", with(sswu, "pk", "xyz"), ExitUsage, "", "--pk is not hex"},
		cliCase{"odd-length hex", with(sswu, "proof", sswu.proof[1:]), ExitUsage, "", "--proof is not hex"},
		cliCase{"alpha not hex", with(sswu, "alpha", "sample"), ExitUsage, "", "--alpha is not hex"},
		cliCase{"beta not hex", append(append([]string{"vrf"}, sswu.args()...), "--beta", "zz"), ExitUsage, "", "--beta is not hex"},
		cliCase{"unknown flag", append(append([]string{"vrf"}, sswu.args()...), "--key", "00"), ExitUsage, "", "flag provided but not defined: -key"},
		cliCase{"extra argument", append(append([]string{"vrf"}, sswu.args()...), "extra"), ExitUsage, "", `unexpected argument "extra"`},
		cliCase{"help", []string{"vrf", "-h"}, ExitOK, "", "usage: rngverify vrf"},
		cliCase{"help vrf", []string{"help", "vrf"}, ExitOK, "", "usage: rngverify vrf"},
	)
	return cs
}

func checkCLI(t *testing.T, c cliCase, code int, stdout, stderr string) {
	t.Helper()
	if code != c.code {
		t.Errorf("exit %d, want %d (stderr %q)", code, c.code, stderr)
	}
	if stdout != c.stdout {
		t.Errorf("stdout %q, want %q", stdout, c.stdout)
	}
	if c.stderr != "" && !strings.Contains(stderr, c.stderr) {
		t.Errorf("stderr %q does not contain %q", stderr, c.stderr)
	}
	if c.code == ExitOK && c.stdout != "" && stderr != "" {
		t.Errorf("stderr %q on success", stderr)
	}
	if c.code != ExitOK && (strings.Count(stderr, "\n") != 1 || !strings.HasPrefix(stderr, "rngverify vrf: ")) {
		t.Errorf("stderr %q is not one line", stderr)
	}
}

func TestVRFRun(t *testing.T) {
	for _, c := range vrfCLICases(t) {
		t.Run(c.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := Run(Env{Args: c.args, Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr})
			checkCLI(t, c, code, stdout.String(), stderr.String())
		})
	}
}

// TestVRFBinary builds the real rngverify and runs it on every case.
func TestVRFBinary(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "rngverify")
	build := exec.Command("go", "build", "-o", bin, "tirage.fr/tirage/cmd/rngverify")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	for _, c := range vrfCLICases(t) {
		t.Run(c.name, func(t *testing.T) {
			cmd := exec.Command(bin, c.args...)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			code := 0
			if err := cmd.Run(); err != nil {
				var ee *exec.ExitError
				if !errors.As(err, &ee) {
					t.Fatal(err)
				}
				code = ee.ExitCode()
			}
			checkCLI(t, c, code, stdout.String(), stderr.String())
		})
	}
}
