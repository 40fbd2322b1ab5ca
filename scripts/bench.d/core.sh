#!/usr/bin/env bash
# Pure-core benchmarks: outcome mapping (verifier/draw), record encoding
# (verifier/record) and the Quitte ou Double state machine (verifier/qod).
# Writes docs/bench/core.md with the median of COUNT runs (default 5).
set -euo pipefail
cd "$(dirname "$0")/../.."
export GOTOOLCHAIN=local
count=${COUNT:-5}
raw=$(mktemp)
trap 'rm -f "$raw"' EXIT
cmd="go test -run '^\$' -bench . -benchmem -benchtime 0.5s -count $count ./verifier/draw ./verifier/record ./verifier/qod"
eval "$cmd" | tee "$raw" >&2
{
  echo "## Core (draw, record, qod)"
  echo
  echo "Medians of $count runs, one goroutine. Uniform and Bernoulli include deriving the stream"
  echo "(one SHA-256 block), as a production draw does once per VRF output; Parse includes the"
  echo "canonical-form check (re-encoding); Replay re-checks a whole 12-pick game with its 13"
  echo "P-256 VRF proofs. Load average when run: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
  echo "(the machine is shared; figures vary with load)."
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
    function human(ns) {
      if (ns >= 1e9) return sprintf("%.2f s", ns/1e9)
      if (ns >= 1e6) return sprintf("%.2f ms", ns/1e6)
      if (ns >= 1e3) return sprintf("%.2f µs", ns/1e3)
      return sprintf("%.0f ns", ns)
    }
    END { for (i=1;i<=n;i++) { t=median(ns[order[i]])
      printf "| %s | %s | %.0f | %s | %s |\n", order[i], human(t), 1e9/t, bop[order[i]], alc[order[i]] } }' "$raw"
  echo
  echo "Reproduce: \`bash scripts/bench.d/core.sh\` (or \`$cmd\`)."
} > docs/bench/core.md
echo "bench: wrote docs/bench/core.md" >&2
