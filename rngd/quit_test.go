package rngd

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	adminv1 "tirage.fr/tirage/rngd/api/tirage/admin/v1"
	qodv1 "tirage.fr/tirage/rngd/api/tirage/qod/v1"
	"tirage.fr/tirage/transparency"
	vcheckpoint "tirage.fr/tirage/verifier/checkpoint"
	"tirage.fr/tirage/verifier/receipt"
	"tirage.fr/tirage/verifier/record"
	"tirage.fr/tirage/verifier/verdict"
)

// quitCode quits code as game server c, under request id reqID.
func quitCode(c qodv1.QuitteOuDoubleClient, reqID, code string) (*qodv1.QuitResponse, error) {
	return c.Quit(context.Background(), &qodv1.QuitRequest{RequestId: reqID, Code: code})
}

// logged is the log's leaf at index i, read from the log itself.
func logged(t *testing.T, td *testDaemon, i uint64) []byte {
	t.Helper()
	ctx := context.Background()
	cp, err := td.d.engine.tlog.AwaitCheckpoint(ctx, i+1)
	if err != nil {
		t.Fatal(err)
	}
	leaves, err := td.d.engine.tlog.Entries(ctx, i, i+1, cp.Size)
	if err != nil || len(leaves) != 1 {
		t.Fatalf("log entry %d: %d leaves, %v", i, len(leaves), err)
	}
	return leaves[0]
}

// TestQuit: the player's QUITTER (art. 2.2.3) end to end, over real gRPC
// against the real daemon. A quit is sealed in the log as a ticket_quit
// record (the ticket hash, emission, S from the manifest, time, the game
// server) before its reply, whose receipt verifies; a retry with the same
// request id gets the same reply; the ticket then never starts
// (TICKET_QUIT), for any game server, and is quit once (TICKET_QUIT); a
// ticket started is never quit (TICKET_STARTED). Nothing of it changes
// across a restart, a rebuild from the log, or a lost state store, and
// the log passes the audit.
func TestQuit(t *testing.T) {
	td := newTestDaemon(t)
	codes, tickets := DemoTickets("QT", []byte("test seed"), 10)
	td.emission("QT", "2026-12-31", 10)
	a, b := td.client("server-a"), td.client("server-b")
	ctx := context.Background()

	reqID := rid()
	first, err := quitCode(a, reqID, codes[1])
	if err != nil {
		t.Fatal(err)
	}
	if first.EmissionId != "QT" || first.StakeCents != tickets[1].StakeCents || !first.QuitAt.AsTime().Equal(td.clock.Now().Truncate(time.Second)) {
		t.Fatalf("quit reply %v, want emission QT, S = %d cents, now", first, tickets[1].StakeCents)
	}
	// The record, as the log holds it: the ticket_quit of this ticket, its
	// S and emission from the manifest, the calling game server, and the
	// call's request identity.
	r := first.Receipt
	if !bytes.Equal(logged(t, td, r.LogIndex), r.Record) {
		t.Fatalf("the receipt's record is not the log's leaf %d", r.LogIndex)
	}
	rec, err := record.Parse(r.Record)
	if err != nil {
		t.Fatal(err)
	}
	q, ok := rec.(*record.TicketQuit)
	if !ok || q.Ticket != tickets[1].TicketHash || q.Stake != tickets[1].StakeCents || q.Emission != "QT" || q.Server != "server-a" ||
		q.Req != record.RequestID("server-a", reqID) || !q.Time.Equal(first.QuitAt.AsTime()) {
		t.Fatalf("the sealed record: %s", r.Record)
	}
	if len(r.VrfProof) > 0 || r.VrfKeyId != "" {
		t.Fatalf("a quit draws nothing, its receipt shows a proof: %v", r)
	}
	if v, err := VerifyQuitReceipt(r, td.d.engine.tlog.VerifierKeys()[0]); err != nil || v.Quit.Ticket != q.Ticket {
		t.Fatalf("quit receipt: %+v %v", v, err)
	}

	// A retry: the same reply, nothing sealed again.
	size := td.d.engine.tlog.(transparency.Sequencer).Sequenced()
	again, err := quitCode(a, reqID, codes[1])
	if err != nil || !proto.Equal(again, first) {
		t.Fatalf("retry: %v %v, want %v", again, err, first)
	}
	// The same request id with the code spelled otherwise is other content.
	_, err = quitCode(a, reqID, strings.ToLower(codes[1]))
	wantRefusal(t, err, reasonRequestIDReused, "request_id")

	// Quit once; never started, by any game server.
	_, err = quitCode(a, rid(), codes[1])
	wantRefusal(t, err, reasonTicketQuit, "code: ticket quit")
	_, err = quitCode(b, rid(), codes[1])
	wantRefusal(t, err, reasonTicketQuit, "code: ticket quit")
	for _, c := range []qodv1.QuitteOuDoubleClient{a, b} {
		_, err = c.StartGame(ctx, &qodv1.StartGameRequest{RequestId: rid(), Code: codes[1]})
		wantRefusal(t, err, reasonTicketQuit, "code: ticket quit")
	}
	if now := td.d.engine.tlog.(transparency.Sequencer).Sequenced(); now != size {
		t.Fatalf("refused calls and a retry sealed %d records", now-size)
	}

	// A ticket started, whatever its game became, is never quit: CONTINUER
	// is irrevocable.
	g := start(t, a, codes[2]).Game
	for _, c := range []qodv1.QuitteOuDoubleClient{a, b} {
		_, err = quitCode(c, rid(), codes[2])
		wantRefusal(t, err, reasonTicketStarted, "code: ticket already started stage 2")
	}
	if _, err := td.admin().RefundGame(ctx, &adminv1.RefundGameRequest{RequestId: rid(), GameId: g.GameId, Reason: "test"}); err != nil {
		t.Fatal(err)
	}
	_, err = quitCode(a, rid(), codes[2])
	wantRefusal(t, err, reasonTicketStarted, "code")

	// Malformed and unknown codes, as StartGame.
	_, err = quitCode(a, rid(), "ABC")
	wantRefusal(t, err, reasonCodeInvalid, "code")
	_, err = quitCode(a, rid(), "ZZZZZZZZZZZZZZZZZZ")
	wantRefusal(t, err, reasonUnknownCode, "code")
	_, err = quitCode(a, "", codes[3])
	wantRefusal(t, err, reasonRequestIDInvalid, "request_id")

	// Another game server quits another ticket; both stay quit across a
	// restart, a rebuild from the log and a lost state store, and the
	// retries get their first replies, rebuilt from the log.
	reqB := rid()
	second, err := quitCode(b, reqB, codes[3])
	if err != nil {
		t.Fatal(err)
	}
	stays := func(when string) {
		t.Helper()
		a, b := td.client("server-a"), td.client("server-b")
		for _, c := range []struct {
			c     qodv1.QuitteOuDoubleClient
			id    string
			code  string
			first *qodv1.QuitResponse
		}{{a, reqID, codes[1], first}, {b, reqB, codes[3], second}} {
			if again, err := quitCode(c.c, c.id, c.code); err != nil || !proto.Equal(again, c.first) {
				t.Fatalf("%s: retry %v %v, want %v", when, again, err, c.first)
			}
			_, err := c.c.StartGame(ctx, &qodv1.StartGameRequest{RequestId: rid(), Code: c.code})
			wantRefusal(t, err, reasonTicketQuit, "code: ticket quit")
		}
		_, err := quitCode(a, rid(), codes[2])
		wantRefusal(t, err, reasonTicketStarted, "code")
	}
	stays("before a restart")
	td.restart()
	stays("after a restart")
	td.stop()
	if _, err := Rebuild(ctx, td.cfg); err != nil {
		t.Fatal(err)
	}
	td.start()
	stays("after a rebuild")
	td.stop()
	if err := os.Remove(filepath.Join(td.cfg.DataDir, "state.db")); err != nil {
		t.Fatal(err)
	}
	td.start()
	stays("after losing state.db")

	// The log passes the audit, its quits counted.
	res := auditDaemon(t, td)
	if c := res.Verdict.Find(verdict.CheckRecord); !strings.Contains(c.Detail, "ticket_quit 2") {
		t.Errorf("audit records: %s", c.Detail)
	}

	// QUITTER has no deadline (art. 2.2.4 bounds CONTINUER): past the
	// start deadline a ticket is still quit, and not started.
	td.clock.Advance(70 * 24 * time.Hour) // past 2027-01-30, closure 2026-12-31 + 30 days
	a = td.client("server-a")
	_, err = a.StartGame(ctx, &qodv1.StartGameRequest{RequestId: rid(), Code: codes[4]})
	wantRefusal(t, err, reasonDeadlinePassed, "start deadline passed")
	if _, err := quitCode(a, rid(), codes[4]); err != nil {
		t.Fatalf("quit after the start deadline: %v", err)
	}
}

// A quit cut short after its append reached the log, its commit lost (a
// crash): the daemon's catch-up from the log marks the ticket quit and
// stores the reply, so that the retry gets its first reply and the ticket
// cannot start.
func TestQuitCaughtUpFromLog(t *testing.T) {
	td := newTestDaemon(t)
	codes := td.emission("QC", "2026-12-31", 4)
	state, before := td.snapshotState()
	td.start()
	a := td.client("server-a")
	reqID := rid()
	first, err := quitCode(a, reqID, codes[1])
	if err != nil {
		t.Fatal(err)
	}
	// The store as it was before the quit: the log holds the quit, the
	// store does not.
	td.stop()
	if err := os.WriteFile(state, before, 0o600); err != nil {
		t.Fatal(err)
	}
	td.start()
	a = td.client("server-a")
	if again, err := quitCode(a, reqID, codes[1]); err != nil || !proto.Equal(again, first) {
		t.Fatalf("retry after the catch-up: %v %v, want %v", again, err, first)
	}
	_, err = a.StartGame(context.Background(), &qodv1.StartGameRequest{RequestId: rid(), Code: codes[1]})
	wantRefusal(t, err, reasonTicketQuit, "code: ticket quit")
}

// A quit and a start of one ticket at the same time: exactly one is taken,
// the other refused for it (TICKET_QUIT or TICKET_STARTED), and the log
// holds one record of the ticket. Two quits of two tickets under one
// request id at the same time: one is sealed, the other is refused as a
// reuse of the id (the stored-reply check and the seal are one step per
// request id).
func TestQuitStartRace(t *testing.T) {
	td := newTestDaemon(t)
	const n, rounds = 8, 4
	codes := td.emission("QR", "2026-12-31", n+1+2*rounds)
	a, b := td.client("server-a"), td.client("server-b")
	ctx := context.Background()
	quits := 0
	for i := 1; i <= n; i++ {
		var wg sync.WaitGroup
		var qerr, serr error
		wg.Add(2)
		go func() { defer wg.Done(); _, qerr = quitCode(a, rid(), codes[i]) }()
		go func() {
			defer wg.Done()
			_, serr = b.StartGame(ctx, &qodv1.StartGameRequest{RequestId: rid(), Code: codes[i]})
		}()
		wg.Wait()
		switch {
		case qerr == nil && serr == nil:
			t.Fatalf("ticket %d both quit and started", i)
		case qerr == nil:
			quits++
			wantRefusal(t, serr, reasonTicketQuit, "code")
		case serr == nil:
			wantRefusal(t, qerr, reasonTicketStarted, "code")
		default:
			t.Fatalf("ticket %d: quit %v, start %v", i, qerr, serr)
		}
	}
	for round := range rounds {
		id := rid()
		errs := make([]error, 2)
		var wg sync.WaitGroup
		for i := range 2 {
			wg.Go(func() { _, errs[i] = quitCode(a, id, codes[n+1+2*round+i]) })
		}
		wg.Wait()
		switch {
		case errs[0] == nil && errs[1] == nil:
			t.Fatalf("round %d: two quits under one request id", round)
		case errs[0] == nil:
			wantRefusal(t, errs[1], reasonRequestIDReused, "request_id")
		case errs[1] == nil:
			wantRefusal(t, errs[0], reasonRequestIDReused, "request_id")
		default:
			t.Fatalf("round %d: %v", round, errs)
		}
		quits++
	}
	res := auditDaemon(t, td)
	if c := res.Verdict.Find(verdict.CheckRecord); !regexp.MustCompile(fmt.Sprintf(`\bticket_quit %d\b`, quits)).MatchString(c.Detail) {
		t.Errorf("%d quits taken; the audit counts %s", quits, c.Detail)
	}
}

// A store of format 5 (before ticket quits) or 6 (before the request log)
// opens as format 7 with nothing rebuilt: format 6 only keeps an older rngd
// from reading a quit ticket as one it may start, format 7 one that would
// not find the replies of the request log; the replies an older rngd
// stored stay where it stored them, and are found.
func TestStoreUpgradeFormat5(t *testing.T) {
	for _, format := range []uint64{5, 6} {
		path := filepath.Join(t.TempDir(), "state.db")
		st, err := openStore(path)
		if err != nil {
			t.Fatal(err)
		}
		req := record.RequestID("gs", "older")
		st.db.Update(func(tx *bolt.Tx) error {
			tx.Bucket(bucketMeta).Put(keyApplied, u64(9))
			if err := putLegacyRequest(tx, req, storedRequest{digest: [32]byte{5}, at: 1_700_000_000, reply: []byte("older")}); err != nil {
				return err
			}
			return tx.Bucket(bucketMeta).Put(keyFormat, u64(format))
		})
		st.close()
		if st, err = openStore(path); err != nil {
			t.Fatal(err)
		}
		st.db.View(func(tx *bolt.Tx) error {
			if st.upgraded || appliedCount(tx) != 9 || beUint64(tx.Bucket(bucketMeta).Get(keyFormat)) != storeFormat {
				t.Errorf("format %d: upgraded %v, applied %d, format %x", format, st.upgraded, appliedCount(tx), tx.Bucket(bucketMeta).Get(keyFormat))
			}
			if r, ok, err := st.getRequest(tx, req); !ok || err != nil || string(r.reply) != "older" {
				t.Errorf("format %d: the reply an older rngd stored: %+v %v %v", format, r, ok, err)
			}
			return nil
		})
		st.close()
	}
}

// With log.receipt_wait the Quit reply's receipt, and its retry's, carry
// a checkpoint and the record's inclusion proof; the receipt, as grpcurl
// prints it, passes rngverify receipt (verifier/receipt) with the log key
// as the only anchor.
func TestQuitReceiptWait(t *testing.T) {
	td := newTestDaemon(t, func(c *Config) { c.Log.ReceiptWait = Duration{5 * time.Second} })
	codes := td.emission("QW", "2026-12-31", 3)
	a := td.client("server-a")
	vkey := td.d.engine.tlog.VerifierKeys()[0]
	keys, err := vcheckpoint.ParseKeys(vkey)
	if err != nil {
		t.Fatal(err)
	}
	reqID := rid()
	for _, what := range []string{"first reply", "retry"} {
		reply, err := quitCode(a, reqID, codes[1])
		if err != nil {
			t.Fatal(err)
		}
		v, err := VerifyQuitReceipt(reply.Receipt, vkey)
		if err != nil || v.CheckpointSize <= reply.Receipt.LogIndex {
			t.Fatalf("%s: %+v %v, want the record proven in a checkpoint", what, v, err)
		}
		b, err := protojson.Marshal(reply.Receipt)
		if err != nil {
			t.Fatal(err)
		}
		vd := receipt.VerifyReceipt(b, receipt.Anchors{LogKeys: keys, Location: td.d.engine.loc})
		if vd.Status() != verdict.StatusPass || !strings.Contains(vd.Text("en"), "keeps S =") {
			t.Fatalf("%s: rngverify receipt:\n%s", what, vd.Text("en"))
		}
		// An edited receipt fails.
		bad := proto.Clone(reply.Receipt).(*qodv1.Receipt)
		bad.Record = bytes.Replace(bad.Record, []byte(`"server":"server-a"`), []byte(`"server":"server-b"`), 1)
		h := record.LeafHash(bad.Record)
		bad.LeafHash = h[:]
		if _, err := VerifyQuitReceipt(bad, vkey); err == nil {
			t.Fatalf("%s: an edited quit receipt verified", what)
		}
	}
}
