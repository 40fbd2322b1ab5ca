package transparency_test

import (
	"errors"
	"fmt"
	"testing"

	"tirage.fr/tirage/transparency"
)

// An append refused because the backend failed counts as a failure, a
// rollback or fork (ErrSecurity) included; a closed log or bad input does
// not, and an acknowledged append counts as an append.
func TestMeterFailures(t *testing.T) {
	var m transparency.Meter
	for _, err := range []error{
		nil,
		fmt.Errorf("disk full: %w", transparency.ErrUnavailable),
		fmt.Errorf("tree went back: %w", transparency.ErrSecurity),
		transparency.ErrClosed,
		errors.New("leaf too large"),
	} {
		m.Start()(err)
	}
	if s := m.Stats(); s.Appends != 1 || s.Failures != 2 || s.InFlight != 0 {
		t.Fatalf("stats %+v: want 1 append, 2 failures, none in flight", s)
	}
}
