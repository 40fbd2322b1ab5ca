#!/usr/bin/env bash
# make run: builds rngd with dev mode compiled in (bin/rngd-dev, build tag
# tirage_dev), starts it on its embedded dev defaults — software keys, tessera
# log in ./data, dev mTLS certificates in ./data/dev (ca.pem, client.pem,
# client.key), gRPC on 127.0.0.1:7443, the auditors' gRPC (log audit service,
# no client certificate) on 127.0.0.1:7444, HTTP (metrics, health, /log/) on
# 127.0.0.1:7480 — then runs the demo game server, which plays a few games and
# verifies their receipts. The daemon then keeps running until Ctrl-C;
# DEMO_ONLY=1 stops it right after the demo (CI, tests).
set -euo pipefail
cd "$(dirname "$0")/.."
export GOTOOLCHAIN=auto # go.mod's toolchain line
mkdir -p bin data
go build -tags tirage_dev -o bin/rngd-dev ./cmd/rngd
go build -o bin/rngdemo ./cmd/rngdemo
go build -o bin/rngverify ./cmd/rngverify

bin/rngd-dev --dev &
pid=$!
stop() {
  if kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid"
    wait "$pid" || true
  fi
}
trap stop EXIT INT TERM

# Wait until the daemon serves (health on the HTTP listener).
for _ in $(seq 1 300); do
  if curl -fsS http://127.0.0.1:7480/healthz >/dev/null 2>&1; then break; fi
  if ! kill -0 "$pid" 2>/dev/null; then echo "run: rngd exited" >&2; exit 1; fi
  sleep 0.2
done
curl -fsS http://127.0.0.1:7480/healthz >/dev/null

echo
echo "== demo game server (client certificate data/dev/client.pem) =="
bin/rngdemo --data data --games "${DEMO_GAMES:-4}"

# The standalone verifier, as an auditor runs it, on the newest transcript.
if [ -x bin/rngverify ]; then
  t=$(ls -t data/transcripts/*.json 2>/dev/null | head -1 || true)
  if [ -n "$t" ]; then
    echo
    echo "== bin/rngverify game $t --log-key data/transcripts/log.vkey =="
    bin/rngverify game "$t" --log-key data/transcripts/log.vkey
  fi
fi

if [ "${DEMO_ONLY:-0}" = "1" ]; then
  exit 0
fi
echo
echo "rngd keeps running (dev mode). Try:"
echo "  grpcurl -cacert data/dev/ca.pem -cert data/dev/client.pem -key data/dev/client.key 127.0.0.1:7443 list"
echo "  grpcurl -cacert data/dev/ca.pem 127.0.0.1:7444 tirage.transparency.audit.v1.Audit/Checkpoint"
echo "  bin/rngctl emission list"
echo "Ctrl-C stops it."
wait "$pid"
