#!/usr/bin/env bash
# Installs the Debian packages that Tirage's tests and demo use, when missing.
# Go tools are pinned in go.mod (tool directives) and run with `go tool`.
# Go itself: any go from 1.21 on fetches go.mod's toolchain line (go1.27.3,
# GOTOOLCHAIN=auto). Debian's golang-go is installed when it is recent
# enough (Debian 13: 1.24); Debian 12's (1.19) is not, and then this script
# says what to install instead of letting the build fail on a missing go.
set -euo pipefail
# gcc and libc6-dev: cgo, which go test -race and the PKCS#11 backend need
# (without a C compiler the go command turns cgo off: "-race requires cgo").
# libprotobuf-dev: google/protobuf/*.proto, which the .proto files import
# (protobuf-compiler only recommends it). openssl: docs/rngd.md's certificate
# and CRL commands, which TestCRLFromOpenSSL runs.
pkgs=(curl time gcc libc6-dev softhsm2 opensc swtpm swtpm-tools mariadb-server mariadb-client protobuf-compiler libprotobuf-dev chromium ca-certificates openssl)

# go_minor prints the minor version of a go1.N[.x] version string.
go_minor() { local v=${1#go1.}; echo "${v%%[!0-9]*}"; }
# go_candidate prints the version apt would install of golang-go, or nothing.
go_candidate() { apt-cache policy golang-go 2>/dev/null | sed -n 's/^ *Candidate: \(.*:\)\{0,1\}\([0-9.]*\).*/\2/p'; }
SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo

if command -v go >/dev/null; then
  have=$(GOTOOLCHAIN=local go env GOVERSION)
  if [ "$(go_minor "$have")" -lt 21 ]; then
    echo "deps: $(command -v go) is $have; go 1.21 or later is needed to fetch go.mod's toolchain (https://go.dev/dl/)" >&2
    exit 1
  fi
else
  cand=$(go_candidate)
  if [ -z "$cand" ]; then # no package lists yet (a fresh machine or container): read them first
    $SUDO apt-get update -qq
    cand=$(go_candidate)
  fi
  if [ -n "$cand" ] && [ "$(go_minor "go$cand")" -ge 21 ] 2>/dev/null; then
    pkgs+=(golang-go)
  else
    echo "deps: no go command, and Debian's golang-go (${cand:-none}) is older than 1.21: install Go 1.21 or later (https://go.dev/dl/, e.g. in /usr/local/go with /usr/local/go/bin on PATH); it fetches go.mod's toolchain itself" >&2
    exit 1
  fi
fi

missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "deps: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi
