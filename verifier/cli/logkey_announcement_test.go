package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"tirage.fr/tirage/attestations/attestationstest"
	"tirage.fr/tirage/verifier/receipt/receipttest"
)

// TestKeyFileGivenToTheWrongFlag: a key announcement where the log's
// verifier key is needed, or a verifier key where a VRF key or an
// announcement is, is refused naming the flag, the file and what it wants.
// A tile directory (--dir) serves no vkey: an announcement, which pins the
// log key by fingerprint only, was refused as if no --log-key was given
// ("give --log-key FILE").
func TestKeyFileGivenToTheWrongFlag(t *testing.T) {
	dir := t.TempDir()
	a := newAppliance(t, 13)
	g := playGame(t, a, receipttest.Play{Game: "g-1", StopAt: 1})
	tiles := filepath.Join(dir, "tiles")
	writeTiles(t, tiles, a)
	att, err := attestationstest.New(5, false)
	if err != nil {
		t.Fatal(err)
	}
	ann := write(t, dir, "announcement.json", att.Announcement)
	vkey := write(t, dir, "log.vkey", a.LogKeyFile())
	transcript := write(t, dir, "t.json", a.Transcript(g, receipttest.TranscriptOptions{}))
	state := func(name string) string { return filepath.Join(dir, name+".json") }
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"log", "--dir", tiles, "--state", state("log"), "--log-key", ann},
			"--log-key " + ann + " is a key announcement: it names the log key by its fingerprint only"},
		{[]string{"audit", "--dir", tiles, "--state", state("audit"), "--log-key", ann},
			"--log-key " + ann + " is a key announcement"},
		{[]string{"log", "--dir", tiles, "--state", state("vrf"), "--vrf-key", ann},
			"--vrf-key " + ann + " is a key announcement"},
		{[]string{"game", transcript, "--vrf-key", vkey},
			`--vrf-key ` + vkey + `: line 1: the verifier key of log "tirage.test/log" (Ed25519, a signed-note key as /log/vkey serves it) is not a VRF key: give it to --log-key`},
		{[]string{"attestation", transcript, "--attestation-key", vkey},
			`--attestation-key ` + vkey + `: the verifier key of log "tirage.test/log" (a signed-note key as /log/vkey serves it), not a key announcement`},
	} {
		code, out, errs := run(t, tc.args...)
		if code != ExitUsage || !strings.Contains(errs, tc.want) || strings.Count(errs, "\n") != 1 {
			t.Errorf("%s %s: exit %d\n%s%s\nwant exit %d saying %q", tc.args[0], strings.Join(tc.args[len(tc.args)-2:], " "), code, out, errs, ExitUsage, tc.want)
		}
	}
	// The log's verifier key itself checks the tile directory.
	if code, out, errs := run(t, "log", "--dir", tiles, "--state", state("ok"), "--log-key", vkey); code != ExitOK {
		t.Errorf("log --log-key %s: exit %d\n%s%s", vkey, code, out, errs)
	}
}
