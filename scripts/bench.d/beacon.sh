#!/usr/bin/env bash
# drand beacon verification (verifier/beacon): one BLS12-381 pairing check
# of a real quicknet round, as a ceremony and every certificate check do.
# Writes docs/bench/beacon.md with the median of COUNT runs (default 5).
. "$(dirname "$0")/../benchlib.sh"
count=${COUNT:-5}
bench_raw
cmd="go test -run '^\$' -bench . -benchmem -benchtime 2s -count $count ./verifier/beacon"
eval "$cmd" | tee "$raw" >&2
{
  echo "## Public beacon (drand)"
  echo
  echo "Medians of $count runs, one goroutine: verifying quicknet round 123's signature"
  echo "(decode and subgroup checks, hash to G1, a two-pairing product). Load average when run:"
  echo "$(loadavg) on $(nproc) cores (the machine is shared; figures vary with load)."
  echo
  echo "| benchmark | time/op | ops/s | B/op | allocs/op |"
  echo "|---|---:|---:|---:|---:|"
  awk -f scripts/bench-medians.awk "$raw"
  echo
  echo "Reproduce: \`bash scripts/bench.d/beacon.sh\` (or \`$cmd\`)."
} > docs/bench/beacon.md
echo "bench: wrote docs/bench/beacon.md" >&2
