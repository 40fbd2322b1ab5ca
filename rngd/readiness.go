package rngd

import (
	"context"
	"sync"

	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	qodv1 "tirage.fr/tirage/rngd/api/tirage/qod/v1"
	"tirage.fr/tirage/transparency"
)

// componentHealth is one component whose failure refuses draws until it
// recovers or an operator acts: nil when healthy.
type componentHealth struct {
	name string
	err  error
}

// components reports the health of what draws depend on, in a fixed order:
// the entropy generator (its health tests; a start's r), the
// transparency log (an append that failed it closed), the key custody (a
// proof that failed, until one succeeds: keysHealth), the state store and
// the secret store (a failed commit: every later change is refused).
func (e *engine) components() []componentHealth {
	var out []componentHealth
	if h, ok := e.entropy.(interface{ Healthy() error }); ok {
		out = append(out, componentHealth{"entropy", h.Healthy()})
	}
	if h, ok := e.tlog.(transparency.Health); ok {
		out = append(out, componentHealth{"log", h.Health()})
	}
	out = append(out, componentHealth{"keys", e.keysHealth()})
	out = append(out, componentHealth{"store", e.store.health()})
	if e.secrets != nil {
		out = append(out, componentHealth{"secrets", e.secrets.health()})
	}
	return out
}

// readiness keeps the health service (and so /healthz) NOT_SERVING while
// a component has failed, SERVING otherwise: a load balancer or an
// operator's probe sees an appliance that refuses draws, not only its
// alarms. Calls are still answered (a game in play can only go on here,
// and what its draws need may be healthy). The components are read at
// every probe (a health Check, /healthz) and every game.sweep_interval,
// so a Watch also follows them.
type readiness struct {
	d  *Daemon
	mu sync.Mutex
	// failing holds the components found failed by the previous check, to
	// log only changes; guarded by mu.
	failing map[string]bool
}

// check reads the components and sets the health service; it returns them.
func (r *readiness) check() []componentHealth {
	r.mu.Lock()
	defer r.mu.Unlock()
	comps := r.d.engine.components()
	ready := true
	for _, c := range comps {
		switch {
		case c.err != nil && !r.failing[c.name]:
			r.failing[c.name] = true
			r.d.log.Error("not ready: a component refuses draws", "component", c.name, "err", c.err)
		case c.err == nil && r.failing[c.name]:
			delete(r.failing, c.name)
			r.d.log.Info("component recovered", "component", c.name)
		}
		ready = ready && c.err == nil
	}
	st := healthpb.HealthCheckResponse_SERVING
	if !ready {
		st = healthpb.HealthCheckResponse_NOT_SERVING
	}
	// Ignored once the health service is shut down (the daemon stopping).
	r.d.health.SetServingStatus("", st)
	r.d.health.SetServingStatus(qodv1.QuitteOuDouble_ServiceDesc.ServiceName, st)
	return comps
}

// checkedHealth is the health service of the game servers' and the
// operator's listeners: a Check reads the components first.
type checkedHealth struct {
	*health.Server
	ready *readiness
}

func (h checkedHealth) Check(ctx context.Context, req *healthpb.HealthCheckRequest) (*healthpb.HealthCheckResponse, error) {
	h.ready.check()
	return h.Server.Check(ctx, req)
}
