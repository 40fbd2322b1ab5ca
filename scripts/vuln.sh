#!/usr/bin/env bash
# make vuln: govulncheck over the module and over the Go tools go.mod pins
# (its tool block: grpcurl, staticcheck, govulncheck, the protoc plugins, the
# Trillian servers the tests run), offline. The vulnerability database
# is the golang.org/x/vulndb module (its data/osv entries, which govulncheck
# reads as a flat OSV directory), fetched through the Go module proxy at the
# pinned VULNDB version: vuln.go.dev itself cannot be reached from here.
# Move VULNDB forward to see newer entries (`go list -m -versions` does not
# list pseudo-versions; golang.org/x/vulndb@master resolves the newest).
# The tools are scanned in source mode like the module, at the versions the
# module's build list gives them (what `go tool NAME` builds and runs), in a
# second pass of their own: their findings are reported apart from the
# module's, and take a minute or so more (Trillian's servers are large).
# Exit status: govulncheck's (3 when reachable vulnerabilities are found), the
# module's pass first; both passes run either way.
set -euo pipefail
cd "$(dirname "$0")/.."
export GOTOOLCHAIN=auto # go.mod's toolchain line
VULNDB=${VULNDB:-v0.0.0-20261105234957-e22db6528018}
dir=$(go mod download -json "golang.org/x/vulndb@$VULNDB" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
if [ ! -d "$dir/data/osv" ]; then
  echo "vuln: golang.org/x/vulndb@$VULNDB has no data/osv" >&2
  exit 1
fi
tools=$(go list tool)
echo "vuln: $(go version), database golang.org/x/vulndb@$VULNDB ($(ls "$dir/data/osv" | wc -l) entries)" >&2
st=0
echo "vuln: the module (./...)" >&2
go tool govulncheck -db "file://$dir/data/osv" ./... || st=$?
if [ -n "$tools" ]; then
  echo >&2
  echo "vuln: the tools go.mod pins ($(echo $tools | wc -w): go list tool)" >&2
  # shellcheck disable=SC2086 # one package path a word
  go tool govulncheck -db "file://$dir/data/osv" $tools || { t=$?; [ $st -ne 0 ] || st=$t; }
fi
exit $st
