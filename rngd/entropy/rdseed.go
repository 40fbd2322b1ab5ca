package entropy

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// rdseedRetries bounds the retries of one RDSEED while the CPU reports no
// seed available (CF=0). Intel's guidance (DRNG Software Implementation Guide
// §5.3.1) is to retry with a pause; a source that is still empty after this
// many tries is reported as an error, never papered over.
const rdseedRetries = 1000

// ErrRDSEEDExhausted is returned when RDSEED returned CF=0 rdseedRetries
// times in a row.
var ErrRDSEEDExhausted = errors.New("rdseed: no seed available after bounded retries")

type rdseedSource struct{ name string }

// OpenRDSEED returns the CPU's RDSEED instruction as a physical source, or an
// error wrapping ErrNotSupported on other architectures or when CPUID lacks
// RDSEED.
func OpenRDSEED(name string) (Source, error) {
	if name == "" {
		name = KindRDSEED
	}
	if !rdseedSupported() {
		return nil, fmt.Errorf("entropy: source %s: CPU has no RDSEED instruction: %w", name, ErrNotSupported)
	}
	return rdseedSource{name: name}, nil
}

func (s rdseedSource) Name() string   { return s.name }
func (s rdseedSource) Physical() bool { return true }

func (s rdseedSource) Read(p []byte) (int, error) {
	var w [8]byte
	n := 0
	for n < len(p) {
		v, ok := rdseed64(rdseedRetries)
		if !ok {
			return n, fmt.Errorf("entropy: source %s: %w", s.name, ErrRDSEEDExhausted)
		}
		binary.LittleEndian.PutUint64(w[:], v)
		n += copy(p[n:], w[:])
	}
	clear(w[:])
	return n, nil
}
