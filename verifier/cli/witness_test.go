package cli

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"tirage.fr/tirage/verifier/promo"
	"tirage.fr/tirage/verifier/receipt/receipttest"
)

// The witnesses of these tests: the bailiff's and an auditor's, and a key
// named like the bailiff's that is not theirs.
var (
	wBailiff = receipttest.NewWitness("bailiff.test", 1)
	wAuditor = receipttest.NewWitness("auditor.test", 2)
	wOther   = receipttest.NewWitness("bailiff.test", 3)
)

// witnessName is how verdicts name w: name+key ID.
func witnessName(w *receipttest.Witness) string {
	name, rest, _ := strings.Cut(w.VKey, "+")
	id, _, _ := strings.Cut(rest, "+")
	return name + "+" + id
}

// cosignFreeze writes the freeze receipt file with its checkpoint cosigned
// by each witness at its time (in order).
func cosignFreeze(t *testing.T, file []byte, name string, sign func(note []byte) []byte) string {
	t.Helper()
	var rc promo.FreezeReceipt
	if err := json.Unmarshal(file, &rc); err != nil {
		t.Fatal(err)
	}
	rc.Checkpoint = string(sign([]byte(rc.Checkpoint)))
	return write(t, t.TempDir(), name, promo.FreezeReceiptJSON(&rc))
}

func by(ws ...any) func([]byte) []byte {
	return func(note []byte) []byte {
		for i := 0; i < len(ws); i += 2 {
			note = ws[i].(*receipttest.Witness).Cosign(note, ws[i+1].(time.Time))
		}
		return note
	}
}

// TestWitnessFreeze: with --witness, the freeze receipt's checkpoint must
// carry valid cosignatures of the quorum (all the witnesses unless
// --witness-quorum says fewer): each witness and its time are printed; a
// witness missing, a cosignature that does not verify or a key that is
// not the witness's fails witness-cosignatures, naming the checkpoint's
// size and the witnesses missing. Without --witness the cosigned receipt
// verifies as before, and no witness check is shown.
func TestWitnessFreeze(t *testing.T) {
	file, _, lk := freezeReceiptFixture(t)
	t1 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	t2 := t1.Add(time.Minute)
	dir := t.TempDir()
	auditorFile := write(t, dir, "auditor.vkey", []byte("# the auditor\n"+wAuditor.VKey+"\n"))
	both := cosignFreeze(t, file, "both.json", by(wBailiff, t1, wAuditor, t2))
	bailiffOnly := cosignFreeze(t, file, "bailiff.json", by(wBailiff, t1))
	flipped := cosignFreeze(t, file, "flipped.json", func(note []byte) []byte {
		s := string(wBailiff.Cosign(note, t1))
		i := strings.LastIndex(s, "\n— bailiff.test ") + len("\n— bailiff.test ")
		c := "A"
		if s[i+20] == 'A' {
			c = "B"
		}
		return []byte(s[:i+20] + c + s[i+21:])
	})
	pin := []string{"--pin", lk.Fingerprint()}
	for _, c := range []struct {
		name, file string
		args       []string
		code       int
		want       []string
	}{
		{"both", both, []string{"--witness", wBailiff.VKey, "--witness", auditorFile}, ExitOK, []string{
			"[PASS] witness-cosignatures", "checkpoint of size 2 cosigned by 2 of 2 witness(es) (quorum 2): " +
				witnessName(wBailiff) + " at 2026-12-01T10:00:00Z, " + witnessName(wAuditor) + " at 2026-12-01T10:01:00Z"}},
		{"the same witness twice", both, []string{"--witness", wBailiff.VKey, "--witness", wBailiff.VKey}, ExitOK, []string{"cosigned by 1 of 1 witness(es) (quorum 1)"}},
		{"auditor missing", bailiffOnly, []string{"--witness", wBailiff.VKey, "--witness", auditorFile}, ExitFail, []string{
			"[FAIL] witness-cosignatures", "checkpoint of size 2: 1 valid cosignature(s), 2 required (quorum of 2 witness(es)); missing: " + witnessName(wAuditor)}},
		{"quorum 1", bailiffOnly, []string{"--witness", wBailiff.VKey, "--witness", auditorFile, "--witness-quorum", "1"}, ExitOK, []string{
			"cosigned by 1 of 2 witness(es) (quorum 1): " + witnessName(wBailiff) + " at 2026-12-01T10:00:00Z"}},
		{"flipped", flipped, []string{"--witness", wBailiff.VKey}, ExitFail, []string{
			"[FAIL] witness-cosignatures", "checkpoint of size 2: invalid cosignature by witness " + witnessName(wBailiff)}},
		{"wrong key", both, []string{"--witness", wOther.VKey}, ExitFail, []string{"missing: " + witnessName(wOther)}},
		{"no witness", both, nil, ExitOK, []string{"[PASS] checkpoint-signature"}},
	} {
		code, out, errs := run(t, append(append([]string{"freeze", c.file}, pin...), c.args...)...)
		if code != c.code {
			t.Errorf("%s: exit %d, want %d\n%s%s", c.name, code, c.code, out, errs)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("%s: no %q in\n%s", c.name, w, out)
			}
		}
		if c.args == nil && strings.Contains(out, "witness") {
			t.Errorf("%s: a witness check without --witness:\n%s", c.name, out)
		}
		if c.code == ExitFail && !strings.Contains(errs, "NOT VERIFIED, check witness-cosignatures") {
			t.Errorf("%s: conclusion %q", c.name, errs)
		}
	}
	// In French.
	code, out, _ := run(t, "freeze", bailiffOnly, "--pin", lk.Fingerprint(), "--witness", wBailiff.VKey, "--witness", wAuditor.VKey, "--lang", "fr")
	if code != ExitFail || !strings.Contains(out, "point de contrôle de taille 2 : 1 cosignature(s) valide(s), 2 requise(s)") {
		t.Fatalf("fr: exit %d\n%s", code, out)
	}
	frenchOK(t, "freeze --witness --lang fr", out)
	code, out, _ = run(t, "freeze", both, "--pin", lk.Fingerprint(), "--witness", wBailiff.VKey, "--lang", "fr")
	if code != ExitOK || !strings.Contains(out, witnessName(wBailiff)+" le 2026-12-01T10:00:00Z") {
		t.Fatalf("fr: exit %d\n%s", code, out)
	}
	frenchOK(t, "freeze --witness --lang fr", out)
}

// TestWitnessFlags: --witness-quorum must be 1 to the number of witnesses
// and needs --witness; a witness key must be a cosignature/v1 key; each
// refusal is a usage error naming the flag.
func TestWitnessFlags(t *testing.T) {
	_, rc, lk := freezeReceiptFixture(t)
	dir := t.TempDir()
	// The bailiff's key as type 0x01: a signed-note key, not a witness's.
	i := strings.LastIndexByte(wBailiff.VKey, '+')
	raw, _ := base64.StdEncoding.DecodeString(wBailiff.VKey[i+1:])
	raw[0] = 0x01
	noteKey := wBailiff.VKey[:i+1] + base64.StdEncoding.EncodeToString(raw)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--witness", wBailiff.VKey, "--witness", wAuditor.VKey, "--witness-quorum", "3"}, "--witness-quorum 3: want 1 to 2"},
		{[]string{"--witness", wBailiff.VKey, "--witness-quorum", "0"}, "--witness-quorum 0: want 1 to 1"},
		{[]string{"--witness-quorum", "1"}, "--witness-quorum 1: no --witness given"},
		{[]string{"--witness", noteKey}, "--witness: witness key"},
		{[]string{"--witness", filepath.Join(dir, "none.vkey")}, "--witness: neither a witness key nor a readable file"},
		{[]string{"--witness", write(t, dir, "bad.vkey", []byte(rc.LogKeys[0]+"\n"))}, "--witness " + filepath.Join(dir, "bad.vkey") + ": line 1: witness key"},
	} {
		for _, cmd := range []string{"freeze", "receipt", "log"} {
			args := append([]string{cmd, freezeFile, "--pin", lk.Fingerprint()}, c.args...)
			if cmd == "log" {
				args = append([]string{cmd, "--dir", dir, "--pin", lk.Fingerprint()}, c.args...)
			}
			code, out, errs := run(t, args...)
			if code != ExitUsage || out != "" || !strings.Contains(errs, c.want) || strings.Count(errs, "\n") != 1 {
				t.Errorf("%q: exit %d %q %q, want %q", args, code, out, errs, c.want)
			}
		}
	}
	if _, _, errs := run(t, "freeze", freezeFile, "--witness", noteKey); !strings.Contains(errs, "not a cosignature/v1 key (type 0x04)") {
		t.Errorf("a signed-note key as a witness key: %s", errs)
	}
	// rngverify attestation checks no checkpoint: refused there.
	if code, _, errs := run(t, "attestation", freezeFile, "--attestation-key", freezeFile, "--witness", wBailiff.VKey); code != ExitUsage || !strings.Contains(errs, "--witness") {
		t.Errorf("attestation --witness: exit %d %s", code, errs)
	}
	// The help says both.
	if _, _, errs := run(t, "freeze", "-h"); !strings.Contains(errs, "--witness KEY") || !strings.Contains(errs, "--witness-quorum N") {
		t.Errorf("help:\n%s", errs)
	}
}

// drand quicknet round 123 is published at 2023-08-23T15:15:33Z (genesis
// 1692803367 + 122 × 3 s).
var (
	round123Time = time.Date(2023, 8, 23, 15, 15, 33, 0, time.UTC)
	round123     = "drand:" + quicknetHash + ":123"
)

// ruledFreezeReceipt writes a freeze receipt of draw bonus-crescendo/1
// announcing quicknet round 123, its checkpoint cosigned by sign, and
// returns it with the flag that trusts the appliance's log key.
func ruledFreezeReceipt(t *testing.T, sign func([]byte) []byte) (file string, trust []string) {
	t.Helper()
	rules, err := os.ReadFile("../../examples/bonus-crescendo.yaml")
	if err != nil {
		t.Fatal(err)
	}
	a := newAppliance(t, 72)
	b, err := a.RuledFreezeReceipt(rules, 123, round123)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	return cosignFreeze(t, b, "freeze.json", sign), []string{"--log-key", write(t, dir, "log.vkey", a.LogKeyFile())}
}

// TestWitnessedBeforeBeacon: a freeze announcing a beacon round, whose
// receipt's checkpoint (the one including the freeze) the witnesses
// cosigned before the round's publication, passes witnessed-before-beacon,
// naming both times; cosigned at or after it (by the quorum: the q-th
// earliest time counts), the order is not shown: the check fails. Without
// --witness the check is skipped, saying that the order rests on the
// appliance's clock.
func TestWitnessedBeforeBeacon(t *testing.T) {
	before := round123Time.Add(-time.Hour)
	after := round123Time
	ws := []string{"--witness", wBailiff.VKey, "--witness", wAuditor.VKey}
	for _, c := range []struct {
		name string
		sign func([]byte) []byte
		args []string
		code int
		want string
	}{
		{"no witness", by(wBailiff, before), nil, ExitOK,
			"[skip] witnessed-before-beacon freeze witnessed before the beacon — no witness given (--witness): that the freeze (at 2016-06-20T18:00:00Z) was logged before drand quicknet (52db9ba7…) round 123 at 2023-08-23T15:15:33Z rests on the appliance's clock"},
		{"before", by(wBailiff, before, wAuditor, before.Add(time.Minute)), ws, ExitOK,
			"[PASS] witnessed-before-beacon freeze witnessed before the beacon — the freeze was witnessed at 2023-08-23T14:16:33Z, before drand quicknet (52db9ba7…) round 123 at 2023-08-23T15:15:33Z: entrants and share commitment were fixed before the beacon"},
		{"at the round", by(wBailiff, before, wAuditor, after), ws, ExitFail,
			"[FAIL] witnessed-before-beacon freeze witnessed before the beacon — the freeze was witnessed at 2023-08-23T15:15:33Z, not before drand quicknet (52db9ba7…) round 123 at 2023-08-23T15:15:33Z"},
		{"quorum 1", by(wBailiff, before, wAuditor, after), append(ws, "--witness-quorum", "1"), ExitOK,
			"[PASS] witnessed-before-beacon freeze witnessed before the beacon — the freeze was witnessed at 2023-08-23T14:15:33Z, before"},
		{"a witness missing", by(wBailiff, before), ws, ExitFail, "[skip] witnessed-before-beacon freeze witnessed before the beacon — not reached"},
	} {
		file, trust := ruledFreezeReceipt(t, c.sign)
		code, out, errs := run(t, append(append([]string{"freeze", file}, trust...), c.args...)...)
		if code != c.code || !strings.Contains(out, c.want) {
			t.Errorf("%s: exit %d, want %d and %q\n%s%s", c.name, code, c.code, c.want, out, errs)
		}
		if c.code == ExitOK {
			continue
		}
		code, out, _ = run(t, append(append([]string{"freeze", file, "--lang", "fr"}, trust...), c.args...)...)
		if code != c.code {
			t.Errorf("%s fr: exit %d", c.name, code)
		}
		frenchOK(t, "freeze "+c.name, out)
	}
	file, trust := ruledFreezeReceipt(t, by(wBailiff, before))
	_, out, _ := run(t, append([]string{"freeze", file, "--lang", "fr"}, trust...)...)
	frenchOK(t, "freeze without --witness", out)
	if !strings.Contains(out, "repose sur l'horloge de l'appareil") {
		t.Errorf("fr, no witness:\n%s", out)
	}
}

// TestWitnessCertificate: a certificate's one checkpoint includes the
// freeze and the draw. With --witness it must be cosigned
// (witness-cosignatures); witnessed-before-beacon passes when the
// witnesses cosigned it before the round (they saw the freeze then), and
// is otherwise skipped, naming the freeze receipt: that checkpoint follows
// the draw, hence the round. Without --witness it is skipped, the order
// resting on the appliance's clock.
func TestWitnessCertificate(t *testing.T) {
	value, _ := hex.DecodeString(sig123)
	cert, _, trust := beaconCertificate(t, 123, round123, value)
	b, err := os.ReadFile(cert)
	if err != nil {
		t.Fatal(err)
	}
	cosigned := func(sign func([]byte) []byte) string {
		var c promo.Certificate
		if err := json.Unmarshal(b, &c); err != nil {
			t.Fatal(err)
		}
		c.Checkpoint = string(sign([]byte(c.Checkpoint)))
		return write(t, t.TempDir(), "cert.json", promo.CertificateJSON(&c))
	}
	before, after := round123Time.Add(-time.Second), round123Time.Add(time.Hour)
	for _, c := range []struct {
		name, file string
		args       []string
		code       int
		want       []string
	}{
		{"no witness", cert, nil, ExitOK, []string{"[skip] witnessed-before-beacon freeze witnessed before the beacon — no witness given (--witness)"}},
		{"before", cosigned(by(wBailiff, before)), []string{"--witness", wBailiff.VKey}, ExitOK, []string{
			"[PASS] witness-cosignatures", "[PASS] witnessed-before-beacon freeze witnessed before the beacon — the freeze was witnessed at 2023-08-23T15:15:32Z, before"}},
		{"after", cosigned(by(wBailiff, after)), []string{"--witness", wBailiff.VKey}, ExitOK, []string{
			"[PASS] witness-cosignatures", "[skip] witnessed-before-beacon freeze witnessed before the beacon — the certificate's checkpoint (size 4), its only one, includes the draw: witnessed at 2023-08-23T16:15:33Z, not before drand quicknet (52db9ba7…) round 123 at 2023-08-23T15:15:33Z; the freeze receipt's checkpoint shows the order (rngverify freeze --witness)"}},
		{"not cosigned", cert, []string{"--witness", wBailiff.VKey}, ExitFail, []string{
			"[FAIL] witness-cosignatures", "missing: " + witnessName(wBailiff), "[skip] witnessed-before-beacon freeze witnessed before the beacon — not reached"}},
	} {
		code, out, errs := run(t, append(append([]string{"certificate", c.file}, trust...), c.args...)...)
		if code != c.code {
			t.Errorf("%s: exit %d, want %d\n%s%s", c.name, code, c.code, out, errs)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("%s: no %q in\n%s", c.name, w, out)
			}
		}
		_, out, _ = run(t, append(append([]string{"certificate", c.file, "--lang", "fr"}, trust...), c.args...)...)
		frenchOK(t, "certificate "+c.name, out)
	}
}

// TestWitnessReceiptAndLog: a receipt's and a game transcript's
// checkpoint, and the log's (rngverify log, audit), must be cosigned too;
// a log checkpoint that is not is not recorded in the state.
func TestWitnessReceiptAndLog(t *testing.T) {
	dir := t.TempDir()
	a := newAppliance(t, 14)
	g := playGame(t, a, receipttest.Play{Game: "g-1"})
	key := write(t, dir, "log.vkey", a.LogKeyFile())
	t1 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	cosign := func(doc []byte) []byte {
		var m map[string]any
		if err := json.Unmarshal(doc, &m); err != nil {
			t.Fatal(err)
		}
		m["checkpoint"] = string(wBailiff.Cosign([]byte(m["checkpoint"].(string)), t1))
		return must(json.Marshal(m))
	}
	rcpt := a.Receipt(g, 0, true)
	tr := a.Transcript(g, receipttest.TranscriptOptions{})
	for _, c := range []struct {
		cmd  string
		doc  []byte
		code int
		want string
	}{
		{"receipt", rcpt, ExitFail, "[FAIL] witness-cosignatures"},
		{"receipt", cosign(rcpt), ExitOK, "[PASS] witness-cosignatures"},
		{"game", tr, ExitFail, "[FAIL] witness-cosignatures"},
		{"game", cosign(tr), ExitOK, "[PASS] witness-cosignatures"},
	} {
		f := write(t, t.TempDir(), "doc.json", c.doc)
		code, out, errs := run(t, c.cmd, f, "--log-key", key, "--pin", a.VRFPin(), "--witness", wBailiff.VKey)
		if code != c.code || !strings.Contains(out, c.want) || !strings.Contains(out, "checkpoint of size") {
			t.Errorf("%s: exit %d, want %d and %q\n%s%s", c.cmd, code, c.code, c.want, out, errs)
		}
	}

	tiles := filepath.Join(dir, "tiles")
	writeTiles(t, tiles, a)
	state := filepath.Join(dir, "state.json")
	for _, cmd := range []string{"log", "audit"} {
		code, out, errs := run(t, cmd, "--dir", tiles, "--state", state, "--log-key", key, "--pin", a.VRFPin(), "--witness", wBailiff.VKey, "--quiet")
		if code != ExitFail || !strings.Contains(out, "[FAIL] witness-cosignatures") || !strings.Contains(errs, "check witness-cosignatures") {
			t.Fatalf("%s, not cosigned: exit %d\n%s%s", cmd, code, out, errs)
		}
		if _, err := os.Stat(state); !os.IsNotExist(err) {
			t.Fatalf("%s: a checkpoint not witnessed was recorded in the state (%v)", cmd, err)
		}
	}
	write(t, tiles, "checkpoint", wBailiff.Cosign(a.Checkpoint(), t1))
	for _, cmd := range []string{"log", "audit"} {
		code, out, errs := run(t, cmd, "--dir", tiles, "--state", state, "--log-key", key, "--pin", a.VRFPin(), "--witness", wBailiff.VKey, "--quiet")
		if code != ExitOK || !strings.Contains(out, "[PASS] witness-cosignatures") || !strings.Contains(out, witnessName(wBailiff)+" at 2026-12-01T10:00:00Z") {
			t.Fatalf("%s, cosigned: exit %d\n%s%s", cmd, code, out, errs)
		}
	}
}

// TestWitnessOneKeyTwoNames: a cosignature does not sign the witness's
// name, so a witness's key given under two names would count one
// cosignature twice towards the quorum (anyone can copy the line under
// the other name): refused as a usage error naming both, from flags or a
// file; the same key spelt twice (upper-case key ID) counts once.
func TestWitnessOneKeyTwoNames(t *testing.T) {
	file, _, lk := freezeReceiptFixture(t)
	alias := wBailiff.Alias("alias.test")
	t1 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	doubled := cosignFreeze(t, file, "doubled.json", func(note []byte) []byte {
		return receipttest.Relabel(wBailiff.Cosign(note, t1), wBailiff, alias)
	})
	dir := t.TempDir()
	both := write(t, dir, "both.vkey", []byte(wBailiff.VKey+"\n"+alias.VKey+"\n"))
	want := "witness keys " + witnessName(wBailiff) + " and " + witnessName(alias) + " are one key under two names"
	for _, args := range [][]string{
		{"--witness", wBailiff.VKey, "--witness", alias.VKey},
		{"--witness", wBailiff.VKey, "--witness", alias.VKey, "--witness-quorum", "2"},
		{"--witness", both},
	} {
		code, out, errs := run(t, append([]string{"freeze", doubled, "--pin", lk.Fingerprint()}, args...)...)
		if code != ExitUsage || out != "" || !strings.Contains(errs, "rngverify freeze: --witness") || !strings.Contains(errs, want) || strings.Count(errs, "\n") != 1 {
			t.Errorf("%q: exit %d\n%s%s", args, code, out, errs)
		}
	}
	code, _, errs := run(t, "freeze", doubled, "--pin", lk.Fingerprint(), "--witness", wBailiff.VKey, "--witness", alias.VKey, "--lang", "fr")
	if code != ExitUsage || !strings.Contains(errs, "sont une même clé sous deux noms") {
		t.Errorf("fr: exit %d %s", code, errs)
	}
	// One key, one name, the key ID in upper case: one witness.
	name, rest, _ := strings.Cut(wBailiff.VKey, "+")
	id, key, _ := strings.Cut(rest, "+")
	upper := name + "+" + strings.ToUpper(id) + "+" + key
	code, out, errs := run(t, "freeze", doubled, "--pin", lk.Fingerprint(), "--witness", wBailiff.VKey, "--witness", upper)
	if code != ExitOK || !strings.Contains(out, "cosigned by 1 of 1 witness(es) (quorum 1)") {
		t.Errorf("upper-case key ID: exit %d\n%s%s", code, out, errs)
	}
}
