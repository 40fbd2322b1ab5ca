package cli

import (
	"crypto/sha256"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"maps"
	"os"
	"slices"
	"strings"

	"tirage.fr/tirage/attestations"
	"tirage.fr/tirage/verifier/announce"
	"tirage.fr/tirage/verifier/receipt"
	"tirage.fr/tirage/verifier/record"
	"tirage.fr/tirage/verifier/verdict"
)

func init() {
	register("attestation", verdict.MsgCmdAttestation, runAttestation)
}

// The checks of rngverify attestation, after verdict's format and record.
const (
	checkAttEnvelope  = "envelope"              // the record embeds a DSSE envelope of an in-toto statement
	checkAttKey       = "attestation-key"       // the envelope names an announced attestation key (pinned, if pins are given)
	checkAttSignature = "attestation-signature" // its DSSE signature verifies under that key
	checkAttStatement = "statement"             // the payload is a canonical in-toto statement of a known type
	checkAttPredicate = "predicate"             // the statement says what the rules give (paytable) or is well formed (build)
	checkAttKeys      = "build-keys"            // the keys a build attests are the announced ones
	checkAttConfig    = "config-digest"         // --config's SHA-256 is the attested one
	checkAttBinary    = "binary-digest"         // --binary's SHA-256 is the attested subject's
)

// runAttestation is rngverify attestation FILE: a DSSE envelope, or an
// attestation log record embedding one, checked against the attestation
// keys of key announcements given with --attestation-key.
func runAttestation(env Env) int {
	c := newCommon("attestation")
	var annFiles multiFlag
	c.fs.Var(&annFiles, "attestation-key", "")
	config := c.fs.String("config", "", "")
	binary := c.fs.String("binary", "", "")
	pos, err := c.parse(env.Args)
	if errors.Is(err, flag.ErrHelp) {
		io.WriteString(env.Stderr, verdict.M(verdict.MsgUsageAttestation).Text(c.argLang)+verdict.M(verdict.MsgUsageExit).Text(c.argLang))
		return ExitOK
	}
	if err != nil {
		return c.usageErr(env, flagError(err))
	}
	if len(pos) != 1 {
		return c.usageErr(env, verdict.M(verdict.MsgCLIOneFile, len(pos)))
	}
	// The other commands' trust flags say nothing about attestation keys.
	for _, f := range []string{"log-key", "vrf-key", "state"} {
		if isSet(c.fs, f) {
			return c.usageErr(env, verdict.M(verdict.MsgAttestFlagNotHere, "--"+f))
		}
	}
	if len(annFiles) == 0 {
		return c.usageErr(env, verdict.M(verdict.MsgAttestNoKey))
	}
	var anns []*record.KeyAnnouncement
	keys := map[string][]record.Key{} // the attestation keys, by id (two announcements may reuse an id)
	for _, f := range annFiles {
		b, err := readFileMax(f, maxKeyFile, verdict.MsgLimitKeyFile)
		if err != nil {
			return c.usageErr(env, verdict.M(verdict.MsgCLIFlagErr, "--attestation-key", receipt.Cause(fileErr(err))))
		}
		ann, err := announce.Parse([]byte(strings.TrimSpace(string(b))))
		if err != nil {
			return c.usageErr(env, verdict.M(verdict.MsgCLIFlagFile, "--attestation-key", f, receipt.Cause(err)))
		}
		n := 0
		for _, k := range ann.Keys {
			if k.Use == announce.UseAttestation {
				keys[k.ID], n = append(keys[k.ID], k), n+1
			}
		}
		if n == 0 {
			return c.usageErr(env, verdict.M(verdict.MsgAttestNoAttKey, f))
		}
		anns = append(anns, ann)
	}
	var configBytes []byte
	var binaryDigest *[32]byte
	if *config != "" {
		if configBytes, err = readFileMax(*config, maxRules, verdict.MsgLimitDocument); err != nil {
			return c.usageErr(env, verdict.M(verdict.MsgCLIFlagErr, "--config", receipt.Cause(fileErr(err))))
		}
		configBytes = append([]byte{}, configBytes...) // non-nil when given, even empty
	}
	c.input = pos[0]
	b, err := readInput(env, pos[0])
	if err != nil {
		c.conclude(env, verdict.MsgCLICouldntRead, c.name, pos[0], receipt.Cause(fileErr(err)))
		return ExitUsage
	}
	if *binary != "" {
		d, err := hashFile(*binary)
		if err != nil {
			return c.usageErr(env, verdict.M(verdict.MsgCLIFlagErr, "--binary", receipt.Cause(fileErr(err))))
		}
		binaryDigest = &d
	}
	v := verifyAttestation(b, pos[0], anns, keys, c.pins, configBytes, binaryDigest, *config, *binary)
	return c.report(env, v, nil)
}

// verifyAttestation checks file (named name): its record if it is one, its
// envelope's signature by one of keys (from the announcements anns), its
// statement, and what the statement claims.
func verifyAttestation(file []byte, name string, anns []*record.KeyAnnouncement, keys map[string][]record.Key, pins []string, config []byte, binary *[32]byte, configName, binaryName string) *verdict.Verdict {
	v := verdict.New("attestation", verdict.MsgSubjectAttestation, name)
	// A record ("kind") or an envelope ("payloadType").
	var top map[string]json.RawMessage
	if err := json.Unmarshal(file, &top); err != nil {
		v.Fail(verdict.CheckFormat, verdict.MsgAttestNotAttestation, name, receipt.Cause(verdict.JSONError(err)))
		return v
	}
	envelope := file
	var rec *record.Attestation
	if _, ok := top["kind"]; ok {
		r, err := record.Parse(file)
		if err != nil {
			// A record whose digest is not its statement's is refused here.
			v.Fail(verdict.CheckRecord, verdict.MsgSame, receipt.Cause(err))
			return v
		}
		if rec, ok = r.(*record.Attestation); !ok {
			v.Fail(verdict.CheckFormat, verdict.MsgAttestRecordKind, name, verdict.Term(r.Kind()))
			return v
		}
		if len(rec.Statement) == 0 {
			v.Fail(verdict.CheckRecord, verdict.MsgAttestNoStatement, record.Hex(rec.Digest))
			return v
		}
		envelope = rec.Statement
	}
	env, err := attestations.ParseEnvelope(envelope)
	switch {
	case err != nil && rec == nil:
		v.Fail(verdict.CheckFormat, verdict.MsgAttestNotAttestation, name, receipt.Cause(err))
		return v
	case err != nil:
		v.Fail(checkAttEnvelope, verdict.MsgSame, receipt.Cause(err))
		return v
	}
	// The key: announced for attestations, and pinned if pins are given.
	id := attestations.KeyID(env)
	candidates, ok := keys[id]
	if !ok {
		ids := slices.Sorted(maps.Keys(keys))
		v.Fail(checkAttKey, verdict.MsgAttestKeyUnknown, id, strings.Join(ids, ", "))
		return v
	}
	if len(pins) > 0 {
		candidates = slices.DeleteFunc(slices.Clone(candidates), func(k record.Key) bool { return !pinned(pins, record.Hex(k.Fingerprint)) })
		if len(candidates) == 0 {
			v.Fail(checkAttKey, verdict.MsgAttestKeyNotPinned, id, record.Hex(keys[id][0].Fingerprint))
			return v
		}
	}
	v.Pass(checkAttKey, verdict.MsgAttestKeyOK, id, record.Hex(candidates[0].Fingerprint))
	// The signature, under the key of that id of any announcement given.
	var sigErr error
	for _, k := range candidates {
		if sigErr = attestations.VerifyEnvelope(env, k); sigErr == nil {
			v.Set(checkAttKey, verdict.StatusPass, verdict.MsgAttestKeyOK, id, record.Hex(k.Fingerprint))
			break
		}
	}
	if sigErr != nil {
		v.Fail(checkAttSignature, verdict.MsgSame, receipt.Cause(sigErr))
		return v
	}
	v.Pass(checkAttSignature, verdict.MsgAttestSigOK, id)
	// The statement: signed by the appliance, so from here on a false claim
	// is its own (misbehaviour); one this verifier cannot read is not.
	s, err := attestations.Parse(env.Payload)
	if err != nil {
		v.Fail(checkAttStatement, verdict.MsgSame, receipt.Cause(err))
		return v
	}
	v.Pass(checkAttStatement, verdict.MsgAttestStatementOK, s.Type(), s.Subject[0].Name)
	if rec != nil {
		// The record is not authenticated by this command (no inclusion
		// proof): a record that disagrees with the envelope proves nothing.
		if err := attestations.CheckRecord(rec, envelope, id, s); err != nil {
			v.Fail(verdict.CheckRecord, verdict.MsgSame, receipt.Cause(err))
		} else {
			v.Pass(verdict.CheckRecord, verdict.MsgAttestRecordOK, record.Hex(rec.Digest))
		}
	}
	if err := attestations.Verify(s); err != nil {
		var fe *attestations.FigureError
		if errors.As(err, &fe) {
			v.Misbehaviour(checkAttPredicate, verdict.MsgAttestFigure, fe.Field, fe.Attested, fe.Want)
		} else {
			v.Misbehaviour(checkAttPredicate, verdict.MsgSame, receipt.Cause(err))
		}
	} else {
		switch p := s.Predicate.(type) {
		case *attestations.Paytable:
			v.Pass(checkAttPredicate, verdict.MsgAttestPaytableOK, len(p.Tiers), len(p.Picks), len(p.Returns))
		case *attestations.Build:
			v.Pass(checkAttPredicate, verdict.MsgAttestBuildOK, p.Path, p.Main.Version, p.GoVersion, p.VCS.Revision)
		}
	}
	b, isBuild := s.Predicate.(*attestations.Build)
	switch {
	case !isBuild:
		if config != nil {
			v.Skip(checkAttConfig, verdict.MsgAttestNotBuild, s.Type())
		}
		if binary != nil {
			v.Skip(checkAttBinary, verdict.MsgAttestNotBuild, s.Type())
		}
	default:
		checkBuildKeys(v, b, anns)
		if config != nil {
			if err := attestations.CheckConfig(b, config); err != nil {
				d := sha256.Sum256(config)
				v.Fail(checkAttConfig, verdict.MsgAttestDigestDiffers, configName, record.Hex(d), b.ConfigSHA256)
			} else {
				v.Pass(checkAttConfig, verdict.MsgAttestDigestOK, configName, b.ConfigSHA256)
			}
		}
		if binary != nil {
			if d := *binary; d != s.Subject[0].SHA256 {
				v.Fail(checkAttBinary, verdict.MsgAttestDigestDiffers, binaryName, record.Hex(d), record.Hex(s.Subject[0].SHA256))
			} else {
				v.Pass(checkAttBinary, verdict.MsgAttestDigestOK, binaryName, record.Hex(d))
			}
		}
	}
	v.FactNamed(verdict.M(verdict.MsgAttestFactType), verdict.MsgSame, s.Type())
	v.FactNamed(verdict.M(verdict.MsgAttestFactSubject), verdict.MsgAttestSubjectValue, s.Subject[0].Name, record.Hex(s.Subject[0].SHA256))
	v.FactNamed(verdict.M(verdict.MsgAttestFactEnvelope), verdict.MsgSha256, record.Hex(sha256.Sum256(envelope)))
	return v
}

// checkBuildKeys checks the build's keys against the announcements given:
// each must be announced, with its use and fingerprint, in one of them (the
// appliance may have announced new keys since). The announcements are the
// user's, not the appliance's word: a difference fails, it proves nothing.
func checkBuildKeys(v *verdict.Verdict, b *attestations.Build, anns []*record.KeyAnnouncement) {
	var err error
	for _, ann := range anns {
		if err = attestations.CheckKeys(b, ann); err == nil {
			v.Pass(checkAttKeys, verdict.MsgAttestKeysOK, len(b.Keys))
			return
		}
	}
	v.Fail(checkAttKeys, verdict.MsgSame, receipt.Cause(err))
}

// pinned reports whether fp is among pins (bare or SHA256: fingerprints;
// a VRF key's suite pin never names an attestation key).
func pinned(pins []string, fp string) bool {
	for _, p := range pins {
		if suite, f, err := receipt.ParsePin(p); err == nil && suite == "" && f == fp {
			return true
		}
	}
	return false
}

// hashFile is the SHA-256 of the file at path, read as a stream (an
// executable is larger than any document rngverify keeps in memory).
func hashFile(path string) ([32]byte, error) {
	var d [32]byte
	f, err := os.Open(path)
	if err != nil {
		return d, err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return d, err
	}
	return [32]byte(h.Sum(nil)), nil
}
