#!/usr/bin/env bash
# drand beacon verification (verifier/beacon): one BLS12-381 pairing check
# of a real quicknet round, as a ceremony and every certificate check do.
# Writes docs/bench/beacon.md with the median of COUNT runs (default 5).
set -euo pipefail
cd "$(dirname "$0")/../.."
export GOTOOLCHAIN=local
count=${COUNT:-5}
raw=$(mktemp)
trap 'rm -f "$raw"' EXIT
cmd="go test -run '^\$' -bench . -benchmem -benchtime 2s -count $count ./verifier/beacon"
eval "$cmd" | tee "$raw" >&2
{
  echo "## Public beacon (drand)"
  echo
  echo "Medians of $count runs, one goroutine: verifying quicknet round 123's signature"
  echo "(decode and subgroup checks, hash to G1, a two-pairing product). Load average when run:"
  echo "$(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores (the machine is shared; figures vary with load)."
  echo
  echo "| benchmark | time/op | ops/s | B/op | allocs/op |"
  echo "|---|---:|---:|---:|---:|"
  awk '/^Benchmark/ {
      name=$1; sub(/-[0-9]+$/, "", name); sub(/^Benchmark/, "", name)
      for (i=3;i<=NF;i++) { if ($(i+1)=="ns/op") t=$i; if ($(i+1)=="B/op") bo=$i; if ($(i+1)=="allocs/op") al=$i }
      ns[name]=ns[name] " " t; bop[name]=bo; alc[name]=al
      if (!(name in seen)) { order[++n]=name; seen[name]=1 }
    }
    function median(s,   a, k, i, j, x) {
      k=split(s, a, " ")
      for (i=1;i<=k;i++) for (j=i+1;j<=k;j++) if (a[j]+0 < a[i]+0) { x=a[i]; a[i]=a[j]; a[j]=x }
      return (k%2) ? a[(k+1)/2] : (a[k/2]+a[k/2+1])/2
    }
    END { for (i=1;i<=n;i++) { t=median(ns[order[i]])
      printf "| %s | %.2f ms | %.0f | %s | %s |\n", order[i], t/1e6, 1e9/t, bop[order[i]], alc[order[i]] } }' "$raw"
  echo
  echo "Reproduce: \`bash scripts/bench.d/beacon.sh\` (or \`$cmd\`)."
} > docs/bench/beacon.md
echo "bench: wrote docs/bench/beacon.md" >&2
