// Package pkcs11 is the hsm.Backend for a PKCS#11 token: a hardware security
// module, a smart card, or SoftHSM2 in tests. Private keys are generated on
// the token, sensitive and non-extractable, and never leave it: this package
// only ever asks the token to sign.
//
// # Software tokens
//
// SoftHSM2 is a PKCS#11 token emulated in software: its keys are files on
// the host, as a software keystore's are. It is for tests and development,
// not production custody. A token is taken for software when, on Open or
// PublicKeys, its slot's manufacturer (C_GetSlotInfo) or its own
// manufacturer or model (C_GetTokenInfo), blank padding trimmed, begins
// with "SoftHSM" (SoftHSM2 reports "SoftHSM project" and "SoftHSM v2");
// its Token.Software then reports true, opening it says so in the log, and rngd
// treats it as software keys (announced loudly, and refused outside dev
// mode without keys.allow_software). The slot's CKF_HW_SLOT flag is not
// used: SoftHSM2 does not set it, but neither do many network HSMs and
// PKCS#11 proxies. The rule relies on what the token says of itself, so an
// unknown software token, or one claiming another name, still counts as
// hardware: where the token really is must be checked where it is
// installed.
//
// # Keys and mechanisms
//
//   - VRF keys are RSA (2048 bits by default) and prove RSA-FDH-VRF-SHA256
//     (RFC 9381 §4): the host computes EM with vrf.RSAFDHEncode, the token
//     computes the raw private operation s = EM^d mod n with CKM_RSA_X_509,
//     and π = I2OSP(s, k). Before a proof is released the host checks it
//     with vrf.Verify: a faulty RSA-CRT result would otherwise disclose a
//     factor of n (Boneh–DeMillo–Lipton), and a wrong proof must never reach
//     the log. ECVRF keys cannot be held by a PKCS#11 token (no mechanism
//     computes the ECVRF proof), so GenerateVRF refuses them.
//   - Signing keys are Ed25519 (CKM_EC_EDWARDS_KEY_PAIR_GEN, CKM_EDDSA;
//     PKCS#11 3.0, SoftHSM2 ≥ 2.6) or, where the token lacks EdDSA, ECDSA
//     P-256 (CKM_EC_KEY_PAIR_GEN, CKM_ECDSA over a SHA-256 digest computed
//     by the host; the token's r||s is re-encoded as ASN.1 DER). Signatures
//     are verified on the host before they are released, too.
//
// Generated private keys carry CKA_TOKEN, CKA_PRIVATE, CKA_SENSITIVE and
// CKA_SIGN true and CKA_EXTRACTABLE, CKA_DECRYPT and CKA_UNWRAP false; the
// public key object has the same CKA_LABEL and CKA_ID. A key whose token
// reports it extractable or not sensitive is refused at generation and at
// use, and so is one not generated on the token (imported, or once
// extractable or not sensitive: CKA_ALWAYS_SENSITIVE or CKA_NEVER_EXTRACTABLE
// false), whose private half has existed outside it, and so is one marked
// CKA_PRIVATE false, which anyone with access to the token may use without
// the PIN (a key pair can be generated on a token without logging in). A
// key pair is a private key and the one public key object of its label and
// ID; a label held by several private keys, or a private key with no or
// several such public key objects, is refused by VRFProver and Signer and
// left out by Keys (public key objects can be added and removed without
// the PIN), and an RSA public key object must carry its private key's
// modulus. Keys leaves out, with a warning, every key pair VRFProver and
// Signer refuse, the unprotected ones above included: what it lists (and
// rngctl keys show publishes the pins of) is what the backend would use. A key's purpose follows
// from its type: RSA keys are VRF keys, EC and EC-Edwards keys are signing
// keys; other objects on the token, and RSA keys that cannot be RSA-FDH-VRF
// keys, are ignored.
//
// # Sessions and failure
//
// Open logs in once (CKU_USER) and keeps a pool of Config.Sessions
// read-write sessions; each operation takes one session for its duration,
// so as many operations run in parallel as there are sessions. Every error
// of the token during Prove or Sign is returned wrapped in hsm.ErrUnavailable:
// the draw is refused, nothing is retried and nothing falls back.
//
// A token that went away is reopened by the Token itself, never within the
// operation that found it gone. An operation that fails with a code saying
// the session, the login, the token or the library's state is gone
// (CKR_SESSION_HANDLE_INVALID, CKR_SESSION_CLOSED, CKR_USER_NOT_LOGGED_IN,
// CKR_DEVICE_REMOVED, CKR_TOKEN_NOT_PRESENT, CKR_TOKEN_NOT_RECOGNIZED,
// CKR_SLOT_ID_INVALID, CKR_DEVICE_ERROR, CKR_CRYPTOKI_NOT_INITIALIZED,
// CKR_GENERAL_ERROR) fails, and the token is lost: every operation fails
// at once with hsm.ErrUnavailable and the cause, except one every second
// (at most), which first reopens it: with no call running in the token,
// it re-initialises the library (C_Finalize, C_Initialize) when no other
// Token of this process uses it (SoftHSM2 finds tokens again only so),
// finds the slot by the token's label, opens the sessions and logs in
// with the PIN given to Open. A library another open Token uses is not
// re-initialised, and a token with calls stuck in it is reopened only once
// they have returned. A key handle the token no longer knows
// (CKR_OBJECT_HANDLE_INVALID, CKR_KEY_HANDLE_INVALID: SoftHSM2's answer
// once its token files are gone) fails the operation too, and the key is
// looked for again at its next use. A prover or signer finds its key
// again, in a reopened token or after such an answer, by its label, with
// the checks VRFProver and Signer make, and uses it only if it is the key
// it was made with, its public key and CKA_ID the same: another key under
// the label (a replaced token) fails every operation with ErrKeyChanged
// and the token is lost again (a later reopen tries again: the original
// token put back serves again), as it is when the key is not found. A PIN
// the token refuses when reopened is not tried again (a retried wrong PIN
// would lock it): the token then stays failed until the daemon restarts.
// The loss and the reopening are logged once each at warn level (the same
// loss again at debug level), a replaced key at error level.
//
// A token that stops answering (a network HSM behind a dead link) must not
// stall draws silently: each operation, the wait for a free session
// included, is bounded by Config.CallTimeout (10 s by default; key
// generation by at least 10 minutes), and so is Open. A PKCS#11 call cannot be interrupted,
// so on timeout the caller gets an error wrapping hsm.ErrUnavailable and
// context.DeadlineExceeded while the call goes on in the background,
// keeping its session out of the pool until it returns; once every session
// is stuck, every operation fails after CallTimeout. Timeouts are logged at
// error level. Close waits about twice CallTimeout at most; with calls
// still stuck it returns an error and the sessions and the module are
// released when they return.
//
// # Public keys without login
//
// [PublicKeys] reads the public keys without the PIN: it opens one
// read-only session, does not log in, and lists the public key objects the
// token shows to anyone (CKA_PRIVATE false, as generated keys have them),
// found and decoded by the code Keys uses. Without login the private keys
// are invisible, so a public key is not matched to its private key (Keys
// lists only key pairs of one label and ID): what it lists is unchecked.
// It fails, naming the label, rather than list less: when an expected label
// has no readable public key object (missing, or marked CKA_PRIVATE true,
// which hides it until login), when two readable public keys share a
// label, and when a public key object marked private is shown anyway.
//
// The PIN is handed to the PKCS#11 library as a Go string (the only form
// github.com/miekg/pkcs11 takes), which cannot be wiped. Config.PIN itself
// is not kept after Open, but the Token keeps a copy of it, to log in
// again when it reopens the token; Close wipes the copy. Errors and logs
// name the token, the label and the PKCS#11 return value, never the PIN.
//
// # Build
//
// The backend needs cgo (github.com/miekg/pkcs11 loads the module with
// dlopen). Built without cgo, Open and PublicKeys fail with [ErrNotBuilt].
package pkcs11

import (
	"errors"
	"log/slog"
	"time"
)

// Config configures a PKCS#11 backend.
type Config struct {
	// Module is the path of the PKCS#11 library, e.g. the HSM vendor's,
	// or /usr/lib/softhsm/libsofthsm2.so for SoftHSM2 (a software token:
	// tests and development only).
	Module string
	// TokenLabel selects the token (CKA_LABEL of the token, trailing spaces
	// ignored). Exactly one present token must carry it.
	TokenLabel string
	// PIN is the user PIN. Open uses it to log in and keeps a copy of it,
	// not it, to log in again when the token is reopened (see the package
	// doc); the caller should zero it after Open. PublicKeys, which does not log in,
	// takes none.
	PIN []byte
	// Sessions is the number of sessions kept open, hence of operations run
	// in parallel; zero means 4.
	Sessions int
	// RSABits is the modulus size of new VRF keys; zero means 2048.
	RSABits int
	// CallTimeout bounds each operation on the token (a proof, a signature,
	// a key lookup, Open itself), the wait for a free session included; zero
	// means 10 s.
	// On timeout the operation fails with hsm.ErrUnavailable (see the
	// package doc). Key generation is bounded by the larger of CallTimeout
	// and 10 minutes.
	CallTimeout time.Duration
	// Logger receives token events (never a PIN); nil discards them.
	Logger *slog.Logger
}

// ErrNotBuilt is returned by Open and PublicKeys in binaries built without
// cgo: rebuild with CGO_ENABLED=1 and a C compiler to use an HSM.
var ErrNotBuilt = errors.New("built without PKCS#11 support: rebuild with cgo enabled (CGO_ENABLED=1 and a C compiler)")

// DefaultModule is the module of Debian's softhsm2 package, a software
// token (see the package doc): for tests and development, not production.
const DefaultModule = "/usr/lib/softhsm/libsofthsm2.so"

// ErrKeyChanged is returned (wrapped in hsm.ErrUnavailable) by a prover or
// signer whose token, lost and reopened, holds under the key's label a key
// that is not the one it was made with: a replaced token. The key is never
// used; put the original token back.
var ErrKeyChanged = errors.New("another key under the label in use")
