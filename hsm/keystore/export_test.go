package keystore

import "tirage.fr/tirage/hsm"

// KeyMaterial returns the private keys b holds, for leak checks.
func KeyMaterial(b hsm.Backend) [][]byte {
	s := b.(*Store)
	s.mu.RLock()
	defer s.mu.RUnlock()
	var out [][]byte
	for _, e := range s.keys {
		switch sg := e.signer.(type) {
		case *edSigner:
			out = append(out, sg.priv.Seed(), sg.priv)
		case *ecSigner:
			raw, _ := sg.priv.Bytes()
			out = append(out, raw)
		}
		if e.vrfKey != nil {
			out = append(out, e.vrfKey.Bytes())
		}
	}
	return out
}

// SignerScalar returns the private scalar an ECDSA signer of the store
// holds (nil for other signers), to check that Close wipes it.
func SignerScalar(sg hsm.Signer) []byte {
	if ec, ok := sg.(*ecSigner); ok {
		//lint:ignore SA1019 the deprecated big.Int is what Close wipes
		return ec.priv.D.Bytes()
	}
	return nil
}
