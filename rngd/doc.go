// Package rngd is Tirage's draw daemon: it draws Quitte ou Double (stage 2)
// for game servers over gRPC, seals every state change in the transparency
// log before replying, and serves the operator and the auditors.
//
// # Surfaces
//
//   - Game servers: tirage.qod.v1.QuitteOuDouble (rngd/api/tirage/qod/v1) on
//     the gRPC listener, mutual TLS 1.3 only. A caller's identity is the
//     first DNS SAN of its verified client certificate (else its CN); a game
//     belongs to the identity that started it, and any other identity gets
//     PERMISSION_DENIED. The standard health service and server reflection
//     are on. Nothing else is served there.
//   - Auditors: the log's audit service (tirage.transparency.audit.v1,
//     transparency/auditpb/v1) on a gRPC listener of its own (audit.listen),
//     TLS 1.3 with the daemon's certificate and no client certificate (the
//     log is public; audit.client_ca_file may restrict it), with health and
//     reflection: an auditor needs no game server's certificate, and cannot
//     reach the game or admin services there.
//   - The operator: tirage.admin.v1.Admin on a Unix socket (peers checked
//     by SO_PEERCRED uid against admin.allowed_uids; mode 0600, or 0666
//     when other users are allowed), used by rngctl.
//   - Auditors and monitoring: HTTP /log/ (tlog-tiles, checkpoint, vkey),
//     /metrics (Prometheus), /healthz.
//
// # The draw pipeline
//
// For each mutating call: authenticate; check the request id (a retry
// returns the stored reply; other content under the same id is
// ALREADY_EXISTS); lock the game (or, for a start, the ticket); validate
// against the stored state with verifier/qod (bad input: a status naming the
// field, nothing changes); build α with verifier/record; prove it with the
// key custody (hsm), which returns π and β = ProofToHash(π), computed by
// verifier/vrf; outcome and next state by verifier/qod; format the record
// (verifier/record), linked to the game's previous record by leaf hash;
// append it durably to the log; then store the new state, the receipt and
// the reply in one bbolt transaction, and reply.
// A game's secret r comes from the DRBG (rngd/entropy), is committed (H(r))
// in the start record and revealed in the end record. Any failure of the
// entropy, the keys or the log refuses the call with UNAVAILABLE and raises
// tirage_alarms_total; nothing is drawn twice: α depends only on the game,
// its secret, the pick index and the number, so a retried draw has the
// same outcome. A player's QUITTER (Quit) draws nothing: under the
// ticket's lock it seals a ticket_quit record, then stores the ticket as
// quit and the reply, waiting for the store's commit; a ticket quit never
// starts, a ticket started is never quit (quit.go).
//
// # State
//
// The log is the source of truth; the store (DATA/state.db) is a cache that
// [Rebuild] recreates from the log. At start the daemon compares the number
// of records the store applied with the log's size and applies the log's
// tail, or rebuilds, when they differ. The store also keeps the replies to
// request ids; the secrets of unfinished games, which the log cannot give
// back, are in a file of their own (DATA/secrets.db), which a rebuild leaves
// alone.
//
// See docs/rngd.md for the operator's guide and the API.
package rngd
