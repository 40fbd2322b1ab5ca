# Where a draw's CPU goes (scripts/bench.d/rngd.sh): reads the output of
# `go tool pprof -traces` for a CPU profile of the in-process benchmark and
# prints "category milliseconds" for each category below, each sample
# counted once, in the first category (in flush's order) that one of its
# stack's frames belongs to.
function ms(v) {
  if (v ~ /ms$/) return substr(v, 1, length(v)-2) + 0
  if (v ~ /(us|µs)$/) { sub(/(us|µs)$/, "", v); return v / 1000 }
  if (v ~ /ns$/) return substr(v, 1, length(v)-2) / 1e6
  if (v ~ /s$/) return substr(v, 1, length(v)-1) * 1000
  return 0
}
function flush(   c) {
  if (val == "") return
  c = "other"
  if (stack ~ /tirage\/rngd\/loadtest\.|grpc\.\(\*ClientConn\)|grpc\.invoke|grpc\.\(\*clientStream\)|grpc\.\(\*csAttempt\)|transport\.\(\*http2Client\)|transport\.NewHTTP2Client|\(\*quitteOuDoubleClient\)|tirage\/rngd\/playstream\./) c = "loadgen"
  else if (stack ~ /hsm\/keystore\.\(\*prover\)\.Prove/) c = "proof"
  else if (stack ~ /rngd\.\(\*Daemon\)\.(held|observe)/) c = "handler"
  else if (stack ~ /rngd\.\(\*writer\)\.run/) c = "store"
  else if (stack ~ /transparency\/tilelog|transparency-dev\/tessera/) c = "log"
  else if (stack ~ /google\.golang\.org\/grpc|crypto\/tls|golang\.org\/x\/net\/http2/) c = "transport"
  else if (stack ~ /runtime\.gcBgMarkWorker|runtime\.bgsweep|runtime\.bgscavenge/) c = "gc"
  t[c] += ms(val)
  val = ""; stack = ""
}
/^-+\+-+$/ { flush(); next }
/^ +[0-9.]+(ns|us|µs|ms|s) +/ && val == "" { val = $1; stack = $2 "\n"; next }
val != "" { stack = stack $1 "\n" }
END { flush(); for (c in t) printf "%s %.1f\n", c, t[c] }
