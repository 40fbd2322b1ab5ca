package ctl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	adminv1 "tirage.fr/tirage/rngd/api/tirage/admin/v1"
	"tirage.fr/tirage/rngd/entropy"
	"tirage.fr/tirage/rngd/entropy/battery"
)

func init() {
	register("entropy", Command{Summary: "test an entropy source (SP 800-90B health tests, quick SP 800-22 battery); rngd's entropy status and retest", Run: runEntropy})
}

const entropyUsage = `usage: rngctl entropy test --source KIND [flags]
       rngctl entropy status|retest [--socket PATH]

status prints the health of every entropy source of the running rngd and
whether it draws: "healthy", "DEGRADED" (a source failed; rngd draws from
the others until a retest brings it back) or refusing; retest re-runs the
start-up health tests on its physical sources and reseeds from the healthy
ones (the operator's recovery action after an entropy alarm,
docs/entropy.md). Both exit 1 while draws are refused, 0 otherwise
(degraded too).

` + adminSocketHelp + `
test:

Reads raw samples from one entropy source, runs the SP 800-90B start-up
health tests (1,024 samples), then reads --bytes more bytes under the
continuous health tests (Repetition Count, Adaptive Proportion) and runs a
quick statistical battery on them (SP 800-22 frequency, runs and serial
tests; chi-square of byte values), printing a report with P-values.

  --source KIND       hwrng, rdseed, tpm or getrandom
  --bytes N           bytes to read after start-up (default 100000, at most
                      2^24; hwrng delivers about 10 kB/s)
  --min-entropy H     declared min-entropy per sample, 0 < H <= sample bits
                      (default 2), sets the health-test cutoffs
  --sample-bits B     8 (each byte is a sample; default) or 1 (each bit:
                      a binary noise source, APT window 1024)
  --alpha A           false-alarm probability per test and sample, 2^-40..2^-20,
                      written as 2^-30 or a number (default 2^-30)
  --device PATH       device for hwrng (default /dev/hwrng) or tpm (default
                      /dev/tpmrm0)
  --tpm-address ADDR  TPM simulator command port, e.g. 127.0.0.1:2321

The battery is reported at significance 0.01: for a good source each of its
5 P-values falls below 0.01 with probability 0.01, so it is informational
and does not change the exit status.

Exit status:
  0  the health tests passed
  1  a health test failed, or the source could not be opened or read
  2  usage error
`

func runEntropy(ctx context.Context, env Env) int {
	if code, done := groupHelp(env, entropyUsage); done {
		return code
	}
	switch env.Args[0] {
	case "test":
		return runEntropyTest(ctx, env, env.Args[1:])
	case "status", "retest":
		return runEntropyDaemon(ctx, env)
	}
	return usageError(env, "entropy", "entropy: unknown subcommand %q", env.Args[0])
}

// runEntropyDaemon is rngctl entropy status|retest, over the admin socket.
func runEntropyDaemon(ctx context.Context, env Env) int {
	sub := env.Args[0]
	fs := newFlags("entropy " + sub)
	var a adminFlags
	a.register(fs, env)
	if code, ok := parseArgs(env, fs, env.Args[1:], fs.Name(), entropyUsage, false); !ok {
		return code
	}
	// status and retest send no request id: --request-id would be ignored.
	if code, ok := onlyFlags(env, fs, "socket"); !ok {
		return code
	}
	adm, done, err := a.dial(ctx)
	if err != nil {
		return fail(env, err)
	}
	defer done()
	var st *adminv1.EntropyStatusResponse
	if sub == "retest" {
		st, err = adm.EntropyRetest(ctx, &adminv1.EntropyRetestRequest{})
	} else {
		st, err = adm.EntropyStatus(ctx, &adminv1.EntropyStatusRequest{})
	}
	if err != nil {
		return a.fail(env, err)
	}
	return writeEntropyStatus(env, st)
}

// writeEntropyStatus prints each source's health and the verdict: healthy,
// degraded (a source failed, rngd draws from the others: exit 0, but the
// operator has a source to repair and a retest to run) or refusing (exit 1).
func writeEntropyStatus(env Env, st *adminv1.EntropyStatusResponse) int {
	var failed []string
	var credited float64
	for _, src := range st.Sources {
		health := "healthy"
		if src.Failure != "" {
			health = "FAILED: " + src.Failure
			failed = append(failed, src.Name)
		} else {
			credited += src.CreditedBits
		}
		kind := "physical, credited " + strconv.FormatFloat(src.CreditedBits, 'f', 1, 64) + " bits per seed"
		if !src.Physical {
			kind = "not credited"
		}
		fmt.Fprintf(env.Stdout, "source %s (%s): %s\n", src.Name, kind, health)
	}
	if !st.Healthy {
		fmt.Fprintf(env.Stderr, "rngctl: entropy unhealthy, rngd refuses draws: %s\n", st.Error)
		return ExitFail
	}
	if len(failed) > 0 {
		fmt.Fprintf(env.Stdout, "entropy DEGRADED: rngd draws from its healthy sources alone (%s bits per seed credited); failed: %s; repair, then rngctl entropy retest\n",
			strconv.FormatFloat(credited, 'f', 1, 64), strings.Join(failed, ", "))
		return ExitOK
	}
	fmt.Fprintln(env.Stdout, "entropy healthy: rngd draws")
	return ExitOK
}

// maxTestBytes bounds entropy test's --bytes: the battery takes about 8
// bytes of memory a byte tested (a bit a byte; 135 MB for 16 MiB), so 2^30,
// the bound before, needed about 10 GB. A million samples is what SP
// 800-90B's assessment asks for.
const maxTestBytes = 1 << 24

func runEntropyTest(ctx context.Context, env Env, args []string) int {
	fs := newFlags("entropy test")
	kind := fs.String("source", "", "")
	nbytes := fs.Int("bytes", 100000, "")
	h := fs.Float64("min-entropy", 2, "")
	sampleBits := fs.Int("sample-bits", 8, "")
	alphaText := fs.String("alpha", "2^-30", "")
	device := fs.String("device", "", "")
	tpmAddr := fs.String("tpm-address", "", "")
	usageErr := func(format string, a ...any) int {
		fmt.Fprintf(env.Stderr, "rngctl entropy test: "+format+" (rngctl entropy -h for usage)\n", a...)
		return ExitUsage
	}
	if code, ok := parseArgs(env, fs, args, fs.Name(), entropyUsage, false); !ok {
		return code
	}
	switch *kind {
	case entropy.KindHWRNG, entropy.KindRDSEED, entropy.KindTPM, entropy.KindGetrandom:
	case "":
		return usageErr("missing --source")
	default:
		return usageErr("--source %q: want hwrng, rdseed, tpm or getrandom", *kind)
	}
	if *nbytes < 16 || *nbytes > maxTestBytes {
		return usageErr("--bytes %d: want 16 to 2^24 (16 MiB)", *nbytes)
	}
	if *sampleBits != 8 && *sampleBits != 1 {
		return usageErr("--sample-bits %d: want 8 or 1", *sampleBits)
	}
	if !(*h > 0 && *h <= float64(*sampleBits)) {
		return usageErr("--min-entropy %g: want 0 < H <= %d", *h, *sampleBits)
	}
	alpha, err := parseAlpha(*alphaText)
	if err != nil || !(alpha >= entropy.MinAlpha && alpha <= entropy.MaxAlpha) {
		return usageErr("--alpha %q: want 2^-40 to 2^-20", *alphaText)
	}

	switch {
	case *device != "" && *kind != entropy.KindHWRNG && *kind != entropy.KindTPM:
		return usageErr("--device is for --source hwrng or tpm")
	case *tpmAddr != "" && *kind != entropy.KindTPM:
		return usageErr("--tpm-address is for --source tpm")
	case *device != "" && *tpmAddr != "":
		return usageErr("give --device or --tpm-address, not both")
	}

	fail := func(format string, a ...any) int {
		fmt.Fprintf(env.Stderr, "rngctl entropy test: "+format+"\n", a...)
		return ExitFail
	}
	// A device that is not there is named as such (entropy.Open would say
	// the source is not supported here).
	if path := devicePath(*kind, *device, *tpmAddr); path != "" {
		if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
			if *device != "" {
				return fail("--device %s: no such device", path)
			}
			return fail("source %s: no device %s on this machine (--device names another)", *kind, path)
		}
	}
	src, err := entropy.Open(entropy.SourceConfig{Kind: *kind, Path: *device, Address: *tpmAddr})
	if err != nil {
		return fail("%s", err)
	}
	if c, ok := src.(io.Closer); ok {
		defer c.Close()
	}
	// A stalled device fails the test instead of hanging it.
	src = entropy.WithReadTimeout(src, entropy.DefaultReadTimeout)
	ht, err := entropy.NewHealthTest(src.Name(), *sampleBits, *h, alpha)
	if err != nil {
		return fail("%s", err)
	}
	rct, apt, w := ht.Cutoffs()
	out := env.Stdout
	kindNote := "physical"
	if !src.Physical() {
		kindNote = "non-physical (never credited; health tests run for information)"
	}
	fmt.Fprintf(out, "source          %s, %s\n", src.Name(), kindNote)
	fmt.Fprintf(out, "declared H      %g bits per %d-bit sample, alpha = %s\n", *h, *sampleBits, alphaString(alpha))
	fmt.Fprintf(out, "cutoffs         repetition count %d; adaptive proportion %d in a window of %d\n", rct, apt, w)

	if err := ht.Startup(src); err != nil {
		fmt.Fprintf(out, "start-up tests  FAIL over 1024 samples\n")
		return fail("%s", err)
	}
	fmt.Fprintf(out, "start-up tests  pass over 1024 samples\n")

	data := make([]byte, *nbytes)
	const chunk = 4096
	for off := 0; off < len(data); off += chunk {
		if err := ctx.Err(); err != nil {
			return fail("interrupted after %d bytes", off)
		}
		p := data[off:min(off+chunk, len(data))]
		if _, err := io.ReadFull(src, p); err != nil {
			return fail("source %s: read failed after %d bytes: %s", src.Name(), off, err)
		}
		if err := ht.Feed(p); err != nil {
			fmt.Fprintf(out, "continuous      FAIL within bytes %d..%d\n", off, off+len(p))
			return fail("%s", err)
		}
	}
	fmt.Fprintf(out, "continuous      pass over %d samples\n", len(data)*8 / *sampleBits)

	results, err := battery.Run(data)
	if err != nil {
		return fail("%s", err)
	}
	fmt.Fprintf(out, "\nstatistical battery on %d bytes (SP 800-22 Rev. 1a; significance 0.01):\n", len(data))
	for _, r := range results {
		ps := make([]string, len(r.PValues))
		for i, p := range r.PValues {
			ps[i] = strconv.FormatFloat(p, 'f', 6, 64)
		}
		verdict := "pass"
		if !r.Pass(0.01) {
			verdict = "low P-value"
		}
		line := fmt.Sprintf("  %-26s P = %-20s %s", r.Name, strings.Join(ps, ", "), verdict)
		if r.Note != "" {
			line += " (" + r.Note + ")"
		}
		fmt.Fprintln(out, line)
	}
	fmt.Fprintln(out, "\nresult          health tests passed")
	return ExitOK
}

// devicePath is the device test --source kind reads, or "" for none.
func devicePath(kind, device, tpmAddr string) string {
	switch {
	case device != "":
		return device
	case kind == entropy.KindHWRNG:
		return entropy.DefaultHWRNGPath
	case kind == entropy.KindTPM && tpmAddr == "":
		return entropy.DefaultTPMPath
	}
	return ""
}

// parseAlpha accepts "2^-30" or a decimal number.
func parseAlpha(s string) (float64, error) {
	if e, ok := strings.CutPrefix(s, "2^"); ok {
		n, err := strconv.Atoi(e)
		if err != nil {
			return 0, err
		}
		return math.Exp2(float64(n)), nil
	}
	return strconv.ParseFloat(s, 64)
}

func alphaString(a float64) string {
	if l := math.Log2(a); l == math.Trunc(l) {
		return fmt.Sprintf("2^%d", int(l))
	}
	return strconv.FormatFloat(a, 'g', -1, 64)
}
