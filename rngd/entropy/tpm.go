package entropy

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/go-tpm/tpm2"
	"github.com/google/go-tpm/tpm2/transport"
	"github.com/google/go-tpm/tpm2/transport/linuxtpm"
)

// DefaultTPMPath is the kernel's TPM resource manager device.
const DefaultTPMPath = "/dev/tpmrm0"

// tpmIOTimeout bounds one command/response exchange with a TPM simulator
// over TCP: a stalled peer becomes an error, not a hung draw.
const tpmIOTimeout = 10 * time.Second

type tpmSource struct {
	name      string
	mu        sync.Mutex // serialises commands; never held by Close
	t         transport.TPMCloser
	closed    atomic.Bool
	closeOnce sync.Once
	closeErr  error
}

// OpenTPM opens a TPM 2.0 as a physical source read with TPM2_GetRandom.
// With address set ("127.0.0.1:2321"), it speaks the TCG simulator's TCP
// protocol (TPM_SEND_COMMAND framing) to a simulator's command port, as
// swtpm and the reference simulator offer; the TPM must already be started
// (swtpm --flags not-need-init,startup-clear). Otherwise it opens the device
// at path (DefaultTPMPath when empty).
func OpenTPM(name, path, address string) (Source, error) {
	if name == "" {
		name = KindTPM
	}
	var t transport.TPMCloser
	if address != "" {
		c, err := net.DialTimeout("tcp", address, tpmIOTimeout)
		if err != nil {
			return nil, fmt.Errorf("entropy: source %s: %w", name, err)
		}
		t = &simulatorConn{c: c}
	} else {
		if path == "" {
			path = DefaultTPMPath
		}
		var err error
		t, err = linuxtpm.Open(path)
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("entropy: source %s: %s: %w", name, path, ErrNotSupported)
		}
		if err != nil {
			return nil, fmt.Errorf("entropy: source %s: %w", name, err)
		}
	}
	return &tpmSource{name: name, t: t}, nil
}

func (s *tpmSource) Name() string   { return s.name }
func (s *tpmSource) Physical() bool { return true }

func (s *tpmSource) Read(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed.Load() {
		return 0, os.ErrClosed
	}
	n := 0
	for n < len(p) {
		// A TPM returns at most the size of its largest digest per call.
		want := min(len(p)-n, 64)
		rsp, err := tpm2.GetRandom{BytesRequested: uint16(want)}.Execute(s.t)
		if err != nil {
			return n, fmt.Errorf("entropy: source %s: TPM2_GetRandom: %w", s.name, err)
		}
		if len(rsp.RandomBytes.Buffer) == 0 {
			return n, fmt.Errorf("entropy: source %s: TPM2_GetRandom returned no bytes", s.name)
		}
		n += copy(p[n:], rsp.RandomBytes.Buffer)
		clear(rsp.RandomBytes.Buffer)
	}
	return n, nil
}

// Close closes the transport without waiting for a command in progress (a
// TPM that stopped answering must not hang Close); that command then fails.
func (s *tpmSource) Close() error {
	s.closeOnce.Do(func() {
		s.closed.Store(true)
		s.closeErr = s.t.Close()
	})
	return s.closeErr
}

// simulatorConn is the command channel of the TCG TPM simulator's TCP
// protocol (TpmTcpProtocol.h): a request is TPM_SEND_COMMAND (8, uint32),
// locality (uint8), the command length (uint32) and the command; the reply
// is the response length (uint32), the response and a trailing uint32 that
// is 0 on success. All integers are big-endian.
type simulatorConn struct {
	c net.Conn
}

const (
	simSendCommand = 8
	// simMaxResponse bounds a response (TPM responses are at most a few kB).
	simMaxResponse = 1 << 16
)

func (s *simulatorConn) Send(cmd []byte) ([]byte, error) {
	if err := s.c.SetDeadline(time.Now().Add(tpmIOTimeout)); err != nil {
		return nil, err
	}
	req := make([]byte, 0, 9+len(cmd))
	req = binary.BigEndian.AppendUint32(req, simSendCommand)
	req = append(req, 0) // locality 0
	req = binary.BigEndian.AppendUint32(req, uint32(len(cmd)))
	req = append(req, cmd...)
	if _, err := s.c.Write(req); err != nil {
		return nil, fmt.Errorf("tpm simulator: send: %w", err)
	}
	return readSimulatorResponse(s.c)
}

// readSimulatorResponse parses one response of the simulator protocol: the
// length, the response and the trailing acknowledgement, which must be 0.
func readSimulatorResponse(r io.Reader) ([]byte, error) {
	var hdr [4]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return nil, fmt.Errorf("tpm simulator: response length: %w", err)
	}
	n := binary.BigEndian.Uint32(hdr[:])
	if n == 0 || n > simMaxResponse {
		return nil, fmt.Errorf("tpm simulator: response length %d out of range", n)
	}
	rsp := make([]byte, n)
	if _, err := io.ReadFull(r, rsp); err != nil {
		return nil, fmt.Errorf("tpm simulator: response: %w", err)
	}
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return nil, fmt.Errorf("tpm simulator: acknowledgement: %w", err)
	}
	if ack := binary.BigEndian.Uint32(hdr[:]); ack != 0 {
		return nil, fmt.Errorf("tpm simulator: command failed with code %d", ack)
	}
	return rsp, nil
}

func (s *simulatorConn) Close() error { return s.c.Close() }
