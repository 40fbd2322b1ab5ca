#!/usr/bin/env bash
# Installs the Debian packages that Tirage's tests and demo use, when missing.
# Go tools are pinned in go.mod (tool directives) and run with `go tool`.
set -euo pipefail
pkgs=(curl time softhsm2 opensc swtpm swtpm-tools mariadb-server mariadb-client protobuf-compiler chromium ca-certificates)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "deps: installing ${missing[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi
