package receipt

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"time"

	"tirage.fr/tirage/verifier/checkpoint"
	"tirage.fr/tirage/verifier/promo"
	"tirage.fr/tirage/verifier/record"
	"tirage.fr/tirage/verifier/verdict"
)

// certificateChecks are promo.Verify's checks in the order it runs them.
var certificateChecks = []string{
	promo.CheckFormat, promo.CheckCheckpoint, promo.CheckFreezeRecord, promo.CheckFreezeInclusion,
	promo.CheckDrawRecord, promo.CheckDrawInclusion, promo.CheckKeys, promo.CheckRules, promo.CheckLink,
	promo.CheckCommitment, promo.CheckShare, promo.CheckShareCommitment, promo.CheckBeacon, promo.CheckVRF, promo.CheckPicks, promo.CheckPickInclusion,
}

// certificateMisbehaviour: a failure of these checks is a contradiction
// inside the material, proof when it is authenticated (certificateWhy).
var certificateMisbehaviour = map[string]bool{
	promo.CheckLink: true, promo.CheckCommitment: true, promo.CheckShareCommitment: true, promo.CheckVRF: true, promo.CheckPicks: true,
}

// certificateWhy says why a contradiction promo.Verify found (ce) is no
// proof against the appliance, or nil when it is. promo.Verify reaches its
// contradictions only once the freeze and draw records are included in the
// checkpoint; they are the appliance's when that checkpoint is signed by a
// trusted log key (logTrusted). A VRF proof fails as proof only under a key
// announced in the log before the freeze (the certificate's keys, which
// promo.Verify checked), or under a key anchored (vrfPinned: given or
// pinned) whose pairing with the draw's key id a key announcement given
// proves (Anchors.Announced; pairing) — the certificate's vrf_key_id and
// vrf_public_key are its own. The certificate's
// own members — its draw id, its picks — are not in the log.
func certificateWhy(file []byte, ce *promo.CheckError, logTrusted, vrfPinned bool, a Anchors) *verdict.Msg {
	msg := func(id verdict.MsgID, args ...any) *verdict.Msg { m := verdict.M(id, args...); return &m }
	if !logTrusted {
		return msg(verdict.MsgWhyCheckpoint)
	}
	var c promo.Certificate
	if json.Unmarshal(file, &c) != nil {
		return msg(verdict.MsgWhyLayout)
	}
	args := ce.Msg.Args
	switch ce.Check {
	case promo.CheckLink:
		// The draw ids: the freeze's and the draw's agree, only the
		// certificate's own differs.
		if ce.Msg.ID == verdict.MsgPromoDrawIDs && len(args) == 3 && args[1] == args[2] && args[0] != args[1] {
			return msg(verdict.MsgWhyCertificate, "draw")
		}
	case promo.CheckPicks:
		switch ce.Msg.ID {
		case verdict.MsgPromoRankPick, verdict.MsgPromoPickRank, verdict.MsgPromoRankLeaf, verdict.MsgPromoRankPseudonym:
			return msg(verdict.MsgWhyCertificate, "picks")
		case verdict.MsgPromoPickCount:
			// The draw record's ranking has as many picks as β gives: only
			// the certificate's list differs.
			if len(args) == 3 && args[0] == args[2] {
				return msg(verdict.MsgWhyCertificate, "picks")
			}
		}
	case promo.CheckVRF:
		switch {
		case c.Keys != nil:
			// The key and its suite come from the announcement in the log.
		case !vrfPinned:
			return msg(verdict.MsgWhyKeyUntrusted, c.VRFKeyID)
		default:
			pk, err := parseVRFKey(VRFKey{Suite: c.VRFSuite, PublicKey: c.VRFPublicKey})
			if err != nil {
				return msg(verdict.MsgWhyKeyUntrusted, c.VRFKeyID)
			}
			fr, err1 := record.Parse([]byte(c.Freeze.Record))
			dr, err2 := record.Parse([]byte(c.DrawRecord.Record))
			f, ok1 := fr.(*record.PromoFreeze)
			d, ok2 := dr.(*record.PromoDraw)
			if err1 != nil || err2 != nil || !ok1 || !ok2 {
				return nil // not reached: promo.Verify read them
			}
			alpha := record.PromoDrawAlpha(f.Draw, f.Root, f.Count, f.Commit, d.Secret, d.Share, d.BeaconValue)
			if _, known := a.VRFTrusted(pk); !known {
				if s, ok := otherSuite(pk, alpha, d.Proof, d.Beta); ok {
					return msg(verdict.MsgWhySuite, string(s))
				}
			}
			return a.pairOf(c.VRFKeyID, pk, nil).why(a.givenVRFKeys(), alpha, d.Proof, d.Beta)
		}
	}
	return nil
}

// certificateBeacon says what the beacon check promo.Verify passed
// established: nothing when the freeze announced no round (the check is
// skipped, saying so and that only the draw's rules show whether one was
// promised: promo.Verify compares them when given, Anchors.Rules), else the
// round's published signature, published after the freeze.
func certificateBeacon(v *verdict.Verdict, f *record.PromoFreeze, res *promo.Verified) {
	switch {
	case f == nil:
	case f.Beacon == "":
		v.Set(promo.CheckBeacon, verdict.StatusSkip, verdict.MsgReceiptBeaconNone)
	case res != nil && res.Beacon.Verified():
		v.Set(promo.CheckBeacon, verdict.StatusPass, verdict.MsgReceiptBeacon, res.Beacon.Chain.String(), res.Beacon.Round, f.Time.UTC().Format(time.RFC3339))
	}
}

// certificateFreeze is the freeze record of a certificate promo.Verify
// passed, nil if it holds none that parses.
func certificateFreeze(file []byte) *record.PromoFreeze {
	var c promo.Certificate
	if json.Unmarshal(file, &c) != nil {
		return nil
	}
	r, err := record.Parse([]byte(c.Freeze.Record))
	if f, ok := r.(*record.PromoFreeze); err == nil && ok {
		return f
	}
	return nil
}

// certificateShare says what the share-commitment check promo.Verify
// passed established: the share opens the commitment the freeze holds; or,
// for a freeze that holds none (logged before freezes held one), nothing —
// and, when the draw binds a beacon round, that the beacon then does not
// rule out a choice of the winners by the operator and the bailiff
// together.
func certificateShare(v *verdict.Verdict, f *record.PromoFreeze) {
	switch {
	case f == nil:
	case f.ShareCommitment != [32]byte{}:
		v.Set(promo.CheckShareCommitment, verdict.StatusPass, verdict.MsgShareCommitmentOK, promo.ShareCommitmentHex(f))
	case f.Beacon != "":
		v.Set(promo.CheckShareCommitment, verdict.StatusSkip, verdict.MsgShareUncommitted)
	default:
		v.Set(promo.CheckShareCommitment, verdict.StatusSkip, verdict.MsgShareCommitmentNone)
	}
}

// VerifyCertificate verifies a promotion certificate (promo.Verify) as a
// verdict naming each of its checks; with the draw's entrant list in lists
// (by draw id), the bailiff's checks too. The log keys must be anchored (a
// key given, or a pinned fingerprint of one of the certificate's keys):
// without an anchor the log-key check fails, and the other checks run with
// the certificate's own keys so that the user still sees them — but then
// no contradiction they find is proof of misbehaviour (certificateWhy).
func VerifyCertificate(file []byte, lists map[string]*promo.EntrantList, a Anchors) *verdict.Verdict {
	v := verdict.New(DocCertificate, verdict.MsgSubjectCertificate)
	var probe struct {
		Draw         string   `json:"draw"`
		LogKeys      []string `json:"log_keys"`
		VRFKeyID     string   `json:"vrf_key_id"`
		VRFSuite     string   `json:"vrf_suite"`
		VRFPublicKey string   `json:"vrf_public_key"`
	}
	json.Unmarshal(file, &probe)
	if probe.Draw != "" {
		v.SetSubject(verdict.MsgSubjectPromoDraw, probe.Draw)
	}
	logKeys := a.TrustedLogKeyTexts(probe.LogKeys)
	anchors := promo.Anchors{LogKeys: logKeys, Reserves: -1}
	// The VRF key: given or pinned (its bytes), or the draw fails
	// pinned-keys. Its suite is known when it is given or pinned with its
	// suite; a key pinned by a bare fingerprint is trusted only when the
	// certificate's key announcement, in the log before the freeze, fixes
	// its suite (res.KeyLogged).
	vrfTrusted, vrfSuiteKnown := false, false
	if pk, err := parseVRFKey(VRFKey{Suite: probe.VRFSuite, PublicKey: probe.VRFPublicKey}); err == nil {
		vrfTrusted, vrfSuiteKnown = a.VRFTrusted(pk)
	}
	if vrfTrusted {
		anchors.VRFPublicKey = probe.VRFPublicKey
	} else if len(a.VRFKeys) > 0 {
		anchors.VRFPublicKey = hex.EncodeToString(a.VRFKeys[0].Bytes())
	}
	logKeyCheck(v, logKeys, probe.LogKeys)
	list := lists[probe.Draw]
	checks := certificateChecks
	if list != nil {
		checks = append(append([]string(nil), checks...), promo.CheckEntrantList, promo.CheckEntrantRoot)
	}
	res, err := promo.Verify(file, list, anchors)
	failed, ce := failedCheck(err, promo.CheckFormat)
	checksInOrder(v, checks, failed, ce, func(c string) bool {
		if !certificateMisbehaviour[c] {
			return false
		}
		v.Misbehaviour(c, verdict.MsgSame, CheckErrorMsg(ce))
		if why := certificateWhy(file, ce, len(logKeys) > 0, anchors.VRFPublicKey != "", a); why != nil {
			downgrade(&v.Checks[len(v.Checks)-1], *why)
		}
		return true
	}, nil)
	if list == nil {
		v.Skip(promo.CheckEntrantRoot, verdict.MsgPublicOnly)
	}
	freeze := certificateFreeze(file)
	if c := v.Find(promo.CheckShareCommitment); c != nil && c.Status == verdict.StatusPass {
		certificateShare(v, freeze)
	}
	if c := v.Find(promo.CheckBeacon); c != nil && c.Status == verdict.StatusPass {
		certificateBeacon(v, freeze, res)
	}
	// The witnesses, on the certificate's one checkpoint (it includes the
	// freeze and the draw), under the keys promo.Verify used.
	cpKeys := logKeys
	if len(cpKeys) == 0 {
		cpKeys = probe.LogKeys
	}
	cp, sigs := a.witnessCheckNote(v, documentCheckpoint(file), cpKeys)
	if c := v.Find(promo.CheckBeacon); c != nil && c.Status == verdict.StatusPass {
		a.beaconOrder(v, freeze, cp, sigs, true)
	}
	if res != nil {
		// The certificate's pairing of the draw's key id with its key,
		// when no key announcement in the log fixes it: one given that
		// names the id with another key says the certificate is wrong.
		var pair pairing
		if pk, err := parseVRFKey(VRFKey{Suite: probe.VRFSuite, PublicKey: probe.VRFPublicKey}); err == nil && !res.KeyLogged {
			pair = a.pairOf(probe.VRFKeyID, pk, nil)
		}
		switch {
		case pair.contradicted:
			v.Fail(verdict.CheckVRFKey, verdict.MsgSame, pair.mismatch())
		case vrfTrusted && vrfSuiteKnown:
			v.Pass(verdict.CheckVRFKey, verdict.MsgPinned)
		case res.KeyLogged:
			v.Pass(verdict.CheckVRFKey, verdict.MsgAnnouncedBeforeFreeze)
		case vrfTrusted:
			pk, _ := parseVRFKey(VRFKey{Suite: probe.VRFSuite, PublicKey: probe.VRFPublicKey})
			v.Fail(verdict.CheckVRFKey, verdict.MsgVRFKeyBytesOnly, probe.VRFKeyID, record.Hex(record.Fingerprint(pk.Bytes())), probe.VRFSuite)
		default:
			v.Fail(verdict.CheckVRFKey, verdict.MsgVRFKeyNotAnchored, res.VRFKey)
		}
		if len(logKeys) == 0 {
			// Under no trusted log key the winners are only what the
			// file says: no facts (rngverify freeze likewise).
			v.Fact("certificate fingerprint", verdict.MsgSha256, promo.Fingerprint(file))
			return v
		}
		v.Fact("draw", verdict.MsgDrawFact, res.Draw, res.Count)
		// The share bound into α, quoted (a character that does not
		// print shows as an escape): only the bailiff can tell it is the
		// one typed at the ceremony, and every other check passes for a
		// ceremony re-run with another share.
		v.Fact("bailiff's share", verdict.MsgShareFact, strconv.Quote(res.Share))
		for i, p := range res.Picks {
			role := verdict.M(verdict.MsgWinner)
			if p.Rank > 1 {
				role = verdict.M(verdict.MsgReserve, p.Rank-1)
			}
			if res.Accounts != nil {
				v.FactNamed(role, verdict.MsgPickFactAccount, p.Pseudonym, p.Index+1, res.Accounts[i])
			} else {
				v.FactNamed(role, verdict.MsgPickFact, p.Pseudonym, p.Index+1)
			}
		}
		v.Fact("certificate fingerprint", verdict.MsgSha256, promo.Fingerprint(file))
	}
	return v
}

// CertificateAgainst checks a certificate whose verdict v passes
// (VerifyCertificate) against what its user holds beyond the keys: the
// draw's rules file and an expected reserves count (given.Rules,
// given.Reserves ≥ 0; rngverify certificate --rules/--reserves, and the
// browser page's rules file). It runs promo.Verify again with them, under
// the certificate's own keys, trusted since v passes, and with the draw's
// entrant list in lists. A freeze that announced another beacon round, or
// ranks another number of winners or reserves, than the rules it commits
// to by their hash, the file given, or that was frozen or drawn outside
// their dates, is misbehaviour;
// a freeze that announced none, when the rules promise none either, keeps
// a skip that says so. Nothing is checked when v does not pass or nothing
// is given.
//
// Rules of another operation than the certificate's are no verdict on it:
// the error (promo.ErrRulesOtherOperation, naming both operations) says
// so and v stays the verdict without rules. The command line refuses
// the pair as a usage error; the browser page, given certificates of
// several operations and one rules file, says so beside the verdict.
func CertificateAgainst(v *verdict.Verdict, file []byte, lists map[string]*promo.EntrantList, given promo.Anchors) error {
	if v.Status() != verdict.StatusPass || (given.Rules == nil && given.Reserves < 0) {
		return nil
	}
	var cert struct {
		Draw         string   `json:"draw"`
		LogKeys      []string `json:"log_keys"`
		VRFPublicKey string   `json:"vrf_public_key"`
	}
	if json.Unmarshal(file, &cert) != nil {
		return nil // not reached: v passes
	}
	given.LogKeys, given.VRFPublicKey = cert.LogKeys, cert.VRFPublicKey
	_, err := promo.Verify(file, lists[cert.Draw], given)
	var ce *promo.CheckError
	switch {
	case errors.Is(err, promo.ErrRulesOtherOperation):
		return err
	case errors.As(err, &ce) && given.Rules != nil && promo.RulesContradiction(ce.Msg.ID):
		// The freeze and draw, proven the appliance's (the log key is
		// trusted), contradict the rules the freeze commits to by their
		// hash, the file given: proof, as the log's audit says
		// (verifier/audit). (A count of reserves given with the rules is
		// theirs, or Verify refused it: ErrReservesNotRules.)
		v.Set(promo.CheckRules, verdict.StatusPass, verdict.MsgRulesGiven)
		v.Set(ce.Check, verdict.StatusMisbehaviour, verdict.MsgSame, CheckErrorMsg(ce))
	case errors.As(err, &ce):
		v.Set(ce.Check, verdict.StatusFail, verdict.MsgSame, CheckErrorMsg(ce))
	case err != nil:
		v.Set(promo.CheckRules, verdict.StatusFail, verdict.MsgSame, Cause(err))
	case given.Rules != nil:
		v.Set(promo.CheckRules, verdict.StatusPass, verdict.MsgRulesGiven)
		// promo.Verify checked the dates (only with the rules): say so,
		// or a bailiff cannot tell they were checked.
		v.Set(promo.CheckDates, verdict.StatusPass, verdict.MsgDatesKept)
		if BeaconUnannounced(v) { // and the rules promised none
			v.Set(promo.CheckBeacon, verdict.StatusSkip, verdict.MsgBeaconNoneNorRules)
		}
	}
	return nil
}

// BeaconUnannounced reports whether v's beacon check was skipped because
// the certificate's freeze announced no round (certificateBeacon): only
// the draw's rules can show whether one was promised.
func BeaconUnannounced(v *verdict.Verdict) bool {
	c := v.Find(promo.CheckBeacon)
	return c != nil && c.Status == verdict.StatusSkip && c.Message != nil && c.Message.ID == verdict.MsgReceiptBeaconNone
}

// failedCheck is the check a promo verification failed (err a
// *promo.CheckError naming it; another error fails the document's format
// check, format) and its error; "" and nil when err is nil.
func failedCheck(err error, format string) (string, *promo.CheckError) {
	var ce *promo.CheckError
	switch {
	case errors.As(err, &ce):
		return ce.Check, ce
	case err != nil:
		return format, &promo.CheckError{Check: format, Err: err}
	}
	return "", nil
}

// checksInOrder sets checks on v in their order, as a promotion document's
// verification stops at its first failed check (failed, ce): those before
// it pass, with no detail unless pass (when not nil) sets one and reports
// true; the failed one fails with ce's reason, unless fail (when not nil)
// sets it otherwise and reports true; those after it are not reached.
func checksInOrder(v *verdict.Verdict, checks []string, failed string, ce *promo.CheckError, fail, pass func(c string) bool) {
	reached := true
	for _, c := range checks {
		switch {
		case !reached:
			v.Skip(c, verdict.MsgNotReached)
		case c == failed:
			reached = false
			if fail == nil || !fail(c) {
				v.Fail(c, verdict.MsgSame, CheckErrorMsg(ce))
			}
		case pass == nil || !pass(c):
			v.Pass(c, verdict.NoDetail)
		}
	}
}

// logKeyCheck sets a promotion document's log-key check: the log keys
// trusted to check it (none: it fails, naming the keys the document names,
// docKeys, to compare with the appliance's published fingerprints, as a
// receipt's check does).
func logKeyCheck(v *verdict.Verdict, logKeys, docKeys []string) {
	var fps []string
	for _, t := range docKeys {
		if k, err := checkpoint.ParseKey(t); err == nil {
			fps = append(fps, k.Algorithm+" "+k.Fingerprint())
		}
	}
	switch {
	case len(logKeys) == 0 && len(fps) > 0:
		v.Fail(verdict.CheckLogKey, verdict.MsgNoTrustedLogKeyCertNamed, verdict.M(verdict.MsgHintLogKeys, strings.Join(fps, ", ")))
	case len(logKeys) == 0:
		v.Fail(verdict.CheckLogKey, verdict.MsgNoTrustedLogKeyCert)
	default:
		v.Pass(verdict.CheckLogKey, verdict.MsgKeyCount, len(logKeys))
	}
}
