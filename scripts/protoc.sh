# Sourced by every scripts/generate.d/*.sh: strict mode, the repository root
# as the working directory, go.mod's toolchain line, and protoc_go.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export GOTOOLCHAIN=auto
PROTOC=${PROTOC:-/usr/bin/protoc}

# protoc_go DIR FILE...: generates the Go and gRPC code of the .proto FILEs
# (paths relative to DIR, the import root) beside them, with Debian's protoc
# and the plugins pinned by go.mod's tool directives, so the output is
# reproducible.
protoc_go() {
  local dir=$1 gen_go gen_grpc
  shift
  gen_go=$(go tool -n protoc-gen-go)
  gen_grpc=$(go tool -n protoc-gen-go-grpc)
  (cd "$dir" && "$PROTOC" -I . -I /usr/include \
    --plugin=protoc-gen-go="$gen_go" --plugin=protoc-gen-go-grpc="$gen_grpc" \
    --go_out=. --go_opt=paths=source_relative \
    --go-grpc_out=. --go-grpc_opt=paths=source_relative \
    "$@")
}

# protoc_vt DIR FILE...: also generates, beside them, the messages' size and
# marshal methods (protoc-gen-go-vtproto, pinned by go.mod): rngd's codec
# (rngd/codec.go) encodes its game servers' replies with them, about three
# times as fast as the generic encoder. Decoding stays protobuf-go's, which
# checks that strings are UTF-8 (vtprotobuf's does not: its issue 146).
protoc_vt() {
  local dir=$1 gen_vt
  shift
  gen_vt=$(go tool -n protoc-gen-go-vtproto)
  (cd "$dir" && "$PROTOC" -I . -I /usr/include \
    --plugin=protoc-gen-go-vtproto="$gen_vt" \
    --go-vtproto_out=. --go-vtproto_opt=paths=source_relative,features=marshal+size \
    "$@")
}
