// Package drbg is the deterministic random bit generator of SP 800-90A Rev. 1:
// HMAC_DRBG (§10.1.2) with SHA-256, security strength 256 bits.
//
// It implements the three algorithms of the standard, numbered after it:
// Instantiate (§10.1.2.3), Reseed (§10.1.2.4) and Generate (§10.1.2.5), with
// the Update function of §10.1.2.2. The caller supplies the entropy input:
// this package does no I/O and never reads a clock, so it is checked against
// the NIST CAVP known-answer vectors (testdata/) byte for byte. Prediction
// resistance (§9.3.1 step 7) is the caller's choice: reseed with fresh entropy
// before every Generate call.
//
// SelfTest is the health testing of §11.3 (known-answer tests of each
// function, the wipe of Uninstantiate, error handling), for the caller to
// run before each instantiation and reseed.
//
// The internal state (Key, V) is secret: it never appears in an error, a
// String method or a log line. Wipe zeroes it.
package drbg

import (
	"crypto/hmac"
	"crypto/sha256"
	"errors"
	"fmt"
)

const (
	// SecurityStrength is the security strength of HMAC_DRBG with SHA-256, in bits.
	SecurityStrength = 256
	// MinEntropyInput is the minimum length of an entropy input, in bytes
	// (SP 800-90A Table 2: security_strength bits).
	MinEntropyInput = SecurityStrength / 8
	// MaxRequest is max_number_of_bits_per_request (2^19 bits) in bytes.
	MaxRequest = 1 << 16
	// ReseedLimit is reseed_interval of SP 800-90A Table 2 (2^48 requests).
	ReseedLimit = 1 << 48
	// MaxInput is the limit, in bytes, we put on entropy, nonce, personalization and
	// additional inputs (the standard allows 2^35 bits; we need far less).
	MaxInput = 1 << 16

	outlen = sha256.Size
)

// ErrReseedRequired is returned by Generate when the reseed counter has passed
// ReseedLimit. The caller must Reseed before generating again.
var ErrReseedRequired = errors.New("drbg: reseed required")

// HMAC is an instantiation of HMAC_DRBG with SHA-256. It is not safe for
// concurrent use; the caller serialises access.
type HMAC struct {
	key           [outlen]byte
	v             [outlen]byte
	reseedCounter uint64
	wiped         bool
}

// NewHMAC instantiates HMAC_DRBG (§10.1.2.3) from entropyInput (at least
// MinEntropyInput bytes carrying at least 256 bits of entropy), a nonce and
// an optional personalization string.
func NewHMAC(entropyInput, nonce, personalization []byte) (*HMAC, error) {
	if len(entropyInput) < MinEntropyInput {
		return nil, fmt.Errorf("drbg: entropy input is %d bytes, need at least %d", len(entropyInput), MinEntropyInput)
	}
	if len(entropyInput) > MaxInput || len(nonce) > MaxInput || len(personalization) > MaxInput {
		return nil, errors.New("drbg: instantiate input too long")
	}
	d := new(HMAC)
	// 1. seed_material = entropy_input || nonce || personalization_string.
	// 2. Key = 0x00 00...00.
	// 3. V = 0x01 01...01.
	for i := range d.v {
		d.v[i] = 0x01
	}
	// 4. (Key, V) = HMAC_DRBG_Update(seed_material, Key, V).
	d.update(entropyInput, nonce, personalization)
	// 5. reseed_counter = 1.
	d.reseedCounter = 1
	return d, nil
}

// Reseed reseeds the instantiation (§10.1.2.4) with a fresh entropy input and
// optional additional input.
func (d *HMAC) Reseed(entropyInput, additionalInput []byte) error {
	if d.wiped {
		return errors.New("drbg: reseed after wipe")
	}
	if len(entropyInput) < MinEntropyInput {
		return fmt.Errorf("drbg: entropy input is %d bytes, need at least %d", len(entropyInput), MinEntropyInput)
	}
	if len(entropyInput) > MaxInput || len(additionalInput) > MaxInput {
		return errors.New("drbg: reseed input too long")
	}
	// 1. seed_material = entropy_input || additional_input.
	// 2. (Key, V) = HMAC_DRBG_Update(seed_material, Key, V).
	d.update(entropyInput, additionalInput)
	// 3. reseed_counter = 1.
	d.reseedCounter = 1
	return nil
}

// Generate fills out with pseudorandom bits (§10.1.2.5); len(out) is at most
// MaxRequest. additionalInput may be nil. On error out is zeroed, so that
// nothing the caller held there passes for output.
func (d *HMAC) Generate(out, additionalInput []byte) error {
	if err := d.generateCheck(out, additionalInput); err != nil {
		clear(out)
		return err
	}
	// 2. If additional_input != Null, (Key, V) = HMAC_DRBG_Update(additional_input, Key, V).
	if len(additionalInput) > 0 {
		d.update(additionalInput)
	}
	// 3. temp = Null.
	// 4. While len(temp) < requested_number_of_bits: V = HMAC(Key, V); temp = temp || V.
	// 5. returned_bits = leftmost(temp, requested_number_of_bits).
	mac := hmac.New(sha256.New, d.key[:])
	for n := 0; n < len(out); {
		mac.Reset()
		mac.Write(d.v[:])
		mac.Sum(d.v[:0])
		n += copy(out[n:], d.v[:])
	}
	// 6. (Key, V) = HMAC_DRBG_Update(additional_input, Key, V).
	d.update(additionalInput)
	// 7. reseed_counter = reseed_counter + 1.
	d.reseedCounter++
	return nil
}

// generateCheck returns the error Generate must return before producing
// anything, or nil.
func (d *HMAC) generateCheck(out, additionalInput []byte) error {
	if d.wiped {
		return errors.New("drbg: generate after wipe")
	}
	if len(out) > MaxRequest {
		return fmt.Errorf("drbg: request of %d bytes exceeds %d", len(out), MaxRequest)
	}
	if len(additionalInput) > MaxInput {
		return errors.New("drbg: additional input too long")
	}
	// 1. If reseed_counter > reseed_interval, return an indication that a
	// reseed is required.
	if d.reseedCounter > ReseedLimit {
		return ErrReseedRequired
	}
	return nil
}

// Wipe zeroes the internal state; the instantiation is unusable afterwards.
func (d *HMAC) Wipe() {
	clear(d.key[:])
	clear(d.v[:])
	d.reseedCounter = 0
	d.wiped = true
}

// update is HMAC_DRBG_Update (§10.1.2.2); provided_data is the concatenation
// of parts.
func (d *HMAC) update(parts ...[]byte) {
	empty := true
	for _, p := range parts {
		if len(p) > 0 {
			empty = false
		}
	}
	// 1. K = HMAC(K, V || 0x00 || provided_data).
	d.key = d.mac(0x00, parts)
	// 2. V = HMAC(K, V).
	d.v = d.mac(0xff, nil)
	// 3. If provided_data = Null, return (K, V).
	if empty {
		return
	}
	// 4. K = HMAC(K, V || 0x01 || provided_data).
	d.key = d.mac(0x01, parts)
	// 5. V = HMAC(K, V).
	d.v = d.mac(0xff, nil)
}

// mac returns HMAC(Key, V || sep || parts...); sep 0xff means HMAC(Key, V).
func (d *HMAC) mac(sep byte, parts [][]byte) [outlen]byte {
	m := hmac.New(sha256.New, d.key[:])
	m.Write(d.v[:])
	if sep != 0xff {
		m.Write([]byte{sep})
		for _, p := range parts {
			m.Write(p)
		}
	}
	var r [outlen]byte
	m.Sum(r[:0])
	return r
}
