package verdict

import (
	"encoding/asn1"
	"errors"
	"strings"
)

// x509Fixed are crypto/x509's (and the key parsers' under it) fixed texts
// for a public key it refuses, each its own English template.
var x509Fixed = []MsgID{
	MsgX509PKCS1, MsgX509Trailing, MsgX509UnknownAlgorithm,
	MsgX509RSANull, MsgX509RSAInvalid, MsgX509RSAModulus, MsgX509RSAExponent,
	MsgX509RSAModulusSign, MsgX509RSAExpSign,
	MsgX509ECDSAParams, MsgX509Curve, MsgX509ECUncompressed, MsgX509ECEncoding,
	MsgX509Ed25519Size, MsgX509X25519Key, MsgX509MLDSAParams, MsgX509MLDSALength,
	MsgX509DSAKey, MsgX509DSAParams, MsgX509DSAZero,
}

// x509Named are the texts with a word in them (an algorithm, a curve):
// the template and the text around the word.
var x509Named = []struct {
	id             MsgID
	prefix, suffix string
}{
	{MsgX509IllegalParams, "x509: ", " key encoded with illegal parameters"}, // Ed25519, X25519, ML-DSA
	{MsgX509PointEncoding, "invalid ", " point encoding"},                    // P224 … P521
	{MsgX509PointOffCurve, "", " point not on curve"},
}

// X509Error names in the catalog the error of crypto/x509.ParsePKIXPublicKey
// for a public key it refuses — DER that is not a SubjectPublicKeyInfo (with
// encoding/asn1's detail), an unknown or unsupported algorithm or curve, a
// point or a key of the wrong size — so that it reads in French too; the
// English text is err's, unchanged. An error it does not know is named as
// an unreadable key, its text kept as a technical detail.
func X509Error(err error) error {
	var syn asn1.SyntaxError
	var st asn1.StructuralError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &syn):
		return Errorf(MsgX509NotSPKI, M(MsgASN1Syntax, ASN1Detail(syn.Msg)), err)
	case errors.As(err, &st):
		// encoding/asn1's detail (its Go types, field tags and offsets)
		// says nothing more to a reader than this.
		return Errorf(MsgX509NotSPKI, M(MsgX509SPKIStructure), err)
	}
	if named := X509Named(err); named != err {
		return named
	}
	return Errorf(MsgX509Unreadable, err)
}

// X509Named is X509Error for the key parsers' own texts only (not
// encoding/asn1's errors, nor an unknown text, which it returns unchanged):
// for a caller that meets such an error bare, after whatever named the rest.
func X509Named(err error) error {
	if named := Named(err, x509Fixed...); named != err {
		return named
	}
	text := err.Error()
	for _, n := range x509Named {
		word, ok := strings.CutPrefix(text, n.prefix)
		if word, ok2 := strings.CutSuffix(word, n.suffix); ok && ok2 && word != "" && !strings.ContainsAny(word, " :") {
			return Errorf(n.id, word)
		}
	}
	return err
}

// ASN1Detail is encoding/asn1's detail of an error (SyntaxError.Msg,
// StructuralError.Msg): its usual fixed texts in the catalog, any other
// quoted as the parser's detail.
func ASN1Detail(s string) Msg {
	for _, id := range []MsgID{MsgASN1SequenceTruncated, MsgASN1TagTruncated, MsgASN1DataTruncated, MsgASN1LengthTooLarge} {
		if Format(id, "en") == s {
			return M(id)
		}
	}
	return M(MsgASN1Detail, s)
}
