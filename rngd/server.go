package rngd

import (
	"cmp"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"golang.org/x/net/netutil"
	"golang.org/x/sys/unix"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/reflection"
	"google.golang.org/grpc/status"
	"google.golang.org/grpc/tap"

	adminv1 "tirage.fr/tirage/rngd/api/tirage/admin/v1"
	qodv1 "tirage.fr/tirage/rngd/api/tirage/qod/v1"
	"tirage.fr/tirage/rngd/internal/boundedfile"
	auditpb "tirage.fr/tirage/transparency/auditpb/v1"
)

// Daemon is a running rngd: its four listeners (game servers' gRPC with
// mutual TLS, the auditors' gRPC, the operator's admin socket, the
// read-only HTTP listener) in front of the draw engine.
type Daemon struct {
	cfg         Config
	sched       string // the threads' scheduling policy, for the banner (applyScheduling)
	log         *slog.Logger
	engine      *engine
	health      *health.Server // the game servers' and the operator's listeners', and /healthz
	ready       *readiness     // sets health from the components' state
	auditHealth *health.Server // the auditors' listener's
	grpc        *grpc.Server
	audit       *grpc.Server // nil when audit.listen is "off"
	admin       *grpc.Server
	http        *http.Server
	lisGRPC     net.Listener
	lisAudit    net.Listener
	lisAdm      net.Listener
	lisHTTP     net.Listener
	crl         *revocation // grpc.client_crl_file's, nil without one

	// stopping is done once the shutdown begins: the health services'
	// Watch streams end then (stoppingHealth).
	stopping    context.Context
	stopWatches context.CancelFunc

	closeOnce sync.Once
	closers   []io.Closer // components, closed in reverse order after the listeners
}

// Addrs are the daemon's listen addresses; Audit and HTTP are empty when
// their listener is off.
type Addrs struct {
	GRPC, Audit, HTTP, Admin string
}

// Addrs returns the addresses the daemon listens on (useful with port 0).
func (d *Daemon) Addrs() Addrs {
	a := Addrs{GRPC: d.lisGRPC.Addr().String(), Admin: d.lisAdm.Addr().String()}
	if d.lisAudit != nil {
		a.Audit = d.lisAudit.Addr().String()
	}
	if d.lisHTTP != nil {
		a.HTTP = d.lisHTTP.Addr().String()
	}
	return a
}

// listeners are the daemon's: the TCP ones are bound, and the gRPC
// certificates loaded, before anything else is opened (Start), so that a
// taken port or a bad certificate refuses the start before the data
// directory is touched; the admin socket follows the keys (Start).
type listeners struct {
	tls                      *tls.Config // the gRPC listener's: mutual TLS
	auditTLS                 *tls.Config // the audit listener's: server certificate, client's optional
	crl                      *revocation // grpc.client_crl_file's CRLs, nil without one
	grpc, audit, http, admin net.Listener
}

func (l *listeners) close() {
	for _, x := range []net.Listener{l.grpc, l.audit, l.http, l.admin} {
		if x != nil {
			x.Close()
		}
	}
}

// openListeners loads the gRPC listeners' certificates and binds the TCP
// listeners (the admin socket is listenAdmin's).
func openListeners(cfg Config) (*listeners, error) {
	l := new(listeners)
	var err error
	var cas []*x509.Certificate
	if l.tls, cas, err = serverTLS(cfg); err != nil {
		return nil, err
	}
	if cfg.GRPC.ClientCRLFile != "" {
		if l.crl, err = openRevocation(cfg, cas); err != nil {
			return nil, err
		}
		l.tls.VerifyConnection = l.crl.verifyConnection
	}
	if cfg.Audit.Listen != "" {
		var pool *x509.CertPool
		if cfg.Audit.ClientCAFile != "" {
			if pool, err = loadTrustedPool(cfg, cfg.Audit.ClientCAFile); err != nil {
				return nil, fmt.Errorf("audit.client_ca_file: %w", err)
			}
		}
		l.auditTLS = readTLS(l.tls.Certificates[0], pool)
	}
	if l.grpc, err = net.Listen("tcp", cfg.GRPC.Listen); err != nil {
		return nil, fmt.Errorf("couldn't listen on grpc.listen %s: %w", cfg.GRPC.Listen, err)
	}
	l.grpc = netutil.LimitListener(l.grpc, cfg.GRPC.MaxConnections)
	if l.crl != nil {
		l.grpc = l.crl.listener(l.grpc)
	}
	if cfg.Audit.Listen != "" {
		if l.audit, err = net.Listen("tcp", cfg.Audit.Listen); err != nil {
			l.close()
			return nil, fmt.Errorf("couldn't listen on audit.listen %s: %w", cfg.Audit.Listen, err)
		}
		l.audit = netutil.LimitListener(l.audit, cfg.Audit.MaxConnections)
	}
	if cfg.HTTP.Listen != "" {
		if l.http, err = net.Listen("tcp", cfg.HTTP.Listen); err != nil {
			l.close()
			return nil, fmt.Errorf("couldn't listen on http.listen %s: %w", cfg.HTTP.Listen, err)
		}
		l.http = netutil.LimitListener(l.http, cfg.HTTP.MaxConnections)
	}
	return l, nil
}

// serverTLS is the game servers' listener's TLS (mutualTLS) of cfg.GRPC,
// with errors that name the config keys, and with the files checked: the
// daemon's TLS key is refused when group or others may access it, as a PIN
// file is (whoever reads it can answer the game servers and auditors as
// rngd), and the CA bundle when another user may change it
// (loadTrustedPool). A read of any of the three that has not answered
// within trustedReadTimeout refuses the start (readAtStart). The
// certificate's and the key's bytes are wiped once parsed (keyPair: the
// certificate file may hold the key too). It returns the bundle's CA
// certificates too, which a CRL of grpc.client_crl_file must be signed by.
// The audit listener serves the same certificate; rngd reads these files at
// the start only.
func serverTLS(cfg Config) (*tls.Config, []*x509.Certificate, error) {
	c := cfg.GRPC
	certPEM, err := readAtStart(cfg, c.CertFile, certName, readCertFile, cfg.certRead)
	if err != nil {
		return nil, nil, fmt.Errorf("grpc.cert_file %s: %w", c.CertFile, err)
	}
	keyPEM, err := readAtStart(cfg, c.KeyFile, keyName, readKeyFile, cfg.keyRead)
	if err != nil {
		clear(certPEM) // it may hold the key too (keyPair)
		return nil, nil, fmt.Errorf("grpc.key_file %s: %w", c.KeyFile, err)
	}
	pair, err := keyPair(certPEM, keyPEM)
	if err != nil {
		return nil, nil, fmt.Errorf("couldn't load the server certificate (grpc.cert_file %s, grpc.key_file %s): %w", c.CertFile, c.KeyFile, Pathless(err))
	}
	pool, cas, err := loadTrustedCAs(cfg, c.ClientCAFile)
	if err != nil {
		return nil, nil, fmt.Errorf("grpc.client_ca_file: %w", err)
	}
	return mutualTLS(pair, pool), cas, nil
}

// maxTLSFile bounds a TLS certificate, key or CA bundle rngd reads (a
// bundle of a few hundred certificates fits).
const maxTLSFile = 1 << 20

// readAtStart is the start's read of the TLS file at path, called name in
// errors: read(path), or hook(path) in its place when hook is set (tests:
// a read that hangs), on a goroutine of its own (readWithin): one that has
// not answered within trustedReadTimeout (a network file system that
// hangs, a FIFO nobody writes) refuses the start, which would otherwise
// wait for it without a word, SIGTERM unheeded.
func readAtStart(cfg Config, path, name string, read, hook func(path string) ([]byte, error)) ([]byte, error) {
	if hook != nil {
		read = hook
	}
	return readWithin(func() ([]byte, error) { return read(path) }, cmp.Or(cfg.trustedReadTimeout, trustedReadTimeout), name)
}

// certName and keyName name grpc.cert_file and grpc.key_file in
// readCertFile's, readKeyFile's and readWithin's errors.
const (
	certName = "the certificate"
	keyName  = "the key"
)

// readCertFile reads the daemon's certificate file, of at most maxTLSFile
// bytes. Its errors hold no path and nothing of the file.
func readCertFile(path string) ([]byte, error) {
	b, err := boundedfile.Read(path, maxTLSFile)
	if err != nil {
		return nil, fmt.Errorf("couldn't read %s: %w", certName, err)
	}
	return b, nil
}

// readKeyFile reads a private key file, a regular file (ReadStat) that
// only its owner, root or rngd's user, may access (SecretFileOpen). Its
// errors hold no path and nothing of the file.
func readKeyFile(path string) ([]byte, error) {
	b, fi, err := boundedfile.ReadStat(path, maxTLSFile)
	if err != nil {
		return nil, fmt.Errorf("couldn't read %s: %w", keyName, err)
	}
	if err := boundedfile.CheckOwner(fi, "the private key", "read it"); err != nil {
		clear(b)
		return nil, err
	}
	if SecretFileOpen(fi) {
		clear(b)
		return nil, fmt.Errorf("the private key is open to group or others (mode %04o): chmod 600 it, owned by the user rngd runs as (uid %d) — give rngd its own copy if another service shares it", fi.Mode().Perm(), os.Geteuid())
	}
	return b, nil
}

// loadTrustedPool is loadPool for a CA bundle rngd trusts to admit
// clients: whoever may change it may add a CA of their own and make
// certificates for any identity (a game server's: its games), so it must
// be owned by root or rngd's user and writable by neither group nor
// others, as log.witness_policy. The file checked is the file read. A
// read that has not answered within trustedReadTimeout (a network file
// system that hangs) refuses the start, as grpc.client_crl_file's does
// (readAtStart): the start would wait for it without a word, and SIGTERM
// would not end it.
func loadTrustedPool(cfg Config, caFile string) (*x509.CertPool, error) {
	pool, _, err := loadTrustedCAs(cfg, caFile)
	return pool, err
}

// loadTrustedCAs is loadTrustedPool, with the bundle's certificates.
func loadTrustedCAs(cfg Config, caFile string) (*x509.CertPool, []*x509.Certificate, error) {
	read := func(path string) ([]byte, error) { return readTrusted(path, caBundleName, "add a CA of their own") }
	b, err := readAtStart(cfg, caFile, caBundleName, read, cfg.caRead)
	if err != nil {
		return nil, nil, err
	}
	return caBundle(b, caFile)
}

// caBundleName names a CA bundle in readTrusted's, readWithin's and
// readTLSFile's errors.
const caBundleName = "the ca bundle"

// readTrusted reads a file that says which clients rngd admits (a CA
// bundle, a CRL), called name in errors: it must be owned by root or
// rngd's user and writable by neither group nor others, who could
// otherwise do what could says. The file checked is the file read.
func readTrusted(path, name, could string) ([]byte, error) {
	b, fi, err := boundedfile.ReadStat(path, maxTLSFile)
	if err != nil {
		return nil, fmt.Errorf("couldn't read %s: %w", name, err)
	}
	if err := boundedfile.CheckWriters(fi, name+" "+path, could, "go-w it"); err != nil {
		return nil, err
	}
	return b, nil
}

// streamWorkers is how many goroutines of each TCP listener's server serve
// its calls, one after another (grpc.NumStreamWorkers), instead of a new
// goroutine a call: a worker keeps the stack a call grew, where each new
// goroutine grew its own again (runtime.newstack was 4 % of a peak's CPU).
// A call that finds every worker busy gets a goroutine of its own, as
// without workers. The daemon's CPU per draw at peak fell by about 9 %
// (443 to 405 µs, six alternating pairs of the DaemonProcess benchmark);
// 256 workers hold a few MiB of stacks when idle.
const streamWorkers = 256

// newDaemon makes the servers around an engine, on listeners already bound.
// registerAudit registers the log's audit service; it is served on the
// auditors' listener only (none when audit.listen is "off"), never on the
// game servers': an auditor needs no game server's certificate.
func newDaemon(cfg Config, e *engine, l *listeners, extraHTTP map[string]http.Handler, registerAudit func(*grpc.Server)) *Daemon {
	d := &Daemon{cfg: cfg, log: cfg.Logger, engine: e, health: health.NewServer(), auditHealth: health.NewServer(),
		lisGRPC: l.grpc, lisAudit: l.audit, lisAdm: l.admin, lisHTTP: l.http, crl: l.crl}
	d.ready = &readiness{d: d, failing: map[string]bool{}}
	d.stopping, d.stopWatches = context.WithCancel(context.Background())
	// The TCP listeners' servers: the same limits and observation, their
	// own credentials.
	// The game servers' calls hold the engine's gate (held); the
	// auditors' read the log only. unary is the listener's whole chain,
	// observed first (observed): Play runs its calls through it too.
	observed := func(u ...grpc.UnaryServerInterceptor) []grpc.UnaryServerInterceptor {
		return append([]grpc.UnaryServerInterceptor{d.observe}, u...)
	}
	tcpServer := func(creds credentials.TransportCredentials, streams uint32, unary []grpc.UnaryServerInterceptor, stream []grpc.StreamServerInterceptor) *grpc.Server {
		return grpc.NewServer(
			grpc.Creds(creds),
			grpc.ForceServerCodecV2(replyCodec{}),
			grpc.ConnectionTimeout(tcpHandshakeTimeout),
			grpc.MaxConcurrentStreams(streams),
			grpc.NumStreamWorkers(streamWorkers),
			grpc.MaxRecvMsgSize(tcpMaxRecvMsgSize),
			grpc.KeepaliveEnforcementPolicy(keepalive.EnforcementPolicy{MinTime: 10 * time.Second, PermitWithoutStream: true}),
			grpc.KeepaliveParams(tcpKeepalive),
			grpc.ChainUnaryInterceptor(unary...),
			grpc.ChainStreamInterceptor(append([]grpc.StreamServerInterceptor{d.observeStream}, stream...)...),
		)
	}
	// A call of a connection whose certificate was revoked since its
	// handshake is refused first (revocation), before the engine's gate.
	// Its connection is closed when the CRL is taken (revocation.listener, creds).
	creds := credentials.NewTLS(l.tls)
	unary, stream := []grpc.UnaryServerInterceptor{d.held}, []grpc.StreamServerInterceptor(nil)
	if d.crl != nil {
		d.crl.observe(e.metrics)
		creds = d.crl.creds(creds)
		unary, stream = append([]grpc.UnaryServerInterceptor{d.crl.unary}, unary...), []grpc.StreamServerInterceptor{d.crl.stream}
	}
	gameUnary := observed(unary...)
	d.grpc = tcpServer(creds, cfg.GRPC.MaxConcurrentStreams, gameUnary, stream)
	qodv1.RegisterQuitteOuDoubleServer(d.grpc, newQodService(e, gameUnary, d.stopping, &playSlots{maxInFlight: int(cfg.GRPC.MaxConcurrentStreams)}))
	healthpb.RegisterHealthServer(d.grpc, stoppingHealth{checkedHealth{d.health, d.ready}, d.stopping})
	reflection.Register(d.grpc)

	if d.lisAudit != nil {
		d.audit = tcpServer(credentials.NewTLS(l.auditTLS), auditMaxConcurrentStreams, observed(), nil)
		if registerAudit != nil {
			registerAudit(d.audit)
		}
		healthpb.RegisterHealthServer(d.audit, stoppingHealth{d.auditHealth, d.stopping})
		reflection.Register(d.audit)
	}

	// The admin socket's server: a refused peer's call is refused by the
	// tap (adminTap), on the transport's goroutine as its headers arrive,
	// before a stream or its body is taken in; the interceptors' gate
	// (adminGate, outermost in the chain, before a call is observed or
	// handled) checks again. The peer credentials both check come with the
	// connection (peerCredListener, adminCreds). An admitted peer's calls
	// are bounded too (adminMaxConcurrentStreams, adminMaxRecvMsgSize).
	if pl, ok := l.admin.(*peerCredListener); ok {
		pl.observe(d.log, e.metrics.adminRefused)
	}
	d.admin = grpc.NewServer(grpc.Creds(adminCreds{}),
		grpc.InTapHandle(adminTap),
		grpc.MaxConcurrentStreams(adminMaxConcurrentStreams),
		grpc.MaxRecvMsgSize(adminMaxRecvMsgSize),
		grpc.ChainUnaryInterceptor(adminGate, d.observe, d.held), grpc.ChainStreamInterceptor(adminGateStream, d.observeStream))
	adminv1.RegisterAdminServer(d.admin, &adminService{e: e, addrs: func() []string {
		a := d.Addrs()
		return []string{"grpc " + a.GRPC, "audit " + a.Audit, "http " + a.HTTP, "admin unix:" + a.Admin}
	}})
	healthpb.RegisterHealthServer(d.admin, stoppingHealth{checkedHealth{d.health, d.ready}, d.stopping})
	reflection.Register(d.admin)

	if d.lisHTTP != nil {
		mux := http.NewServeMux()
		mux.Handle("/metrics", promhttp.HandlerFor(e.metrics.reg, promhttp.HandlerOpts{}))
		mux.HandleFunc("/healthz", d.healthz)
		for p, h := range extraHTTP {
			mux.Handle(p, h)
		}
		d.http = &http.Server{Handler: mux,
			MaxHeaderBytes:    httpMaxHeaderBytes,
			ReadHeaderTimeout: httpTimeouts.readHeader,
			ReadTimeout:       httpTimeouts.read,
			WriteTimeout:      httpTimeouts.write,
			IdleTimeout:       httpTimeouts.idle,
		}
	}
	// The health service says SERVING only if every component is healthy
	// (a Watch client sees the truth from the start). Read here, on the
	// starting goroutine, not in Serve's.
	d.ready.check()
	return d
}

// Serve serves until ctx is done, then shuts down gracefully: the health
// service turns NOT_SERVING, its Watch streams end, in-flight calls are
// drained (for at most drainTimeout), and the components are closed.
func (d *Daemon) Serve(ctx context.Context) error {
	errc := make(chan error, 4)
	go func() { errc <- d.grpc.Serve(d.lisGRPC) }()
	go func() { errc <- d.admin.Serve(d.lisAdm) }()
	if d.audit != nil {
		go func() { errc <- d.audit.Serve(d.lisAudit) }()
	}
	if d.http != nil {
		go func() {
			if err := d.http.Serve(d.lisHTTP); !errors.Is(err, http.ErrServerClosed) {
				errc <- err
			}
		}()
	}
	sweepDone := make(chan struct{})
	sweepCtx, stopSweep := context.WithCancel(ctx)
	// Readiness is read again after every sweep (and at every probe).
	go func() { defer close(sweepDone); d.engine.sweepLoop(sweepCtx, func() { d.ready.check() }) }()
	crlDone := make(chan struct{})
	if d.crl == nil {
		close(crlDone)
	} else {
		every := cmp.Or(d.cfg.crlPoll, crlPollInterval)
		go func() { defer close(crlDone); d.crl.watch(sweepCtx, every) }()
	}
	d.auditHealth.SetServingStatus("", healthpb.HealthCheckResponse_SERVING)
	d.auditHealth.SetServingStatus(auditpb.Audit_ServiceDesc.ServiceName, healthpb.HealthCheckResponse_SERVING)

	var err error
	select {
	case <-ctx.Done():
	case err = <-errc:
		err = fmt.Errorf("a listener failed: %w", err)
	}
	stopSweep()
	<-sweepDone
	<-crlDone
	d.shutdown(drainTimeout)
	return err
}

// shutdown drains in-flight calls for at most drain, then closes everything.
// The health services turn NOT_SERVING and their Watch streams end
// (stoppingHealth): a load balancer's Watch is not a call to drain, and
// would otherwise hold the drain until its timeout, when every call still
// in flight is stopped. The gRPC servers drain together.
func (d *Daemon) shutdown(drain time.Duration) {
	d.closeOnce.Do(func() {
		d.log.Info("shutting down: draining in-flight calls")
		d.health.Shutdown()
		d.auditHealth.Shutdown()
		d.stopWatches()
		servers := []*grpc.Server{d.grpc, d.admin}
		if d.audit != nil {
			servers = append(servers, d.audit)
		}
		var wg sync.WaitGroup
		for _, s := range servers {
			wg.Go(s.GracefulStop)
		}
		done := make(chan struct{})
		go func() {
			wg.Wait()
			close(done)
		}()
		t := time.NewTimer(drain)
		select {
		case <-done:
		case <-t.C:
			d.log.Warn("drain timed out: stopping the remaining calls")
			for _, s := range servers {
				s.Stop()
			}
			<-done
		}
		t.Stop()
		if d.http != nil {
			sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			d.http.Shutdown(sctx)
			cancel()
		}
		d.lisAdm.Close() // removes the socket (closed already by the admin server, unless it never served)
		// The TCP listeners too, for a daemon that never served.
		for _, l := range []net.Listener{d.lisGRPC, d.lisAudit, d.lisHTTP} {
			if l != nil {
				l.Close()
			}
		}
		for i := len(d.closers) - 1; i >= 0; i-- {
			if err := d.closers[i].Close(); err != nil {
				d.log.Error("close failed", "err", err)
			}
		}
		d.log.Info("stopped")
	})
}

// stoppingHealth is a listener's health service whose Watch streams end
// when the daemon's shutdown begins (stopping is done): after NOT_SERVING,
// with UNAVAILABLE "rngd is shutting down". gRPC's health server sends
// NOT_SERVING to its Watch streams when it is shut down but does not end
// them, and a graceful stop waits for every stream.
type stoppingHealth struct {
	healthpb.HealthServer
	stopping context.Context
}

// Watch is the health service's, ended when the shutdown begins.
func (h stoppingHealth) Watch(req *healthpb.HealthCheckRequest, ss healthpb.Health_WatchServer) error {
	ctx, cancel := context.WithCancel(ss.Context())
	defer cancel()
	defer context.AfterFunc(h.stopping, cancel)()
	w := &stoppingWatch{Health_WatchServer: ss, ctx: ctx, last: -1}
	err := h.HealthServer.Watch(req, w)
	if h.stopping.Err() == nil || ss.Context().Err() != nil {
		return err // the client's end, or the service's own
	}
	// The health server may have seen its stream end before it sent the
	// NOT_SERVING of its shutdown.
	if w.last != healthpb.HealthCheckResponse_NOT_SERVING {
		if err := ss.Send(&healthpb.HealthCheckResponse{Status: healthpb.HealthCheckResponse_NOT_SERVING}); err != nil {
			return status.Error(codes.Canceled, "the stream has ended")
		}
	}
	return status.Error(codes.Unavailable, "rngd is shutting down")
}

// stoppingRecv is a reflection stream (grpcurl's, an API browser's) as the
// reflection service sees it: that service reads requests until the client
// ends the stream, so once the daemon's shutdown begins (stopping is done)
// a read ends it with UNAVAILABLE "rngd is shutting down", as stoppingHealth
// ends Watch streams; else an idle grpcurl session held the drain until its
// timeout, when every call still in flight was stopped. The read cut short
// goes on in its goroutine until the stream ends, into a message nobody
// reads.
type stoppingRecv struct {
	grpc.ServerStream
	stopping context.Context
}

func (s stoppingRecv) RecvMsg(m any) error {
	errShutdown := status.Error(codes.Unavailable, "rngd is shutting down")
	if s.stopping.Err() != nil {
		return errShutdown
	}
	done := make(chan error, 1)
	go func() { done <- s.ServerStream.RecvMsg(m) }()
	select {
	case err := <-done:
		return err
	case <-s.stopping.Done():
		return errShutdown
	}
}

// stoppingWatch is a Watch stream as the health server sees it: its
// context ends with the shutdown too, and it remembers the last status
// sent.
type stoppingWatch struct {
	healthpb.Health_WatchServer
	ctx  context.Context
	last healthpb.HealthCheckResponse_ServingStatus
}

func (w *stoppingWatch) Context() context.Context { return w.ctx }

func (w *stoppingWatch) Send(r *healthpb.HealthCheckResponse) error {
	if err := w.Health_WatchServer.Send(r); err != nil {
		return err
	}
	w.last = r.GetStatus()
	return nil
}

// healthzFailed is what /healthz says of a failed component.
const healthzFailed = "failed: rngctl qod status and rngd's log say why"

func (d *Daemon) healthz(w http.ResponseWriter, r *http.Request) {
	comps := d.ready.check()
	resp, _ := d.health.Check(r.Context(), &healthpb.HealthCheckRequest{})
	st := resp.GetStatus().String()
	w.Header().Set("Content-Type", "application/json")
	if resp.GetStatus() != healthpb.HealthCheckResponse_SERVING {
		w.WriteHeader(http.StatusServiceUnavailable)
	}
	// Which component failed, not its own words: anyone who reaches
	// http.listen reads /healthz, and a component's error (token and key
	// labels, PKCS#11 return codes, file paths, the log server's or the
	// database's errors) is the operator's only, as in a refusal
	// (refuseHiding): rngctl qod status and rngd's log say it.
	byName := map[string]string{}
	for _, c := range comps {
		byName[c.name] = "ok"
		if c.err != nil {
			byName[c.name] = healthzFailed
		}
	}
	json.NewEncoder(w).Encode(map[string]any{"status": st, "components": byName, "dev_mode": d.cfg.Dev, "version": d.cfg.Version})
}

// observe times every unary call and counts its refusal, if any, by
// reason (observed).
func (d *Daemon) observe(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	start := time.Now()
	d.engine.metrics.inFlight.Inc()
	resp, err := handler(ctx, req)
	d.engine.metrics.inFlight.Dec()
	return resp, d.observed(ctx, info.FullMethod, start, err)
}

// unheld are the operator's calls that read no game state and answer
// during the catch-up after an outage too: what the daemon and its log and
// entropy are doing.
var unheld = map[string]bool{
	adminv1.Admin_Status_FullMethodName:        true,
	adminv1.Admin_EntropyStatus_FullMethodName: true,
}

// held runs a unary call holding the engine's gate for reading
// (engine.enter): while the log's recovery from an outage catches the state
// up with the log (engine.resync), calls are refused at once, not held.
// ImportManifest, the one streamed call, enters once its upload is over.
func (d *Daemon) held(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	if unheld[info.FullMethod] {
		return handler(ctx, req)
	}
	release, err := d.engine.enter()
	if err != nil {
		return nil, err
	}
	defer release()
	return handler(ctx, req)
}

// observeStream does for streamed calls what observe does for unary ones
// (ImportManifest). The long-lived streams of the infrastructure
// (reflection, health's Watch) are not calls of ours and are not timed;
// reflection's end at shutdown (stoppingRecv).
func (d *Daemon) observeStream(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
	if strings.HasPrefix(info.FullMethod, "/grpc.reflection.") {
		return handler(srv, stoppingRecv{ss, d.stopping})
	}
	// Play's calls are observed one by one, as unary calls (qodService.Play).
	if !strings.HasPrefix(info.FullMethod, "/tirage.") || info.FullMethod == qodv1.QuitteOuDouble_Play_FullMethodName {
		return handler(srv, ss)
	}
	start := time.Now()
	d.engine.metrics.inFlight.Inc()
	err := handler(srv, ss)
	d.engine.metrics.inFlight.Dec()
	return d.observed(ss.Context(), info.FullMethod, start, err)
}

// observed records a call that took from start and returned err: its
// latency, and a refusal by reason and code (logged, at error level for a
// failure of the appliance). The refusal goes back with its reason detail
// (ErrorInfo), the fallback of its code when it had none.
func (d *Daemon) observed(ctx context.Context, fullMethod string, start time.Time, err error) error {
	method := fullMethod[strings.LastIndexByte(fullMethod, '/')+1:]
	d.engine.metrics.callSeconds.WithLabelValues(method).Observe(time.Since(start).Seconds())
	if err == nil {
		return nil
	}
	err = withFallbackReason(err)
	d.engine.metrics.refused(err)
	// A refusal's hidden cause (refuseHiding) goes to the log, and back in
	// the message on the operator's admin socket only.
	public, cause := hiddenCause(status.Convert(err))
	full := operatorMessage(public.Message(), cause)
	if cause != "" {
		if strings.HasPrefix(fullMethod, "/"+adminv1.Admin_ServiceDesc.ServiceName+"/") {
			p := public.Proto()
			p.Message = full
			public = status.FromProto(p)
		}
		err = public.Err()
	}
	lvl := slog.LevelInfo
	c := status.Code(err)
	switch {
	case c == codes.Internal || c == codes.Unavailable || c == codes.DataLoss:
		lvl = slog.LevelError
	case strings.HasPrefix(fullMethod, "/tirage.transparency.audit."):
		// An auditor's own mistake (a leaf the log does not hold, a bad
		// range) on a listener anyone may reach: counted, logged at
		// debug only, so that clients do not set the volume of the
		// operator's logs.
		lvl = slog.LevelDebug
	}
	// "detail", not "msg": slog's handlers write the record's message under
	// "msg" (and its time, level and source under "time", "level",
	// "source"), and a JSON line with a key twice is read differently by
	// different parsers (most keep the last).
	d.log.Log(ctx, lvl, "call refused", "method", method, "code", c.String(), "reason", string(reasonOf(err)), "detail", full)
	return err
}

// callerIdentity is the game server's identity from its verified client
// certificate.
func callerIdentity(ctx context.Context) (string, error) {
	p, ok := peer.FromContext(ctx)
	if !ok {
		return "", refuse(reasonClientCertRequired, "no peer")
	}
	leaf := peerLeaf(p)
	if leaf == nil {
		return "", refuse(reasonClientCertRequired, "a verified client certificate is required")
	}
	id := Identity(leaf)
	if id == "" {
		return "", refuse(reasonIdentityInvalid, "client certificate names no identity (no DNS SAN, no CN)")
	}
	if err := checkIdentity(id); err != nil {
		return "", refuse(reasonIdentityInvalid, "client certificate identity %.80q: %v", id, err)
	}
	return id, nil
}

// peerLeaf is the client certificate p's TLS handshake verified, nil
// without one.
func peerLeaf(p *peer.Peer) *x509.Certificate {
	ti, ok := p.AuthInfo.(credentials.TLSInfo)
	if !ok {
		return nil
	}
	return verifiedLeaf(ti.State)
}

// verifiedLeaf is the client certificate a TLS handshake verified, nil
// without one.
func verifiedLeaf(cs tls.ConnectionState) *x509.Certificate {
	if len(cs.VerifiedChains) == 0 || len(cs.VerifiedChains[0]) == 0 {
		return nil
	}
	return cs.VerifiedChains[0][0]
}

// maxIdentity bounds a game server's identity (a DNS name has at most 253
// characters).
const maxIdentity = 255

// checkIdentity refuses what a game server's identity cannot be: it goes
// into its records (printable ASCII only: verifier/record), its game ids
// and the keys of its unfinished games ("identity NUL game id": with a NUL
// in it, "a" would list the games of "a NUL b"), and it must stay apart
// from the operator's request ids (adminServer, "#admin"). Refused before
// anything is drawn, not at the record's formatting.
func checkIdentity(id string) error {
	if len(id) > maxIdentity {
		return fmt.Errorf("%d characters, at most %d", len(id), maxIdentity)
	}
	for i := 0; i < len(id); i++ {
		switch c := id[i]; {
		case c == '#':
			return fmt.Errorf("character %d is '#', which no identity may hold (it marks the operator's requests)", i+1)
		case c < 0x20 || c > 0x7e:
			return fmt.Errorf("character %d is not printable ASCII", i+1)
		}
	}
	return nil
}

// listenAdmin opens the admin Unix socket (mode adminSocketMode) and admits
// only peers whose kernel credentials name an allowed uid. A socket already
// at the path is replaced only when stale (nothing answers on it): one
// another process serves (another rngd, with another data_dir but the same
// admin.socket) is refused, never taken over.
//
// The socket's directory must be owned by root or rngd's user and writable
// by neither group nor others (adminSocketDir): whoever else can write to it
// could replace the socket (and answer rngctl in rngd's place) or, while it
// is set up, put a symlink in its place.
//
// The socket appears at admin.socket with its final mode, and no call made
// on a path can be turned to another file. rngd (maybe root) never chmods
// admin.socket by its name: chmod follows a symlink, and another user who
// swapped the fresh socket for one between the bind and the chmod would get
// any file made 0666. Nor does it set a process-wide umask around the bind
// (another goroutine's files would be made under it). Instead, everything
// is done relative to descriptors: the socket's directory is opened once
// (later renames on the path do not move it); a fresh private directory
// (0700, rngd's) is made in it; the socket is bound there, through
// /proc/self/fd, and given its mode there, where no other user can create
// or replace a name; then it is hard-linked into place with linkat, which
// never follows a symlink at its destination and never replaces what is
// there (EEXIST: another process took the name meanwhile, refused like a
// socket in use), and the private directory is removed.
func listenAdmin(c AdminConfig) (_ net.Listener, err error) {
	dirPath, base := filepath.Dir(c.Socket), filepath.Base(c.Socket)
	dirfd, err := unix.Open(dirPath, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("couldn't open admin.socket's directory %s: %w", dirPath, err)
	}
	defer unix.Close(dirfd)
	if err := adminSocketDir(dirfd, dirPath); err != nil {
		return nil, err
	}
	var st unix.Stat_t
	if err := unix.Fstatat(dirfd, base, &st, unix.AT_SYMLINK_NOFOLLOW); err == nil {
		if st.Mode&unix.S_IFMT != unix.S_IFSOCK {
			return nil, fmt.Errorf("admin.socket %s exists and is not a socket: refusing to replace it", c.Socket)
		}
		conn, err := net.DialTimeout("unix", c.Socket, time.Second)
		switch {
		case err == nil:
			conn.Close()
			return nil, fmt.Errorf("admin.socket %s is in use by another process (another rngd?): refusing to take it over", c.Socket)
		case errors.Is(err, syscall.ECONNREFUSED):
			// A stale socket from a daemon that was killed (unlink never
			// follows a symlink).
			if err := unix.Unlinkat(dirfd, base, 0); err != nil {
				return nil, fmt.Errorf("couldn't remove the stale admin.socket %s: %w", c.Socket, err)
			}
		default:
			return nil, fmt.Errorf("admin.socket %s exists and couldn't be checked (in use by another process?): %w", c.Socket, err)
		}
	}

	// The private directory, made through the directory's descriptor.
	tmp, err := os.MkdirTemp(procFD(dirfd, ""), "."+base+".tmp-")
	if err != nil {
		return nil, fmt.Errorf("couldn't make a private directory for admin.socket in %s (is /proc mounted?): %w", dirPath, Pathless(err))
	}
	tmpName := filepath.Base(tmp)
	defer unix.Unlinkat(dirfd, tmpName, unix.AT_REMOVEDIR)
	tmpfd, err := unix.Openat(dirfd, tmpName, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("couldn't open admin.socket's private directory in %s: %w", dirPath, err)
	}
	defer unix.Close(tmpfd)
	const name = "s"
	defer unix.Unlinkat(tmpfd, name, 0)

	l, err := net.Listen("unix", procFD(tmpfd, name))
	if err != nil {
		return nil, fmt.Errorf("couldn't listen on admin.socket %s: %w", c.Socket, err)
	}
	// Its name here is temporary: closing it removes admin.socket
	// (peerCredListener.Close), not this one.
	l.(*net.UnixListener).SetUnlinkOnClose(false)
	defer func() {
		if err != nil {
			l.Close()
		}
	}()
	if afterAdminBind != nil {
		afterAdminBind()
	}
	// chmod follows a symlink, but no one else can put one in the
	// private directory.
	if err := unix.Fchmodat(tmpfd, name, uint32(adminSocketMode(c.AllowedUIDs)), 0); err != nil {
		return nil, fmt.Errorf("couldn't set admin.socket's mode: %w", err)
	}
	if err := unix.Fstatat(tmpfd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return nil, fmt.Errorf("couldn't check admin.socket: %w", err)
	}
	if err := unix.Linkat(tmpfd, name, dirfd, base, 0); err != nil {
		if errors.Is(err, unix.EEXIST) {
			return nil, fmt.Errorf("admin.socket %s was taken by another process while rngd set it up (another rngd?): refusing to take it over", c.Socket)
		}
		return nil, fmt.Errorf("couldn't put admin.socket %s in place: %w", c.Socket, err)
	}
	return &peerCredListener{Listener: l, allowed: c.AllowedUIDs,
		addr: &net.UnixAddr{Name: c.Socket, Net: "unix"}, dev: uint64(st.Dev), ino: st.Ino}, nil
}

// afterAdminBind, when set (tests only), runs in listenAdmin between the
// bind and the socket's chmod: the moment another user would swap a
// socket bound at admin.socket itself for a symlink.
var afterAdminBind func()

// procFD is name in the directory open at fd, as a path that reaches it
// through the descriptor (not through the directory's path, which another
// process could rename meanwhile).
func procFD(fd int, name string) string {
	p := "/proc/self/fd/" + strconv.Itoa(fd)
	if name != "" {
		p += "/" + name
	}
	return p
}

// adminSocketDir refuses a directory for the admin socket that another user
// can write to: writable by group or others (sticky or not: simplest sound
// rule; /tmp is refused), or owned by a user other than root or rngd's own
// (who could make it writable). dir is only for the message.
func adminSocketDir(fd int, dir string) error {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return fmt.Errorf("couldn't check admin.socket's directory %s: %w", dir, err)
	}
	if self := os.Geteuid(); st.Uid != 0 && int(st.Uid) != self {
		return fmt.Errorf("admin.socket's directory %s is owned by uid %d, neither root nor rngd's user (%d): that user could replace the socket; put admin.socket in a directory of root's or rngd's, e.g. /run/tirage", dir, st.Uid, self)
	}
	if perm := st.Mode & 0o7777; perm&0o022 != 0 {
		return fmt.Errorf("admin.socket's directory %s is writable by group or others (mode %04o): another user could replace the socket; make it 0755 (or 0750 with the operators' group), e.g. /run/tirage", dir, perm)
	}
	return nil
}

// adminSocketMode is the admin socket's permission. Connecting to a Unix
// socket needs write permission on it, so with 0600 the kernel refuses
// every user but the daemon's own (and root) before admission is checked.
// File permissions name one owner and one group while admin.allowed_uids
// is a list of users: rather than ask for a group as well, a second list
// (in /etc/group) that would have to agree with the first, the socket is
// opened to every local user (0666) as soon as allowed_uids names another
// user, and the list itself is the access control: the kernel's peer
// credentials (SO_PEERCRED, taken at connect and not forgeable) are read
// on every connection as it is accepted (peerCredListener), and every call
// of a user not on the list is refused PERMISSION_DENIED before any
// handler runs (adminGate). Otherwise (the daemon's own user, root) it
// stays 0600: the file system refuses everyone else as well.
func adminSocketMode(allowed []int) os.FileMode {
	self := os.Getuid()
	for _, u := range allowed {
		if u != self && u != 0 {
			return 0o666
		}
	}
	return 0o600
}

// unsearchableDir is the first directory on the path to the admin socket
// that users other than its owner and group cannot search (no o+x): with
// it an allowed user outside that group cannot reach the socket. "" when
// there is none, or when only the daemon's own user and root are allowed.
func unsearchableDir(c AdminConfig) string {
	if adminSocketMode(c.AllowedUIDs) == 0o600 {
		return ""
	}
	p, err := filepath.Abs(c.Socket)
	if err != nil {
		return ""
	}
	for dir := filepath.Dir(p); ; dir = filepath.Dir(dir) {
		if fi, err := os.Stat(dir); err == nil && fi.Mode().Perm()&0o001 == 0 {
			return dir
		}
		if dir == filepath.Dir(dir) {
			return ""
		}
	}
}

// peerCredListener is the admin socket's listener. Every connection it
// accepts carries its peer's kernel credentials (adminConn), read with
// SO_PEERCRED as it is accepted; adminCreds hands them to gRPC as the
// connection's AuthInfo, and adminGate refuses every call whose peer is not
// in admin.allowed_uids.
//
// A refused peer's connection is served, not closed: closing it before
// gRPC spoke left the client with "error reading server preface:
// connection reset by peer" (UNAVAILABLE), which reads as a daemon that is
// down, and rngd logged nothing. Now its calls get PERMISSION_DENIED "uid N
// is not in rngd's admin.allowed_uids" (a gRPC client cannot read anything
// written before the server's preface, so no plain message would do), and
// rngd logs the refusal (rate-limited: refusals) and counts it
// (tirage_admin_refused_total).
//
// The security property stays: a refused peer reaches no admin handler,
// not even health or reflection. adminGate is the first interceptor of
// every unary and streamed call on the admin server, and it refuses unless
// the call's AuthInfo is an adminPeer that was allowed: a connection
// without credentials (not one of this listener's) is refused too, never
// admitted by default. What a refused peer does reach is gRPC's HTTP/2
// framing and the decoding of a request message (as an allowed user's
// calls do). What it can hold is bounded: a refused connection is closed
// after refusedConnLifetime (enough for its calls' answers), and at most
// maxRefusedConns are open at once; beyond that one is closed at once, as
// before (still logged and counted).
type peerCredListener struct {
	net.Listener
	allowed []int
	addr    *net.UnixAddr // admin.socket (the listener was bound at another name)
	dev     uint64        // the socket's inode, for Close
	ino     uint64

	// Set by observe before the listener serves; nil: not logged, not
	// counted (a listener used alone, in tests).
	log          *slog.Logger
	refusedTotal prometheus.Counter
	refusals     refusalLog

	lifetime    time.Duration // a refused connection's, refusedConnLifetime
	maxRefused  int32         // maxRefusedConns
	refusedOpen atomic.Int32  // refused connections open now
}

const (
	// refusedConnLifetime is how long a refused peer's connection is
	// served: its calls are answered at once, PERMISSION_DENIED.
	refusedConnLifetime = 5 * time.Second
	// maxRefusedConns bounds the refused peers' connections open at once.
	maxRefusedConns = 8
)

// observe sets where refused connections are logged and counted.
func (l *peerCredListener) observe(log *slog.Logger, refused prometheus.Counter) {
	l.log, l.refusedTotal = log, refused
}

// Addr is admin.socket.
func (l *peerCredListener) Addr() net.Addr { return l.addr }

// Close closes the socket and removes admin.socket, if it is still this
// socket (not one another process put there since).
func (l *peerCredListener) Close() error {
	err := l.Listener.Close()
	var st unix.Stat_t
	if unix.Lstat(l.addr.Name, &st) == nil && uint64(st.Dev) == l.dev && st.Ino == l.ino {
		os.Remove(l.addr.Name)
	}
	return err
}

// Accept returns the next connection as an *adminConn: its peer's
// credentials, and whether admin.allowed_uids names its uid. A connection
// whose credentials cannot be read is closed.
func (l *peerCredListener) Accept() (net.Conn, error) {
	for {
		conn, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		p, ok := l.admit(conn)
		if !ok {
			conn.Close()
			continue
		}
		c := &adminConn{Conn: conn, peer: p}
		if p.allowed {
			return c, nil
		}
		l.refused(p)
		most, lifetime := l.maxRefused, l.lifetime
		if most == 0 {
			most = maxRefusedConns
		}
		if lifetime == 0 {
			lifetime = refusedConnLifetime
		}
		if l.refusedOpen.Add(1) > most {
			l.refusedOpen.Add(-1)
			conn.Close()
			continue
		}
		c.onClose = func() { l.refusedOpen.Add(-1) }
		// Closing the socket under gRPC ends its transport, which
		// closes c (and frees its place).
		c.timer = time.AfterFunc(lifetime, func() { conn.Close() })
		return c, nil
	}
}

// admit reads conn's peer credentials and checks its uid against
// admin.allowed_uids; false when they cannot be read.
func (l *peerCredListener) admit(conn net.Conn) (adminPeer, bool) {
	uc, ok := conn.(*net.UnixConn)
	if !ok {
		return adminPeer{}, false
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return adminPeer{}, false
	}
	var cred *unix.Ucred
	if cerr := raw.Control(func(fd uintptr) {
		cred, err = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	}); cerr != nil {
		return adminPeer{}, false
	}
	if err != nil || cred == nil {
		return adminPeer{}, false
	}
	p := adminPeer{uid: cred.Uid, pid: cred.Pid}
	for _, u := range l.allowed {
		if int(cred.Uid) == u {
			p.allowed = true
		}
	}
	return p, true
}

// refused logs (rate-limited) and counts a refused peer's connection.
func (l *peerCredListener) refused(p adminPeer) {
	if l.refusedTotal != nil {
		l.refusedTotal.Inc()
	}
	if l.log == nil {
		return
	}
	if ok, suppressed := l.refusals.note(p.uid, time.Now()); ok {
		l.log.Warn("admin socket: refused a connection: its uid is not in admin.allowed_uids",
			"uid", p.uid, "pid", p.pid, "setting", "admin.allowed_uids", "allowed_uids", l.allowed,
			"suppressed", suppressed)
	}
}

// refusalLog rate-limits the refusals' log lines: one line per uid per
// refusalLogWindow, which carries the number of that uid's refusals not
// logged since its previous line (so a local process looping on connect
// cannot flood the log, and what it did is still told).
type refusalLog struct {
	mu   sync.Mutex
	uids map[uint32]*refusalEntry
}

type refusalEntry struct {
	logged     time.Time // its last line
	suppressed int       // refusals since, not logged
}

const (
	refusalLogWindow = time.Minute
	// refusalLogUIDs is the number of uids kept before those whose window
	// is over are forgotten. Only a process that can change its uid (root,
	// CAP_SETUID) comes with many.
	refusalLogUIDs = 1024
)

// note records a refusal of uid at now: ok when it is to be logged, with
// the number of its refusals suppressed since its previous line.
func (r *refusalLog) note(uid uint32, now time.Time) (ok bool, suppressed int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.uids == nil {
		r.uids = map[uint32]*refusalEntry{}
	}
	e := r.uids[uid]
	if e != nil && now.Sub(e.logged) < refusalLogWindow {
		e.suppressed++
		return false, 0
	}
	if e == nil {
		if len(r.uids) >= refusalLogUIDs {
			for u, x := range r.uids {
				if now.Sub(x.logged) >= refusalLogWindow {
					delete(r.uids, u)
				}
			}
		}
		e = &refusalEntry{}
		r.uids[uid] = e
	}
	suppressed = e.suppressed
	e.logged, e.suppressed = now, 0
	return true, suppressed
}

// adminPeer is an admin socket connection's peer, from its kernel
// credentials (SO_PEERCRED): its AuthInfo for gRPC.
type adminPeer struct {
	uid     uint32
	pid     int32
	allowed bool // admin.allowed_uids names uid
}

// AuthType implements credentials.AuthInfo.
func (adminPeer) AuthType() string { return "peercred" }

// adminConn is a connection accepted on the admin socket, with its peer.
type adminConn struct {
	net.Conn
	peer    adminPeer
	timer   *time.Timer // a refused one's lifetime
	onClose func()
	once    sync.Once
}

func (c *adminConn) Close() error {
	c.once.Do(func() {
		if c.timer != nil {
			c.timer.Stop()
		}
		if c.onClose != nil {
			c.onClose()
		}
	})
	return c.Conn.Close()
}

// adminCreds are the admin server's transport credentials: no handshake on
// the wire (the client's are insecure.NewCredentials: the socket is local),
// only the peer's credentials, read at accept, handed over as the
// connection's AuthInfo. A connection that is not the admin listener's has
// none and is refused.
type adminCreds struct{}

func (adminCreds) ServerHandshake(conn net.Conn) (net.Conn, credentials.AuthInfo, error) {
	c, ok := conn.(*adminConn)
	if !ok {
		return nil, nil, errors.New("admin socket: a connection without peer credentials")
	}
	return c, c.peer, nil
}

func (adminCreds) ClientHandshake(context.Context, string, net.Conn) (net.Conn, credentials.AuthInfo, error) {
	return nil, nil, errors.New("admin socket credentials are for the server only")
}

func (adminCreds) Info() credentials.ProtocolInfo {
	return credentials.ProtocolInfo{SecurityProtocol: "peercred"}
}

func (c adminCreds) Clone() credentials.TransportCredentials { return c }

func (adminCreds) OverrideServerName(string) error { return nil }

// adminAdmitted refuses a call on the admin socket unless its peer is in
// admin.allowed_uids (peerCredListener), or its peer's credentials are
// unknown.
func adminAdmitted(ctx context.Context) error {
	var ap adminPeer
	ok := false
	if p, found := peer.FromContext(ctx); found {
		ap, ok = p.AuthInfo.(adminPeer)
	}
	switch {
	case !ok:
		return status.Error(codes.PermissionDenied, "the caller's peer credentials are unknown: refused")
	case !ap.allowed:
		return status.Errorf(codes.PermissionDenied, "uid %d is not in rngd's admin.allowed_uids", ap.uid)
	}
	return nil
}

// adminTap is the admin server's tap: a refused peer's call (adminAdmitted)
// is answered PERMISSION_DENIED as soon as its headers arrive, on the
// connection's transport goroutine: no stream is created, no goroutine
// started, its body (the DATA frames that follow, discarded) never read nor
// decoded. The interceptors come later: for a unary call gRPC reads and
// decodes the whole request (up to the receive limit) on a goroutine of its
// own before any interceptor runs, so a refused peer could have had rngd
// buffer a request per stream, on every connection it holds.
//
// The peer is in ctx: gRPC serves a connection's streams with its peer
// (peer.NewContext, its AuthInfo the adminPeer adminCreds handed over), and
// the tap's ctx is the stream's, derived from it. gRPC answers a tap's
// status error with that status (code and message), RST_STREAM'ing the
// stream when the client has not ended it.
func adminTap(ctx context.Context, _ *tap.Info) (context.Context, error) {
	return ctx, adminAdmitted(ctx)
}

// The TCP listeners' bounds (the game servers' and the auditors'): with
// grpc.max_connections and audit.max_connections they bound what clients
// can make rngd hold, a game server's certificate or none (an auditor).
const (
	// tcpMaxRecvMsgSize bounds a request message. The largest the game and
	// audit APIs take are a few short strings and numbers: a request id
	// (at most 128 bytes), a ticket code (18), a game id, a page token.
	// gRPC's default (4 MiB), which the server grants as flow-control
	// window as soon as a message's length is announced, let one game
	// server's connection hold its 1024 calls' 4 MiB each.
	tcpMaxRecvMsgSize = 16 << 10
	// tcpHandshakeTimeout bounds a new connection's TLS and HTTP/2
	// handshakes (gRPC's default: 120 s), so that connections that never
	// finish theirs do not hold the listener's max_connections slots.
	tcpHandshakeTimeout = 10 * time.Second
	// auditMaxConcurrentStreams bounds an auditor's connection's calls:
	// an audit makes a few at a time. A call counts until its answer is
	// written to the connection: a client that never reads leaves at most
	// this many answers (each at most transparency.MaxEntriesBytes) in
	// rngd's memory per connection. At 100, audit.max_connections' 256
	// connections of unread Entries calls could hold tens of GiB.
	auditMaxConcurrentStreams = 4
)

// tcpKeepalive is the TCP gRPC listeners' keepalive (the game servers'
// and the auditors'): a connection without a call in flight for
// MaxConnectionIdle is closed (GOAWAY: a client's next call opens another,
// transparently), and a connection quiet for Time is pinged, and closed
// unless its peer answers within Timeout. So a peer that went away, or a
// client that connects and then does nothing, frees its max_connections
// slot within minutes, not gRPC's two hours. A connection with a call or a
// stream open (a health Watch, however long) is never idle, and a live
// peer answers the pings: no age limit is set, so a legitimate stream is
// never cut. A variable so that tests can shorten it.
var tcpKeepalive = keepalive.ServerParameters{
	MaxConnectionIdle: 5 * time.Minute,
	Time:              time.Minute,
	Timeout:           20 * time.Second,
}

// httpTimeouts are the HTTP listener's (http.Server's fields of the same
// names): a request's headers must arrive within readHeader and the whole
// request within read; its answer must be written within write (a tile or
// /metrics take milliseconds; a client that stops reading holds its
// handler no longer); an idle keep-alive connection is closed after idle.
// With http.max_connections they bound what the listener's clients can
// make rngd hold. A variable so that tests can shorten them.
var httpTimeouts = struct{ readHeader, read, write, idle time.Duration }{
	readHeader: 10 * time.Second,
	read:       15 * time.Second,
	write:      60 * time.Second,
	idle:       60 * time.Second,
}

// httpMaxHeaderBytes bounds a request's headers on the HTTP listener (Go
// reads at most 4 KiB more; beyond, 431): a probe's, a scraper's or an
// auditor's headers are a few hundred bytes. net/http's default, 1 MiB,
// let anyone who reaches the listener make rngd hold about that much per
// connection until readHeader expires.
const httpMaxHeaderBytes = 16 << 10

// drainTimeout bounds a shutdown's drain of the calls in flight (Serve);
// the calls still running then are stopped. A variable so that tests can
// shorten it.
var drainTimeout = 30 * time.Second

const (
	// adminMaxConcurrentStreams bounds an admin connection's streams: the
	// operator's tools make one call at a time (a client beyond the bound
	// waits for a stream, it is not refused), and health's Watch streams
	// are few.
	adminMaxConcurrentStreams = 16
	// adminMaxRecvMsgSize bounds an admin request message. The largest the
	// admin API takes are ImportManifest's ticket batches: ImportTickets
	// (rngctl emission import, the demo) sends 10,000 tickets per message,
	// at most 47 bytes each (a 32-byte hash and a stake, a 10-byte varint
	// at worst, with their tags and lengths): 470,004 bytes with the
	// message's own tag and length. LogAttestation's envelope is at most
	// attestations.MaxEnvelope (1 MiB; rngctl attest's are a few KiB).
	// Every other admin request is a few short strings (the tests send a
	// 1 MiB emission id, to see it quoted short: TestRefusalQuotesInput).
	// 2 MiB is over four times the largest batch, half gRPC's default
	// (4 MiB).
	adminMaxRecvMsgSize = 2 << 20
)

// adminGate is the admin server's first unary interceptor: a refused
// peer's call goes no further (adminTap refuses it before; this is the
// second line).
func adminGate(ctx context.Context, req any, _ *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	if err := adminAdmitted(ctx); err != nil {
		return nil, err
	}
	return handler(ctx, req)
}

// adminGateStream is adminGate for streamed calls (ImportManifest, health's
// Watch, reflection).
func adminGateStream(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
	if err := adminAdmitted(ss.Context()); err != nil {
		return err
	}
	return handler(srv, ss)
}
