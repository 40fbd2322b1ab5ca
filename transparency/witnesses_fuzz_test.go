package transparency_test

import (
	"regexp"
	"strings"
	"testing"

	"tirage.fr/tirage/transparency"
	"tirage.fr/tirage/transparency/witness"
)

// FuzzWitnessPolicySecrets: a witness line whose URL holds a password and
// a query value (each a token of 6 or more letters and digits that
// appears nowhere else in the line) shows neither, whatever the rest of
// the line: not in ParseWitnessPolicy's error, the group's endpoints
// (which tessera's and http.Client's messages quote) nor the URLs shown.
func FuzzWitnessPolicySecrets(f *testing.F) {
	_, vkey, err := witness.GenerateKey("w.test/witness")
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range [][4]string{
		{"https://", "192.0.2.1/w", "s3cretPW", "t0kenQV"},
		{"http://", "[2001:db8::1]:8443/", "s3cretPW", "t0kenQV"},
		{"ftp://", "192.0.2.1/w", "s3cretPW", "t0kenQV"},
		{"https://", "192.0.2.1:port/w", "s3cretPW", "t0kenQV"},
		{"https://", "192.0.2.1/w x", "s3cretPW", "t0kenQV"},
		{"", "192.0.2.1/w", "s3cretPW", "t0kenQV"},
		{"https://", "192.0.2.1/w#c", "s3cretPW", "t0kenQV"},
		{"https://", "192.0.2.1/%zz", "s3cretPW", "t0kenQV"},
		{"https://", "h/w?a=1&b", "s3cretPW", "t0kenQV"},
	} {
		f.Add(s[0], s[1], s[2], s[3])
	}
	f.Fuzz(func(t *testing.T, scheme, rest, password, value string) {
		for _, pair := range []string{"k=" + value, value + "=="} { // a key's value; a bare token in base64
			fuzzWitnessSecrets(t, vkey, scheme, rest, password, value, pair)
		}
	})
}

// fuzzWitnessSecrets is one case of FuzzWitnessPolicySecrets: the query
// pair holds value.
func fuzzWitnessSecrets(t *testing.T, vkey, scheme, rest, password, value, pair string) {
	t.Helper()
	line := "witness w " + vkey + " " + scheme + "user:" + password + "@" + rest + "&" + pair
	if !strings.Contains(rest, "?") {
		line = "witness w " + vkey + " " + scheme + "user:" + password + "@" + rest + "?" + pair
	}
	if !token.MatchString(password) || !token.MatchString(value) || strings.Count(line, password) != 1 || strings.Count(line, value) != 1 ||
		strings.ContainsAny(scheme+rest, "\n#") || strings.Contains(password, value) || strings.Contains(value, password) {
		return
	}
	hides := func(s string) bool { return !strings.Contains(s, password) && !strings.Contains(s, value) }
	g, urls, err := transparency.ParseWitnessPolicy([]byte(line + "\nquorum w\n"))
	if err != nil {
		if !hides(err.Error()) {
			t.Fatalf("%q: %v", line, err)
		}
		return
	}
	for e := range g.Endpoints() {
		if !hides(e) {
			t.Fatalf("%q: endpoint %q", line, e)
		}
	}
	for e, w := range urls {
		if !hides(e) || !hides(w.Shown) || !w.HasCredentials() {
			t.Fatalf("%q: %q shown as %q", line, e, w.Shown)
		}
	}
}

// token is a secret of FuzzWitnessPolicySecrets: 6 letters and digits or more.
var token = regexp.MustCompile(`^[A-Za-z0-9]{6,}$`)
