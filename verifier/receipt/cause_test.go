package receipt

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"tirage.fr/tirage/verifier/checkpoint"
	"tirage.fr/tirage/verifier/qod"
	"tirage.fr/tirage/verifier/verdict"
	"tirage.fr/tirage/verifier/vrf"
)

// TestCause: an error keeps its English text, and reads in French as far
// as the catalog knows it: errors built from the catalog entirely, known
// sentinels by name with the English text as a labelled detail when it says
// more, anything else as a labelled English detail.
func TestCause(t *testing.T) {
	second := func(_ any, err error) error { return err }
	sk, err := vrf.GenerateKey(vrf.SuiteP256SSWU, nil)
	if err != nil {
		t.Fatal(err)
	}
	pk := sk.Public()
	for _, tc := range []struct {
		err error
		fr  string
	}{
		{verdict.Errorf(verdict.MsgAlphaNotPick), "α n'est pas l'entrée d'une sélection"},
		{fmt.Errorf("receipt: %w", verdict.Errorf(verdict.MsgPickIndexRange, 31)),
			"index 31 hors de 0..29 (détail technique, en anglais : « receipt: index 31 out of 0..29 »)"},
		{vrf.ErrInvalidProof, "preuve invalide (détail technique, en anglais : « vrf: invalid proof »)"},
		{checkpoint.ErrFork, "bifurcation du journal (manquement)"},
		{fmt.Errorf("record 3: %w: %w", qod.ErrNumberPicked, qod.ErrTranscript),
			"numéro déjà sélectionné (détail technique, en anglais : « record 3: number already picked: game transcript violates the rules »)"},
		{fmt.Errorf("two checkpoints of size 5 with different roots: %w", checkpoint.ErrFork),
			"bifurcation du journal (manquement) (détail technique, en anglais : « two checkpoints of size 5 with different roots: log fork: misbehaviour »)"},
		{errInclusion, "la preuve d'inclusion ne mène pas à la racine de l'arbre signé"},
		{errors.New("unexpected EOF"), "erreur technique (en anglais) : « unexpected EOF »"},
		// Package vrf's reasons, with its "vrf: " prefix.
		{second(vrf.ParsePublicKey(vrf.SuiteP256SSWU, []byte{2})), "la clé publique a 1 octets au lieu des 33 d'un point compressé"},
		{second(vrf.Verify(pk, nil, make([]byte, 80))), "la preuve fait 80 octets au lieu de 81"},
		{second(vrf.ParseSuite("X")), "suite VRF « X » inconnue (ECVRF-P256-SHA256-SSWU, ECVRF-P256-SHA256-TAI ou RSA-FDH-VRF-SHA256 attendue)"},
	} {
		m := Cause(tc.err)
		if en := m.Text("en"); en != tc.err.Error() {
			t.Errorf("%v: English %q, want the error's text", tc.err, en)
		}
		if fr := m.Text("fr"); fr != tc.fr {
			t.Errorf("%v: French %q, want %q", tc.err, fr, tc.fr)
		}
	}
	if m := vrfCause(vrf.ErrInvalidProof); m.Text("en") != "invalid proof" || m.Text("fr") != "preuve invalide" {
		t.Errorf("vrfCause: %q %q", m.Text("en"), m.Text("fr"))
	}
	if errInclusion == nil || errInclusion.Error() != "invalid transparency proof" {
		t.Errorf("tlog's inclusion error: %v", errInclusion)
	}
}

// TestCauseCatalog: the catalog's English for each sentinel is the
// sentinel's own text, so that a bare sentinel reads in French alone.
func TestCauseCatalog(t *testing.T) {
	for _, c := range causes {
		text := strings.TrimPrefix(c.err.Error(), "vrf: ")
		if m := CauseText(c.err, text); m.ID != c.id {
			t.Errorf("%v: the catalog's English for %s is %q", c.err, c.id, verdict.M(c.id).Text("en"))
		}
	}
}
