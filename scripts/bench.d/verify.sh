#!/usr/bin/env bash
# Audit throughput against the raw VRF-verify throughput, in the same run
# (package verifier/audit, BenchmarkAuditVsRaw) -> docs/bench/verify.md.
# Each iteration verifies every proof of a 200-game log on all cores, then
# audits that log (entries, records, games, proofs, statistics): both see the
# same machine load. Reports the median over COUNT runs.
# Usage: scripts/bench.d/verify.sh   (env: VERIFY_BENCH_COUNT, VERIFY_BENCH_TIME)
. "$(dirname "$0")/../benchlib.sh"
count="${VERIFY_BENCH_COUNT:-5}"
benchtime="${VERIFY_BENCH_TIME:-3x}"
cmd="go test ./verifier/audit/ -run '^\$' -bench '^BenchmarkAuditVsRaw\$' -count $count -benchtime $benchtime"
load0="$(loadavg)"
bench_raw
eval "$cmd" | tee "$raw" >&2
cores="$(grep -m1 '^BenchmarkAuditVsRaw' "$raw" | sed -E 's/^BenchmarkAuditVsRaw-([0-9]+).*/\1/')"
mkdir -p docs/bench
{
  echo "## Verify"
  echo
  echo "\`rngverify audit\` (package \`verifier/audit\`) against the raw VRF-verify"
  echo "throughput of the same machine in the same run: each iteration verifies every"
  echo "proof of a 200-game log (ECVRF-P256-SHA256-SSWU) on all $cores cores, then"
  echo "audits that log from its tiles in memory (entries against the signed tree,"
  echo "records, every game's chain, commitment, proofs, outcomes and rules,"
  echo "statistics). Median of $count runs of $benchtime (the machine is shared: load"
  echo "average before the run was $load0, after $(loadavg))."
  echo "About 81 % of the records carry a VRF proof; goal: audit records/s ≥ 70 % of raw verifies/s."
  echo
  echo "| metric | median | highest run |"
  echo "|---|---:|---:|"
  awk '
    /^BenchmarkAuditVsRaw/ {
      for (i = 5; i < NF; i += 2) { name = $(i+1); if (!(name in n)) order[++k] = name; v[name, ++n[name]] = $i }
    }
    END {
      label["raw-verifies/s"] = "raw VRF verifies/s (all cores)"
      label["audit-records/s"] = "audit records/s"
      label["audit-proofs/s"] = "audit proofs/s"
      label["records-%-of-raw"] = "audit records/s as % of raw verifies/s"
      label["proofs-%-of-raw"] = "audit proofs/s as % of raw verifies/s"
      for (j = 1; j <= k; j++) {
        name = order[j]; m = n[name]
        for (a = 1; a <= m; a++) s[a] = v[name, a]
        for (a = 2; a <= m; a++) { x = s[a]; b = a - 1; while (b > 0 && s[b] > x) { s[b+1] = s[b]; b-- } s[b+1] = x }
        med = (m % 2) ? s[(m+1)/2] : (s[m/2] + s[m/2+1]) / 2
        printf "| %s | %.1f | %.1f |\n", (name in label) ? label[name] : name, med, s[m]
      }
    }' "$raw"
  echo
  echo "Reproduce: \`$cmd\` (or \`scripts/bench.d/verify.sh\`)."
} > docs/bench/verify.md
echo "bench: wrote docs/bench/verify.md" >&2
