package checkpoint_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

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
