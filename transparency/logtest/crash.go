package logtest

import (
	"bufio"
	"context"
	"crypto"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cloudflare/circl/sign/mldsa/mldsa44"
	"golang.org/x/mod/sumdb/tlog"

	"tirage.fr/tirage/transparency/checkpoint"
)

// EnvCrashChild is set in the environment of a crash test's child process.
const EnvCrashChild = "TIRAGE_TLOG_CRASH_CHILD"

// SeededSigners returns test-only Ed25519 and ML-DSA-44 keys derived from
// seed, so that a parent and a child process share them.
func SeededSigners(seed string) []crypto.Signer {
	s := sha256.Sum256([]byte("tirage logtest key " + seed))
	_, ml := mldsa44.NewKeyFromSeed(&s)
	return []crypto.Signer{ed25519.NewKeyFromSeed(s[:]), ml}
}

// Ed25519VKey returns the Ed25519 verifier key of SeededSigners(seed).
func Ed25519VKey(t testing.TB, origin, seed string) string {
	k, err := checkpoint.VerifierKey(origin, SeededSigners(seed)[0].Public())
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// CrashChild is the body of a crash test's helper test: unless started by
// Crash it skips; otherwise it opens the log and appends under load with 16
// goroutines until killed, printing "ACK <index> <leaf hash>" to stdout
// after each Append returns (one write per line, before the next append).
func CrashChild(t *testing.T, open Opener) {
	if os.Getenv(EnvCrashChild) == "" {
		t.Skip("helper process of a crash test")
	}
	l, err := open()
	if err != nil {
		fmt.Println("OPEN-FAILED", err)
		os.Exit(3)
	}
	var mu sync.Mutex
	out := bufio.NewWriter(os.Stdout)
	var wg sync.WaitGroup
	run := strconv.Itoa(os.Getpid())
	for w := range 16 {
		wg.Go(func() {
			for i := 0; ; i++ {
				leaf := fmt.Appendf(nil, "crash %s worker %d leaf %d %s", run, w, i, strings.Repeat("z", i%50))
				idx, err := l.Append(context.Background(), leaf)
				if err != nil {
					fmt.Println("APPEND-FAILED", err)
					os.Exit(4)
				}
				h := tlog.RecordHash(leaf)
				mu.Lock()
				fmt.Fprintf(out, "ACK %d %x\n", idx, h[:])
				out.Flush()
				mu.Unlock()
			}
		})
	}
	wg.Wait()
}

// Crash runs childTest (a test calling CrashChild) in a child process with
// env added, lets it append under load, reads the latest published
// checkpoint with published (as an auditor would fetch it) while it runs,
// kills the child with SIGKILL mid-load, then reopens the log with open and
// checks that every acknowledged index holds the acknowledged leaf and that
// the new checkpoint is consistent with the last one published before the
// crash. vkey is the log's Ed25519 verifier key.
func Crash(t *testing.T, childTest string, env []string, open Opener, published func() ([]byte, error), vkey string) {
	cmd := exec.Command(os.Args[0], "-test.run=^"+childTest+"$", "-test.count=1")
	cmd.Env = append(append(os.Environ(), EnvCrashChild+"=1"), env...)
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var (
		mu       sync.Mutex
		acked    = map[uint64]tlog.Hash{}
		progress = make(chan int, 1)
		readDone = make(chan struct{})
	)
	go func() {
		defer close(readDone)
		s := bufio.NewScanner(stdout)
		for s.Scan() {
			f := strings.Fields(s.Text())
			if len(f) > 0 && strings.HasSuffix(f[0], "FAILED") {
				t.Errorf("child: %s", s.Text())
			}
			if len(f) != 3 || f[0] != "ACK" {
				continue
			}
			idx, err1 := strconv.ParseUint(f[1], 10, 64)
			h, err2 := hex.DecodeString(f[2])
			if err1 != nil || err2 != nil || len(h) != tlog.HashSize {
				t.Errorf("child printed %q", s.Text())
				continue
			}
			mu.Lock()
			if _, dup := acked[idx]; dup {
				t.Errorf("index %d acknowledged twice", idx)
			}
			acked[idx] = tlog.Hash(h)
			n := len(acked)
			mu.Unlock()
			select {
			case progress <- n:
			default:
			}
		}
	}()
	var before Verified
	// A stalled backend must fail the test, not hang it until the global timeout.
	deadline := time.After(5 * time.Minute)
	for n := 0; n < 600 || before.Size < 100; {
		select {
		case n = <-progress:
		case <-readDone:
			cmd.Wait()
			t.Fatal("child exited before the crash")
		case <-deadline:
			cmd.Process.Kill()
			t.Fatalf("no progress: %d acknowledged appends and a checkpoint of size %d after 5 minutes", n, before.Size)
		}
		if raw, err := published(); err == nil {
			before = VerifyCheckpoint(t, raw, vkey)
		}
	}
	if err := cmd.Process.Kill(); err != nil { // SIGKILL
		t.Fatal(err)
	}
	<-readDone
	cmd.Wait()
	mu.Lock()
	defer mu.Unlock()
	var maxIdx uint64
	for i := range acked {
		maxIdx = max(maxIdx, i)
	}
	t.Logf("killed after %d acknowledged appends (highest index %d); last checkpoint seen: %d", len(acked), maxIdx, before.Size)

	l, err := open()
	if err != nil {
		t.Fatalf("reopen after kill -9: %v", err)
	}
	defer l.Close()
	ctx := ctxT(t)
	cp, err := l.AwaitCheckpoint(ctx, maxIdx+1)
	if err != nil {
		t.Fatalf("no checkpoint covering every acknowledged leaf after restart: %v", err)
	}
	after := VerifyCheckpoint(t, cp.Note, vkey)
	entries, err := readAll(ctx, l, 0, maxIdx+1, after.Size)
	if err != nil {
		t.Fatalf("Entries after restart: %v", err)
	}
	for idx, want := range acked {
		if tlog.RecordHash(entries[idx]) != want {
			t.Fatalf("acknowledged index %d holds another leaf after the crash: %q", idx, entries[idx])
		}
	}
	p, err := l.ConsistencyProof(ctx, before.Size, after.Size)
	if err != nil {
		t.Fatal(err)
	}
	if err := tlog.CheckTree(p, int64(after.Size), after.Hash, int64(before.Size), before.Hash); err != nil {
		t.Fatalf("checkpoint after the crash (%d) not consistent with the last one before (%d): %v", after.Size, before.Size, err)
	}
	idx, err := l.Append(ctx, []byte("after the crash"))
	if err != nil || idx <= maxIdx {
		t.Fatalf("Append after restart = %d, %v", idx, err)
	}
}
