//go:build cgo

package pkcs11

import (
	"errors"
	"strings"
	"testing"

	p11 "github.com/miekg/pkcs11"

	"tirage.fr/tirage/hsm"
	"tirage.fr/tirage/hsm/hsmtest"
)

// TestModuleInitialisedElsewhere: a library some other code of the process
// initialised is refused, not shared: our last Close would C_Finalize it
// under that code.
func TestModuleInitialisedElsewhere(t *testing.T) {
	sh := hsmtest.NewSoftHSM(t)
	tok := sh.InitToken(t, "elsewhere")
	other := p11.New(sh.Module)
	if other == nil {
		t.Fatal("couldn't load", sh.Module)
	}
	if err := other.Initialize(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		other.Finalize()
		other.Destroy()
	}()
	b, err := Open(Config{Module: sh.Module, TokenLabel: tok.Label, PIN: tok.PIN})
	if err == nil {
		b.Close()
		t.Fatal("opened a token of a library initialised by other code")
	}
	if !errors.Is(err, hsm.ErrUnavailable) || !strings.Contains(err.Error(), "already initialised in this process") {
		t.Errorf("error: %v", err)
	}
	// The other code's initialisation stands.
	if _, err := other.GetSlotList(true); err != nil {
		t.Errorf("the other code's library after the refused Open: %v", err)
	}
	modules.Lock()
	n := len(modules.list)
	modules.Unlock()
	if n != 0 {
		t.Errorf("%d modules left loaded", n)
	}
}
