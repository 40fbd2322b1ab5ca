package rngd

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"tirage.fr/tirage/hsm/keystore"
	adminv1 "tirage.fr/tirage/rngd/api/tirage/admin/v1"
	qodv1 "tirage.fr/tirage/rngd/api/tirage/qod/v1"
	"tirage.fr/tirage/transparency/checkpoint"
	"tirage.fr/tirage/transparency/witness"
	"tirage.fr/tirage/transparency/witness/witnesstest"
	vcheckpoint "tirage.fr/tirage/verifier/checkpoint"
	"tirage.fr/tirage/verifier/receipt"
	"tirage.fr/tirage/verifier/vrf"
)

// rngd with log.witness_policy: the banner names the witness, the
// checkpoints in a game's receipts and at /log/checkpoint carry its
// cosignature, and /metrics counts what it did. The witness is a real one
// (transparency/witness, what rngctl witness serve runs) on loopback. Both
// backends: the embedded log's checkpoints are sent to the witness by
// tessera, Trillian's by rngd (transparency/trillian, witness.go).
func TestWitnessedReceipts(t *testing.T) {
	t.Run("tessera", func(t *testing.T) { testWitnessedReceipts(t, false) })
	t.Run("trillian", func(t *testing.T) { testWitnessedReceipts(t, true) })
}

func testWitnessedReceipts(t *testing.T, useTrillian bool) {
	// The witness is told the daemon's log key, read from the keystore
	// newTestDaemon made, before the daemon starts: a new log publishes
	// its first checkpoint through the witnesses.
	var banner bytes.Buffer
	var addr string
	var tree int64
	if useTrillian {
		addr, tree = trillianTree(t)
	}
	var tw *witnesstest.Witness
	td := newTestDaemon(t, func(c *Config) {
		if useTrillian {
			c.Log.Backend, c.Log.TrillianAddress, c.Log.TrillianTreeID, c.Log.TrillianPlaintext = "trillian", addr, tree, true
		}
		c.Banner = &banner
	}, withWitness(t, &tw))
	defer td.stop()
	vkey := tw.VKey
	if !strings.Contains(banner.String(), "witnesses     bailiff.test/witness "+tw.URL+"/add-checkpoint") {
		t.Errorf("banner does not name the witness:\n%s", banner.String())
	}
	codes := td.emission("W1", "2026-12-31", 1)
	c := td.client("server-a")
	g := start(t, c, codes[0]).Game
	var rs *qodv1.GetReceiptsResponse
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
		var err error
		if rs, err = c.GetReceipts(context.Background(), &qodv1.GetReceiptsRequest{GameId: g.GameId}); err != nil {
			t.Fatal(err)
		}
		if len(rs.Receipts) > 0 && len(rs.Receipts[0].GetCheckpoint()) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no checkpoint covers the game's start after a minute")
		}
	}
	tw.CosignedAt(t, rs.Receipts[0].GetCheckpoint()) // the receipt's checkpoint
	// The verifier's code (rngverify --witness) accepts the game's
	// transcript with the witness required, and refuses it with another
	// witness required.
	g = playUntil(t, c, g, func(*qodv1.Game) bool { return false })
	logKeys, err := vcheckpoint.ParseKeys(strings.Join(td.d.engine.tlog.VerifierKeys(), "\n"))
	if err != nil {
		t.Fatal(err)
	}
	pk, _ := vrf.ParsePublicKey(td.d.engine.suite, td.d.engine.pub)
	wk, err := vcheckpoint.ParseWitness(vkey)
	if err != nil {
		t.Fatal(err)
	}
	_, otherVKey, err := witness.GenerateKey("bailiff.test/witness")
	if err != nil {
		t.Fatal(err)
	}
	other, err := vcheckpoint.ParseWitness(otherVKey)
	if err != nil {
		t.Fatal(err)
	}
	anchors := func(w *vcheckpoint.Witness) receipt.Anchors {
		return receipt.Anchors{LogKeys: logKeys, VRFKeys: []*vrf.PublicKey{pk}, Location: td.d.engine.loc, Witnesses: []*vcheckpoint.Witness{w}}
	}
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
		tr, err := c.GetTranscript(context.Background(), &qodv1.GetTranscriptRequest{GameId: g.GameId})
		if err != nil {
			t.Fatal(err)
		}
		v := receipt.VerifyTranscript(tr.Document, anchors(wk))
		if v.Err() != nil {
			if time.Now().Before(deadline) {
				continue // the game's end not yet in a checkpoint, on a loaded machine
			}
			t.Fatalf("transcript with the witness required: %v\n%s", v.Err(), v.Text("en"))
		}
		if !strings.Contains(v.Text("en"), "witness-cosignatures") {
			t.Fatalf("the verdict does not report the witness check:\n%s", v.Text("en"))
		}
		if v := receipt.VerifyTranscript(tr.Document, anchors(other)); v.Err() == nil {
			t.Fatalf("transcript passed with a witness that never cosigned required:\n%s", v.Text("en"))
		}
		break
	}

	resp, err := http.Get("http://" + td.d.Addrs().HTTP + "/log/checkpoint")
	if err != nil {
		t.Fatal(err)
	}
	cp, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	tw.CosignedAt(t, cp) // /log/checkpoint
	// rngctl qod status's source: the witness, and that it cosigned.
	st, err := td.admin().Status(context.Background(), &adminv1.StatusRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Witnesses) != 1 || st.Witnesses[0].Name != "bailiff.test/witness" || st.Witnesses[0].Url != tw.URL+"/add-checkpoint" ||
		st.Witnesses[0].Cosignatures == 0 || st.Witnesses[0].LastCosigned == nil {
		t.Errorf("Status witnesses = %v, want bailiff.test/witness with its cosignatures", st.Witnesses)
	}
	m := scrape(t, td)
	if l := grepLines(m, `tirage_log_witness_cosignatures_total{url="`+tw.URL+`/add-checkpoint",witness="bailiff.test/witness"}`); l == "" || strings.HasSuffix(l, " 0") {
		t.Errorf("/metrics: %q, want the witness's cosignatures counted", grepLines(m, "tirage_log_witness"))
	}
	if l := grepLines(m, "tirage_log_witness_last_cosignature_timestamp_seconds{"); l == "" {
		t.Errorf("/metrics has no time of the last cosignature:\n%s", grepLines(m, "tirage_log_witness"))
	}
	if l := grepLines(m, `tirage_log_witness_called_off_total{url="`+tw.URL+`/add-checkpoint",witness="bailiff.test/witness"}`); l == "" {
		t.Errorf("/metrics has no count of the requests called off:\n%s", grepLines(m, "tirage_log_witness"))
	}
}

// withWitness is a newTestDaemon option: a test witness of the daemon's
// log (told the log key the keystore newTestDaemon made holds, before the
// daemon starts: a new log publishes its first checkpoint through the
// witnesses), as log.witness_policy's quorum; *tw is the witness.
func withWitness(t testing.TB, tw **witnesstest.Witness) func(*Config) {
	return func(c *Config) {
		if c.Log.Origin == "" {
			c.Log.Origin = devOrigin
		}
		ks, err := keystore.Open(keystore.Config{Dir: filepath.Join(c.DataDir, "keys"), Passphrase: []byte(testPassphrase), KDF: testKDF})
		if err != nil {
			t.Fatal(err)
		}
		defer ks.Close()
		label := c.Keys.SignerLabel
		if label == "" {
			label = "log" // keys.signer_label's default
		}
		s, err := ks.Signer(label)
		if err != nil {
			t.Fatal(err)
		}
		logKey, err := checkpoint.VerifierKey(c.Log.Origin, s.Public())
		if err != nil {
			t.Fatal(err)
		}
		*tw = witnesstest.Start(t, "bailiff.test/witness", []string{logKey})
		c.Log.WitnessPolicy = filepath.Join(t.TempDir(), "witnesses.policy")
		if err := os.WriteFile(c.Log.WitnessPolicy, (*tw).Policy("bailiff"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
