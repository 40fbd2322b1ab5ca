#!/usr/bin/env bash
# VRF prove/verify benchmarks (package verifier/vrf) -> docs/bench/vrf.md.
# Runs each benchmark COUNT times on one core (-cpu 1) and reports the median
# ns/op. Usage: scripts/bench.d/vrf.sh   (env: VRF_BENCH_COUNT, VRF_BENCH_TIME)
. "$(dirname "$0")/../benchlib.sh"
count="${VRF_BENCH_COUNT:-10}"
benchtime="${VRF_BENCH_TIME:-1s}"
cmd="go test ./verifier/vrf/ -run '^\$' -bench '^Benchmark(Prove|Verify)\$' -cpu 1 -count $count -benchtime $benchtime"
load0="$(loadavg)"
bench_raw
eval "$cmd" | tee "$raw" >&2
mkdir -p docs/bench
{
  echo "## VRF"
  echo
  echo "RFC 9381 VRF (package \`verifier/vrf\`) on one core (\`-cpu 1\`): $count runs of $benchtime"
  echo "per benchmark, medians. *CPU* is the process CPU time per operation (the"
  echo "benchmarks report it as \`cpu-ns/op\`); *wall* is Go's ns/op. The machine is shared"
  echo "(load average $load0 before the run, $(loadavg) after), so wall"
  echo "time includes waiting for the CPU; the targets are per core and compare to CPU time."
  echo "Keys are the RFC 9381 example keys (RSA: 2048-bit); α is 48 bytes."
  echo "\`BenchmarkProve/ECVRF-P256-SHA256-SSWU\` is the raw VRF-prove bound other"
  echo "benchmarks refer to."
  echo
  echo "| suite | op | CPU µs/op | wall µs/op | wall µs/op, fastest run | target (CPU µs/op) |"
  echo "|---|---|---:|---:|---:|---:|"
  awk '
    function median(arr, m,    a, b, x, t) {
      for (a = 1; a <= m; a++) t[a] = arr[a]
      for (a = 2; a <= m; a++) { x = t[a]; b = a - 1; while (b > 0 && t[b] > x) { t[b+1] = t[b]; b-- } t[b+1] = x }
      mn = t[1]
      return (m % 2) ? t[(m+1)/2] : (t[m/2] + t[m/2+1]) / 2
    }
    /^Benchmark(Prove|Verify)\// {
      split($1, p, "/"); op = (p[1] == "BenchmarkProve") ? "prove" : "verify"
      key = p[2] SUBSEP op
      if (!(key in n)) order[++k] = key
      i = ++n[key]
      wall[key, i] = $3
      cpu[key, i] = ""
      for (f = 4; f <= NF; f++) if ($f == "cpu-ns/op") cpu[key, i] = $(f-1)
    }
    END {
      t["ECVRF-P256-SHA256-SSWU" SUBSEP "prove"] = "≤ 166"
      t["ECVRF-P256-SHA256-SSWU" SUBSEP "verify"] = "≤ 229"
      t["RSA-FDH-VRF-SHA256" SUBSEP "prove"] = "≤ 950"
      t["RSA-FDH-VRF-SHA256" SUBSEP "verify"] = "≤ 38"
      for (j = 1; j <= k; j++) {
        key = order[j]; m = n[key]
        delete w; delete c
        for (a = 1; a <= m; a++) { w[a] = wall[key, a]; c[a] = cpu[key, a] }
        wm = median(w, m); wmin = mn
        cm = (c[1] == "") ? "n/a" : sprintf("%.1f", median(c, m) / 1000)
        split(key, kk, SUBSEP)
        tg = (key in t) ? t[key] : "—"
        printf "| %s | %s | %s | %.1f | %.1f | %s |\n", kk[1], kk[2], cm, wm / 1000, wmin / 1000, tg
      }
    }' "$raw"
  echo
  echo "Reproduce: \`$cmd\` (or \`scripts/bench.d/vrf.sh\`; env VRF_BENCH_COUNT, VRF_BENCH_TIME)."
} > docs/bench/vrf.md
echo "bench: wrote docs/bench/vrf.md" >&2
