package rngd

import (
	"context"
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
	t, found, err := e.store.ticket(ticket)
	switch {
	case err != nil:
		return nil, storeError(err)
	case !found:
		return nil, refuse(reasonUnknownCode, "code: no ticket with this code in the imported manifests")
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
	t.Quit = &storedQuit{At: now, Index: s.index}
	err = e.commit(&c, reply, nil, []sealed{s}, func(tx *bolt.Tx) error {
		return putJSON(tx, bucketTickets, ticket[:], &t)
	})
	if err != nil {
		return nil, err
	}
	e.log.Info("ticket quit", "emission", t.Emission, "stake_cents", t.Stake, "log_index", s.index)
	return e.quitInclusion(ctx, reply), nil
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
