//go:build !cgo

package pkcs11_test

import (
	"errors"
	"strings"
	"testing"

	"tirage.fr/tirage/hsm/pkcs11"
)

func TestNotBuilt(t *testing.T) {
	_, err := pkcs11.Open(pkcs11.Config{Module: pkcs11.DefaultModule, TokenLabel: "x", PIN: []byte("1234")})
	if !errors.Is(err, pkcs11.ErrNotBuilt) || !strings.Contains(err.Error(), "built without PKCS#11 support") {
		t.Errorf("Open without cgo: %v", err)
	}
	if _, err := pkcs11.PublicKeys(pkcs11.Config{Module: pkcs11.DefaultModule, TokenLabel: "x"}); !errors.Is(err, pkcs11.ErrNotBuilt) {
		t.Errorf("PublicKeys without cgo: %v", err)
	}
}
