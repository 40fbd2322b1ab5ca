# Benchmark lines (go test -bench -benchmem, -count N) → a markdown table row
# per benchmark: the median time/op of its N runs, ops/s, B/op, allocs/op.
# Used by scripts/bench.d/*.sh under the header
#   | benchmark | time/op | ops/s | B/op | allocs/op |
/^Benchmark/ {
  name = $1; sub(/-[0-9]+$/, "", name); sub(/^Benchmark/, "", name)
  for (i = 3; i <= NF; i++) {
    if ($(i+1) == "ns/op") t = $i
    if ($(i+1) == "B/op") bo = $i
    if ($(i+1) == "allocs/op") al = $i
  }
  ns[name] = ns[name] " " t; bop[name] = bo; alc[name] = al
  if (!(name in seen)) { order[++n] = name; seen[name] = 1 }
}
function median(s,   a, k, i, j, x) {
  k = split(s, a, " ")
  for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] + 0 < a[i] + 0) { x = a[i]; a[i] = a[j]; a[j] = x }
  return (k % 2) ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
}
function human(ns) {
  if (ns >= 1e9) return sprintf("%.2f s", ns / 1e9)
  if (ns >= 1e6) return sprintf("%.2f ms", ns / 1e6)
  if (ns >= 1e3) return sprintf("%.2f µs", ns / 1e3)
  return sprintf("%.0f ns", ns)
}
END {
  for (i = 1; i <= n; i++) {
    t = median(ns[order[i]])
    printf "| %s | %s | %.0f | %s | %s |\n", order[i], human(t), 1e9 / t, bop[order[i]], alc[order[i]]
  }
}
