package rngd

import (
	"bytes"
	"cmp"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	"tirage.fr/tirage/hsm"
	adminv1 "tirage.fr/tirage/rngd/api/tirage/admin/v1"
	qodv1 "tirage.fr/tirage/rngd/api/tirage/qod/v1"
	"tirage.fr/tirage/transparency"
	"tirage.fr/tirage/transparency/atomicfile"
	"tirage.fr/tirage/verifier/qod"
	"tirage.fr/tirage/verifier/record"
)

// Closure dates CreateEmission accepts.
const minClosureYear, maxClosureYear = 2000, 2199

// CheckClosureDate reports whether closure is an emission's closure date:
// YYYY-MM-DD, a real date, a year from minClosureYear to maxClosureYear
// (the log records the start deadline, closure + 30 days, with a
// four-digit year from 1970; a closure outside these years is a typo).
// rngctl checks it before it calls rngd, which checks it again.
func CheckClosureDate(closure string) error {
	d, err := time.Parse(time.DateOnly, closure)
	if err != nil || d.Format(time.DateOnly) != closure {
		return fmt.Errorf("%s is not a YYYY-MM-DD date", quoted(closure))
	}
	if y := d.Year(); y < minClosureYear || y > maxClosureYear {
		return fmt.Errorf("%s: want a year from %d to %d", closure, minClosureYear, maxClosureYear)
	}
	return nil
}

// createEmission registers an emission and its closure date.
func (e *engine) createEmission(ctx context.Context, req *adminv1.CreateEmissionRequest) (*adminv1.CreateEmissionResponse, error) {
	c, err := newCall(adminServer, "CreateEmission", req)
	if err != nil {
		return nil, err
	}
	if err := CheckEmissionID(req.EmissionId); err != nil {
		return nil, refuse(reasonEmissionIDInvalid, "%v", err)
	}
	if err := CheckClosureDate(req.ClosureDate); err != nil {
		return nil, refuse(reasonClosureDateInvalid, "closure_date: %v", err)
	}
	deadline, err := qod.StartDeadline(req.ClosureDate, e.loc)
	if err != nil {
		return nil, refuse(reasonClosureDateInvalid, "closure_date: %v", err)
	}
	reply := new(adminv1.CreateEmissionResponse)
	if ok, err := e.replayed(c, reply); ok || err != nil {
		return reply, err
	}
	defer e.lockRequest(c).unlock()
	defer e.locks.lock("emission/" + req.EmissionId).unlock()
	if ok, err := e.replayed(c, reply); ok || err != nil {
		return reply, err
	}
	if _, err := e.emission(req.EmissionId); err == nil {
		return nil, refuse(reasonEmissionExists, "emission_id: emission %q is already registered", req.EmissionId)
	} else if status.Code(err) != codes.NotFound {
		return nil, err
	}
	em := storedEmission{ID: req.EmissionId, Closure: req.ClosureDate, StartDeadline: deadline}
	rec := &record.Emission{Time: e.now(), Emission: em.ID, Closure: em.Closure, StartDeadline: deadline}
	rec.Req, rec.ReqDigest = c.stamp()
	s, err := e.seal(ctx, nil, rec, nil, nil, nil)
	if err != nil {
		return nil, err
	}
	em.Index = s.index
	reply = emissionCreated(rec, s.receipt)
	err = e.commit(&c, reply, nil, []sealed{s}, func(tx *bolt.Tx) error {
		return putJSON(tx, bucketEmissions, []byte(em.ID), &em)
	})
	if err != nil {
		return nil, err
	}
	e.log.Info("emission registered", "emission", em.ID, "closure", em.Closure, "start_deadline", deadline, "log_index", s.index)
	return reply, nil
}

// emissionCreated is CreateEmission's reply: the emission as rec registered
// it, with no manifest yet, and the receipt of rec. A retry after a crash
// gets it again, made from the log (rebuilder.adminReply).
func emissionCreated(rec *record.Emission, receipt *qodv1.Receipt) *adminv1.CreateEmissionResponse {
	em := storedEmission{ID: rec.Emission, Closure: rec.Closure, StartDeadline: rec.StartDeadline}
	return &adminv1.CreateEmissionResponse{Emission: emissionProto(em), Receipt: receipt}
}

// manifestImported is ImportManifest's reply: the manifest rec commits to,
// and the receipt of rec (see emissionCreated).
func manifestImported(rec *record.Manifest, receipt *qodv1.Receipt) *adminv1.ImportManifestResponse {
	return &adminv1.ImportManifestResponse{EmissionId: rec.Emission, Count: rec.Count, Root: bytes.Clone(rec.Root[:]), Receipt: receipt}
}

func (e *engine) emission(id string) (storedEmission, error) {
	var em storedEmission
	var found bool
	err := e.store.view(func(tx *bolt.Tx) error {
		var err error
		found, err = getJSON(tx, bucketEmissions, []byte(id), &em)
		return err
	})
	if err != nil {
		return em, storeError(err)
	}
	if !found {
		return em, refuse(reasonUnknownEmission, "emission_id: no emission %s (register it first)", quoted(id))
	}
	return em, nil
}

func emissionProto(em storedEmission) *adminv1.Emission {
	return &adminv1.Emission{EmissionId: em.ID, ClosureDate: em.Closure, StartDeadline: timestamppb.New(em.StartDeadline),
		Tickets: em.Tickets, ManifestRoots: em.Roots}
}

func (e *engine) listEmissions() (*adminv1.ListEmissionsResponse, error) {
	out := new(adminv1.ListEmissionsResponse)
	err := e.store.view(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketEmissions).ForEach(func(k, v []byte) error {
			var em storedEmission
			if _, err := getJSON(tx, bucketEmissions, k, &em); err != nil {
				return err
			}
			out.Emissions = append(out.Emissions, emissionProto(em))
			return nil
		})
	})
	if err != nil {
		return nil, storeError(err)
	}
	return out, nil
}

// manifestPath is where an imported manifest is kept, by root: Rebuild reads
// the tickets back from it (the log holds only the root and the count).
func (e *engine) manifestPath(root []byte) string {
	return filepath.Join(e.cfg.DataDir, "manifests", hex.EncodeToString(root)+".csv")
}

// refuseDemo refuses a manifest that holds a demo ticket of its emission:
// their codes are public (demoSeed), and a demo manifest must never be
// taken for a real emission's. Every ticket is looked for among the demo
// tickets 0..e.demoScan-1 (MaxDemoTickets, the largest the tools make:
// rngctl emission demo-manifest --count), not only at its own line: a demo
// manifest with lines removed, reordered, or split among imports holds
// demo tickets below MaxDemoTickets. A ticket at a line past them is also
// checked against the demo ticket of its own line, so that a whole demo
// manifest larger than that is caught too, without an index of its size.
// Its first demo ticket is named.
func (e *engine) refuseDemo(emission string, tickets []Ticket) error {
	demo := newDemoIndex(emission, e.demoScan)
	for n, t := range tickets {
		i := demo.find(t.TicketHash)
		if i < 0 && n >= e.demoScan && demo.d.is(n, t.TicketHash) {
			i = n
		}
		if i >= 0 {
			return refuse(reasonManifestInvalid, "tickets[%d]: a demo ticket, whose code anyone can recompute (ticket %d of emission %s's demo manifest: rngctl emission demo-manifest, make run's demo): rngd imports demo manifests only in dev mode", n+1, i, emission)
		}
	}
	return nil
}

// importManifest imports a ticket manifest: header first, then tickets.
func (e *engine) importManifest(ctx context.Context, stream grpc.ClientStreamingServer[adminv1.ImportManifestRequest, adminv1.ImportManifestResponse]) error {
	first, err := stream.Recv()
	if _, ok := status.FromError(err); ok && err != nil {
		return err // the stream's own failure (cancelled, …)
	}
	if err != nil {
		return refuse(reasonManifestInvalid, "no manifest header: %v", err)
	}
	h := first.GetHeader()
	if h == nil {
		return refuse(reasonManifestInvalid, "header: the first message must be the manifest header")
	}
	// The header's own fields are checked before the upload, as
	// CreateEmission checks them (newCall checks request_id again).
	if err := checkRequestID(h.RequestId); err != nil {
		return err
	}
	if err := CheckEmissionID(h.EmissionId); err != nil {
		return refuse(reasonEmissionIDInvalid, "%v", err)
	}
	if h.Count > e.cfg.Admin.MaxManifestTickets {
		return refuse(reasonManifestInvalid, "count: %d tickets, more than one import may hold (admin.max_manifest_tickets = %d): import the manifest in parts", h.Count, e.cfg.Admin.MaxManifestTickets)
	}
	em, err := e.emission(h.EmissionId)
	if err != nil {
		return err
	}
	var tickets []Ticket
	root := NewManifestRoot()
	var total int64
	for msg := 2; ; msg++ {
		m, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		b := m.GetTickets()
		if m.GetHeader() != nil {
			return refuse(reasonManifestInvalid, "header: only the first message may be a header")
		}
		if b == nil {
			return refuse(reasonManifestInvalid, "tickets: message %d holds neither tickets nor a header", msg)
		}
		for _, t := range b.Tickets {
			n := len(tickets) + 1
			if uint64(n) > h.Count { // refused now, not once all are held
				return refuse(reasonManifestInvalid, "count: header says %d tickets, more received", h.Count)
			}
			if len(t.TicketHash) != 32 {
				return refuse(reasonManifestInvalid, "tickets[%d].ticket_hash: %d bytes, want 32", n, len(t.TicketHash))
			}
			if err := CheckStake(t.StakeCents); err != nil {
				return refuse(reasonManifestInvalid, "tickets[%d]: %v", n, err)
			}
			tk := Ticket{Emission: em.ID, StakeCents: t.StakeCents}
			copy(tk.TicketHash[:], t.TicketHash)
			tickets = append(tickets, tk)
			root.Add(tk)
			total += t.StakeCents
		}
	}
	if uint64(len(tickets)) != h.Count {
		return refuse(reasonManifestInvalid, "count: header says %d tickets, %d received", h.Count, len(tickets))
	}
	if len(tickets) == 0 {
		return refuse(reasonManifestInvalid, "count: a manifest needs at least one ticket")
	}
	rootHash := root.Root()
	c, err := newCall(adminServer, "ImportManifest/"+hex.EncodeToString(rootHash), h)
	if err != nil {
		return err
	}
	// Its state is read and its record sealed only now, the upload over:
	// the gate is held for that, not while the operator's client sends.
	release, err := e.enter()
	if err != nil {
		return err
	}
	defer release()
	reply := new(adminv1.ImportManifestResponse)
	if ok, err := e.replayed(c, reply); ok || err != nil {
		if err != nil {
			return err
		}
		return stream.SendAndClose(reply)
	}
	if !e.cfg.Dev { // after the replay: a retried import does not index again
		if err := e.refuseDemo(em.ID, tickets); err != nil {
			return err
		}
	}
	defer e.lockRequest(c).unlock()
	// One import at a time: a code may appear in one manifest only.
	defer e.locks.lock("manifests").unlock()
	if em, err = e.emission(h.EmissionId); err != nil { // as of now, under the lock
		return err
	}
	if ok, err := e.replayed(c, reply); ok || err != nil {
		if err != nil {
			return err
		}
		return stream.SendAndClose(reply)
	}
	// A code appears once in all manifests.
	hashes := make([][32]byte, len(tickets))
	for i, t := range tickets {
		hashes[i] = t.TicketHash
	}
	slices.SortFunc(hashes, func(a, b [32]byte) int { return bytes.Compare(a[:], b[:]) })
	for i := 1; i < len(hashes); i++ {
		if hashes[i] == hashes[i-1] {
			return refuse(reasonManifestInvalid, "tickets: ticket %x appears twice in the manifest", hashes[i])
		}
	}
	err = e.store.view(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketTickets)
		for _, h := range hashes {
			if b.Get(h[:]) != nil {
				return refuse(reasonTicketImported, "tickets: ticket %x is already imported (nothing changed)", h)
			}
		}
		return nil
	})
	if err != nil {
		return storeError(err)
	}
	if err := writeManifest(e.manifestPath(rootHash), tickets); err != nil {
		// A full disk, most likely: nothing is imported nor sealed, and
		// the same import goes through once the cause is fixed.
		return refuse(reasonManifestUnavailable, "couldn't keep the manifest (nothing was imported: free space in data_dir, then retry the same import): %v", err)
	}
	var rh [32]byte
	copy(rh[:], rootHash)
	rec := &record.Manifest{Time: e.now(), Emission: em.ID, Root: rh, Count: uint64(len(tickets)), Total: total}
	rec.Req, rec.ReqDigest = c.stamp()
	s, err := e.seal(stream.Context(), nil, rec, nil, nil, nil)
	if err != nil {
		return err
	}
	em.Tickets += uint64(len(tickets))
	em.Roots = append(em.Roots, hex.EncodeToString(rootHash))
	reply = manifestImported(rec, s.receipt)
	if err := e.putTickets(tickets[:len(tickets)-1]); err != nil {
		return err
	}
	err = e.commit(&c, reply, nil, []sealed{s}, func(tx *bolt.Tx) error {
		if err := putTicketsTx(tx, tickets[len(tickets)-1:]); err != nil {
			return err
		}
		return putJSON(tx, bucketEmissions, []byte(em.ID), &em)
	})
	if err != nil {
		return err
	}
	e.log.Info("manifest imported", "emission", em.ID, "tickets", len(tickets), "root", hex.EncodeToString(rootHash), "log_index", s.index)
	return stream.SendAndClose(reply)
}

// putTickets stores tickets in transactions of bounded size. A crash in
// between leaves the store behind the log: it is rebuilt at the next start.
func (e *engine) putTickets(tickets []Ticket) error {
	for len(tickets) > 0 {
		n := min(len(tickets), 50_000)
		if err := e.store.write(storeWrite{fn: func(tx *bolt.Tx) error { return putTicketsTx(tx, tickets[:n]) }}, nil, true); err != nil {
			return storeError(err)
		}
		tickets = tickets[n:]
	}
	return nil
}

func putTicketsTx(tx *bolt.Tx, tickets []Ticket) error {
	for _, t := range tickets {
		if err := putJSON(tx, bucketTickets, t.TicketHash[:], &storedTicket{Emission: t.Emission, Stake: t.StakeCents}); err != nil {
			return err
		}
	}
	return nil
}

// syncDir is atomicfile.SyncDir; tests replace it to see the syncs.
var syncDir = atomicfile.SyncDir

// writeManifest keeps an imported manifest's file, durably: the import's
// record, sealed next, names it, and a start reads it back (Rebuild).
func writeManifest(path string, tickets []Ticket) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	// The manifests directory's own entry, made by the first import, is
	// durable only once the data directory is synced (atomicfile syncs
	// the manifests directory, not its parent).
	if err := syncDir(filepath.Dir(dir)); err != nil {
		return err
	}
	var b bytes.Buffer
	for _, t := range tickets {
		b.WriteString(t.Line())
		b.WriteByte('\n')
	}
	return atomicfile.Write(path, b.Bytes(), 0o600)
}

// qodService is tirage.qod.v1.QuitteOuDouble.
type qodService struct {
	qodv1.UnimplementedQuitteOuDoubleServer
	e *engine
	// Play's: its calls' handlers, each through the listener's unary
	// interceptors (newQodService); the daemon's shutdown; the
	// connections' calls in flight.
	twins       playTwins
	stopping    context.Context
	slots       *playSlots
	idleWorkers int32 // 0: playIdleWorkers
}

// newQodService is the game servers' service of e; Play runs its calls
// through interceptors, the listener's unary chain.
func newQodService(e *engine, interceptors []grpc.UnaryServerInterceptor, stopping context.Context, slots *playSlots) *qodService {
	s := &qodService{e: e, stopping: stopping, slots: slots}
	s.twins = newPlayTwins(s, interceptors)
	return s
}

func (s *qodService) StartGame(ctx context.Context, req *qodv1.StartGameRequest) (*qodv1.GameReply, error) {
	server, err := callerIdentity(ctx)
	if err != nil {
		return nil, err
	}
	return s.e.startGame(ctx, server, req)
}

func (s *qodService) Pick(ctx context.Context, req *qodv1.PickRequest) (*qodv1.GameReply, error) {
	server, err := callerIdentity(ctx)
	if err != nil {
		return nil, err
	}
	return s.e.pick(ctx, server, req)
}

func (s *qodService) Decide(ctx context.Context, req *qodv1.DecideRequest) (*qodv1.GameReply, error) {
	server, err := callerIdentity(ctx)
	if err != nil {
		return nil, err
	}
	return s.e.decide(ctx, server, req)
}

func (s *qodService) GetGame(ctx context.Context, req *qodv1.GetGameRequest) (*qodv1.Game, error) {
	server, err := callerIdentity(ctx)
	if err != nil {
		return nil, err
	}
	return s.e.getGame(server, req.GameId)
}

func (s *qodService) ListUnfinishedGames(ctx context.Context, req *qodv1.ListUnfinishedGamesRequest) (*qodv1.ListUnfinishedGamesResponse, error) {
	server, err := callerIdentity(ctx)
	if err != nil {
		return nil, err
	}
	return s.e.listUnfinished(server, req)
}

func (s *qodService) GetReceipts(ctx context.Context, req *qodv1.GetReceiptsRequest) (*qodv1.GetReceiptsResponse, error) {
	server, err := callerIdentity(ctx)
	if err != nil {
		return nil, err
	}
	r, err := s.e.receipts(ctx, server, req.GameId)
	return &qodv1.GetReceiptsResponse{Receipts: r}, err
}

// witnessStatus is what Status tells of a witness: every count the log
// keeps of it (those /metrics exports, tirage_log_witness_*).
func witnessStatus(w transparency.WitnessStat) *adminv1.WitnessStatus {
	ws := &adminv1.WitnessStatus{Name: w.Name, Url: w.URL, Cosignatures: w.Cosigned, Conflicts: w.Conflicts, Failures: w.Failures, CalledOff: w.CalledOff}
	if !w.LastCosigned.IsZero() {
		ws.LastCosigned = timestamppb.New(w.LastCosigned)
	}
	return ws
}

// adminService is tirage.admin.v1.Admin.
type adminService struct {
	adminv1.UnimplementedAdminServer
	e     *engine
	addrs func() []string
}

func (s *adminService) Status(ctx context.Context, _ *adminv1.StatusRequest) (*adminv1.StatusResponse, error) {
	r := &adminv1.StatusResponse{Version: s.e.cfg.Version, DevMode: s.e.cfg.Dev, VrfSuite: string(s.e.suite),
		VrfKeyId: s.e.keyID, LogOrigin: s.e.cfg.Log.Origin, LogVerifierKeys: s.e.tlog.VerifierKeys(),
		VrfFingerprint: hsm.Fingerprint(s.e.pub)}
	if err := s.e.logHealth(); err != nil {
		r.LogFailure = err.Error()
	}
	if cp, err := s.e.tlog.Checkpoint(ctx); err == nil {
		r.LogSize = cp.Size
	} else if r.LogFailure == "" {
		r.LogFailure = "couldn't read the log's checkpoint: " + err.Error()
	}
	// A failed store's committed games miss what it refused: not counted
	// (0 would read as none), the failure said instead.
	err := s.e.store.view(func(tx *bolt.Tx) error {
		n := countUnfinished(tx, s.e.now(), s.e.cfg.Game.refundGrace())
		r.GamesUnfinished = uint64(n[stageInPlay] + n[stageInGrace] + n[stageDue])
		r.GamesInRefundGrace = uint64(n[stageInGrace])
		return nil
	})
	if err != nil && !errors.Is(err, errStoreFailed) {
		err = fmt.Errorf("couldn't read the state store: %w", err)
	}
	if err != nil {
		r.StoreFailure = err.Error()
	}
	for _, c := range s.e.components() {
		if c.err == nil {
			continue
		}
		switch c.name {
		case "entropy":
			r.EntropyFailure = c.err.Error()
		case "keys":
			r.KeysFailure = c.err.Error()
		case "secrets":
			r.SecretsFailure = c.err.Error()
		}
	}
	if wl, ok := s.e.tlog.(witnessedLog); ok {
		for _, w := range wl.Witnesses() {
			r.Witnesses = append(r.Witnesses, witnessStatus(w))
		}
	}
	if s.addrs != nil {
		r.ListenAddresses = s.addrs()
	}
	return r, nil
}

func (s *adminService) CreateEmission(ctx context.Context, req *adminv1.CreateEmissionRequest) (*adminv1.CreateEmissionResponse, error) {
	return s.e.createEmission(ctx, req)
}

func (s *adminService) ListEmissions(context.Context, *adminv1.ListEmissionsRequest) (*adminv1.ListEmissionsResponse, error) {
	return s.e.listEmissions()
}

func (s *adminService) ImportManifest(stream grpc.ClientStreamingServer[adminv1.ImportManifestRequest, adminv1.ImportManifestResponse]) error {
	return s.e.importManifest(stream.Context(), stream)
}

func (s *adminService) RefundGame(ctx context.Context, req *adminv1.RefundGameRequest) (*qodv1.GameReply, error) {
	c, err := newCall(adminServer, "RefundGame", req)
	if err != nil {
		return nil, err
	}
	if req.GameId == "" {
		return nil, refuse(reasonGameIDMissing, "game_id: required")
	}
	if req.Reason == "" {
		return nil, refuse(reasonRefundReasonMissing, "reason: required (why the 30 days could not be honoured)")
	}
	if err := record.CheckRefundReason(req.Reason); err != nil {
		return nil, refuse(reasonRefundReasonInvalid, "%v (it is sealed in the game's end record)", err)
	}
	r, err := s.e.endGame(ctx, &c, req.GameId, req.Reason)
	if err == nil {
		s.e.log.Warn("game refunded by the operator", "game", req.GameId, "reason", req.Reason)
		s.e.countGames() // the operator watching tirage_games_in_refund_grace sees the refund
	}
	return r, err
}

func (s *adminService) SweepExpired(ctx context.Context, _ *adminv1.SweepExpiredRequest) (*adminv1.SweepExpiredResponse, error) {
	ended, err := s.e.sweep(ctx)
	return &adminv1.SweepExpiredResponse{ExpiredGameIds: ended}, err
}

func (s *adminService) ListExpiredGames(_ context.Context, req *adminv1.ListExpiredGamesRequest) (*adminv1.ListExpiredGamesResponse, error) {
	return s.e.listExpired(req)
}

func (s *adminService) GetGame(_ context.Context, req *qodv1.GetGameRequest) (*qodv1.Game, error) {
	return s.e.getGame("", req.GameId)
}

// listExpired lists a page of every server's games in their refund grace,
// by deadline: those RefundGame takes after their deadline. A game over
// whose end could not be sealed (a log failure after its losing pick or its
// win) is not one: it shows its final status, and the sweeper seals its end
// (an expiry or a refund is stored only with its end record).
//
// They come in the order of their places (expiredPlace): by deadline, then
// key in bucketUnfinished (game server, then id). Each page reads the
// deadlines of all the unfinished games, which bucketUnfinished holds, and
// loads only its own games (and one more, which tells that more follow); a
// page starts after the place its token names, whether that game has ended
// since or not.
func (e *engine) listExpired(req *adminv1.ListExpiredGamesRequest) (*adminv1.ListExpiredGamesResponse, error) {
	size, err := pageSize(req.PageSize)
	if err != nil {
		return nil, err
	}
	var after *expiredPlace
	if req.PageToken != "" {
		p, err := parseExpiredPageToken(req.PageToken)
		if err != nil {
			return nil, err
		}
		after = &p
	}
	now, grace := e.now(), e.cfg.Game.refundGrace()
	reply := &adminv1.ListExpiredGamesResponse{RefundGrace: durationpb.New(grace)}
	var last expiredPlace // the place of reply.Games' last game
	err = e.store.view(func(tx *bolt.Tx) error {
		var places []expiredPlace
		err := tx.Bucket(bucketUnfinished).ForEach(func(k, v []byte) error {
			if stageOf(v, now, grace) != stageInGrace {
				return nil
			}
			if p := (expiredPlace{deadline: beUint64(v), key: k}); after == nil || p.compare(*after) > 0 {
				places = append(places, p)
			}
			return nil
		})
		if err != nil {
			return err
		}
		slices.SortFunc(places, expiredPlace.compare)
		// Loaded in batches until size+1 games are kept: most games in
		// their grace are; those over are left out.
		for len(places) > 0 && len(reply.Games) <= size {
			batch := places[:min(len(places), size+1-len(reply.Games))]
			places = places[len(batch):]
			games := make([]*storedGame, len(batch))
			for i, p := range batch {
				_, id, _ := bytes.Cut(p.key, []byte{0})
				games[i] = new(storedGame)
				if _, err := getStoredGame(tx, id, games[i]); err != nil {
					return err
				}
			}
			if err := e.fillSecrets(tx, games); err != nil {
				return err
			}
			for i, sg := range games {
				if g := e.gameProto(sg, now); g.Status == qodv1.Status_STATUS_EXPIRED && len(reply.Games) <= size {
					reply.Games = append(reply.Games, g)
					if len(reply.Games) == size {
						last = expiredPlace{deadline: batch[i].deadline, key: bytes.Clone(batch[i].key)}
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, storeError(err)
	}
	if len(reply.Games) > size {
		reply.Games = reply.Games[:size]
		reply.NextPageToken = last.token()
	}
	return reply, nil
}

// expiredPlace is a game's place in ListExpiredGames' order: its deadline
// (Unix seconds, its value in bucketUnfinished), then its key there.
type expiredPlace struct {
	deadline uint64
	key      []byte // joinKey(server, id)
}

func (p expiredPlace) compare(q expiredPlace) int {
	return cmp.Or(cmp.Compare(p.deadline, q.deadline), bytes.Compare(p.key, q.key))
}

// expiredTokenV1 is the first byte of a ListExpiredGames page token
// (expiredPlace.token).
const expiredTokenV1 = 1

// token is the next_page_token of a page whose last game is at p: the
// version byte, the deadline (8 bytes, big endian) and the game id,
// base64url. Like pageToken it names a game and no state of the daemon,
// and grants nothing: the operator lists every server's games.
func (p expiredPlace) token() string {
	_, id, _ := bytes.Cut(p.key, []byte{0})
	b := binary.BigEndian.AppendUint64([]byte{expiredTokenV1}, p.deadline)
	return base64.RawURLEncoding.EncodeToString(append(b, id...))
}

// parseExpiredPageToken returns the place a token names
// (expiredPlace.token), spelt as token spells it: a game id is a game
// server's identity, "/" and gameIDDigits lowercase hex digits (gameID).
func parseExpiredPageToken(token string) (expiredPlace, error) {
	bad := refuse(reasonPageTokenInvalid, "page_token: not a next_page_token that ListExpiredGames returned (leave it empty for the first page)")
	if len(token) > base64.RawURLEncoding.EncodedLen(1+8+maxIdentity+1+gameIDDigits) {
		return expiredPlace{}, bad
	}
	b, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil || len(b) < 1+8+1+1+gameIDDigits || b[0] != expiredTokenV1 {
		return expiredPlace{}, bad
	}
	id := string(b[1+8:])
	server, digits := id[:len(id)-1-gameIDDigits], id[len(id)-gameIDDigits:]
	// Its form only, not checkIdentity: the token grants nothing (the
	// operator may list every game), and a game's server may be an
	// identity stored before checkIdentity refused it ('#', non-ASCII),
	// which a page may end on. No game is the operator's.
	if id[len(server)] != '/' || server == "" || server == adminServer || strings.ContainsRune(server, 0) ||
		strings.Trim(digits, "0123456789abcdef") != "" {
		return expiredPlace{}, bad
	}
	p := expiredPlace{deadline: binary.BigEndian.Uint64(b[1:]), key: joinKey(server, []byte(id))}
	// Only the spelling token writes (see parsePageToken).
	if p.token() != token {
		return expiredPlace{}, bad
	}
	return p, nil
}
