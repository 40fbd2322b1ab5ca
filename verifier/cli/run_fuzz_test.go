package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzRun: whatever file rngverify is given to check, trusting a pin no key
// can match, it does not panic and nothing passes: a verdict that fails
// (exit 1; with --json, one JSON document on stdout) or a usage error (exit
// 2, one line on stderr and nothing on stdout).
func FuzzRun(f *testing.F) {
	cmds := []string{"receipt", "game", "certificate", "freeze", "attestation"}
	for _, name := range []string{"testdata/promo-certificate.json", "testdata/promo-entrants.txt",
		"testdata/rngd/transcript-reply.json", "testdata/rngd/receipts-reply.json", "../announce/testdata/announcement.json"} {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		for i := range cmds {
			f.Add(uint8(i), b, i%2 == 0, i%3 == 0)
		}
	}
	f.Add(uint8(0), []byte("{}"), true, false)
	f.Add(uint8(2), []byte(`{"draw":"x","log_keys":["a+b+c"]}`), false, true)
	pin := strings.Repeat("5a", 32)
	f.Fuzz(func(t *testing.T, cmd uint8, doc []byte, jsonOut, fr bool) {
		p := filepath.Join(t.TempDir(), "doc")
		if err := os.WriteFile(p, doc, 0o600); err != nil {
			t.Fatal(err)
		}
		args := []string{cmds[int(cmd)%len(cmds)], "--pin", pin}
		if jsonOut {
			args = append(args, "--json")
		}
		if fr {
			args = append(args, "--lang", "fr")
		}
		args = append(args, p)
		var out, errb bytes.Buffer
		code := Run(Env{Args: args, Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb})
		switch code {
		case ExitFail:
			if jsonOut && !json.Valid(out.Bytes()) {
				t.Fatalf("%v: exit 1, stdout not JSON:\n%s", args[:len(args)-1], out.String())
			}
		case ExitUsage:
			if out.Len() != 0 || strings.Count(errb.String(), "\n") != 1 || !strings.HasSuffix(errb.String(), "\n") {
				t.Fatalf("%v: exit 2, stdout %q, stderr %q", args[:len(args)-1], out.String(), errb.String())
			}
		default:
			t.Fatalf("%v: exit %d\nstdout %s\nstderr %s", args[:len(args)-1], code, out.String(), errb.String())
		}
	})
}
