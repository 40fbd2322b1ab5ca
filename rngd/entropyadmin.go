package rngd

import (
	"context"
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	adminv1 "tirage.fr/tirage/rngd/api/tirage/admin/v1"
	"tirage.fr/tirage/rngd/entropy"
)

// entropyHealth is what the operator's entropy calls need of the engine's
// random source (*entropy.Generator).
type entropyHealth interface {
	Report() ([]entropy.SourceStatus, error)
	Retest(ctx context.Context) error
}

func (s *adminService) entropyHealth() (entropyHealth, error) {
	h, ok := s.e.entropy.(entropyHealth)
	if !ok {
		return nil, status.Error(codes.Unimplemented, "the entropy source has no health report")
	}
	return h, nil
}

func (s *adminService) EntropyStatus(context.Context, *adminv1.EntropyStatusRequest) (*adminv1.EntropyStatusResponse, error) {
	h, err := s.entropyHealth()
	if err != nil {
		return nil, err
	}
	return entropyStatus(h), nil
}

// EntropyRetest re-runs the start-up tests (entropy.Generator.Retest) and
// reports the status after it.
func (s *adminService) EntropyRetest(ctx context.Context, _ *adminv1.EntropyRetestRequest) (*adminv1.EntropyStatusResponse, error) {
	h, err := s.entropyHealth()
	if err != nil {
		return nil, err
	}
	err = h.Retest(ctx)
	st := entropyStatus(h)
	failed := failedSources(st)
	switch {
	case err == nil && len(failed) > 0:
		s.e.log.Error("entropy retest by the operator: draws go on from the healthy sources, but sources still fail",
			"failed_sources", strings.Join(failed, ", "))
	case err == nil:
		s.e.log.Warn("entropy retest by the operator: sources healthy, draws resume")
	case st.Error != "":
		s.e.log.Error("entropy retest by the operator: sources still unhealthy, draws stay refused", "err", err)
	default:
		return nil, refuse(reasonEntropyUnavailable, "entropy retest: %v", err)
	}
	return st, nil
}

// failedSources names the failed sources of a status, healthy or not.
func failedSources(st *adminv1.EntropyStatusResponse) []string {
	var out []string
	for _, src := range st.Sources {
		if src.Failure != "" {
			out = append(out, src.Name)
		}
	}
	return out
}

func entropyStatus(h entropyHealth) *adminv1.EntropyStatusResponse {
	r := &adminv1.EntropyStatusResponse{Healthy: true}
	sources, err := h.Report()
	if err != nil {
		r.Healthy, r.Error = false, err.Error()
	}
	for _, src := range sources {
		p := &adminv1.EntropySource{Name: src.Name, Physical: src.Physical, CreditedBits: src.CreditedBits}
		if src.Failure != nil {
			p.Failure = src.Failure.Error()
		}
		r.Sources = append(r.Sources, p)
	}
	return r
}
