package cli

import (
	"bytes"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tirage.fr/tirage/verifier/checkpoint"
	"tirage.fr/tirage/verifier/receipt/receipttest"
)

// oneLine fails unless the run was refused as a usage error (exit 2), with
// nothing on stdout and one line on stderr holding each of want.
func oneLine(t *testing.T, name string, code int, out, errs string, want ...string) {
	t.Helper()
	if code != ExitUsage || out != "" || strings.Count(errs, "\n") != 1 {
		t.Errorf("%s: exit %d, want %d and one line\nstdout: %s\nstderr: %s", name, code, ExitUsage, out, errs)
		return
	}
	for _, w := range want {
		if !strings.Contains(errs, w) {
			t.Errorf("%s: %q lacks %q", name, errs, w)
		}
	}
}

// logServer serves a's tiles and log keys over HTTP under /log.
func logServer(t *testing.T, a *receipttest.Appliance) string {
	t.Helper()
	files := a.Tiles()
	files["vkey"] = a.LogKeyFile()
	srv := httptest.NewServer(http.StripPrefix("/log/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, ok := files[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Write(b)
	})))
	t.Cleanup(srv.Close)
	return srv.URL + "/log"
}

// TestTOFUWithKeysRefused: --tofu with keys given (--pin, --log-key; for
// certificate also --vrf-key) is refused: before, log and audit trusted
// every key the log served and recorded it as pinned, with no warning,
// whatever the pin.
func TestTOFUWithKeysRefused(t *testing.T) {
	dir := t.TempDir()
	a := newAppliance(t, 21)
	playGame(t, a, receipttest.Play{Game: "g-1"})
	url := logServer(t, a)
	key := write(t, dir, "log.vkey", a.LogKeyFile())
	zeros := strings.Repeat("0", 64)
	state := filepath.Join(dir, "st.json")
	for _, c := range []struct {
		args []string
		flag string
	}{
		{[]string{"log", "--url", url, "--tofu", "--pin", zeros}, "--pin"},
		{[]string{"log", "--url", url, "--tofu", "--log-key", key}, "--log-key"},
		{[]string{"audit", "--url", url, "--tofu", "--pin", zeros, "--quiet"}, "--pin"},
		{[]string{"audit", "--url", url, "--log-key", key, "--tofu", "--quiet"}, "--log-key"},
	} {
		code, out, errs := run(t, append(c.args, "--state", state)...)
		oneLine(t, strings.Join(c.args, " "), code, out, errs, "--tofu", c.flag)
		if _, err := os.Stat(state); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("%s: the state was written", c.args)
		}
	}
	// A pin that matches none of the keys served fails the log-key check,
	// and trusts nothing.
	code, _, errs := run(t, "log", "--url", url, "--pin", zeros, "--state", state)
	if code != ExitFail || !strings.Contains(errs, "NOT VERIFIED, check log-key") {
		t.Errorf("pin matching nothing: exit %d %s", code, errs)
	}
	if _, err := os.Stat(state); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("pin matching nothing: the state was written")
	}
	// --tofu alone still trusts on first use, said loudly.
	code, out, errs := run(t, "log", "--url", url, "--tofu", "--state", state)
	if st, _ := os.ReadFile(state); code != ExitOK || !strings.Contains(errs, "TRUST ON FIRST USE") || !strings.Contains(string(st), `"trust": "first-use"`) {
		t.Errorf("tofu: exit %d\n%s%s\nstate: %s", code, out, errs, st)
	}

	logKeys, ann := certKeys(t)
	lk, _ := checkpoint.ParseKey(logKeys[0])
	for _, c := range []struct {
		args []string
		flag string
	}{
		{[]string{"--pin", lk.Fingerprint()}, "--pin"},
		{[]string{"--vrf-key", ann}, "--vrf-key"},
		{[]string{"--log-key", ann}, "--log-key"},
	} {
		code, out, errs := runCLI(append([]string{"certificate", certFile, "--tofu"}, c.args...)...)
		oneLine(t, "certificate --tofu "+c.flag, code, out, errs, "--tofu", c.flag)
	}
}

// TestPinMatchingNoServedKeyNamed: log and audit given a --pin that none
// of the keys the log serves has name those keys and say the pin matched
// none of them; before, the log-key row asked for "--log-key FILE, --pin
// FINGERPRINT, or --tofu", as if no pin had been given.
func TestPinMatchingNoServedKeyNamed(t *testing.T) {
	dir := t.TempDir()
	a := newAppliance(t, 21)
	playGame(t, a, receipttest.Play{Game: "g-1"})
	url := logServer(t, a)
	k, err := checkpoint.ParseKey(a.LogKeys[0])
	if err != nil {
		t.Fatal(err)
	}
	wrong := strings.Repeat("0", 64)
	for _, c := range []struct{ cmd, lang, served, pinned string }{
		{"log", "en", `no trusted key for log "` + k.Name + `": it serves Ed25519 ` + k.Fingerprint() + ", ", "which no fingerprint pinned (--pin, or a key announcement given to --log-key) names"},
		{"audit", "en", "it serves Ed25519 " + k.Fingerprint() + ", ", "which no fingerprint pinned"},
		{"log", "fr", "il présente Ed25519 " + k.Fingerprint() + ", ", "qu'aucune empreinte épinglée"},
	} {
		state := filepath.Join(dir, c.cmd+c.lang+".json")
		code, out, errs := run(t, c.cmd, "--url", url, "--pin", wrong, "--state", state, "--quiet", "--lang", c.lang)
		if code != ExitFail || !strings.Contains(errs, c.served) || !strings.Contains(errs, c.pinned) || strings.Contains(errs, "--pin FINGERPRINT") || strings.Contains(errs, "--pin EMPREINTE") {
			t.Errorf("%s --lang %s, a pin matching no served key: exit %d, want %q and %q\n%s%s", c.cmd, c.lang, code, c.served, c.pinned, out, errs)
		}
		if _, err := os.Stat(state); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s: the state was written", c.cmd)
		}
	}
}

// TestPromoDocumentPinMatchingNoKeyNamed: a certificate or freeze receipt
// checked with a --pin that none of its log keys has fails log-key naming
// the keys the document names, to compare with the appliance's published
// fingerprints, as a receipt's check does; before, it said only "give the
// log's key file or pin its fingerprint", naming no key.
func TestPromoDocumentPinMatchingNoKeyNamed(t *testing.T) {
	logKeys, _ := certKeys(t)
	ck, err := checkpoint.ParseKey(logKeys[0])
	if err != nil {
		t.Fatal(err)
	}
	_, _, fk := freezeReceiptFixture(t)
	wrong := strings.Repeat("ab", 32)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"certificate", certFile}, "check log-key: no trusted log key: give the log's key file or pin its fingerprint (the document names Ed25519 " + ck.Fingerprint() + ": compare with the appliance's published fingerprints and pin one)"},
		{[]string{"freeze", freezeFile}, "check log-key: no trusted log key: give the log's key file or pin its fingerprint (the document names Ed25519 " + fk.Fingerprint()},
		{[]string{"certificate", certFile, "--lang", "fr"}, "(le document désigne Ed25519 " + ck.Fingerprint() + " : comparez avec les empreintes publiées"},
	} {
		code, out, errs := runCLI(append(c.args, "--pin", wrong)...)
		if code != ExitFail || !strings.Contains(errs, c.want) {
			t.Errorf("%s, a pin of no key of the document: exit %d, want %q\n%s%s", c.args, code, c.want, out, errs)
		}
	}
}

// TestCheckpointMissingNamed: log and audit given a --url or --dir that
// serves no checkpoint (rngd's HTTP address without /log, the data
// directory's log/ rather than log/tiles) name the URL read and ask
// whether it is the log's prefix; before, the URL said only "couldn't
// read the checkpoint: checkpoint: file does not exist".
func TestCheckpointMissingNamed(t *testing.T) {
	dir := t.TempDir()
	a := newAppliance(t, 21)
	playGame(t, a, receipttest.Play{Game: "g-1"})
	root := strings.TrimSuffix(logServer(t, a), "/log")
	key := write(t, dir, "log.vkey", a.LogKeyFile())
	for _, c := range []struct{ args, want []string }{
		{[]string{"log", "--url", root}, []string{"rngverify log: couldn't read the checkpoint: " + root + "/checkpoint: file does not exist (HTTP 404 Not Found): is --url the log's prefix, under which it serves checkpoint, vkey and tile/ (rngd: http://HOST:PORT/log)"}},
		{[]string{"audit", "--url", root, "--quiet"}, []string{"rngverify audit: couldn't read the checkpoint: " + root + "/checkpoint: file does not exist (HTTP 404 Not Found): is --url"}},
		{[]string{"log", "--dir", dir}, []string{"rngverify log: couldn't read the checkpoint: open " + filepath.Join(dir, "checkpoint") + ": no such file or directory: is --url", "or --dir its tile directory (rngd: DATA_DIR/log/tiles)?"}},
		{[]string{"log", "--url", root, "--lang", "fr"}, []string{"rngverify log : impossible de lire le point de contrôle : ", root + "/checkpoint: file does not exist (HTTP 404 Not Found) » : --url est-il le préfixe du journal"}},
	} {
		code, out, errs := run(t, append(c.args, "--log-key", key, "--state", filepath.Join(dir, "st.json"))...)
		oneLine(t, strings.Join(c.args, " "), code, out, errs, c.want...)
	}
}

// TestCertificateReservesNegative: a negative --reserves is refused; before,
// any negative count read as "not given".
func TestCertificateReservesNegative(t *testing.T) {
	for _, n := range []string{"-5", "-1"} {
		code, out, errs := runCLI("certificate", certFile, "--tofu", "--reserves", n)
		oneLine(t, "--reserves "+n, code, out, errs, "--reserves "+n)
	}
	code, out, errs := runCLI("certificate", certFile, "--tofu", "--reserves", "-1", "--lang", "fr")
	oneLine(t, "--reserves -1 --lang fr", code, out, errs, "--reserves -1")
}

// TestAuditWorkersBad: --workers out of 1..maxWorkers is refused (before, a
// negative count was taken silently; a huge one sized the job queue).
func TestAuditWorkersBad(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"-3", "0", "1000000000000"} {
		code, out, errs := run(t, "audit", "--dir", dir, "--tofu", "--workers", n, "--state", filepath.Join(dir, "st.json"))
		oneLine(t, "--workers "+n, code, out, errs, "--workers", n)
	}
}

// TestVRFLangBad: rngverify vrf refuses a --lang other than fr or en, as
// the other commands do.
func TestVRFLangBad(t *testing.T) {
	c := vrfCases(t)[0]
	code, out, errs := run(t, append(append([]string{"vrf"}, c.args()...), "--lang", "de")...)
	oneLine(t, "vrf --lang de", code, out, errs, `--lang: "de", want fr or en`)
}

// TestStateMissing: game, receipt and certificate only read --state: a path
// that does not exist is an error naming it (before, an empty state, and
// the checks against it silently absent); log creates it.
func TestStateMissing(t *testing.T) {
	dir := t.TempDir()
	a := newAppliance(t, 22)
	g := playGame(t, a, receipttest.Play{Game: "g-1", StopAt: 1})
	tr := write(t, dir, "t.json", a.Transcript(g, receipttest.TranscriptOptions{}))
	rc := write(t, dir, "r.json", a.Receipt(g, 1, true))
	key := write(t, dir, "log.vkey", a.LogKeyFile())
	none := filepath.Join(dir, "nonexist.json")
	for _, args := range [][]string{
		{"game", tr, "--log-key", key},
		{"receipt", rc, "--log-key", key},
		{"certificate", certFile, "--tofu"},
	} {
		code, out, errs := run(t, append(args, "--state", none)...)
		oneLine(t, args[0], code, out, errs, "--state", none)
		code, out, errs = run(t, append(args, "--state", none, "--lang", "fr")...)
		oneLine(t, args[0]+" fr", code, out, errs, "--state : le fichier "+none+" n'existe pas")
	}
	if _, err := os.Stat(none); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("the state was created")
	}
}

// TestStateOtherKeys: keys given for a log the state already trusts with
// other keys are an error naming the flag and the state file, the state
// unchanged (before, they were ignored and the run failed with "signed by
// none of the trusted keys").
func TestStateOtherKeys(t *testing.T) {
	dir := t.TempDir()
	a := newAppliance(t, 23)
	playGame(t, a, receipttest.Play{Game: "g-1"})
	url := logServer(t, a)
	key := write(t, dir, "log.vkey", a.LogKeyFile())
	other := newAppliance(t, 24) // the same origin, another key
	otherKey := write(t, dir, "live.vkey", other.LogKeyFile())
	ok, _ := checkpoint.ParseKey(other.LogKeys[0])
	mine, _ := checkpoint.ParseKey(a.LogKeys[0])
	if ok.Name != mine.Name || ok.Fingerprint() == mine.Fingerprint() {
		t.Fatalf("want two keys of one log: %s %s", ok.Name, mine.Name)
	}
	state := filepath.Join(dir, "st1.json")
	if code, out, errs := run(t, "log", "--url", url, "--log-key", key, "--state", state); code != ExitOK {
		t.Fatalf("first run: exit %d\n%s%s", code, out, errs)
	}
	before, _ := os.ReadFile(state)
	for _, c := range []struct {
		args []string
		flag string
	}{
		{[]string{"log", "--log-key", otherKey}, "--log-key"},
		{[]string{"log", "--pin", ok.Fingerprint()}, "--pin"},
		{[]string{"audit", "--log-key", otherKey, "--quiet"}, "--log-key"},
	} {
		code, out, errs := run(t, append(c.args, "--url", url, "--state", state)...)
		oneLine(t, strings.Join(c.args, " "), code, out, errs, c.flag, state, "already trusted with other keys")
	}
	if after, _ := os.ReadFile(state); !bytes.Equal(before, after) {
		t.Error("the state changed")
	}
	// The keys it holds, given again: fine.
	if code, out, errs := run(t, "log", "--url", url, "--log-key", key, "--pin", mine.Fingerprint(), "--state", state); code != ExitOK {
		t.Errorf("same keys: exit %d\n%s%s", code, out, errs)
	}
}

// TestUnreadableNamesFile: an unreadable document is named in the one line
// (game, receipt, certificate), and a certificate that is not a JSON object
// says so without the Go type of its probe.
func TestUnreadableNamesFile(t *testing.T) {
	dir := t.TempDir()
	a := newAppliance(t, 25)
	key := write(t, dir, "log.vkey", a.LogKeyFile())
	passwd := write(t, dir, "passwd", []byte("root:x:0:0:root:/root:/bin/bash\n"))
	arr := write(t, dir, "arr.json", []byte("[]"))
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"game", passwd, "--log-key", key}, "rngverify game: unreadable input: " + passwd + ": not a transcript: invalid character"},
		{[]string{"receipt", passwd, "--log-key", key}, "rngverify receipt: unreadable input: " + passwd + ": not a receipt: invalid character"},
		{[]string{"game", arr, "--log-key", key}, "rngverify game: unreadable input: " + arr + ": not a transcript: "},
		{[]string{"certificate", arr, "--tofu"}, "rngverify certificate: unreadable input: " + arr + " is not a promotion certificate: json: cannot unmarshal array into Go value of type promo.Certificate\n"},
		{[]string{"certificate", write(t, dir, "extra.json", []byte(`{"draw":"d","extra":1}`)), "--tofu"}, "unreadable input: " + filepath.Join(dir, "extra.json") + ": not a certificate: json: unknown field"},
	} {
		code, out, errs := run(t, c.args...)
		oneLine(t, strings.Join(c.args, " "), code, out, errs, c.want)
		if strings.Contains(errs, "struct {") {
			t.Errorf("%s: a Go type: %s", c.args, errs)
		}
	}
}

// TestFetcherRedirect: the log's URL is read on its host: a redirect to
// another host is refused with an error saying so; one on the same host is
// followed.
func TestFetcherRedirect(t *testing.T) {
	a := newAppliance(t, 26)
	playGame(t, a, receipttest.Play{Game: "g-1"})
	url := logServer(t, a)
	away := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, url+strings.TrimPrefix(r.URL.Path, "/log"), http.StatusFound)
	}))
	t.Cleanup(away.Close)
	moved := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p, ok := strings.CutPrefix(r.URL.Path, "/old/"); ok {
			http.Redirect(w, r, "/log/"+p, http.StatusMovedPermanently)
			return
		}
		http.Redirect(w, r, url+strings.TrimPrefix(r.URL.Path, "/log"), http.StatusFound)
	}))
	t.Cleanup(moved.Close)

	f, err := newHTTPFetcher(away.URL+"/log", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Fetch(t.Context(), "checkpoint"); err == nil || !strings.Contains(err.Error(), "redirect to another host") {
		t.Errorf("redirect to another host: %v", err)
	}
	dir := t.TempDir()
	code, out, errs := run(t, "log", "--url", away.URL+"/log", "--tofu", "--state", filepath.Join(dir, "st.json"))
	oneLine(t, "log via another host", code, out, errs, "redirect to another host")
	// A path moved on the same host (then sent away: refused too).
	code, out, errs = run(t, "log", "--url", moved.URL+"/old", "--tofu", "--state", filepath.Join(dir, "st.json"))
	oneLine(t, "log moved then away", code, out, errs, "redirect to another host")
	direct, err := newHTTPFetcher(url, "")
	if err != nil {
		t.Fatal(err)
	}
	want, err := direct.Fetch(t.Context(), "checkpoint")
	if err != nil {
		t.Fatal(err)
	}
	sameHost := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p, ok := strings.CutPrefix(r.URL.Path, "/old/"); ok {
			http.Redirect(w, r, "/log/"+p, http.StatusMovedPermanently)
			return
		}
		w.Write(want)
	}))
	t.Cleanup(sameHost.Close)
	f, _ = newHTTPFetcher(sameHost.URL+"/old", "")
	if got, err := f.Fetch(t.Context(), "checkpoint"); err != nil || !bytes.Equal(got, want) {
		t.Errorf("redirect on the same host: %v %q", err, got)
	}
}
