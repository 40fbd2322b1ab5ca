package promo

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"tirage.fr/tirage/verifier/promo"
)

// Real drand quicknet rounds (verifier/beacon/testdata/rounds.json names
// their sources): round 123 and, as a wrong value, round 657413.
const (
	quicknetRound123 = "b75c69d0b72a5d906e854e808ba7e2accb1542ac355ae486d591aa9d43765482e26cd02df835d3546d23c4b13e0dfc92"
	quicknetRound657 = "b713718a38ae728dfd477991af2822e08d2f305e47718cef9f7848ce4050e7be41076862b98fad56e91a6b85b89cd97b"
)

// beaconRules is the example rules file with draw 1 announcing quicknet round 123.
func beaconRules(t testing.TB) (*promo.Rules, []byte) {
	t.Helper()
	_, data := exampleRules(t)
	data = bytes.Replace(data, []byte("    reserves: 3\n"), []byte("    reserves: 3\n    beacon: {source: \"drand quicknet\", chain: quicknet, round: 123}\n"), 1)
	r, err := promo.ParseRules(data)
	if err != nil {
		t.Fatal(err)
	}
	return r, data
}

// A draw announcing a drand round: the freeze is refused without the
// bailiff's share commitment (nothing frozen), and logs drand:<quicknet>:123
// and the commitment, shown on its receipt; a value that is not that
// round's signature, and a share that does not open the commitment, are
// refused before anything is locked (the ceremony can then run); the real
// value and the committed share are bound, certified and shown on the
// procès-verbal with the round's randomness.
func TestDrawBeacon(t *testing.T) {
	ctx := context.Background()
	r, rulesFile := beaconRules(t)
	tmp := t.TempDir()
	c := &clock{t: time.Date(2016, 6, 20, 16, 0, 0, 0, time.UTC)}
	keys := testKeys(t, filepath.Join(tmp, "keys"))
	a, lg := openTestAppliance(t, filepath.Join(tmp, "data"), keys, testEntropy(t), c)
	defer lg.Close()
	req := FreezeRequest{Rules: r, RulesFile: rulesFile, DrawIndex: 0, Entrants: []string{"a1", "a2", "a3", "a4", "a5", "a6"}}
	dir, _ := a.drawDir("bonus-crescendo/1")
	if _, err := a.Freeze(ctx, req); !errors.Is(err, promo.ErrNoShareCommitment) {
		t.Fatalf("a freeze without the share commitment: %v, want %v", err, promo.ErrNoShareCommitment)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a refused freeze left its draw directory: %v", err)
	}
	if lp, err := a.logged(ctx, "bonus-crescendo/1"); err != nil || len(lp.freezes) != 0 {
		t.Fatalf("a refused freeze was logged: %+v, %v", lp, err)
	}
	req.ShareCommitment = promo.ShareCommitment("bonus-crescendo/1", "text:12345678")
	fz, err := a.Freeze(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if fz.Record.Beacon != "drand:52db9ba70e0cc0f6eaf7803dd07447a1f5477735fd3f661792ba94600c84e971:123" || fz.Record.ShareCommitment != req.ShareCommitment {
		t.Fatalf("freeze beacon %q, share commitment %x", fz.Record.Beacon, fz.Record.ShareCommitment)
	}
	rc, err := a.Receipt(ctx, "bonus-crescendo/1")
	if err != nil {
		t.Fatal(err)
	}
	if rc.ShareCommitment != hex.EncodeToString(req.ShareCommitment[:]) {
		t.Fatalf("the receipt shows share commitment %q", rc.ShareCommitment)
	}
	if _, err := promo.VerifyFreezeReceipt(ReceiptJSON(rc), nil, promo.Anchors{LogKeys: lg.VerifierKeys()}); err != nil {
		t.Fatalf("the receipt: %v", err)
	}
	var rpdf bytes.Buffer
	if err := WriteReceiptPDF(&rpdf, rc); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(pageText(t, rpdf.Bytes()), []byte(rc.ShareCommitment)) {
		t.Error("the receipt's PDF does not show the share commitment")
	}
	c.t = c.t.Add(17 * time.Hour)
	good, _ := hex.DecodeString(quicknetRound123)
	wrong, _ := hex.DecodeString(quicknetRound657)
	flipped := bytes.Clone(good)
	flipped[20] ^= 0x10
	for name, v := range map[string][]byte{"missing": nil, "another round's": wrong, "flipped": flipped} {
		_, err := a.Draw(ctx, DrawRequest{Draw: "bonus-crescendo/1", Share: "text:12345678", BeaconValue: v})
		if err == nil || !strings.Contains(err.Error(), "beacon_value") {
			t.Fatalf("%s value: %v", name, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "draw.lock")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a refused beacon value left draw.lock: %v", err)
	}
	for _, share := range []string{"text:12345679", "text:another share"} {
		_, err := a.Draw(ctx, DrawRequest{Draw: "bonus-crescendo/1", Share: share, BeaconValue: good})
		if err == nil || !strings.Contains(err.Error(), "does not open the commitment the freeze holds") {
			t.Fatalf("share %q: %v", share, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "draw.lock")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a share refused left draw.lock: %v", err)
	}
	d, err := a.Draw(ctx, DrawRequest{Draw: "bonus-crescendo/1", Share: "text:12345678", BeaconValue: good})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(d.Record.BeaconValue, good) {
		t.Fatal("the draw record does not hold the round's signature")
	}
	cert, err := a.Certify(ctx, "bonus-crescendo/1")
	if err != nil {
		t.Fatal(err)
	}
	b := cert.Verified.Beacon
	if !b.Verified() || b.Round != 123 || b.Chain.Name != "quicknet" {
		t.Fatalf("certified beacon %+v", b)
	}
	var pv bytes.Buffer
	if err := WriteProcesVerbalPDF(&pv, cert); err != nil {
		t.Fatal(err)
	}
	if _, err := promo.Verify(cert.JSON, nil, promo.Anchors{LogKeys: lg.VerifierKeys(), Rules: rulesFile, Reserves: 3}); err != nil {
		t.Fatal(err)
	}
}
