//go:build !cgo

package pkcs11

import "tirage.fr/tirage/hsm"

// Open fails: this binary was built without cgo.
func Open(cfg Config) (hsm.Backend, error) { return nil, ErrNotBuilt }
