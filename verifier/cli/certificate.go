package cli

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"reflect"
	"strings"

	"tirage.fr/tirage/verifier/checkpoint"
	"tirage.fr/tirage/verifier/promo"
	"tirage.fr/tirage/verifier/receipt"
	"tirage.fr/tirage/verifier/record"
	"tirage.fr/tirage/verifier/verdict"
	"tirage.fr/tirage/verifier/vrf"
)

func init() {
	register("certificate", verdict.MsgCmdCertificate, runCertificate)
}

// certificateFlags are the certificate command's own flags.
type certificateFlags struct {
	entrants, rules *string
	reserves        *int
	tofu            *bool
}

func runCertificate(env Env) int {
	c := newCommon("certificate")
	f := certificateFlags{
		entrants: c.fs.String("entrants", "", ""),
		rules:    c.fs.String("rules", "", ""),
		reserves: c.fs.Int("reserves", -1, ""),
		tofu:     c.fs.Bool("tofu", false, ""),
	}
	pos, err := c.parse(env.Args)
	if errors.Is(err, flag.ErrHelp) {
		return c.help(env, verdict.MsgUsageCertificate)
	}
	if err != nil {
		return c.usageErr(env, flagError(err))
	}
	switch {
	case len(pos) == 0:
		return c.usageErr(env, verdict.M(verdict.MsgCLIMissingCert))
	case len(pos) > 1:
		return c.usageErr(env, verdict.M(verdict.MsgCLIUnexpected, pos[1]))
	}
	if len(c.logKeys)+len(c.vrfKeys)+len(c.pins) == 0 && *c.state == "" && !*f.tofu {
		return c.usageErr(env, verdict.M(verdict.MsgCLINoAnchor))
	}
	// The operator's keys or the certificate's own (--tofu), not both:
	// --tofu would trust the certificate's keys alongside the ones given.
	if err := c.tofuWithKeys(*f.tofu, "pin", "log-key", "vrf-key"); err != nil {
		return c.usageErr(env, receipt.Cause(err))
	}
	// Unset, --reserves is -1 (promo.Anchors: not given); given, it is a
	// count.
	if isSet(c.fs, "reserves") && *f.reserves < 0 {
		return c.usageErr(env, verdict.M(verdict.MsgCLIFlagNegative, "--reserves", *f.reserves))
	}
	a, err := c.anchors()
	if err != nil {
		return c.usageErr(env, receipt.Cause(err))
	}
	anchors := promo.Anchors{Reserves: *f.reserves}
	if *f.rules != "" {
		if anchors.Rules, err = readFileMax(*f.rules, maxRules, verdict.MsgLimitRules); err != nil {
			return c.usageErr(env, verdict.M(verdict.MsgCLIReadRules, receipt.Cause(fileErr(err))))
		}
	}
	var list *promo.EntrantList
	if *f.entrants != "" {
		b, err := readFileHead(*f.entrants, maxEntrants, verdict.MsgLimitEntrants, receipt.EntrantsHead)
		if err != nil {
			return c.usageErr(env, verdict.M(verdict.MsgCLIReadEntrants, receipt.Cause(fileErr(err))))
		}
		if list, err = promo.ParseEntrantList(b); err != nil {
			v := verdict.New(receipt.DocCertificate, verdict.MsgSubjectCertificate)
			v.Fail(promo.CheckEntrantList, verdict.MsgColon, *f.entrants, receipt.Cause(err))
			return c.report(env, v, nil)
		}
	}
	c.input = pos[0]
	file, err := readInput(env, pos[0])
	if err != nil {
		return c.usageErr(env, verdict.M(verdict.MsgCLIReadCert, receipt.Cause(fileErr(err))))
	}
	if c.otherCommand(env, file, pos[0]) {
		return ExitUsage
	}
	var cert struct {
		Draw         string   `json:"draw"`
		LogKeys      []string `json:"log_keys"`
		VRFKeyID     string   `json:"vrf_key_id"`
		VRFSuite     string   `json:"vrf_suite"`
		VRFPublicKey string   `json:"vrf_public_key"`
	}
	if err := json.Unmarshal(file, &cert); err != nil || cert.Draw == "" {
		v := verdict.New(receipt.DocCertificate, verdict.MsgSame, pos[0])
		var te *json.UnmarshalTypeError
		switch {
		case err == nil:
			err = verdict.Errorf(verdict.MsgCertNoDraw)
		case errors.As(err, &te) && te.Field == "":
			// Not an object: named as game and receipt name theirs, not
			// by the anonymous struct read here.
			err = &json.UnmarshalTypeError{Value: te.Value, Type: reflect.TypeFor[promo.Certificate](), Offset: te.Offset}
		}
		v.Fail(verdict.CheckFormat, verdict.MsgNotCertificate, pos[0], receipt.Cause(verdict.JSONError(err)))
		return c.report(env, v, nil)
	}
	// The keys accepted on first use are printed once the certificate is
	// known to be readable (unreadable input is one line on stderr).
	var tofuOut strings.Builder
	if *f.tofu {
		a.Pins = append(a.Pins, tofu(&tofuOut, *c.lang, cert.LogKeys, cert.VRFKeyID, cert.VRFSuite, cert.VRFPublicKey)...)
	}
	var lists map[string]*promo.EntrantList
	if list != nil {
		lists = map[string]*promo.EntrantList{list.Draw: list}
	}
	v := receipt.VerifyCertificate(file, lists, a)
	if *f.tofu {
		v.Fact("trust", verdict.MsgTOFU)
	}
	if list != nil && list.Draw != cert.Draw {
		v.Set(promo.CheckEntrantRoot, verdict.StatusFail, verdict.MsgListOtherDraw, list.Draw, cert.Draw)
	}
	// The certificate is authenticated by a trusted key: check the frozen
	// rules and reserves against the ones given. Rules of another
	// operation are the user's inputs not belonging together, not a
	// verdict on the certificate: refused as a usage error, naming both.
	if err := receipt.CertificateAgainst(v, file, lists, anchors); err != nil {
		return c.usageErr(env, verdict.M(verdict.MsgColon, "--rules "+*f.rules, receipt.Cause(err)))
	}
	if unreadable(v) == nil {
		io.WriteString(env.Stderr, tofuOut.String())
	}
	return c.report(env, v, nil)
}

// tofu accepts a certificate's own keys (trust on first use, asked for
// with --tofu): it prints them on w as the pins that trust them (--pin FP
// for a log key, --pin SUITE:FP for the VRF key), to compare with the
// operator's published fingerprints and give to later runs, and returns
// those pins.
func tofu(w io.Writer, lang string, logKeys []string, vrfID, vrfSuite, vrfHex string) []string {
	var b strings.Builder
	var pins []string
	line := func(id verdict.MsgID, args ...any) { b.WriteString(verdict.M(id, args...).Text(lang) + "\n") }
	line(verdict.MsgCLITOFUCert)
	for _, t := range logKeys {
		k, err := checkpoint.ParseKey(t)
		if err != nil {
			continue
		}
		pins = append(pins, k.Fingerprint())
		line(verdict.MsgCLITOFULogKey, k.Name, k.Fingerprint())
	}
	if raw, err := hex.DecodeString(vrfHex); err == nil && len(raw) > 0 {
		fp := record.Hex(record.Fingerprint(raw))
		// Pinned with the suite the certificate names: accepting its key
		// accepts its suite too (the printed suite is compared with the
		// operator's as the fingerprint is). Printed as the pin to give
		// later runs, SUITE:FP.
		if s, err := vrf.ParseSuite(vrfSuite); err == nil {
			pin := string(s) + ":" + fp
			pins = append(pins, pin)
			line(verdict.MsgCLITOFUVRFKey, vrfID, pin)
		} else {
			line(verdict.MsgCLITOFUVRFSuite, vrfID, vrfSuite, fp)
		}
	}
	if len(pins) == 0 {
		line(verdict.MsgCLITOFUNone)
	}
	io.WriteString(w, b.String())
	return pins
}
