package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tirage.fr/tirage/verifier/record"
)

// A freeze, proven the appliance's, names a draw (bonus-crescendo/9) that
// the rules file it commits to by their hash does not have. rngverify
// audit --rules calls it MISBEHAVIOUR (contradictions: MsgPromoRulesNoDraw);
// rngverify certificate --rules, given the same authenticated file for the
// same freeze, does too (it called it an ordinary FAIL at rules-hash): the
// two verdicts on one signed freeze agree.
func TestCertificateRulesNoDrawIsMisbehaviourAsInAudit(t *testing.T) {
	dir := t.TempDir()
	example, err := os.ReadFile("../../examples/bonus-crescendo.yaml")
	if err != nil {
		t.Fatal(err)
	}
	a := newAppliance(t, 74)
	cert, rulesFile, err := a.RuledCertificate(example, 0, "", nil, func(f *record.PromoFreeze) { f.Draw = "bonus-crescendo/9" })
	if err != nil {
		t.Fatal(err)
	}
	tiles := filepath.Join(dir, "tiles")
	writeTiles(t, tiles, a)
	write(t, tiles, "vkey", a.LogKeyFile())
	rules := write(t, dir, "rules.yaml", rulesFile)
	certPath := write(t, dir, "cert.json", cert)
	trust := []string{"--log-key", write(t, dir, "log.vkey", a.LogKeyFile()), "--pin", a.VRFPin()}

	code, out, errs := runCLI(append([]string{"certificate", certPath}, trust...)...)
	if code != ExitOK {
		t.Fatalf("without --rules the certificate should pass: exit %d\n%s%s", code, out, errs)
	}
	acode, aout, aerrs := runCLI(append([]string{"audit", "--dir", tiles, "--state", filepath.Join(dir, "s.json"), "--rules", rules, "--quiet"}, trust...)...)
	auditSays := strings.Contains(aerrs, "MISBEHAVIOUR PROVEN")
	code, out, errs = runCLI(append([]string{"certificate", certPath, "--rules", rules}, trust...)...)
	certSays := strings.Contains(errs, "MISBEHAVIOUR PROVEN")
	if auditSays != certSays {
		t.Errorf("one freeze, one authenticated rules file, two verdicts: audit --rules misbehaviour=%v (exit %d), certificate --rules misbehaviour=%v (exit %d)\naudit:\n%s%s\ncertificate:\n%s%s",
			auditSays, acode, certSays, code, aout, aerrs, out, errs)
	}
}
