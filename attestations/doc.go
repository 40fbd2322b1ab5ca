// Package attestations makes and checks the appliance's signed attestations:
// in-toto statements (https://in-toto.io/Statement/v1) in DSSE envelopes
// (github.com/secure-systems-lab/dsse, protocol v1.0), signed by the
// appliance's attestation key — the key announced with use "attestation" in
// the log's key announcement (package verifier/announce).
//
// An attestation is made ([Sign]) in these steps, and [Open] reverses them:
//
//  1. The predicate (what is attested: [*Paytable], [*Build]) is encoded as
//     canonical JSON: struct members in lexicographic order, no white space,
//     no HTML escaping, integers only (all below 2^53), ASCII only. That is
//     the RFC 8785 (JCS) form of the same value, so anyone can re-derive the
//     bytes.
//  2. payload = the statement {"_type","predicate","predicateType",
//     "subject":[{"digest":{"sha256"},"name"}]}, canonical as in 1
//     ([Format]); payloadType = [PayloadType].
//  3. m = PAE(payloadType, payload) (announce.PAE, DSSE's pre-authentication
//     encoding).
//  4. sig = the attestation key's signature of m: Ed25519 of m, or ECDSA
//     P-256 over SHA-256(m) in ASN.1 DER — the algorithms
//     announce.VerifySignature checks, as for the key announcement.
//  5. The envelope is {"payload","payloadType","signatures":[{"keyid",
//     "sig"}]}, payload and sig in standard base64, with exactly one
//     signature whose keyid is the key's announced id.
//  6. The log records it as a record.Attestation ([NewRecord]): subject and
//     predicate type of the statement, the key id, digest = SHA-256 of the
//     envelope's bytes, and the envelope itself when it is at most
//     [MaxEmbedded] bytes.
//
// # Strict parsing
//
// Envelopes and statements come from files anyone can edit, so [Open] and
// [Parse] accept one spelling of each: at most [MaxEnvelope] bytes, JSON
// with no repeated member, no unknown member (an in-toto consumer may
// ignore them; we refuse them, because a member this verifier does not
// read would be signed content nobody checked), nothing after the value,
// one signature, and a payload that is byte for byte the canonical
// encoding ([Format]) of the statement it parses to. Only the predicate
// types this package knows ([PaytableType], [BuildType]) are read; a
// statement of another type is refused ([ErrUnknownType]), not skipped.
//
// # What is checked
//
// [Verify] checks a statement against what it claims. For the paytable it
// recomputes the whole predicate from package verifier/qod (the game's
// exact rules) and compares every figure exactly: a changed figure is
// refused with a [*FigureError] naming it. For the build there is nothing
// to recompute from the rules: Verify checks its form, [CheckConfig]
// compares the attested configuration digest with a file's bytes, and
// [CheckKeys] the attested keys with an announcement ([CheckKeysIn]: with
// several).
//
// No statement ever carries a secret: the configuration is attested by its
// SHA-256 only, keys by their public id and fingerprint, and only an
// allow-list of build settings is copied ([Settings]).
//
// The package does no I/O: callers pass the bytes, the build information
// and the digests. It compiles for js/wasm like the verifier core.
package attestations
