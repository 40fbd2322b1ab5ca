package cli

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"

	"tirage.fr/tirage/verifier/promo"
)

// TestCertificateRulesOfAnotherOperation: rngverify certificate --rules
// with the rules of another operation than the certificate's freeze is a
// certificate and a rules file that do not belong together: a usage error
// (exit 2, one line naming --rules and both operations, nothing on
// stdout, --json or not), as the page says it beside the verdict without
// rules (web.NoteRulesOtherOperation) — not a verdict on the certificate.
// Before, the certificate FAILED rules-hash, giving only the two hashes.
// The rules of its own operation with another hash still fail rules-hash,
// saying both readings: the operator froze other rules than this file, or
// this copy is not the one it froze.
func TestCertificateRulesOfAnotherOperation(t *testing.T) {
	cert, rules, trust := beaconCertificate(t, 0, "", nil)
	frozen, err := os.ReadFile(rules)
	if err != nil {
		t.Fatal(err)
	}
	other := write(t, t.TempDir(), "ete.yaml", bytes.Replace(frozen, []byte("\noperation: bonus-crescendo\n"), []byte("\noperation: bonus-ete\n"), 1))
	for _, c := range []struct {
		lang, want string
	}{
		{"en", "rngverify certificate: --rules " + other + ": the rules file given is for operation bonus-ete, this certificate for operation bonus-crescendo: they are not its rules, so it was not checked against them (rngverify certificate -h for usage)\n"},
		{"fr", "rngverify certificate : --rules " + other + " : le règlement fourni est celui de l'opération bonus-ete, ce certificat celui de l'opération bonus-crescendo : ce n'est pas son règlement, il n'a donc pas été vérifié contre lui (rngverify certificate -h --lang fr pour l'aide)\n"},
	} {
		for _, json := range []bool{false, true} {
			args := append([]string{"certificate", cert, "--rules", other, "--lang", c.lang}, trust...)
			if json {
				args = append(args, "--json")
			}
			code, out, errs := runCLI(args...)
			if code != ExitUsage || out != "" || errs != c.want {
				t.Errorf("--lang %s, --json %v: exit %d, want %d and\n%s\ngot:\n%s%s", c.lang, json, code, ExitUsage, c.want, out, errs)
			}
		}
	}
	// With --reserves too: the rules do not belong to the certificate,
	// whatever the count.
	if code, _, errs := runCLI(append([]string{"certificate", cert, "--rules", other, "--reserves", "2"}, trust...)...); code != ExitUsage || !strings.Contains(errs, "for operation bonus-ete") {
		t.Errorf("--rules of another operation, --reserves 2: exit %d\n%s", code, errs)
	}

	bailiff := append(bytes.Clone(frozen), "# the bailiff's copy\n"...)
	copied := write(t, t.TempDir(), "copy.yaml", bailiff)
	code, out, errs := runCLI(append([]string{"certificate", cert, "--rules", copied}, trust...)...)
	want := fmt.Sprintf("the rules file given is for operation bonus-crescendo but hashes to %x, and the freeze record commits to rules %x: either the operator froze other rules than this file, or this copy is not the one it froze",
		promo.RulesHash(bailiff), promo.RulesHash(frozen))
	if code != ExitFail || !strings.Contains(out, "[FAIL] rules-hash") || !strings.Contains(out, want) || strings.Contains(out+errs, "MISBEHAVIOUR") ||
		!strings.HasPrefix(errs, "rngverify certificate: NOT VERIFIED, check rules-hash: ") {
		t.Errorf("another copy of the operation's rules: exit %d, want %d and %q\n%s%s", code, ExitFail, want, out, errs)
	}
	code, out, errs = runCLI(append([]string{"certificate", cert, "--rules", copied, "--lang", "fr"}, trust...)...)
	if code != ExitFail || !strings.Contains(out, "soit l'exploitant a gelé un autre règlement que ce fichier, soit cette copie n'est pas celle qu'il a gelée") {
		t.Errorf("another copy of the operation's rules, --lang fr: exit %d\n%s%s", code, out, errs)
	}
	frenchOK(t, "another copy of the rules", out+errs)
}
