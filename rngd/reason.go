package rngd

import (
	"fmt"
	"strconv"

	"google.golang.org/genproto/googleapis/rpc/code"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// reason is why rngd refused a call: a stable, machine-readable word that a
// game server can branch on (the message, for people, names the field and
// may change). It travels in the gRPC status as a google.rpc.ErrorInfo
// detail (Reason, Domain reasonDomain), as AIP-193 describes, and labels
// tirage_refusals_total. Each reason comes with one status code (reasons).
//
// The list is part of the API: it is documented in qod.proto and admin.proto
// and in docs/rngd.md ("Refusal reasons"); a reason is never renamed or
// given another meaning, only added.
type reason string

// reasonDomain is the ErrorInfo domain of rngd's reasons.
const reasonDomain = "tirage.fr"

const (
	// The request is malformed (INVALID_ARGUMENT): fix it, retrying the
	// same request is refused the same way.
	reasonRequestIDInvalid    reason = "REQUEST_ID_INVALID"    // request_id missing, too long or not printable ASCII
	reasonCodeInvalid         reason = "CODE_INVALID"          // code is not an 18-character ticket code
	reasonGameIDMissing       reason = "GAME_ID_MISSING"       // game_id empty
	reasonNumberRange         reason = "NUMBER_RANGE"          // number outside 1..30
	reasonDecisionInvalid     reason = "DECISION_INVALID"      // decision neither STOP nor CONTINUE
	reasonEmissionIDInvalid   reason = "EMISSION_ID_INVALID"   // admin: emission_id not 1..64 of [A-Za-z0-9._-]
	reasonClosureDateInvalid  reason = "CLOSURE_DATE_INVALID"  // admin: closure_date not a YYYY-MM-DD date in range
	reasonRefundReasonMissing reason = "REFUND_REASON_MISSING" // admin: a refund without its reason
	reasonRefundReasonInvalid reason = "REFUND_REASON_INVALID" // admin: a refund's reason that is not one line of text (record.CheckRefundReason)
	reasonManifestInvalid     reason = "MANIFEST_INVALID"      // admin: manifest header, count, ticket or duplicate
	reasonPageSizeInvalid     reason = "PAGE_SIZE_INVALID"     // ListUnfinishedGames, admin ListExpiredGames: page_size negative
	reasonPageTokenInvalid    reason = "PAGE_TOKEN_INVALID"    // ListUnfinishedGames, admin ListExpiredGames: page_token not one returned to this caller
	reasonAttestationInvalid  reason = "ATTESTATION_INVALID"   // admin LogAttestation: envelope, signature, statement or predicate (a wrong paytable)
	reasonCallMissing         reason = "CALL_MISSING"          // Play: a PlayCall that holds no call

	// Who is asking (UNAUTHENTICATED, PERMISSION_DENIED).
	reasonClientCertRequired reason = "CLIENT_CERT_REQUIRED" // no verified client certificate
	reasonIdentityInvalid    reason = "IDENTITY_INVALID"     // the certificate names no usable identity
	reasonCertRevoked        reason = "CERT_REVOKED"         // the certificate was revoked (grpc.client_crl_file) after the connection's handshake
	reasonGameNotOwned       reason = "GAME_NOT_OWNED"       // the game belongs to another game server
	reasonQuitNotOwned       reason = "QUIT_NOT_OWNED"       // GetQuit: another game server quit the ticket

	// What is asked about does not exist (NOT_FOUND).
	reasonUnknownGame     reason = "UNKNOWN_GAME"     // no game with this game_id
	reasonUnknownCode     reason = "UNKNOWN_CODE"     // no ticket with this code in the imported manifests
	reasonUnknownEmission reason = "UNKNOWN_EMISSION" // admin: no emission with this emission_id
	reasonTicketNotQuit   reason = "TICKET_NOT_QUIT"  // GetQuit: the ticket was neither quit nor started (a started one: TICKET_STARTED)

	// What a call would create exists already (ALREADY_EXISTS, as gRPC's
	// status code guide says: "an entity a client attempted to create").
	// CODE_PLAYED is not one: StartGame creates a game, and the rule that a
	// ticket plays once forbids it (FAILED_PRECONDITION, below).
	reasonRequestIDReused reason = "REQUEST_ID_REUSED" // request_id already used for another request
	reasonEmissionExists  reason = "EMISSION_EXISTS"   // admin: emission_id already registered
	reasonTicketImported  reason = "TICKET_IMPORTED"   // admin: a ticket of the manifest is already imported

	// A rule forbids the call now (FAILED_PRECONDITION): nothing changed,
	// and the same call will be refused again.
	reasonDeadlinePassed reason = "DEADLINE_PASSED" // start after the emission's closure + 29 days
	reasonCodePlayed     reason = "CODE_PLAYED"     // the code already started a game
	reasonGameOver       reason = "GAME_OVER"       // the game is won, lost, expired or refunded
	reasonAtTier         reason = "AT_TIER"         // a pick while a decision is due: continue or stop first
	reasonNotAtTier      reason = "NOT_AT_TIER"     // continue or stop while playing
	reasonNumberPicked   reason = "NUMBER_PICKED"   // the number was picked before in this game
	reasonGameExpired    reason = "GAME_EXPIRED"    // the 30-day play window is over
	reasonNotExpired     reason = "NOT_EXPIRED"     // an expiry before the play window is over
	reasonSecretLost     reason = "SECRET_LOST"     // the game's secret r was lost: only a refund ends it
	reasonTicketQuit     reason = "TICKET_QUIT"     // StartGame, Quit: the ticket was quit (QUITTER, art. 2.2.3)
	reasonTicketStarted  reason = "TICKET_STARTED"  // Quit, GetQuit: the ticket started a game (CONTINUER is irrevocable)
	// admin LogAttestation: the envelope's key is not an attestation key
	// the log announced; a build statement of another rngd (executable,
	// configuration file, keys).
	reasonAttestationKeyUnknown reason = "ATTESTATION_KEY_UNKNOWN"
	reasonAttestationNotSelf    reason = "ATTESTATION_NOT_SELF"

	// A component failed (UNAVAILABLE): retry later with the same
	// request_id; the message says whether anything was sealed, and when
	// only a restart of rngd helps (a log failed closed: logRefusal).
	reasonEntropyUnavailable reason = "ENTROPY_UNAVAILABLE" // the DRBG refused (health tests): nothing drawn
	reasonKeysUnavailable    reason = "KEYS_UNAVAILABLE"    // key custody (HSM, keystore) failed: nothing drawn
	reasonLogUnavailable     reason = "LOG_UNAVAILABLE"     // the transparency log refused an append or a read (logRefusal)
	reasonStoreUnavailable   reason = "STORE_UNAVAILABLE"   // the state store failed
	reasonSecretsUnavailable reason = "SECRETS_UNAVAILABLE" // the secret store failed
	reasonClockBackwards     reason = "CLOCK_BACKWARDS"     // the clock is before the game's last event: nothing drawn
	reasonCheckpointPending  reason = "CHECKPOINT_PENDING"  // no signed checkpoint covers the game's records (GetQuit: the quit) yet
	// admin ImportManifest: the manifest's file could not be kept in
	// data_dir/manifests (a full disk): nothing imported nor sealed.
	reasonManifestUnavailable reason = "MANIFEST_UNAVAILABLE"

	// rngd cannot go on without an operator (INTERNAL).
	reasonLogIntegrity reason = "LOG_INTEGRITY" // the log was found rolled back or forked (transparency.ErrSecurity): draws refused
	reasonInternal     reason = "INTERNAL"      // anything else (a bug or a corrupt store)
)

// reasons is the fixed set of reasons, each with its status code: the
// series of tirage_refusals_total other than the fallbacks (fallback).
var reasons = map[reason]codes.Code{
	reasonRequestIDInvalid:    codes.InvalidArgument,
	reasonCodeInvalid:         codes.InvalidArgument,
	reasonGameIDMissing:       codes.InvalidArgument,
	reasonNumberRange:         codes.InvalidArgument,
	reasonDecisionInvalid:     codes.InvalidArgument,
	reasonEmissionIDInvalid:   codes.InvalidArgument,
	reasonClosureDateInvalid:  codes.InvalidArgument,
	reasonRefundReasonMissing: codes.InvalidArgument,
	reasonRefundReasonInvalid: codes.InvalidArgument,
	reasonManifestInvalid:     codes.InvalidArgument,
	reasonPageSizeInvalid:     codes.InvalidArgument,
	reasonPageTokenInvalid:    codes.InvalidArgument,
	reasonAttestationInvalid:  codes.InvalidArgument,
	reasonCallMissing:         codes.InvalidArgument,

	reasonClientCertRequired: codes.Unauthenticated,
	reasonIdentityInvalid:    codes.Unauthenticated,
	reasonCertRevoked:        codes.Unauthenticated,
	reasonGameNotOwned:       codes.PermissionDenied,
	reasonQuitNotOwned:       codes.PermissionDenied,

	reasonUnknownGame:     codes.NotFound,
	reasonUnknownCode:     codes.NotFound,
	reasonUnknownEmission: codes.NotFound,
	reasonTicketNotQuit:   codes.NotFound,

	reasonRequestIDReused: codes.AlreadyExists,
	reasonEmissionExists:  codes.AlreadyExists,
	reasonTicketImported:  codes.AlreadyExists,

	reasonDeadlinePassed:        codes.FailedPrecondition,
	reasonCodePlayed:            codes.FailedPrecondition,
	reasonGameOver:              codes.FailedPrecondition,
	reasonAtTier:                codes.FailedPrecondition,
	reasonNotAtTier:             codes.FailedPrecondition,
	reasonNumberPicked:          codes.FailedPrecondition,
	reasonGameExpired:           codes.FailedPrecondition,
	reasonNotExpired:            codes.FailedPrecondition,
	reasonSecretLost:            codes.FailedPrecondition,
	reasonTicketQuit:            codes.FailedPrecondition,
	reasonTicketStarted:         codes.FailedPrecondition,
	reasonAttestationKeyUnknown: codes.FailedPrecondition,
	reasonAttestationNotSelf:    codes.FailedPrecondition,

	reasonEntropyUnavailable:  codes.Unavailable,
	reasonKeysUnavailable:     codes.Unavailable,
	reasonLogUnavailable:      codes.Unavailable,
	reasonStoreUnavailable:    codes.Unavailable,
	reasonSecretsUnavailable:  codes.Unavailable,
	reasonClockBackwards:      codes.Unavailable,
	reasonCheckpointPending:   codes.Unavailable,
	reasonManifestUnavailable: codes.Unavailable,

	reasonLogIntegrity: codes.Internal,
	reasonInternal:     codes.Internal,
}

// refuse is a refusal for reason r: a status with r's code, the message
// and r's ErrorInfo detail.
func refuse(r reason, format string, args ...any) error {
	return withReason(status.New(reasons[r], fmt.Sprintf(format, args...)), r).Err()
}

// refuseHiding is a refusal for reason r whose message, made of format and
// args, is for any caller, and whose cause is the operator's only: what a
// component said when it failed (token and key labels, PKCS#11 return codes,
// file paths, DSNs, SQL errors) is no game server's business. The cause
// travels apart, in a google.rpc.DebugInfo detail, which observed takes off
// every reply: it logs it, and puts it back in the message on the operator's
// admin socket only (operatorMessage).
func refuseHiding(r reason, cause error, format string, args ...any) error {
	st := withReason(status.New(reasons[r], fmt.Sprintf(format, args...)), r)
	if cause == nil {
		return st.Err()
	}
	d, err := st.WithDetails(&errdetails.DebugInfo{Detail: cause.Error()})
	if err != nil {
		return st.Err()
	}
	return &hidingError{st: d, cause: cause.Error()}
}

// hidingError is refuseHiding's refusal: its status (GRPCStatus) holds the
// cause in a DebugInfo detail; its text, for rngd's own log lines, says it.
type hidingError struct {
	st    *status.Status
	cause string
}

func (h *hidingError) Error() string {
	return fmt.Sprintf("rpc error: code = %s desc = %s", h.st.Code(), operatorMessage(h.st.Message(), h.cause))
}

func (h *hidingError) GRPCStatus() *status.Status { return h.st }

// hiddenCause splits st into the status a caller may get (without its
// DebugInfo detail, refuseHiding) and the cause it held, "" when none.
func hiddenCause(st *status.Status) (*status.Status, string) {
	p := st.Proto()
	var cause string
	kept := p.Details[:0:0]
	for _, a := range p.Details {
		var di errdetails.DebugInfo
		if a.MessageIs(&di) {
			if a.UnmarshalTo(&di) == nil {
				cause = di.Detail
			}
			continue
		}
		kept = append(kept, a)
	}
	if len(kept) == len(p.Details) {
		return st, ""
	}
	p.Details = kept
	return status.FromProto(p), cause
}

// operatorMessage is st's message with its hidden cause, as the operator's
// log and admin socket read it.
func operatorMessage(msg, cause string) string {
	if cause == "" {
		return msg
	}
	return msg + ": " + cause
}

// withReason adds r's ErrorInfo detail to st.
func withReason(st *status.Status, r reason) *status.Status {
	d, err := st.WithDetails(&errdetails.ErrorInfo{Reason: string(r), Domain: reasonDomain})
	if err != nil { // OK carries no details; nothing else fails
		return st
	}
	return d
}

// fallback is the reason of a refusal that carries none of ours: its status
// code's canonical name (FAILED_PRECONDITION, UNKNOWN, …).
func fallback(c codes.Code) reason {
	return reason(code.Code(c).String())
}

// reasonOf returns err's reason: the one of its ErrorInfo detail when it
// is one of reasons, else the fallback of its code.
func reasonOf(err error) reason {
	st := status.Convert(err)
	if ei := errorInfo(st); ei != nil {
		if _, known := reasons[reason(ei.Reason)]; known {
			return reason(ei.Reason)
		}
	}
	return fallback(st.Code())
}

// withFallbackReason returns err as a status error that carries a reason
// (its own, or the fallback of its code): every refusal a client gets has
// an ErrorInfo detail.
func withFallbackReason(err error) error {
	st := status.Convert(err)
	if errorInfo(st) != nil {
		return err
	}
	return withReason(st, fallback(st.Code())).Err()
}

// RefusalReason is the reason rngd gave for refusing a call, from the error
// its client got: the reason of its google.rpc.ErrorInfo detail in domain
// tirage.fr (MANIFEST_INVALID, EMISSION_EXISTS, …; docs/rngd.md lists
// them), or "" when it carries none (not rngd's refusal, or no refusal).
func RefusalReason(err error) string {
	if ei := errorInfo(status.Convert(err)); ei != nil {
		return ei.Reason
	}
	return ""
}

// errorInfo is st's ErrorInfo detail in reasonDomain, or nil.
func errorInfo(st *status.Status) *errdetails.ErrorInfo {
	for _, d := range st.Details() {
		if ei, ok := d.(*errdetails.ErrorInfo); ok && ei.Domain == reasonDomain {
			return ei
		}
	}
	return nil
}

// maxQuoted is how many characters of a request's field an error message
// quotes: a message names the field, it need not echo megabytes of it.
const maxQuoted = 64

// quoted quotes s, from a request, for an error message: its first
// maxQuoted characters, and its length when it is longer.
func quoted(s string) string {
	if len(s) <= maxQuoted {
		return strconv.Quote(s)
	}
	return fmt.Sprintf("%.*q… (%d bytes)", maxQuoted, s, len(s))
}
