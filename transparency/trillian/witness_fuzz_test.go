package trillian

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"strconv"
	"strings"
	"testing"

	fnote "github.com/transparency-dev/formats/note"
	"golang.org/x/mod/sumdb/note"

	"tirage.fr/tirage/transparency/checkpoint"
	"tirage.fr/tirage/transparency/witness"
)

// fuzzWitness returns a witness peer, its signer and a signed checkpoint
// of 7 leaves for it to cosign.
func fuzzWitness(t testing.TB) (witnessPeer, note.Signer, []byte) {
	skey, vkey, err := witness.GenerateKey("bailiff.test/witness")
	if err != nil {
		t.Fatal(err)
	}
	ws, err := witness.NewSigner(skey)
	if err != nil {
		t.Fatal(err)
	}
	v, err := fnote.NewVerifierForCosignatureV1(vkey)
	if err != nil {
		t.Fatal(err)
	}
	_, ed, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	ls, err := checkpoint.NewSigner("tirage.fr/log/fuzz", ed)
	if err != nil {
		t.Fatal(err)
	}
	cp, err := checkpoint.Sign("tirage.fr/log/fuzz", 7, [32]byte{1}, ls)
	if err != nil {
		t.Fatal(err)
	}
	return witnessPeer{url: "http://127.0.0.1:1/add-checkpoint", verifier: v}, ws, cp.Note
}

// A witness's 200 reply is taken only if it holds exactly one valid
// cosignature of the checkpoint by the witness's key; what is kept is that
// one line, which then verifies after the checkpoint.
func FuzzWitnessReply(f *testing.F) {
	p, ws, cp := fuzzWitness(f)
	text := cp[:bytes.Index(cp, []byte("\n\n"))+1]
	signed, err := note.Sign(&note.Note{Text: string(text)}, ws)
	if err != nil {
		f.Fatal(err)
	}
	good := signed[len(text)+1:]
	f.Add(good)
	f.Add(append(bytes.Clone(good), good...))
	f.Add([]byte("— bailiff.test/witness AAAA\n"))
	f.Add([]byte(""))
	f.Add([]byte("\n"))
	f.Fuzz(func(t *testing.T, reply []byte) {
		line, err := cosignature(p, cp, reply)
		if err != nil {
			return
		}
		if !bytes.HasPrefix(line, []byte("— bailiff.test/witness ")) || !bytes.HasSuffix(line, []byte("\n")) || bytes.Count(line, []byte("\n")) != 1 {
			t.Fatalf("cosignature line %q", line)
		}
		n, err := note.Open(append(bytes.Clone(cp), line...), note.VerifierList(p.verifier))
		if err != nil || len(n.Sigs) != 1 {
			t.Fatalf("line %q taken from reply %q does not verify: %v", line, reply, err)
		}
	})
}

func TestWitnessReplySeeds(t *testing.T) {
	p, ws, cp := fuzzWitness(t)
	text := cp[:bytes.Index(cp, []byte("\n\n"))+1]
	signed, err := note.Sign(&note.Note{Text: string(text)}, ws)
	if err != nil {
		t.Fatal(err)
	}
	good := signed[len(text)+1:]
	if line, err := cosignature(p, cp, good); err != nil || !bytes.Equal(line, good) {
		t.Fatalf("a witness's cosignature: %q, %v", line, err)
	}
	// The same line twice: kept once. Another checkpoint's cosignature,
	// or a line that is not one: refused.
	if line, err := cosignature(p, cp, append(bytes.Clone(good), good...)); err != nil || !bytes.Equal(line, good) {
		t.Fatalf("a cosignature sent twice: %q, %v", line, err)
	}
	if _, err := cosignature(p, bytes.Replace(cp, []byte("\n7\n"), []byte("\n8\n"), 1), good); err == nil {
		t.Fatal("a cosignature of another checkpoint taken")
	}
	if _, err := cosignature(p, cp, []byte("— bailiff.test/witness AAAA\n")); err == nil {
		t.Fatal("a malformed cosignature taken")
	}
}

// A 409's size is taken only as text/x.tlog.size, a canonical decimal no
// larger than the checkpoint's size.
func FuzzHeldSize(f *testing.F) {
	f.Add("text/x.tlog.size", []byte("5\n"), uint64(7))
	f.Add("text/x.tlog.size; charset=utf-8", []byte("0"), uint64(0))
	f.Add("text/plain", []byte("5\n"), uint64(7))
	f.Add("text/x.tlog.size", []byte("+5"), uint64(7))
	f.Add("text/x.tlog.size", []byte("9"), uint64(7))
	f.Fuzz(func(t *testing.T, ctype string, reply []byte, size uint64) {
		held, err := heldSize(ctype, reply, size)
		if err != nil {
			return
		}
		if held > size || strconv.FormatUint(held, 10) != strings.TrimSpace(string(reply)) {
			t.Fatalf("heldSize(%q, %q, %d) = %d", ctype, reply, size, held)
		}
	})
}

func TestHeldSizeSeeds(t *testing.T) {
	for _, tc := range []struct {
		ctype, reply string
		size         uint64
		want         uint64
		ok           bool
	}{
		{"text/x.tlog.size", "5\n", 7, 5, true},
		{"text/x.tlog.size; charset=utf-8", "0", 0, 0, true},
		{"text/plain", "5\n", 7, 0, false},
		{"", "5", 7, 0, false},
		{"text/x.tlog.size", "+5", 7, 0, false},
		{"text/x.tlog.size", "05", 7, 0, false},
		{"text/x.tlog.size", "9", 7, 0, false},
	} {
		got, err := heldSize(tc.ctype, []byte(tc.reply), tc.size)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("heldSize(%q, %q, %d) = %d, %v", tc.ctype, tc.reply, tc.size, got, err)
		}
	}
}
