package promo

import "testing"

// The same letters typed as one character or as a letter and a combining
// mark are one share, with one commitment: the bailiff's terminal at the
// ceremony need not be the one the commitment was computed on.
func TestShareFromTextNFC(t *testing.T) {
	composed, err := ShareFromText("le maître du jeu")
	if err != nil {
		t.Fatal(err)
	}
	decomposed, err := ShareFromText("le mai\u0302tre du jeu")
	if err != nil {
		t.Fatal(err)
	}
	if composed != decomposed || ShareCommitment("bonus-crescendo/1", composed) != ShareCommitment("bonus-crescendo/1", decomposed) {
		t.Errorf("composed %q and decomposed %q are two shares", composed, decomposed)
	}
	if composed != "text:le maître du jeu" {
		t.Errorf("share %q, want the composed form", composed)
	}
}
