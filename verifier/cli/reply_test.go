package cli

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tirage.fr/tirage/verifier/checkpoint"
	"tirage.fr/tirage/verifier/receipt"
	"tirage.fr/tirage/verifier/record"
)

// daemonPins are the pins of testdata/rngd's keys as their operator
// publishes them: the log key's fingerprint as rngctl keys show prints it
// (SHA256:hex), the VRF key's as rngd's banner does (SUITE:hex).
func daemonPins(t *testing.T) (logPin, vrfPin, vrfFP string) {
	t.Helper()
	const dir = "testdata/rngd"
	b, err := os.ReadFile(filepath.Join(dir, "log.vkey"))
	if err != nil {
		t.Fatal(err)
	}
	k, err := checkpoint.ParseKey(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	var tr receipt.Transcript
	if err := json.Unmarshal(must(os.ReadFile(filepath.Join(dir, "transcript.json"))), &tr); err != nil {
		t.Fatal(err)
	}
	pk, err := hex.DecodeString(tr.VRFKeys[0].PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	vrfFP = record.Hex(record.Fingerprint(pk))
	return "SHA256:" + k.Fingerprint(), tr.VRFKeys[0].Suite + ":" + vrfFP, vrfFP
}

// TestDaemonReplies: what rngd's gRPC API returns, as grpcurl prints it,
// is checked as it is (testdata/rngd/*-reply.json: the GetTranscript and
// GetReceipts replies of the daemon's game, protojson of its own protobuf
// types). Before, both were refused as unreadable (exit 2: json: unknown
// field "document", "receipts").
func TestDaemonReplies(t *testing.T) {
	const dir = "testdata/rngd"
	key := filepath.Join(dir, "log.vkey")
	_, vrfPin, vrfFP := daemonPins(t)

	code, out, errs := run(t, "game", filepath.Join(dir, "transcript-reply.json"), "--log-key", key)
	if code != ExitOK || !strings.Contains(out, "GetTranscript reply (protobuf JSON)") || !strings.Contains(out, "[PASS] vrf-proof") {
		t.Fatalf("GetTranscript reply: exit %d\n%s%s", code, out, errs)
	}

	// Every receipt of the reply, each with its verdict, then the whole.
	replies := filepath.Join(dir, "receipts-reply.json")
	code, out, errs = run(t, "receipt", replies, "--log-key", key, "--pin", vrfPin)
	if code != ExitOK || errs != "" || strings.Count(out, "checked: receipt of a ") != 8 || !strings.Contains(out, "(8 of 8)\n") ||
		!strings.HasSuffix(out, "checked: GetReceipts reply for game client/df493a6cd7e6d073b1f52b20c5efa40b, 8 receipt(s)\n"+
			"  [PASS] format                 document format — GetReceipts reply (protobuf JSON): receipts of one game in log order, each verified on its own; that none is missing takes the game's transcript (rngverify game)\n"+
			"  [PASS] receipt                receipt — receipt of a game_start record at log index 51, game client/df493a6cd7e6d073b1f52b20c5efa40b (1 of 8): every check passed\n"+
			"  [PASS] receipt                receipt — receipt of a pick record at log index 52, game client/df493a6cd7e6d073b1f52b20c5efa40b (2 of 8): every check passed\n"+
			"  [PASS] receipt                receipt — receipt of a pick record at log index 53, game client/df493a6cd7e6d073b1f52b20c5efa40b (3 of 8): every check passed\n"+
			"  [PASS] receipt                receipt — receipt of a pick record at log index 54, game client/df493a6cd7e6d073b1f52b20c5efa40b (4 of 8): every check passed\n"+
			"  [PASS] receipt                receipt — receipt of a pick record at log index 55, game client/df493a6cd7e6d073b1f52b20c5efa40b (5 of 8): every check passed\n"+
			"  [PASS] receipt                receipt — receipt of a pick record at log index 56, game client/df493a6cd7e6d073b1f52b20c5efa40b (6 of 8): every check passed\n"+
			"  [PASS] receipt                receipt — receipt of a pick record at log index 57, game client/df493a6cd7e6d073b1f52b20c5efa40b (7 of 8): every check passed\n"+
			"  [PASS] receipt                receipt — receipt of a game_end record at log index 58, game client/df493a6cd7e6d073b1f52b20c5efa40b (8 of 8): every check passed\n"+
			"VERDICT: every check passed.\n") {
		t.Fatalf("GetReceipts reply: exit %d\n%s%s", code, out, errs)
	}
	code, out, _ = run(t, "receipt", replies, "--log-key", key, "--pin", vrfPin, "--json")
	var j struct {
		Verdict string
		Parts   []struct{ Verdict, Subject string }
	}
	if err := json.Unmarshal([]byte(out), &j); code != ExitOK || err != nil || j.Verdict != "pass" || len(j.Parts) != 8 || j.Parts[7].Verdict != "pass" {
		t.Fatalf("GetReceipts reply, --json: exit %d %v\n%s", code, err, out)
	}
	// The VRF key pinned by its bytes only: every draw's receipt fails
	// vrf-key, and the reply is not verified, the first named.
	code, out, errs = run(t, "receipt", replies, "--log-key", key, "--pin", "SHA256:"+vrfFP, "--lang", "fr")
	if code != ExitFail || !strings.HasPrefix(errs, "rngverify receipt : NON VÉRIFIÉ, vérification receipt : reçu d'un enregistrement « début de partie » à l'index 51 du journal, partie client/df493a6cd7e6d073b1f52b20c5efa40b (1 sur 8) : NON VÉRIFIÉ, vérification vrf-key : la clé vrf") ||
		strings.Count(errs, "\n") != 1 || !strings.Contains(out, "[ÉCHEC] receipt") {
		t.Fatalf("GetReceipts reply, bare VRF pin: exit %d\n%s%s", code, out, errs)
	}
	frenchProse(t, "GetReceipts reply", out+errs)
	code, out, errs = run(t, "game", filepath.Join(dir, "transcript-reply.json"), "--log-key", key, "--lang", "fr")
	if code != ExitOK || !strings.Contains(out, "réponse GetTranscript (JSON protobuf) : la transcription qu'elle porte, décodée du base64") {
		t.Fatalf("GetTranscript reply, --lang fr: exit %d\n%s%s", code, out, errs)
	}
	frenchProse(t, "GetTranscript reply", out+errs)
}

// TestPinSpellings: a key's fingerprint as rngctl keys init and keys show
// print it, SHA256:hex (prefix in any case), pins it as the bare hex does.
// Before, it was refused (exit 2: want 64 hex digits).
func TestPinSpellings(t *testing.T) {
	const dir = "testdata/rngd"
	logPin, vrfPin, vrfFP := daemonPins(t)
	tr := filepath.Join(dir, "transcript.json")
	for _, pin := range []string{logPin, strings.ToLower(logPin), strings.TrimPrefix(logPin, "SHA256:")} {
		// The transcript's key announcement fixes the VRF key's suite.
		if code, out, errs := run(t, "game", tr, "--pin", pin); code != ExitOK {
			t.Errorf("--pin %s: exit %d\n%s%s", pin, code, out, errs)
		}
	}
	// SHA256: is a bare pin: it fixes a VRF key's bytes, not its suite.
	// (The daemon's protobuf receipts carry no log key to pin: the log key
	// is given.)
	replies, key := filepath.Join(dir, "receipts-reply.json"), filepath.Join(dir, "log.vkey")
	code, out, errs := run(t, "receipt", replies, "--log-key", key, "--pin", "sha256:"+vrfFP)
	if code != ExitFail || !strings.Contains(out, "is pinned by fingerprint only, which does not fix its suite") {
		t.Errorf("bare VRF pin: exit %d\n%s%s", code, out, errs)
	}
	if code, out, errs := run(t, "receipt", replies, "--log-key", key, "--pin", vrfPin); code != ExitOK {
		t.Errorf("suite pin: exit %d\n%s%s", code, out, errs)
	}
	for _, bad := range []string{"SHA256:" + vrfFP[:62], "SHA-256:" + vrfFP, "SHA512:" + vrfFP} {
		if code, out, errs := run(t, "game", tr, "--pin", bad); code != ExitUsage || out != "" || !strings.Contains(errs, "bare or as SHA256:64 hex digits") {
			t.Errorf("--pin %s: exit %d\n%s%s", bad, code, out, errs)
		}
	}
}

// TestUnreadableInput: unreadable input is exit 2 with one line on stderr
// and nothing on stdout, --json or not (docs/verifier.md, exit codes).
// Before, a full verdict was printed on stdout too.
func TestUnreadableInput(t *testing.T) {
	const dir = "testdata/rngd"
	tmp := t.TempDir()
	reply := must(os.ReadFile(filepath.Join(dir, "transcript-reply.json")))
	// Each unreadable document is named in the line.
	write(t, tmp, "hello.json", []byte("hello"))
	write(t, tmp, "trail.json", append(append([]byte{}, reply...), '}'))
	write(t, tmp, "inner.json", []byte(`{"document": "`+base64.StdEncoding.EncodeToString([]byte(`{"zz":1}`))+`"}`))
	write(t, tmp, "none.json", []byte(`{"receipts": []}`))
	write(t, tmp, "extra.json", []byte(`{"draw":"d","extra":1}`))
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"receipt", filepath.Join(tmp, "hello.json")}, "rngverify receipt: unreadable input: " + filepath.Join(tmp, "hello.json") + ": not a receipt: invalid character 'h' looking for beginning of value\n"},
		{[]string{"game", filepath.Join(tmp, "trail.json")}, "rngverify game: unreadable input: " + filepath.Join(tmp, "trail.json") + ": not a transcript (GetTranscript reply, protobuf JSON): trailing data after the document\n"},
		{[]string{"game", filepath.Join(tmp, "inner.json")},
			"rngverify game: unreadable input: " + filepath.Join(tmp, "inner.json") + ": not a transcript (GetTranscript reply, protobuf JSON): document: json: unknown field \"zz\"\n"},
		{[]string{"receipt", filepath.Join(tmp, "none.json")}, "rngverify receipt: unreadable input: " + filepath.Join(tmp, "none.json") + ": not a receipt (GetReceipts reply, protobuf JSON): the reply carries no receipt (field \"receipts\")\n"},
		{[]string{"certificate", write(t, tmp, "cert.json", []byte("[]")), "--tofu"}, "rngverify certificate: unreadable input: "},
		{[]string{"certificate", filepath.Join(tmp, "extra.json"), "--tofu"}, "rngverify certificate: unreadable input: " + filepath.Join(tmp, "extra.json") + ": not a certificate: json: unknown field \"extra\"\n"},
		// The other command's document: which command reads it.
		{[]string{"game", filepath.Join(dir, "receipts-reply.json")}, "rngverify game: unreadable input: testdata/rngd/receipts-reply.json is a receipt (or rngd's GetReceipts reply): check it with rngverify receipt\n"},
		{[]string{"receipt", filepath.Join(dir, "transcript-reply.json")}, "rngverify receipt: unreadable input: testdata/rngd/transcript-reply.json is a transcript (or rngd's GetTranscript reply): check it with rngverify game\n"},
	} {
		for _, extra := range [][]string{nil, {"--json"}, {"--json", "--lang", "fr"}} {
			code, out, errs := run(t, append(append([]string{}, c.args...), extra...)...)
			if code != ExitUsage || out != "" || strings.Count(errs, "\n") != 1 {
				t.Errorf("%q %q: exit %d, stdout %q, stderr %q", c.args, extra, code, out, errs)
			}
			if extra == nil && !strings.HasPrefix(errs, c.want) {
				t.Errorf("%q: stderr %q, want %q", c.args, errs, c.want)
			}
		}
	}
}

// TestLogRootOneSpelling: rngverify log spells the checkpoint's root one
// way, as the checkpoint does (base64). Before, its fact gave it in hex
// beside the signature check's base64.
func TestLogRootOneSpelling(t *testing.T) {
	const dir = "testdata/rngd"
	note := must(os.ReadFile(filepath.Join(dir, "tiles", "checkpoint")))
	_, _, root, err := checkpoint.ParseText(strings.SplitN(string(note), "\n\n", 2)[0] + "\n")
	if err != nil {
		t.Fatal(err)
	}
	b64, hx := base64.StdEncoding.EncodeToString(root[:]), hex.EncodeToString(root[:])
	for _, lang := range []string{"en", "fr"} {
		code, out, errs := run(t, "log", "--dir", filepath.Join(dir, "tiles"), "--log-key", filepath.Join(dir, "log.vkey"),
			"--state", filepath.Join(t.TempDir(), "state.json"), "--lang", lang)
		if code != ExitOK || strings.Contains(out, hx) || strings.Count(out, b64) != 2 {
			t.Errorf("--lang %s: exit %d, root %s / %s in\n%s%s", lang, code, b64, hx, out, errs)
		}
	}
}
