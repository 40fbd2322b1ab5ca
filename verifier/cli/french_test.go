package cli

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"golang.org/x/mod/sumdb/tlog"

	"tirage.fr/tirage/verifier/announce"
	"tirage.fr/tirage/verifier/beacon"
	"tirage.fr/tirage/verifier/checkpoint"
	"tirage.fr/tirage/verifier/promo"
	"tirage.fr/tirage/verifier/receipt"
	"tirage.fr/tirage/verifier/record"
	"tirage.fr/tirage/verifier/verdict"
	"tirage.fr/tirage/verifier/vrf"
)

// identifiers are what a French line may hold in English because it is
// not prose: flags (--proof), the command column of the usage, and the file
// syntax or names quoted in guillemets (« key <…> », « verify »).
var identifiers = regexp.MustCompile(`(^|[\s(])--?[a-z][a-z-]*|(?m)^  [a-z]+ {2,}|« [^»]* »`)

// frenchProse is frenchOK on s without its identifiers.
func frenchProse(t *testing.T, name, s string) {
	t.Helper()
	frenchOK(t, name, identifiers.ReplaceAllString(s, " "))
}

// quotedEnglish is how a French reason quotes an English text it could not
// say in French: none of the reasons below may do it any more.
var quotedEnglish = regexp.MustCompile(`en anglais`)

// TestFrenchReasons: the core's errors that rngverify shows as reasons —
// promotion beacon and bailiff's share details, entrant list defects, the
// log's consistency proof, refused VRF keys and suites, key announcement
// defects — read in French with --lang fr, without quoting English, and
// their English text is what it always was (err.Error()).
func TestFrenchReasons(t *testing.T) {
	second := func(_ any, err error) error { return err }
	p256 := func(b []byte) error { return second(vrf.ParsePublicKey(vrf.SuiteP256SSWU, b)) }
	rsaKey := func(b []byte) error { return second(vrf.ParsePublicKey(vrf.SuiteRSAFDH256, b)) }
	ecKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	ecSPKI, _ := x509.MarshalPKIXPublicKey(&ecKey.PublicKey)
	small, err := rsa.GenerateKey(rand.Reader, 1024)
	if err != nil {
		t.Fatal(err)
	}
	smallSPKI, _ := x509.MarshalPKIXPublicKey(&small.PublicKey)
	edPub := ed25519.NewKeyFromSeed(make([]byte, ed25519.SeedSize)).Public()
	envelope := func(s string) error { return second(announce.ParseEnvelope([]byte(s), announce.PayloadType)) }
	// A key announcement whose one signing key has public key pub: it fails
	// on that key, before any signature is checked.
	signingKey := func(suite string, pub []byte) error {
		ann := &record.KeyAnnouncement{Time: time.Unix(1e9, 0), Keys: []record.Key{{ID: "log", Use: announce.UseLog, Suite: suite, PublicKey: pub, Fingerprint: record.Fingerprint(pub)}}}
		leaf, err := announce.Seal(ann, func(int, []byte) ([]byte, error) { return []byte{1}, nil })
		if err != nil {
			t.Fatal(err)
		}
		return announce.Check(leaf)
	}
	edKey := func(pub []byte) error { return signingKey(announce.Ed25519, pub) }
	ecKeyOf := func(pub []byte) error { return signingKey(announce.ECDSAP256SHA256, pub) }
	edSPKI, _ := x509.MarshalPKIXPublicKey(edPub)
	p384, err := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	p384SPKI, _ := x509.MarshalPKIXPublicKey(&p384.PublicKey)
	point := append([]byte{4}, bytes.Repeat([]byte{0x11}, 64)...)
	const badKey = `bad key announcement: keys[0] "log": possession: public_key: `
	const badKeyFr = "annonce des clés invalide : clé n° 0 « log », preuve de possession : champ « public_key » : "
	sig123, _ := hex.DecodeString("b75c69d0b72a5d906e854e808ba7e2accb1542ac355ae486d591aa9d43765482e26cd02df835d3546d23c4b13e0dfc92")
	q123 := beacon.Ref{Chain: beacon.Quicknet.Hash(), Round: 123}.String()
	q124 := beacon.Ref{Chain: beacon.Quicknet.Hash(), Round: 124}.String()
	d1 := beacon.Ref{Chain: beacon.Default.Hash(), Round: 1}.String()
	d2 := beacon.Ref{Chain: beacon.Default.Hash(), Round: 2}.String()
	list := func(lines ...string) error {
		return second(promo.ParseEntrantList([]byte(strings.Join(lines, "\n") + "\n")))
	}
	const head, draw, key = "tirage promotion entrants v1", "draw bonus/b", "key 782eb46caa79cd9d5d3fe1fe1b0b2e4608c82b6b5a6ae7b4ba76827865be40cc"
	older := &checkpoint.Checkpoint{Origin: "o", Size: 1, Root: tlog.Hash{1}}
	newer := &checkpoint.Checkpoint{Origin: "o", Size: 2, Root: tlog.Hash{2}}
	published := beacon.Quicknet.RoundTime(123)

	for _, c := range []struct {
		name string
		err  error
		en   string // the English text, unchanged
		fr   string // in the French reason
	}{
		// Public beacon (promo.VerifyBeacon, package beacon).
		{"beacon none announced", second(promo.VerifyBeacon("", sig123)), "the freeze announced no beacon round; no value may be bound", "aucune ronde de balise publique"},
		{"beacon free text", second(promo.VerifyBeacon("bourse du 3 mars", nil)), `the freeze announced the beacon "bourse du 3 mars", a free text, not a drand round`, "un texte libre et non un tour drand"},
		{"beacon chain unpinned", second(promo.VerifyBeacon("drand:"+strings.Repeat("ab", 32)+":5", sig123)), "chain abababab", "n'est pas une chaîne drand connue de ce vérificateur"},
		{"beacon signature required", second(promo.VerifyBeacon(q123, nil)), "round 123; its published signature is required", "sa signature publiée est requise"},
		{"beacon other round", second(promo.VerifyBeacon(q124, sig123)), "round 124: the signature does not verify for this chain and round", "ce n'est pas la signature de la ronde 124 de drand quicknet (52db9ba7…) : la signature ne se vérifie pas pour cette chaîne et cette ronde"},
		{"beacon malformed", second(promo.VerifyBeacon(q123, bytes.Repeat([]byte{0xff}, 48))), "not a well-formed signature of this chain's scheme", "signature bien formée"},
		{"beacon chained length", second(promo.VerifyBeacon(d2, sig123)), "a chained round's value is the previous round's signature (96 bytes) then its signature (96 bytes), got 48 bytes", "suivie de sa propre signature (96 octets), et non 48 octets"},
		{"beacon genesis", second(promo.VerifyBeacon(d1, make([]byte, 32+96))), "round 1 follows the genesis seed", "la ronde 1 suit la graine de genèse"},
		{"beacon reference", second(promo.VerifyBeacon("drand:quicknet:123", sig123)), `beacon "drand:quicknet:123" is not drand:<chain hash, 64 lowercase hex>:<round>`, "n'est pas de la forme drand:<empreinte de la chaîne"},
		{"beacon round", second(promo.VerifyBeacon("drand:"+strings.Repeat("ab", 32)+":0", sig123)), "the round is not a number from 1 to 2^64-1 in canonical form", "la ronde n'est pas un nombre de 1 à 2^64-1"},
		{"beacon round 0", second(beacon.Quicknet.Verify(0, sig123)), "round 0 does not exist", "la ronde 0 n'existe pas"},
		{"beacon before the freeze", beacon.Quicknet.PublishedAfter(123, published), "drand quicknet (52db9ba7…) round 123 was published at 2023-08-23T15:15:33Z, not after the freeze (2023-08-23T15:15:33Z)",
			"la ronde 123 de drand quicknet (52db9ba7…) a été publiée le 2023-08-23T15:15:33Z, et non après le gel (2023-08-23T15:15:33Z)"},
		// The bailiff's share (promo.ParseShare).
		{"share too short", second(promo.ParseShare("text:court")), "typed share must be 8 to 256 bytes of UTF-8 without surrounding spaces", "de 8 à 256 octets UTF-8"},
		{"share control", second(promo.ParseShare("text:huissier\x07martin")), "typed share must not contain control characters", "caractères de contrôle"},
		{"share few rolls", second(promo.ParseShare("dice:123456")), "dice share needs 25 to 256 rolls, got 6", "de 25 à 256 lancers, et non 6"},
		{"share roll", second(promo.ParseShare("dice:" + strings.Repeat("1", 24) + "7")), "dice roll '7' is not 1 to 6", "le lancer de dé '7' n'est pas un chiffre de 1 à 6"},
		{"share prefix", second(promo.ParseShare("pile ou face")), `share must start with "text:" or "dice:"`, "doit commencer par « text: » ou « dice: »"},
		// Entrant lists (promo.ParseEntrantList).
		{"list header", list("entrants"), `invalid entrant list: line 1: first line must be "tirage promotion entrants v1"`, "liste des participants invalide : ligne 1 : la première ligne doit être « tirage promotion entrants v1 »"},
		{"list draw", list(head, "tirage bonus/b"), `invalid entrant list: line 2: want "draw <operation/id>"`, "ligne 2 : « draw <opération/identifiant> » attendu"},
		{"list key", list(head, draw, "key ABC"), `invalid entrant list: line 3: want "key <64 lower-case hex digits>"`, "ligne 3 : « key <64 chiffres hexadécimaux en minuscules> » attendu"},
		{"list count", list(head, draw, key, "count two"), `invalid entrant list: line 4: want "count <n>"`, "ligne 4 : « count <nombre> » attendu"},
		{"list count exceeds", list(head, draw, key, "count 99"), "invalid entrant list: line 4: count 99 exceeds the lines present", "le nombre de participants annoncé (99) dépasse"},
		{"list count short", list(head, draw, key, "count 3", "A1", "A2"), "invalid entrant list: line 7: count says 3 entrants, the file holds 2", "3 participants annoncés, le fichier n'en contient que 2"},
		{"list trailing", list(head, draw, key, "count 1", "A1", "A2"), "invalid entrant list: line 6: trailing data after 1 entrants", "données en trop après les 1 participants"},
		{"list account", list(head, draw, key, "count 1", "A 1"), `invalid entrant list: entrant 1: account must match [A-Za-z0-9._:-]{1,64}, got "A 1"`, "participant 1 : le compte doit être de la forme"},
		{"list order", list(head, draw, key, "count 2", "A2", "A1"), `invalid entrant list: entrant 2: list not canonical: "A1" does not sort strictly after "A2"`, "liste non canonique : « A1 » ne vient pas strictement après « A2 »"},
		// Log key files and the trust state (package checkpoint).
		{"log key name", second(checkpoint.ParseKeys("\nbad name+01234567+AQ==\n")), `line 2: log key "bad name+01234567+AQ==": bad name`, "ligne 2 : clé de journal « bad name+01234567+AQ== » : nom invalide"},
		{"log key id", second(checkpoint.ParseKey("o+xyz+AQ==")), `log key "o+xyz+AQ==": bad key id`, "identifiant de clé invalide"},
		{"log key type", second(checkpoint.ParseKey("o+01234567+BwAA")), "unknown signature type 0x07", "type de signature 0x07 inconnu"},
		{"log key of a witness", second(checkpoint.ParseKey("o+01234567+BAAA")), "a witness's cosignature/v1 key (type 0x04), not a log's signed-note key", "clé cosignature/v1 d'un témoin (type 0x04), pas la clé de note signée d'un journal"},
		{"no log key", second(checkpoint.ParseKeys("# none\n")), "no log key found", "aucune clé de journal trouvée"},
		{"state version", second(checkpoint.ParseState([]byte(`{"v":2}`))), "trust state: version 2, want 1", "état de confiance : version 2, 1 attendue"},
		{"state keys", second(checkpoint.ParseState([]byte(`{"v":1,"logs":{"o":{"keys":[]}}}`))), `trust state: log "o": no key`, "état de confiance : journal « o » : aucune clé"},
		// The log's consistency proof (checkpoint.Consistent, x/mod tlog).
		{"consistency proof", checkpoint.Consistent(older, newer, tlog.TreeProof{{3}}), "size 2 does not extend size 1 (invalid transparency proof): log fork: misbehaviour",
			"la taille 2 ne prolonge pas la taille 1 (la preuve du journal de transparence ne mène pas à la racine signée) : bifurcation du journal (manquement)"},
		// VRF public keys and suites refused (vrf.ParsePublicKey, vrf.ParseSuite).
		{"vrf key length", p256([]byte{1, 2}), "vrf: public key: point has 2 bytes, want 33 (compressed)", "la clé publique a 2 octets au lieu des 33 d'un point compressé"},
		{"vrf key prefix", p256(append([]byte{5}, make([]byte, 32)...)), "vrf: public key: point prefix 0x05, want 0x02 or 0x03", "la clé publique commence par l'octet 0x05 au lieu de 0x02 ou 0x03"},
		{"vrf key off the curve", p256(append(append([]byte{2}, make([]byte, 31)...), 1)), "vrf: public key: not a point on P-256", "la clé publique n'est pas un point de la courbe P-256"},
		{"vrf key uncompressed", p256(append([]byte{4}, bytes.Repeat([]byte{0x11}, 64)...)), "vrf: public key: uncompressed point, want 33-byte compressed", "la clé publique est un point non compressé"},
		{"vrf RSA key not DER", rsaKey([]byte{0}), "vrf: RSA public key is not a DER SubjectPublicKeyInfo: asn1: syntax error: truncated tag or length",
			"la clé publique RSA n'est pas une SubjectPublicKeyInfo en DER : erreur de syntaxe DER : étiquette ou longueur tronquée"},
		{"vrf RSA key structure", rsaKey(append([]byte{2}, make([]byte, 32)...)), "vrf: RSA public key is not a DER SubjectPublicKeyInfo: asn1: structure error: ", "erreur de structure DER : "},
		{"vrf RSA key is EC", rsaKey(ecSPKI), "vrf: public key is a *ecdsa.PublicKey, want RSA", "la clé publique est de type *ecdsa.PublicKey, et non une clé RSA"},
		{"vrf RSA key too small", rsaKey(smallSPKI), "vrf: RSA modulus has 1024 bits, want 2048 to 8192", "le module RSA a 1024 bits, alors que 2048 à 8192 sont attendus"},
		{"vrf RSA key PKCS #1", rsaKey(x509.MarshalPKCS1PublicKey(&small.PublicKey)), "(use ParsePKCS1PublicKey instead for this key format)", "c'est une clé RSA au format PKCS #1"},
		{"vrf RSA key trailing", rsaKey(append(smallSPKI, 0)), "x509: trailing data after ASN.1 of public-key", "des données suivent la structure ASN.1 de la clé"},
		{"vrf suite", second(vrf.ParseSuite("ECVRF-ED25519")), `vrf: unknown suite "ECVRF-ED25519" (want ECVRF-P256-SHA256-SSWU`, "suite VRF « ECVRF-ED25519 » inconnue"},
		// Key announcements (package announce).
		{"announce empty", envelope(""), "bad key announcement: envelope: the record's attestation is empty: no DSSE envelope, no proof of possession",
			"annonce des clés invalide : enveloppe DSSE : l'attestation de l'enregistrement est vide : ni enveloppe DSSE, ni preuve de possession"},
		{"announce not JSON", envelope(`{"payload":`), "bad key announcement: envelope: not a DSSE envelope: unexpected EOF", "ce n'est pas une enveloppe DSSE : le JSON s'arrête avant la fin du document"},
		{"announce unknown field", envelope(`{"extra":1}`), `bad key announcement: envelope: not a DSSE envelope: json: unknown field "extra"`, "ce n'est pas une enveloppe DSSE : champ JSON « extra » inconnu"},
		{"announce trailing", envelope(`{} {}`), "bad key announcement: envelope: data after the envelope", "des données suivent l'enveloppe"},
		{"announce payload type", envelope(`{"payload":"e30=","payloadType":"x"}`), `bad key announcement: payload-type: "x", want "application/vnd.tirage.key-announcement.v1+json"`,
			"type de contenu de l'enveloppe : « x » au lieu de « application/vnd.tirage.key-announcement.v1+json »"},
		{"announce no payload", envelope(`{"payloadType":"` + announce.PayloadType + `"}`), "bad key announcement: payload: missing", "contenu de l'enveloppe : absent"},
		{"announce Ed25519 signature", announce.VerifySignature(edPub, announce.Ed25519, []byte("m"), make([]byte, 64)), "invalid Ed25519 signature", "signature Ed25519 invalide"},
		{"announce not ECDSA", announce.VerifySignature(edPub, announce.ECDSAP256SHA256, []byte("m"), nil), "public key ed25519.PublicKey is not an ECDSA P-256 key", "la clé publique de type ed25519.PublicKey n'est pas une clé ECDSA P-256"},
		{"announce algorithm", announce.VerifySignature(edPub, "RSA", []byte("m"), nil), `unsupported signature algorithm "RSA"`, "algorithme de signature « RSA » non pris en charge"},
		// A signing key's SubjectPublicKeyInfo that crypto/x509 refuses
		// (announce.CheckRecord), and an RSA VRF key's (package vrf).
		{"announced key not DER", edKey([]byte{0}), badKey + "asn1: syntax error: truncated tag or length",
			badKeyFr + "clé publique illisible (SPKI DER invalide : erreur de syntaxe DER : étiquette ou longueur tronquée)"},
		{"announced key DER structure", edKey([]byte{2, 1, 0}), badKey + "asn1: structure error: ", badKeyFr + "clé publique illisible (SPKI DER invalide : la structure ASN.1 n'est pas celle d'une SubjectPublicKeyInfo)"},
		{"announced key PKCS #1", edKey(x509.MarshalPKCS1PublicKey(&small.PublicKey)), badKey + "x509: failed to parse public key (use ParsePKCS1PublicKey instead for this key format)",
			badKeyFr + "c'est une clé RSA au format PKCS #1, sans l'enveloppe SubjectPublicKeyInfo"},
		{"announced key trailing", edKey(append(edSPKI, 0)), badKey + "x509: trailing data after ASN.1 of public-key", badKeyFr + "des données suivent la structure ASN.1 de la clé"},
		{"announced key algorithm", edKey(spki(t, asn1.ObjectIdentifier{1, 2, 3, 4}, nil, make([]byte, 32))), badKey + "x509: unknown public key algorithm", badKeyFr + "algorithme de clé publique inconnu"},
		{"announced key curve", ecKeyOf(spki(t, oidECDSA, oidBytes(t, asn1.ObjectIdentifier{1, 3, 132, 0, 10}), point)), badKey + "x509: unsupported elliptic curve",
			badKeyFr + "courbe elliptique non prise en charge"},
		{"announced key ECDSA parameters", ecKeyOf(spki(t, oidECDSA, asn1.NullBytes, point)), badKey + "x509: invalid ECDSA parameters", "paramètres ECDSA invalides"},
		{"announced key compressed point", ecKeyOf(spki(t, oidECDSA, oidBytes(t, oidP256), append([]byte{2}, make([]byte, 32)...))), badKey + "ecdsa: invalid uncompressed public key",
			"la clé publique ECDSA n'est pas un point non compressé"},
		{"announced key point length", ecKeyOf(spki(t, oidECDSA, oidBytes(t, oidP256), point[:40])), badKey + "invalid P256 point encoding", "le point de la courbe P256 est mal encodé"},
		{"announced key off the curve", ecKeyOf(spki(t, oidECDSA, oidBytes(t, oidP256), point)), badKey + "P256 point not on curve", badKeyFr + "le point n'est pas sur la courbe P256"},
		{"announced key Ed25519 size", edKey(spki(t, oidEd25519, nil, make([]byte, 31))), badKey + "x509: wrong Ed25519 public key size", "la clé publique Ed25519 n'a pas la bonne taille"},
		{"announced key Ed25519 parameters", edKey(spki(t, oidEd25519, asn1.NullBytes, make([]byte, 32))), badKey + "x509: Ed25519 key encoded with illegal parameters",
			"clé Ed25519 encodée avec des paramètres, qui doivent être absents"},
		{"announced key RSA NULL", edKey(spki(t, oidRSA, nil, x509.MarshalPKCS1PublicKey(&small.PublicKey))), badKey + "x509: RSA key missing NULL parameters", "clé RSA sans le paramètre NULL exigé"},
		{"announced key wrong curve", ecKeyOf(p384SPKI), `bad key announcement: keys[0] "log": possession: public key *ecdsa.PublicKey is not an ECDSA P-256 key (its curve is P-384)`,
			"la clé publique de type *ecdsa.PublicKey n'est pas une clé ECDSA P-256 (sa courbe est P-384)"},
		{"announcement record", second(announce.Parse([]byte(`{"v":1}`))), "bad key announcement: record: record: field kind: missing or not a string: malformed record",
			"annonce des clés invalide : enregistrement : enregistrement mal formé, champ « kind » : absent ou pas une chaîne"},
		{"vrf RSA key NULL", rsaKey(spki(t, oidRSA, nil, x509.MarshalPKCS1PublicKey(&small.PublicKey))), "vrf: RSA public key is not a DER SubjectPublicKeyInfo: x509: RSA key missing NULL parameters",
			"la clé publique RSA n'est pas une SubjectPublicKeyInfo en DER : clé RSA sans le paramètre NULL exigé (RFC 3279)"},
	} {
		frenchReason(t, c.name, c.err, c.en, c.fr)
	}
}

// frenchReason checks the reason rngverify gives for err (receipt.Cause):
// in English, err's text, which holds en; in French, a text that holds fr,
// quotes no English and has no English word outside its identifiers. It
// returns the reason.
func frenchReason(t *testing.T, name string, err error, en, fr string) verdict.Msg {
	t.Helper()
	if err == nil {
		t.Errorf("%s: no error", name)
		return verdict.Msg{}
	}
	m := receipt.Cause(err)
	if got := m.Text("en"); got != err.Error() || !strings.Contains(got, en) {
		t.Errorf("%s: English %q, the error says %q, want it with %q", name, got, err.Error(), en)
	}
	got := m.Text("fr")
	if !strings.Contains(got, fr) || quotedEnglish.MatchString(got) {
		t.Errorf("%s: French %q, want it with %q and no English quoted", name, got, fr)
	}
	if w := english.FindString(identifiers.ReplaceAllString(got, " ")); w != "" {
		t.Errorf("%s: English %q in French %q", name, w, got)
	}
	return m
}

// TestFrenchCLI: what rngverify itself says — the command list, an unknown
// command, a certificate that is not JSON or not a certificate, an entrant
// list that is not one — reads in French with --lang fr, and in English as
// it always did.
func TestFrenchCLI(t *testing.T) {
	dir := t.TempDir()
	file := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	notJSON, truncated := file("hello.json", "hello"), file("cut.json", `{"draw":`)
	noDraw, number := file("nodraw.json", `{"v":1}`), file("number.json", `{"draw":5}`)
	array := file("array.json", `[1]`)
	list, err := os.ReadFile(entrantFile)
	if err != nil {
		t.Fatal(err)
	}
	badList := file("list.txt", strings.Replace(string(list), "count ", "count x", 1))
	cert, err := os.ReadFile(certFile)
	if err != nil {
		t.Fatal(err)
	}
	extra := file("extra.json", strings.Replace(string(cert), "{", `{"extra": 1,`, 1))
	// Receipts and transcripts that are not JSON of their kind.
	pin := strings.Repeat("0", 64)
	receiptSyntax, receiptType := file("r-syntax.json", "hello"), file("r-type.json", `{"v":"x"}`)
	receiptField, receiptCut := file("r-field.json", `{"zz":1}`), file("r-cut.json", `{"v":`)
	protoBase64 := file("r-proto.json", `{"record":"x!","leafHash":"AA=="}`)
	transcriptType := file("t-type.json", `{"v":1,"type":"tirage/transcript","records":5}`)
	// VRF key files: a key off the curve, tampered key announcements.
	offCurve := file("curve.key", "ECVRF-P256-SHA256-SSWU 02"+strings.Repeat("00", 31)+"01\n")
	_, annFile := certKeys(t)
	annLeaf, err := os.ReadFile(annFile)
	if err != nil {
		t.Fatal(err)
	}
	tamper := func(name string, fn func(env map[string]any, sigs []any)) string {
		r, err := record.Parse(annLeaf)
		if err != nil {
			t.Fatal(err)
		}
		ka := r.(*record.KeyAnnouncement)
		var env map[string]any
		if err := json.Unmarshal(ka.Attestation, &env); err != nil {
			t.Fatal(err)
		}
		fn(env, env["signatures"].([]any))
		ka.Attestation, _ = json.Marshal(env)
		b, err := record.Format(ka)
		if err != nil {
			t.Fatal(err)
		}
		return file(name, string(b))
	}
	sig := func(s any) map[string]any { return s.(map[string]any) }
	annType := tamper("ann-type.json", func(env map[string]any, _ []any) { env["payloadType"] = "application/other" })
	annKeyID := tamper("ann-keyid.json", func(_ map[string]any, sigs []any) { sig(sigs[0])["keyid"] = "zzz" })
	annVRF := tamper("ann-vrf.json", func(_ map[string]any, sigs []any) { sig(sigs[0])["sig"] = sig(sigs[1])["sig"] })
	annLog := tamper("ann-log.json", func(_ map[string]any, sigs []any) { sig(sigs[1])["sig"] = strings.Repeat("A", 86) + "==" })
	annCount := tamper("ann-count.json", func(env map[string]any, sigs []any) { env["signatures"] = sigs[:1] })
	// An announcement whose signing key is not DER, and one that is not a
	// well-formed key record.
	badSPKI := &record.KeyAnnouncement{Time: time.Unix(1e9, 0), Keys: []record.Key{{ID: "log", Use: announce.UseLog, Suite: announce.Ed25519, PublicKey: []byte{0}, Fingerprint: record.Fingerprint([]byte{0})}}}
	badSPKILeaf, err := announce.Seal(badSPKI, func(int, []byte) ([]byte, error) { return []byte{1}, nil })
	if err != nil {
		t.Fatal(err)
	}
	annSPKI := file("ann-spki.json", string(badSPKILeaf))
	annRecord := file("ann-record.json", `{"keys":[],"kind":"key","time":"2026-11-30T09:15:00Z","v":1}`)

	for _, c := range []struct {
		name   string
		args   []string
		code   int
		en, fr string // on stdout or stderr, after the run in each language
	}{
		{"usage", []string{}, ExitUsage, "usage: rngverify COMMAND [ARGS]\n\ncommands:\n  attestation      check a signed attestation",
			"utilisation : rngverify COMMANDE [ARGUMENTS] [--lang fr|en]\n\ncommandes :\n  attestation      vérifier une attestation signée"},
		{"help", []string{"help"}, ExitOK, "  vrf              check one RFC 9381 VRF proof and print its output β\n", "  vrf              vérifier une preuve VRF (RFC 9381) et afficher sa sortie β\n"},
		{"unknown command", []string{"verify"}, ExitUsage, "rngverify: unknown command \"verify\" (rngverify help lists them)\n", "rngverify : commande « verify » inconnue"},
		{"not json", []string{"certificate", notJSON, "--tofu"}, ExitUsage, "hello.json is not a promotion certificate: invalid character 'h' looking for beginning of value\n",
			"hello.json n'est pas un certificat de tirage promotionnel : ce n'est pas du JSON valide (erreur de syntaxe à l'octet 1)\n"},
		{"truncated json", []string{"certificate", truncated, "--tofu"}, ExitUsage, "cut.json is not a promotion certificate: unexpected end of JSON input\n", "ce n'est pas du JSON valide (erreur de syntaxe à l'octet 8)\n"},
		{"no draw", []string{"certificate", noDraw, "--tofu"}, ExitUsage, "nodraw.json is not a promotion certificate: no draw\n", "aucun tirage nommé (le champ « draw » manque)\n"},
		{"json type", []string{"certificate", number, "--tofu"}, ExitUsage, "number.json is not a promotion certificate: json: cannot unmarshal number into Go struct field .draw of type string\n",
			"champ « draw » : une valeur JSON de type « nombre » n'est pas du type attendu\n"},
		{"json array", []string{"certificate", array, "--tofu"}, ExitUsage, "array.json is not a promotion certificate: json: cannot unmarshal array into Go value of type promo.Certificate\n",
			"le document : une valeur JSON de type « tableau » n'est pas du type attendu\n"},
		{"unknown field", []string{"certificate", extra, "--tofu"}, ExitUsage, "rngverify certificate: unreadable input: " + extra + ": not a certificate: json: unknown field \"extra\"\n",
			"rngverify certificate : fichier illisible : " + extra + " : ce n'est pas un certificat : champ JSON « extra » inconnu\n"},
		{"entrant list", []string{"certificate", certFile, "--tofu", "--entrants", badList}, ExitFail, `list.txt: invalid entrant list: line 4: want "count <n>"` + "\n",
			"list.txt : liste des participants invalide : ligne 4 : « count <nombre> » attendu\n"},
		// Each command's help, and the command line refused.
		{"receipt help", []string{"receipt", "-h"}, ExitOK, "usage: rngverify receipt FILE [trust flags] [--lang fr|en] [--json]\n\nChecks one receipt",
			"utilisation : rngverify receipt FICHIER [options de confiance] [--lang fr|en] [--json]\n\nVérifie un reçu"},
		{"game help", []string{"game", "-h"}, ExitOK, "usage: rngverify game FILE", "Vérifie la transcription d'une partie"},
		{"certificate help", []string{"certificate", "-h"}, ExitOK, "\nExit status:\n  0  every check passed\n", "\nCode de sortie :\n  0  toutes les vérifications sont réussies\n"},
		{"log help", []string{"log", "-h"}, ExitOK, "Trust (never taken from the material being verified):\n", "Confiance (jamais tirée des pièces vérifiées) :\n"},
		{"audit help", []string{"audit", "-h"}, ExitOK, "usage: rngverify audit (--url URL | --dir DIR)", "Parcourt tout le journal de transparence"},
		{"two files", []string{"receipt", "a", "b"}, ExitUsage, "rngverify receipt: want exactly one FILE, got 2 (rngverify receipt -h for usage)\n",
			"rngverify receipt : un seul FICHIER attendu, 2 donné(s) (rngverify receipt -h --lang fr pour l'aide)\n"},
		{"unknown flag", []string{"game", "x", "--bad"}, ExitUsage, "flag provided but not defined: -bad", "option inconnue : -bad"},
		{"flag value", []string{"certificate", certFile, "--reserves", "abc"}, ExitUsage, `invalid value "abc" for flag -reserves: parse error`, "valeur « abc » invalide pour l'option -reserves : illisible"},
		{"flag value range", []string{"audit", "--dir", dir, "--workers", "99999999999999999999"}, ExitUsage, `invalid value "99999999999999999999" for flag -workers: value out of range`,
			"valeur « 99999999999999999999 » invalide pour l'option -workers : hors limites"},
		{"flag boolean", []string{"receipt", "x", "--json=maybe"}, ExitUsage, `invalid boolean value "maybe" for -json: parse error`, "valeur booléenne « maybe » invalide pour l'option -json : illisible"},
		{"bad pin", []string{"receipt", "x", "--pin", "zz"}, ExitUsage, `--pin "zz": want 64 hex digits (a SHA-256 fingerprint, bare or as SHA256:64 hex digits)`, "--pin « zz » : 64 chiffres hexadécimaux attendus"},
		{"bad zone", []string{"receipt", "x", "--tz", "Nowhere/Else"}, ExitUsage, `--tz "Nowhere/Else": unknown time zone Nowhere/Else`, "--tz : fuseau horaire « Nowhere/Else » inconnu ou invalide"},
		{"no log key file", []string{"game", "x", "--log-key", filepath.Join(dir, "none.vkey")}, ExitUsage, "--log-key: neither a key nor a readable file: open " + filepath.Join(dir, "none.vkey") + ": no such file or directory",
			"--log-key : ni une clé ni un fichier lisible : le fichier " + filepath.Join(dir, "none.vkey") + " n'existe pas"},
		{"vrf key suite", []string{"receipt", "x", "--vrf-key", file("vrf.key", "ECVRF-ED25519 00\n")}, ExitUsage, `vrf.key: line 1: vrf: unknown suite "ECVRF-ED25519" (want`,
			"vrf.key : ligne 1 : suite VRF « ECVRF-ED25519 » inconnue"},
		{"no receipt file", []string{"receipt", filepath.Join(dir, "none.json")}, ExitUsage, "none.json: no such file or directory\n", "none.json : le fichier " + filepath.Join(dir, "none.json") + " n'existe pas\n"},
		{"no anchor", []string{"certificate", certFile}, ExitUsage, "rngverify certificate: no trust anchor: give the operator's keys", "rngverify certificate : aucune ancre de confiance : fournissez les clés de l'exploitant"},
		{"no rules file", []string{"certificate", certFile, "--tofu", "--rules", filepath.Join(dir, "none.yaml")}, ExitUsage, "couldn't read the rules: open ", "impossible de lire le règlement : le fichier "},
		{"log without source", []string{"log"}, ExitUsage, "rngverify log: give one of --url or --dir (rngverify log -h for usage)\n", "rngverify log : donnez l'une des options --url ou --dir"},
		{"log bad url", []string{"log", "--url", "ftp://x"}, ExitUsage, `--url "ftp://x": want http(s)://host[:port]/prefix`, "--url « ftp://x » : http(s)://hôte[:port]/préfixe attendu"},
		{"follow for log", []string{"log", "--dir", dir, "--follow", "1s"}, ExitUsage, "--follow: audit only, at least 1s", "--follow : avec audit seulement, au moins 1s"},
		// Receipts' and transcripts' own JSON (receipt's strict decoding).
		{"receipt not json", []string{"receipt", receiptSyntax, "--pin", pin}, ExitUsage, "not a receipt: invalid character 'h' looking for beginning of value\n",
			"ce n'est pas un reçu : ce n'est pas du JSON valide (erreur de syntaxe à l'octet 1)\n"},
		{"receipt json type", []string{"receipt", receiptType, "--pin", pin}, ExitUsage, "not a receipt: json: cannot unmarshal string into Go struct field Receipt.v of type int\n",
			"ce n'est pas un reçu : champ « v » : une valeur JSON de type « chaîne » n'est pas du type attendu\n"},
		{"receipt unknown field", []string{"receipt", receiptField, "--pin", pin}, ExitUsage, "not a receipt: json: unknown field \"zz\"\n", "ce n'est pas un reçu : champ JSON « zz » inconnu\n"},
		{"receipt cut", []string{"receipt", receiptCut, "--pin", pin}, ExitUsage, "not a receipt: unexpected EOF\n", "ce n'est pas un reçu : le JSON s'arrête avant la fin du document\n"},
		{"protojson receipt base64", []string{"receipt", protoBase64, "--pin", pin}, ExitUsage, protoBase64Error("en"), protoBase64Error("fr")},
		{"transcript json type", []string{"game", transcriptType, "--pin", pin}, ExitUsage, "not a transcript: json: cannot unmarshal number into Go struct field Transcript.records of type []receipt.Logged\n",
			"ce n'est pas une transcription de partie : champ « records » : une valeur JSON de type « nombre » n'est pas du type attendu\n"},
		// VRF key files: a refused key, tampered key announcements.
		{"vrf key off the curve", []string{"receipt", receiptSyntax, "--vrf-key", offCurve}, ExitUsage, "curve.key: line 1: vrf: public key: not a point on P-256 (rngverify receipt -h for usage)\n",
			"curve.key : ligne 1 : la clé publique n'est pas un point de la courbe P-256 (rngverify receipt -h --lang fr pour l'aide)\n"},
		{"announcement payload type", []string{"receipt", receiptSyntax, "--vrf-key", annType}, ExitUsage,
			`ann-type.json: bad key announcement: payload-type: "application/other", want "application/vnd.tirage.key-announcement.v1+json" (`,
			"ann-type.json : annonce des clés invalide : type de contenu de l'enveloppe : « application/other » au lieu de « application/vnd.tirage.key-announcement.v1+json » ("},
		{"announcement keyid", []string{"receipt", receiptSyntax, "--vrf-key", annKeyID}, ExitUsage, `ann-keyid.json: bad key announcement: keys[0] "vrf": keyid: signature 0 names "zzz" (`,
			"ann-keyid.json : annonce des clés invalide : clé n° 0 « vrf », identifiant de clé : la signature 0 nomme la clé « zzz » ("},
		{"announcement VRF possession", []string{"receipt", receiptSyntax, "--vrf-key", annVRF}, ExitUsage,
			`ann-vrf.json: bad key announcement: keys[0] "vrf": possession: the VRF proof does not verify: vrf: proof has 64 bytes, want 81 (`,
			"ann-vrf.json : annonce des clés invalide : clé n° 0 « vrf », preuve de possession : la preuve VRF ne se vérifie pas : la preuve fait 64 octets au lieu de 81 ("},
		{"announcement log possession", []string{"receipt", receiptSyntax, "--vrf-key", annLog}, ExitUsage, `ann-log.json: bad key announcement: keys[1] "log": possession: invalid Ed25519 signature (`,
			"ann-log.json : annonce des clés invalide : clé n° 1 « log », preuve de possession : signature Ed25519 invalide ("},
		{"announcement signature count", []string{"receipt", receiptSyntax, "--vrf-key", annCount}, ExitUsage, "ann-count.json: bad key announcement: signatures: 1, want one per key (2) (",
			"ann-count.json : annonce des clés invalide : signatures : 1, alors qu'il en faut une par clé (2) ("},
		{"announcement key not DER", []string{"receipt", receiptSyntax, "--vrf-key", annSPKI}, ExitUsage,
			`ann-spki.json: bad key announcement: keys[0] "log": possession: public_key: asn1: syntax error: truncated tag or length (`,
			"ann-spki.json : annonce des clés invalide : clé n° 0 « log », preuve de possession : champ « public_key » : clé publique illisible (SPKI DER invalide : erreur de syntaxe DER : étiquette ou longueur tronquée) ("},
		{"announcement record", []string{"receipt", receiptSyntax, "--vrf-key", annRecord}, ExitUsage,
			"ann-record.json: bad key announcement: record: record key: keys: none announced: malformed record (",
			"ann-record.json : annonce des clés invalide : enregistrement : enregistrement mal formé (annonce de clés) : champ « keys » : aucune clé annoncée ("},
	} {
		for _, lang := range []string{"en", "fr"} {
			args := c.args
			if lang == "fr" {
				args = append([]string{"--lang", "fr"}, c.args...)
			}
			code, out, errs := runCLI(args...)
			want := map[string]string{"en": c.en, "fr": c.fr}[lang]
			if code != c.code || !strings.Contains(out+errs, want) {
				t.Errorf("%s --lang %s: exit %d, want %d and %q in\n%s%s", c.name, lang, code, c.code, want, out, errs)
			}
			if lang == "fr" {
				frenchProse(t, c.name, out+errs)
				if quotedEnglish.MatchString(out + errs) {
					t.Errorf("%s: French output quotes English:\n%s%s", c.name, out, errs)
				}
			}
		}
	}
}

// TestVRFFrench: every rngverify vrf case of TestVRFRun, with --lang fr:
// same exit code and output, one line on stderr in French, quoting no
// English (not even a refused key's defect: package vrf's reasons are in
// the catalog).
func TestVRFFrench(t *testing.T) {
	for _, c := range vrfCLICases(t) {
		t.Run(c.name, func(t *testing.T) {
			code, out, errs := run(t, append(c.args, "--lang", "fr")...)
			if code != c.code || out != c.stdout {
				t.Errorf("exit %d stdout %q, want %d %q", code, out, c.code, c.stdout)
			}
			switch {
			case c.name == "help" || c.name == "help vrf":
				if !strings.HasPrefix(errs, "utilisation : rngverify vrf ") || !strings.Contains(errs, "Code de sortie :") {
					t.Errorf("help: %s", errs)
				}
				return
			case c.code == ExitOK:
				if errs != "" {
					t.Errorf("stderr %q", errs)
				}
				return
			}
			if strings.Count(errs, "\n") != 1 || !strings.HasPrefix(errs, "rngverify vrf : ") {
				t.Errorf("stderr %q is not one French line", errs)
			}
			if quotedEnglish.MatchString(errs) {
				t.Errorf("English quoted: %s", errs)
			}
			frenchProse(t, c.name, errs)
		})
	}
}

// protoBase64Error is how rngverify reports a protojson receipt whose bytes
// field "record" is not base64: since Go 1.27 (go.mod's toolchain)
// encoding/json names the field; go1.26 returned base64's error bare.
func protoBase64Error(lang string) string {
	old := strings.HasPrefix(runtime.Version(), "go1.26")
	switch {
	case lang == "en" && old:
		return "not a receipt (protobuf JSON): illegal base64 data at input byte 1\n"
	case lang == "en":
		return "not a receipt (protobuf JSON): json: cannot unmarshal string into Go struct field protoReceipt.record of type []uint8: illegal base64 data at input byte 1\n"
	case old:
		return "ce n'est pas un reçu (JSON protobuf) : données base64 invalides à l'octet 1\n"
	}
	return "ce n'est pas un reçu (JSON protobuf) : champ « record » : données base64 invalides à l'octet 1\n"
}

// Algorithm and curve identifiers of a SubjectPublicKeyInfo.
var (
	oidRSA     = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 1, 1}
	oidECDSA   = asn1.ObjectIdentifier{1, 2, 840, 10045, 2, 1}
	oidP256    = asn1.ObjectIdentifier{1, 2, 840, 10045, 3, 1, 7}
	oidEd25519 = asn1.ObjectIdentifier{1, 3, 101, 112}
)

// spki is the DER SubjectPublicKeyInfo of key under algorithm oid, with
// params (DER) when not nil.
func spki(t *testing.T, oid asn1.ObjectIdentifier, params, key []byte) []byte {
	t.Helper()
	alg := pkix.AlgorithmIdentifier{Algorithm: oid}
	if params != nil {
		alg.Parameters = asn1.RawValue{FullBytes: params}
	}
	b, err := asn1.Marshal(struct {
		Algorithm pkix.AlgorithmIdentifier
		PublicKey asn1.BitString
	}{alg, asn1.BitString{Bytes: key, BitLength: 8 * len(key)}})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func oidBytes(t *testing.T, oid asn1.ObjectIdentifier) []byte {
	t.Helper()
	b, err := asn1.Marshal(oid)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// unreachableRecordMsgs are package record's messages that no record, well
// or badly formed, can reach through Parse, Format or TicketHash.
var unreachableRecordMsgs = map[verdict.MsgID]string{
	verdict.MsgRecordFormatPointer:   "every record type is a pointer, and a nil one is MsgRecordFormatNil",
	verdict.MsgRecordNotCanonical:    "Parse's grammar admits one encoding per record; the check is belt and braces",
	verdict.MsgRecordUnsupportedType: "every field type of every kind is supported",
	verdict.MsgRecordWantBool:        "no kind has a boolean field",
}

// TestFrenchRecordReasons: every refusal of package record — Parse's JSON
// subset, its fields and each kind's rules, Format's, TicketHash's — reads
// in French with --lang fr, without quoting English, and its English text
// is exactly what it always was. The cases are driven through the real
// parser (the golden records of package record, altered), and together
// reach every message of the package's in the catalog.
func TestFrenchRecordReasons(t *testing.T) {
	golden := map[record.Kind]string{}
	files, err := filepath.Glob("../record/testdata/golden/*.json")
	if err != nil || len(files) < 10 {
		t.Fatalf("golden records: %v %v", files, err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		golden[record.Kind(strings.TrimSuffix(filepath.Base(f), ".json"))] = strings.TrimSpace(string(b))
	}
	parse := func(s string) error {
		_, err := record.Parse([]byte(s))
		return err
	}
	// alter parses the golden record of kind k with old replaced by new.
	alter := func(k record.Kind, old, new string) error {
		s, ok := golden[k]
		if !ok || !strings.Contains(s, old) {
			t.Fatalf("golden %s has no %q", k, old)
		}
		return parse(strings.Replace(s, old, new, 1))
	}
	// refunded parses the golden end made a refund's, with reason (hex).
	refunded := func(reason string) error {
		s := strings.Replace(golden[record.KindGameEnd], `,"win":12000`, "", 1)
		return parse(strings.Replace(s, `"result":"won"`, `"reason":"`+reason+`","refund":300,"result":"refunded"`, 1))
	}
	// drop parses the golden record of kind k without member name (not the last).
	drop := func(k record.Kind, name string) error {
		m := regexp.MustCompile(`"` + name + `":("[^"]*"|[^,}]*),`).FindString(golden[k])
		if m == "" {
			t.Fatalf("golden %s has no member %q", k, name)
		}
		return alter(k, m, "")
	}
	format := func(r record.Record) error {
		_, err := record.Format(r)
		return err
	}
	ticket := func(code string) error {
		_, err := record.TicketHash(code)
		return err
	}
	when := time.Date(2026, 11, 30, 9, 15, 0, 0, time.UTC)
	keyOf := golden[record.KindKey][strings.Index(golden[record.KindKey], "{\"fingerprint") : strings.Index(golden[record.KindKey], "}]")+1]
	keys := func(list string) string {
		return `{"keys":[` + list + `],"kind":"key","time":"2026-11-30T09:15:00Z","v":1}`
	}
	const mal = ": malformed record"
	const beaconHash = "drand:abababababababababababababababababababababababababababababababab"

	seen := map[verdict.MsgID]bool{}
	for _, c := range []struct {
		name string
		err  error
		en   string // the whole English text
		fr   string // in the French reason
	}{
		// The canonical JSON subset (record: byte N: …).
		{"not an object", parse(`[1]`), "record: byte 0: a record is a JSON object" + mal, "enregistrement mal formé à l'octet 0 : un enregistrement est un objet JSON"},
		{"too large", parse(strings.Repeat(" ", record.MaxLeafSize+1)), "record: 1048577 bytes exceeds 1048576" + mal, "enregistrement mal formé : 1048577 octets, plus que les 1048576 permis"},
		{"nested", parse(`{"a":[[[[[[[[[1]]]]]]]]]}`), "record: byte 13: nested deeper than 8" + mal, "à l'octet 13 : plus de 8 niveaux d'imbrication"},
		{"end", parse(`{"a":`), "record: byte 5: unexpected end" + mal, "à l'octet 5 : fin inattendue"},
		{"end in object", parse(`{"a":1,`), "record: byte 7: unexpected end" + mal, "à l'octet 7 : fin inattendue"},
		{"end want", parse(`{"a"`), `record: byte 4: unexpected end, want ':'` + mal, "à l'octet 4 : fin inattendue, ':' attendu"},
		{"whitespace", parse(`{"a" :1}`), "record: byte 4: whitespace is not canonical" + mal, "à l'octet 4 : les blancs (espaces, tabulations, fins de ligne) ne sont pas canoniques"},
		{"whitespace value", parse(`{"a": 1}`), "record: byte 5: whitespace is not canonical" + mal, "ne sont pas canoniques"},
		{"whitespace key", parse(`{"a":1, "b":2}`), "record: byte 7: whitespace is not canonical" + mal, "à l'octet 7 : les blancs"},
		{"null", parse(`{"a":null}`), "record: byte 5: unexpected 'n' (null, floats and whitespace are not canonical)" + mal,
			"à l'octet 5 : caractère 'n' inattendu (null, les nombres à virgule et les blancs ne sont pas canoniques)"},
		{"got want", parse(`{"a":1;`), "record: byte 6: got ';', want ','" + mal, "à l'octet 6 : ';' au lieu de ','"},
		{"key not a string", parse(`{1:1}`), "record: byte 1: object key must be a string" + mal, "à l'octet 1 : le nom d'un membre d'objet doit être une chaîne"},
		{"duplicate key", parse(`{"a":1,"a":2}`), `record: byte 7: duplicate key "a"` + mal, "à l'octet 7 : membre « a » en double"},
		{"key order", parse(`{"b":1,"a":2}`), `record: byte 7: key "a" after "b": keys must be sorted` + mal, "membre « a » après « b » : les membres doivent être triés"},
		{"unterminated", parse(`{"a":"x`), "record: byte 7: unterminated string" + mal, "à l'octet 7 : chaîne non terminée"},
		{"escape", parse(`{"a":"\n"}`), `record: byte 6: only \" and \\ escapes are canonical` + mal, `à l'octet 6 : seuls les échappements \" et \\ sont canoniques`},
		{"non-ASCII", parse(`{"a":"é"}`), "record: byte 6: byte 0xc3 in a string: only printable ASCII is allowed" + mal, "octet 0xc3 dans une chaîne : seul l'ASCII imprimable est permis"},
		{"no digits", parse(`{"a":-}`), "record: byte 6: a number needs digits" + mal, "à l'octet 6 : un nombre doit avoir des chiffres"},
		{"leading zero", parse(`{"a":01}`), "record: byte 5: leading zero" + mal, "à l'octet 5 : zéro en tête d'un nombre"},
		{"minus zero", parse(`{"a":-0}`), "record: byte 5: -0 is not canonical" + mal, "à l'octet 5 : -0 n'est pas canonique"},
		{"fraction", parse(`{"a":1.5}`), "record: byte 6: only integers are allowed (amounts are integer cents)" + mal, "seuls les entiers sont permis (les montants sont en centimes entiers)"},
		{"integer range", parse(`{"a":99999999999999999}`), "record: byte 5: integer outside ±(2^53−1)" + mal, "à l'octet 5 : entier hors de l'intervalle ±(2^53−1)"},
		{"integer digits", parse(`{"a":9999999999999999}`), "record: byte 5: integer outside ±(2^53−1)" + mal, "entier hors de l'intervalle"},
		{"trailing", parse(`{}x`), "record: byte 2: trailing bytes after the record" + mal, "à l'octet 2 : des octets suivent l'enregistrement"},
		// The top level and the fields (record: field NAME: …).
		{"no version", parse(`{}`), "record: field v: missing or not an integer" + mal, "enregistrement mal formé, champ « v » : absent ou pas un entier"},
		{"version", parse(`{"v":2}`), "record: version 2: unsupported record version", "version d'enregistrement non prise en charge (version 2)"},
		{"no kind", parse(`{"v":1}`), "record: field kind: missing or not a string" + mal, "champ « kind » : absent ou pas une chaîne"},
		{"kind", parse(`{"kind":"x","v":1}`), `record: kind "x": unknown record kind`, "type d'enregistrement inconnu : « x »"},
		{"unknown field", alter(record.KindEmission, `"v":1}`, `"v":1,"x":1}`), "record: field x: unknown field for the record (version 1)" + mal,
			"champ « x » : champ inconnu pour ce type d'enregistrement (version 1)"},
		{"unknown nested field", alter(record.KindKey, `"use":"vrf"}`, `"use":"vrf","x":1}`), "record: field keys.x: unknown field for keys (version 1)" + mal,
			"champ « keys.x » : champ inconnu dans « keys » (version 1)"},
		{"missing", drop(record.KindEmission, "closure"), "record: field closure: missing" + mal, "champ « closure » : absent"},
		{"empty optional", alter(record.KindManifest, `"total":630000000`, `"total":0`), "record: field total: an empty optional field must be omitted" + mal,
			"champ « total » : un champ facultatif vide doit être omis"},
		{"want time", alter(record.KindEmission, `"time":"2026-11-30T09:15:00Z"`, `"time":1`), "record: field time: want a time string" + mal, "champ « time » : une date et heure (chaîne) est attendue"},
		{"bad time", alter(record.KindEmission, `"time":"2026-11-30T09:15:00Z"`, `"time":"2026-11-30"`), `record: field time: time "2026-11-30" is not RFC 3339 UTC with seconds (YYYY-MM-DDThh:mm:ssZ)` + mal,
			"« 2026-11-30 » n'est pas une date et heure RFC 3339 UTC à la seconde (AAAA-MM-JJThh:mm:ssZ)"},
		{"want hex", alter(record.KindManifest, `"root":"8325`, `"root":1,"rz":"`), "record: field root: want a lowercase hex string" + mal, "champ « root » : une chaîne hexadécimale en minuscules est attendue"},
		{"hex digit", alter(record.KindManifest, `"root":"8325`, `"root":"G325`), "record: field root: hex must be lowercase 0-9a-f, got 'G'" + mal, "l'hexadécimal s'écrit en minuscules 0-9a-f, et non 'G'"},
		{"odd hex", alter(record.KindManifest, `"root":"8325`, `"root":"325`), "record: field root: odd-length hex" + mal, "champ « root » : hexadécimal de longueur impaire"},
		{"hex length", alter(record.KindManifest, `"root":"8325`, `"root":"83","rz":"`), "record: field root: want 32 bytes, got 1" + mal, "champ « root » : 32 octets attendus, et non 1"},
		{"want string", alter(record.KindEmission, `"emission":"QOD-2026-07"`, `"emission":1`), "record: field emission: want a string" + mal, "champ « emission » : une chaîne est attendue"},
		{"want integer", alter(record.KindManifest, `"count":3000000`, `"count":"x"`), "record: field count: want an integer" + mal, "champ « count » : un entier est attendu"},
		{"want integer (signed)", alter(record.KindPick, `"index":0`, `"index":"0"`), "record: field index: want an integer" + mal, "champ « index » : un entier est attendu"},
		{"integer out of range", alter(record.KindManifest, `"count":3000000`, `"count":-1`), "record: field count: integer -1 out of range" + mal, "champ « count » : l'entier -1 est hors limites"},
		{"want array", alter(record.KindGameStart, `"multipliers":[2,3,2,2]`, `"multipliers":2`), "record: field multipliers: want an array" + mal, "champ « multipliers » : un tableau est attendu"},
		{"want array (list)", alter(record.KindPromoDraw, `"ranking":[40211,77,3141,9000]`, `"ranking":1`), "record: field ranking: want an array" + mal, "champ « ranking » : un tableau est attendu"},
		{"want elements", alter(record.KindGameStart, `"multipliers":[2,3,2,2]`, `"multipliers":[2,3,2]`), "record: field multipliers: want 4 elements, got 3" + mal, "4 éléments attendus, et non 3"},
		{"want object", parse(keys("1")), "record: field keys: want an object" + mal, "champ « keys » : un objet est attendu"},
		// Each kind's rules (record KIND: …: malformed record).
		{"no keys", parse(keys("")), "record key: keys: none announced" + mal, "enregistrement mal formé (annonce de clés) : champ « keys » : aucune clé annoncée"},
		{"key id", alter(record.KindKey, `"id":"vrf-1"`, `"id":""`), "record key: keys[0].id: empty" + mal, "champ « keys[0].id » vide"},
		{"key twice", parse(keys(keyOf + "," + keyOf)), `record key: keys[1].id: "vrf-1" announced twice` + mal, "champ « keys[1].id » : la clé « vrf-1 » est annoncée deux fois"},
		{"key use", alter(record.KindKey, `"use":"vrf"`, `"use":""`), "record key: keys[0]: use and suite are required" + mal, "champ « keys[0] » : les champs « use » et « suite » sont requis"},
		{"key public key", alter(record.KindKey, `"public_key":"021111111111111111111111111111111111111111111111111111111111111111"`, `"public_key":""`),
			"record key: keys[0].public_key: empty" + mal, "champ « keys[0].public_key » vide"},
		{"key fingerprint", alter(record.KindKey, `"fingerprint":"e`, `"fingerprint":"f`), "record key: keys[0].fingerprint: not SHA-256 of public_key" + mal,
			"champ « keys[0].fingerprint » : ce n'est pas le SHA-256 de « public_key »"},
		{"emission", alter(record.KindEmission, `"emission":"QOD-2026-07"`, `"emission":""`), "record emission: emission: empty" + mal, "enregistrement mal formé (émission) : champ « emission » vide"},
		{"closure", alter(record.KindEmission, `"closure":"2026-12-31"`, `"closure":"2026-13-31"`), `record emission: closure: "2026-13-31" is not a YYYY-MM-DD date` + mal,
			"champ « closure » : « 2026-13-31 » n'est pas une date AAAA-MM-JJ"},
		{"missing time", alter(record.KindEmission, `"time":"2026-11-30T09:15:00Z"`, `"time":"0001-01-01T00:00:00Z"`), "record emission: time: missing time" + mal,
			"champ « time » : date et heure absentes"},
		{"manifest emission", alter(record.KindManifest, `"emission":"QOD-2026-07"`, `"emission":""`), "record manifest: emission: empty" + mal, "(manifeste de tickets) : champ « emission » vide"},
		{"total", alter(record.KindManifest, `"total":630000000`, `"total":-5`), "record manifest: total: negative" + mal, "champ « total » négatif"},
		{"game and emission", alter(record.KindGameStart, `"game":"g-000042"`, `"game":""`), "record game_start: game and emission are required" + mal,
			"enregistrement mal formé (début de partie) : les champs « game » et « emission » sont requis"},
		{"stake", alter(record.KindGameStart, `"stake":2000`, `"stake":-1`), "record game_start: stake: -1 cents, must be positive" + mal,
			"champ « stake » : -1 centimes, alors que la mise doit être strictement positive"},
		{"multiplier", alter(record.KindGameStart, `"multipliers":[2,3,2,2]`, `"multipliers":[2,4,2,2]`), "record game_start: multipliers[1]: 4, must be 2 or 3" + mal,
			"champ « multipliers[1] » : 4, alors qu'un multiplicateur vaut 2 ou 3"},
		{"vrf together", drop(record.KindGameStart, "key"), "record game_start: key, proof and beta go together" + mal, "les champs « key », « proof » et « beta » vont ensemble : tous les trois ou aucun"},
		{"req together", drop(record.KindPick, "req"), "record pick: req and req_digest go together" + mal, "les champs « req » et « req_digest » vont ensemble : tous deux ou aucun"},
		{"pick game", alter(record.KindPick, `"game":"g-000042"`, `"game":""`), "record pick: game: empty" + mal, "enregistrement mal formé (sélection) : champ « game » vide"},
		{"pick index", alter(record.KindPick, `"index":0`, `"index":30`), "record pick: index: 30, must be 0..29" + mal, "champ « index » : 30, alors qu'il doit être compris entre 0 et 29"},
		{"pick number", alter(record.KindPick, `"number":17`, `"number":31`), "record pick: number: 31, must be 1..30" + mal, "champ « number » : 31, alors qu'il doit être compris entre 1 et 30"},
		{"pick outcome", alter(record.KindPick, `"outcome":"good"`, `"outcome":"bad"`), `record pick: outcome: "bad", must be "good" or "losing"` + mal,
			"champ « outcome » : « bad », alors que « good » ou « losing » est attendu"},
		{"decision game", alter(record.KindDecision, `"game":"g-000042"`, `"game":""`), "record decision: game: empty" + mal, "(décision au palier) : champ « game » vide"},
		{"decision tier", alter(record.KindDecision, `"tier":1`, `"tier":4`), "record decision: tier: 4, must be 1..3" + mal, "champ « tier » : 4, alors qu'il doit être compris entre 1 et 3"},
		{"decision choice", alter(record.KindDecision, `"choice":"continue"`, `"choice":"maybe"`), `record decision: choice: "maybe", must be "continue" or "stop"` + mal,
			"champ « choice » : « maybe », alors que « continue » ou « stop » est attendu"},
		{"end game", alter(record.KindGameEnd, `"game":"g-000042"`, `"game":""`), "record game_end: game: empty" + mal, "(fin de partie) : champ « game » vide"},
		{"end tier", alter(record.KindGameEnd, `"tier":2`, `"tier":5`), "record game_end: tier: 5, must be 0..4" + mal, "champ « tier » : 5, alors qu'il doit être compris entre 0 et 4"},
		{"end negative", alter(record.KindGameEnd, `"win":12000`, `"win":-1`), "record game_end: win and refund cannot be negative" + mal, "les champs « win » et « refund » ne peuvent pas être négatifs"},
		{"end won", alter(record.KindGameEnd, `"tier":2`, `"tier":0`), "record game_end: result won: needs a win, a tier ≥ 1 and no refund" + mal,
			"résultat « won » : il faut un gain, un palier ≥ 1 et aucun remboursement"},
		{"end refunded", alter(record.KindGameEnd, `"result":"won"`, `"result":"refunded"`), "record game_end: result refunded: needs a refund and no win" + mal,
			"résultat « refunded » : il faut un remboursement et aucun gain"},
		{"end reason not refunded", alter(record.KindGameEnd, `"result":"won"`, `"reason":"61","result":"won"`), "record game_end: reason: only a refunded game's end has one, not a won game's" + mal,
			"champ « reason » : seule la fin d'une partie remboursée en a un, pas celle d'une partie « won »"},
		{"end reason long", refunded(strings.Repeat("61", 501)), "record game_end: reason: 501 bytes, at most 500" + mal, "champ « reason » : 501 octets, au plus 500"},
		{"end reason text", refunded("610a62"), "record game_end: reason: must be one line of UTF-8 text, without control or format characters" + mal,
			"champ « reason » : une ligne de texte UTF-8 est attendue, sans caractère de contrôle ni de mise en forme"},
		{"end lost", alter(record.KindGameEnd, `"result":"won"`, `"result":"lost"`), "record game_end: result lost: no win, no refund" + mal, "résultat « lost » : ni gain, ni remboursement"},
		{"end result", alter(record.KindGameEnd, `"result":"won"`, `"result":"draw"`), `record game_end: result: "draw", must be won, lost, expired or refunded` + mal,
			"champ « result » : « draw », alors que « won », « lost », « expired » ou « refunded » est attendu"},
		{"freeze draw", alter(record.KindPromoFreeze, `"draw":"BC-2016-1"`, `"draw":""`), "record promo_freeze: draw and promotion are required" + mal,
			"(gel promotionnel) : les champs « draw » et « promotion » sont requis"},
		{"freeze entrant scheme", alter(record.KindPromoFreeze, `"draw":"BC-2016-1"`, `"draw":"BC-2016-1","entrant_scheme":3`),
			"record promo_freeze: entrant_scheme: 3 is no entrant commitment scheme this verifier knows (absent: 1; 2)" + mal,
			"champ « entrant_scheme » : 3 n'est pas un schéma d'engagement des participants connu de ce vérificateur (absent : 1 ; 2)"},
		{"freeze winners", alter(record.KindPromoFreeze, `"winners":1`, `"winners":0`), "record promo_freeze: winners + reserves (0 + 3) must be 1..count (48213)" + mal,
			"gagnants + réserves (0 + 3) doit être compris entre 1 et le nombre de participants (48213)"},
		{"freeze beacon", alter(record.KindPromoFreeze, `"beacon":"drand quicknet round 1234567"`, `"beacon":"drand:x"`),
			`record promo_freeze: beacon: "drand:x" is not drand:<chain hash, 64 lowercase hex>:<round>` + mal,
			"champ « beacon » : « drand:x » n'est pas de la forme drand:<empreinte de la chaîne, 64 chiffres hexadécimaux en minuscules>:<ronde>"},
		{"freeze beacon round", alter(record.KindPromoFreeze, `"beacon":"drand quicknet round 1234567"`, `"beacon":"`+beaconHash+`:99999999999999999999"`),
			"record promo_freeze: beacon: round out of range" + mal, "champ « beacon » : numéro de ronde hors limites"},
		{"draw draw", alter(record.KindPromoDraw, `"draw":"BC-2016-1"`, `"draw":""`), "record promo_draw: draw: empty" + mal, "(tirage promotionnel) : champ « draw » vide"},
		{"draw share", alter(record.KindPromoDraw, `"share":"6261696c696666207368617265"`, `"share":""`), "record promo_draw: share: the bailiff's share is required" + mal,
			"champ « share » : la contribution de l'huissier est requise"},
		{"draw ranking", alter(record.KindPromoDraw, `"ranking":[40211,77,3141,9000]`, `"ranking":[40211,77,3141]`), "record promo_draw: ranking: 3 entries, want winners + reserves = 4" + mal,
			"champ « ranking » : 3 rangs, alors que gagnants + réserves = 4"},
		{"draw secret", alter(record.KindPromoDraw, `"secret":"e`, `"secret":"f`), "record promo_draw: secret: does not match commit" + mal,
			"champ « secret » : ne correspond pas à l'engagement « commit »"},
		{"draw beacon value", drop(record.KindPromoDraw, "beacon_value"), "record promo_draw: beacon and beacon_value go together" + mal, "les champs « beacon » et « beacon_value » vont ensemble"},
		{"draw beacon", alter(record.KindPromoDraw, `"beacon":"drand quicknet round 1234567"`, `"beacon":"drand:1"`),
			`record promo_draw: beacon: "drand:1" is not drand:<chain hash, 64 lowercase hex>:<round>` + mal, "champ « beacon » : « drand:1 » n'est pas de la forme"},
		{"draw ranking entry", alter(record.KindPromoDraw, `"ranking":[40211,77,`, `"ranking":[40211,40211,`), "record promo_draw: ranking[1]: 40211 out of range or repeated" + mal,
			"champ « ranking[1] » : 40211 hors limites ou répété"},
		{"draw vrf", alter(record.KindPromoDraw, `"key":"vrf-1"`, `"key":""`), "record promo_draw: key, proof and beta go together" + mal, "les champs « key », « proof » et « beta » vont ensemble"},
		{"attestation", alter(record.KindAttestation, `"subject":"qod/paytable"`, `"subject":""`), "record attestation: subject, type and key are required" + mal,
			"(attestation) : les champs « subject », « type » et « key » sont requis"},
		{"attestation digest", alter(record.KindAttestation, `"digest":"4`, `"digest":"5`), "record attestation: digest: not SHA-256 of statement" + mal,
			"champ « digest » : ce n'est pas le SHA-256 de « statement »"},
		// Parse's check that the record it read formats again.
		{"year", alter(record.KindEmission, `"time":"2026-11-30T09:15:00Z"`, `"time":"1969-12-31T23:59:59Z"`), "record: field time: year 1969 out of range 1970..9999" + mal,
			"enregistrement mal formé : champ « time » : l'année 1969 n'est pas comprise entre 1970 et 9999"},
		// Format's refusals.
		{"format nil", format(nil), "record: Format of a nil record", "aucun enregistrement à encoder (Format reçoit nil)"},
		{"format nil pointer", format((*record.Pick)(nil)), "record: Format of a nil record", "aucun enregistrement à encoder"},
		{"format rules", format(&record.Pick{Time: when, Game: "g", Index: 40}), "record pick: index: 40, must be 0..29",
			"sélection invalide : champ « index » : 40, alors qu'il doit être compris entre 0 et 29"},
		{"format fraction", format(&record.Emission{Time: when.Add(1), Emission: "E", Closure: "2026-12-31", StartDeadline: when}),
			"record: field time: time 2026-11-30T09:15:00.000000001Z is not a whole second", "champ « time » : l'heure 2026-11-30T09:15:00.000000001Z n'est pas à la seconde entière"},
		{"format ASCII", format(&record.Emission{Time: when, Emission: "É", Closure: "2026-12-31", StartDeadline: when}),
			"record: field emission: byte 0xc3 at 0 is not printable ASCII", "champ « emission » : l'octet 0xc3 en position 0 n'est pas un caractère ASCII imprimable"},
		{"format unsigned", format(&record.Manifest{Time: when, Emission: "E", Count: 1 << 60}), "record: field count: integer 1152921504606846976 above 2^53−1",
			"champ « count » : l'entier 1152921504606846976 dépasse 2^53−1"},
		{"format signed", format(&record.GameStart{Time: when, Game: "g", Emission: "E", Stake: 1 << 60, Multipliers: [4]int{2, 2, 2, 2}, Expires: when}),
			"record: field stake: integer 1152921504606846976 outside ±(2^53−1)", "champ « stake » : l'entier 1152921504606846976 sort de l'intervalle ±(2^53−1)"},
		// Ticket codes.
		{"ticket character", ticket("AB!"), "ticket code: character 3: ticket code must be 18 characters A-Z 0-9",
			"code de ticket : caractère 3 : un code de ticket fait 18 caractères A-Z 0-9"},
		{"ticket length", ticket("AB-C"), "ticket code: 3 characters: ticket code must be 18 characters A-Z 0-9", "code de ticket : 3 caractères : un code de ticket fait 18 caractères"},
	} {
		if c.err != nil && c.err.Error() != c.en {
			t.Errorf("%s: English %q, want %q", c.name, c.err.Error(), c.en)
		}
		m := frenchReason(t, c.name, c.err, c.en, c.fr)
		msgIDs(m, seen)
	}
	// The sentinels are still there to test with errors.Is.
	for _, c := range []struct {
		err      error
		sentinel error
	}{
		{parse(`{}`), record.ErrMalformed}, {parse(`{"v":2}`), record.ErrVersion},
		{parse(`{"kind":"x","v":1}`), record.ErrUnknownKind}, {ticket("x"), record.ErrTicketCode},
		{alter(record.KindPick, `"index":0`, `"index":30`), record.ErrMalformed},
	} {
		if !errors.Is(c.err, c.sentinel) {
			t.Errorf("%v does not wrap %v", c.err, c.sentinel)
		}
	}
	// Every message of package record's in the catalog is reached above.
	decl := catalogIDs(t, "// Package record's refusals (record.Parse", "\n\n", 80)
	for _, d := range decl {
		id := verdict.MsgID(d[2])
		if why, ok := unreachableRecordMsgs[id]; ok {
			if seen[id] {
				t.Errorf("%s is reached, yet listed as unreachable (%s)", d[1], why)
			}
			continue
		}
		if !seen[id] {
			t.Errorf("%s: no case above reaches it", d[1])
		}
	}
}

// msgIDs adds the ids of m and of the messages among its arguments to seen.
func msgIDs(m verdict.Msg, seen map[verdict.MsgID]bool) {
	seen[m.ID] = true
	for _, a := range m.Args {
		switch x := a.(type) {
		case verdict.Msg:
			msgIDs(x, seen)
		case []verdict.Msg:
			for _, y := range x {
				msgIDs(y, seen)
			}
		case verdict.Series:
			for _, y := range x {
				msgIDs(y, seen)
			}
		}
	}
}
