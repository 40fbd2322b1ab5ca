package cli

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/mod/sumdb/note"
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

func TestCertificateCommand(t *testing.T) {
	code, out, errs := runCLI("certificate", certFile)
	if code != ExitOK || !strings.Contains(out, "winner ") || !strings.Contains(out, "public checks only") {
		t.Fatalf("public path: exit %d\n%s%s", code, out, errs)
	}
	code, out, errs = runCLI("certificate", certFile, "--entrants", entrantFile, "--rules", "../../examples/bonus-crescendo.yaml", "--reserves", "3")
	if code != ExitOK || !strings.Contains(out, "account A") || !strings.Contains(out, "entrant-root") {
		t.Fatalf("bailiff path: exit %d\n%s%s", code, out, errs)
	}
	// Pinning the log key the certificate carries succeeds; another fails.
	var c struct {
		LogKeys []string `json:"log_keys"`
	}
	b, _ := os.ReadFile(certFile)
	json.Unmarshal(b, &c)
	if code, _, errs := runCLI("certificate", "--log-key", c.LogKeys[0], certFile); code != ExitOK {
		t.Fatalf("pinned log key: exit %d %s", code, errs)
	}
	keyFile := filepath.Join(t.TempDir(), "vkey")
	os.WriteFile(keyFile, []byte(c.LogKeys[0]+"\n"), 0o644)
	if code, _, errs := runCLI("certificate", "--log-key", keyFile, certFile); code != ExitOK {
		t.Fatalf("pinned log key file: exit %d %s", code, errs)
	}
	_, other, err := note.GenerateKey(rand.Reader, "tirage.test/e2e")
	if err != nil {
		t.Fatal(err)
	}
	if code, _, errs := runCLI("certificate", certFile, "--log-key", other); code != ExitFail || !strings.Contains(errs, "FAILED checkpoint-signature") {
		t.Fatalf("other log key: exit %d %s", code, errs)
	}
}

// Tampering with the list, the share or the certificate fails the named check.
func TestCertificateCommandTampered(t *testing.T) {
	dir := t.TempDir()
	cert, _ := os.ReadFile(certFile)
	list, _ := os.ReadFile(entrantFile)
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
	if !strings.Contains(string(cert), `\"share\":\"`) {
		t.Fatal("fixture: no share in the draw record")
	}
	cases := []struct {
		name  string
		args  []string
		code  int
		check string
	}{
		{"entrant changed", []string{"certificate", certFile, "--entrants", changed}, ExitFail, "entrant-root"},
		{"list garbled", []string{"certificate", certFile, "--entrants", write("bad.txt", list[1:])}, ExitFail, "entrant-list"},
		{"share changed", []string{"certificate", write("c1.json", bytes.Replace(cert, []byte(`\"share\":\"`), []byte(`\"share\":\"00`), 1))}, ExitFail, "FAILED draw-"},
		{"rules other", []string{"certificate", certFile, "--rules", certFile}, ExitFail, "rules-hash"},
		{"not json", []string{"certificate", write("c2.json", []byte("hello"))}, ExitFail, "certificate-format"},
		{"missing file", []string{"certificate", filepath.Join(dir, "none.json")}, ExitUsage, "couldn't read"},
		{"no file", []string{"certificate"}, ExitUsage, "missing"},
		{"bad flag", []string{"certificate", certFile, "--nope"}, ExitUsage, "not defined"},
		{"bad vrf key", []string{"certificate", certFile, "--vrf-key", "zz"}, ExitUsage, "not hex"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, _, errs := runCLI(c.args...)
			if code != c.code || !strings.Contains(errs, c.check) || strings.Count(errs, "\n") != 1 {
				t.Fatalf("exit %d, stderr %q; want exit %d and one line with %q", code, errs, c.code, c.check)
			}
		})
	}
}
