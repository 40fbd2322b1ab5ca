package checkpoint

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/cloudflare/circl/sign/mldsa/mldsa44"
	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

const name = "tirage.fr/log/test"

func keys(t testing.TB) (ed25519.PrivateKey, *mldsa44.PrivateKey) {
	t.Helper()
	ed := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{1}, 32))
	var seed [mldsa44.SeedSize]byte
	seed[0] = 2
	_, ml := mldsa44.NewKeyFromSeed(&seed)
	return ed, ml
}

// The Ed25519 verifier key must be byte-for-byte what x/mod produces, so any
// C2SP tool can use /log/vkey.
func TestEd25519VerifierKeyMatchesXMod(t *testing.T) {
	ed, _ := keys(t)
	got, err := VerifierKey(name, ed.Public())
	if err != nil {
		t.Fatal(err)
	}
	want, err := note.NewEd25519VerifierKey(name, ed.Public().(ed25519.PublicKey))
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Fatalf("VerifierKey = %q, x/mod says %q", got, want)
	}
}

// The ML-DSA-44 key ID follows the package doc's formula.
func TestMLDSAKeyID(t *testing.T) {
	_, ml := keys(t)
	pub := ml.Public().(*mldsa44.PublicKey)
	vk, err := VerifierKey(name, pub)
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.Sum256(append([]byte(name+"\n\xffml-dsa-44"), pub.Bytes()...))
	if want := "+" + strings.ToLower(strings.TrimLeft(hexID(h[:4]), "")) + "+"; !strings.Contains(vk, want) {
		t.Fatalf("vkey %.60s... lacks key ID %s", vk, want)
	}
	v, err := ParseVerifierKey(vk)
	if err != nil {
		t.Fatal(err)
	}
	if v.Name() != name {
		t.Fatalf("name %q", v.Name())
	}
}

func hexID(b []byte) string {
	const digits = "0123456789abcdef"
	var s []byte
	for _, c := range b {
		s = append(s, digits[c>>4], digits[c&15])
	}
	return string(s)
}

func TestSignOpen(t *testing.T) {
	ed, ml := keys(t)
	se, err := NewSigner(name, ed)
	if err != nil {
		t.Fatal(err)
	}
	sm, err := NewSigner(name, ml)
	if err != nil {
		t.Fatal(err)
	}
	root := tlog.RecordHash([]byte("root"))
	cp, err := Sign(name, 42, root, se, sm)
	if err != nil {
		t.Fatal(err)
	}
	ve, _ := NewVerifier(name, ed.Public())
	vm, _ := NewVerifier(name, ml.Public())
	for _, vs := range [][]note.Verifier{{ve}, {vm}, {ve, vm}} {
		got, err := Open(cp.Note, vs...)
		if err != nil {
			t.Fatalf("Open with %d verifiers: %v", len(vs), err)
		}
		if got.Size != 42 || got.Hash != root || got.Origin != name {
			t.Fatalf("Open = %+v", got)
		}
	}
	// x/mod alone, with the Ed25519 key text.
	vk, _ := VerifierKey(name, ed.Public())
	xv, err := note.NewVerifier(vk)
	if err != nil {
		t.Fatal(err)
	}
	n, err := note.Open(cp.Note, note.VerifierList(xv))
	if err != nil {
		t.Fatalf("x/mod note.Open: %v", err)
	}
	if len(n.UnverifiedSigs) != 1 {
		t.Fatalf("x/mod should ignore the ML-DSA-44 line; unverified sigs: %d", len(n.UnverifiedSigs))
	}
	// A tampered note fails with a signature error for each key.
	bad := bytes.Replace(cp.Note, []byte("\n42\n"), []byte("\n43\n"), 1)
	for _, v := range []note.Verifier{ve, vm} {
		_, err := Open(bad, v)
		var ise *note.InvalidSignatureError
		if !errors.As(err, &ise) {
			t.Fatalf("tampered note: err = %v, want InvalidSignatureError", err)
		}
	}
	// Another key of the same name is unknown.
	other := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{9}, 32))
	vo, _ := NewVerifier(name, other.Public())
	if _, err := Open(cp.Note, vo); err == nil {
		t.Fatal("opened with an unrelated key")
	}
}

func TestSignRejectsWrongName(t *testing.T) {
	ed, _ := keys(t)
	s, _ := NewSigner("other.example/log", ed)
	if _, err := Sign(name, 1, tlog.Hash{}, s); err == nil {
		t.Fatal("signed with a signer of another name")
	}
	if _, err := NewSigner("bad name", ed); err == nil {
		t.Fatal("accepted a name with a space")
	}
	if _, err := NewSigner("bad+name", ed); err == nil {
		t.Fatal("accepted a name with '+'")
	}
}

func TestParseText(t *testing.T) {
	root := tlog.RecordHash([]byte("r"))
	txt := string(FormatText(name, 7, root))
	o, n, h, err := ParseText(txt)
	if err != nil || o != name || n != 7 || h != root {
		t.Fatalf("ParseText(FormatText) = %q %d %x %v", o, n, h, err)
	}
	if _, _, _, err := ParseText(txt + "extension line\n"); err != nil {
		t.Fatalf("extension lines must be accepted: %v", err)
	}
	for _, bad := range []string{
		"", "\n", name + "\n7\n", name + "\n07\n" + txt[len(name)+3:], name + "\n-1\nAAAA\n",
		name + "\n7\nAAAA\n", name + "\n7\n" + strings.Repeat("A", 44),
		name + "\n18446744073709551615\n" + strings.SplitN(txt, "\n", 4)[2] + "\n",
	} {
		if _, _, _, err := ParseText(bad); err == nil {
			t.Errorf("ParseText(%q) succeeded", bad)
		}
	}
}

// FuzzOpen: Open never panics and anything it accepts round-trips to the same
// text and verifies again.
func FuzzOpen(f *testing.F) {
	ed, ml := keys(f)
	se, _ := NewSigner(name, ed)
	sm, _ := NewSigner(name, ml)
	cp, _ := Sign(name, 3, tlog.RecordHash([]byte("x")), se, sm)
	f.Add(cp.Note)
	f.Add([]byte(name + "\n3\nAAAA\n\n— " + name + " AAAA\n"))
	ve, _ := NewVerifier(name, ed.Public())
	vm, _ := NewVerifier(name, ml.Public())
	f.Fuzz(func(t *testing.T, msg []byte) {
		got, err := Open(msg, ve, vm)
		if err != nil {
			return
		}
		if string(FormatText(got.Origin, got.Size, got.Hash)) != strings.SplitAfterN(string(msg), "\n", 4)[0]+strings.SplitAfterN(string(msg), "\n", 4)[1]+strings.SplitAfterN(string(msg), "\n", 4)[2] {
			t.Fatalf("accepted note does not round-trip: %q", msg)
		}
	})
}

// FuzzParseVerifierKey: never panics; an accepted key is named by its prefix.
func FuzzParseVerifierKey(f *testing.F) {
	ed, ml := keys(f)
	for _, p := range []any{ed.Public(), ml.Public()} {
		vk, _ := VerifierKey(name, p)
		f.Add(vk)
	}
	f.Add("a+00000000+AQ==")
	f.Fuzz(func(t *testing.T, vk string) {
		v, err := ParseVerifierKey(vk)
		if err != nil {
			return
		}
		if !strings.HasPrefix(vk, v.Name()+"+") {
			t.Fatalf("name %q not the prefix of %q", v.Name(), vk)
		}
	})
}

// Known answer: Ed25519 is deterministic, so for the same key x/mod's own
// signer (fed the key in its PRIVATE+KEY text form) must produce the very
// same signed note, byte for byte.
func TestEd25519MatchesXModSigner(t *testing.T) {
	ed, _ := keys(t)
	s, err := NewSigner(name, ed)
	if err != nil {
		t.Fatal(err)
	}
	root := tlog.RecordHash([]byte("known answer"))
	cp, err := Sign(name, 1234, root, s)
	if err != nil {
		t.Fatal(err)
	}
	skey := fmt.Sprintf("PRIVATE+KEY+%s+%08x+%s", name, s.KeyHash(), base64.StdEncoding.EncodeToString(append([]byte{1}, ed.Seed()...)))
	xs, err := note.NewSigner(skey)
	if err != nil {
		t.Fatal(err)
	}
	want, err := note.Sign(&note.Note{Text: name + "\n1234\n" + base64.StdEncoding.EncodeToString(root[:]) + "\n"}, xs)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(cp.Note, want) {
		t.Fatalf("signed checkpoint differs from x/mod's:\n%s\nwant:\n%s", cp.Note, want)
	}
}
