package ctl

import (
	"bufio"
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"

	"tirage.fr/tirage/transparency/checkpoint"
	"tirage.fr/tirage/transparency/witness"
)

func TestWitnessKeygenVKey(t *testing.T) {
	dir := t.TempDir()
	key := filepath.Join(dir, "witness.key")
	code, vkey, errOut := rngctl("witness", "keygen", "--name", "bailiff.example/w1", "--key", key)
	if code != ExitOK || errOut != "" || !strings.HasPrefix(vkey, "bailiff.example/w1+") || strings.Count(vkey, "\n") != 1 {
		t.Fatalf("keygen: exit %d, stdout %q, stderr %q", code, vkey, errOut)
	}
	fi, err := os.Stat(key)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("key file: %v %v, want mode 0600", fi.Mode(), err)
	}
	skey, _ := os.ReadFile(key)
	if strings.Contains(vkey, "PRIVATE") {
		t.Fatal("the private key was printed")
	}
	if v, err := witness.VerifierKey(string(skey)); err != nil || v+"\n" != vkey {
		t.Fatalf("printed %q, key file's vkey %q %v", vkey, v, err)
	}
	if code, out, errOut := rngctl("witness", "vkey", "--key", key); code != ExitOK || out != vkey || errOut != "" {
		t.Fatalf("vkey: exit %d, %q %q, want %q", code, out, errOut, vkey)
	}
	// Never overwritten.
	if code, out, errOut := rngctl("witness", "keygen", "--name", "other", "--key", key); code != ExitFail || out != "" || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, "exists") {
		t.Fatalf("keygen over a key: exit %d, %q %q", code, out, errOut)
	}
	if b, _ := os.ReadFile(key); !bytes.Equal(b, skey) {
		t.Fatal("keygen overwrote the key")
	}
	// A key file others may read is refused, its content not shown.
	if err := os.Chmod(key, 0o640); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := rngctl("witness", "vkey", "--key", key); code != ExitFail || out != "" || !strings.Contains(errOut, "chmod 600") || strings.Contains(errOut, "PRIVATE") || strings.Count(errOut, "\n") != 1 {
		t.Fatalf("vkey of a 0640 key: exit %d, %q %q", code, out, errOut)
	}
	// Not a key.
	os.Chmod(key, 0o600)
	os.WriteFile(key, []byte("PRIVATE+KEY+x+00000000+AAAA\n"), 0o600)
	if code, _, errOut := rngctl("witness", "vkey", "--key", key); code != ExitFail || !strings.Contains(errOut, "malformed signer key") || strings.Contains(errOut, "AAAA") {
		t.Fatalf("vkey of a bad key: exit %d, %q", code, errOut)
	}

	// Usage errors: one line, exit 2.
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"witness", "keygen", "--key", filepath.Join(dir, "k2")}, "rngctl: witness keygen: --name required"},
		{[]string{"witness", "keygen"}, "rngctl: witness keygen: --name, --key required"},
		{[]string{"witness", "keygen", "--name", "a b", "--key", filepath.Join(dir, "k2")}, "rngctl: witness keygen: --name: witness: invalid key name"},
		{[]string{"witness", "vkey", "--key", key, "--name", "x"}, "rngctl: witness vkey: --name is not a flag of witness vkey"},
		{[]string{"witness", "serve", "--key", key, "--state", dir, "--listen", "127.0.0.1:0"}, "rngctl: witness serve: --log required"},
		{[]string{"witness", "serve", "--bogus"}, "rngctl: witness serve: flag provided but not defined: -bogus"},
		{[]string{"witness", "vkey", "--key", key, "stray"}, `rngctl: witness vkey: unexpected argument "stray"`},
	} {
		code, out, errOut := rngctl(tc.args...)
		if code != ExitUsage || out != "" || !strings.HasPrefix(errOut, tc.want) || !strings.HasSuffix(errOut, " (rngctl witness -h for usage)\n") || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q; want %q…", tc.args[1:], code, errOut, tc.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "k2")); err == nil {
		t.Error("a refused keygen wrote a key")
	}
}

// rngctl witness serve on loopback: it logs its vkey and the logs it
// witnesses (never the private key), cosigns a checkpoint of a configured
// log, and stops when its context ends (SIGINT, SIGTERM in rngctl).
func TestWitnessServe(t *testing.T) {
	dir := t.TempDir()
	key := filepath.Join(dir, "witness.key")
	code, vkey, _ := rngctl("witness", "keygen", "--name", "bailiff.example/w1", "--key", key)
	if code != ExitOK {
		t.Fatal("keygen failed")
	}
	vkey = strings.TrimSpace(vkey)
	const origin = "tirage.example/log/serve"
	_, lk, _ := ed25519.GenerateKey(rand.Reader)
	lvkey, _ := checkpoint.VerifierKey(origin, lk.Public())
	logFile := filepath.Join(dir, "log.vkey")
	os.WriteFile(logFile, []byte(lvkey+"\n"), 0o644)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	var out bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- Run(ctx, Env{Args: []string{"witness", "serve", "--key", key, "--log", logFile, "--state", filepath.Join(dir, "state"), "--listen", "127.0.0.1:0"},
			Stdin: strings.NewReader(""), Stdout: &out, Stderr: pw})
		pw.Close()
	}()
	// Read the log until the serving line names the address.
	var logs strings.Builder
	sc := bufio.NewScanner(pr)
	addr := ""
	for addr == "" && sc.Scan() {
		logs.WriteString(sc.Text() + "\n")
		if m := regexp.MustCompile(`serving POST /add-checkpoint" addr=(\S+) vkey=(\S+)`).FindStringSubmatch(sc.Text()); m != nil {
			addr = m[1]
			if m[2] != vkey {
				t.Errorf("logged vkey %q, want %q", m[2], vkey)
			}
		}
	}
	if addr == "" {
		t.Fatalf("no serving line:\n%s", logs.String())
	}
	if !strings.Contains(logs.String(), "origin="+origin) {
		t.Errorf("the witnessed log is not logged:\n%s", logs.String())
	}
	rest := make(chan string)
	go func() { b, _ := io.ReadAll(pr); rest <- string(b) }()

	signer, _ := checkpoint.NewSigner(origin, lk)
	cp, err := checkpoint.Sign(origin, 1, tlog.RecordHash([]byte("leaf")), signer)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post("http://"+addr+"/add-checkpoint", "text/plain", bytes.NewReader((&witness.Request{Checkpoint: cp.Note}).Marshal()))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	v, _ := witness.NewVerifier(vkey)
	if _, err := note.Open(append(cp.Note, body...), note.VerifierList(v)); resp.StatusCode != http.StatusOK || err != nil {
		t.Fatalf("add-checkpoint: %d %q %v", resp.StatusCode, body, err)
	}

	cancel()
	if code := <-done; code != ExitOK {
		t.Errorf("serve exited %d", code)
	}
	all := logs.String() + <-rest
	skey, _ := os.ReadFile(key)
	if strings.Contains(all, strings.TrimSpace(string(skey))) || strings.Contains(all, "PRIVATE") {
		t.Error("the private key is in the log")
	}
	if !strings.Contains(all, "witness: cosigned") || !strings.Contains(all, "witness: stopped") {
		t.Errorf("log:\n%s", all)
	}
	if _, err := os.Stat(filepath.Join(dir, "state")); err != nil {
		t.Errorf("no state directory: %v", err)
	}
}
