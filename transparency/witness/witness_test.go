package witness_test

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cloudflare/circl/sign/mldsa/mldsa44"
	fnote "github.com/transparency-dev/formats/note"
	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"

	"tirage.fr/tirage/transparency/checkpoint"
	"tirage.fr/tirage/transparency/witness"
	vcheckpoint "tirage.fr/tirage/verifier/checkpoint"
)

// testLog is an in-memory RFC 6962 tree signed like rngd's log: an Ed25519
// and an ML-DSA-44 key.
type testLog struct {
	origin  string
	signers []note.Signer
	vkeys   string // /log/vkey
	hashes  []tlog.Hash
	n       int64
	salt    string // distinguishes the leaves of a forked log
}

func newTestLog(t testing.TB, origin string) *testLog {
	t.Helper()
	_, edk, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	_, mlk, err := mldsa44.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	l := &testLog{origin: origin}
	es, err := checkpoint.NewSigner(origin, edk)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := checkpoint.NewSigner(origin, mlk)
	if err != nil {
		t.Fatal(err)
	}
	ev, err := checkpoint.VerifierKey(origin, edk.Public())
	if err != nil {
		t.Fatal(err)
	}
	mv, err := checkpoint.VerifierKey(origin, mlk.Public())
	if err != nil {
		t.Fatal(err)
	}
	l.signers = []note.Signer{es, ms}
	l.vkeys = ev + "\n" + mv + "\n"
	return l
}

// fork returns a log of the same origin and keys with no leaves, whose
// leaves differ from l's.
func (l *testLog) fork() *testLog {
	return &testLog{origin: l.origin, signers: l.signers, vkeys: l.vkeys, salt: l.salt + "fork"}
}

func (l *testLog) keys(t testing.TB) []*vcheckpoint.Key {
	t.Helper()
	k, err := vcheckpoint.ParseKeys(l.vkeys)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func (l *testLog) ReadHashes(indexes []int64) ([]tlog.Hash, error) {
	out := make([]tlog.Hash, len(indexes))
	for i, x := range indexes {
		out[i] = l.hashes[x]
	}
	return out, nil
}

func (l *testLog) grow(t testing.TB, n int64) {
	t.Helper()
	for ; l.n < n; l.n++ {
		h, err := tlog.StoredHashes(l.n, fmt.Appendf(nil, "%sleaf %d", l.salt, l.n), l)
		if err != nil {
			t.Fatal(err)
		}
		l.hashes = append(l.hashes, h...)
	}
}

func (l *testLog) root(t testing.TB, n int64) tlog.Hash {
	t.Helper()
	if n == 0 {
		return sha256.Sum256(nil)
	}
	l.grow(t, n)
	h, err := tlog.TreeHash(n, l)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// checkpoint is the log's checkpoint of size n, signed by signers (all
// the log's keys if none).
func (l *testLog) checkpoint(t testing.TB, n int64, signers ...note.Signer) []byte {
	t.Helper()
	if len(signers) == 0 {
		signers = l.signers
	}
	msg, err := note.Sign(&note.Note{Text: string(checkpoint.FormatText(l.origin, uint64(n), l.root(t, n)))}, signers...)
	if err != nil {
		t.Fatal(err)
	}
	return msg
}

func (l *testLog) proof(t testing.TB, old, n int64) tlog.TreeProof {
	t.Helper()
	if old == 0 || old == n {
		return nil
	}
	l.grow(t, n)
	p, err := tlog.ProveTree(n, old, l)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// request is the add-checkpoint body moving the witness from old to n.
func (l *testLog) request(t testing.TB, old, n int64) []byte {
	return (&witness.Request{OldSize: uint64(old), Proof: l.proof(t, old, n), Checkpoint: l.checkpoint(t, n)}).Marshal()
}

type testWitness struct {
	*witness.Witness
	url      string
	verifier note.Verifier
	dir      string
}

func newKey(t testing.TB) (skey, vkey string) {
	t.Helper()
	skey, vkey, err := witness.GenerateKey("witness.example/w1")
	if err != nil {
		t.Fatal(err)
	}
	return skey, vkey
}

func startWitness(t testing.TB, skey, dir string, logs ...*testLog) *testWitness {
	t.Helper()
	s, err := witness.NewSigner(skey)
	if err != nil {
		t.Fatal(err)
	}
	var keys []*vcheckpoint.Key
	for _, l := range logs {
		keys = append(keys, l.keys(t)...)
	}
	w, err := witness.New(witness.Config{Signer: s, Logs: keys, StateDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(w)
	t.Cleanup(func() { srv.Close(); w.Close() })
	vkey, err := witness.VerifierKey(skey)
	if err != nil {
		t.Fatal(err)
	}
	v, err := witness.NewVerifier(vkey)
	if err != nil {
		t.Fatal(err)
	}
	return &testWitness{Witness: w, url: srv.URL + "/add-checkpoint", verifier: v, dir: dir}
}

type reply struct {
	code int
	ct   string
	body string
}

func post(t testing.TB, url string, body []byte) reply {
	t.Helper()
	r, err := postErr(url, body)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func postErr(url string, body []byte) (reply, error) {
	resp, err := http.Post(url, "text/plain", bytes.NewReader(body))
	if err != nil {
		return reply{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return reply{resp.StatusCode, resp.Header.Get("Content-Type"), string(b)}, err
}

// cosigned checks that r is a 200 whose body is one valid cosignature/v1
// of the witness over cp, timestamped within [before, after].
func (w *testWitness) cosigned(t testing.TB, r reply, cp []byte, before, after time.Time) {
	t.Helper()
	if r.code != http.StatusOK {
		t.Fatalf("status %d %q, want 200", r.code, r.body)
	}
	if !strings.HasPrefix(r.body, "— witness.example/w1 ") || strings.Count(r.body, "\n") != 1 || !strings.HasSuffix(r.body, "\n") {
		t.Fatalf("reply %q is not one signature line", r.body)
	}
	n, err := note.Open(append(bytes.Clone(cp), r.body...), note.VerifierList(w.verifier))
	if err != nil {
		t.Fatalf("cosignature does not verify: %v", err)
	}
	ts, err := fnote.CoSigV1Timestamp(n.Sigs[0])
	if err != nil {
		t.Fatal(err)
	}
	if ts.Before(before.Truncate(time.Second)) || ts.After(after) {
		t.Errorf("cosignature time %v not within [%v, %v]", ts, before, after)
	}
}

func TestAddCheckpoint(t *testing.T) {
	skey, _ := newKey(t)
	log := newTestLog(t, "tirage.example/log/a")
	other := newTestLog(t, "tirage.example/log/b")
	w := startWitness(t, skey, t.TempDir(), log, other)
	before := time.Now()

	// First contact: old 0, no proof.
	cp5 := log.checkpoint(t, 5)
	w.cosigned(t, post(t, w.url, log.request(t, 0, 5)), cp5, before, time.Now())

	// The log lost track: 409 with the witnessed size, as text/x.tlog.size.
	if r := post(t, w.url, log.request(t, 0, 8)); r.code != http.StatusConflict || r.ct != "text/x.tlog.size" || r.body != "5\n" {
		t.Fatalf("old 0 after 5: %+v, want 409 text/x.tlog.size \"5\\n\"", r)
	}
	if r := post(t, w.url, log.request(t, 3, 8)); r.code != http.StatusConflict || r.body != "5\n" {
		t.Fatalf("old 3 after 5: %+v, want 409 \"5\\n\"", r)
	}
	// With a consistency proof from 5.
	cp8 := log.checkpoint(t, 8)
	w.cosigned(t, post(t, w.url, (&witness.Request{OldSize: 5, Proof: log.proof(t, 5, 8), Checkpoint: cp8}).Marshal()), cp8, before, time.Now())
	// The same checkpoint again is cosigned again.
	w.cosigned(t, post(t, w.url, log.request(t, 8, 8)), cp8, before, time.Now())

	// A fork of the same size: 409, not the size answer, not cosigned.
	fork := log.fork()
	if r := post(t, w.url, fork.request(t, 8, 8)); r.code != http.StatusConflict || r.ct == "text/x.tlog.size" || strings.Contains(r.body, "—") {
		t.Fatalf("same-size fork: %+v, want 409 text/plain", r)
	}
	// A rollback: old larger than the checkpoint is 400, the true old a 409.
	if r := post(t, w.url, (&witness.Request{OldSize: 8, Checkpoint: cp5}).Marshal()); r.code != http.StatusBadRequest {
		t.Fatalf("rollback with old 8: %+v, want 400", r)
	}
	if r := post(t, w.url, log.request(t, 5, 5)); r.code != http.StatusConflict || r.body != "8\n" {
		t.Fatalf("rollback with old 5: %+v, want 409 \"8\\n\"", r)
	}
	// A larger fork, with its own (valid for it) proof: 422.
	if r := post(t, w.url, fork.request(t, 8, 12)); r.code != http.StatusUnprocessableEntity {
		t.Fatalf("fork to 12: %+v, want 422", r)
	}
	// A tampered proof, a truncated one, none.
	p := log.proof(t, 8, 12)
	p[0][0] ^= 1
	cp12 := log.checkpoint(t, 12)
	for name, proof := range map[string]tlog.TreeProof{"tampered": p, "truncated": log.proof(t, 8, 12)[1:], "empty": nil} {
		if r := post(t, w.url, (&witness.Request{OldSize: 8, Proof: proof, Checkpoint: cp12}).Marshal()); r.code != http.StatusUnprocessableEntity {
			t.Errorf("%s proof: %+v, want 422", name, r)
		}
	}
	// A proof where none is due: old = size, old 0.
	if r := post(t, w.url, (&witness.Request{OldSize: 8, Proof: log.proof(t, 5, 8), Checkpoint: cp8}).Marshal()); r.code != http.StatusUnprocessableEntity {
		t.Errorf("proof with old = size: %+v, want 422", r)
	}
	if r := post(t, w.url, (&witness.Request{OldSize: 0, Proof: other.proof(t, 2, 4), Checkpoint: other.checkpoint(t, 4)}).Marshal()); r.code != http.StatusUnprocessableEntity {
		t.Errorf("proof with old 0: %+v, want 422", r)
	}
	// None of the refusals moved the state.
	if r := post(t, w.url, log.request(t, 0, 12)); r.code != http.StatusConflict || r.body != "8\n" {
		t.Fatalf("after the refusals: %+v, want 409 \"8\\n\"", r)
	}
	w.cosigned(t, post(t, w.url, log.request(t, 8, 12)), cp12, before, time.Now())

	// Another origin has its own state.
	w.cosigned(t, post(t, w.url, other.request(t, 0, 3)), other.checkpoint(t, 3), before, time.Now())

	// Keys: an unknown origin (404); a checkpoint lacking one of the log's
	// two signatures, or signed by another key of the same name (403).
	stranger := newTestLog(t, "tirage.example/log/z")
	if r := post(t, w.url, stranger.request(t, 0, 2)); r.code != http.StatusNotFound {
		t.Errorf("unknown origin: %+v, want 404", r)
	}
	impostor := newTestLog(t, log.origin)
	for name, cp := range map[string][]byte{
		"Ed25519 only":   log.checkpoint(t, 13, log.signers[0]),
		"ML-DSA-44 only": log.checkpoint(t, 13, log.signers[1]),
		"other keys":     impostor.fork().checkpoint(t, 13),
		"one bad":        bytes.Replace(log.checkpoint(t, 13), []byte("\n13\n"), []byte("\n14\n"), 1),
	} {
		req := (&witness.Request{OldSize: 12, Proof: log.proof(t, 12, 13), Checkpoint: cp}).Marshal()
		if r := post(t, w.url, req); r.code != http.StatusForbidden {
			t.Errorf("%s: %+v, want 403", name, r)
		}
	}
	// Both signatures and an unknown third one: cosigned (unknown keys are ignored).
	cp13, err := note.Sign(&note.Note{Text: string(checkpoint.FormatText(log.origin, 13, log.root(t, 13)))}, append(log.signers, impostorSigner(t, "someone.else"))...)
	if err != nil {
		t.Fatal(err)
	}
	w.cosigned(t, post(t, w.url, (&witness.Request{OldSize: 12, Proof: log.proof(t, 12, 13), Checkpoint: cp13}).Marshal()), cp13, before, time.Now())

	// Malformed requests: 400; too large: 413; not POST: 405.
	good := string(log.request(t, 13, 14))
	for name, body := range map[string]string{
		"empty":            "",
		"no old line":      "\n" + good,
		"old with zero":    "old 013\n\n" + string(log.checkpoint(t, 14)),
		"old negative":     "old -1\n\n" + string(log.checkpoint(t, 14)),
		"no blank line":    "old 13\n" + string(log.checkpoint(t, 14)),
		"proof not base64": "old 13\nnot base64!\n\n" + string(log.checkpoint(t, 14)),
		"no checkpoint":    "old 13\n\n",
		"text only":        "old 13\n\n" + string(checkpoint.FormatText(log.origin, 14, log.root(t, 14))),
		"bad size":         strings.Replace(good, "\n14\n", "\n+14\n", 1),
	} {
		if r := post(t, w.url, []byte(body)); r.code != http.StatusBadRequest {
			t.Errorf("%s: %+v, want 400", name, r)
		}
	}
	if r := post(t, w.url, append([]byte(good), make([]byte, witness.MaxRequestSize)...)); r.code != http.StatusRequestEntityTooLarge {
		t.Errorf("too large: %d, want 413", r.code)
	}
	if resp, err := http.Get(w.url); err != nil || resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET: %v %v, want 405", resp.StatusCode, err)
	}
	if r := post(t, strings.TrimSuffix(w.url, "add-checkpoint")+"other", []byte(good)); r.code != http.StatusNotFound {
		t.Errorf("other path: %d, want 404", r.code)
	}
	// And the good one still goes through.
	w.cosigned(t, post(t, w.url, []byte(good)), log.checkpoint(t, 14), before, time.Now())
}

func impostorSigner(t testing.TB, name string) note.Signer {
	t.Helper()
	skey, _, err := note.GenerateKey(rand.Reader, name)
	if err != nil {
		t.Fatal(err)
	}
	s, err := note.NewSigner(skey)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// The state survives a restart; it is the last cosigned checkpoint in
// <sha256(origin)>.checkpoint; a corrupt state file, or a second witness
// on the same directory, is refused.
func TestStatePersists(t *testing.T) {
	skey, _ := newKey(t)
	log := newTestLog(t, "tirage.example/log/a")
	dir := t.TempDir()
	w := startWitness(t, skey, dir, log)
	if r := post(t, w.url, log.request(t, 0, 7)); r.code != http.StatusOK {
		t.Fatalf("first: %+v", r)
	}
	sum := sha256.Sum256([]byte(log.origin))
	file := filepath.Join(dir, hex.EncodeToString(sum[:])+".checkpoint")
	if b, err := os.ReadFile(file); err != nil || !bytes.Equal(b, log.checkpoint(t, 7)[:len(b)]) || !bytes.HasPrefix(b, checkpoint.FormatText(log.origin, 7, log.root(t, 7))) {
		t.Fatalf("state file: %q %v", b, err)
	}
	s, _ := witness.NewSigner(skey)
	if _, err := witness.New(witness.Config{Signer: s, Logs: log.keys(t), StateDir: dir}); err == nil || !strings.Contains(err.Error(), "in use") {
		t.Errorf("second witness on the same directory: %v", err)
	}
	w.Close()

	w2 := startWitness(t, skey, dir, log)
	if r := post(t, w2.url, log.request(t, 0, 9)); r.code != http.StatusConflict || r.body != "7\n" {
		t.Fatalf("after restart, old 0: %+v, want 409 \"7\\n\"", r)
	}
	if r := post(t, w2.url, log.fork().request(t, 7, 7)); r.code != http.StatusConflict {
		t.Fatalf("after restart, fork of 7: %+v, want 409", r)
	}
	// The state cannot be written (its temporary file's name is taken by
	// a directory): 500, no cosignature, the state stays at 7.
	if err := os.Mkdir(file+".tmp", 0o755); err != nil {
		t.Fatal(err)
	}
	if r := post(t, w2.url, log.request(t, 7, 9)); r.code != http.StatusInternalServerError || strings.Contains(r.body, "—") || strings.Contains(r.body, dir) {
		t.Fatalf("unwritable state: %+v, want 500 naming no path", r)
	}
	os.Remove(file + ".tmp")
	if r := post(t, w2.url, log.request(t, 0, 9)); r.code != http.StatusConflict || r.body != "7\n" {
		t.Fatalf("after a failed write: %+v, want 409 \"7\\n\"", r)
	}
	if r := post(t, w2.url, log.request(t, 7, 9)); r.code != http.StatusOK {
		t.Fatalf("after restart, 7 to 9: %+v", r)
	}
	w2.Close()

	if err := os.WriteFile(file, []byte("garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := witness.New(witness.Config{Signer: s, Logs: log.keys(t), StateDir: dir}); err == nil {
		t.Error("corrupt state file accepted")
	}
}

// Concurrent calls for one origin: each client speaks the protocol (old 0,
// then the size a 409 names, with a proof); the state only grows and ends
// at the largest size cosigned.
func TestConcurrentOneOrigin(t *testing.T) {
	skey, _ := newKey(t)
	log := newTestLog(t, "tirage.example/log/a")
	log.grow(t, 64)
	w := startWitness(t, skey, t.TempDir(), log)
	var (
		mu       sync.Mutex
		maxSize  int64
		wg       sync.WaitGroup
		requests = make(map[[2]int64][]byte)
	)
	// Prepare the bodies beforehand: the test log is not safe for concurrent use.
	for old := int64(0); old <= 64; old++ {
		for n := old; n <= 64; n++ {
			requests[[2]int64{old, n}] = log.request(t, old, n)
		}
	}
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var old int64
			for i := range 16 {
				n := int64(1 + (g*7+i*13)%64)
				for try := 0; try < 5; try++ {
					if old > n {
						break // a rollback: not asked for
					}
					r, err := postErr(w.url, requests[[2]int64{old, n}])
					if err != nil {
						t.Error(err)
						return
					}
					if r.code == http.StatusConflict {
						fmt.Sscan(r.body, &old)
						continue
					}
					if r.code != http.StatusOK {
						t.Errorf("%d→%d: %+v", old, n, r)
						return
					}
					mu.Lock()
					maxSize = max(maxSize, n)
					mu.Unlock()
					old = n
					break
				}
			}
		}()
	}
	wg.Wait()
	if r := post(t, w.url, requests[[2]int64{0, 64}]); r.code != http.StatusConflict || r.body != fmt.Sprintf("%d\n", maxSize) {
		t.Fatalf("final state %+v, want the largest cosigned size %d", r, maxSize)
	}
}

func TestKeys(t *testing.T) {
	skey, vkey := newKey(t)
	if !strings.HasPrefix(skey, "PRIVATE+KEY+witness.example/w1+") {
		t.Fatalf("skey shape")
	}
	if v, err := witness.VerifierKey(skey + "\n"); err != nil || v != vkey {
		t.Fatalf("VerifierKey = %q %v, want %q", v, err, vkey)
	}
	// The vkey is the cosignature/v1 one (type 0x04), which tessera reads.
	v, err := fnote.NewVerifierForCosignatureV1(vkey)
	if err != nil {
		t.Fatal(err)
	}
	s, _ := witness.NewSigner(skey)
	if v.KeyHash() != s.KeyHash() || v.Name() != "witness.example/w1" {
		t.Errorf("verifier %s %08x, signer %08x", v.Name(), v.KeyHash(), s.KeyHash())
	}
	for _, bad := range []string{"", "a b", "a+b", "a\x00", "\xff"} {
		if _, _, err := witness.GenerateKey(bad); err == nil {
			t.Errorf("GenerateKey(%q) accepted", bad)
		}
	}
	for _, bad := range []string{"", "PRIVATE+KEY+x+00000000+AAAA", vkey} {
		if _, err := witness.NewSigner(bad); err == nil || strings.Contains(err.Error(), bad[min(len(bad), 12):]) && bad != "" {
			t.Errorf("NewSigner(%q): %v", bad, err)
		}
	}
}

// TestBlankLineRefused: a note the log's keys signed whose text has an
// empty line after a checkpoint's three lines is refused (400), not
// cosigned: the witness would cosign the first three lines, a text the
// log never signed (the log signed the longer one).
func TestBlankLineRefused(t *testing.T) {
	skey, _ := newKey(t)
	log := newTestLog(t, "tirage.example/log/a")
	w := startWitness(t, skey, t.TempDir(), log)
	text := string(checkpoint.FormatText(log.origin, 5, log.root(t, 5))) + "\nanother AAAA\n"
	msg, err := note.Sign(&note.Note{Text: text}, log.signers...)
	if err != nil {
		t.Fatal(err)
	}
	if r := post(t, w.url, (&witness.Request{OldSize: 0, Checkpoint: msg}).Marshal()); r.code != http.StatusBadRequest || strings.Contains(r.body, "—") {
		t.Fatalf("blank line: %+v, want 400", r)
	}
	// Nothing was recorded: the log's checkpoint of size 3 is cosigned from 0.
	if r := post(t, w.url, log.request(t, 0, 3)); r.code != http.StatusOK {
		t.Fatalf("then size 3 from 0: %+v", r)
	}
}
