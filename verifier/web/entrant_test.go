package web_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"tirage.fr/tirage/verifier/promo"
	"tirage.fr/tirage/verifier/verdict"
	"tirage.fr/tirage/verifier/web"
)

// TestEntrantProofOnPage: a player's entrant proof dropped on the page is
// recognised and verified as rngverify entrant verifies it (its --json
// verdict, byte for byte), and fails entrant-inclusion with its salt
// changed.
func TestEntrantProofOnPage(t *testing.T) {
	file := readFile(t, "../promo/testdata/entrant-proof.json")
	var p promo.EntrantProof
	if err := json.Unmarshal(file, &p); err != nil {
		t.Fatal(err)
	}
	var rc promo.FreezeReceipt
	if err := json.Unmarshal(p.FreezeReceipt, &rc); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	vkey := []byte(rc.LogKeys[0] + "\n")
	vkeyPath := filepath.Join(dir, "promo.vkey")
	os.WriteFile(vkeyPath, vkey, 0o644)
	path := filepath.Join(dir, "proof.json")
	os.WriteFile(path, file, 0o644)
	q := p
	q.Salt = "00" + p.Salt[2:]
	bad := promo.EntrantProofJSON(&q)
	badPath := filepath.Join(dir, "bad.json")
	os.WriteFile(badPath, bad, 0o644)
	trusted := []web.File{{Name: "promo.vkey", Data: vkey}}
	for _, c := range []pageCase{
		{name: "entrant proof", docs: []web.File{{Name: path, Data: file}}, anchors: trusted, doc: path,
			args: []string{"entrant", path, "--log-key", vkeyPath}, status: verdict.StatusPass, check: promo.CheckEntrantInclusion, checkIs: "pass"},
		{name: "salt changed", docs: []web.File{{Name: badPath, Data: bad}}, anchors: trusted, doc: badPath,
			args: []string{"entrant", badPath, "--log-key", vkeyPath}, status: verdict.StatusFail, check: promo.CheckEntrantInclusion, checkIs: "fail"},
	} {
		r := c.run(t)
		if c.status == verdict.StatusPass && !bytes.Contains([]byte(r.Verdict.Text("fr")), []byte("pseudonyme")) {
			t.Errorf("%s: no pseudonym in French\n%s", c.name, r.Verdict.Text("fr"))
		}
	}
}
