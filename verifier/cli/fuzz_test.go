package cli

import (
	"encoding/hex"
	"os"
	"slices"
	"strings"
	"testing"

	"tirage.fr/tirage/verifier/receipt"
	"tirage.fr/tirage/verifier/vrf"
)

// FuzzParseVRFKeyFile: a --vrf-key file (SUITE HEX lines, or the log's key
// announcement record) that parses prints back as SUITE HEX lines that parse
// to the same keys; nothing panics.
func FuzzParseVRFKeyFile(f *testing.F) {
	f.Add([]byte("# the appliance's key\nECVRF-P256-SHA256-SSWU 0360fed4ba255a9d31c961eb74c6356d68c049b8923b61fa6ce669622e60f29fb6\n"))
	f.Add([]byte("ECVRF-P256-SHA256-TAI 0360fed4ba255a9d31c961eb74c6356d68c049b8923b61fa6ce669622e60f29fb6"))
	f.Add([]byte("ECVRF-P256-SHA256-SSWU 04"))
	// rngctl keys export-public's lines (LABEL ALGORITHM HEX): refused.
	f.Add([]byte("vrf ECVRF-P256-SHA256-SSWU 0360fed4ba255a9d31c961eb74c6356d68c049b8923b61fa6ce669622e60f29fb6\nlog Ed25519 302a300506032b6570032100aa\n"))
	if ann, err := os.ReadFile("../announce/testdata/announcement.json"); err == nil {
		f.Add(ann)
	} else {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		keys, pins, ids, err := parseVRFKeyFile(b)
		if err != nil {
			return
		}
		// The ids an announcement gives its VRF keys name keys of the file.
		for _, k := range ids {
			if !slices.ContainsFunc(keys, k.Key.Equal) {
				t.Fatalf("key id %q names a key that is not one of the file's VRF keys", k.ID)
			}
		}
		for _, p := range pins {
			// A log key's fingerprint, or a VRF key's SUITE:fingerprint.
			s, fp, err := receipt.ParsePin(p)
			if err != nil || strings.ToLower(fp) != fp || (s == "" && p != fp) || (s != "" && p != string(s)+":"+fp) {
				t.Fatalf("pin %q is not a lower-case SHA-256, or SUITE: and one", p)
			}
			if s != "" && !slices.ContainsFunc(keys, func(k *vrf.PublicKey) bool { return receipt.VRFPin(k) == p }) {
				t.Fatalf("suite pin %q is not one of the file's VRF keys", p)
			}
		}
		if len(keys) == 0 {
			return // an announcement with no VRF key: only pins
		}
		var lines []string
		for _, k := range keys {
			lines = append(lines, string(k.Suite())+" "+hex.EncodeToString(k.Bytes()))
		}
		again, _, _, err := parseVRFKeyFile([]byte(strings.Join(lines, "\n")))
		if err != nil || len(again) != len(keys) {
			t.Fatalf("%q: keys do not print back: %v", b, err)
		}
		for i := range keys {
			if !again[i].Equal(keys[i]) || again[i].Suite() != keys[i].Suite() {
				t.Fatalf("key %d changed on the round trip", i)
			}
			if _, err := vrf.ParsePublicKey(keys[i].Suite(), keys[i].Bytes()); err != nil {
				t.Fatalf("key %d does not parse from its bytes: %v", i, err)
			}
		}
	})
}
