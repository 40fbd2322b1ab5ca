package record_test

import (
	"bytes"
	"encoding/hex"
	"errors"
	"os"
	"strings"
	"testing"

	"tirage.fr/tirage/verifier/record"
)

// TestAdminRecordRequest: emission and manifest records carry the
// operator's request identity ("req", "req_digest", optional, added within
// version 1) as game records do. A record logged before they existed (the
// golden leaf) still parses to one without them and formats back to the
// same bytes; one with them round-trips; one with req alone is malformed.
func TestAdminRecordRequest(t *testing.T) {
	req, digest := record.RequestID("operator", "op-1"), h32("create request")
	members := `"req":"` + hex.EncodeToString(req[:]) + `","req_digest":"` + hex.EncodeToString(digest[:]) + `",`
	for _, c := range []struct {
		kind  record.Kind
		after string // the member "req" sorts after
		get   func(record.Record) (req, digest [32]byte)
	}{
		{record.KindEmission, `"kind":"emission",`, func(r record.Record) ([32]byte, [32]byte) {
			v := r.(*record.Emission)
			return v.Req, v.ReqDigest
		}},
		{record.KindManifest, `"kind":"manifest",`, func(r record.Record) ([32]byte, [32]byte) {
			v := r.(*record.Manifest)
			return v.Req, v.ReqDigest
		}},
	} {
		legacy, err := os.ReadFile(goldenPath(c.kind))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(legacy, []byte(c.after)) || bytes.Contains(legacy, []byte(`"req"`)) {
			t.Fatalf("%s: unexpected golden leaf %s", c.kind, legacy)
		}
		with := bytes.Replace(legacy, []byte(c.after), []byte(c.after+members), 1)
		for _, tc := range []struct {
			name        string
			leaf        []byte
			req, digest [32]byte
		}{{"legacy", legacy, [32]byte{}, [32]byte{}}, {"with req", with, req, digest}} {
			r, err := record.Parse(tc.leaf)
			if err != nil {
				t.Fatalf("%s %s: %v", c.kind, tc.name, err)
			}
			if q, d := c.get(r); q != tc.req || d != tc.digest {
				t.Errorf("%s %s: req %x, req_digest %x; want %x, %x", c.kind, tc.name, q, d, tc.req, tc.digest)
			}
			back, err := record.Format(r)
			if err != nil || !bytes.Equal(back, tc.leaf) {
				t.Errorf("%s %s: formats back to %s (%v), want %s", c.kind, tc.name, back, err, tc.leaf)
			}
		}
		alone := strings.Replace(string(with), `"req_digest":"`+hex.EncodeToString(digest[:])+`",`, "", 1)
		if _, err := record.Parse([]byte(alone)); !errors.Is(err, record.ErrMalformed) || !strings.Contains(err.Error(), "req and req_digest") {
			t.Errorf("%s with req alone: %v, want %v naming req and req_digest", c.kind, err, record.ErrMalformed)
		}
	}
}
