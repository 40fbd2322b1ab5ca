package drbg

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
)

// ErrSelfTest means HMAC_DRBG failed its health testing (SelfTest): the
// implementation does not compute what SP 800-90A specifies, and must not
// be used.
var ErrSelfTest = errors.New("drbg: known-answer self-test failed")

// A kat is one known-answer test: Instantiate(entropy, nonce, pers); if
// reseed is set, Reseed(reseed, addReseed); then Generate twice, 1024 bits
// each, with add1 and add2; want is the second output. All hex.
type kat struct {
	name                                    string
	entropy, nonce, pers, reseed, addReseed string
	add1, add2, want                        string
}

// selfTestVectors are two NIST CAVP vectors of testdata/hmac_drbg_sha256.txt
// (CAVS 14.3 HMAC_DRBG.rsp, [SHA-256]; TestSelfTestVectorsFromCAVP checks
// they are the file's): one with a personalization string and no reseed,
// one with a reseed and additional input on every call.
var selfTestVectors = []kat{
	{
		name:    "PersonalizationStringLen = 256 COUNT = 0",
		entropy: "5cacc68165a2e2ee20812f35ec73a79dbf30fd475476ac0c44fc6174cdac2b55",
		nonce:   "6f885496c1e63af620becd9e71ecb824",
		pers:    "e72dd8590d4ed5295515c35ed6199e9d211b8f069b3058caa6670b96ef1208d0",
		want: "f1012cf543f94533df27fedfbf58e5b79a3dc517a9c402bdbfc9a0c0f721f9d5" +
			"3faf4aafdc4b8f7a1b580fcaa52338d4bd95f58966a243cdcd3f446ed4bc546d" +
			"9f607b190dd69954450d16cd0e2d6437067d8b44d19a6af7a7cfa8794e5fbd72" +
			"8e8fb2f2e8db5dd4ff1aa275f35886098e80ff844886060da8b1e7137846b23b",
	},
	{
		name:      "PR False (SHA-256, 0, 256) #0",
		entropy:   "05ac9fc4c62a02e3f90840da5616218c6de5743d66b8e0fbf833759c5928b53d",
		nonce:     "2b89a17904922ed8f017a63044848545",
		reseed:    "2791126b8b52ee1fd9392a0a13e0083bed4186dc649b739607ac70ec8dcecf9b",
		addReseed: "43bac13bae715092cf7eb280a2e10a962faf7233c41412f69bc74a35a584e54c",
		add1:      "3f2fed4b68d506ecefa21f3f5bb907beb0f17dbc30f6ffbba5e5861408c53a1e",
		add2:      "529030df50f410985fde068df82b935ec23d839cb4b269414c0ede6cffea5b68",
		want: "02ddff5173da2fcffa10215b030d660d61179e61ecc22609b1151a75f1cbcbb4" +
			"363c3a89299b4b63aca5e581e73c860491010aa35de3337cc6c09ebec8c91a62" +
			"87586f3a74d9694b462d2720ea2e11bbd02af33adefb4a16e6b370fa0effd57d" +
			"607547bdcfbb7831f54de7073ad2a7da987a0016a82fa958779a168674b56524",
	},
}

// SelfTest is the health testing of SP 800-90A §11.3, run before each
// instantiation and reseed by the caller: known-answer tests of
// Instantiate (§11.3.2), Reseed (§11.3.4) and Generate (§11.3.3) on two
// NIST CAVP vectors; of Uninstantiate (§11.3.5): Wipe zeroes the internal
// state and a wiped instantiation refuses to generate; and of error
// handling: a request over MaxRequest is refused with a zeroed output. The
// error wraps ErrSelfTest; the caller must then enter an error state and
// refuse output (§11.3). It takes about 30 HMAC-SHA-256 computations.
func SelfTest() error { return selfTest(selfTestVectors) }

func selfTest(vectors []kat) error {
	for _, v := range vectors {
		if err := v.run(); err != nil {
			return fmt.Errorf("%w: %s: %w", ErrSelfTest, v.name, err)
		}
	}
	d, err := NewHMAC(make([]byte, MinEntropyInput), nil, nil)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrSelfTest, err)
	}
	out := bytes.Repeat([]byte{0xff}, MaxRequest+1)
	if d.Generate(out, nil) == nil || !bytes.Equal(out, make([]byte, len(out))) {
		return fmt.Errorf("%w: a request of %d bytes was not refused with a zeroed output", ErrSelfTest, len(out))
	}
	d.Wipe()
	if d.key != [outlen]byte{} || d.v != [outlen]byte{} || d.reseedCounter != 0 {
		return fmt.Errorf("%w: Wipe left internal state", ErrSelfTest)
	}
	if d.Generate(out[:outlen], nil) == nil || d.Reseed(make([]byte, MinEntropyInput), nil) == nil {
		return fmt.Errorf("%w: a wiped instantiation still generates or reseeds", ErrSelfTest)
	}
	return nil
}

func (v kat) run() error {
	var h [8][]byte
	for i, s := range []string{v.entropy, v.nonce, v.pers, v.reseed, v.addReseed, v.add1, v.add2, v.want} {
		b, err := hex.DecodeString(s)
		if err != nil {
			return err
		}
		h[i] = b
	}
	d, err := NewHMAC(h[0], h[1], h[2])
	if err != nil {
		return err
	}
	defer d.Wipe()
	if v.reseed != "" {
		if err := d.Reseed(h[3], h[4]); err != nil {
			return err
		}
	}
	got := make([]byte, 128)
	for _, add := range [][]byte{h[5], h[6]} {
		if err := d.Generate(got, add); err != nil {
			return err
		}
	}
	if !bytes.Equal(got, h[7]) {
		return errors.New("returned bits differ from the known answer")
	}
	return nil
}
