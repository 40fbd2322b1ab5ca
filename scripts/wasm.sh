#!/usr/bin/env bash
# Builds rngverify's offline browser page into bin/verifier-web/ (or $1):
#   index.html    the page (verifier/web/static/index.html)
#   wasm_exec.js  Go's WebAssembly support, from $(go env GOROOT)/lib/wasm
#   main.wasm     the verifier (verifier/web/wasm, GOOS=js GOARCH=wasm)
#   main.wasm.js  the same bytes in base64 as a script, so that the page also
#                 works from file:// (a USB stick), where fetch() is refused
# The page makes no network request (its Content-Security-Policy forbids it).
set -euo pipefail
cd "$(dirname "$0")/.."
export GOTOOLCHAIN=auto # go.mod's toolchain line
out="${1:-bin/verifier-web}"
mkdir -p "$out"
GOOS=js GOARCH=wasm go build -trimpath -ldflags='-s -w' -o "$out/main.wasm" ./verifier/web/wasm
cp "$(go env GOROOT)/lib/wasm/wasm_exec.js" "$out/wasm_exec.js"
cp verifier/web/static/index.html "$out/index.html"
{ printf 'window.TIRAGE_WASM = "'; base64 -w0 "$out/main.wasm"; printf '";\n'; } > "$out/main.wasm.js"
echo "wasm: page in $out ($(du -sh "$out" | cut -f1)); open $out/index.html" >&2
