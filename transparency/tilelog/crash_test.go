package tilelog_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto"
	"crypto/ed25519"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/cloudflare/circl/sign/mldsa/mldsa44"
	"golang.org/x/mod/sumdb/tlog"

	"tirage.fr/tirage/transparency/checkpoint"
	"tirage.fr/tirage/transparency/logtest"
	"tirage.fr/tirage/transparency/tilelog"
)

// Environment of the crash test's child process.
const (
	envCrashDir  = "TIRAGE_TLOG_CRASH_DIR"
	envCrashSeed = "TIRAGE_TLOG_CRASH_SEED"
)

// crashSigners derives test-only keys from a seed shared with the child.
func crashSigners(seed []byte) []crypto.Signer {
	var ms [mldsa44.SeedSize]byte
	copy(ms[:], seed)
	_, ml := mldsa44.NewKeyFromSeed(&ms)
	return []crypto.Signer{ed25519.NewKeyFromSeed(seed[:ed25519.SeedSize]), ml}
}

// TestCrashChild is the appending process of TestCrash: it appends under
// load until killed, printing "ACK <index> <leaf hash>" after each Append
// returns. It does nothing unless started by TestCrash.
func TestCrashChild(t *testing.T) {
	dir := os.Getenv(envCrashDir)
	if dir == "" {
		t.Skip("helper process of TestCrash")
	}
	seed, _ := hex.DecodeString(os.Getenv(envCrashSeed))
	l, err := tilelog.Open(context.Background(), tilelog.Config{Dir: dir, Origin: origin, Signers: crashSigners(seed)})
	if err != nil {
		fmt.Println("OPEN-FAILED", err)
		os.Exit(3)
	}
	var mu sync.Mutex
	out := bufio.NewWriter(os.Stdout)
	var wg sync.WaitGroup
	for w := range 16 {
		wg.Go(func() {
			for i := 0; ; i++ {
				leaf := fmt.Appendf(nil, "crash worker %d leaf %d %s", w, i, strings.Repeat("z", i%50))
				idx, err := l.Append(context.Background(), leaf)
				if err != nil {
					fmt.Println("APPEND-FAILED", err)
					os.Exit(4)
				}
				h := tlog.RecordHash(leaf)
				mu.Lock()
				fmt.Fprintf(out, "ACK %d %x\n", idx, h[:])
				out.Flush() // one write(2) per ack: the parent has it before we go on
				mu.Unlock()
			}
		})
	}
	wg.Wait()
}

// TestCrash kills -9 a process appending under load, then checks on restart
// that every acknowledged index holds the acknowledged leaf and that the new
// checkpoint is consistent with the last one published before the crash.
func TestCrash(t *testing.T) {
	if os.Getenv(envCrashDir) != "" {
		t.Skip("in the child")
	}
	dir := t.TempDir()
	seed := bytes.Repeat([]byte{7}, 32)
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), envCrashDir+"="+dir, envCrashSeed+"="+hex.EncodeToString(seed))
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	acked := map[uint64]tlog.Hash{}
	var mu sync.Mutex
	lines := make(chan int, 1)
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		s := bufio.NewScanner(stdout)
		for s.Scan() {
			f := strings.Fields(s.Text())
			if len(f) != 3 || f[0] != "ACK" {
				if strings.HasSuffix(f[0], "FAILED") {
					t.Errorf("child: %s", s.Text())
				}
				continue
			}
			idx, err1 := strconv.ParseUint(f[1], 10, 64)
			h, err2 := hex.DecodeString(f[2])
			if err1 != nil || err2 != nil || len(h) != 32 {
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
			case lines <- n:
			default:
			}
		}
	}()
	verifiers := func() []string {
		var keys []string
		for _, s := range crashSigners(seed) {
			k, err := checkpoint.VerifierKey(origin, s.Public())
			if err != nil {
				t.Fatal(err)
			}
			keys = append(keys, k)
		}
		return keys
	}()
	// Let the load run; remember the last checkpoint published before the
	// crash (read from disk, as an auditor would have fetched it).
	var before logtest.Verified
	for n := 0; n < 1500 || before.Size < 300; {
		select {
		case n = <-lines:
		case <-readDone:
			t.Fatal("child exited before the crash")
		}
		if raw, err := os.ReadFile(filepath.Join(dir, "tiles", "checkpoint")); err == nil {
			before = logtest.VerifyCheckpoint(t, raw, verifiers[0])
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

	l, err := tilelog.Open(context.Background(), tilelog.Config{Dir: dir, Origin: origin, Signers: crashSigners(seed)})
	if err != nil {
		t.Fatalf("reopen after kill -9: %v", err)
	}
	defer l.Close()
	ctx := t.Context()
	cp, err := l.AwaitCheckpoint(ctx, maxIdx+1)
	if err != nil {
		t.Fatalf("no checkpoint covering every acknowledged leaf after restart: %v", err)
	}
	after := logtest.VerifyCheckpoint(t, cp.Note, verifiers[0])
	for start := uint64(0); start <= maxIdx; {
		entries, err := l.Entries(ctx, start, min(maxIdx+1, start+1024), after.Size)
		if err != nil {
			t.Fatalf("Entries after restart: %v", err)
		}
		for i, e := range entries {
			idx := start + uint64(i)
			if want, ok := acked[idx]; ok && tlog.RecordHash(e) != want {
				t.Fatalf("acknowledged index %d holds another leaf after the crash: %q", idx, e)
			}
		}
		start += uint64(len(entries))
	}
	p, err := l.ConsistencyProof(ctx, before.Size, after.Size)
	if err != nil {
		t.Fatal(err)
	}
	if err := tlog.CheckTree(p, int64(after.Size), after.Hash, int64(before.Size), before.Hash); err != nil {
		t.Fatalf("checkpoint after the crash (%d) not consistent with the last one before (%d): %v", after.Size, before.Size, err)
	}
	// And the log goes on.
	idx, err := l.Append(ctx, []byte("after the crash"))
	if err != nil || idx < after.Size {
		t.Fatalf("Append after restart = %d, %v", idx, err)
	}
}
