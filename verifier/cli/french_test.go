package cli

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"golang.org/x/mod/sumdb/tlog"

	"tirage.fr/tirage/verifier/announce"
	"tirage.fr/tirage/verifier/beacon"
	"tirage.fr/tirage/verifier/checkpoint"
	"tirage.fr/tirage/verifier/promo"
	"tirage.fr/tirage/verifier/receipt"
	"tirage.fr/tirage/verifier/record"
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
	envelope := func(s string) error { return second(announce.ParseEnvelope([]byte(s))) }
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
		{"beacon value required", second(promo.VerifyBeacon("bourse du 3 mars", nil)), `the freeze announced the beacon "bourse du 3 mars"; its value is required`, "sa valeur est requise"},
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
	} {
		if c.err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		m := receipt.Cause(c.err)
		if en := m.Text("en"); en != c.err.Error() || !strings.Contains(en, c.en) {
			t.Errorf("%s: English %q, the error says %q, want it with %q", c.name, en, c.err.Error(), c.en)
		}
		fr := m.Text("fr")
		if !strings.Contains(fr, c.fr) || quotedEnglish.MatchString(fr) {
			t.Errorf("%s: French %q, want it with %q and no English quoted", c.name, fr, c.fr)
		}
		if w := english.FindString(identifiers.ReplaceAllString(fr, " ")); w != "" {
			t.Errorf("%s: English %q in French %q", c.name, w, fr)
		}
	}
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

	for _, c := range []struct {
		name   string
		args   []string
		code   int
		en, fr string // on stdout or stderr, after the run in each language
	}{
		{"usage", []string{}, ExitUsage, "usage: rngverify COMMAND [ARGS]\n\ncommands:\n  audit        follow the whole log: re-verify every record and game",
			"utilisation : rngverify COMMANDE [ARGUMENTS] [--lang fr|en]\n\ncommandes :\n  audit        suivre tout le journal de transparence"},
		{"help", []string{"help"}, ExitOK, "  vrf          check one RFC 9381 VRF proof and print its output β\n", "  vrf          vérifier une preuve VRF (RFC 9381) et afficher sa sortie β\n"},
		{"unknown command", []string{"verify"}, ExitUsage, "rngverify: unknown command \"verify\" (rngverify help lists them)\n", "rngverify : commande « verify » inconnue"},
		{"not json", []string{"certificate", notJSON, "--tofu"}, ExitUsage, "hello.json is not a promotion certificate: invalid character 'h' looking for beginning of value\n",
			"hello.json n'est pas un certificat de tirage promotionnel : ce n'est pas du JSON valide (erreur de syntaxe à l'octet 1)\n"},
		{"truncated json", []string{"certificate", truncated, "--tofu"}, ExitUsage, "cut.json is not a promotion certificate: unexpected end of JSON input\n", "ce n'est pas du JSON valide (erreur de syntaxe à l'octet 8)\n"},
		{"no draw", []string{"certificate", noDraw, "--tofu"}, ExitUsage, "nodraw.json is not a promotion certificate: no draw\n", "aucun tirage nommé (le champ « draw » manque)\n"},
		{"json type", []string{"certificate", number, "--tofu"}, ExitUsage, "number.json is not a promotion certificate: json: cannot unmarshal number into Go struct field .draw of type string\n",
			"champ « draw » : une valeur JSON de type « nombre » n'est pas du type attendu\n"},
		{"json array", []string{"certificate", array, "--tofu"}, ExitUsage, "array.json is not a promotion certificate: json: cannot unmarshal array into Go value of type struct",
			"le document : une valeur JSON de type « tableau » n'est pas du type attendu\n"},
		{"unknown field", []string{"certificate", extra, "--tofu"}, ExitFail, "check certificate-format: not a certificate: json: unknown field \"extra\"\n",
			"vérification certificate-format : ce n'est pas un certificat : champ JSON « extra » inconnu\n"},
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
		{"bad pin", []string{"receipt", "x", "--pin", "zz"}, ExitUsage, `--pin "zz": want 64 hex digits (a SHA-256 fingerprint)`, "--pin « zz » : 64 chiffres hexadécimaux attendus"},
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
			case c.name == "help":
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
