package receipt

import (
	"errors"
	"strings"

	"golang.org/x/mod/sumdb/tlog"

	"tirage.fr/tirage/verifier/checkpoint"
	"tirage.fr/tirage/verifier/promo"
	"tirage.fr/tirage/verifier/qod"
	"tirage.fr/tirage/verifier/record"
	"tirage.fr/tirage/verifier/verdict"
	"tirage.fr/tirage/verifier/vrf"
)

// causes names the core's sentinel errors in the message catalog, most
// specific first (a rule broken on replay also wraps qod.ErrTranscript).
var causes = []struct {
	err error
	id  verdict.MsgID
}{
	{vrf.ErrInvalidProof, verdict.MsgCauseInvalidProof},
	{vrf.ErrUnknownSuite, verdict.MsgCauseUnknownSuite},
	{record.ErrVersion, verdict.MsgCauseRecordVersion},
	{record.ErrUnknownKind, verdict.MsgCauseRecordKind},
	{record.ErrMalformed, verdict.MsgCauseRecordMalformed},
	{checkpoint.ErrFork, verdict.MsgCauseFork},
	{checkpoint.ErrUntrusted, verdict.MsgCauseCheckpointUntrusted},
	{checkpoint.ErrMalformed, verdict.MsgCauseCheckpointMalformed},
	{qod.ErrStake, verdict.MsgCauseStake},
	{qod.ErrBeta, verdict.MsgCauseBeta},
	{qod.ErrStartClosed, verdict.MsgCauseStartClosed},
	{qod.ErrNumberRange, verdict.MsgCauseNumberRange},
	{qod.ErrNumberPicked, verdict.MsgCauseNumberPicked},
	{qod.ErrGameOver, verdict.MsgCauseGameOver},
	{qod.ErrAtTier, verdict.MsgCauseAtTier},
	{qod.ErrNotAtTier, verdict.MsgCauseNotAtTier},
	{qod.ErrExpired, verdict.MsgCauseExpired},
	{qod.ErrNotExpired, verdict.MsgCauseNotExpired},
	{qod.ErrRefundClosed, verdict.MsgCauseRefundClosed},
	{qod.ErrTimeOrder, verdict.MsgCauseTimeOrder},
	{qod.ErrTicketPlayed, verdict.MsgCauseTicketPlayed},
	{qod.ErrTicketQuit, verdict.MsgCauseTicketQuit},
	{qod.ErrTicketStarted, verdict.MsgCauseTicketStarted},
	{qod.ErrTranscript, verdict.MsgCauseTranscript},
	{promo.ErrEntrantList, verdict.MsgCauseEntrantList},
	{errInclusion, verdict.MsgCauseInclusion},
	{record.ErrTicketCode, verdict.MsgCauseTicketCode},
}

// errInclusion is x/mod tlog's (unexported) error for an inclusion proof
// that does not lead to the tree's root, obtained from tlog itself: a
// one-leaf tree whose root is not the leaf.
var errInclusion = tlog.CheckRecord(nil, 1, tlog.Hash{}, 0, tlog.Hash{1})

// Cause is the language-neutral form of an error of the verifier core, as
// the reason of a check: its English rendering is err's text, unchanged;
// in French, an error built from the catalog (verdict.Errorf) is rendered
// in French, a sentinel the catalog knows (vrf.ErrInvalidProof,
// qod.ErrNumberPicked, checkpoint.ErrFork …) is named in French, followed by
// the English text as a technical detail when that text says more than the
// sentinel. crypto/x509's refusal of a key, when it reaches here bare, is
// named too (verdict.X509Named). Any other error is shown as a technical
// detail.
func Cause(err error) verdict.Msg { return CauseText(err, err.Error()) }

// CauseText is Cause with the English text to show (err's text trimmed of
// a prefix the reason already says).
func CauseText(err error, text string) verdict.Msg {
	var me *verdict.MsgError
	if errors.As(err, &me) {
		m := Localize(me.Msg)
		rest, ok := strings.CutPrefix(text, me.Error())
		if ok && rest == "" {
			return m
		}
		// Package vrf's reasons (a refused key, proof or suite), with its
		// "vrf: " prefix, which says nothing in French.
		if text == "vrf: "+me.Error() {
			return verdict.M(verdict.MsgVRFPrefix, m)
		}
		// The message, then a sentinel's text: qod's rule violations,
		// checkpoint's failures.
		for _, c := range causes {
			if s := verdict.M(c.id); ok && rest == ": "+s.Text("en") && errors.Is(err, c.err) {
				return verdict.M(verdict.MsgColon, m, s)
			}
		}
		return verdict.M(verdict.MsgCauseDetail, m, text)
	}
	for _, c := range causes {
		if errors.Is(err, c.err) {
			if m := verdict.M(c.id); m.Text("en") == text {
				return m
			}
			return verdict.M(verdict.MsgCauseDetail, verdict.M(c.id), text)
		}
	}
	// crypto/x509's refusal of a key that reached here bare (package vrf
	// names only some of an RSA key's).
	if named := verdict.X509Named(err); named != err && text == err.Error() {
		return Cause(named)
	}
	return verdict.M(verdict.MsgCauseTechnical, text)
}

// Localize returns m with its error arguments turned into causes (Cause),
// so that they are rendered in the reader's language too.
func Localize(m verdict.Msg) verdict.Msg {
	out := verdict.Msg{ID: m.ID, Args: make([]any, len(m.Args))}
	for i, a := range m.Args {
		switch x := a.(type) {
		case error:
			out.Args[i] = Cause(x)
		case verdict.Msg:
			out.Args[i] = Localize(x)
		default:
			out.Args[i] = a
		}
	}
	return out
}

// CheckErrorMsg is the reason of a promotion check that failed: ce's
// message (promo builds it from the catalog), its error arguments named as
// causes.
func CheckErrorMsg(ce *promo.CheckError) verdict.Msg {
	if ce.Msg.ID != verdict.NoDetail {
		return Localize(ce.Msg)
	}
	return Cause(ce.Err)
}
