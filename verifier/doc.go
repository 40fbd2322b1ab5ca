// Package verifier is the root of Tirage's pure verification core.
//
// Its subpackages do no I/O and are the very code the daemon uses to produce
// draws, so that what is drawn and what is checked cannot diverge:
//
//   - vrf:    RFC 9381 verifiable random functions (Prove / Verify / ProofToHash)
//   - draw:   VRF output β → outcomes without bias (uniform, Bernoulli p/q, ranked samples)
//   - record: the log leaf, canonical and versioned (Format / Parse), and each draw's α
//   - qod:    Quitte ou Double rules: paytable, state machine, outcomes
//   - promo:  promotion rules: eligibility, freeze, ranked draw, certificates
//   - announce:   signed key announcements (DSSE proofs of possession)
//   - checkpoint: signed checkpoints (Ed25519 + ML-DSA-44), consistency, trust state
//   - receipt:    receipts, game transcripts and certificates, checked end to end
//   - audit:      following a whole log and re-verifying every record
//   - verdict:    named checks, French and English, misbehaviour as its own class
//   - cli:    rngverify's command line; web: the same checks in the offline browser page
//
// The dependency-closure test in this package keeps gRPC, Trillian, tessera,
// Prometheus and database drivers out of it.
package verifier
