package receipttest

import (
	"fmt"

	"tirage.fr/tirage/verifier/receipt"
	"tirage.fr/tirage/verifier/record"
	"tirage.fr/tirage/verifier/vrf"
)

// AnnounceVRF makes a second VRF key and logs its announcement, as a key
// rotation does; it returns the key. Honest games stay on the first key
// (VRF); Cheat.OtherKey draws a pick under this one.
func (a *Appliance) AnnounceVRF() (*vrf.PrivateKey, error) {
	sk, err := vrf.GenerateKey(vrf.SuiteP256SSWU, a.rng)
	if err != nil {
		return nil, err
	}
	pub := sk.Public().Bytes()
	leaf, err := record.Format(&record.KeyAnnouncement{Time: a.tick(), Keys: []record.Key{
		{ID: vrfID(pub), Use: "vrf", Suite: string(vrf.SuiteP256SSWU), PublicKey: pub, Fingerprint: record.Fingerprint(pub)}}})
	if err != nil {
		return nil, err
	}
	a.Append(leaf)
	a.second = sk
	return sk, nil
}

// vrfID is the id of the VRF key whose bytes are pub.
func vrfID(pub []byte) string { return fmt.Sprintf("vrf-%x", record.Fingerprint(pub))[:20] }

// signer is the VRF key a draw is made with: the second one when other
// is set and one was announced.
func (a *Appliance) signer(other bool) *vrf.PrivateKey {
	if other && a.second != nil {
		return a.second
	}
	return a.VRF
}

// keyID is the id of signer(other).
func (a *Appliance) keyID(other bool) string {
	if other && a.second != nil {
		return vrfID(a.second.Public().Bytes())
	}
	return a.VRFID
}

// vrfKeys are the VRF keys a transcript carries: every key announced.
func (a *Appliance) vrfKeys() []receipt.VRFKey {
	keys := []receipt.VRFKey{a.vrfKey()}
	if a.second != nil {
		keys = append(keys, receiptKey(a.second))
	}
	return keys
}

// vrfKeyOf is the VRF key a receipt of leaf carries: the one its draw names.
func (a *Appliance) vrfKeyOf(leaf []byte) receipt.VRFKey {
	if r, err := record.Parse(leaf); err == nil && a.second != nil {
		if p, ok := r.(*record.Pick); ok && p.Key == a.keyID(true) {
			return receiptKey(a.second)
		}
	}
	return a.vrfKey()
}

func receiptKey(sk *vrf.PrivateKey) receipt.VRFKey {
	pk := sk.Public()
	return receipt.VRFKey{ID: vrfID(pk.Bytes()), Suite: string(pk.Suite()), PublicKey: fmt.Sprintf("%x", pk.Bytes())}
}
