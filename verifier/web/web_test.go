package web_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"tirage.fr/tirage/verifier/web"
)

// TestVerify runs the page's logic without a browser on the same documents
// as TestBrowserPage.
func TestVerify(t *testing.T) {
	paths := documents(t, t.TempDir())
	var files []web.File
	for k, p := range paths {
		if k == "pin" {
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, web.File{Name: filepath.Base(p), Data: b})
	}
	var docs []struct {
		File    string `json:"file"`
		Verdict string `json:"verdict"`
		Summary string `json:"summary"`
		Checks  []struct {
			Name, Status, Title, Explanation string
		} `json:"checks"`
	}
	if err := json.Unmarshal(web.Render(web.Verify(files, paths["pin"]), "en"), &docs); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"game.json": "pass", "game-tampered.json": "misbehaviour", "receipt.json": "pass",
		"certificate.json": "pass", "certificate-tampered.json": "misbehaviour", "junk.txt": "fail"}
	if len(docs) != len(want) {
		t.Errorf("%d documents, want %d", len(docs), len(want))
	}
	for _, d := range docs {
		if want[d.File] != d.Verdict {
			t.Errorf("%s: %s, want %s: %s", d.File, d.Verdict, want[d.File], d.Summary)
		}
		for _, c := range d.Checks {
			if c.Title == "" || (c.Explanation == "" && c.Name != "format") {
				t.Errorf("%s: check %s has no title or explanation", d.File, c.Name)
			}
		}
	}
	// Without the key file and pin, nothing is trusted.
	var bare []web.File
	for _, f := range files {
		if f.Name != "log.vkey" {
			bare = append(bare, f)
		}
	}
	for _, r := range web.Verify(bare, "") {
		if r.Verdict.Status() == "pass" {
			t.Errorf("%s passed without any trust anchor", r.File)
		}
	}
}
