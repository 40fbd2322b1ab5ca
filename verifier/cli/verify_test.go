package cli

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"tirage.fr/tirage/internal/peertest"
	"tirage.fr/tirage/verifier/announce"
	"tirage.fr/tirage/verifier/checkpoint"
	"tirage.fr/tirage/verifier/receipt"
	"tirage.fr/tirage/verifier/receipt/receipttest"
	"tirage.fr/tirage/verifier/record"
	"tirage.fr/tirage/verifier/verdict"
)

// run runs rngverify with args and returns the exit code, stdout and stderr.
func run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Run(Env{Args: args, Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb})
	return code, out.String(), errb.String()
}

func write(t *testing.T, dir, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

func newAppliance(t *testing.T, seed byte) *receipttest.Appliance {
	t.Helper()
	a, err := receipttest.New(seed)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func playGame(t *testing.T, a *receipttest.Appliance, p receipttest.Play) *receipttest.Game {
	t.Helper()
	g, err := a.PlayGame(p)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func writeTiles(t *testing.T, dir string, a *receipttest.Appliance) {
	t.Helper()
	for p, b := range a.Tiles() {
		write(t, dir, p, b)
	}
}

func TestGameAndReceiptCommands(t *testing.T) {
	dir := t.TempDir()
	a := newAppliance(t, 11)
	g := playGame(t, a, receipttest.Play{Game: "g-1", StopAt: 2})
	logKey := write(t, dir, "log.vkey", a.LogKeyFile())
	transcript := write(t, dir, "game.json", a.Transcript(g, receipttest.TranscriptOptions{}))
	rcpt := write(t, dir, "receipt.json", a.Receipt(g, 1, true))

	code, out, errs := run(t, "game", transcript, "--log-key", logKey)
	if code != ExitOK || !strings.Contains(out, "VERDICT: every check passed") {
		t.Fatalf("game: exit %d\n%s%s", code, out, errs)
	}
	for _, c := range []string{"chain", "commitment", "vrf-proof", "outcome", "rules", "inclusion", "checkpoint-signature"} {
		if !strings.Contains(out, "[PASS] "+c) {
			t.Errorf("game output lacks a passed %s check:\n%s", c, out)
		}
	}
	code, out, _ = run(t, "game", transcript, "--log-key", logKey, "--lang", "fr")
	if code != ExitOK || !strings.Contains(out, "toutes les vérifications sont réussies") || !strings.Contains(out, "engagement sur le secret") {
		t.Errorf("game --lang fr: exit %d\n%s", code, out)
	}
	code, out, _ = run(t, "game", "--json", "--log-key", logKey, transcript)
	var j struct {
		Verdict string `json:"verdict"`
		Checks  []struct{ Check, Status string }
	}
	if err := json.Unmarshal([]byte(out), &j); code != ExitOK || err != nil || j.Verdict != "pass" || len(j.Checks) < 8 {
		t.Errorf("game --json: exit %d err %v %+v", code, err, j)
	}
	// Receipt: trusted by pinned fingerprints only.
	k, _ := checkpoint.ParseKey(a.LogKeys[0])
	code, out, errs = run(t, "receipt", rcpt, "--pin", k.Fingerprint(), "--pin", a.VRFPin())
	if code != ExitOK {
		t.Fatalf("receipt: exit %d\n%s%s", code, out, errs)
	}
	// The VRF key pinned by a bare fingerprint: its bytes, not its suite
	// (a P-256 key proves under two suites): not verified, saying how to pin.
	code, out, errs = run(t, "receipt", rcpt, "--pin", k.Fingerprint(), "--pin", a.VRFFingerprint())
	if code != ExitFail || !strings.Contains(errs, "NOT VERIFIED, check vrf-key") || !strings.Contains(errs, "pin SUITE:fingerprint") {
		t.Errorf("receipt, bare VRF pin: exit %d\n%s%s", code, out, errs)
	}
	// A pin naming the other suite trusts nothing.
	code, out, errs = run(t, "receipt", rcpt, "--pin", k.Fingerprint(), "--pin", "ECVRF-P256-SHA256-TAI:"+a.VRFFingerprint())
	if code != ExitFail || !strings.Contains(errs, "NOT VERIFIED, check vrf-key") || !strings.Contains(errs, "is not trusted") {
		t.Errorf("receipt, other suite pinned: exit %d\n%s%s", code, out, errs)
	}
	// The game's transcript carries its key announcement, logged before
	// the game, which fixes the suite: a bare pin is enough there.
	code, out, errs = run(t, "game", transcript, "--pin", k.Fingerprint(), "--pin", a.VRFFingerprint())
	if code != ExitOK {
		t.Errorf("game, bare VRF pin: exit %d\n%s%s", code, out, errs)
	}
	// No trust anchor: not verified, exit 1, ordinary wording.
	code, _, errs = run(t, "receipt", rcpt)
	if code != ExitFail || !strings.Contains(errs, "NOT VERIFIED, check log-key") {
		t.Errorf("receipt without anchors: exit %d %q", code, errs)
	}
	// Usage errors and unreadable input: exit 2.
	for _, args := range [][]string{
		{"game"}, {"game", "a", "b"}, {"game", transcript, "--lang", "de"}, {"game", filepath.Join(dir, "missing.json")},
		{"receipt", rcpt, "--pin", "xyz"}, {"game", logKey, "--log-key", logKey},
		{"receipt", rcpt, "--pin", "ECVRF-EDWARDS25519-SHA512-TAI:" + a.VRFFingerprint()}, {"receipt", rcpt, "--pin", "ECVRF-P256-SHA256-SSWU:xyz"},
	} {
		if code, _, errs := run(t, args...); code != ExitUsage || errs == "" {
			t.Errorf("%q: exit %d %q, want 2", args, code, errs)
		}
	}
}

// TestCheatingApplianceCommands: each lie ends in exit 1 with the
// misbehaviour wording and the right check named.
func TestCheatingApplianceCommands(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name  string
		play  receipttest.Play
		opts  receipttest.TranscriptOptions
		check string
	}{
		{"forged-proof", receipttest.Play{Cheat: receipttest.Cheat{ForgeProof: 3}}, receipttest.TranscriptOptions{}, "vrf-proof"},
		{"swapped-outcome", receipttest.Play{Cheat: receipttest.Cheat{SwapOutcome: 1}}, receipttest.TranscriptOptions{}, "outcome"},
		{"broken-chain", receipttest.Play{Cheat: receipttest.Cheat{BadPrev: 2}}, receipttest.TranscriptOptions{}, "chain"},
		{"wrong-r", receipttest.Play{Cheat: receipttest.Cheat{WrongSecret: true}}, receipttest.TranscriptOptions{}, "commitment"},
	} {
		a := newAppliance(t, 12)
		tc.play.Game = "g-" + tc.name
		g := playGame(t, a, tc.play)
		f := write(t, dir, tc.name+".json", a.Transcript(g, tc.opts))
		key := write(t, dir, tc.name+".vkey", a.LogKeyFile())
		code, out, errs := run(t, "game", f, "--log-key", key)
		if code != ExitFail || !strings.Contains(errs, "MISBEHAVIOUR PROVEN, check "+tc.check+":") || !strings.Contains(out, "[MISBEHAVIOUR] "+tc.check) {
			t.Errorf("%s: exit %d\nstderr %s\n%s", tc.name, code, errs, out)
		}
	}
}

// TestEditedTranscriptCommands: a transcript anyone edited — a record
// deleted or moved, one character of a β changed — is NOT VERIFIED, never
// MISBEHAVIOUR PROVEN, with the log key or with no anchor at all.
func TestEditedTranscriptCommands(t *testing.T) {
	dir := t.TempDir()
	a := newAppliance(t, 12)
	g := playGame(t, a, receipttest.Play{Game: "g-edited"})
	var tr receipt.Transcript
	json.Unmarshal(a.Transcript(g, receipttest.TranscriptOptions{}), &tr)
	r := tr.Records[1].Record
	i := strings.Index(r, `"beta":"`) + len(`"beta":"`)
	c := "0"
	if r[i] == '0' {
		c = "1"
	}
	tr.Records[1].Record = r[:i] + c + r[i+1:]
	key := write(t, dir, "log.vkey", a.LogKeyFile())
	for name, file := range map[string][]byte{
		"dropped":   a.Transcript(g, receipttest.TranscriptOptions{Drop: 2}),
		"reordered": a.Transcript(g, receipttest.TranscriptOptions{Swap: 3}),
		"beta":      receipt.Marshal(&tr),
	} {
		f := write(t, dir, name+".json", file)
		for _, args := range [][]string{{"game", f, "--log-key", key}, {"game", f}, {"game", f, "--lang", "fr"}} {
			code, out, errs := run(t, args...)
			if code != ExitFail || strings.Contains(errs+out, "MISBEHAVIOUR") || strings.Contains(errs+out, "MANQUEMENT") ||
				!(strings.Contains(errs, "NOT VERIFIED") || strings.Contains(errs, "NON VÉRIFIÉ")) {
				t.Errorf("%s %v: exit %d\nstderr %s\n%s", name, args[2:], code, errs, out)
			}
		}
	}
}

// TestFileLimits: a document, key file or entrant list is read up to a
// limit, and one beyond it (a device such as /dev/zero) is refused with an
// error naming the file and the limit.
func TestFileLimits(t *testing.T) {
	dir := t.TempDir()
	big := func(name string, size int64) string {
		p := filepath.Join(dir, name)
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if err := f.Truncate(size); err != nil { // sparse: nothing is written
			t.Fatal(err)
		}
		return p
	}
	doc := big("game.json", maxDocument+1)
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"game", doc}, ExitUsage, "couldn't read " + doc + ": " + doc + " is larger than 16 MiB, the limit for a document to check (receipt, transcript, certificate, freeze receipt or attestation)"},
		{[]string{"receipt", doc, "--lang", "fr"}, ExitUsage, doc + " dépasse 16 Mio, la limite pour un document à vérifier (reçu, transcription, certificat, reçu de gel ou attestation)"},
		{[]string{"game", "x.json", "--log-key", big("log.vkey", maxKeyFile+1)}, ExitUsage, "is larger than 1 MiB, the limit for a key file"},
		{[]string{"game", "x.json", "--vrf-key", big("vrf.key", maxKeyFile+1)}, ExitUsage, "is larger than 1 MiB, the limit for a key file"},
		{[]string{"certificate", certFile, "--tofu", "--entrants", big("entrants.txt", maxEntrants+1)}, ExitUsage,
			"is larger than 1024 MiB, the limit for an entrant list (10 million entrants with 64-character account ids fit in it)"},
		{[]string{"certificate", certFile, "--tofu", "--rules", big("rules.yaml", maxRules+1)}, ExitUsage, "is larger than 16 MiB, the limit for a rules file"},
		{[]string{"certificate", big("cert.json", maxDocument+1), "--tofu"}, ExitUsage, "is larger than 16 MiB"},
	} {
		code, _, errs := run(t, tc.args...)
		if code != tc.code || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tc.args, code, errs, tc.code, tc.want)
		}
	}
	if _, err := os.Stat("/dev/zero"); err != nil {
		peertest.Absent(t, "no /dev/zero: %v", err)
	}
	// A device has no size: it is read up to the limit only.
	if code, _, errs := run(t, "game", "/dev/zero"); code != ExitUsage || !strings.Contains(errs, "/dev/zero is larger than 16 MiB") {
		t.Errorf("game /dev/zero: exit %d %q", code, errs)
	}
	// An entrant list must begin as one: /dev/zero is refused at once.
	if code, out, _ := run(t, "certificate", certFile, "--tofu", "--entrants", "/dev/zero"); code != ExitFail || !strings.Contains(out, `first line must be "tirage promotion entrants v1"`) {
		t.Errorf("--entrants /dev/zero: exit %d %s", code, out)
	}
	// Within the limits, the files are read whole.
	head := "tirage promotion entrants v1\n"
	p := write(t, dir, "list.txt", []byte(head+strings.Repeat("x", 100)))
	for _, limit := range []int64{int64(len(head) + 100), int64(len(head) + 99)} {
		b, err := readFileHead(p, limit, verdict.MsgLimitEntrants, head)
		if fits := limit >= int64(len(head)+100); fits != (err == nil) || (fits && string(b) != head+strings.Repeat("x", 100)) {
			t.Errorf("limit %d: %q %v", limit, b, err)
		}
	}
}

// TestGameHelpNamesTheRealSource: rngverify game -h says where a
// transcript comes from (rngd's GetTranscript; rngctl has no such command).
func TestGameHelpNamesTheRealSource(t *testing.T) {
	for _, lang := range []string{"en", "fr"} {
		code, _, errs := run(t, "game", "-h", "--lang", lang)
		if code != ExitOK || strings.Contains(errs, "rngctl qod transcript") || !strings.Contains(errs, "tirage.qod.v1.QuitteOuDouble/GetTranscript") {
			t.Errorf("game -h --lang %s: exit %d\n%s", lang, code, errs)
		}
	}
}

func TestLogCommandDir(t *testing.T) {
	dir := t.TempDir()
	a := newAppliance(t, 13)
	playGame(t, a, receipttest.Play{Game: "g-1"})
	tiles := filepath.Join(dir, "tiles")
	writeTiles(t, tiles, a)
	state := filepath.Join(dir, "state.json")
	key := write(t, dir, "log.vkey", a.LogKeyFile())

	// No key, no TOFU: not verified.
	if code, _, errs := run(t, "log", "--dir", tiles, "--state", state); code != ExitFail || !strings.Contains(errs, "log-key") {
		t.Fatalf("log without key: exit %d %s", code, errs)
	}
	code, out, errs := run(t, "log", "--dir", tiles, "--state", state, "--log-key", key)
	if code != ExitOK {
		t.Fatalf("first log: exit %d\n%s%s", code, out, errs)
	}
	st, err := os.ReadFile(state)
	if err != nil || !strings.Contains(string(st), `"trust": "pinned"`) {
		t.Fatalf("state: %s %v", st, err)
	}
	// The log grows: consistent; the keys now come from the state.
	old := a.Fork(a.Size())
	playGame(t, a, receipttest.Play{Game: "g-2", StopAt: 1})
	writeTiles(t, tiles, a)
	code, out, errs = run(t, "log", "--dir", tiles, "--state", state)
	if code != ExitOK || !strings.Contains(out, "[PASS] log-consistency") {
		t.Fatalf("grown log: exit %d\n%s%s", code, out, errs)
	}
	// A fork of the same size with another history: misbehaviour, state unchanged.
	fork := old.Fork(old.Size())
	playGame(t, fork, receipttest.Play{Game: "g-2-forked", StopAt: 1, Numbers: []int{30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17, 16, 15, 14, 13, 12, 11}})
	for fork.Size() < a.Size() {
		fork.Append([]byte(`{"kind":"padding"}`))
	}
	fork = fork.Fork(a.Size())
	forkDir := filepath.Join(dir, "fork")
	writeTiles(t, forkDir, fork)
	before, _ := os.ReadFile(state)
	code, out, errs = run(t, "log", "--dir", forkDir, "--state", state)
	if code != ExitFail || !strings.Contains(errs, "MISBEHAVIOUR PROVEN, check log-consistency") {
		t.Fatalf("fork: exit %d\n%s%s", code, out, errs)
	}
	if after, _ := os.ReadFile(state); !bytes.Equal(before, after) {
		t.Error("the state changed after a fork")
	}
}

func TestLogAndAuditURL(t *testing.T) {
	dir := t.TempDir()
	a := newAppliance(t, 14)
	for i := range 12 {
		playGame(t, a, receipttest.Play{Game: "g-" + string(rune('a'+i)), StopAt: i % 4})
	}
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
	defer srv.Close()
	url := srv.URL + "/log"

	// TOFU, said loudly; each key printed as the pin to give later runs.
	k, _ := checkpoint.ParseKey(a.LogKeys[0])
	state := filepath.Join(dir, "tofu.json")
	code, out, errs := run(t, "log", "--url", url, "--state", state, "--tofu")
	if code != ExitOK || !strings.Contains(errs, "TRUST ON FIRST USE") || !strings.Contains(errs, "\n  Ed25519 key  --pin "+k.Fingerprint()+"\n") {
		t.Fatalf("tofu: exit %d\n%s%s", code, out, errs)
	}
	if st, _ := os.ReadFile(state); !strings.Contains(string(st), `"trust": "first-use"`) {
		t.Errorf("state: %s", st)
	}
	// Pinned fingerprint, then a full audit.
	state = filepath.Join(dir, "pinned.json")
	code, out, errs = run(t, "audit", "--url", url, "--state", state, "--pin", k.Fingerprint(), "--pin", a.VRFPin())
	if code != ExitOK || !strings.Contains(out, "[PASS] games") || !strings.Contains(out, "losing pick, 30 hidden") || !strings.Contains(errs, "entries 100%") {
		t.Fatalf("audit: exit %d\n%s\nstderr: %s", code, out, errs)
	}
	// A pin that matches nothing the log serves.
	code, _, errs = run(t, "audit", "--url", url, "--state", filepath.Join(dir, "x.json"), "--pin", strings.Repeat("0", 64), "--quiet")
	if code != ExitFail || !strings.Contains(errs, "log-key") {
		t.Errorf("wrong pin: exit %d %s", code, errs)
	}
}

func TestVRFKeyFiles(t *testing.T) {
	dir := t.TempDir()
	a := newAppliance(t, 15)
	g := playGame(t, a, receipttest.Play{Game: "g-k", StopAt: 1})
	rcpt := write(t, dir, "r.json", a.Receipt(g, 1, true))
	logKey := write(t, dir, "log.vkey", a.LogKeyFile())
	line := write(t, dir, "vrf.key", []byte(fmt.Sprintf("# the appliance's VRF key\nECVRF-P256-SHA256-SSWU %x\n", a.VRF.Public().Bytes())))
	// The appliance's announcement record, its VRF key sealed by its proof
	// of possession (verifier/announce).
	r, err := record.Parse(a.Leaf(0))
	if err != nil {
		t.Fatal(err)
	}
	ka := r.(*record.KeyAnnouncement)
	ka.Keys = ka.Keys[:1]
	sealed, err := announce.Seal(ka, func(_ int, m []byte) ([]byte, error) { return a.VRF.Prove(m) })
	if err != nil {
		t.Fatal(err)
	}
	ann := write(t, dir, "keys.json", sealed)
	for _, f := range []string{line, ann} {
		if code, out, errs := run(t, "receipt", rcpt, "--log-key", logKey, "--vrf-key", f); code != ExitOK {
			t.Errorf("--vrf-key %s: exit %d\n%s%s", filepath.Base(f), code, out, errs)
		}
	}
	// An announcement whose keys do not prove possession is refused, with
	// the failing check named: unsigned, or a key swapped after sealing.
	unsigned := write(t, dir, "unsigned.json", a.Leaf(0))
	other := newAppliance(t, 16)
	ka.Keys[0].PublicKey = other.VRF.Public().Bytes()
	ka.Keys[0].Fingerprint = record.Fingerprint(ka.Keys[0].PublicKey)
	swapped := write(t, dir, "swapped.json", must(record.Format(ka)))
	for f, check := range map[string]string{unsigned: "envelope", swapped: "payload"} {
		for _, flag := range []string{"--vrf-key", "--log-key"} {
			code, _, errs := run(t, "receipt", rcpt, flag, f)
			if code != ExitUsage || !strings.Contains(errs, "bad key announcement: "+check) || strings.Count(errs, "\n") != 1 {
				t.Errorf("%s %s: exit %d %q, want exit 2 naming %s", flag, filepath.Base(f), code, errs, check)
			}
		}
	}
	wrong := write(t, dir, "other.key", []byte(fmt.Sprintf("ECVRF-P256-SHA256-SSWU %x\n", other.VRF.Public().Bytes())))
	if code, _, errs := run(t, "receipt", rcpt, "--log-key", logKey, "--vrf-key", wrong); code != ExitFail || !strings.Contains(errs, "check vrf-key") {
		t.Errorf("another VRF key: exit %d %s", code, errs)
	}
	bad := write(t, dir, "bad.key", []byte("ECVRF-P256-SHA256-SSWU zz\n"))
	if code, _, _ := run(t, "receipt", rcpt, "--vrf-key", bad); code != ExitUsage {
		t.Errorf("unreadable --vrf-key: exit %d", code)
	}
}

// TestBinary drives the built rngverify as a user would and checks exit codes.
func TestBinary(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "rngverify")
	if out, err := exec.Command("go", "build", "-o", bin, "tirage.fr/tirage/cmd/rngverify").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	a := newAppliance(t, 17)
	g := playGame(t, a, receipttest.Play{Game: "g-bin", StopAt: 3})
	bad := playGame(t, a, receipttest.Play{Game: "g-bin-bad", Cheat: receipttest.Cheat{WrongSecret: true}})
	key := write(t, dir, "log.vkey", a.LogKeyFile())
	good := write(t, dir, "good.json", a.Transcript(g, receipttest.TranscriptOptions{}))
	cheat := write(t, dir, "cheat.json", a.Transcript(bad, receipttest.TranscriptOptions{}))
	tiles := filepath.Join(dir, "tiles")
	writeTiles(t, tiles, a)
	state := filepath.Join(dir, "state.json")
	for _, c := range []struct {
		args []string
		code int
	}{
		{[]string{"game", good, "--log-key", key}, 0},
		{[]string{"game", cheat, "--log-key", key, "--json"}, 1},
		{[]string{"game", good}, 1},
		{[]string{"game"}, 2},
		{[]string{"game", filepath.Join(dir, "nope.json")}, 2},
		{[]string{"log", "--dir", tiles, "--log-key", key, "--state", state}, 0},
		{[]string{"audit", "--dir", tiles, "--state", state, "--quiet"}, 1}, // the cheating game
		{[]string{"log", "--url", "ftp://x"}, 2},
	} {
		cmd := exec.Command(bin, c.args...)
		out, _ := cmd.CombinedOutput()
		if got := cmd.ProcessState.ExitCode(); got != c.code {
			t.Errorf("rngverify %s: exit %d, want %d\n%s", strings.Join(c.args, " "), got, c.code, out)
		}
	}
}

// TestReceiptAgainstState: a receipt proven against a checkpoint of the
// trusted size but another root is a fork.
func TestReceiptAgainstState(t *testing.T) {
	rc, state, pin := forkedReceipt(t, t.TempDir(), 18)
	code, out, errs := run(t, "receipt", rc, "--state", state, "--pin", pin)
	if code != ExitFail || !strings.Contains(errs, "MISBEHAVIOUR PROVEN, check log-consistency") {
		t.Errorf("forked receipt: exit %d %s\n%s", code, errs, out)
	}
}

// forkedReceipt writes a trust state that has seen the log of one appliance
// (rngverify log) and a receipt proven in a fork of that log of the same
// size, and returns the receipt's path, the state's and the fork's VRF
// fingerprint.
func forkedReceipt(t *testing.T, dir string, seed byte) (receipt, state, vrfPin string) {
	t.Helper()
	a := newAppliance(t, seed)
	playGame(t, a, receipttest.Play{Game: "g-0"})
	fork := a.Fork(a.Size())
	playGame(t, a, receipttest.Play{Game: "g-1", StopAt: 1})
	g := playGame(t, fork, receipttest.Play{Game: "g-1", StopAt: 2, Numbers: []int{9, 8, 7, 6, 5, 4, 3, 2, 1, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20}})
	for fork.Size() < a.Size() {
		fork.Append([]byte("pad"))
	}
	for a.Size() < fork.Size() {
		a.Append([]byte("pad"))
	}
	tiles := filepath.Join(dir, "tiles")
	writeTiles(t, tiles, a)
	key := write(t, dir, "log.vkey", a.LogKeyFile())
	state = filepath.Join(dir, "state.json")
	if code, out, errs := run(t, "log", "--dir", tiles, "--log-key", key, "--state", state); code != ExitOK {
		t.Fatalf("log: %d\n%s%s", code, out, errs)
	}
	return write(t, dir, "forked-receipt.json", fork.Receipt(g, 1, true)), state, fork.VRFPin()
}

// TestLogMalformedCheckpoint: a checkpoint that does not parse is signed by
// nobody — a wrong URL, a proxy's error page, a damaged copy — so it proves
// nothing against the log: NOT VERIFIED, never MISBEHAVIOUR PROVEN.
func TestLogMalformedCheckpoint(t *testing.T) {
	dir := t.TempDir()
	a := newAppliance(t, 14)
	tiles := filepath.Join(dir, "tiles")
	writeTiles(t, tiles, a)
	key := write(t, dir, "log.vkey", a.LogKeyFile())
	write(t, tiles, "checkpoint", []byte("<html>502 Bad Gateway</html>\n"))
	for _, cmd := range []string{"log", "audit"} {
		code, out, errs := run(t, cmd, "--dir", tiles, "--state", filepath.Join(dir, cmd+".json"), "--log-key", key)
		if code != ExitFail || strings.Contains(errs, "MISBEHAVIOUR") || strings.Contains(out, "MISBEHAVIOUR") || !strings.Contains(errs, "malformed checkpoint") {
			t.Errorf("%s with a malformed checkpoint: exit %d\n%s%s", cmd, code, out, errs)
		}
	}
}

// TestAuditLogKeyPinned: pinning the log's key (--pin, its fingerprint as
// rngd prints it) trusts the log; it does not pin the VRF keys, which the
// audit then takes from the log's key records (it failed every announced
// VRF key as "not pinned" when the log key's pin was taken for a VRF pin).
func TestAuditLogKeyPinned(t *testing.T) {
	dir := t.TempDir()
	a := newAppliance(t, 18)
	playGame(t, a, receipttest.Play{Game: "g-pin", StopAt: 2})
	tiles := filepath.Join(dir, "tiles")
	writeTiles(t, tiles, a)
	write(t, tiles, "vkey", a.LogKeyFile())
	keys, err := checkpoint.ParseKeys(string(a.LogKeyFile()))
	if err != nil {
		t.Fatal(err)
	}
	code, out, errs := run(t, "audit", "--dir", tiles, "--state", filepath.Join(dir, "s.json"), "--quiet", "--pin", keys[0].Fingerprint(), "--pin", keys[1].Fingerprint())
	if code != ExitOK {
		t.Fatalf("audit with the log key pinned: exit %d\n%s%s", code, out, errs)
	}
	// With a VRF key pinned too, the announced key must be it.
	other := newAppliance(t, 19)
	code, out, errs = run(t, "audit", "--dir", tiles, "--state", filepath.Join(dir, "s2.json"), "--quiet", "--pin", keys[0].Fingerprint(), "--pin", keys[1].Fingerprint(), "--pin", other.VRFPin())
	if code != ExitFail || !strings.Contains(errs, "vrf-key") {
		t.Fatalf("audit with another VRF key pinned: exit %d\n%s%s", code, out, errs)
	}
	// A key given with --vrf-key is required as a pinned one is.
	for i, c := range []struct {
		k    *receipttest.Appliance
		want int
	}{{a, ExitOK}, {other, ExitFail}} {
		pk := c.k.VRF.Public()
		kf := write(t, dir, fmt.Sprintf("vrf%d.key", i), []byte(string(pk.Suite())+" "+hex.EncodeToString(pk.Bytes())+"\n"))
		code, out, errs = run(t, "audit", "--dir", tiles, "--state", filepath.Join(dir, fmt.Sprintf("s%d.json", i+3)), "--quiet", "--pin", keys[0].Fingerprint(), "--vrf-key", kf)
		if code != c.want {
			t.Fatalf("audit --vrf-key %d: exit %d, want %d\n%s%s", i, code, c.want, out, errs)
		}
	}
}

// TestAuditSuitePin: a suite pin (--pin SUITE:FP, or a key given with
// --vrf-key) fixes the suite the log must announce its key under, as for a
// receipt or a transcript; the audit once kept only the fingerprint and
// passed "keys announced and pinned" for the key's bytes under the other
// P-256 suite. A bare pin still takes the suite from the log's announcement.
func TestAuditSuitePin(t *testing.T) {
	dir := t.TempDir()
	a := newAppliance(t, 20) // an ECVRF-P256-SHA256-SSWU key
	playGame(t, a, receipttest.Play{Game: "g-suite", StopAt: 1})
	tiles := filepath.Join(dir, "tiles")
	writeTiles(t, tiles, a)
	write(t, tiles, "vkey", a.LogKeyFile())
	keys, err := checkpoint.ParseKeys(string(a.LogKeyFile()))
	if err != nil {
		t.Fatal(err)
	}
	pk := a.VRF.Public()
	tai := "ECVRF-P256-SHA256-TAI"
	for i, c := range []struct {
		name string
		args []string
		want int
	}{
		{"suite pin", []string{"--pin", a.VRFPin()}, ExitOK},
		{"bare pin", []string{"--pin", a.VRFFingerprint()}, ExitOK},
		{"other suite pin", []string{"--pin", tai + ":" + a.VRFFingerprint()}, ExitFail},
		{"other suite pin beside a bare pin", []string{"--pin", tai + ":" + a.VRFFingerprint(), "--pin", a.VRFFingerprint()}, ExitFail},
		{"vrf-key of the other suite", []string{"--vrf-key", write(t, dir, "tai.key", []byte(tai+" "+hex.EncodeToString(pk.Bytes())+"\n"))}, ExitFail},
	} {
		args := append([]string{"audit", "--dir", tiles, "--state", filepath.Join(dir, fmt.Sprintf("s%d.json", i)), "--quiet", "--pin", keys[0].Fingerprint()}, c.args...)
		code, out, errs := run(t, args...)
		if code != c.want {
			t.Errorf("%s: exit %d, want %d\n%s%s", c.name, code, c.want, out, errs)
			continue
		}
		if c.want == ExitFail && (!strings.Contains(errs+out, "vrf-key") || !strings.Contains(errs+out, "pinned under "+tai) || strings.Contains(errs+out, "MISBEHAVIOUR")) {
			t.Errorf("%s: want a vrf-key failure (not misbehaviour) naming the pinned suite:\n%s%s", c.name, out, errs)
		}
	}
}

// TestStdinLimit: a document read from stdin ("-") beyond its limit is
// refused as a file is, naming the limit — not read cut short and refused
// for what the cut left (a certificate or freeze receipt "not JSON").
func TestStdinLimit(t *testing.T) {
	big := bytes.Repeat([]byte(" "), maxDocument+1)
	for _, args := range [][]string{
		{"receipt", "-"},
		{"game", "-"},
		{"certificate", "-", "--tofu"},
		{"freeze", "-", "--pin", strings.Repeat("0", 64)},
	} {
		var out, errb bytes.Buffer
		code := Run(Env{Args: args, Stdin: bytes.NewReader(big), Stdout: &out, Stderr: &errb})
		if want := "- is larger than 16 MiB, the limit for a document to check (receipt, transcript, certificate, freeze receipt or attestation)"; code != ExitUsage || !strings.Contains(errb.String(), want) || out.Len() > 0 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want %d and %q", args, code, out.String(), errb.String(), ExitUsage, want)
		}
	}
}
