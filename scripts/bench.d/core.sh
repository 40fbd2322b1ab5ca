#!/usr/bin/env bash
# Pure-core benchmarks: outcome mapping (verifier/draw), record encoding
# (verifier/record) and the Quitte ou Double state machine (verifier/qod).
# Writes docs/bench/core.md with the median of COUNT runs (default 5).
. "$(dirname "$0")/../benchlib.sh"
count=${COUNT:-5}
bench_raw
cmd="go test -run '^\$' -bench . -benchmem -benchtime 0.5s -count $count ./verifier/draw ./verifier/record ./verifier/qod"
eval "$cmd" | tee "$raw" >&2
{
  echo "## Core (draw, record, qod)"
  echo
  echo "Medians of $count runs, one goroutine. Uniform and Bernoulli include deriving the stream"
  echo "(one SHA-256 block), as a production draw does once per VRF output; Parse includes the"
  echo "canonical-form check (re-encoding); Replay re-checks a whole 12-pick game with its 13"
  echo "P-256 VRF proofs. Load average when run: $(loadavg) on $(nproc) cores"
  echo "(the machine is shared; figures vary with load)."
  echo
  echo "| benchmark | time/op | ops/s | B/op | allocs/op |"
  echo "|---|---:|---:|---:|---:|"
  awk -f scripts/bench-medians.awk "$raw"
  echo
  echo "Reproduce: \`bash scripts/bench.d/core.sh\` (or \`$cmd\`)."
} > docs/bench/core.md
echo "bench: wrote docs/bench/core.md" >&2
