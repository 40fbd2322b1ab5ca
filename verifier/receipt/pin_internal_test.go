package receipt

import (
	"crypto/rand"
	"testing"

	"tirage.fr/tirage/verifier/record"
	"tirage.fr/tirage/verifier/vrf"
)

// TestVRFTrusted: which anchors trust a VRF key's bytes, and which its
// suite too. A P-256 key's bare fingerprint fixes its bytes only (it
// proves under ECVRF-P256-SHA256-SSWU and -TAI); an RSA key's fixes its
// suite, RSA-FDH-VRF-SHA256 being its only one.
func TestVRFTrusted(t *testing.T) {
	ec, err := vrf.GenerateKey(vrf.SuiteP256SSWU, rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	sswu := ec.Public()
	tai, err := vrf.ParsePublicKey(vrf.SuiteP256TAI, sswu.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	rsaKey, err := vrf.GenerateRSAKey(2048, rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	rsa := rsaKey.Public()
	fp := func(pk *vrf.PublicKey) string { return record.Hex(record.Fingerprint(pk.Bytes())) }
	for _, c := range []struct {
		name           string
		a              Anchors
		pk             *vrf.PublicKey
		trusted, known bool
	}{
		{"nothing", Anchors{}, sswu, false, false},
		{"given", Anchors{VRFKeys: []*vrf.PublicKey{sswu}}, sswu, true, true},
		{"given, other suite", Anchors{VRFKeys: []*vrf.PublicKey{sswu}}, tai, false, false},
		{"announced", Anchors{Announced: []AnnouncedKey{{ID: "vrf-1", Key: sswu}}}, sswu, true, true},
		{"announced, other suite", Anchors{Announced: []AnnouncedKey{{ID: "vrf-1", Key: sswu}}}, tai, false, false},
		{"suite pin", Anchors{Pins: []string{VRFPin(sswu)}}, sswu, true, true},
		{"suite pin, upper-case hex", Anchors{Pins: []string{string(vrf.SuiteP256SSWU) + ":" + upper(fp(sswu))}}, sswu, true, true},
		{"suite pin, other suite", Anchors{Pins: []string{VRFPin(sswu)}}, tai, false, false},
		{"suite pin and bare pin, other suite", Anchors{Pins: []string{VRFPin(sswu), fp(sswu)}}, tai, false, false},
		{"bare pin, EC", Anchors{Pins: []string{fp(sswu)}}, sswu, true, false},
		{"bare pin, EC, TAI", Anchors{Pins: []string{fp(sswu)}}, tai, true, false},
		{"bare pin, RSA", Anchors{Pins: []string{fp(rsa)}}, rsa, true, true},
		{"SHA256: pin, EC (a bare pin)", Anchors{Pins: []string{"SHA256:" + fp(sswu)}}, sswu, true, false},
		{"sha256: pin and suite pin, other suite", Anchors{Pins: []string{VRFPin(sswu), "sha256:" + fp(sswu)}}, tai, false, false},
		{"SHA256: pin, RSA", Anchors{Pins: []string{"SHA256:" + fp(rsa)}}, rsa, true, true},
		{"suite pin, RSA", Anchors{Pins: []string{VRFPin(rsa)}}, rsa, true, true},
		{"bad pin", Anchors{Pins: []string{"zz:" + fp(sswu)}}, sswu, false, false},
	} {
		trusted, known := c.a.VRFTrusted(c.pk)
		if trusted != c.trusted || known != c.known {
			t.Errorf("%s: trusted %v, suite known %v; want %v, %v", c.name, trusted, known, c.trusted, c.known)
		}
	}
	// A suite pin is a VRF key's, never a log key's.
	a := Anchors{Pins: []string{string(vrf.SuiteP256SSWU) + ":" + fp(sswu)}}
	if a.pinned(fp(sswu)) {
		t.Error("a suite pin pins a log key")
	}
	if a := (Anchors{Pins: []string{fp(sswu)}}); !a.pinned(fp(sswu)) {
		t.Error("a bare pin does not pin a log key")
	}
	// The fingerprint as rngctl keys show prints it pins a log key as a
	// bare one does.
	if a := (Anchors{Pins: []string{"SHA256:" + upper(fp(sswu))}}); !a.pinned(fp(sswu)) {
		t.Error("a SHA256: pin does not pin a log key")
	}
}

func upper(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'a' && c <= 'f' {
			b[i] = c - 'a' + 'A'
		}
	}
	return string(b)
}
