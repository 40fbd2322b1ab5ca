//go:build !cgo

package pkcs11

import "tirage.fr/tirage/hsm"

// Open fails: this binary was built without cgo.
func Open(cfg Config) (hsm.Backend, error) { return nil, ErrNotBuilt }

// PublicKeys fails: this binary was built without cgo.
func PublicKeys(cfg Config, labels ...string) ([]hsm.Key, error) { return nil, ErrNotBuilt }
