//go:build cgo

package ctl

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"tirage.fr/tirage/hsm/hsmtest"
	"tirage.fr/tirage/internal/peertest"
	"tirage.fr/tirage/verifier/promo"
	"tirage.fr/tirage/verifier/vrf"
)

// TestPromoPKCS11 runs a freeze and a ceremony with the keys on a SoftHSM2
// token (RSA-FDH-VRF, Ed25519 log key) and checks the certificate.
func TestPromoPKCS11(t *testing.T) {
	peertest.Device(t, "/dev/hwrng") // the default entropy source
	fixClock(t)
	oldNow := promoNow
	promoNow = func() time.Time { return time.Date(2016, 6, 21, 8, 30, 0, 0, time.UTC) } // after the period, on the draw date
	t.Cleanup(func() { promoNow = oldNow })
	sh := hsmtest.NewSoftHSM(t)
	tok := sh.InitToken(t, "tirage-promo")
	dir := t.TempDir()
	pinFile := filepath.Join(dir, "pin")
	os.WriteFile(pinFile, append(tok.PIN, '\n'), 0o600)
	tokenFlags := []string{"--backend", "pkcs11", "--allow-software", "--module", sh.Module, "--token-label", tok.Label, "--pin-file", pinFile}
	k := &keysRun{t: t}
	if code, out, errs := k.run("", append([]string{"init", "--announcement", filepath.Join(dir, "ann.json")}, tokenFlags...)...); code != ExitOK {
		t.Fatalf("keys init: %s%s", out, errs)
	}
	stakes, out := filepath.Join(dir, "stakes.csv"), filepath.Join(dir, "out")
	if code, _, errs := promoRun("", "gen", "--rules", exampleRules, "--rows", "3000", "--out", stakes); code != ExitOK {
		t.Fatal(errs)
	}
	common := append([]string{"--data", filepath.Join(dir, "data"), "--origin", "tirage.test/hsm"}, tokenFlags...)
	if code, o, errs := promoRun("", append([]string{"freeze", "--rules", exampleRules, "--stakes", stakes, "--out", out, "--quiet", "--draw", "3"}, common...)...); code != ExitOK {
		t.Fatalf("freeze: %s%s", o, errs)
	}
	if code, o, errs := promoRun("1 2 3 4 5 6 6 5 4 3 2 1 1 2 3 4 5 6 6 5 4 3 2 1 1\n", append([]string{"draw", "--dice", "--draw", "bonus-crescendo/3", "--out", out}, common...)...); code != ExitOK {
		t.Fatalf("draw: %s%s", o, errs)
	}
	cert, _ := os.ReadFile(filepath.Join(out, "bonus-crescendo-3-certificate.json"))
	list, _ := os.ReadFile(filepath.Join(out, "bonus-crescendo-3-entrants.txt"))
	l, err := promo.ParseEntrantList(list)
	if err != nil {
		t.Fatal(err)
	}
	v, err := promo.Verify(cert, l, promo.Anchors{Reserves: 3})
	if err != nil || !v.KeyLogged || !strings.Contains(string(cert), string(vrf.SuiteRSAFDH256)) {
		t.Fatalf("certificate: %v, key logged %v", err, v != nil && v.KeyLogged)
	}
	hsmtest.AssertNoSecrets(t, k.all.Bytes(), tok.PIN, tok.SOPIN)
}
