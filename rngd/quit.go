package rngd

import (
	"context"
	"errors"
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	qodv1 "tirage.fr/tirage/rngd/api/tirage/qod/v1"
	"tirage.fr/tirage/verifier/qod"
	"tirage.fr/tirage/verifier/record"
)

// Quit is the player's "QUITTER" (règlement art. 2.2.3): once the ticket's
// code is entered, the player either clicks CONTINUER (StartGame,
// irrevocable) or QUITTER, which renounces stage 2 and keeps the stage-1
// gain S. It is the ticket's, not a game's: nothing is drawn, and the
// choice is sealed as a ticket_quit record (record.TicketQuit) before the
// reply, so that the log — which alone counts in a dispute (art. 4.2) —
// shows that the ticket never played stage 2.
//
// The rules set no deadline on QUITTER: art. 2.2.4's "vingt-neuf jours
// suivant la date de clôture" bounds "cliquer sur le bouton CONTINUER et
// ainsi commencer le jeu digital", and art. 5's 90 days bound the payment
// of S, which is the operator's counter's business, not the appliance's.
// A quit after the emission's start deadline is therefore taken: it only
// records what the player may still claim.
func (s *qodService) Quit(ctx context.Context, req *qodv1.QuitRequest) (*qodv1.QuitResponse, error) {
	server, err := callerIdentity(ctx)
	if err != nil {
		return nil, err
	}
	return s.e.quit(ctx, server, req)
}

// quit seals a ticket's QUITTER. It follows startGame: the request id
// (a retry gets the stored reply), the ticket's lock, the ticket looked up
// by its code in the imported manifests. A ticket that started a game is
// refused (TICKET_STARTED), one quit before too (TICKET_QUIT), whichever
// game server asks: a code is no server's until it is played. The change
// waits for the store's commit, as the operator's calls do: the ticket
// reads as quit to every start after the reply.
func (e *engine) quit(ctx context.Context, server string, req *qodv1.QuitRequest) (*qodv1.QuitResponse, error) {
	c, err := newCall(server, "Quit", req)
	if err != nil {
		return nil, err
	}
	ticket, err := record.TicketHash(req.Code)
	if err != nil {
		return nil, refuse(reasonCodeInvalid, "code: %v", err)
	}
	reply := new(qodv1.QuitResponse)
	unlock, done, err := e.enterTicket(c, ticket, reply)
	defer unlock()
	if err != nil {
		return nil, err
	}
	if done {
		return e.quitInclusion(ctx, reply), nil
	}
	// As startGame reads it: a start not yet committed shows in the
	// ticket (store.ticket); a quit is committed before its reply.
	t, err := e.importedTicket(ticket)
	switch {
	case err != nil:
		return nil, err
	case t.Game != "":
		return nil, refuse(reasonTicketStarted, "code: %v: the ticket started a game, QUITTER is no longer possible", qod.ErrTicketStarted)
	case t.Quit != nil:
		return nil, ticketQuitRefusal(t.Quit)
	}
	now := e.now()
	rec := &record.TicketQuit{Time: now, Emission: t.Emission, Ticket: ticket, Stake: t.Stake, Server: server}
	rec.Req, rec.ReqDigest = c.stamp()
	s, err := e.seal(ctx, nil, rec, nil, nil, nil)
	if err != nil {
		return nil, err
	}
	reply = quitReplied(rec, s.receipt)
	t.Quit = &storedQuit{At: now, Index: s.index, Server: server}
	err = e.commit(&c, reply, nil, []sealed{s}, func(tx *bolt.Tx) error {
		return putJSON(tx, bucketTickets, ticket[:], &t)
	})
	if err != nil {
		return nil, err
	}
	e.log.Info("ticket quit", "emission", t.Emission, "stake_cents", t.Stake, "log_index", s.index)
	return e.quitInclusion(ctx, reply), nil
}

// importedTicket reads the ticket of hash as the state store has it
// (store.ticket: a start not yet committed shows): one in no imported
// manifest is refused UNKNOWN_CODE.
func (e *engine) importedTicket(hash [32]byte) (storedTicket, error) {
	t, found, err := e.store.ticket(hash)
	switch {
	case err != nil:
		return t, storeError(err)
	case !found:
		return t, refuse(reasonUnknownCode, "code: no ticket with this code in the imported manifests")
	}
	return t, nil
}

// ticketQuitRefusal refuses a call on a ticket quit at q: a start, or a
// second quit.
func ticketQuitRefusal(q *storedQuit) error {
	return refuse(reasonTicketQuit, "code: %v on %s (log index %d): stage 2 can no longer start, and a ticket is quit once",
		qod.ErrTicketQuit, q.At.UTC().Format(time.RFC3339), q.Index)
}

// quitReplied is Quit's reply: what rec sealed, and its receipt. A retry
// after a crash gets it again, made from the log (rebuilder.adminReply).
func quitReplied(rec *record.TicketQuit, receipt *qodv1.Receipt) *qodv1.QuitResponse {
	return &qodv1.QuitResponse{EmissionId: rec.Emission, StakeCents: rec.Stake, QuitAt: timestamppb.New(rec.Time), Receipt: receipt}
}

// quitInclusion adds to a Quit reply's receipt the checkpoint and its
// inclusion proof when log.receipt_wait asks for them, as withInclusion
// does a game call's. The stored reply has none: reply is cloned.
func (e *engine) quitInclusion(ctx context.Context, reply *qodv1.QuitResponse) *qodv1.QuitResponse {
	if w := e.cfg.Log.ReceiptWait.Duration; w > 0 && reply.Receipt != nil {
		reply = proto.Clone(reply).(*qodv1.QuitResponse)
		e.proveInclusion(ctx, w, nil, reply.Receipt)
	}
	return reply
}

// GetQuit returns the quit of a ticket, with the proofs a Quit reply
// carries only under log.receipt_wait (qod.proto).
func (s *qodService) GetQuit(ctx context.Context, req *qodv1.GetQuitRequest) (*qodv1.QuitResponse, error) {
	server, err := callerIdentity(ctx)
	if err != nil {
		return nil, err
	}
	return s.e.getQuit(ctx, server, req.Code)
}

// getQuit is the quit of the ticket with code, for the game server that
// quit it: Quit's reply, made from the log as rebuilder.ticketQuit makes
// it, with the latest checkpoint and the record's inclusion proof
// (awaitCheckpoint with GetReceipts' wait, includeIn). Another game server
// is refused at once when the state store names the quit's game server
// (storedQuit.Server): it neither waits for a checkpoint nor has the log
// read for a reply it will not get. Else the state store only says where
// the record is (storedQuit.Index): what the reply shows is the log's leaf
// there, which must be this ticket's ticket_quit, by the game server the
// store names if it names one — else the store and the log disagree, which
// is the operator's to investigate, not the game server's to read — and
// the log's game server is the one the reply is for (a quit an older rngd
// stored names none). Read-only: it takes no lock, a quit being committed
// before its reply.
func (e *engine) getQuit(ctx context.Context, server, code string) (*qodv1.QuitResponse, error) {
	ticket, err := record.TicketHash(code)
	if err != nil {
		return nil, refuse(reasonCodeInvalid, "code: %v", err)
	}
	t, err := e.importedTicket(ticket)
	switch {
	case err != nil:
		return nil, err
	case t.Game != "":
		return nil, refuse(reasonTicketStarted, "code: %v: the ticket started a game, it has no quit (CONTINUER is irrevocable)", qod.ErrTicketStarted)
	case t.Quit == nil:
		return nil, refuse(reasonTicketNotQuit, "code: the ticket was not quit (QUITTER) and has not started a game")
	case t.Quit.Server != "" && t.Quit.Server != server:
		return nil, quitNotOwned()
	}
	idx := t.Quit.Index
	cp, err := e.awaitCheckpoint(ctx, receiptWait, idx+1)
	if err != nil {
		return nil, e.refuseLog(err, "couldn't read the log's checkpoint", "")
	}
	if cp.Size <= idx {
		return nil, refuse(reasonCheckpointPending, "no checkpoint covers the ticket's quit (log index %d) yet: retry in a moment", idx)
	}
	leaves, err := e.tlog.Entries(ctx, idx, idx+1, cp.Size)
	if err == nil && len(leaves) != 1 {
		err = fmt.Errorf("%d entries returned", len(leaves))
	}
	if err != nil {
		return nil, e.refuseLog(err, fmt.Sprintf("couldn't read log entry %d", idx), "")
	}
	rec, err := record.Parse(leaves[0])
	q, ok := rec.(*record.TicketQuit)
	switch {
	case err == nil && !ok:
		err = fmt.Errorf("a %s record", rec.Kind())
	case err == nil && q.Ticket != ticket:
		err = fmt.Errorf("the ticket_quit of ticket %x", q.Ticket)
	case err == nil && t.Quit.Server != "" && q.Server != t.Quit.Server:
		err = errors.New("its game server is not the one the store keeps")
	}
	if err != nil {
		e.metrics.alarms.WithLabelValues("store").Inc()
		return nil, refuseHiding(reasonInternal, fmt.Errorf("the state store keeps ticket %x quit at log index %d, and that record is not its ticket_quit: %w", ticket, idx, err),
			"internal error: the operator is alerted")
	}
	if q.Server != server {
		return nil, quitNotOwned()
	}
	reply := quitReplied(q, e.receipt(leaves[0], idx, nil, nil, nil))
	// The reply is the proof: one that cannot be read refuses it.
	if err := e.includeIn(ctx, cp, nil, reply.Receipt); err != nil {
		return nil, e.refuseLog(err, fmt.Sprintf("couldn't prove log entry %d", idx), "")
	}
	return reply, nil
}

// quitNotOwned refuses GetQuit to a game server that did not quit the
// ticket: a quit's receipt is its game server's.
func quitNotOwned() error {
	return refuse(reasonQuitNotOwned, "code: the ticket was quit by another game server")
}
