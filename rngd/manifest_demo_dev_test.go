//go:build tirage_dev

package rngd

import (
	"context"
	"testing"

	adminv1 "tirage.fr/tirage/rngd/api/tirage/admin/v1"
)

// In dev mode (make run's rngd-dev) rngd imports a demo manifest
// (TestDemoManifestRefused: not outside it).
func TestDemoManifestDevMode(t *testing.T) {
	td := newTestDaemon(t, func(c *Config) { c.Dev = true })
	ctx := context.Background()
	adm := td.admin()
	if _, err := adm.CreateEmission(ctx, &adminv1.CreateEmissionRequest{RequestId: "em", EmissionId: "E1", ClosureDate: "2026-12-31"}); err != nil {
		t.Fatal(err)
	}
	_, demo := DemoManifest("E1", 5)
	if r, err := ImportTickets(ctx, adm, "demo", "E1", demo); err != nil || r.Count != 5 {
		t.Fatalf("dev mode, a demo manifest: %v %v", r, err)
	}
}
