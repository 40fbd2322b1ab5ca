package rngd

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"
	"google.golang.org/protobuf/proto"

	"tirage.fr/tirage/transparency"
	"tirage.fr/tirage/verifier/qod"
	"tirage.fr/tirage/verifier/record"
)

// rebuild replaces the store's contents with what the first size records of
// the log say, replaying every game with verifier/qod, and marking the
// tickets started or quit. It keeps the secrets
// r of unfinished games (the log reveals r only at a game's end): a game
// whose secret is missing can no longer be played; it can be refunded. It
// keeps the stored replies too, and restores from the log the reply of every
// call whose records carry its request identity, so that nothing acknowledged
// — or sealed but not yet acknowledged — is ever answered differently on a
// retry.
func (e *engine) rebuild(ctx context.Context, size uint64) error {
	if err := e.store.sync(); err != nil {
		return err
	}
	e.games.reset()
	e.deadlines.Clear()
	err := e.store.db.Update(func(tx *bolt.Tx) error {
		for _, b := range [][]byte{bucketMeta, bucketEmissions, bucketTickets, bucketGames, bucketReceipts, bucketRecords, bucketUnfinished, bucketAttested} {
			if err := tx.DeleteBucket(b); err != nil {
				return err
			}
			if _, err := tx.CreateBucket(b); err != nil {
				return err
			}
		}
		return tx.Bucket(bucketMeta).Put(keyFormat, u64(storeFormat))
	})
	if err != nil {
		return fmt.Errorf("couldn't clear the state store: %w", err)
	}
	r := rebuilder{e: e, games: map[string]*rebuildGame{}}
	if err := r.replay(ctx, 0, size); err != nil {
		return err
	}
	e.log.Info("state store rebuilt from the log", "records", size, "unfinished_games", r.unfinished, "games_without_secret", r.lost)
	return nil
}

// applyTail applies the log records from, the store's prefix, to size on top
// of the store: the recovery after a crash, when calls' records reached the
// log but not the store. Every record below from is in the store; above it,
// some are (calls commit in the order they finish), and applying one again
// changes nothing: a game's records already stored are skipped by index, an
// emission or a manifest already stored is left as it is.
func (e *engine) applyTail(ctx context.Context, from, size uint64) error {
	if err := e.store.sync(); err != nil {
		return err
	}
	e.games.reset()
	e.deadlines.Clear()
	r := rebuilder{e: e, games: map[string]*rebuildGame{}, incremental: true}
	if err := r.replay(ctx, from, size); err != nil {
		return err
	}
	e.log.Info("state store caught up with the log", "from", from, "records", size-from, "games", r.touched, "games_without_secret", r.lost)
	return nil
}

// replay applies the log records from..size-1, then stores the games left in
// play and the store's new prefix.
func (r *rebuilder) replay(ctx context.Context, from, size uint64) error {
	e := r.e
	for start := from; start < size; {
		end := min(size, start+transparency.MaxEntries)
		leaves, err := e.tlog.Entries(ctx, start, end, size)
		if err != nil {
			return fmt.Errorf("couldn't read log entries %d..%d: %w", start, end, err)
		}
		if len(leaves) == 0 {
			return fmt.Errorf("log returned no entries at %d", start)
		}
		err = e.store.db.Update(func(tx *bolt.Tx) error {
			for i, leaf := range leaves {
				if err := r.apply(tx, start+uint64(i), leaf); err != nil {
					return fmt.Errorf("log record %d: %w", start+uint64(i), err)
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
		if err := r.forgetEnded(); err != nil {
			return err
		}
		start += uint64(len(leaves))
	}
	return e.store.db.Update(func(tx *bolt.Tx) error {
		for _, g := range r.games {
			if err := r.storeGame(tx, g); err != nil {
				return err
			}
			r.unfinished++
		}
		return e.store.caughtUp(tx, size)
	})
}

type rebuilder struct {
	e     *engine
	games map[string]*rebuildGame // unfinished games
	lost  int
	// incremental: the store already holds what the log says below the
	// first record applied, and maybe some of the records after it.
	incremental bool
	unfinished  int // games left in play
	touched     int // games stored
	// ended are the games stored ended since the last transaction whose
	// secrets the secret store still keeps: it forgets them.
	ended []string
}

// forgetEnded drops the secrets of the games stored ended, once the
// transaction that stored them is committed.
func (r *rebuilder) forgetEnded() error {
	if len(r.ended) == 0 {
		return nil
	}
	err := r.e.secrets.drop(r.ended...)
	r.ended = nil
	return err
}

type rebuildGame struct {
	leaves  [][]byte
	indices []uint64
	start   *record.GameStart
	end     *record.GameEnd
}

func (r *rebuilder) apply(tx *bolt.Tx, index uint64, leaf []byte) error {
	rec, err := record.Parse(leaf)
	if errors.Is(err, record.ErrUnknownKind) || errors.Is(err, record.ErrVersion) {
		if !record.Newer(leaf) {
			return fmt.Errorf("%w: no rngd writes such a record: the log is damaged or forged", err)
		}
		// A record of a newer rngd (an upgrade rolled back): this one cannot
		// say what the record changed, so it cannot start on this log.
		return fmt.Errorf("%w: a newer rngd appended it: run that rngd (docs/rngd.md, Upgrading)", err)
	}
	if err != nil {
		return err
	}
	switch v := rec.(type) {
	case *record.KeyAnnouncement:
		return putAnnounced(tx, v, index)
	case *record.Emission:
		if err := r.adminReply(tx, v.Req, v.ReqDigest, v.Time, emissionCreated(v, r.e.receipt(leaf, index, nil, nil, nil))); err != nil {
			return err
		}
		if r.incremental && tx.Bucket(bucketEmissions).Get([]byte(v.Emission)) != nil {
			return nil // its manifests may have changed it since
		}
		em := storedEmission{ID: v.Emission, Index: index, Closure: v.Closure, StartDeadline: v.StartDeadline}
		return putJSON(tx, bucketEmissions, []byte(em.ID), &em)
	case *record.Manifest:
		if err := r.adminReply(tx, v.Req, v.ReqDigest, v.Time, manifestImported(v, r.e.receipt(leaf, index, nil, nil, nil))); err != nil {
			return err
		}
		if r.incremental {
			var em storedEmission
			if _, err := getJSON(tx, bucketEmissions, []byte(v.Emission), &em); err != nil {
				return err
			}
			if slices.Contains(em.Roots, hex.EncodeToString(v.Root[:])) {
				return nil // imported: its tickets may have been played since
			}
		}
		return r.manifest(tx, v)
	case *record.Attestation:
		if err := putAttestedBuild(tx, v, index); err != nil {
			return err
		}
		return r.adminReply(tx, v.Req, v.ReqDigest, v.Time, attestationLogged(v, r.e.receipt(leaf, index, nil, nil, nil)))
	case *record.GameStart:
		if r.incremental {
			if g, err := r.stored(tx, v.Game); err != nil || g != nil {
				return err // stored with its start
			}
		}
		r.games[v.Game] = &rebuildGame{leaves: [][]byte{leaf}, indices: []uint64{index}, start: v}
		var t storedTicket
		if ok, err := getJSON(tx, bucketTickets, v.Ticket[:], &t); err != nil || !ok {
			return fmt.Errorf("game %s: ticket %x not in any manifest", v.Game, v.Ticket)
		}
		if t.Quit != nil {
			return fmt.Errorf("game %s: its ticket was quit at log index %d, and a ticket quit never starts (rngd refuses it: TICKET_QUIT); the log breaks the rules, an operator must investigate (rngverify audit)", v.Game, t.Quit.Index)
		}
		t.Game = v.Game
		return putJSON(tx, bucketTickets, v.Ticket[:], &t)
	case *record.TicketQuit:
		return r.ticketQuit(tx, index, leaf, v)
	case record.GameRecord:
		g := r.games[v.GameID()]
		if g == nil && r.incremental {
			if g, err = r.stored(tx, v.GameID()); err != nil {
				return err
			}
		}
		if g == nil {
			return fmt.Errorf("%s record of game %s, which is not in play", v.Kind(), v.GameID())
		}
		if index <= g.indices[len(g.indices)-1] {
			return nil // stored already
		}
		if g.end != nil {
			return fmt.Errorf("%s record of game %s, which ended at log index %d", v.Kind(), v.GameID(), g.indices[len(g.indices)-1])
		}
		g.leaves = append(g.leaves, leaf)
		g.indices = append(g.indices, index)
		if end, ok := v.(*record.GameEnd); ok {
			g.end = end
			delete(r.games, v.GameID())
			return r.storeGame(tx, g)
		}
	}
	return nil
}

// ticketQuit applies a ticket_quit (log index): its ticket reads as quit,
// by the record's game server (storedQuit.Server, for GetQuit), and the
// reply of the game server's Quit that sealed it is stored, as the call
// would have stored it (adminReply), so that its retry after a crash gets
// it. Applied again (a tail partly in the store), it changes
// nothing. A quit of a ticket not imported, started or quit before is
// refused: rngd seals none (quit), and a store that read the ticket as
// open again would let it start.
func (r *rebuilder) ticketQuit(tx *bolt.Tx, index uint64, leaf []byte, v *record.TicketQuit) error {
	var t storedTicket
	if ok, err := getJSON(tx, bucketTickets, v.Ticket[:], &t); err != nil || !ok {
		return fmt.Errorf("ticket_quit: ticket %x not in any manifest", v.Ticket)
	}
	switch {
	case t.Quit != nil && t.Quit.Index == index:
		return nil // applied already
	case t.Quit != nil:
		return fmt.Errorf("ticket_quit: ticket %x was quit already at log index %d (rngd refuses a second quit: TICKET_QUIT); the log breaks the rules, an operator must investigate (rngverify audit)", v.Ticket, t.Quit.Index)
	case t.Game != "":
		return fmt.Errorf("ticket_quit: ticket %x started game %s (rngd refuses its quit: TICKET_STARTED); the log breaks the rules, an operator must investigate (rngverify audit)", v.Ticket, t.Game)
	}
	if err := r.adminReply(tx, v.Req, v.ReqDigest, v.Time, quitReplied(v, r.e.receipt(leaf, index, nil, nil, nil))); err != nil {
		return err
	}
	t.Quit = &storedQuit{At: v.Time, Index: index, Server: v.Server}
	return putJSON(tx, bucketTickets, v.Ticket[:], &t)
}

// adminReply stores the reply of the operator's call that sealed an
// emission, a manifest or an attestation record, or of the game server's
// Quit that sealed a ticket_quit (its "req" and "req_digest"; none in
// records logged before they existed), as the call would have stored it
// had it committed: a crash between the log's append and the store's
// commit then leaves its retry the same reply, not EMISSION_EXISTS or
// TICKET_QUIT, and the same request id with other content refused. As
// storeReplies does, it keeps a reply already stored unless a later call
// took its request id (keepsReply) and restores none older than
// game.reply_retention.
func (r *rebuilder) adminReply(tx *bolt.Tx, req, digest [32]byte, at time.Time, reply proto.Message) error {
	if req == ([32]byte{}) || prunedAt(at.Unix(), r.replyCutoff()) {
		return nil
	}
	if keep, err := keepsReply(r.e.store, tx, req, digest, at); keep || err != nil {
		return err
	}
	b, err := proto.Marshal(reply)
	if err != nil {
		return fmt.Errorf("couldn't encode the reply of request %x: %w", req, err)
	}
	return r.e.store.putRequest(tx, req, storedRequest{digest: digest, at: at.Unix(), reply: b})
}

// stored loads a game the store holds, with its records, into the games in
// play of an incremental replay (nil when the store does not have it). A
// game the store holds ended is held whole there: its records in the tail
// are stored already, and it is neither read nor kept in memory (only its
// last index, to skip them) — a tail from far back (a rebuild cut short
// leaves the prefix at 0) would otherwise hold every game of the log.
func (r *rebuilder) stored(tx *bolt.Tx, id string) (*rebuildGame, error) {
	if g := r.games[id]; g != nil {
		return g, nil
	}
	var sg storedGame
	if ok, err := getStoredGame(tx, []byte(id), &sg); err != nil || !ok {
		return nil, err
	}
	if sg.Ended {
		return &rebuildGame{indices: []uint64{sg.LastIndex}, end: &record.GameEnd{}}, nil
	}
	leaves, indices, err := gameRecords(tx, id, sg.Records)
	if err != nil {
		return nil, err
	}
	if len(leaves) == 0 {
		return nil, fmt.Errorf("game %s: no records in the state store", id)
	}
	rec, err := record.Parse(leaves[0])
	if err != nil {
		return nil, err
	}
	start, ok := rec.(*record.GameStart)
	if !ok {
		return nil, fmt.Errorf("game %s: its first stored record is a %s", id, rec.Kind())
	}
	g := &rebuildGame{leaves: leaves, indices: indices, start: start}
	if rec, err = record.Parse(leaves[len(leaves)-1]); err != nil {
		return nil, err
	}
	g.end, _ = rec.(*record.GameEnd)
	r.games[id] = g
	return g, nil
}

// manifest reloads an imported manifest's tickets from the data directory.
func (r *rebuilder) manifest(tx *bolt.Tx, m *record.Manifest) error {
	path := r.e.manifestPath(m.Root[:])
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("manifest %x of emission %s: %w (restore the file, then rebuild again)", m.Root, m.Emission, err)
	}
	defer f.Close()
	root := NewManifestRoot()
	var tickets []Ticket
	if err := ReadManifest(f, func(t Ticket) error { root.Add(t); tickets = append(tickets, t); return nil }); err != nil {
		return err
	}
	if !bytes.Equal(root.Root(), m.Root[:]) || root.Count() != m.Count {
		return fmt.Errorf("manifest file %s does not match the logged root and count", path)
	}
	// A ticket already stored is kept as it is: after a crash in the
	// middle of an import (its tickets are stored in several commits, the
	// manifest's own last), some may have been played since.
	b := tx.Bucket(bucketTickets)
	tickets = slices.DeleteFunc(tickets, func(t Ticket) bool { return b.Get(t.TicketHash[:]) != nil })
	if err := putTicketsTx(tx, tickets); err != nil {
		return err
	}
	var em storedEmission
	if _, err := getJSON(tx, bucketEmissions, []byte(m.Emission), &em); err != nil {
		return err
	}
	em.Tickets += m.Count
	em.Roots = append(em.Roots, hex.EncodeToString(m.Root[:]))
	return putJSON(tx, bucketEmissions, []byte(em.ID), &em)
}

// storeGame replays a game's records with verifier/qod and stores the
// resulting state and receipts.
func (r *rebuilder) storeGame(tx *bolt.Tx, g *rebuildGame) error {
	e := r.e
	r.touched++
	rep, err := qod.Replay(g.leaves, e.replayConfig(tx, g.start.Emission))
	if err != nil {
		return err
	}
	server := g.start.Server
	if server == "" {
		// Records sealed before "server" was logged: the game id starts
		// with its owner's identity.
		server, _, _ = strings.Cut(g.start.Game, "/")
	}
	sg := &storedGame{Game: rep.Game, Server: server, Records: uint32(len(g.leaves)),
		LastHash: record.LeafHash(g.leaves[len(g.leaves)-1]), LastIndex: g.indices[len(g.indices)-1], Ended: rep.Ended}
	if g.end != nil {
		sg.Secret, sg.HasSecret, sg.EndedAt = g.end.Secret, !g.end.SecretLost(), g.end.Time
		// Only a secret still kept is dropped (one an older rngd kept, or
		// whose drop a crash lost): most ended games have none, and a
		// rebuild then writes nothing to the secret store.
		if _, kept, err := e.secrets.read(g.start.Game); err != nil {
			return err
		} else if kept {
			r.ended = append(r.ended, g.start.Game)
		}
	} else if s, ok, err := e.secrets.get(g.start.Game); err != nil {
		return err
	} else if ok {
		sg.Secret, sg.HasSecret = s, record.Commit(s) == g.start.Commit
	} else if s, ok, err := e.secrets.reserved(g.start.Commit); err != nil {
		return err
	} else if ok {
		// Taken from the reserve, its move to the game lost in a crash:
		// dropOrphanSecrets moves it.
		sg.Secret, sg.HasSecret = s, true
	}
	if !sg.HasSecret && !sg.Ended {
		r.lost++
		e.log.Warn("unfinished game without its secret: it can only be refunded", "game", g.start.Game)
	}
	recs := make([]record.GameRecord, len(g.leaves))
	for i, leaf := range g.leaves {
		rec, _ := record.Parse(leaf)
		recs[i] = rec.(record.GameRecord)
		if err := putRecord(tx, sg.Game.ID, uint32(i), g.indices[i], leaf); err != nil {
			return err
		}
	}
	if err := r.storeReplies(tx, sg, recs); err != nil {
		return err
	}
	return putGame(tx, sg, true)
}

// requestOf returns the request identity a game record carries and its time.
func requestOf(rec record.GameRecord) (req, digest [32]byte, at time.Time) {
	switch v := rec.(type) {
	case *record.GameStart:
		return v.Req, v.ReqDigest, v.Time
	case *record.Pick:
		return v.Req, v.ReqDigest, v.Time
	case *record.Decision:
		return v.Req, v.ReqDigest, v.Time
	case *record.GameEnd:
		return v.Req, v.ReqDigest, v.Time
	}
	return
}

// storeReplies stores, for each call that sealed records of the game (a run
// of records with the same "req"), its reply as those records (see
// engine.replyOf, which makes it again on a retry). A reply already stored
// is kept (keepsReply): that of a call cut short before its end record (a
// losing pick) covers its records without the end, and replyOf counts the
// end that follows them as the call's, wherever it was stored from. Nor
// does a call older than game.reply_retention get one: the sweeper would
// prune it.
func (r *rebuilder) storeReplies(tx *bolt.Tx, sg *storedGame, recs []record.GameRecord) error {
	cutoff := r.replyCutoff()
	for i, j := 0, 0; i < len(recs); i = j {
		req, digest, at := requestOf(recs[i])
		for j = i + 1; j < len(recs); j++ {
			if q, _, _ := requestOf(recs[j]); q != req {
				break
			}
		}
		if req == ([32]byte{}) || prunedAt(at.Unix(), cutoff) {
			continue
		}
		if keep, err := keepsReply(r.e.store, tx, req, digest, at); err != nil {
			return err
		} else if keep {
			continue
		}
		sr := storedRequest{digest: digest, at: at.Unix(), game: sg.Game.ID, first: uint32(i), end: uint32(j)}
		if err := r.e.store.putRequest(tx, req, sr); err != nil {
			return err
		}
	}
	return nil
}

// keepsReply reports whether the reply stored for req stands against the
// call of the log that sealed records with req and digest at time at: it
// does when it is that call's (the same digest: stored by its commit, or by
// an earlier replay), or that of a call made since. A reply of another
// call, stored before at, is an older call's whose reply the sweeper had
// pruned when the log's call took its request id again — restored since
// by a rebuild whose game.reply_retention reaches further back (raised, or
// the clock set back): the later call's replaces it, or its retry would be
// refused as a reuse of the id. A stored reply that cannot be decoded is
// written again; an index that cannot say where the reply is (its runs
// unreadable) fails the replay: taken for none, the log's call's reply
// would replace a later call's.
func keepsReply(s *store, tx *bolt.Tx, req, digest [32]byte, at time.Time) (bool, error) {
	seq, located, err := s.reqs.locate(s, tx, req)
	if err != nil {
		return false, fmt.Errorf("couldn't look up the reply stored for request %x: %w", req, err)
	}
	sr, ok, _ := s.requestAt(tx, req, seq, located)
	return ok && (sr.digest == digest || sr.at >= at.Unix()), nil
}

// replyCutoff is when the oldest reply a rebuild restores was given: the
// sweeper prunes those before it (game.reply_retention), by the second
// (prunedAt).
func (r *rebuilder) replyCutoff() time.Time {
	return r.e.clock.Now().Add(-r.e.cfg.Game.ReplyRetention.Duration)
}
