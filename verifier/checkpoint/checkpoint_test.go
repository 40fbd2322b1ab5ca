package checkpoint_test

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"testing"

	"golang.org/x/mod/sumdb/note"

	"tirage.fr/tirage/verifier/checkpoint"
	"tirage.fr/tirage/verifier/receipt/receipttest"
	"tirage.fr/tirage/verifier/verdict"
)

func TestConsistencyAndState(t *testing.T) {
	a, err := receipttest.New(44)
	if err != nil {
		t.Fatal(err)
	}
	keys, _ := checkpoint.ParseKeys(string(a.LogKeyFile()))
	open := func(note []byte) *checkpoint.Checkpoint {
		c, err := checkpoint.Open(note, keys)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	old := open(a.Checkpoint())
	fork := a.Fork(a.Size())
	if _, err := a.PlayGame(receipttest.Play{Game: "g"}); err != nil {
		t.Fatal(err)
	}
	fork.Append([]byte("another history"))
	for fork.Size() < a.Size() {
		fork.Append([]byte("x"))
	}
	cur := open(a.Checkpoint())
	forked := open(fork.CheckpointAt(a.Size()))
	proof := a.Consistency(old.Size, cur.Size)

	if err := checkpoint.Consistent(old, cur, proof); err != nil {
		t.Errorf("honest growth: %v", err)
	}
	if err := checkpoint.Consistent(cur, old, proof); err != nil {
		t.Errorf("honest growth, arguments swapped: %v", err)
	}
	for name, err := range map[string]error{
		"same size, other root":      checkpoint.Consistent(cur, forked, nil),
		"proof against another tree": checkpoint.Consistent(old, forked, proof),
	} {
		if !errors.Is(err, checkpoint.ErrFork) || !errors.Is(err, verdict.ErrMisbehaviour) {
			t.Errorf("%s: %v, want ErrFork (misbehaviour)", name, err)
		}
	}

	s, _ := checkpoint.ParseState(nil)
	l, err := s.Trust(receipttest.Origin, keys, checkpoint.TrustPinned, a.Now)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Advance(old, nil, a.Now); err != nil {
		t.Fatal(err)
	}
	if err := l.Advance(cur, proof, a.Now); err != nil {
		t.Fatal(err)
	}
	before := string(s.Marshal())
	if err := l.Advance(forked, nil, a.Now); !errors.Is(err, checkpoint.ErrFork) || string(s.Marshal()) != before {
		t.Errorf("a fork must be refused and change nothing: %v", err)
	}
	again, err := checkpoint.ParseState(s.Marshal())
	if err != nil {
		t.Fatal(err)
	}
	if last, err := again.Logs[receipttest.Origin].Last(); err != nil || last.Size != cur.Size || last.Root != cur.Root {
		t.Errorf("state round trip: %v %v", last, err)
	}
	other, _ := receipttest.New(45)
	otherKeys, _ := checkpoint.ParseKeys(string(other.LogKeyFile()))
	if _, err := again.Trust(receipttest.Origin, otherKeys, checkpoint.TrustFirstUse, a.Now); err == nil {
		t.Error("a log already trusted took other keys")
	}
}

// A signature has one spelling: base64 whose padding bits are not zero
// decodes to the same signature (note.Open accepts it), but would give one
// checkpoint several texts, so Open refuses it.
func TestOpenSignatureSpelling(t *testing.T) {
	a, err := receipttest.New(45)
	if err != nil {
		t.Fatal(err)
	}
	keys, _ := checkpoint.ParseKeys(string(a.LogKeyFile()))
	note := a.Checkpoint()
	if _, err := checkpoint.Open(note, keys); err != nil {
		t.Fatal(err)
	}
	// The last base64 digit before the padding carries unused bits: a
	// digit one higher decodes to the same bytes.
	end := bytes.LastIndexByte(note[:len(note)-1], '=')
	if end < 0 || note[end-1] == '/' {
		t.Skip("this signature's encoding has no padding bits to vary")
	}
	other := bytes.Clone(note)
	const digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	other[end-1] = digits[strings.IndexByte(digits, other[end-1])+1]
	if _, err := checkpoint.Open(other, keys); !errors.Is(err, checkpoint.ErrMalformed) || !strings.Contains(err.Error(), "canonical base64") {
		t.Fatalf("a signature spelt with other padding bits: %v, want ErrMalformed (canonical base64)", err)
	}
}

// A checkpoint of more than MaxTreeSize leaves is malformed, even signed by
// a trusted key: x/mod's tlog proofs never end on trees of more than 2^62
// leaves, and every verifier reading it would hang (Ctrl-C too: the loop
// looks at no context).
func TestOpenTreeSizeBounded(t *testing.T) {
	skey, vkey, err := note.GenerateKey(rand.Reader, "huge.test/log")
	if err != nil {
		t.Fatal(err)
	}
	k, err := checkpoint.ParseKey(vkey)
	if err != nil {
		t.Fatal(err)
	}
	signer, err := note.NewSigner(skey)
	if err != nil {
		t.Fatal(err)
	}
	root := base64.StdEncoding.EncodeToString(make([]byte, 32))
	for _, n := range []uint64{checkpoint.MaxTreeSize, checkpoint.MaxTreeSize + 1, 1 << 62, 1<<63 - 1} {
		msg, err := note.Sign(&note.Note{Text: fmt.Sprintf("huge.test/log\n%d\n%s\n", n, root)}, signer)
		if err != nil {
			t.Fatal(err)
		}
		_, err = checkpoint.Open(msg, []*checkpoint.Key{k})
		if n <= checkpoint.MaxTreeSize {
			if err != nil {
				t.Errorf("size %d: %v", n, err)
			}
		} else if !errors.Is(err, checkpoint.ErrMalformed) || !strings.Contains(err.Error(), "no log is that large") {
			t.Errorf("size %d: %v, want ErrMalformed (no log is that large)", n, err)
		}
	}
}

// TestParseStateNullLog: a state file whose log entry is null (an edited
// or damaged file) is refused naming the log, not a panic.
func TestParseStateNullLog(t *testing.T) {
	_, err := checkpoint.ParseState([]byte(`{"v":1,"logs":{"example.org/log":null}}`))
	if err == nil || !strings.Contains(err.Error(), `"example.org/log"`) {
		t.Fatalf("ParseState(null log) = %v, want an error naming the log", err)
	}
}

// TestOpenBlankLine: a note whose signed text has an empty line is no
// checkpoint, though the log key signed it and its first three lines read
// as one: Open read the checkpoint up to the first blank line and note.Open
// verified the signatures up to the last, so what was accepted (and what
// a witness cosigned) was only a prefix of the signed text.
func TestOpenBlankLine(t *testing.T) {
	skey, vkey, err := note.GenerateKey(rand.Reader, "blank.test/log")
	if err != nil {
		t.Fatal(err)
	}
	signer, _ := note.NewSigner(skey)
	key, err := checkpoint.ParseKey(vkey)
	if err != nil {
		t.Fatal(err)
	}
	root := base64.StdEncoding.EncodeToString(make([]byte, 32))
	for _, text := range []string{
		"blank.test/log\n5\n" + root + "\n\nsomething else\n",
		"blank.test/log\n5\n" + root + "\n\n",
	} {
		msg, err := note.Sign(&note.Note{Text: text}, signer)
		if err != nil {
			t.Fatal(err)
		}
		if cp, err := checkpoint.Open(msg, []*checkpoint.Key{key}); !errors.Is(err, checkpoint.ErrMalformed) || !strings.Contains(fmt.Sprint(err), "empty line") {
			t.Errorf("Open(%q) = %v, %v; want malformed (empty line)", text, cp, err)
		}
	}
	// The same key's plain checkpoint opens.
	msg, _ := note.Sign(&note.Note{Text: "blank.test/log\n5\n" + root + "\n"}, signer)
	if _, err := checkpoint.Open(msg, []*checkpoint.Key{key}); err != nil {
		t.Errorf("plain checkpoint: %v", err)
	}
}
