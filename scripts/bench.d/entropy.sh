#!/usr/bin/env bash
# Entropy benchmarks: raw source throughput (/dev/hwrng, RDSEED, swtpm,
# getrandom), SP 800-90B health tests, HMAC_DRBG, and the Generator's Read of
# one 256-bit secret. Writes docs/bench/entropy.md with medians of 5 runs.
. "$(dirname "$0")/../benchlib.sh"
count=${BENCH_COUNT:-5}
bench_raw
cmd="go test -run '^\$' -bench . -benchtime 1s -count $count ./rngd/entropy/ ./rngd/entropy/drbg/"
eval "$cmd" | tee "$raw" >&2
{
  echo "## Entropy"
  echo
  echo "Medians of $count runs. Sources: 4 KiB reads of the raw source. Generator: one"
  echo "32-byte Read (a game's secret r) over /dev/hwrng (H = 2) + getrandom, default"
  echo "reseed schedule (1,024 requests or 1 min) and with prediction resistance"
  echo "(reseed from the hardware before every Read). Load average when run:"
  echo "$(loadavg) on $(nproc) cores (the machine is shared; figures vary with load)."
  echo
  echo "| benchmark | time/op | throughput | ops/s |"
  echo "|---|---:|---:|---:|"
  awk '/^Benchmark/ {
      name=$1; sub(/-[0-9]+$/, "", name); sub(/^Benchmark/, "", name)
      ns[name]=ns[name] " " $3; mb[name]=mb[name] " " $5; if (!(name in seen)) { order[++n]=name; seen[name]=1 }
    }
    function median(s,   a, k, i, j, t) {
      k=split(s, a, " ")
      for (i=1;i<=k;i++) for (j=i+1;j<=k;j++) if (a[j]+0 < a[i]+0) { t=a[i]; a[i]=a[j]; a[j]=t }
      return (k%2) ? a[(k+1)/2] : (a[k/2]+a[k/2+1])/2
    }
    function human(ns) {
      if (ns >= 1e9) return sprintf("%.2f s", ns/1e9)
      if (ns >= 1e6) return sprintf("%.2f ms", ns/1e6)
      if (ns >= 1e3) return sprintf("%.2f µs", ns/1e3)
      return sprintf("%.0f ns", ns)
    }
    END { for (i=1;i<=n;i++) { m=median(mb[order[i]]); t=median(ns[order[i]])
      thr = (m >= 1) ? sprintf("%.1f MB/s", m) : (m > 0 ? sprintf("%.1f kB/s", m*1000) : "< 10 kB/s")
      printf "| %s | %s | %s | %.0f |\n", order[i], human(t), thr, 1e9/t } }' "$raw"
  echo
  echo "Reproduce: \`bash scripts/bench.d/entropy.sh\` (or \`$cmd\`)."
} > docs/bench/entropy.md
echo "bench: wrote docs/bench/entropy.md" >&2
