package promo

import (
	"context"
	"io"

	"tirage.fr/tirage/verifier/promo"
	"tirage.fr/tirage/verifier/promo/stakes"
)

// Stake files are read by package verifier/promo/stakes, the very code
// rngverify freeze --rules recomputes a freeze's entrants with: these are
// its names here.

// Input formats of stake files (stakes.FormatCSV, stakes.FormatJSONL).
const (
	FormatCSV   = stakes.FormatCSV
	FormatJSONL = stakes.FormatJSONL
)

// IngestStats sums up an ingestion (stakes.IngestStats).
type IngestStats = stakes.IngestStats

// FormatOf guesses a stake file's format from its name (stakes.FormatOf).
func FormatOf(name string) string { return stakes.FormatOf(name) }

// Ingest streams stake rows from r into t (stakes.Ingest).
func Ingest(ctx context.Context, r io.Reader, format string, t *promo.Tally, rejects io.Writer, progress func(lines, bytes int64)) (IngestStats, error) {
	return stakes.Ingest(ctx, r, format, t, rejects, progress)
}

// IngestFile is Ingest for one of several stake files, named (stakes.IngestFile).
func IngestFile(ctx context.Context, name string, r io.Reader, format string, t *promo.Tally, rejects io.Writer, progress func(lines, bytes int64)) (IngestStats, error) {
	return stakes.IngestFile(ctx, name, r, format, t, rejects, progress)
}

// ReadClosed reads a closed-accounts file (stakes.ReadClosed).
func ReadClosed(r io.Reader) (promo.Closed, error) { return stakes.ReadClosed(r) }
