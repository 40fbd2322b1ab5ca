package verdict

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// repeated is a reference for RepeatedMember on valid JSON: each object's
// members, compared by name as encoding/json matches them to fields
// (strings.EqualFold), then each value in turn, recursively.
func repeated(t *testing.T, raw []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		t.Fatalf("reference: %v", err)
	}
	var v json.RawMessage
	switch tok {
	case json.Delim('{'):
		var seen []string
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				t.Fatalf("reference: %v", err)
			}
			for _, s := range seen {
				if strings.EqualFold(s, k.(string)) {
					return true
				}
			}
			seen = append(seen, k.(string))
			if err := dec.Decode(&v); err != nil {
				t.Fatalf("reference: %v", err)
			}
			if repeated(t, v) {
				return true
			}
		}
	case json.Delim('['):
		for dec.More() {
			if err := dec.Decode(&v); err != nil {
				t.Fatalf("reference: %v", err)
			}
			if repeated(t, v) {
				return true
			}
		}
	}
	return false
}

// FuzzRepeatedMember: RepeatedMember finds a member given twice exactly
// when the reference does, on any valid JSON, whatever its spacing; it
// never panics on anything else.
func FuzzRepeatedMember(f *testing.F) {
	for _, s := range []string{`{"a":1,"a":2}`, `{"a":{"b":1},"b":{"b":2}}`, `[{"x":[{"y":1,"y":1}]}]`, `{"receipts":[null],"receipts":[]}`,
		`{"a":"\u0061","\u0061":1}`, `{"Record":1,"record":2}`, `{"k":1,"\u212a":2}`, `{"a":1e999}`, `"x"`, `{`, `{"a" 1}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		err := RepeatedMember(b)
		if !json.Valid(b) {
			return
		}
		if want := repeated(t, b); want != (err != nil) {
			t.Fatalf("RepeatedMember(%s) = %v, reference says repeated: %v", b, err, want)
		}
		var c bytes.Buffer
		if json.Compact(&c, b) == nil && (RepeatedMember(c.Bytes()) == nil) != (err == nil) {
			t.Fatalf("compacted, %s reads otherwise", b)
		}
	})
}
