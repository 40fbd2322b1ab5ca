// Package entropy is the appliance's random bit generator: physical entropy
// sources, health-tested on every raw sample as SP 800-90B §4.4 requires,
// conditioned with a vetted function (SP 800-90B §3.1.5.1.1, HMAC-SHA-256)
// and used to seed and reseed an SP 800-90A HMAC_DRBG (package drbg).
//
// # Sources
//
// A Source yields raw samples: each byte is one 8-bit sample, or, for a
// binary noise source (SourceConfig.SampleBits = 1), each bit. The kinds are /dev/hwrng (a hardware
// RNG device), the CPU's RDSEED instruction (amd64 with RDSEED in CPUID;
// ErrNotSupported elsewhere), a TPM 2.0 through TPM2_GetRandom (the device
// or a simulator over TCP) and getrandom(2). getrandom is declared
// non-physical: it is mixed into every seed but credited with no entropy.
//
// Each physical source declares its min-entropy H per sample
// (SourceConfig.MinEntropy). From H and the false-alarm probability α
// (Config.Alpha) come the cutoffs of the two health tests:
//
//   - Repetition Count Test (§4.4.1): C = 1 + ⌈-log2(α) / H⌉;
//   - Adaptive Proportion Test (§4.4.2), window W = 512 (1024 for binary
//     samples): C = 1 +
//     CRITBINOM(W, 2^-H, 1-α), computed with exact arithmetic.
//
// Before first use, and again on Retest, each physical source passes the
// start-up tests: both tests over 1,024 fresh samples (§4.3). Afterwards
// every sample read is tested.
//
// # Failing closed
//
// A source that fails a test, or whose read fails, is marked failed and no
// longer used; its samples of the failing read are discarded. A read that
// does not complete within Config.ReadTimeout (a stalled /dev/hwrng, a TPM
// that stopped answering) fails the "timeout" test the same way: each read
// runs on a goroutine of its own, and a stalled one is abandoned, never
// duplicated — a source has at most one read outstanding. Each seed
// needs Config.RequiredEntropy credited bits (SeedBytes × 8/SampleBits × H
// summed over the healthy physical sources). When the healthy sources fall
// short, Read and Healthy return an error wrapping ErrUnhealthy and one
// *HealthError per failed source (which source, which test), Read returns no
// bytes, the metric tirage_entropy_generator_healthy drops to 0 and an error
// is logged.
// While the healthy sources still credit the requirement, draws go on
// from them alone, but the Generator is degraded and says so: the failed
// source's tirage_entropy_source_healthy drops to 0,
// tirage_entropy_health_failures_total{source,test} counts the failure,
// tirage_entropy_sources_failed and tirage_entropy_credited_bits show the
// accounting, an ERROR line names the source and the test and a WARN line
// the degraded state (each once, when it happens), and Status reports the
// failure.
// Nothing recovers by itself, a failed source of a degraded Generator no
// more than a refusing one (SP 800-90B §4.3: a source that failed is used
// again only once it passes its start-up tests): an operator calls Retest,
// which re-runs the start-up tests on every physical source and
// instantiates a fresh DRBG (docs/entropy.md).
//
// # DRBG
//
// The conditioned seed instantiates HMAC_DRBG (SHA-256, 256-bit security
// strength). It is reseeded before a request when ReseedRequests requests
// have been served or ReseedInterval has passed on the injected clock, and
// before every request with PredictionResistance. A request is one SP
// 800-90A generate call of at most 64 KiB: a Read of up to 64 KiB is one, a
// longer Read is served in 64 KiB requests and counts each of them.
// Before every instantiation and reseed the DRBG passes its known-answer
// self-test (SP 800-90A §11.3, drbg.SelfTest); a failure refuses draws
// (ErrSelfTest) until an operator Retest passes it again.
//
// No seed, raw sample or DRBG state appears in an error, a log line or a
// metric.
package entropy
