// Package web is the logic of rngverify's offline browser page: the files
// a user drops (receipts, transcripts, promotion certificates and freeze
// receipts, entrant lists, attestations) are recognised, verified with the
// same core as the command line, and rendered as localized checks for the
// page to show. It does no I/O; verifier/web/wasm bridges it to
// JavaScript, and static/index.html is the page (scripts/wasm.sh assembles
// bin/verifier-web/).
//
// Trust on the page comes only from what the user gives as such, apart
// from the documents to check: the operator's key files (the log key file
// served at /log/vkey, or the log's key announcement record, which must
// pass verifier/announce's possession check before its keys are pinned),
// and pinned fingerprints — as rngverify's --log-key, --vrf-key and --pin
// (a VRF key's pinned as SUITE:FP, which fixes its suite: receipt.ParsePin).
// A key file or key announcement dropped among the documents is never
// trusted: whoever made the documents could have made it too. It is shown
// with its fingerprints, as trusted only when the anchors already trust
// every key in it, and a document that needs it fails its log-key (or
// vrf-key) check as it does on the command line without an anchor.
//
// The draw's rules file, given apart too (the operator's, deposited with
// the bailiff), is not trust but one more thing to check certificates
// against, as rngverify certificate --rules FILE: the rules' hash, dates
// and beacon round (a freeze that announces another round than its rules
// is misbehaviour). Without it, a freeze that announced no round can only
// be skipped, and the page says to give the rules. A certificate of
// another operation than the rules is verified as without them, the page
// naming both operations (NoteRulesOtherOperation): a bailiff may drop
// several operations' certificates with one operation's rules.
//
// A promotion's freeze receipt is checked as by rngverify freeze: its log
// keys anchored as a certificate's, and, when the draw's entrant list is
// among the documents, the bailiff's checks too (rngverify freeze
// --entrants); without it, NoteEntrantsMissing. The freeze's input files,
// given apart (the stake files in order, the closed-accounts file:
// ReadInputs, VerifyInputs), are compared with those it binds and, with
// the rules, the entrants recomputed from them, as by rngverify freeze
// --stakes, --closed, --rules; without them, NoteInputsMissing. An attestation is checked
// as by rngverify attestation with the key announcements given as anchors
// for --attestation-key: an announcement is trusted there, so its
// attestation keys need no pin (those typed are the log's and VRF keys',
// for the other documents); without one, NoteAnnouncementMissing. A build
// attestation's configuration file and executable (--config, --binary)
// are not taken by the page: NoteBuildFiles.
package web

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"tirage.fr/tirage/verifier/announce"
	"tirage.fr/tirage/verifier/checkpoint"
	"tirage.fr/tirage/verifier/promo"
	"tirage.fr/tirage/verifier/receipt"
	"tirage.fr/tirage/verifier/record"
	"tirage.fr/tirage/verifier/verdict"
	"tirage.fr/tirage/verifier/vrf"
)

// File is one dropped file.
type File struct {
	Name string
	// Data is the file's bytes, as many as the page read: for a file
	// larger than its limit, which the page does not read, only its
	// beginning (the bytes that say whether it is an entrant list:
	// receipt.EntrantsHead), or nothing.
	Data []byte
	// Size is the file's size as the browser declares it, if larger than
	// len(Data): Verify refuses the file as too large by it, as by
	// len(Data). Zero (or less than len(Data)): len(Data) is its size.
	Size int64
}

// size is f's size: Size, or len(Data) if larger.
func (f File) size() int64 { return max(f.Size, int64(len(f.Data))) }

// Notes: what the page adds, in its own words, under a result.
const (
	// NoteKeyNotTrusted: a key file dropped among the documents, not
	// trusted; the page says how to trust it.
	NoteKeyNotTrusted = "key-not-trusted"
	// NoteAnchorRefused: a file given as a trusted key that is not one (or
	// whose announcement fails its possession check); nothing in it is trusted.
	NoteAnchorRefused = "anchor-refused"
	// NotePinRefused: a pinned fingerprint that is not 64 hex digits
	// (bare or SHA256:), or SUITE:64 hex digits with a suite
	// vrf.ParseSuite knows (receipt.ParsePin).
	NotePinRefused = "pin-refused"
	// NoteRulesRefused: the file given as the draw's rules is not a rules
	// file promo.ParseRules reads (or is larger than rngverify --rules
	// reads); certificates are still checked against it, and fail
	// rules-hash: it is not the frozen file.
	NoteRulesRefused = "rules-refused"
	// NoteRulesMissing: a certificate whose freeze announced no beacon
	// round, checked without the rules; the page says to give them.
	NoteRulesMissing = "rules-missing"
	// NoteRulesOtherOperation: a certificate of another operation than
	// the rules file given (promo.ErrRulesOtherOperation), verified as
	// without rules — not failed: a bailiff may drop the certificates of
	// several operations with one operation's rules. Result.NoteDetail
	// names both operations; the page says to give the certificate's own.
	NoteRulesOtherOperation = "rules-other-operation"
	// NoteEntrantsMissing: a freeze receipt whose draw's entrant list is
	// not among the documents: its public checks only; the page says to
	// drop the list (the bailiff's copy) for the bailiff's checks.
	NoteEntrantsMissing = "entrants-missing"
	// NoteAnnouncementMissing: an attestation checked with no anchor that
	// announces an attestation key; the page says to give the appliance's
	// key announcement as a trusted key.
	NoteAnnouncementMissing = "announcement-missing"
	// NoteBuildFiles: a build attestation, whose configuration file and
	// executable digests the page does not check; the page names the
	// command that does (rngverify attestation --config, --binary).
	NoteBuildFiles = "build-files"
	// NoteQuorumRefused: the witness quorum given is not 1 to the number of
	// witnesses given as anchors (or none is given); all are required.
	NoteQuorumRefused = "quorum-refused"
)

// docRules is the kind of the verdict on a refused rules file; docQuorum,
// on a refused witness quorum.
const (
	docRules  = "rules"
	docQuorum = "quorum"
)

// The most the page reads of a file, by zone, as rngverify reads it (docs/
// verifier.md, File size limits): the page reads one byte more (index.html's
// LIMITS, which must match), and Verify refuses a larger file by name, with
// the limit and what it is for, as rngverify does. A file whose declared
// size is over the most it could be allowed (a document: the entrant
// list's limit if it begins as one, else the document's; a key file: its
// own) is not read at all: the page gives its size (File.Size) and its
// first bytes only, so that a large file dropped by mistake neither
// freezes the tab nor exhausts the verifier's memory. (A rules file is
// read up to its limit and one byte more even then: certificates are
// still checked against what was read, as before.)
const (
	// MaxDocument: a receipt, transcript or certificate (--entrants aside).
	MaxDocument = receipt.MaxSize
	// MaxEntrants: an entrant list, a document that begins with
	// receipt.EntrantsHead.
	MaxEntrants = receipt.MaxEntrants
	// MaxKeyFile: a trusted key file or key announcement (--log-key).
	MaxKeyFile = receipt.MaxKeyFile
	// MaxRules: the draw's rules file (--rules).
	MaxRules = receipt.MaxSize
)

// tooLarge is the verdict on a file larger than limit, what being the
// catalog's name of its kind (verdict.MsgLimitDocument...), as rngverify
// says it.
func tooLarge(kind, check string, f File, limit int, what verdict.MsgID) *verdict.Verdict {
	v := verdict.New(kind, verdict.MsgSame, f.Name)
	v.Fail(check, verdict.MsgFileTooLarge, f.Name, limit>>20, verdict.M(what))
	return v
}

// Result is one document's verdict.
type Result struct {
	File    string
	Verdict *verdict.Verdict
	// Note, if not empty, is one of the Note constants.
	Note string
	// NoteDetail, if not nil, is what the note says of this document in
	// particular, in the catalog's words (NoteRulesOtherOperation: the
	// two operations, as rngverify certificate --rules says them).
	NoteDetail *verdict.Msg
	// MoreNotes are the notes after Note, if a document has several (a
	// freeze receipt given neither its entrant list nor its input files:
	// NoteEntrantsMissing, then NoteInputsMissing).
	MoreNotes []string
}

// Verify verifies every document among docs (receipts, transcripts,
// certificates, freeze receipts and attestations, with the entrant lists
// among them; rngd's GetReceipts and
// GetTranscript replies as grpcurl prints them too, a GetReceipts reply
// giving one result per receipt). It trusts only
// anchors — the operator's log key files and key announcement records,
// obtained by the user apart from the documents — and pins, pinned key
// fingerprints (hex, or SUITE:hex for a VRF key, separated by spaces,
// commas or newlines). An anchor or
// pin that cannot be trusted is reported first (NoteAnchorRefused,
// NotePinRefused) and trusts nothing; a key file among docs is reported
// (NoteKeyNotTrusted unless the anchors already trust all its keys) and
// trusts nothing either. rules, if not nil, is the draw's rules file, as
// rngverify certificate --rules: every certificate that verifies is also
// checked against it (receipt.CertificateAgainst); one that promo.ParseRules refuses
// is reported first (NoteRulesRefused), and certificates are still checked
// against it. A certificate of another operation than the rules is
// verified as without them and carries NoteRulesOtherOperation. Without
// rules, a certificate whose freeze announced no beacon round carries
// NoteRulesMissing. A file larger than rngverify reads (MaxDocument,
// MaxEntrants, MaxKeyFile, MaxRules), by its bytes or its declared
// File.Size, is refused by name, with the limit, as rngverify refuses it;
// an anchor so refused is NoteAnchorRefused.
// A freeze receipt is checked with its draw's entrant list if one is among
// docs (NoteEntrantsMissing if not); an attestation with the key
// announcements among anchors (NoteAnnouncementMissing if none announces
// an attestation key; NoteBuildFiles on a build attestation).
//
// Verify requires the cosignatures of every witness given as an anchor:
// it is VerifyQuorum with no quorum given.
func Verify(docs, anchors []File, pins string, rules *File) []Result {
	return VerifyQuorum(docs, anchors, pins, rules, "")
}

// VerifyQuorum is Verify with the witnesses' quorum as typed, as rngverify
// --witness-quorum N: how many of the witnesses given as anchors must have
// cosigned each checkpoint; blank, all of them. Not a number, or outside 1
// to their number (or given without witnesses), it is refused with
// rngverify's words, reported first (NoteQuorumRefused), and every witness
// is required.
func VerifyQuorum(docs, anchors []File, pins string, rules *File, quorum string) []Result {
	return VerifyInputs(docs, anchors, pins, rules, quorum, nil)
}

// VerifyInputs is VerifyQuorum with a promotion freeze's input files, read
// by ReadInputs under the same rules (nil: none given), as rngverify
// freeze --stakes FILE … --closed FILE [--rules FILE]: every freeze
// receipt among docs is checked with them (input-files, and with the
// rules and its draw's entrant list, entrants-recomputed). An input file
// ReadInputs refused is reported first (NoteInputsRefused). A freeze
// receipt whose freeze binds input files, checked without them, carries
// NoteInputsMissing; with them but without the rules,
// NoteRecomputeMissing.
func VerifyInputs(docs, anchors []File, pins string, rules *File, quorum string, inputs *Inputs) []Result {
	// The game rules' time zone, as rngverify's default --tz (the page
	// embeds the zone database: time/tzdata in wasm).
	var a receipt.Anchors
	var anns []*record.KeyAnnouncement // the anchors' key announcements, for attestations
	if loc, err := time.LoadLocation("Europe/Paris"); err == nil {
		a.Location = loc
	}
	var out []Result
	for _, p := range strings.FieldsFunc(pins, func(r rune) bool { return r == ' ' || r == ',' || r == '\n' || r == '\t' || r == '\r' }) {
		suite, fp, err := receipt.ParsePin(p)
		if err != nil {
			v := verdict.New("pin", verdict.MsgSame, p)
			v.Fail(verdict.CheckLogKey, verdict.MsgCLIPinBad, p)
			out = append(out, Result{File: p, Verdict: v, Note: NotePinRefused})
			continue
		}
		if suite != "" {
			fp = string(suite) + ":" + fp
		}
		a.Pins = append(a.Pins, fp)
	}
	for _, f := range anchors {
		if f.size() > MaxKeyFile {
			out = append(out, Result{File: f.Name, Verdict: tooLarge("", verdict.CheckLogKey, f, MaxKeyFile, verdict.MsgLimitKeyFile), Note: NoteAnchorRefused})
			continue
		}
		if err := trust(&a, &anns, f.Data); err != nil {
			v := verdict.New(receipt.Detect(f.Data), verdict.MsgSame, f.Name)
			v.Fail(verdict.CheckLogKey, verdict.MsgSame, receipt.Cause(err))
			out = append(out, Result{File: f.Name, Verdict: v, Note: NoteAnchorRefused})
		}
	}
	if quorum = strings.TrimSpace(quorum); quorum != "" {
		n, err := strconv.Atoi(quorum)
		if err != nil {
			err = verdict.Errorf(verdict.MsgCLIFlagInvalid, quorum, "witness-quorum", verdict.M(verdict.MsgCLIFlagParse))
		} else {
			err = a.SetQuorum(n)
		}
		if err != nil {
			v := verdict.New(docQuorum, verdict.MsgSame, quorum)
			v.Fail(verdict.CheckWitness, verdict.MsgSame, receipt.Cause(err))
			out = append(out, Result{File: quorum, Verdict: v, Note: NoteQuorumRefused})
		}
	}
	if rules != nil {
		if r := refusedRules(*rules); r != nil {
			out = append(out, *r)
		}
	}
	if inputs != nil {
		out = append(out, inputs.refused...)
	}
	lists := map[string]*promo.EntrantList{}
	listFile := map[string]string{}          // draw → the file of its first list
	refusedList := map[string]*verdict.Msg{} // draw → why a list of it was refused
	twice := map[string]string{}             // draw given two lists or more (none used) → its second
	var checked []File
	for _, f := range docs {
		if limit, what := MaxDocument, verdict.MsgLimitDocument; bytes.HasPrefix(f.Data, []byte(receipt.EntrantsHead)) {
			limit, what = MaxEntrants, verdict.MsgLimitEntrants
			if f.size() > int64(limit) {
				out = append(out, Result{File: f.Name, Verdict: tooLarge(receipt.DocEntrants, promo.CheckEntrantList, f, limit, what)})
				continue
			}
		} else if f.size() > int64(limit) {
			out = append(out, Result{File: f.Name, Verdict: tooLarge("", verdict.CheckFormat, f, limit, what)})
			continue
		}
		switch kind := receipt.Detect(f.Data); kind {
		case receipt.DocLogKeys, receipt.DocKeyRecord:
			out = append(out, offered(kind, f, &a, anns))
		case receipt.DocEntrants:
			l, err := promo.ParseEntrantList(f.Data)
			if err != nil {
				v := verdict.New(receipt.DocEntrants, verdict.MsgSame, f.Name)
				v.Fail(promo.CheckEntrantList, verdict.MsgSame, receipt.Cause(err))
				out = append(out, Result{File: f.Name, Verdict: v})
				// A freeze receipt of the draw its second line names fails
				// entrant-list with it, as rngverify freeze --entrants does.
				if d, ok := promo.ListDraw(f.Data); ok && refusedList[d] == nil {
					why := verdict.M(verdict.MsgColon, f.Name, receipt.Cause(err))
					refusedList[d] = &why
				}
				continue
			}
			if first, ok := listFile[l.Draw]; ok {
				// Which list the verdicts hold to must not depend on the
				// order the files were dropped in.
				v := verdict.New(receipt.DocEntrants, verdict.MsgSame, f.Name)
				v.Fail(promo.CheckEntrantList, verdict.MsgWebListTwice, l.Draw, first, f.Name)
				out = append(out, Result{File: f.Name, Verdict: v})
				if twice[l.Draw] == "" {
					twice[l.Draw] = f.Name
				}
				continue
			}
			lists[l.Draw], listFile[l.Draw] = l, f.Name
		case receipt.DocReceipt, receipt.DocTranscript, receipt.DocCertificate, receipt.DocFreezeReceipt, receipt.DocAttestation, receipt.DocEntrantProof:
			checked = append(checked, f)
		default:
			v := verdict.New("", verdict.MsgSame, f.Name)
			v.Fail(verdict.CheckFormat, verdict.MsgNotTirageFile)
			out = append(out, Result{File: f.Name, Verdict: v})
		}
	}
	for _, d := range slices.Sorted(maps.Keys(twice)) {
		v := verdict.New(receipt.DocEntrants, verdict.MsgSame, listFile[d])
		v.Fail(promo.CheckEntrantList, verdict.MsgWebListTwice, d, listFile[d], twice[d])
		out = append(out, Result{File: listFile[d], Verdict: v})
		delete(lists, d)
		// A freeze receipt of the draw fails entrant-list with it: its
		// bailiff's checks were asked for, and none can run.
		if refusedList[d] == nil {
			why := verdict.M(verdict.MsgWebListTwice, d, listFile[d], twice[d])
			refusedList[d] = &why
		}
	}
	for _, f := range checked {
		var v *verdict.Verdict
		note, detail := "", (*verdict.Msg)(nil)
		var more []string
		switch receipt.Detect(f.Data) {
		case receipt.DocReceipt:
			v = receipt.VerifyReceipt(f.Data, a)
		case receipt.DocTranscript:
			v = receipt.VerifyTranscript(f.Data, a)
		case receipt.DocEntrantProof:
			v = receipt.VerifyEntrant(f.Data, a)
		case receipt.DocFreezeReceipt:
			draw := receipt.FreezeDraw(f.Data)
			list, why := lists[draw], refusedList[draw]
			if list != nil {
				why = nil
			}
			var notes []string
			v, notes = verifyFreeze(f.Data, list, why, inputs, a)
			if len(notes) > 0 {
				note, more = notes[0], notes[1:]
			}
		case receipt.DocAttestation:
			v = receipt.VerifyAttestation(f.Data, f.Name, receipt.AttestationInputs{Announcements: anns})
			switch {
			case !slices.ContainsFunc(anns, func(k *record.KeyAnnouncement) bool { return len(receipt.AttestationKeys(k)) > 0 }):
				note = NoteAnnouncementMissing
			case v.Find(receipt.CheckBuildKeys) != nil:
				note = NoteBuildFiles
			}
		default:
			v = receipt.VerifyCertificate(f.Data, lists, a)
			var err error
			if rules != nil {
				err = receipt.CertificateAgainst(v, f.Data, lists, promo.Anchors{Rules: rules.Data, Reserves: -1})
			}
			switch {
			case err != nil: // another operation's rules: v is without them
				m := receipt.Cause(err)
				note, detail = NoteRulesOtherOperation, &m
			case rules == nil && receipt.BeaconUnannounced(v):
				note = NoteRulesMissing
			}
		}
		if len(v.Parts) == 0 {
			out = append(out, Result{File: f.Name, Verdict: v, Note: note, NoteDetail: detail, MoreNotes: more})
			continue
		}
		// A GetReceipts reply: each receipt is shown as its own result
		// (its subject numbers it), as rngverify prints each verdict.
		for _, p := range v.Parts {
			out = append(out, Result{File: f.Name, Verdict: p})
		}
	}
	return out
}

// refusedRules is the verdict on a rules file that rngverify --rules would
// not read (larger than MaxRules) or that promo.ParseRules refuses,
// naming the file and each problem with its line; nil if it is a rules
// file.
func refusedRules(f File) *Result {
	v := verdict.New(docRules, verdict.MsgSame, f.Name)
	if f.size() > MaxRules {
		v.Fail(verdict.CheckFormat, verdict.MsgCLIReadRules, verdict.M(verdict.MsgFileTooLarge, f.Name, MaxRules>>20, verdict.M(verdict.MsgLimitRules)))
	} else if _, err := promo.ParseRules(f.Data); err != nil {
		v.Fail(verdict.CheckFormat, verdict.MsgColon, f.Name, receipt.Cause(err))
	} else {
		return nil
	}
	return &Result{File: f.Name, Verdict: v, Note: NoteRulesRefused}
}

// trust adds to a the keys of an anchor file, as rngverify's --log-key
// FILE (or --witness FILE, a file of witness keys): a key announcement record (JSON) must pass announce.Parse — every
// key proved possession — before its keys are pinned, its VRF keys
// trusted and which key each of its ids names known (Anchors.Announced),
// and it is added to anns, as rngverify attestation's
// --attestation-key; anything else must be a log key file. Nothing is
// added on error.
func trust(a *receipt.Anchors, anns *[]*record.KeyAnnouncement, b []byte) error {
	t := bytes.TrimSpace(b)
	if len(t) > 0 && t[0] == '{' {
		if k := receipt.Detect(t); k != "" && k != receipt.DocKeyRecord {
			return verdict.Errorf(verdict.MsgKeysNotAnnouncement)
		}
		ka, err := announce.Parse(t)
		if err != nil {
			return err
		}
		*anns = append(*anns, ka)
		keys, pins, ids := receipt.AnnouncedAnchors(ka)
		a.VRFKeys, a.Pins, a.Announced = append(a.VRFKeys, keys...), append(a.Pins, pins...), append(a.Announced, ids...)
		return nil
	}
	keys, err := checkpoint.ParseKeys(string(t))
	if err != nil {
		// A file of witnesses' cosignature/v1 keys, as rngverify
		// --witness FILE: every checkpoint must carry the cosignatures
		// of the quorum of them (VerifyQuorum; all by default).
		if ws, werr := checkpoint.ParseWitnesses(string(t)); werr == nil {
			all := slices.Clone(a.Witnesses)
			for _, w := range ws {
				if all, werr = checkpoint.AddWitness(all, w); werr != nil {
					return werr
				}
			}
			a.Witnesses = all
			return nil
		}
		return err
	}
	a.LogKeys = append(a.LogKeys, keys...)
	return nil
}

// offered is the verdict on a key file dropped among the documents: its
// keys, trusted only if the anchors already trust every one of them; a key
// announcement is also checked (announce.Parse) and named bad if it fails.
func offered(kind string, f File, a *receipt.Anchors, anns []*record.KeyAnnouncement) Result {
	v := verdict.New(kind, verdict.MsgSame, f.Name)
	// Log keys: given, or pinned by a bare fingerprint. A VRF key: given,
	// or pinned with its suite (receipt.Anchors.VRFTrusted).
	var logTrusted []string
	for _, p := range a.Pins {
		if s, fp, err := receipt.ParsePin(p); err == nil && s == "" {
			logTrusted = append(logTrusted, fp)
		}
	}
	for _, k := range a.LogKeys {
		logTrusted = append(logTrusted, k.Fingerprint())
	}
	// A key as the page shows it: its name and the pin that trusts it
	// (label), or for a VRF key of a suite this verifier does not know,
	// its bare fingerprint with the suite marked unknown — no pin trusts
	// it (receipt.ParsePin refuses SUITE:FP with that suite), as
	// rngverify --tofu says (verdict.MsgCLITOFUVRFSuite).
	type key struct {
		label   verdict.Msg
		trusted bool
	}
	plain := func(name, fp string) verdict.Msg { return verdict.M(verdict.MsgSame, name+" "+fp) }
	var keys []key
	if kind == receipt.DocKeyRecord {
		t := bytes.TrimSpace(f.Data)
		_, annErr := announce.Parse(t)
		if annErr != nil {
			v.Fail(verdict.CheckRecord, verdict.MsgSame, receipt.Cause(annErr))
		}
		r, _ := record.Parse(t)
		for _, k := range r.(*record.KeyAnnouncement).Keys {
			fp := record.Hex(record.Fingerprint(k.PublicKey))
			trusted := false
			if k.Use == announce.UseVRF {
				s, err := vrf.ParseSuite(k.Suite)
				if err != nil {
					keys = append(keys, key{verdict.M(verdict.MsgWebVRFSuiteUnknown, k.Use, fp, k.Suite), false})
					continue
				}
				if pk, err := vrf.ParsePublicKey(s, k.PublicKey); err == nil {
					bytesOK, suiteOK := a.VRFTrusted(pk)
					trusted = bytesOK && suiteOK
				}
				// Shown as the pin that trusts it, SUITE:FP (a bare
				// fingerprint would not fix its suite).
				keys = append(keys, key{plain(k.Use, string(s)+":"+fp), trusted})
				continue
			}
			// An attestation key is never a log key
			// (receipt.AnnouncedAnchors): it is trusted only as an
			// attestation key an anchor announcement announces, with its
			// suite and public key. Its own announcement proves only that
			// whoever made the file holds it.
			trusted = slices.Contains(logTrusted, fp)
			if k.Use == announce.UseAttestation {
				trusted = annErr == nil && slices.ContainsFunc(anns, func(ann *record.KeyAnnouncement) bool {
					return slices.ContainsFunc(receipt.AttestationKeys(ann), func(t record.Key) bool {
						return t.Suite == k.Suite && bytes.Equal(t.PublicKey, k.PublicKey)
					})
				})
			}
			keys = append(keys, key{plain(k.Use+" "+k.Suite, fp), trusted})
		}
	} else {
		lk, _ := checkpoint.ParseKeys(string(f.Data))
		for _, k := range lk {
			keys = append(keys, key{plain(k.Algorithm, k.Fingerprint()), slices.Contains(logTrusted, k.Fingerprint())})
		}
	}
	var all, untrusted verdict.Series
	for _, k := range keys {
		all = append(all, k.label)
		if !k.trusted {
			untrusted = append(untrusted, k.label)
		}
	}
	if len(keys) > 0 && len(untrusted) == 0 {
		v.Pass(verdict.CheckLogKey, verdict.MsgSame, all)
		return Result{File: f.Name, Verdict: v}
	}
	v.Fail(verdict.CheckLogKey, verdict.MsgNoTrustedLogKey, verdict.M(verdict.MsgHintLogKeys, untrusted))
	return Result{File: f.Name, Verdict: v, Note: NoteKeyNotTrusted}
}

// pageCheck is one check as the page shows it.
type pageCheck struct {
	Name        string `json:"name"`
	Status      string `json:"status"`
	Title       string `json:"title"`
	Explanation string `json:"explanation"`
	Detail      string `json:"detail,omitempty"`
}

type pageResult struct {
	File    string         `json:"file"`
	Kind    string         `json:"kind"`
	Subject string         `json:"subject"`
	Verdict string         `json:"verdict"`
	Summary string         `json:"summary"`
	Checks  []pageCheck    `json:"checks"`
	Facts   []verdict.Fact `json:"facts,omitempty"` // localized name and value only
	Note    string         `json:"note,omitempty"`  // Result.Note, which the page words
	// NoteDetail is Result.NoteDetail in the page's language.
	NoteDetail string   `json:"note_detail,omitempty"`
	MoreNotes  []string `json:"more_notes,omitempty"` // Result.MoreNotes
}

// Render encodes results for the page in lang ("fr" or "en").
func Render(results []Result, lang string) []byte {
	out := make([]pageResult, 0, len(results))
	for _, r := range results {
		v := r.Verdict
		p := pageResult{File: r.File, Kind: v.Kind, Subject: v.SubjectText(lang), Verdict: string(v.Status()), Summary: v.Summary(lang), Note: r.Note, MoreNotes: r.MoreNotes}
		if r.NoteDetail != nil {
			p.NoteDetail = r.NoteDetail.Text(lang)
		}
		for _, c := range v.Checks {
			p.Checks = append(p.Checks, pageCheck{Name: c.Name, Status: string(c.Status), Title: verdict.Title(c.Name, lang),
				Explanation: verdict.Explanation(c.Name, lang), Detail: c.Reason(lang)})
		}
		for _, f := range v.Facts {
			name, value := f.Text(lang)
			p.Facts = append(p.Facts, verdict.Fact{Name: name, Value: value})
		}
		out = append(out, p)
	}
	b, err := json.Marshal(out)
	if err != nil {
		panic("web: " + err.Error())
	}
	return b
}
