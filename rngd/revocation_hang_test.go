package rngd

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// hangingCRL is a test daemon's read of grpc.client_crl_file that hangs
// while hang is set, until unblock answers it (a network file system whose
// server is gone, then comes back).
type hangingCRL struct {
	hang    atomic.Bool
	reads   atomic.Int64  // reads started
	hung    chan struct{} // a read hangs
	unblock chan struct{} // answers a read that hangs; closed when the test ends
}

// newHangingCRL is a test daemon with grpc.client_crl_file revoking
// server-b, read by a hangingCRL, which it returns too. A read hangs for
// 50 ms before it is refused.
func newHangingCRL(t *testing.T) (*testDaemon, *hangingCRL) {
	h := &hangingCRL{hung: make(chan struct{}, 1), unblock: make(chan struct{})}
	td := newTestDaemon(t, withCRL(t, 1, "server-b"), func(c *Config) {
		c.trustedReadTimeout = 50 * time.Millisecond
		c.crlRead = func(path string) ([]byte, error) {
			h.reads.Add(1)
			if h.hang.Load() {
				select {
				case h.hung <- struct{}{}:
				default:
				}
				<-h.unblock
			}
			return readTrusted(path, crlName, crlRisk)
		}
	})
	t.Cleanup(func() { close(h.unblock) }) // before td.stop: a shutdown that waits for the read ends
	return td, h
}

// stopWithin stops td, a test daemon, and fails the test when the
// shutdown takes more than 10 s.
func stopWithin(t *testing.T, td *testDaemon, what string) {
	t.Helper()
	td.cancel()
	select {
	case err := <-td.done:
		td.cancel = nil
		if err != nil {
			t.Errorf("serve: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("the shutdown still waits, 10 s after it began, for %s", what)
	}
}

// crlRefused waits for tirage_client_crl_refused to be v.
func crlRefused(t *testing.T, td *testDaemon, what string, v float64) {
	t.Helper()
	eventually(t, what, func() bool {
		got, _ := gaugeValue(t, td, "tirage_client_crl_refused")
		return got == v
	})
}

// The shutdown does not wait for a read of grpc.client_crl_file that
// hangs: Serve waited for the watch, which waited for the read, and the
// daemon never stopped.
func TestCRLReadHangsShutdown(t *testing.T) {
	td, h := newHangingCRL(t)
	h.hang.Store(true)
	<-h.hung
	stopWithin(t, td, "a read of grpc.client_crl_file that hangs")
}

// A read of grpc.client_crl_file that hangs is refused as failed after
// its timeout, with the alarm, and the CRLs in force stay; no other read
// starts until it answers, and once it does the file is taken again. A
// read still hanging at the shutdown is abandoned, and logged. The watch
// waited for the read, without a word.
func TestCRLReadHangs(t *testing.T) {
	td, h := newHangingCRL(t)
	before := crlAlarms(td)
	h.hang.Store(true)
	<-h.hung
	crlRefused(t, td, "a read that hangs refused", 1)
	n := h.reads.Load()
	time.Sleep(5 * td.cfg.trustedReadTimeout)
	if got := h.reads.Load(); got != n {
		t.Errorf("%d reads started while one hung, want none", got-n)
	}
	if got := crlAlarms(td); got != before+1 {
		t.Errorf("%v alarms for one read that hangs, want 1", got-before)
	}
	wantHandshakeRefused(t, td, "server-b")

	h.hang.Store(false)
	h.unblock <- struct{}{}
	crlRefused(t, td, "the read that hung answers, the file is taken", 0)

	h.hang.Store(true)
	<-h.hung
	crlRefused(t, td, "a read that hangs refused again", 1)
	stopWithin(t, td, "a read of grpc.client_crl_file that hangs")
	if !strings.Contains(string(td.logs()), "a read that has not answered is abandoned") {
		t.Errorf("the shutdown did not log the read it abandoned")
	}
}

// A read of grpc.client_crl_file that hangs at the start refuses the start
// after its timeout, in one line naming the key: the start waited for it,
// without a word, and a SIGTERM (SignalContext's context, which the start
// does not watch) did not stop it.
func TestCRLReadHangsAtStart(t *testing.T) {
	td, h := newHangingCRL(t)
	td.stop()
	h.hang.Store(true)
	startRefusedWithin(t, td.cfg, "grpc.client_crl_file", "no answer within")
}

// startRefusedWithin starts a daemon of cfg whose read of the file of key
// hangs, and checks that the start is refused within 10 s, in one line
// naming key and saying want.
func startRefusedWithin(t *testing.T, cfg Config, key, want string) {
	t.Helper()
	refused := make(chan error, 1)
	go func() {
		d, err := Start(context.Background(), cfg)
		if err == nil {
			d.shutdown(0)
		}
		refused <- err
	}()
	select {
	case err := <-refused:
		if err == nil {
			t.Fatalf("a start whose read of %s hangs: started", key)
		}
		if msg := err.Error(); !strings.Contains(msg, key) || !strings.Contains(msg, want) || strings.Contains(msg, "\n") {
			t.Errorf("%q, want one line naming %s and saying %q", msg, key, want)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("the start still waits, 10 s after it began, for a read of %s that hangs", key)
	}
}

// A file refused, then a read that hangs and answers with the same file:
// the file's refusal is logged again, after the hang's. It was not (the
// file was refused already), and the last word of the log was that the
// read did not answer, though the file was what stayed refused.
func TestCRLReadHangsOnRefusedFile(t *testing.T) {
	td, h := newHangingCRL(t)
	const refusal, hang = "CRL 1: not a CRL", "no answer within"
	replaceFile(t, td.cfg.GRPC.ClientCRLFile, []byte("not a crl"))
	eventually(t, "the file refused", func() bool { return strings.Contains(string(td.logs()), refusal) })
	h.hang.Store(true)
	<-h.hung
	eventually(t, "the read that hangs refused", func() bool { return strings.Contains(string(td.logs()), hang) })
	h.hang.Store(false)
	h.unblock <- struct{}{}
	eventually(t, "the file's refusal logged again, after the read that hung", func() bool {
		logs := string(td.logs())
		return strings.LastIndex(logs, refusal) > strings.LastIndex(logs, hang)
	})
	crlRefused(t, td, "the file refused still", 1)
}

// A read of a CA bundle (grpc.client_ca_file, audit.client_ca_file) that
// hangs at the start refuses the start after its timeout, in one line
// naming the key, as grpc.client_crl_file's does, and nothing is created:
// the start waited for it, without a word, and a SIGTERM did not stop it.
func TestCABundleReadHangsAtStart(t *testing.T) {
	td := newTestDaemon(t)
	td.stop()
	caPEM, err := os.ReadFile(td.pki.CA())
	if err != nil {
		t.Fatal(err)
	}
	unblock := make(chan struct{})
	t.Cleanup(func() { close(unblock) })
	for _, key := range []string{"grpc.client_ca_file", "audit.client_ca_file"} {
		cfg := freshConfig(t, td)
		cfg.Audit.ClientCAFile = filepath.Join(t.TempDir(), "auditors.pem")
		replaceFile(t, cfg.Audit.ClientCAFile, caPEM)
		hangs := map[string]string{"grpc.client_ca_file": cfg.GRPC.ClientCAFile, "audit.client_ca_file": cfg.Audit.ClientCAFile}[key]
		cfg.trustedReadTimeout = 50 * time.Millisecond
		cfg.caRead = func(path string) ([]byte, error) {
			if path == hangs {
				<-unblock
			}
			return readTrusted(path, caBundleName, "add a CA of their own")
		}
		startRefusedWithin(t, cfg, key, "couldn't read the ca bundle: no answer within 50ms")
		untouched(t, key, cfg)
	}
}

// A read of the daemon's certificate or key (grpc.cert_file, grpc.key_file)
// that hangs at the start refuses the start after its timeout, in one line
// naming the key, as a CA bundle's does, and nothing is created; so does a
// certificate file that is a FIFO nobody writes. The start waited for
// them, without a word, and a SIGTERM did not stop it.
func TestServerCertReadHangsAtStart(t *testing.T) {
	td := newTestDaemon(t)
	td.stop()
	unblock := make(chan struct{})
	t.Cleanup(func() { close(unblock) })
	hang := func(read func(path string) ([]byte, error)) func(path string) ([]byte, error) {
		return func(path string) ([]byte, error) {
			<-unblock
			return read(path)
		}
	}
	for _, name := range []string{"grpc.cert_file", "grpc.key_file", "grpc.cert_file, a FIFO"} {
		t.Run(name, func(t *testing.T) {
			cfg := freshConfig(t, td)
			cfg.trustedReadTimeout = 50 * time.Millisecond
			key, want := "grpc.cert_file", "couldn't read the certificate: no answer within 50ms"
			switch name {
			case "grpc.cert_file":
				cfg.certRead = hang(readCertFile)
			case "grpc.key_file":
				cfg.keyRead = hang(readKeyFile)
				key, want = "grpc.key_file", "couldn't read the key: no answer within 50ms"
			default:
				cfg.GRPC.CertFile = filepath.Join(t.TempDir(), "rngd.pem")
				if err := syscall.Mkfifo(cfg.GRPC.CertFile, 0o644); err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { openFIFO(cfg.GRPC.CertFile) }) // ends the read that waits for a writer
			}
			startRefusedWithin(t, cfg, key, want)
			untouched(t, name, cfg)
		})
	}
}

// openFIFO opens the FIFO at path for writing, if a reader waits on it,
// and closes it: the reader reads the end of the file.
func openFIFO(path string) {
	if f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
		f.Close()
	}
}
