package audit_test

import (
	"context"
	"fmt"
	"io/fs"
	"strings"
	"testing"
	"time"

	"tirage.fr/tirage/verifier/audit"
	"tirage.fr/tirage/verifier/checkpoint"
	"tirage.fr/tirage/verifier/receipt"
	"tirage.fr/tirage/verifier/receipt/receipttest"
	"tirage.fr/tirage/verifier/verdict"
)

// wantRow fails t unless v's check name has status s and its reason, in
// English and in French, contains en and fr.
func wantRow(t *testing.T, v *verdict.Verdict, name string, s verdict.Status, en, fr string) {
	t.Helper()
	c := v.Find(name)
	if c == nil || c.Status != s || !strings.Contains(c.Reason("en"), en) || !strings.Contains(c.Reason("fr"), fr) {
		t.Errorf("%s: want %s with %q / %q\n%s\n%s", name, s, en, fr, v.Text("en"), v.Text("fr"))
	}
}

// followed audits a's log from trusted on (nil: a first run), following
// it for rounds rounds, each of which plays a game first.
func followed(t *testing.T, a *receipttest.Appliance, trusted *checkpoint.Checkpoint, rounds int) *audit.Result {
	t.Helper()
	keys, err := checkpoint.ParseKeys(string(a.LogKeyFile()))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	n := 0
	res, err := audit.Run(ctx, audit.Config{Fetch: live{a}, LogKeys: keys, Last: trusted, Follow: time.Hour, Location: a.Location, Workers: 2,
		VRFPins: []string{a.VRFFingerprint()}, Now: clock(a),
		Wait: func(ctx context.Context, _ time.Duration) error {
			if n++; n > rounds {
				cancel()
				return ctx.Err()
			}
			if _, err := a.PlayGame(receipttest.Play{Game: "next-" + string(rune('a'+n)), StopAt: 1}); err != nil {
				t.Fatal(err)
			}
			return nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict.Status() != verdict.StatusPass || res.Followed != rounds || res.Checkpoint.Size != a.Size() {
		t.Fatalf("followed %d of %d, checkpoint %d of %d:\n%s", res.Followed, rounds, res.Checkpoint.Size, a.Size(), res.Verdict.Text("en"))
	}
	return res
}

// TestAuditFollowRows: the checkpoint-signature and log-consistency rows
// of an audit that followed the log describe what it checked up to its
// end: the last checkpoint followed, and its consistency with the trusted
// one through every checkpoint followed; and a count of one is not
// plural. Before, both rows named the first checkpoint audited (size 75
// while the audit, its subject and the state covered 84), and the
// subject said "1 checkpoints followed".
func TestAuditFollowRows(t *testing.T) {
	a := logWith(t, 3, nil)
	keys, _ := checkpoint.ParseKeys(string(a.LogKeyFile()))
	trusted, err := checkpoint.Open(a.Checkpoint(), keys)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.PlayGame(receipttest.Play{Game: "before", StopAt: 1}); err != nil {
		t.Fatal(err)
	}
	first := a.Size()
	res := followed(t, a, trusted, 1)
	v, last := res.Verdict, res.Checkpoint
	if last.Size == first {
		t.Fatal("the log did not grow while followed")
	}
	wantRow(t, v, verdict.CheckSignature, verdict.StatusPass, cpText(last, "en"), cpText(last, "fr"))
	wantRow(t, v, verdict.CheckConsistent, verdict.StatusPass,
		fmt.Sprintf("size %d extends the trusted size %d, through size %d, the first checkpoint audited, and each of the 1 checkpoint(s) followed after it", last.Size, trusted.Size, first),
		fmt.Sprintf("la taille %d prolonge la taille de confiance %d, par la taille %d, le premier point de contrôle audité, et chacun des 1 point(s) de contrôle suivi(s) après lui", last.Size, trusted.Size, first))
	if want := "(1 checkpoint(s) followed)"; !strings.Contains(v.Subject, want) || !strings.Contains(v.SubjectText("fr"), "(1 point(s) de contrôle suivi(s))") {
		t.Errorf("subject %q / %q, want %q", v.Subject, v.SubjectText("fr"), want)
	}

	// A first run (no trusted checkpoint): the row is the follow's.
	b := logWith(t, 2, nil)
	start := b.Size()
	res = followed(t, b, nil, 2)
	wantRow(t, res.Verdict, verdict.CheckSignature, verdict.StatusPass, cpText(res.Checkpoint, "en"), cpText(res.Checkpoint, "fr"))
	wantRow(t, res.Verdict, verdict.CheckConsistent, verdict.StatusPass,
		fmt.Sprintf("size %d extends size %d, the first checkpoint audited: each of the 2 checkpoint(s) followed extends the one before", res.Checkpoint.Size, start),
		fmt.Sprintf("la taille %d prolonge la taille %d, le premier point de contrôle audité : chacun des 2 point(s) de contrôle suivi(s) prolonge le précédent", res.Checkpoint.Size, start))
}

// cpText is how a row names checkpoint cp in lang.
func cpText(cp *checkpoint.Checkpoint, lang string) string {
	return receipt.CheckpointMsg(cp).Text(lang)
}

// TestAuditAllRefusedRows: a log whose every entry is left out (its hash
// tiles all altered) checked no record, no game and no draw: record, games
// and promotions are skipped, saying why, not passed over nothing. Before,
// they said PASS ("games — 0 games …", "promotions — 0 draws") while the
// verdict failed on entries.
func TestAuditAllRefusedRows(t *testing.T) {
	a := logWith(t, 4, nil)
	if err := a.PromoDraw("d1", 50, false); err != nil {
		t.Fatal(err)
	}
	f := a.Tiles()
	for p, b := range f {
		if strings.HasPrefix(p, "tile/0/") {
			b = append([]byte(nil), b...)
			b[0] ^= 0x01
			f[p] = b
		}
	}
	v := run(t, a, f, nil).Verdict
	if c := v.Find(verdict.CheckEntries); v.Status() != verdict.StatusFail || c == nil || c.Status != verdict.StatusFail {
		t.Fatalf("every tile altered: want entries to fail\n%s", v.Text("en"))
	}
	n := a.Size()
	wantRow(t, v, verdict.CheckRecord, verdict.StatusSkip,
		fmt.Sprintf("no record checked: every entry read (%d) was left out, not matching the signed tree (see entries)", n),
		fmt.Sprintf("aucun enregistrement vérifié : toutes les entrées lues (%d) ont été écartées, faute de correspondre à l'arbre signé (voir entries)", n))
	wantRow(t, v, verdict.CheckGames, verdict.StatusSkip,
		fmt.Sprintf("no game checked: the entries left out (%d, from entry 0), which do not match the signed tree (see entries), may hold games", n),
		fmt.Sprintf("aucune partie vérifiée : les entrées écartées (%d, à partir de l'entrée 0), qui ne correspondent pas à l'arbre signé (voir entries), peuvent en contenir", n))
	wantRow(t, v, verdict.CheckPromotions, verdict.StatusSkip,
		fmt.Sprintf("no promotion draw checked: the entries left out (%d, from entry 0), which do not match the signed tree (see entries), may hold draws", n),
		fmt.Sprintf("aucun tirage de promotion vérifié : les entrées écartées (%d, à partir de l'entrée 0), qui ne correspondent pas à l'arbre signé (voir entries), peuvent en contenir", n))
}

// TestAuditPromoProofsCounted: a promotion draw's VRF proof is counted
// under promotions, not under games, and one draw is not "1 draws".
// Before, the games row counted it among the games' VRF proofs.
func TestAuditPromoProofsCounted(t *testing.T) {
	a := logWith(t, 3, nil)
	games := run(t, a, a.Tiles(), nil)
	if err := a.PromoDraw("d1", 50, false); err != nil {
		t.Fatal(err)
	}
	res := run(t, a, a.Tiles(), nil)
	v := res.Verdict
	if v.Status() != verdict.StatusPass || res.Proofs != games.Proofs+1 {
		t.Fatalf("proofs %d, want the games' %d and the draw's\n%s", res.Proofs, games.Proofs, v.Text("en"))
	}
	wantRow(t, v, verdict.CheckGames, verdict.StatusPass,
		fmt.Sprintf("3 game(s) (0 unfinished), %d VRF proof(s)", games.Proofs), fmt.Sprintf("3 partie(s) (0 non terminée(s)), %d preuve(s) VRF", games.Proofs))
	wantRow(t, v, verdict.CheckPromotions, verdict.StatusPass, "1 draw(s)", "1 tirage(s)")
}

// hiding serves a's current tiles but those under prefix: a log server
// that lost them, or a transport that fails.
type hiding struct {
	a      *receipttest.Appliance
	prefix string
}

func (h hiding) Fetch(ctx context.Context, path string) ([]byte, error) {
	if strings.HasPrefix(path, h.prefix) {
		return nil, fmt.Errorf("%s: %w", path, fs.ErrNotExist)
	}
	return files(h.a.Tiles()).Fetch(ctx, path)
}

// TestAuditStoppedRows: an audit that stops before the end of the log (an
// entry bundle it cannot read) fails its one entries row with why, and a
// check that checked nothing is skipped saying the audit stopped. Before,
// entries said PASS ("0 entries match the signed tree") and rngverify
// added a second, failing, entries row, while record, vrf-key ("no VRF key
// announced in the log"), games and promotions passed over nothing.
func TestAuditStoppedRows(t *testing.T) {
	a := logWith(t, 60, nil)
	if a.Size() <= 256 {
		t.Fatalf("log of %d entries does not span two bundles", a.Size())
	}
	keys, err := checkpoint.ParseKeys(string(a.LogKeyFile()))
	if err != nil {
		t.Fatal(err)
	}
	audited := func(prefix string) *verdict.Verdict {
		t.Helper()
		res, err := audit.Run(context.Background(), audit.Config{Fetch: hiding{a, prefix}, LogKeys: keys, Workers: 2, Location: a.Location,
			VRFPins: []string{a.VRFFingerprint()}, Now: clock(a)})
		if res == nil || err == nil {
			t.Fatalf("%s not served: want the audit stopped, got %v", prefix, err)
		}
		v := res.Verdict
		var rows []verdict.Check
		for _, c := range v.Checks {
			if c.Name == verdict.CheckEntries {
				rows = append(rows, c)
			}
		}
		if want := "audit stopped after " + fmt.Sprint(res.Records) + " of " + fmt.Sprint(a.Size()) + " entries: "; len(rows) != 1 || rows[0].Status != verdict.StatusFail ||
			!strings.HasPrefix(rows[0].Detail, want) || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s not served: want one entries row failing with %q (error %v)\n%s", prefix, want, err, v.Text("en"))
		}
		return v
	}
	v := audited("tile/entries/001")
	if c := v.Find(verdict.CheckRecord); c == nil || c.Status != verdict.StatusPass {
		t.Errorf("the records read before the stop: want record to pass\n%s", v.Text("en"))
	}
	v = audited("tile/entries/000")
	for _, check := range []string{verdict.CheckRecord, verdict.CheckVRFKey, verdict.CheckGames, verdict.CheckPromotions} {
		wantRow(t, v, check, verdict.StatusSkip, "none checked: the audit stopped before the end of the log (see entries)",
			"aucune vérification : l'audit s'est arrêté avant la fin du journal (voir entries)")
	}
}

// TestAuditFollowStoppedSize: an audit that stops reading a followed
// checkpoint's entries counts them out of that checkpoint's size. Before,
// it said "audit stopped after 256 of 100 entries", the size of the
// checkpoint before.
func TestAuditFollowStoppedSize(t *testing.T) {
	a := logWith(t, 10, nil)
	if a.Size() >= 256 {
		t.Fatalf("log of %d entries spans two bundles", a.Size())
	}
	first := a.Size()
	keys, _ := checkpoint.ParseKeys(string(a.LogKeyFile()))
	rounds := 0
	res, err := audit.Run(context.Background(), audit.Config{Fetch: hiding{a, "tile/entries/001"}, LogKeys: keys, Follow: time.Hour, Location: a.Location, Workers: 2,
		VRFPins: []string{a.VRFFingerprint()}, Now: clock(a),
		Wait: func(ctx context.Context, _ time.Duration) error {
			if rounds++; rounds > 1 {
				t.Fatal("followed on after the audit stopped")
			}
			for i := 0; a.Size() <= 300; i++ {
				if _, err := a.PlayGame(receipttest.Play{Game: fmt.Sprintf("more-%d", i), StopAt: 1}); err != nil {
					t.Fatal(err)
				}
			}
			return nil
		}})
	if want := fmt.Sprintf("audit stopped after 256 of %d entries: ", a.Size()); err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("want %q, got %v", want, err)
	}
	if c := res.Verdict.Find(verdict.CheckSignature); res.Followed != 0 || c == nil || c.Detail != cpText(mustOpen(t, keys, first, a), "en") {
		t.Errorf("followed %d: want the first checkpoint, size %d, audited in full\n%s", res.Followed, first, res.Verdict.Text("en"))
	}
}

// mustOpen is a's checkpoint of size n.
func mustOpen(t *testing.T, keys []*checkpoint.Key, n int64, a *receipttest.Appliance) *checkpoint.Checkpoint {
	t.Helper()
	cp, err := checkpoint.Open(a.CheckpointAt(n), keys)
	if err != nil {
		t.Fatal(err)
	}
	return cp
}

// TestAuditFollowAfterFork: an audit whose first checkpoint is proven a
// fork of the trusted one (or fails log-consistency otherwise) does not go
// on following the log: the verdict is given at once. Before, it followed
// the forked log until interrupted, as if nothing were wrong.
func TestAuditFollowAfterFork(t *testing.T) {
	a := logWith(t, 3, nil)
	keys, _ := checkpoint.ParseKeys(string(a.LogKeyFile()))
	n := a.Size()
	fork := a.Fork(n - 3) // another history, which the auditor trusted
	for fork.Size() < n-1 {
		fork.Append([]byte("not a record"))
	}
	trusted := mustOpen(t, keys, n-1, fork)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	res, err := audit.Run(ctx, audit.Config{Fetch: live{a}, LogKeys: keys, Last: trusted, Follow: time.Hour, Location: a.Location, Workers: 2,
		VRFPins: []string{a.VRFFingerprint()}, Now: clock(a),
		Wait: func(ctx context.Context, _ time.Duration) error {
			t.Error("followed a log proven forked")
			cancel()
			return ctx.Err()
		}})
	if err != nil {
		t.Fatal(err)
	}
	if c := res.Verdict.Find(verdict.CheckConsistent); c == nil || c.Status != verdict.StatusMisbehaviour {
		t.Errorf("want log-consistency misbehaviour:\n%s", res.Verdict.Text("en"))
	}
}
