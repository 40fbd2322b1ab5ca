package entropy

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"golang.org/x/sys/unix"
)

// A Source produces raw samples: bytes, each an 8-bit sample for the health
// tests. Read fills p completely or returns an error; any error fails the
// read, even one returned with a full buffer. A Source need not be safe for
// concurrent use (the Generator serialises its calls).
type Source interface {
	// Name identifies the source in metrics, logs and errors.
	Name() string
	// Physical reports whether the source is a physical noise source whose
	// entropy may be credited (SP 800-90B); getrandom(2) is not.
	Physical() bool
	Read(p []byte) (int, error)
}

// Source kinds accepted in SourceConfig.Kind.
const (
	KindHWRNG     = "hwrng"
	KindRDSEED    = "rdseed"
	KindTPM       = "tpm"
	KindGetrandom = "getrandom"
)

// ErrNotSupported is returned by Open when the source does not exist on this
// machine (no RDSEED instruction, no device). The configuration must then
// name another source; nothing falls back by itself.
var ErrNotSupported = errors.New("entropy source not supported here")

// DefaultHWRNGPath is the kernel's hardware RNG device.
const DefaultHWRNGPath = "/dev/hwrng"

// Open opens the source that sc describes (sc.Source, when set, is returned
// as is).
func Open(sc SourceConfig) (Source, error) {
	if sc.Source != nil {
		return sc.Source, nil
	}
	name := sc.Name
	if name == "" {
		name = sc.Kind
	}
	switch sc.Kind {
	case KindHWRNG:
		path := sc.Path
		if path == "" {
			path = DefaultHWRNGPath
		}
		return OpenDevice(name, path)
	case KindRDSEED:
		return OpenRDSEED(name)
	case KindTPM:
		return OpenTPM(name, sc.Path, sc.Address)
	case KindGetrandom:
		return Getrandom(name), nil
	case "":
		return nil, errors.New("entropy: source kind is empty (want hwrng, rdseed, tpm or getrandom)")
	default:
		return nil, fmt.Errorf("entropy: unknown source kind %q (want hwrng, rdseed, tpm or getrandom)", sc.Kind)
	}
}

// deviceSource reads a character device such as /dev/hwrng. No lock is
// held across a read: Close must not wait for a device that stalled.
type deviceSource struct {
	name      string
	f         *os.File // safe for a Read concurrent with Close
	closeOnce sync.Once
	closeErr  error
}

// OpenDevice opens a hardware RNG character device (physical source).
func OpenDevice(name, path string) (Source, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("entropy: source %s: %s: %w", name, path, ErrNotSupported)
	}
	if err != nil {
		return nil, fmt.Errorf("entropy: source %s: %w", name, err)
	}
	return &deviceSource{name: name, f: f}, nil
}

func (s *deviceSource) Name() string   { return s.name }
func (s *deviceSource) Physical() bool { return true }

func (s *deviceSource) Read(p []byte) (int, error) {
	// The virtio driver returns at most 64 bytes per read. After Close,
	// os.File returns os.ErrClosed.
	return io.ReadFull(s.f, p)
}

// Close closes the device. A read blocked in the kernel is woken when the
// device can be polled (a FIFO); /dev/hwrng cannot, and its read returns
// when the driver does.
func (s *deviceSource) Close() error {
	s.closeOnce.Do(func() { s.closeErr = s.f.Close() })
	return s.closeErr
}

// getrandomSource is the kernel's getrandom(2): a DRBG, not a noise source.
type getrandomSource struct{ name string }

// Getrandom returns getrandom(2) as a non-physical source: it is mixed into
// every seed but never credited with entropy.
func Getrandom(name string) Source {
	if name == "" {
		name = KindGetrandom
	}
	return getrandomSource{name: name}
}

func (s getrandomSource) Name() string   { return s.name }
func (s getrandomSource) Physical() bool { return false }

func (s getrandomSource) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		m, err := unix.Getrandom(p[n:], 0)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return n, fmt.Errorf("entropy: getrandom: %w", err)
		}
		n += m
	}
	return n, nil
}

// maxEmptyReads is the number of Reads in a row returning no bytes and no
// error after which readSource gives up with io.ErrNoProgress (bufio's
// limit too).
const maxEmptyReads = 100

// readSource fills p from src. Unlike io.ReadFull, any error fails the
// read, even one returned with the last bytes (io.Reader allows both at
// once): a source that reports a fault has not delivered samples to trust,
// and io.ReadFull would drop the error. A source that returns no bytes and
// no error maxEmptyReads times in a row fails with io.ErrNoProgress rather
// than be polled in a busy loop.
func readSource(src Source, p []byte) (int, error) {
	n, empty := 0, 0
	for n < len(p) {
		m, err := src.Read(p[n:])
		if m < 0 || m > len(p)-n {
			return n, fmt.Errorf("entropy: source %s: Read returned %d bytes for a %d-byte buffer", src.Name(), m, len(p)-n)
		}
		n += m
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		if err != nil {
			return n, err
		}
		if m > 0 {
			empty = 0
		} else if empty++; empty >= maxEmptyReads {
			return n, io.ErrNoProgress
		}
	}
	return n, nil
}
