package web_test

import (
	"regexp"
	"strings"
	"testing"
)

// TestPageNamesEntrantProof: the page's introduction and its documents
// zone name a player's entrant proof among what it checks, in English
// and French, since a player told to check their proof on the page
// reads these to know where to drop it.
func TestPageNamesEntrantProof(t *testing.T) {
	html := string(readFile(t, "static/index.html"))
	for _, key := range []string{"intro", "drop"} {
		texts := regexp.MustCompile(`[ {]`+key+`: "([^"]*)"`).FindAllStringSubmatch(html, -1)
		if len(texts) != 2 {
			t.Fatalf("index.html: %d texts %q, want 2 (fr, en)", len(texts), key)
		}
		for _, m := range texts {
			if !strings.Contains(m[1], "entrant proof") && !strings.Contains(m[1], "preuve de participation") {
				t.Errorf("index.html %s: %q names no entrant proof", key, m[1])
			}
		}
	}
}
