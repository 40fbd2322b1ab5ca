package cli

import (
	"bytes"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"tirage.fr/tirage/verifier/vrf"
)

func init() {
	register("vrf", "check one RFC 9381 VRF proof and print its output β", runVRF)
}

const vrfUsage = `usage: rngverify vrf --suite NAME --pk HEX --alpha HEX --proof HEX [--beta HEX]

Checks one RFC 9381 VRF proof: that --proof is the proof for input --alpha
under public key --pk. When it is, prints the VRF output β in lowercase hex
and exits 0.

  --suite NAME   ECVRF-P256-SHA256-SSWU (Tirage's default), ECVRF-P256-SHA256-TAI
                 or RSA-FDH-VRF-SHA256, written as in RFC 9381
  --pk HEX       P-256 suites: the 33-byte SEC 1 compressed point;
                 RSA-FDH-VRF-SHA256: the DER SubjectPublicKeyInfo
  --alpha HEX    the VRF input α (may be empty: --alpha "")
  --proof HEX    the proof π (81 bytes for P-256, the modulus length for RSA)
  --beta HEX     optional: also require β to equal this value

Exit status:
  0  the proof is valid (β printed on stdout)
  1  a check failed: the proof is invalid, the key given is hex but not a
     valid key of the suite, or β differs from --beta (one line on stderr)
  2  usage error: unknown or missing flag, a value that is not hex,
     an unknown suite, extra arguments
`

func runVRF(env Env) int {
	fs := flag.NewFlagSet("rngverify vrf", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	suiteName := fs.String("suite", "", "")
	pkHex := fs.String("pk", "", "")
	alphaHex := fs.String("alpha", "", "")
	proofHex := fs.String("proof", "", "")
	betaHex := fs.String("beta", "", "")
	usageErr := func(format string, args ...any) int {
		fmt.Fprintf(env.Stderr, "rngverify vrf: "+format+" (rngverify vrf -h for usage)\n", args...)
		return ExitUsage
	}
	if err := fs.Parse(env.Args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			io.WriteString(env.Stderr, vrfUsage)
			return ExitOK
		}
		return usageErr("%s", err)
	}
	if fs.NArg() > 0 {
		return usageErr("unexpected argument %q", fs.Arg(0))
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	for _, name := range []string{"suite", "pk", "alpha", "proof"} {
		if !set[name] {
			return usageErr("missing --%s", name)
		}
	}
	suite, err := vrf.ParseSuite(*suiteName)
	if err != nil {
		return usageErr("--suite: %s", strings.TrimPrefix(err.Error(), "vrf: "))
	}
	values := map[string][]byte{}
	for _, f := range []struct {
		name string
		hex  string
	}{{"pk", *pkHex}, {"alpha", *alphaHex}, {"proof", *proofHex}, {"beta", *betaHex}} {
		if f.name == "beta" && !set["beta"] {
			continue
		}
		b, err := hex.DecodeString(f.hex)
		if err != nil {
			return usageErr("--%s is not hex: %s", f.name, strings.TrimPrefix(err.Error(), "encoding/hex: "))
		}
		values[f.name] = b
	}

	fail := func(field string, err error) int {
		fmt.Fprintf(env.Stderr, "rngverify vrf: %s rejected: %s\n", field, strings.TrimPrefix(err.Error(), "vrf: "))
		return ExitFail
	}
	pk, err := vrf.ParsePublicKey(suite, values["pk"])
	if err != nil {
		return fail("--pk", err)
	}
	beta, err := vrf.Verify(pk, values["alpha"], values["proof"])
	if err != nil {
		return fail("--proof", err)
	}
	if want, ok := values["beta"]; ok && !bytes.Equal(want, beta) {
		fmt.Fprintf(env.Stderr, "rngverify vrf: the proof is valid but its output %x differs from --beta\n", beta)
		return ExitFail
	}
	fmt.Fprintf(env.Stdout, "%x\n", beta)
	return ExitOK
}
