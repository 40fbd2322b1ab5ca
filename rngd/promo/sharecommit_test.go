package promo

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"tirage.fr/tirage/verifier/beacon"
	"tirage.fr/tirage/verifier/promo"
)

// A freeze announcing a beacon without the bailiff's share commitment,
// timed from promo.ShareCommitmentsRequired on (an older rngctl's, or
// written by hand into a draw directory whose append "did not complete"),
// is not re-sent: Freeze refuses it before it reaches the log, which stays
// as it was.
func TestResumeRefusesUncommittedFreeze(t *testing.T) {
	ctx := context.Background()
	frozen := promo.ShareCommitmentsRequired.Add(24 * time.Hour)
	round := uint64(1)
	for !beacon.Quicknet.RoundTime(round).After(frozen.Add(time.Hour)) {
		round += 1 << 20
	}
	_, data := exampleRules(t)
	data = bytes.Replace(data, []byte("    reserves: 3\n"), []byte(fmt.Sprintf("    reserves: 3\n    beacon: {source: \"drand quicknet\", chain: quicknet, round: %d}\n", round)), 1)
	// Frozen years after the example's draws: a latest date that allows it.
	data = bytes.Replace(data, []byte("    latest_date: 2016-07-21\n"), []byte("    latest_date: 2099-12-31\n"), 1)
	r, err := promo.ParseRules(data)
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	keys := testKeys(t, filepath.Join(tmp, "keys"))
	ent := testEntropy(t)
	req := FreezeRequest{Rules: r, RulesFile: data, DrawIndex: 0, Entrants: []string{"a1", "a2", "a3", "a4", "a5", "a6"},
		ShareCommitment: promo.ShareCommitment("bonus-crescendo/1", "text:Maître Dupont, huissier")}
	// A freeze made with the commitment on one appliance…
	a1, lg1 := openTestAppliance(t, filepath.Join(tmp, "one"), keys, ent, &clock{t: frozen})
	defer lg1.Close()
	fz, err := a1.Freeze(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	// …is the draw directory of another, never sent, its commitment
	// taken out.
	a2, lg2 := openTestAppliance(t, filepath.Join(tmp, "two"), keys, ent, &clock{t: frozen.Add(time.Minute)})
	defer lg2.Close()
	src, _ := a1.drawDir("bonus-crescendo/1")
	dst, _ := a2.drawDir("bonus-crescendo/1")
	if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("cp", "-a", src, dst).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v %s", err, out)
	}
	os.Remove(filepath.Join(dst, "freeze.idx"))
	member := `"share_commitment":"` + hex.EncodeToString(fz.Record.ShareCommitment[:]) + `",`
	leaf := bytes.Replace(fz.Leaf, []byte(member), nil, 1)
	if bytes.Equal(leaf, fz.Leaf) {
		t.Fatalf("no share commitment in %s", fz.Leaf)
	}
	if err := os.WriteFile(filepath.Join(dst, "freeze.leaf"), leaf, 0o644); err != nil {
		t.Fatal(err)
	}
	appends := lg2.Stats().Appends
	_, err = a2.Freeze(ctx, req)
	if err == nil || !strings.Contains(err.Error(), "freeze.leaf is not re-sent") || !strings.Contains(err.Error(), "holds no commitment to the bailiff's share") {
		t.Fatalf("re-send of a freeze without its share commitment: %v", err)
	}
	if n := lg2.Stats().Appends; n != appends {
		t.Fatalf("%d appends after the refused re-send, want %d", n, appends)
	}

	// Logged all the same, by another program: its receipt does not
	// verify: the bailiff who gave a commitment learns, before the
	// ceremony, that it was left out (the ceremony refuses it too:
	// verifier/promo's TestShareCommitmentRequired).
	i, err := lg2.Append(ctx, leaf)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dst, "freeze.idx"), []byte(strconv.FormatUint(i, 10)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := lg2.AwaitCheckpoint(ctx, i+1); err != nil {
		t.Fatal(err)
	}
	a3, err := New(a2.cfg)
	if err != nil {
		t.Fatal(err)
	}
	rc, err := a3.Receipt(ctx, "bonus-crescendo/1")
	if err != nil {
		t.Fatal(err)
	}
	_, err = promo.VerifyFreezeReceipt(ReceiptJSON(rc), nil, promo.Anchors{LogKeys: lg2.VerifierKeys()})
	var ce *promo.CheckError
	if !errors.As(err, &ce) || ce.Check != promo.CheckShareCommitment || !strings.Contains(err.Error(), "holds no commitment to the bailiff's share") {
		t.Errorf("the receipt of a freeze without its share commitment: %v", err)
	}
}
