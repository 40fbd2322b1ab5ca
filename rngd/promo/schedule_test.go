package promo

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"tirage.fr/tirage/transparency"
	"tirage.fr/tirage/verifier/promo"
	"tirage.fr/tirage/verifier/record"
)

// The appliance keeps the dates of the rules (art. 2.1, 2.4), by the times of
// the records it logs: no freeze before the participation period has ended
// (19 June 2016 at 24:00, Paris time) or after its latest date, no ceremony before the draw's date
// (21 June) or after its latest date (21 July, included). A refusal logs
// nothing and locks nothing; the certificate is checked against the rules.
func TestScheduleKept(t *testing.T) {
	ctx := context.Background()
	r, rulesFile := exampleRules(t)
	tmp := t.TempDir()
	paris := r.Location()
	c := &clock{t: time.Date(2016, 6, 19, 12, 0, 0, 0, paris)}
	a, lg := openTestAppliance(t, filepath.Join(tmp, "data"), testKeys(t, filepath.Join(tmp, "keys")), testEntropy(t), c)
	defer lg.Close()
	req := FreezeRequest{Rules: r, RulesFile: rulesFile, DrawIndex: 3, Entrants: []string{"A1", "A2", "A3", "A4", "A5"}}
	dir, _ := a.drawDir("bonus-crescendo/4")

	for _, at := range []time.Time{time.Date(2016, 6, 19, 12, 0, 0, 0, paris), time.Date(2016, 6, 19, 23, 59, 59, 0, paris)} {
		c.t = at
		_, err := a.Freeze(ctx, req)
		if err == nil || !strings.Contains(err.Error(), "bonus-crescendo/4: freeze refused at "+promo.FormatTime(at)+": the participation period ends on 2016-06-19 at 24:00 Europe/Paris time (2016-06-19T22:00:00Z)") {
			t.Fatalf("freeze at %s: %v", at, err)
		}
		if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("a refused freeze left %s: %v", dir, err)
		}
	}
	// Once the latest date is over, a list frozen could never be drawn.
	for _, at := range []time.Time{time.Date(2016, 7, 22, 0, 0, 0, 0, paris), time.Date(2017, 1, 5, 9, 0, 0, 0, paris)} {
		c.t = at
		_, err := a.Freeze(ctx, req)
		if err == nil || !strings.Contains(err.Error(), "bonus-crescendo/4: freeze refused at "+promo.FormatTime(at)+": the rules allow its ceremony until 2016-07-21 inclusive, Europe/Paris time (2016-07-21T22:00:00Z)") {
			t.Fatalf("freeze at %s: %v", at, err)
		}
		if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("a refused freeze left %s: %v", dir, err)
		}
	}
	if n := lg.Stats().Appends; n != 1 { // the key announcement only
		t.Fatalf("%d appends after refused freezes, want 1", n)
	}
	c.t = time.Date(2016, 6, 20, 0, 0, 0, 0, paris)
	fz, err := a.Freeze(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if !fz.Record.Time.Equal(c.t) {
		t.Fatalf("freeze record time %s, want %s", fz.Record.Time, c.t)
	}

	share := "text:Maître Dupont, huissier"
	for _, at := range []time.Time{
		time.Date(2016, 6, 20, 23, 59, 59, 0, paris), // the day before the draw date
		time.Date(2016, 7, 22, 0, 0, 0, 0, paris),    // 21 July 22:00 UTC: the day after the latest date, in Paris
		time.Date(2016, 8, 30, 10, 0, 0, 0, paris),
	} {
		c.t = at
		_, err := a.Draw(ctx, DrawRequest{Draw: "bonus-crescendo/4", Share: share})
		want := "bonus-crescendo/4: ceremony refused at " + promo.FormatTime(at) + " (" + at.Format("2006-01-02") +
			", Europe/Paris time): the rules allow it from 2016-06-21 to 2016-07-21 inclusive (2016-06-20T22:00:00Z to 2016-07-21T22:00:00Z)"
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("draw at %s: %v\nwant %s", at, err, want)
		}
		if _, err := os.Stat(filepath.Join(dir, "draw.lock")); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("a refused ceremony left draw.lock: %v", err)
		}
	}
	// Postponed to the last minute of the latest date: held.
	c.t = time.Date(2016, 7, 21, 23, 59, 0, 0, paris)
	d, err := a.Draw(ctx, DrawRequest{Draw: "bonus-crescendo/4", Share: share})
	if err != nil {
		t.Fatal(err)
	}
	if !d.Record.Time.Equal(c.t) {
		t.Fatalf("draw record time %s, want %s", d.Record.Time, c.t)
	}
	cert, err := a.Certify(ctx, "bonus-crescendo/4")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := promo.Verify(cert.JSON, nil, promo.Anchors{LogKeys: lg.VerifierKeys(), Rules: rulesFile, Reserves: 3}); err != nil {
		t.Fatal(err)
	}
}

// twoWinners is an appliance whose draw bonus-crescendo/1 was frozen (one
// winner, the rules' 3 reserves, checked), then its freeze.leaf rewritten
// to rank 2 winners.
type twoWinners struct {
	a     *Appliance
	lg    transparency.Log
	clock *clock
	req   FreezeRequest
	dir   string
	leaf  []byte // the two-winner freeze record
}

// frozenTwoWinners makes a freeze whose append failed, then rewrites its
// freeze.leaf to rank two winners; the log holds no freeze.
func frozenTwoWinners(t *testing.T) twoWinners {
	t.Helper()
	r, rulesFile := exampleRules(t)
	tmp := t.TempDir()
	c := &clock{t: time.Date(2016, 6, 20, 16, 0, 0, 0, time.UTC)}
	a0, lg := openTestAppliance(t, filepath.Join(tmp, "data"), testKeys(t, filepath.Join(tmp, "keys")), testEntropy(t), c)
	t.Cleanup(func() { lg.Close() })
	fl := &flakyLog{Log: lg, failing: true}
	cfg := a0.cfg
	cfg.Log = fl
	a, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	req := FreezeRequest{Rules: r, RulesFile: rulesFile, DrawIndex: 0, Entrants: []string{"A1", "A2", "A3", "A4", "A5", "A6"}}
	if _, err := a.Freeze(context.Background(), req); !errors.Is(err, transparency.ErrUnavailable) {
		t.Fatalf("freeze on a failing log: %v", err)
	}
	fl.failing = false
	dir, _ := a.drawDir("bonus-crescendo/1")
	b, err := os.ReadFile(filepath.Join(dir, "freeze.leaf"))
	if err != nil {
		t.Fatal(err)
	}
	rec, err := record.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	fr := rec.(*record.PromoFreeze)
	if fr.Winners != promo.WinnersPerDraw || fr.Reserves != 3 {
		t.Fatalf("freeze ranks %d winners and %d reserves, want 1 and 3", fr.Winners, fr.Reserves)
	}
	two := *fr
	two.Winners = 2
	leaf, err := record.Format(&two)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "freeze.leaf"), leaf, 0o644); err != nil {
		t.Fatal(err)
	}
	return twoWinners{a: a, lg: lg, clock: c, req: req, dir: dir, leaf: leaf}
}

// Art. 3.1 « les quatre gagnants », art. 3.3.1 « Le gagnant tiré au sort du
// Tirage au sort n° 1 »: one winner per draw. The appliance freezes one
// winner and the rules' reserves (promo.NewFreeze); a freeze record in the
// draw directory saying otherwise (edited, or written by another program)
// is refused at the ceremony by the verifier's own check
// (promo.Rules.CheckFreezeRanking, in promo.Ceremony.Run): nothing is
// drawn or logged. (The log holds that freeze, as another program would
// have logged it: the appliance refuses a freeze.leaf other than the
// record the log holds before any ceremony.)
func TestDrawRefusesFreezeRankingOtherThanRules(t *testing.T) {
	f := frozenTwoWinners(t)
	ctx, lg, dir := context.Background(), f.lg, f.dir
	i, err := lg.Append(ctx, f.leaf)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "freeze.idx"), []byte(strconv.FormatUint(i, 10)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := lg.AwaitCheckpoint(ctx, i+1); err != nil {
		t.Fatal(err)
	}
	a, err := New(f.a.cfg) // reads the log, this freeze in it
	if err != nil {
		t.Fatal(err)
	}
	appends := lg.Stats().Appends
	f.clock.t = time.Date(2016, 6, 21, 8, 30, 0, 0, time.UTC)
	_, err = a.Draw(ctx, DrawRequest{Draw: "bonus-crescendo/1", Share: "text:Maître Dupont, huissier"})
	if err == nil || !strings.Contains(err.Error(), "ceremony refused, nothing drawn: the freeze ranks 2 winners") {
		t.Fatalf("draw of a freeze ranking 2 winners: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "draw.leaf")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a refused ceremony left draw.leaf: %v", err)
	}
	if n := lg.Stats().Appends; n != appends {
		t.Fatalf("%d appends after the refused ceremony, want %d", n, appends)
	}
}

// A freeze whose append did not complete is re-sent by the next Freeze of
// its draw, as its directory holds it; one changed meanwhile to contradict
// the draw's rules (two winners, art. 3.1) is refused before it reaches the
// log, as its ceremony would be.
func TestResumeRefusesFreezeContradictingRules(t *testing.T) {
	f := frozenTwoWinners(t)
	appends := f.lg.Stats().Appends
	_, err := f.a.Freeze(context.Background(), f.req)
	lg := f.lg
	if err == nil || !strings.Contains(err.Error(), "freeze.leaf contradicts the draw's rules.yaml, not re-sent") ||
		!strings.Contains(err.Error(), "the freeze ranks 2 winners") {
		t.Fatalf("re-send of a freeze ranking 2 winners: %v", err)
	}
	if n := lg.Stats().Appends; n != appends {
		t.Fatalf("%d appends after the refused re-send, want %d", n, appends)
	}
}
