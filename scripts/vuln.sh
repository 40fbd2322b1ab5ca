#!/usr/bin/env bash
# make vuln: govulncheck over the module, offline. The vulnerability database
# is the golang.org/x/vulndb module (its data/osv entries, which govulncheck
# reads as a flat OSV directory), fetched through the Go module proxy at the
# pinned VULNDB version: vuln.go.dev itself cannot be reached from here.
# Move VULNDB forward to see newer entries (`go list -m -versions` does not
# list pseudo-versions; golang.org/x/vulndb@master resolves the newest).
# Exit status: govulncheck's (3 when reachable vulnerabilities are found).
set -euo pipefail
cd "$(dirname "$0")/.."
export GOTOOLCHAIN=auto # go.mod's toolchain line
VULNDB=${VULNDB:-v0.0.0-20261105234957-e22db6528018}
dir=$(go mod download -json "golang.org/x/vulndb@$VULNDB" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
if [ ! -d "$dir/data/osv" ]; then
  echo "vuln: golang.org/x/vulndb@$VULNDB has no data/osv" >&2
  exit 1
fi
echo "vuln: $(go version), database golang.org/x/vulndb@$VULNDB ($(ls "$dir/data/osv" | wc -l) entries)" >&2
go tool govulncheck -db "file://$dir/data/osv" ./...
