//go:build cgo

package pkcs11

import "testing"

// TestSoftwareTokenRule: a token is software when its slot's manufacturer,
// its manufacturer or its model, blank-padded as PKCS#11 gives them, begins
// with "SoftHSM"; nothing else (the slot's CKF_HW_SLOT flag included) makes
// a token software.
func TestSoftwareTokenRule(t *testing.T) {
	pad := func(s string, n int) string {
		for len(s) < n {
			s += " "
		}
		return s
	}
	for _, c := range []struct {
		name   string
		fields []string
		want   bool
	}{
		{"SoftHSM2", []string{pad("SoftHSM project", 32), pad("SoftHSM project", 32), pad("SoftHSM v2", 16)}, true},
		{"SoftHSM2, trimmed", []string{"SoftHSM project", "SoftHSM project", "SoftHSM v2"}, true},
		{"SoftHSM2 model only", []string{pad("p11-kit", 32), pad("p11-kit", 32), pad("SoftHSM v2", 16)}, true},
		{"SoftHSM 1", []string{pad("SoftHSM", 32), pad("SoftHSM", 32), pad("SoftHSM", 16)}, true},
		{"NUL-padded", []string{"SoftHSM project\x00\x00", "", ""}, true},
		{"network HSM", []string{pad("Acme Networks", 32), pad("Acme Networks", 32), pad("NetHSM 7", 16)}, false},
		{"smart card", []string{pad("OpenSC Project", 32), pad("Yubico", 32), pad("PKCS#15", 16)}, false},
		{"empty", []string{"", "", ""}, false},
		{"name inside", []string{pad("Not SoftHSM", 32), "", ""}, false},
	} {
		if got := softwareToken(c.fields...); got != c.want {
			t.Errorf("%s: softwareToken(%q) = %v, want %v", c.name, c.fields, got, c.want)
		}
	}
}
