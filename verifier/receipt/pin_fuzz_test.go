package receipt_test

import (
	"strings"
	"testing"

	"tirage.fr/tirage/verifier/receipt"
	"tirage.fr/tirage/verifier/vrf"
)

// FuzzParsePin: a pin (a flag, a line of a pins file, the web page's
// field) that parses is its fingerprint, 64 hex digits, alone or after
// "SHA256:" (suite "") or a suite's name (that suite); the fingerprint
// comes back in lower case, and the pin written again from what was read
// reads the same.
func FuzzParsePin(f *testing.F) {
	fp := strings.Repeat("0123456789abcdef", 4)
	for _, p := range []string{fp, strings.ToUpper(fp), "SHA256:" + fp, "sha256:" + fp, " " + fp + "\n",
		string(vrf.SuiteP256SSWU) + ":" + fp, string(vrf.SuiteRSAFDH256) + ":" + fp, "ecvrf-p256-sha256-sswu:" + fp,
		"SHA256:" + fp[:63], fp + "0", ":" + fp, "SHA256:SHA256:" + fp} {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, p string) {
		suite, got, err := receipt.ParsePin(p)
		if err != nil {
			if suite != "" || got != "" {
				t.Fatalf("%q refused (%v) with %q %q", p, err, suite, got)
			}
			return
		}
		if len(got) != 64 || strings.Trim(got, "0123456789abcdef") != "" {
			t.Fatalf("%q: fingerprint %q", p, got)
		}
		pin := strings.TrimSpace(p)
		name, rest, cut := strings.Cut(pin, ":")
		switch {
		case !cut:
			rest = pin
			if suite != "" {
				t.Fatalf("%q: suite %q", p, suite)
			}
		case strings.EqualFold(name, "SHA256"):
			if suite != "" {
				t.Fatalf("%q: suite %q", p, suite)
			}
		case name != string(suite):
			t.Fatalf("%q: suite %q", p, suite)
		}
		if strings.ToLower(rest) != got {
			t.Fatalf("%q: fingerprint %q", p, got)
		}
		again := got
		if suite != "" {
			again = string(suite) + ":" + got
		}
		if s, g, err := receipt.ParsePin(again); err != nil || s != suite || g != got {
			t.Fatalf("%q read as %q %q, written %q, read again %q %q %v", p, suite, got, again, s, g, err)
		}
	})
}
