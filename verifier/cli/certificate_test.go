package cli

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/mod/sumdb/note"

	"tirage.fr/tirage/verifier/checkpoint"
	"tirage.fr/tirage/verifier/record"
	"tirage.fr/tirage/verifier/verdict"
)

func runCLI(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := Run(Env{Args: args, Stdout: &out, Stderr: &errb})
	return code, out.String(), errb.String()
}

const (
	certFile    = "testdata/promo-certificate.json"
	entrantFile = "testdata/promo-entrants.txt"
)

// certKeys returns the fixture certificate's log keys and writes its key
// announcement record (made by rngd, signed by every key) to a file.
func certKeys(t *testing.T) (logKeys []string, announcement string) {
	t.Helper()
	var c struct {
		LogKeys []string `json:"log_keys"`
		Keys    struct {
			Record string `json:"record"`
		} `json:"keys"`
	}
	b, err := os.ReadFile(certFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &c); err != nil || len(c.LogKeys) == 0 || c.Keys.Record == "" {
		t.Fatalf("fixture: %v", err)
	}
	announcement = filepath.Join(t.TempDir(), "keys.json")
	if err := os.WriteFile(announcement, []byte(c.Keys.Record), 0o644); err != nil {
		t.Fatal(err)
	}
	return c.LogKeys, announcement
}

func TestCertificateCommand(t *testing.T) {
	logKeys, ann := certKeys(t)
	// No trust anchor: refused, one line.
	code, out, errs := runCLI("certificate", certFile)
	if code != ExitUsage || out != "" || !strings.Contains(errs, "no trust anchor") || strings.Count(errs, "\n") != 1 {
		t.Fatalf("no anchor: exit %d %q %q", code, out, errs)
	}
	// --tofu: the certificate's own keys, their fingerprints on stderr.
	lk, err := checkpoint.ParseKey(logKeys[0])
	if err != nil {
		t.Fatal(err)
	}
	code, out, errs = runCLI("certificate", certFile, "--tofu")
	if code != ExitOK || !strings.Contains(out, "winner: ") || !strings.Contains(out, "public checks only") || !strings.Contains(out, "--tofu") ||
		!strings.Contains(errs, "log key tirage.test/e2e  --pin "+lk.Fingerprint()) || !strings.Contains(errs, "VRF key vrf  --pin ECVRF-P256-SHA256-SSWU:") {
		t.Fatalf("tofu: exit %d\n%s%s", code, out, errs)
	}
	// The operator's key announcement (checked: every key proves possession)
	// pins both keys; with the list, rules and reserves: the bailiff's path.
	code, out, errs = runCLI("certificate", certFile, "--vrf-key", ann, "--entrants", entrantFile, "--rules", "../../examples/bonus-crescendo.yaml", "--reserves", "3")
	if code != ExitOK || !strings.Contains(out, "account A") || !strings.Contains(out, "[PASS] entrant-root") || !strings.Contains(out, "the rules file given is the frozen one") || errs != "" {
		t.Fatalf("bailiff path: exit %d\n%s%s", code, out, errs)
	}
	// The same as JSON, and in French.
	code, out, _ = runCLI("certificate", certFile, "--log-key", ann, "--json")
	var v verdict.Verdict
	if code != ExitOK || json.Unmarshal([]byte(out), &v) != nil || v.Status() != verdict.StatusPass || v.Find("vrf-proof") == nil {
		t.Fatalf("json: exit %d %s", code, out)
	}
	if code, out, _ = runCLI("certificate", certFile, "--pin", lk.Fingerprint(), "--lang", "fr"); code != ExitOK || !strings.Contains(out, "toutes les vérifications sont réussies") {
		t.Fatalf("fr: exit %d %s", code, out)
	}
	// The log key as text, or as a file (as served at /log/vkey).
	if code, _, errs := runCLI("certificate", "--log-key", logKeys[0], certFile); code != ExitOK {
		t.Fatalf("log key text: exit %d %s", code, errs)
	}
	keyFile := filepath.Join(t.TempDir(), "vkey")
	os.WriteFile(keyFile, []byte(logKeys[0]+"\n"), 0o644)
	if code, _, errs := runCLI("certificate", "--log-key", keyFile, certFile); code != ExitOK {
		t.Fatalf("log key file: exit %d %s", code, errs)
	}
	// Another log key: not verified, whatever the certificate carries.
	_, other, err := note.GenerateKey(rand.Reader, "tirage.test/e2e")
	if err != nil {
		t.Fatal(err)
	}
	if code, _, errs := runCLI("certificate", certFile, "--log-key", other); code != ExitFail || !strings.Contains(errs, "NOT VERIFIED, check checkpoint-signature") {
		t.Fatalf("other log key: exit %d %s", code, errs)
	}
	if code, _, errs := runCLI("certificate", certFile, "--pin", strings.Repeat("ab", 32)); code != ExitFail || !strings.Contains(errs, "check log-key") {
		t.Fatalf("other pin: exit %d %s", code, errs)
	}
}

// Tampering with the list, the share, the certificate or the announcement
// fails the named check, with the exit code of its class.
func TestCertificateCommandTampered(t *testing.T) {
	dir := t.TempDir()
	_, ann := certKeys(t)
	cert, _ := os.ReadFile(certFile)
	list, _ := os.ReadFile(entrantFile)
	annb, _ := os.ReadFile(ann)
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	lines := strings.Split(string(list), "\n")
	lines[10] = lines[10] + "0" // one account changed, still sorted
	changed := write("changed.txt", []byte(strings.Join(lines, "\n")))
	otherDraw := write("other-draw.txt", bytes.Replace(list, []byte("bonus-crescendo/1"), []byte("bonus-crescendo/2"), 1))
	if !strings.Contains(string(cert), `\"share\":\"`) || !bytes.Contains(list, []byte("bonus-crescendo/1")) {
		t.Fatal("fixture: no share in the draw record, or no draw in the list")
	}
	// The announcement with its log key's fingerprint changed: its envelope
	// no longer covers it.
	var rec map[string]any
	json.Unmarshal(annb, &rec)
	rec["time"] = "2026-11-30T00:00:00Z"
	forged, _ := json.Marshal(rec)
	var swapped map[string]any
	json.Unmarshal(cert, &swapped)
	picks := swapped["picks"].([]any)
	picks[0], picks[1] = picks[1], picks[0]
	swappedb, _ := json.Marshal(swapped)
	cases := []struct {
		name  string
		args  []string
		code  int
		check string
	}{
		{"entrant changed", []string{"certificate", certFile, "--tofu", "--entrants", changed}, ExitFail, "check entrant-root"},
		{"list of another draw", []string{"certificate", certFile, "--tofu", "--entrants", otherDraw}, ExitFail, "check entrant-root: the entrant list is of draw"},
		{"list garbled", []string{"certificate", certFile, "--tofu", "--entrants", write("bad.txt", list[1:])}, ExitFail, "check entrant-list"},
		{"share changed", []string{"certificate", write("c1.json", bytes.Replace(cert, []byte(`\"share\":\"`), []byte(`\"share\":\"00`), 1)), "--vrf-key", ann}, ExitFail, "check draw-"},
		{"picks swapped", []string{"certificate", write("c3.json", swappedb), "--vrf-key", ann}, ExitFail, "NOT VERIFIED, check ranked-picks"}, // the certificate's own picks, not the log's
		{"rules other", []string{"certificate", certFile, "--vrf-key", ann, "--rules", certFile}, ExitFail, "NOT VERIFIED, check rules-hash"},
		{"reserves other", []string{"certificate", certFile, "--vrf-key", ann, "--reserves", "2"}, ExitFail, "check ranked-picks"},
		{"announcement tampered", []string{"certificate", certFile, "--vrf-key", write("forged.json", forged)}, ExitUsage, "bad key announcement: payload"},
		{"not json", []string{"certificate", write("c2.json", []byte("hello")), "--tofu"}, ExitUsage, "unreadable input"},
		{"missing file", []string{"certificate", filepath.Join(dir, "none.json"), "--tofu"}, ExitUsage, "couldn't read"},
		{"no file", []string{"certificate", "--tofu"}, ExitUsage, "missing"},
		{"two files", []string{"certificate", certFile, certFile, "--tofu"}, ExitUsage, "unexpected argument"},
		{"bad flag", []string{"certificate", certFile, "--nope"}, ExitUsage, "not defined"},
		{"bad vrf key file", []string{"certificate", certFile, "--vrf-key", filepath.Join(dir, "none.key")}, ExitUsage, "--vrf-key"},
		{"bad lang", []string{"certificate", certFile, "--tofu", "--lang", "de"}, ExitUsage, "--lang"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, _, errs := runCLI(c.args...)
			// --tofu prints the fingerprints it accepted before the verdict's line.
			last := errs
			if i := strings.LastIndex(strings.TrimSuffix(errs, "\n"), "\n"); i >= 0 {
				last = errs[i+1:]
			}
			if code != c.code || !strings.Contains(last, c.check) || !strings.HasPrefix(last, "rngverify certificate: ") {
				t.Fatalf("exit %d, stderr %q; want exit %d and a last line with %q", code, errs, c.code, c.check)
			}
			if c.code != ExitFail {
				return
			}
			// The bailiff's language: every reason in French.
			code, out, errs := runCLI(append(c.args, "--lang", "fr")...)
			if code != c.code || !strings.Contains(errs, "rngverify certificate : ") {
				t.Fatalf("--lang fr: exit %d\n%s%s", code, out, errs)
			}
			frenchOK(t, c.name, out+errs)
			if testing.Verbose() {
				t.Logf("--lang fr:\n%s%s", out, errs)
			}
		})
	}
}

// TestTOFUPinsSuite: --tofu accepts the certificate's VRF key with the suite
// it names (SUITE:fingerprint): a bare fingerprint would leave the suite to
// the document. It prints the pin as --pin takes it, to paste into later
// runs; a key of an unknown suite is said not trusted.
func TestTOFUPinsSuite(t *testing.T) {
	pk := "0360fed4ba255a9d31c961eb74c6356d68c049b8923b61fa6ce669622e60f29fb6"
	raw, _ := hex.DecodeString(pk)
	fp := record.Hex(record.Fingerprint(raw))
	var w strings.Builder
	pins := tofu(&w, "en", nil, "vrf-x", "ECVRF-P256-SHA256-TAI", pk)
	if len(pins) != 1 || pins[0] != "ECVRF-P256-SHA256-TAI:"+fp || !strings.Contains(w.String(), "VRF key vrf-x  --pin ECVRF-P256-SHA256-TAI:"+fp+"\n") {
		t.Errorf("pins %q, stderr %q", pins, w.String())
	}
	w.Reset()
	if pins := tofu(&w, "fr", nil, "vrf-x", "NOPE", pk); len(pins) != 0 || !strings.Contains(w.String(), "clé VRF vrf-x : suite « NOPE » inconnue, pas de confiance (SHA-256 "+fp+")") {
		t.Errorf("unknown suite: pins %q, stderr %q", pins, w.String())
	}
}
