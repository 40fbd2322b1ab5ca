package promo

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"tirage.fr/tirage/hsm"
	"tirage.fr/tirage/hsm/keystore"
	"tirage.fr/tirage/internal/peertest"
	"tirage.fr/tirage/rngd/entropy"
	"tirage.fr/tirage/transparency"
	"tirage.fr/tirage/verifier/promo"
	"tirage.fr/tirage/verifier/promo/stakes"
	"tirage.fr/tirage/verifier/vrf"
)

// testEntropy is the appliance's real generator on /dev/hwrng (plus
// getrandom, uncredited), as rngd configures it by default.
func testEntropy(t testing.TB) *entropy.Generator {
	t.Helper()
	peertest.Device(t, "/dev/hwrng")
	g, err := entropy.New(entropy.Config{Sources: []entropy.SourceConfig{{Kind: "hwrng", MinEntropy: 4}, {Kind: "getrandom"}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	return g
}

// testKeys is a software keystore (cheapest KDF) with a VRF key and an Ed25519 log key.
func testKeys(t testing.TB, dir string) hsm.Backend {
	t.Helper()
	ks, err := keystore.Open(keystore.Config{Dir: dir, Passphrase: []byte("promo test passphrase"), KDF: keystore.KDFParams{Time: 1, MemoryKiB: 8 * 1024, Threads: 1}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ks.Close() })
	if _, err := ks.VRFProver("vrf"); errors.Is(err, hsm.ErrNotFound) {
		if _, err := ks.GenerateVRF("vrf", vrf.SuiteP256SSWU); err != nil {
			t.Fatal(err)
		}
		if _, err := ks.GenerateSigner("log", hsm.Ed25519); err != nil {
			t.Fatal(err)
		}
	}
	return ks
}

type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func openTestAppliance(t *testing.T, data string, keys hsm.Backend, ent *entropy.Generator, c *clock) (*Appliance, transparency.Log) {
	t.Helper()
	a, lg, err := OpenOffline(context.Background(), OfflineConfig{
		DataDir: data, Origin: "tirage.test/promo", Keys: keys, VRFLabel: "vrf", LogLabel: "log",
		Entropy: ent, Clock: c.now,
	})
	if err != nil {
		t.Fatal(err)
	}
	return a, lg
}

// The whole Bonus Crescendo flow on the real log, keys and entropy: ingest,
// eligibility, e-credits, four freezes, one ceremony per draw, certificates,
// documents; no second freeze, no second draw; tampering is caught.
func TestBonusCrescendoOffline(t *testing.T) {
	ctx := context.Background()
	r, rulesFile := exampleRules(t)
	tmp := t.TempDir()
	var stakeFile bytes.Buffer
	if err := Generate(&stakeFile, r, GenConfig{Rows: 20_000, Accounts: 1500, Seed: 42, Format: stakes.FormatCSV, Defects: true}); err != nil {
		t.Fatal(err)
	}
	// Edge rows on top of the synthetic ones.
	stakeFile.WriteString("edge1,E1,2016-06-16T23:59:59+02:00,loto,1200,web,,,\n")
	stakeFile.WriteString("edge2,E2,2016-06-17T00:00:00+02:00,loto,1200,web,,,\n")
	stakeFile.WriteString("edge3,E3,2016-06-16T10:00:00+02:00,loto\n")
	var closed bytes.Buffer
	GenerateClosed(&closed, r, 1500, 42)
	closedSet, err := stakes.ReadClosed(&closed)
	if err != nil {
		t.Fatal(err)
	}
	tally := promo.NewTally(r)
	var rejects bytes.Buffer
	var progressed int
	st, err := stakes.Ingest(ctx, &stakeFile, stakes.FormatCSV, tally, &rejects, func(lines, bytes int64) { progressed++ })
	if err != nil {
		t.Fatal(err)
	}
	if st.Lines != 20_003 || st.Rejected == 0 || progressed == 0 {
		t.Fatalf("ingest: %+v, %d progress calls", st, progressed)
	}
	if int64(strings.Count(rejects.String(), "\n")) != st.Rejected {
		t.Fatalf("%d rejections reported for %d rejected rows", strings.Count(rejects.String(), "\n"), st.Rejected)
	}
	if !strings.Contains(rejects.String(), "20004: row has 4 fields") {
		t.Errorf("short row not reported with its line: %s", rejects.String())
	}
	if tally.Total("E1", 3) != 1200 || tally.Total("E2", 3) != 0 || tally.Total("E2", 4) != 0 {
		t.Errorf("edge stakes: E1 Thu %d, E2 Thu %d Fri %d", tally.Total("E1", 3), tally.Total("E2", 3), tally.Total("E2", 4))
	}
	el := tally.Eligibility(closedSet)
	var report bytes.Buffer
	n, total, err := WriteECredits(&report, el)
	if err != nil || n == 0 || total == 0 || !strings.HasPrefix(report.String(), ECreditHeader) {
		t.Fatalf("e-credit report: %d lines, %d cents, %v", n, total, err)
	}

	c := &clock{t: time.Date(2016, 6, 20, 16, 0, 0, 0, time.UTC)}
	keys := testKeys(t, filepath.Join(tmp, "keys"))
	ent := testEntropy(t)
	data := filepath.Join(tmp, "data")
	a, lg := openTestAppliance(t, data, keys, ent, c)
	for j := range r.Draws {
		fz, err := a.Freeze(ctx, FreezeRequest{Rules: r, RulesFile: rulesFile, DrawIndex: j, Entrants: el.Entrants[j], Withheld: el.WithheldEntries[j], Rows: st.Lines, Rejected: st.Rejected, Excluded: st.Excluded})
		if err != nil {
			t.Fatalf("freeze %d: %v", j, err)
		}
		if fz.Record.Count != uint64(len(el.Entrants[j])) || fz.Record.Reserves != 3 {
			t.Fatalf("freeze %d: count %d reserves %d", j, fz.Record.Count, fz.Record.Reserves)
		}
	}
	if _, err := a.Freeze(ctx, FreezeRequest{Rules: r, RulesFile: rulesFile, DrawIndex: 0, Entrants: []string{"X"}}); !errors.Is(err, ErrFrozen) {
		t.Fatalf("second freeze: %v, want ErrFrozen", err)
	}
	if _, err := a.Draw(ctx, DrawRequest{Draw: "bonus-crescendo/9", Share: "text:12345678"}); !errors.Is(err, ErrNotFrozen) {
		t.Fatalf("draw of an unknown draw: %v", err)
	}
	rc, err := a.Receipt(ctx, "bonus-crescendo/1")
	if err != nil {
		t.Fatal(err)
	}
	var pdf bytes.Buffer
	if err := WriteReceiptPDF(&pdf, rc); err != nil || !bytes.HasPrefix(pdf.Bytes(), []byte("%PDF-")) {
		t.Fatalf("receipt pdf: %v", err)
	}

	c.t = time.Date(2016, 6, 21, 8, 30, 0, 0, time.UTC)
	for j := range r.Draws {
		draw := r.FullDrawID(j)
		share, _ := promo.ShareFromDice("6 1 4 2 5 3 3 5 2 6 1 1 4 4 2 5 6 3 3 1 2 5 6 4 " + string(rune('1'+j)))
		if _, err := a.Draw(ctx, DrawRequest{Draw: draw, Share: share}); err != nil {
			t.Fatalf("draw %s: %v", draw, err)
		}
		// There is no second draw, with the same share or another.
		if _, err := a.Draw(ctx, DrawRequest{Draw: draw, Share: "text:another try"}); !errors.Is(err, ErrDrawn) {
			t.Fatalf("second draw of %s: %v, want ErrDrawn", draw, err)
		}
		cert, err := a.Certify(ctx, draw)
		if err != nil {
			t.Fatalf("certify %s: %v", draw, err)
		}
		if !cert.Verified.KeyLogged || len(cert.Verified.Accounts) != 4 {
			t.Fatalf("%s: key logged %v, %d accounts", draw, cert.Verified.KeyLogged, len(cert.Verified.Accounts))
		}
		for _, acct := range cert.Verified.Accounts {
			if bytes.Contains(cert.JSON, []byte(`"`+acct+`"`)) {
				t.Fatalf("certificate names account %s", acct)
			}
		}
		// The public path, pinned to the log key.
		if _, err := promo.Verify(cert.JSON, nil, promo.Anchors{LogKeys: lg.VerifierKeys(), Rules: rulesFile, Reserves: 3}); err != nil {
			t.Fatalf("%s public verification: %v", draw, err)
		}
		var pv, annex bytes.Buffer
		if err := WriteProcesVerbalPDF(&pv, cert); err != nil {
			t.Fatal(err)
		}
		if err := WriteAnnexPDF(&annex, cert); err != nil {
			t.Fatal(err)
		}
		for _, acct := range cert.Verified.Accounts {
			if bytes.Contains(pv.Bytes(), []byte(acct+" ")) {
				t.Fatalf("procès-verbal names account %s", acct)
			}
		}
		if j == 0 {
			// A tampered entrant list fails the bailiff's check.
			lf, _ := a.EntrantsFile(draw)
			b, _ := os.ReadFile(lf)
			list, _ := promo.ParseEntrantList(b)
			list.Accounts = list.Accounts[1:]
			_, err := promo.Verify(cert.JSON, list, promo.Anchors{Reserves: 3})
			var ce *promo.CheckError
			if !errors.As(err, &ce) || ce.Check != promo.CheckEntrantRoot {
				t.Fatalf("tampered list: %v", err)
			}
			if d := os.Getenv("PROMO_PDF_DIR"); d != "" {
				os.WriteFile(filepath.Join(d, "proces-verbal.pdf"), pv.Bytes(), 0o644)
				os.WriteFile(filepath.Join(d, "annexe.pdf"), annex.Bytes(), 0o644)
				os.WriteFile(filepath.Join(d, "receipt.pdf"), pdf.Bytes(), 0o644)
			}
		}
	}

	// The state survives a restart: a reopened appliance still refuses a second draw.
	lg.Close()
	a2, lg2 := openTestAppliance(t, data, keys, ent, c)
	defer lg2.Close()
	if _, err := a2.Draw(ctx, DrawRequest{Draw: "bonus-crescendo/2", Share: "text:after restart"}); !errors.Is(err, ErrDrawn) {
		t.Fatalf("draw after restart: %v", err)
	}
	var meta Meta
	b, _ := os.ReadFile(filepath.Join(data, "promo", "bonus-crescendo", "1", "meta.json"))
	if err := json.Unmarshal(b, &meta); err != nil || meta.Entrants != len(el.Entrants[0]) || meta.Excluded[promo.ChannelNotCounted.String()] == 0 {
		t.Fatalf("meta: %v %+v", err, meta)
	}
}

// A freeze refused for lack of entropy leaves nothing behind.
func TestFreezeFailsClosedOnEntropy(t *testing.T) {
	r, rulesFile := exampleRules(t)
	tmp := t.TempDir()
	keys := testKeys(t, filepath.Join(tmp, "keys"))
	c := &clock{t: time.Date(2016, 6, 20, 16, 0, 0, 0, time.UTC)}
	a, lg, err := OpenOffline(context.Background(), OfflineConfig{
		DataDir: tmp, Origin: "tirage.test/promo", Keys: keys, VRFLabel: "vrf", LogLabel: "log",
		Entropy: failingReader{}, Clock: c.now,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer lg.Close()
	_, err = a.Freeze(context.Background(), FreezeRequest{Rules: r, RulesFile: rulesFile, DrawIndex: 0, Entrants: []string{"a", "b"}})
	if err == nil || !strings.Contains(err.Error(), "entropy") {
		t.Fatalf("freeze with failing entropy: %v", err)
	}
	if _, err := os.Stat(filepath.Join(tmp, "promo", "bonus-crescendo", "1")); !os.IsNotExist(err) {
		t.Fatalf("a refused freeze left state behind: %v", err)
	}
	if n := lg.Stats().Appends; n != 1 { // the key announcement only
		t.Fatalf("%d appends after a refused freeze, want 1", n)
	}
}

type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, errors.New("entropy: health test failed") }

// flakyLog is the real log with appends that fail while failing is set, as a
// full disk or a lost Trillian would (fault injection around the real backend).
type flakyLog struct {
	transparency.Log
	failing bool
}

func (f *flakyLog) Append(ctx context.Context, leaf []byte) (uint64, error) {
	if f.failing {
		return 0, fmt.Errorf("injected: %w", transparency.ErrUnavailable)
	}
	return f.Log.Append(ctx, leaf)
}

// A log failure refuses the freeze and the draw; the retry re-sends the very
// same records, and a ceremony cannot be re-run with another share.
func TestLogFailureNoRedraw(t *testing.T) {
	ctx := context.Background()
	r, rulesFile := exampleRules(t)
	tmp := t.TempDir()
	c := &clock{t: time.Date(2016, 6, 20, 16, 0, 0, 0, time.UTC)}
	keys := testKeys(t, filepath.Join(tmp, "keys"))
	a0, lg := openTestAppliance(t, filepath.Join(tmp, "data"), keys, testEntropy(t), c)
	defer lg.Close()
	fl := &flakyLog{Log: lg}
	cfg := a0.cfg
	cfg.Log = fl
	a, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	req := FreezeRequest{Rules: r, RulesFile: rulesFile, DrawIndex: 0, Entrants: []string{"A1", "A2", "A3", "A4", "A5", "A6"}}

	fl.failing = true
	if _, err := a.Freeze(ctx, req); err == nil || !errors.Is(err, transparency.ErrUnavailable) {
		t.Fatalf("freeze on a failing log: %v", err)
	}
	if _, err := a.Draw(ctx, DrawRequest{Draw: "bonus-crescendo/1", Share: "text:12345678"}); !errors.Is(err, ErrNotFrozen) {
		t.Fatalf("draw of an unpublished freeze: %v", err)
	}
	leaf, _ := os.ReadFile(filepath.Join(tmp, "data", "promo", "bonus-crescendo", "1", "freeze.leaf"))
	fl.failing = false
	// The retry (even with another list) re-sends the recorded freeze unchanged.
	req.Entrants = []string{"B1"}
	fz, err := a.Freeze(ctx, req)
	if err != nil || !bytes.Equal(fz.Leaf, leaf) || fz.Record.Count != 6 {
		t.Fatalf("freeze retry: %v, count %d", err, fz.Record.Count)
	}

	c.t = c.t.Add(24 * time.Hour)
	fl.failing = true
	if _, err := a.Draw(ctx, DrawRequest{Draw: "bonus-crescendo/1", Share: "text:first share"}); err == nil || !errors.Is(err, transparency.ErrUnavailable) {
		t.Fatalf("draw on a failing log: %v", err)
	}
	fl.failing = false
	if _, err := a.Draw(ctx, DrawRequest{Draw: "bonus-crescendo/1", Share: "text:second share"}); !errors.Is(err, ErrDrawn) {
		t.Fatalf("draw again with another share: %v, want ErrDrawn", err)
	}
	d, err := a.Draw(ctx, DrawRequest{Draw: "bonus-crescendo/1", Share: "text:first share"})
	if err != nil || string(d.Record.Share) != "text:first share" {
		t.Fatalf("re-send of the same draw: %v", err)
	}
	if _, err := a.Draw(ctx, DrawRequest{Draw: "bonus-crescendo/1", Share: "text:first share"}); !errors.Is(err, ErrDrawn) {
		t.Fatalf("third draw: %v", err)
	}
	if _, err := a.Certify(ctx, "bonus-crescendo/1"); err != nil {
		t.Fatal(err)
	}
}

// notTakingLog refuses appends as a log does when it proves the leaf was
// not taken (closed, failed closed, checkpoints stalled, a QueueLeaf
// refused outright).
type notTakingLog struct{ transparency.Log }

func (notTakingLog) Append(context.Context, []byte) (uint64, error) {
	return 0, transparency.NotAppended(fmt.Errorf("injected: %w", transparency.ErrUnavailable))
}

// A freeze the log refused before taking it, at its first sending, is
// forgotten: the next run freezes anew, timed then, with the list it is
// given (an append of unknown outcome is re-sent unchanged instead:
// TestLogFailureNoRedraw).
func TestFreezeNotTakenIsForgotten(t *testing.T) {
	ctx := context.Background()
	r, rulesFile := exampleRules(t)
	tmp := t.TempDir()
	c := &clock{t: time.Date(2016, 6, 20, 16, 0, 0, 0, time.UTC)}
	keys := testKeys(t, filepath.Join(tmp, "keys"))
	a0, lg := openTestAppliance(t, filepath.Join(tmp, "data"), keys, testEntropy(t), c)
	defer lg.Close()
	cfg := a0.cfg
	cfg.Log = notTakingLog{lg}
	refusing, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	req := FreezeRequest{Rules: r, RulesFile: rulesFile, DrawIndex: 0, Entrants: []string{"A1", "A2", "A3"}}
	if _, err := refusing.Freeze(ctx, req); !errors.Is(err, transparency.ErrNotAppended) || !strings.Contains(err.Error(), "nothing frozen") {
		t.Fatalf("freeze the log did not take: %v, want ErrNotAppended saying nothing was frozen", err)
	}
	dir := filepath.Join(tmp, "data", "promo", "bonus-crescendo", "1")
	if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the draw directory of a freeze the log did not take is still there (%v): the next run would re-send it with its old time", err)
	}
	c.t = c.t.Add(2 * time.Hour)
	req.Entrants = []string{"B1"}
	fz, err := a0.Freeze(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if fz.Record.Count != 1 || !fz.Record.Time.Equal(c.t) {
		t.Fatalf("the next freeze: count %d at %v, want a new freeze of 1 entrant at %v", fz.Record.Count, fz.Record.Time, c.t)
	}
}

// A freeze made but never sent — interrupted before its first sending, or
// its draw directory left by a crash while it still holds the unsent
// marker — is nowhere but there: the next run makes it anew, timed then,
// rather than re-sending a record with its old time and list. A directory
// without the marker (the freeze may have reached the log) is still
// resumed, never discarded.
func TestFreezeNeverSentIsMadeAnew(t *testing.T) {
	ctx := context.Background()
	r, rulesFile := exampleRules(t)
	tmp := t.TempDir()
	c := &clock{t: time.Date(2016, 6, 20, 16, 0, 0, 0, time.UTC)}
	keys := testKeys(t, filepath.Join(tmp, "keys"))
	a0, lg := openTestAppliance(t, filepath.Join(tmp, "data"), keys, testEntropy(t), c)
	defer lg.Close()
	dir := filepath.Join(tmp, "data", "promo", "bonus-crescendo", "1")
	req := FreezeRequest{Rules: r, RulesFile: rulesFile, DrawIndex: 0, Entrants: []string{"A1", "A2", "A3"}}

	// Interrupted (Ctrl-C) once the directory is written, before sending.
	ictx, cancel := context.WithCancel(ctx)
	cfg := a0.cfg
	cfg.Clock = func() time.Time { cancel(); return c.t }
	interrupted, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := interrupted.Freeze(ictx, req); !errors.Is(err, transparency.ErrNotAppended) || !strings.Contains(err.Error(), "nothing frozen") {
		t.Fatalf("freeze interrupted before sending: %v, want ErrNotAppended saying nothing was frozen", err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the draw directory of a freeze never sent is still there (%v)", err)
	}

	// A directory without the marker may hold a freeze the log took: it
	// is resumed (this one, not a freeze record, is refused), not discarded.
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "freeze.leaf"), []byte("left by a crash"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := a0.Freeze(ctx, req); err == nil || !strings.Contains(err.Error(), "not a promo_freeze record") {
		t.Fatalf("a draw directory without the unsent marker: %v, want it resumed (and this one refused)", err)
	}
	// With the marker: discarded and frozen anew. Meanwhile it is no draw
	// waiting for its ceremony, and neither is a directory set aside.
	if err := os.WriteFile(filepath.Join(dir, unsentMarker), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	aside := dir + ".discarded-1"
	if err := os.MkdirAll(aside, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(aside, "freeze.leaf"), []byte("left by a removal stopped part way"), 0o644); err != nil {
		t.Fatal(err)
	}
	if u, err := Undrawn(filepath.Join(tmp, "data", "promo"), c.t); err != nil || len(u) != 0 {
		t.Fatalf("undrawn draws %+v, %v: want none (a freeze never sent, a directory set aside)", u, err)
	}
	if err := os.RemoveAll(aside); err != nil {
		t.Fatal(err)
	}
	c.t = c.t.Add(72 * time.Hour)
	req.Entrants = []string{"B1"}
	fz, err := a0.Freeze(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if fz.Record.Count != 1 || !fz.Record.Time.Equal(c.t) {
		t.Fatalf("the next freeze: count %d at %v, want a new freeze of 1 entrant at %v", fz.Record.Count, fz.Record.Time, c.t)
	}
	if unsent(dir) {
		t.Fatal("a sent freeze's directory still holds the unsent marker")
	}
	if m, _ := filepath.Glob(dir + ".discarded-*"); len(m) != 0 {
		t.Fatalf("discarded directories left behind: %q", m)
	}
}

// TestFreezeOneAtATime: a second Freeze of a draw while one is under way
// in the same Appliance is refused, not left to take the first's
// directory, still being written, for one never sent and discard it.
func TestFreezeOneAtATime(t *testing.T) {
	ctx := context.Background()
	r, rulesFile := exampleRules(t)
	tmp := t.TempDir()
	c := &clock{t: time.Date(2016, 6, 20, 16, 0, 0, 0, time.UTC)}
	keys := testKeys(t, filepath.Join(tmp, "keys"))
	a0, lg := openTestAppliance(t, filepath.Join(tmp, "data"), keys, testEntropy(t), c)
	defer lg.Close()
	inside, release := make(chan struct{}), make(chan struct{})
	cfg := a0.cfg
	cfg.Clock = func() time.Time { close(inside); <-release; return c.t }
	a, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	req := FreezeRequest{Rules: r, RulesFile: rulesFile, DrawIndex: 0, Entrants: []string{"A1", "A2", "A3"}}
	done := make(chan error, 1)
	go func() { _, err := a.Freeze(ctx, req); done <- err }()
	<-inside
	if _, err := a.Freeze(ctx, req); err == nil || !strings.Contains(err.Error(), "under way") {
		t.Errorf("a second freeze of the draw meanwhile: %v, want it refused", err)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatalf("the first freeze: %v", err)
	}
}
