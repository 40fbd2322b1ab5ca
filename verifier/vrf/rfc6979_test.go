package vrf

import (
	"bytes"
	"testing"
)

// TestNonceRFC6979 checks the nonce generator against RFC 6979 itself:
// Appendix A.2.5 (ECDSA, P-256) with SHA-256 gives k for the messages
// "sample" and "test" under the key x below, and ECVRF_nonce_generation_RFC6979
// is that algorithm with m = h_string.
func TestNonceRFC6979(t *testing.T) {
	var x [32]byte
	copy(x[:], unhex(t, "c9afa9d845ba75166b5c215767b1d6934e50c3db36e89b127b8a622b120f6721"))
	for _, c := range []struct{ m, k string }{
		{"sample", "a6e3c57dd01abe90086538398355dd4c3b17aa873382b0f24d6129493d8aad60"},
		{"test", "d16b6ae827f17175e040871a1c7ec3500192c4c92677336ec2537acaee0008e0"},
	} {
		k := nonceRFC6979(&x, []byte(c.m))
		if got := k.Bytes(scalarQ); !bytes.Equal(got, unhex(t, c.k)) {
			t.Errorf("m = %q: k = %x, want %s", c.m, got, c.k)
		}
	}
}
