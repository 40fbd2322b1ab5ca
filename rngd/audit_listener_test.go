package rngd

import (
	"bytes"
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"golang.org/x/mod/sumdb/tlog"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	reflectionpb "google.golang.org/grpc/reflection/grpc_reflection_v1"
	"google.golang.org/grpc/status"

	adminv1 "tirage.fr/tirage/rngd/api/tirage/admin/v1"
	qodv1 "tirage.fr/tirage/rngd/api/tirage/qod/v1"
	"tirage.fr/tirage/transparency/auditpb/v1"
	"tirage.fr/tirage/transparency/checkpoint"
)

// auditorConn dials the auditors' listener as an auditor: it trusts the
// daemon's CA and, unless tc says otherwise, shows no client certificate.
func auditorConn(t *testing.T, td *testDaemon, tc *tls.Config) *grpc.ClientConn {
	t.Helper()
	if tc == nil {
		var err error
		if tc, err = clientTLSRoots(td.pki.CA()); err != nil {
			t.Fatal(err)
		}
	}
	cc, err := grpc.NewClient(td.d.Addrs().Audit, grpc.WithTransportCredentials(credentials.NewTLS(tc)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cc.Close() })
	return cc
}

// The auditors' gRPC surface is a listener of its own (issue 5, item 1): an
// auditor without a client certificate reads the log there, proofs
// included; that listener serves neither the game servers' nor the
// operator's service, and the game servers' listener no longer serves the
// audit service.
func TestAuditListener(t *testing.T) {
	var banner bytes.Buffer
	td := newTestDaemon(t, func(c *Config) { c.Banner = &banner })
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	addrs := td.d.Addrs()
	if addrs.Audit == "" || addrs.Audit == addrs.GRPC || addrs.Audit == addrs.HTTP {
		t.Fatalf("addresses: %+v", addrs)
	}
	if !strings.Contains(banner.String(), "audit (TLS)   "+addrs.Audit+"  (log audit service; no client certificate: public)") {
		t.Errorf("the banner does not name the audit listener:\n%s", banner.String())
	}

	// Some records: the key announcement, an emission, a manifest, a game.
	codes1 := td.emission("AUD", "2026-12-31", 5)
	r := start(t, td.client("server-a"), codes1[1])
	if _, err := td.d.engine.tlog.AwaitCheckpoint(ctx, r.Receipt.LogIndex+1); err != nil {
		t.Fatal(err)
	}

	au := auditpb.NewAuditClient(auditorConn(t, td, nil))
	vk, err := au.VerifierKeys(ctx, &auditpb.VerifierKeysRequest{})
	if err != nil || len(vk.Keys) == 0 {
		t.Fatalf("VerifierKeys without a client certificate: %v %v", vk, err)
	}
	v, err := checkpoint.ParseVerifierKey(vk.Keys[0])
	if err != nil {
		t.Fatal(err)
	}
	cpr, err := au.Checkpoint(ctx, &auditpb.CheckpointRequest{})
	if err != nil {
		t.Fatalf("Checkpoint without a client certificate: %v", err)
	}
	cp, err := checkpoint.Open(cpr.Note, v)
	if err != nil {
		t.Fatalf("the checkpoint does not verify with the log's key: %v", err)
	}
	if cp.Size <= r.Receipt.LogIndex || cp.Origin != devOrigin || cp.Size != cpr.Size {
		t.Fatalf("checkpoint %d %q (fields %d), want beyond the start's record %d", cp.Size, cp.Origin, cpr.Size, r.Receipt.LogIndex)
	}

	// Every entry (in as many answers as it takes), the game's start record
	// among them, each proved included in the signed checkpoint.
	var entries [][]byte
	for uint64(len(entries)) < cp.Size {
		e, err := au.Entries(ctx, &auditpb.EntriesRequest{Start: uint64(len(entries)), End: cp.Size, TreeSize: cp.Size})
		if err != nil || len(e.Entries) == 0 {
			t.Fatalf("Entries from %d: %v %v", len(entries), e, err)
		}
		entries = append(entries, e.Entries...)
	}
	if !bytes.Equal(entries[r.Receipt.LogIndex], r.Receipt.Record) {
		t.Fatalf("entry %d is not the start's record", r.Receipt.LogIndex)
	}
	for i, e := range entries {
		ip, err := au.InclusionProof(ctx, &auditpb.InclusionProofRequest{Leaf: &auditpb.InclusionProofRequest_Index{Index: uint64(i)}, TreeSize: cp.Size})
		if err != nil {
			t.Fatalf("InclusionProof %d: %v", i, err)
		}
		if err := tlog.CheckRecord(toHashes(ip.Hashes), int64(cp.Size), cp.Hash, int64(i), tlog.RecordHash(e)); err != nil {
			t.Fatalf("inclusion of entry %d: %v", i, err)
		}
	}
	ip, err := au.InclusionProof(ctx, &auditpb.InclusionProofRequest{Leaf: &auditpb.InclusionProofRequest_LeafHash{LeafHash: r.Receipt.LeafHash}})
	if err != nil || ip.Index != r.Receipt.LogIndex {
		t.Fatalf("InclusionProof by the start's leaf hash: %v %v", ip, err)
	}
	cons, err := au.ConsistencyProof(ctx, &auditpb.ConsistencyProofRequest{OldSize: 1, NewSize: cp.Size})
	if err != nil {
		t.Fatal(err)
	}
	if err := tlog.CheckTree(toHashes(cons.Hashes), int64(cp.Size), cp.Hash, 1, tlog.RecordHash(entries[0])); err != nil {
		t.Fatalf("consistency of 1 and %d: %v", cp.Size, err)
	}

	// Health and reflection, as on the game servers' listener; reflection
	// lists the audit service and nothing of the games' or the operator's.
	acc := auditorConn(t, td, nil)
	h, err := healthpb.NewHealthClient(acc).Check(ctx, &healthpb.HealthCheckRequest{Service: auditpb.Audit_ServiceDesc.ServiceName})
	if err != nil || h.Status != healthpb.HealthCheckResponse_SERVING {
		t.Fatalf("health on the audit listener: %v %v", h, err)
	}
	if services := listServices(t, ctx, acc); !strings.Contains(services, auditpb.Audit_ServiceDesc.ServiceName) ||
		strings.Contains(services, "tirage.qod") || strings.Contains(services, "tirage.admin") {
		t.Fatalf("reflection on the audit listener: %s", services)
	}
	// No game and no admin service there, even for a game server's
	// certificate.
	gtc, err := ClientTLS(td.pki.ClientCert("server-a"), td.pki.ClientKey("server-a"), td.pki.CA())
	if err != nil {
		t.Fatal(err)
	}
	for _, cc := range []*grpc.ClientConn{acc, auditorConn(t, td, gtc)} {
		_, err = qodv1.NewQuitteOuDoubleClient(cc).ListUnfinishedGames(ctx, &qodv1.ListUnfinishedGamesRequest{})
		wantStatus(t, err, codes.Unimplemented, "")
		_, err = qodv1.NewQuitteOuDoubleClient(cc).StartGame(ctx, &qodv1.StartGameRequest{RequestId: rid(), Code: codes1[2]})
		wantStatus(t, err, codes.Unimplemented, "")
		_, err = adminv1.NewAdminClient(cc).Status(ctx, &adminv1.StatusRequest{})
		wantStatus(t, err, codes.Unimplemented, "")
	}
	// The game servers' listener no longer serves the audit service.
	gcc := td.conn("server-a")
	_, err = auditpb.NewAuditClient(gcc).Checkpoint(ctx, &auditpb.CheckpointRequest{})
	wantStatus(t, err, codes.Unimplemented, "")
	if services := listServices(t, ctx, gcc); strings.Contains(services, "audit") {
		t.Fatalf("reflection on the game servers' listener: %s", services)
	}
	// The operator sees the listener among the daemon's addresses.
	st, err := td.admin().Status(ctx, &adminv1.StatusRequest{})
	if err != nil || !strings.Contains(fmt.Sprint(st), "audit "+addrs.Audit) {
		t.Fatalf("admin status: %v %v", st, err)
	}

	// Graceful shutdown stops it.
	td.stop()
	if c, err := net.DialTimeout("tcp", addrs.Audit, time.Second); err == nil {
		c.Close()
		t.Fatalf("the audit listener %s still accepts after shutdown", addrs.Audit)
	}
}

// audit.client_ca_file restricts the auditors' listener to certificates of
// that CA; audit.listen = "off" binds nothing.
func TestAuditListenerOptions(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	td := newTestDaemon(t, func(c *Config) { c.Audit.ClientCAFile = c.GRPC.ClientCAFile }) // the game servers' CA
	_, err := auditpb.NewAuditClient(auditorConn(t, td, nil)).Checkpoint(ctx, &auditpb.CheckpointRequest{})
	if status.Code(err) != codes.Unavailable {
		t.Fatalf("no client certificate with audit.client_ca_file: %v, want Unavailable (handshake refused)", err)
	}
	tc, err := ClientTLS(td.pki.ClientCert("server-b"), td.pki.ClientKey("server-b"), td.pki.CA())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := auditpb.NewAuditClient(auditorConn(t, td, tc)).VerifierKeys(ctx, &auditpb.VerifierKeysRequest{}); err != nil {
		t.Fatalf("a certificate of audit.client_ca_file: %v", err)
	}
	td.stop()

	off := newTestDaemon(t, func(c *Config) { c.Audit.Listen = "off" })
	if a := off.d.Addrs(); a.Audit != "" {
		t.Fatalf("audit.listen off: %+v", a)
	}
	_, err = auditpb.NewAuditClient(off.conn("server-a")).Checkpoint(ctx, &auditpb.CheckpointRequest{})
	wantStatus(t, err, codes.Unimplemented, "")
}

func toHashes(b [][]byte) []tlog.Hash {
	out := make([]tlog.Hash, len(b))
	for i := range b {
		copy(out[i][:], b[i])
	}
	return out
}

// listServices is what server reflection lists on cc.
func listServices(t *testing.T, ctx context.Context, cc *grpc.ClientConn) string {
	t.Helper()
	st, err := reflectionpb.NewServerReflectionClient(cc).ServerReflectionInfo(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer st.CloseSend()
	if err := st.Send(&reflectionpb.ServerReflectionRequest{MessageRequest: &reflectionpb.ServerReflectionRequest_ListServices{}}); err != nil {
		t.Fatal(err)
	}
	resp, err := st.Recv()
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprint(resp.GetListServicesResponse())
}

// An auditor's own mistake (here a range backwards) on the
// auditors' listener, which anyone may reach, is counted but logged at
// DEBUG only: at INFO, clients set the volume of the operator's logs. A
// game server's refused call stays at INFO.
func TestAuditRefusalsQuiet(t *testing.T) {
	td := newTestDaemon(t)
	ctx := t.Context()
	_, err := auditpb.NewAuditClient(auditConn(t, td)).Entries(ctx, &auditpb.EntriesRequest{Start: 5, End: 2})
	wantStatus(t, err, codes.InvalidArgument, "")
	_, err = td.client("server-a").GetGame(ctx, &qodv1.GetGameRequest{GameId: "no-such-game"})
	if status.Code(err) == codes.OK {
		t.Fatal("GetGame of no game passed")
	}
	var audit, game string
	for _, l := range strings.Split(string(td.logs()), "\n") {
		switch {
		case strings.Contains(l, "call refused") && strings.Contains(l, "method=Entries"):
			audit = l
		case strings.Contains(l, "call refused") && strings.Contains(l, "method=GetGame"):
			game = l
		}
	}
	if !strings.Contains(audit, "level=DEBUG") {
		t.Errorf("an auditor's INVALID_ARGUMENT logged %q, want it at DEBUG", audit)
	}
	if !strings.Contains(game, "level=INFO") {
		t.Errorf("a game server's refused call logged %q, want it at INFO", game)
	}
	if m := scrape(t, td); !strings.Contains(m, `code="InvalidArgument"`) {
		t.Error("the auditor's refused call is not counted in tirage_refusals_total")
	}
}
