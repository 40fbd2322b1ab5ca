package checkpoint_test

import (
	"bytes"
	"strings"
	"testing"

	"tirage.fr/tirage/verifier/checkpoint"
	"tirage.fr/tirage/verifier/receipt/receipttest"
)

// FuzzOpen: a checkpoint that opens re-parses to the same tree, and its
// text is the whole signed text of the note (up to its only blank line);
// nothing panics.
func FuzzOpen(f *testing.F) {
	a, err := receipttest.New(41)
	if err != nil {
		f.Fatal(err)
	}
	keys, err := checkpoint.ParseKeys(string(a.LogKeyFile()))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(a.Checkpoint())
	f.Add(a.CheckpointAt(1))
	f.Add([]byte("tirage.test/log\n1\nAAAA\n\n— x\n"))
	// Signed by the log keys, a checkpoint's lines then a paragraph.
	f.Add(a.SignText(strings.Split(string(a.Checkpoint()), "\n\n")[0] + "\n\nmore AAAA\n"))
	if _, err := checkpoint.Open(a.Checkpoint(), keys); err != nil {
		f.Fatalf("seed: %v", err)
	}
	f.Fuzz(func(t *testing.T, note []byte) {
		c, err := checkpoint.Open(note, keys)
		if err != nil {
			return
		}
		text, _, _ := bytes.Cut(note, []byte("\n\n"))
		origin, size, root, err := checkpoint.ParseText(string(text) + "\n")
		if err != nil || origin != c.Origin || size != c.Size || root != c.Root {
			t.Fatalf("opened %v but the text parses to %q %d %x (%v)", c, origin, size, root, err)
		}
		if bytes.LastIndex(note, []byte("\n\n")) != len(text) {
			t.Fatalf("opened %v from a note whose signed text goes on after it", c)
		}
	})
}

// FuzzParseKey: a key that parses prints back as its text and has a fingerprint.
func FuzzParseKey(f *testing.F) {
	a, err := receipttest.New(42)
	if err != nil {
		f.Fatal(err)
	}
	for _, k := range a.LogKeys {
		f.Add(k)
	}
	f.Add("name+00000000+AQ==")
	f.Fuzz(func(t *testing.T, s string) {
		k, err := checkpoint.ParseKey(s)
		if err != nil {
			return
		}
		again, err := checkpoint.ParseKey(k.Text)
		if err != nil || again.Fingerprint() != k.Fingerprint() || len(k.Fingerprint()) != 64 {
			t.Fatalf("%q: reparse %v", s, err)
		}
	})
}

// FuzzParseState: a state that parses marshals to a state that parses the same.
func FuzzParseState(f *testing.F) {
	a, err := receipttest.New(43)
	if err != nil {
		f.Fatal(err)
	}
	keys, _ := checkpoint.ParseKeys(string(a.LogKeyFile()))
	s, _ := checkpoint.ParseState(nil)
	l, err := s.Trust(receipttest.Origin, keys, checkpoint.TrustPinned, a.Now)
	if err != nil {
		f.Fatal(err)
	}
	c, _ := checkpoint.Open(a.Checkpoint(), keys)
	if err := l.Advance(c, nil, a.Now); err != nil {
		f.Fatal(err)
	}
	f.Add(s.Marshal())
	w := receipttest.NewWitness("bailiff.test", 1)
	ws, _ := checkpoint.ParseWitnesses(w.VKey)
	if _, err := s.Witness(receipttest.Origin, ws, 0, a.Now); err != nil {
		f.Fatal(err)
	}
	f.Add(s.Marshal())
	f.Add([]byte(`{"v":1,"logs":{}}`))
	f.Add([]byte(`{"v":1,"logs":{"x":null}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := checkpoint.ParseState(b)
		if err != nil {
			return
		}
		again, err := checkpoint.ParseState(s.Marshal())
		if err != nil || !bytes.Equal(again.Marshal(), s.Marshal()) {
			t.Fatalf("state does not round-trip: %v", err)
		}
	})
}

// FuzzParseKeys: a key file (one key a line, '#' comments) that parses
// prints back, one key text a line, to the same keys; nothing panics.
func FuzzParseKeys(f *testing.F) {
	a, err := receipttest.New(44)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(a.LogKeyFile()))
	f.Add("# the log's keys\r\n" + string(a.LogKeyFile()) + "\n\n")
	f.Add("name+00000000+AQ==\n")
	f.Fuzz(func(t *testing.T, s string) {
		keys, err := checkpoint.ParseKeys(s)
		if err != nil {
			return
		}
		var lines []string
		for _, k := range keys {
			if k.Text != strings.TrimSpace(k.Text) || strings.Contains(k.Text, "\n") {
				t.Fatalf("key text %q is not one trimmed line", k.Text)
			}
			lines = append(lines, k.Text)
		}
		again, err := checkpoint.ParseKeys(strings.Join(lines, "\n"))
		if err != nil || len(again) != len(keys) {
			t.Fatalf("%q: keys do not print back: %v", s, err)
		}
		for i := range keys {
			if again[i].Text != keys[i].Text || again[i].Fingerprint() != keys[i].Fingerprint() || again[i].Name != keys[i].Name {
				t.Fatalf("key %d changed on the round trip", i)
			}
		}
	})
}

// FuzzParseWitness: a witness key that parses prints back as its text
// (trimmed), parses again to the same key, and its key ID is the one
// derived from its name and key; nothing panics.
func FuzzParseWitness(f *testing.F) {
	for i, name := range []string{"bailiff.test", "auditor.example/witness"} {
		vkey := receipttest.NewWitness(name, byte(i+1)).VKey
		if _, err := checkpoint.ParseWitness(vkey); err != nil {
			f.Fatalf("seed %q: %v", vkey, err)
		}
		f.Add(vkey)
	}
	f.Add("bailiff.test+00000000+BA==")
	f.Add("x+01234567+AQ==")
	f.Add(" w+ffffffff+BAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\n")
	f.Fuzz(func(t *testing.T, s string) {
		w, err := checkpoint.ParseWitness(s)
		if err != nil {
			return
		}
		if w.Text != strings.TrimSpace(s) {
			t.Fatalf("%q: text %q", s, w.Text)
		}
		again, err := checkpoint.ParseWitness(w.Text)
		if err != nil || again.Name != w.Name || again.ID != w.ID || !bytes.Equal(again.Public, w.Public) {
			t.Fatalf("%q: reparse %v", s, err)
		}
		if want := receipttest.WitnessKeyID(w.Name, w.Public); want != w.ID {
			t.Fatalf("%q: key id %08x, derived %08x", s, w.ID, want)
		}
	})
}
