package ctl

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tirage.fr/tirage/hsm/keystore"
	"tirage.fr/tirage/transparency/checkpoint"
	"tirage.fr/tirage/transparency/witness"
	"tirage.fr/tirage/transparency/witness/witnesstest"
	"tirage.fr/tirage/verifier/cli"
)

// futureRound is a drand quicknet round published in 2027 (quicknet: a
// round every 3 s from 2023-08-23T15:09:27Z), so after any witness's
// cosignature made today.
const futureRound = "40000000"

// The trusted time of a promotion freeze, end to end: rngctl promo freeze
// --witness-policy logs the freeze on a log whose checkpoints a real
// witness (transparency/witness, what rngctl witness serve runs) cosigns;
// the freeze receipt's checkpoint carries the witness's time, and
// rngverify freeze --witness finds it before the announced beacon round
// (witnessed-before-beacon): the entrants and the bailiff's share
// commitment were fixed before the beacon, by a clock that is not the
// appliance's. Without --witness the same receipt passes with the check
// skipped, naming the appliance's clock; with a witness that never
// cosigned, it fails.
func TestPromoFreezeWitnessed(t *testing.T) {
	dir, keysDir, pass := promoCeremonySetup(t)
	const origin = "tirage.test/ctl"
	src, _ := os.ReadFile(exampleRules)
	rules := filepath.Join(dir, "rules.yaml")
	os.WriteFile(rules, bytes.Replace(src, []byte("    reserves: 3\n"), []byte("    reserves: 3\n    beacon: {source: \"drand quicknet\", chain: quicknet, round: "+futureRound+"}\n"), 1), 0o644)
	stakes, out := filepath.Join(dir, "stakes.csv"), filepath.Join(dir, "out")
	if code, _, errs := promoRun("", "gen", "--rules", rules, "--rows", "2000", "--out", stakes); code != ExitOK {
		t.Fatalf("gen: %s", errs)
	}

	// The witness knows the log's key: the one rngctl keys init made.
	ks, err := keystore.Open(keystore.Config{Dir: keysDir, Passphrase: []byte("ceremony passphrase")})
	if err != nil {
		t.Fatal(err)
	}
	s, err := ks.Signer("log")
	if err != nil {
		t.Fatal(err)
	}
	logVKey, err := checkpoint.VerifierKey(origin, s.Public())
	ks.Close()
	if err != nil {
		t.Fatal(err)
	}
	tw := witnesstest.Start(t, "huissier.test/witness", []string{logVKey})
	vkey := tw.VKey
	policy := filepath.Join(dir, "witnesses.policy")
	os.WriteFile(policy, tw.Policy("huissier"), 0o644)

	var cout, cerr bytes.Buffer
	if c := cli.Run(cli.Env{Args: []string{"share-commitment", "--draw", "bonus-crescendo/1"}, Stdin: strings.NewReader("Maître Dupont, huissier\n"), Stdout: &cout, Stderr: &cerr}); c != cli.ExitOK {
		t.Fatalf("rngverify share-commitment: exit %d %s", c, cerr.String())
	}
	committed := strings.TrimSpace(cout.String())
	common := []string{"--data", filepath.Join(dir, "data"), "--origin", origin, "--backend", "software", "--allow-software", "--keys", keysDir, "--passphrase-file", pass}
	freeze := append([]string{"freeze", "--rules", rules, "--stakes", stakes, "--out", out, "--quiet", "--draw", "1", "--share-commitment", committed}, common...)
	if code, _, errs := promoRun("", append(append([]string{}, freeze...), "--witness-policy", filepath.Join(dir, "none.policy"))...); code != ExitUsage || !strings.Contains(errs, "--witness-policy "+filepath.Join(dir, "none.policy")) {
		t.Fatalf("freeze with a missing policy file: exit %d %s", code, errs)
	}
	if code, _, errs := promoRun("", append(freeze, "--witness-policy", policy)...); code != ExitOK {
		t.Fatalf("freeze: exit %d %s", code, errs)
	}
	receipt := filepath.Join(out, "bonus-crescendo-1-receipt.json")
	verify := func(extra ...string) (int, string) {
		var vout, verr bytes.Buffer
		c := cli.Run(cli.Env{Args: append([]string{"freeze", receipt, "--log-key", logVKey}, extra...), Stdout: &vout, Stderr: &verr})
		return c, vout.String() + verr.String()
	}
	if c, o := verify("--witness", vkey); c != cli.ExitOK || !strings.Contains(o, "[PASS] witnessed-before-beacon") || !strings.Contains(o, "round "+futureRound) {
		t.Fatalf("rngverify freeze --witness: exit %d\n%s", c, o)
	}
	if c, o := verify(); c != cli.ExitOK || !strings.Contains(o, "[skip] witnessed-before-beacon") {
		t.Fatalf("rngverify freeze without --witness: exit %d\n%s", c, o)
	}
	_, other, err := witness.GenerateKey("auditeur.test/witness")
	if err != nil {
		t.Fatal(err)
	}
	if c, o := verify("--witness", other); c == cli.ExitOK || !strings.Contains(o, "[FAIL] witness-cosignatures") {
		t.Fatalf("rngverify freeze with a witness that never cosigned: exit %d\n%s", c, o)
	}
}

// rngctl promo --witness-policy reads the policy with rngd's
// log.witness_policy checks (witnesspolicy.Read): a policy group or others
// may write, one readable by them holding credentials, or one in a
// directory they may write, is refused before the keys are opened, with
// the flag named and the secret not shown.
func TestPromoWitnessPolicyChecks(t *testing.T) {
	dir, keysDir, pass := promoCeremonySetup(t)
	stakes := filepath.Join(dir, "stakes.csv")
	if code, _, errs := promoRun("", "gen", "--rules", exampleRules, "--rows", "200", "--out", stakes); code != ExitOK {
		t.Fatalf("gen: %s", errs)
	}
	_, vkey, err := witness.GenerateKey("huissier.test/witness")
	if err != nil {
		t.Fatal(err)
	}
	policy := func(sub, url string, mode, dirMode os.FileMode) string {
		d := filepath.Join(dir, sub)
		os.Mkdir(d, 0o700)
		p := filepath.Join(d, "witnesses.policy")
		if err := os.WriteFile(p, []byte("witness huissier "+vkey+" "+url+"\nquorum huissier\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		os.Chmod(p, mode)
		os.Chmod(d, dirMode)
		t.Cleanup(func() { os.Chmod(d, 0o700) })
		return p
	}
	for _, tc := range []struct {
		name string
		p    string
		want string
	}{
		{"group-writable", policy("a", "http://127.0.0.1:1", 0o664, 0o755), ": it has mode 0664: writable by group or others"},
		{"credentials readable", policy("b", "https://bastion:s3cret@127.0.0.1:1", 0o644, 0o755), ": it has mode 0644: readable by group or others, and witness huissier's URL holds credentials: chmod 600 it"},
		{"open directory", policy("c", "http://127.0.0.1:1", 0o644, 0o777), ": its directory " + filepath.Join(dir, "c") + " has mode 0777: writable by group or others"},
	} {
		code, _, errs := promoRun("", "freeze", "--rules", exampleRules, "--stakes", stakes, "--out", filepath.Join(dir, "out-"+tc.name), "--quiet", "--draw", "1",
			"--data", filepath.Join(dir, "data"), "--origin", "tirage.test/ctl", "--backend", "software", "--allow-software", "--keys", keysDir, "--passphrase-file", pass,
			"--witness-policy", tc.p)
		if code != ExitUsage || !strings.Contains(errs, "--witness-policy "+tc.p+tc.want) || strings.Contains(errs, "s3cret") {
			t.Errorf("%s: exit %d %s; want %q", tc.name, code, errs, tc.want)
		}
	}
}
