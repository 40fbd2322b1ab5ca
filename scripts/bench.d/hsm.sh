#!/usr/bin/env bash
# Key custody benchmarks: VRF proving and signing with software keys (keystore)
# and inside SoftHSM2 (PKCS#11), serial and parallel; unsealing a key file.
# Writes docs/bench/hsm.md with the median of COUNT runs (default 5).
. "$(dirname "$0")/../benchlib.sh"
count=${COUNT:-5}
bench_raw
go test -run '^$' -bench 'BenchmarkSoftware|BenchmarkSoftHSM' -benchtime 0.5s -count "$count" \
  ./hsm/keystore ./hsm/pkcs11 | tee -a "$raw" >&2
go test -run '^$' -bench 'BenchmarkOpen' -benchtime 3x -count 3 ./hsm/keystore | tee -a "$raw" >&2

# name -> median ns/op
medians=$(awk '/^Benchmark/ && $4 == "ns/op" { n = $1; sub(/-[0-9]+$/, "", n); print n, $3 }' "$raw" |
  sort -k1,1 -k2,2n |
  awk '{ v[$1] = v[$1] " " $2 } END { for (k in v) { m = split(substr(v[k], 2), a, " "); print k, a[int((m + 1) / 2)] } }' | sort)

row() { # backend key label
  local s p
  s=$(awk -v k="$1/$2/serial" '$1 == k { print $2 }' <<<"$medians")
  p=$(awk -v k="$1/$2/parallel" '$1 == k { print $2 }' <<<"$medians")
  [ -n "$s" ] || return 0
  awk -v b="$4" -v l="$3" -v s="$s" -v p="$p" 'BEGIN {
    printf "| %s | %s | %.1f µs | %.0f /s | %.1f µs | %.0f /s |\n", l, b, s / 1000, 1e9 / s, p / 1000, 1e9 / p }'
}
open=$(awk '$1 == "BenchmarkOpen" { print $2 }' <<<"$medians")
{
  echo "## HSM"
  echo
  echo "Key custody (package hsm): one VRF proof or signature per operation, as the draw"
  echo "path and the log call them. \"parallel\" runs $(nproc) goroutines (GOMAXPROCS) against"
  echo "one backend; the PKCS#11 backend keeps one session per goroutine. SoftHSM2 figures"
  echo "include the host-side check of every result (vrf.Verify / signature verification)"
  echo "that the backend makes before releasing it. Median of $count runs; load average"
  echo "when written: $(loadavg) on $(nproc) cores (a busy machine inflates the figures)."
  echo
  echo "| operation | backend | serial, per op | serial rate | parallel, per op | parallel rate |"
  echo "|---|---|---|---|---|---|"
  row BenchmarkSoftware ecvrf-p256-sswu "VRF prove ECVRF-P256-SHA256-SSWU" "software"
  row BenchmarkSoftware rsa-fdh-vrf-2048 "VRF prove RSA-FDH-VRF-SHA256 (2048)" "software"
  row BenchmarkSoftHSM rsa-fdh-vrf-2048 "VRF prove RSA-FDH-VRF-SHA256 (2048)" "SoftHSM2 (CKM_RSA_X_509)"
  row BenchmarkSoftware ed25519 "sign Ed25519" "software"
  row BenchmarkSoftHSM ed25519 "sign Ed25519" "SoftHSM2 (CKM_EDDSA)"
  row BenchmarkSoftware ecdsa-p256 "sign ECDSA P-256 SHA-256" "software"
  row BenchmarkSoftHSM ecdsa-p256 "sign ECDSA P-256 SHA-256" "SoftHSM2 (CKM_ECDSA)"
  echo
  if [ -n "$open" ]; then
    awk -v o="$open" 'BEGIN { printf "Opening a software keystore of one key (Argon2id t=3, m=64 MiB, p=4): %.0f ms.\n", o / 1e6 }'
    echo
  fi
  echo "Reproduce: \`bash scripts/bench.d/hsm.sh\` (or \`make bench\`); raw runs:"
  echo "\`go test -run '^\$' -bench 'BenchmarkSoftware|BenchmarkSoftHSM' -benchtime 0.5s -count $count ./hsm/keystore ./hsm/pkcs11\`."
} > docs/bench/hsm.md
echo "bench: wrote docs/bench/hsm.md" >&2
