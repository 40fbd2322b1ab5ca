package cli

import (
	"strings"
	"testing"
)

// TestCertificateShowsShare: the bailiff's share bound into α is shown by
// rngverify certificate, quoted, so that the bailiff can compare it with the
// one typed at the ceremony without trusting the appliance's procès-verbal
// (a ceremony re-run behind the bailiff's back, or an invisible character
// added to the share, passes every other check).
func TestCertificateShowsShare(t *testing.T) {
	_, ann := certKeys(t)
	for _, c := range []struct{ lang, want string }{
		{"en", `bailiff's share: "text:Maître Dupont, huissier, 21 juin 2016"`},
		{"fr", `contribution de l'huissier : "text:Maître Dupont, huissier, 21 juin 2016"`},
	} {
		code, out, errs := runCLI("certificate", certFile, "--log-key", ann, "--vrf-key", ann, "--lang", c.lang)
		if code != ExitOK || !strings.Contains(out, c.want) {
			t.Errorf("--lang %s: exit %d, want a line %q\n%s%s", c.lang, code, c.want, out, errs)
		}
	}
}
