package promo

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"tirage.fr/tirage/hsm"
	"tirage.fr/tirage/transparency/tilelog"
	"tirage.fr/tirage/verifier/record"
)

var (
	freezeAt = time.Date(2016, 6, 20, 16, 0, 0, 0, time.UTC)
	drawAt   = time.Date(2016, 6, 21, 8, 30, 0, 0, time.UTC)
	fiveOf   = []string{"alice", "bob", "carol", "dave", "erin"}
)

func openRandAppliance(t *testing.T, data string, keys hsm.Backend, c *clock) (*Appliance, *tilelog.Log) {
	t.Helper()
	a, lg, err := OpenOffline(context.Background(), OfflineConfig{
		DataDir: data, Origin: "tirage.test/promo", Keys: keys, VRFLabel: "vrf", LogLabel: "log",
		Entropy: rand.Reader, Clock: c.now,
	})
	if err != nil {
		t.Fatal(err)
	}
	return a, lg.(*tilelog.Log)
}

// newAppliance opens an appliance in a fresh directory with fresh
// software keys, its clock at freezeAt; its log is closed when the test
// ends.
func newAppliance(t *testing.T) (*Appliance, *tilelog.Log) {
	t.Helper()
	tmp := t.TempDir()
	a, lg := openRandAppliance(t, filepath.Join(tmp, "data"), testKeys(t, filepath.Join(tmp, "keys")), &clock{t: freezeAt})
	t.Cleanup(func() { lg.Close() })
	return a, lg
}

// frozenDraw is an appliance in a fresh directory (data, its keystore in
// keys) whose clock c stood at the given time when it froze
// bonus-crescendo/1 of the example rules with fiveOf (fz). The caller
// closes lg.
type frozenDraw struct {
	a          *Appliance
	lg         *tilelog.Log
	data, keys string
	c          *clock
	fz         *Frozen
}

func freezeFive(t *testing.T, at time.Time) frozenDraw {
	t.Helper()
	r, rulesFile := exampleRules(t)
	tmp := t.TempDir()
	f := frozenDraw{data: filepath.Join(tmp, "data"), keys: filepath.Join(tmp, "keys"), c: &clock{t: at}}
	f.a, f.lg = openRandAppliance(t, f.data, testKeys(t, f.keys), f.c)
	fz, err := f.a.Freeze(context.Background(), FreezeRequest{Rules: r, RulesFile: rulesFile, DrawIndex: 0, Entrants: fiveOf})
	if err != nil {
		f.lg.Close()
		t.Fatal(err)
	}
	f.fz = fz
	return f
}

// wantRefused checks err is target and names the log index of the earlier record.
func wantRefused(t *testing.T, what string, err, target error, index string) {
	t.Helper()
	if !errors.Is(err, target) || !strings.Contains(err.Error(), "index "+index) {
		t.Fatalf("%s: %v, want %v naming log index %s", what, err, target, index)
	}
}

// The log, not the state directory, holds a draw id to one freeze and one
// draw: with bonus-crescendo/1's directory removed, the same appliance and
// a reopened one refuse to freeze it again (its list and r would change)
// and to draw it again (a new share, new winners), naming the records the
// log holds, and append nothing.
func TestNoSecondFreezeOrDrawAfterStateLost(t *testing.T) {
	ctx := context.Background()
	r, rulesFile := exampleRules(t)
	tmp := t.TempDir()
	data := filepath.Join(tmp, "data")
	keys := testKeys(t, filepath.Join(tmp, "keys"))
	c := &clock{t: freezeAt}
	a, lg := openRandAppliance(t, data, keys, c)
	defer func() { lg.Close() }()
	fz, err := a.Freeze(ctx, FreezeRequest{Rules: r, RulesFile: rulesFile, DrawIndex: 0, Entrants: fiveOf})
	if err != nil {
		t.Fatal(err)
	}
	c.t = drawAt
	d, err := a.Draw(ctx, DrawRequest{Draw: "bonus-crescendo/1", Share: "text:first share"})
	if err != nil {
		t.Fatal(err)
	}
	if fz.Index != 1 || d.Index != 2 {
		t.Fatalf("freeze at %d, draw at %d; want 1 and 2", fz.Index, d.Index)
	}
	dir := filepath.Join(data, "promo", "bonus-crescendo", "1")
	appends := lg.Stats().Appends

	refused := func(a *Appliance) {
		t.Helper()
		if err := os.RemoveAll(dir); err != nil {
			t.Fatal(err)
		}
		c.t = freezeAt
		_, err := a.Freeze(ctx, FreezeRequest{Rules: r, RulesFile: rulesFile, DrawIndex: 0, Entrants: fiveOf[1:]})
		wantRefused(t, "freeze again", err, ErrFrozen, "1")
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Fatalf("a refused freeze left %s behind: %v", dir, err)
		}
		c.t = drawAt
		_, err = a.Draw(ctx, DrawRequest{Draw: "bonus-crescendo/1", Share: "text:second share"})
		wantRefused(t, "draw again", err, ErrDrawn, "2")
		_, err = a.Draw(ctx, DrawRequest{Draw: "bonus-crescendo/1", Share: "text:first share"})
		wantRefused(t, "draw again, same share", err, ErrDrawn, "2")
		if n := lg.Stats().Appends; n != appends {
			t.Fatalf("%d appends after refusals, want %d", n, appends)
		}
	}
	refused(a)

	// Reopened, the appliance reads the records from the log.
	lg.Close()
	a, lg = openRandAppliance(t, data, keys, c)
	appends = lg.Stats().Appends
	refused(a)
	cp, err := lg.AwaitCheckpoint(ctx, lg.Sequenced())
	if err != nil || cp.Size != 3 {
		t.Fatalf("the log holds %v records (%v), want 3", cp, err)
	}
}

// A draw id frozen but whose state directory is lost cannot be drawn: the
// refusal names the freeze the log holds.
func TestDrawRefusedFrozenStateLost(t *testing.T) {
	ctx := context.Background()
	f := freezeFive(t, freezeAt)
	a, data, c := f.a, f.data, f.c
	defer f.lg.Close()
	os.RemoveAll(filepath.Join(data, "promo", "bonus-crescendo", "1"))
	c.t = drawAt
	_, err := a.Draw(ctx, DrawRequest{Draw: "bonus-crescendo/1", Share: "text:first share"})
	if !errors.Is(err, ErrNotFrozen) || !strings.Contains(err.Error(), "index 1") {
		t.Fatalf("draw of a freeze whose state is lost: %v", err)
	}
}

// The crash cases still resume: a freeze or a draw appended whose log
// index was not written is re-sent as the very same record, found in the
// log and not appended again, and returns the same result; a draw whose
// directory lost draw.leaf is refused.
func TestResumeAfterCrashWithLogIndex(t *testing.T) {
	ctx := context.Background()
	r, rulesFile := exampleRules(t)
	tmp := t.TempDir()
	data := filepath.Join(tmp, "data")
	keys := testKeys(t, filepath.Join(tmp, "keys"))
	c := &clock{t: freezeAt}
	a, lg := openRandAppliance(t, data, keys, c)
	defer func() { lg.Close() }()
	dir := filepath.Join(data, "promo", "bonus-crescendo", "2")
	fz, err := a.Freeze(ctx, FreezeRequest{Rules: r, RulesFile: rulesFile, DrawIndex: 1, Entrants: fiveOf})
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(dir, "freeze.idx"))
	lg.Close()
	a, lg = openRandAppliance(t, data, keys, c)
	appends := lg.Stats().Appends
	fz2, err := a.Freeze(ctx, FreezeRequest{Rules: r, RulesFile: rulesFile, DrawIndex: 1, Entrants: fiveOf[:2]})
	if err != nil || fz2.Index != fz.Index || !bytes.Equal(fz2.Leaf, fz.Leaf) {
		t.Fatalf("freeze resumed: %v, at %d (first at %d)", err, fz2.Index, fz.Index)
	}

	c.t = drawAt
	req := DrawRequest{Draw: "bonus-crescendo/2", Share: "text:first share"}
	d, err := a.Draw(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(dir, "draw.idx"))
	lg.Close()
	a, lg = openRandAppliance(t, data, keys, c)
	if _, err := a.Draw(ctx, DrawRequest{Draw: req.Draw, Share: "text:second share"}); !errors.Is(err, ErrDrawn) {
		t.Fatalf("draw resumed with another share: %v, want ErrDrawn", err)
	}
	d2, err := a.Draw(ctx, req)
	if err != nil || d2.Index != d.Index || !bytes.Equal(d2.Leaf, d.Leaf) {
		t.Fatalf("draw resumed: %v, at %d (first at %d)", err, d2.Index, d.Index)
	}
	if n := lg.Stats().Appends - appends; n != 0 {
		t.Fatalf("%d records appended by the resumed freeze and draw, want none", n)
	}
	if _, err := a.Certify(ctx, req.Draw); err != nil {
		t.Fatal(err)
	}

	// A directory that lost its draw (a backup restored from before the
	// ceremony) is no way to a second draw.
	os.Remove(filepath.Join(dir, "draw.leaf"))
	os.Remove(filepath.Join(dir, "draw.idx"))
	os.Remove(filepath.Join(dir, "draw.lock"))
	_, err = a.Draw(ctx, DrawRequest{Draw: req.Draw, Share: "text:second share"})
	wantRefused(t, "draw of a directory without its draw", err, ErrDrawn, strconv.FormatUint(d.Index, 10))
}

// A log that holds a second promo_draw record of a draw id (appended by an
// appliance without this check) gets no certificate for it.
func TestCertifyRefusesSecondDrawInLog(t *testing.T) {
	ctx := context.Background()
	r, rulesFile := exampleRules(t)
	tmp := t.TempDir()
	data := filepath.Join(tmp, "data")
	keys := testKeys(t, filepath.Join(tmp, "keys"))
	c := &clock{t: freezeAt}
	a, lg := openRandAppliance(t, data, keys, c)
	defer func() { lg.Close() }()
	if _, err := a.Freeze(ctx, FreezeRequest{Rules: r, RulesFile: rulesFile, DrawIndex: 0, Entrants: fiveOf}); err != nil {
		t.Fatal(err)
	}
	c.t = drawAt
	d, err := a.Draw(ctx, DrawRequest{Draw: "bonus-crescendo/1", Share: "text:first share"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Certify(ctx, "bonus-crescendo/1"); err != nil {
		t.Fatal(err)
	}
	second := *d.Record
	second.Share = []byte("text:second share")
	leaf, err := record.Format(&second)
	if err != nil {
		t.Fatal(err)
	}
	i, err := lg.Append(ctx, leaf)
	if err != nil {
		t.Fatal(err)
	}
	lg.Close()
	a, lg = openRandAppliance(t, data, keys, c)
	_, err = a.Certify(ctx, "bonus-crescendo/1")
	if !errors.Is(err, ErrLoggedTwice) || !strings.Contains(err.Error(), "index 2 and "+strconv.FormatUint(i, 10)) {
		t.Fatalf("certificate of a draw id drawn twice in the log: %v", err)
	}
}

// A draw directory whose freeze.leaf is not the record the log holds for
// it (edited after the freeze) is refused before the ceremony locks or
// proves anything.
func TestDrawRefusesFreezeLeafOtherThanLogged(t *testing.T) {
	ctx := context.Background()
	f := freezeFive(t, freezeAt)
	a, lg, data, c, fz := f.a, f.lg, f.data, f.c, f.fz
	defer lg.Close()
	edited := *fz.Record
	edited.Reserves = 2
	leaf, err := record.Format(&edited)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(data, "promo", "bonus-crescendo", "1")
	if err := os.WriteFile(filepath.Join(dir, "freeze.leaf"), leaf, 0o644); err != nil {
		t.Fatal(err)
	}
	appends := lg.Stats().Appends
	c.t = drawAt
	_, err = a.Draw(ctx, DrawRequest{Draw: "bonus-crescendo/1", Share: "text:first share"})
	if err == nil || !strings.Contains(err.Error(), "is not the one the log holds at index 1") {
		t.Fatalf("draw of an edited freeze.leaf: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "draw.lock")); !os.IsNotExist(err) {
		t.Fatalf("a refused ceremony took the draw lock: %v", err)
	}
	if n := lg.Stats().Appends; n != appends {
		t.Fatalf("%d appends after the refusal, want %d", n, appends)
	}
}
