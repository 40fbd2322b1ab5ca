package promo

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"tirage.fr/tirage/verifier/promo"
)

// A ceremony whose draw directory cannot draw — an entrant list or a
// secret r that is not the frozen one (a file restored from another
// backup), or a share that is no share — is refused before it takes the
// draw lock: it proves nothing, so it must not leave a lock that only a
// hand may remove. Once the files are put back, it is held.
func TestDrawRefusedBeforeLockOnMismatch(t *testing.T) {
	ctx := context.Background()
	f := freezeFive(t, freezeAt)
	a, data, c := f.a, f.data, f.c
	defer f.lg.Close()
	c.t = drawAt
	dir := filepath.Join(data, "promo", "bonus-crescendo", "1")
	var other [32]byte
	rand.Read(other[:])
	otherList := (&promo.EntrantList{Draw: "bonus-crescendo/1", Key: other, Accounts: fiveOf[1:]}).Format()
	for _, tc := range []struct {
		what, file string
		data       []byte
		share      string
		want       string
	}{
		{"another secret r", "secret", []byte(hex.EncodeToString(other[:]) + "\n"), "text:first share", "r does not match the freeze commitment"},
		{"another entrant list", "entrants.txt", otherList, "text:first share", "entrant list does not match the freeze record"},
		{"no share", "", nil, "first share", "bailiff share"},
	} {
		var saved []byte
		if tc.file != "" {
			var err error
			if saved, err = os.ReadFile(filepath.Join(dir, tc.file)); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, tc.file), tc.data, 0o600); err != nil {
				t.Fatal(err)
			}
		}
		_, err := a.Draw(ctx, DrawRequest{Draw: "bonus-crescendo/1", Share: tc.share})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Fatalf("%s: %v, want %q", tc.what, err, tc.want)
		}
		if _, err := os.Stat(filepath.Join(dir, "draw.lock")); !os.IsNotExist(err) {
			t.Fatalf("%s: the refused ceremony took the draw lock (%v)", tc.what, err)
		}
		if tc.file != "" {
			if err := os.WriteFile(filepath.Join(dir, tc.file), saved, 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := a.Draw(ctx, DrawRequest{Draw: "bonus-crescendo/1", Share: "text:first share"}); err != nil {
		t.Fatalf("the ceremony, its files put back: %v", err)
	}
}

// A ceremony timed before its own freeze (the clock set back between them,
// both times within the rules' dates) is refused, locking nothing:
// rngverify certificate fails freeze-draw-link for it.
func TestDrawRefusedBeforeItsFreeze(t *testing.T) {
	ctx := context.Background()
	f := freezeFive(t, drawAt.Add(2*time.Hour))
	a, data, c := f.a, f.data, f.c
	defer f.lg.Close()
	c.t = drawAt
	_, err := a.Draw(ctx, DrawRequest{Draw: "bonus-crescendo/1", Share: "text:first share"})
	if err == nil || !strings.Contains(err.Error(), "is before its freeze's") {
		t.Fatalf("a ceremony before its freeze: %v", err)
	}
	if _, err := os.Stat(filepath.Join(data, "promo", "bonus-crescendo", "1", "draw.lock")); !os.IsNotExist(err) {
		t.Fatalf("the refused ceremony took the draw lock (%v)", err)
	}
	c.t = drawAt.Add(3 * time.Hour)
	if _, err := a.Draw(ctx, DrawRequest{Draw: "bonus-crescendo/1", Share: "text:first share"}); err != nil {
		t.Fatalf("the ceremony after the freeze: %v", err)
	}
}

// A crash after the draw's append but before draw.idx was written: the log
// holds the draw, and its certificate is made from the log's index (it was
// refused as "not published yet", though it was).
func TestCertifyDrawLoggedWithoutIndex(t *testing.T) {
	ctx := context.Background()
	f := freezeFive(t, freezeAt)
	a, lg, data, c := f.a, f.lg, f.data, f.c
	defer func() { lg.Close() }()
	c.t = drawAt
	d, err := a.Draw(ctx, DrawRequest{Draw: "bonus-crescendo/1", Share: "text:first share"})
	if err != nil {
		t.Fatal(err)
	}
	idx := filepath.Join(data, "promo", "bonus-crescendo", "1", "draw.idx")
	if err := os.Remove(idx); err != nil {
		t.Fatal(err)
	}
	lg.Close()
	a, lg = openRandAppliance(t, data, testKeys(t, f.keys), c)
	cert, err := a.Certify(ctx, "bonus-crescendo/1")
	if err != nil {
		t.Fatalf("certificate of a logged draw without draw.idx: %v", err)
	}
	if got := cert.Verified.DrawRecord.Time; !got.Equal(d.Record.Time) {
		t.Fatalf("certified draw at %v, want %v", got, d.Record.Time)
	}
	if b, err := os.ReadFile(idx); err != nil || strings.TrimSpace(string(b)) != "2" {
		t.Fatalf("draw.idx %q, %v; want 2", b, err)
	}
}
