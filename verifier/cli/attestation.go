package cli

import (
	"crypto/sha256"
	"errors"
	"flag"
	"io"
	"os"
	"strings"

	"tirage.fr/tirage/verifier/announce"
	"tirage.fr/tirage/verifier/checkpoint"
	"tirage.fr/tirage/verifier/receipt"
	"tirage.fr/tirage/verifier/record"
	"tirage.fr/tirage/verifier/verdict"
)

func init() {
	register("attestation", verdict.MsgCmdAttestation, runAttestation)
}

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
	for _, f := range []string{"log-key", "vrf-key", "state", "witness", "witness-quorum"} {
		if isSet(c.fs, f) {
			return c.usageErr(env, verdict.M(verdict.MsgAttestFlagNotHere, "--"+f))
		}
	}
	if len(annFiles) == 0 {
		return c.usageErr(env, verdict.M(verdict.MsgAttestNoKey))
	}
	var anns []*record.KeyAnnouncement
	for _, f := range annFiles {
		b, err := readFileMax(f, maxKeyFile, verdict.MsgLimitKeyFile)
		if err != nil {
			return c.usageErr(env, verdict.M(verdict.MsgCLIFlagErr, "--attestation-key", receipt.Cause(fileErr(err))))
		}
		if keys, err := checkpoint.ParseKeys(string(b)); !isAnnouncement(b) && err == nil {
			return c.usageErr(env, verdict.M(verdict.MsgAttestLogVKey, f, keys[0].Name))
		}
		ann, err := announce.Parse([]byte(strings.TrimSpace(string(b))))
		if err != nil {
			return c.usageErr(env, verdict.M(verdict.MsgCLIFlagFile, "--attestation-key", f, receipt.Cause(err)))
		}
		if len(receipt.AttestationKeys(ann)) == 0 {
			return c.usageErr(env, verdict.M(verdict.MsgAttestNoAttKey, f))
		}
		anns = append(anns, ann)
	}
	var configBytes []byte
	var binaryDigest *[32]byte
	if *config != "" {
		if configBytes, err = readFileMax(*config, maxRules, verdict.MsgLimitConfig); err != nil {
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
	if c.otherCommand(env, b, pos[0]) {
		return ExitUsage
	}
	if *binary != "" {
		d, err := hashFile(*binary)
		if err != nil {
			return c.usageErr(env, verdict.M(verdict.MsgCLIFlagErr, "--binary", receipt.Cause(fileErr(err))))
		}
		binaryDigest = &d
	}
	v := receipt.VerifyAttestation(b, pos[0], receipt.AttestationInputs{Announcements: anns, Pins: c.pins,
		Config: configBytes, ConfigName: *config, Binary: binaryDigest, BinaryName: *binary})
	return c.report(env, v, nil)
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
