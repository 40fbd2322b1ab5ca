# Tirage — the single entry point for building, testing and benchmarking.
# `make test` and `make run` set up a fresh Debian machine by themselves.

GO      ?= go
BIN     := bin
GOFLAGS ?=
# The Go toolchain is go.mod's toolchain line (go1.27.3: this machine's own
# go1.26.8 lacks the standard library's fixes of GO-2026-6599 to -6809, found
# by `make vuln`); the go command fetches it once from the Go module proxy.
export GOTOOLCHAIN := auto
# The programs carry their VCS state in their build info — the commit, its tag
# if any, +dirty for uncommitted changes — which rngd shows as its version
# (banner, /healthz, rngctl qod status; `go version -m bin/rngd` shows it too).
# Asked for explicitly: GOFLAGS=-buildvcs=false (as this machine sets) would leave it
# "devel". Outside a git work tree (a source archive), go's default applies.
BUILDVCS = $(shell git status --porcelain >/dev/null 2>&1 && echo -buildvcs=true)

.PHONY: all build wasm deps test test-long bench fuzz lint generate generate-check run vuln clean

all: build

## build: the three programs into bin/
build:
	$(GO) build $(BUILDVCS) -o $(BIN)/ ./cmd/rngd ./cmd/rngctl ./cmd/rngverify

## wasm: the offline browser verifier into bin/verifier-web/ (open index.html from disk)
wasm:
	bash scripts/wasm.sh

## deps: Debian packages the tests use (apt-get; skipped when present)
deps:
	bash scripts/deps.sh

## test: unit, integration (SoftHSM2, swtpm, MariaDB + Trillian) and short statistical tests, with -race
test: deps
	bash scripts/test.sh

## test-long: the long statistical tests (CI runs them too)
test-long: deps
	TIRAGE_LONG_TESTS=1 bash scripts/test.sh -run 'Long' 

## bench: benchmarks; figures into docs/BENCHMARKS.md
bench: deps build
	bash scripts/bench.sh

## fuzz: every fuzz target for a short run (FUZZTIME, default 10s; FUZZMINIMIZETIME, default 2s)
fuzz:
	bash scripts/fuzz.sh

## lint: gofmt, go vet, staticcheck
lint:
	@out=$$(gofmt -l $$(git ls-files '*.go' | grep -v '\.pb\.go$$')); if [ -n "$$out" ]; then echo "gofmt: $$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) tool staticcheck ./...
	$(GO) vet -tags tirage_dev ./rngd/... ./cmd/...
	$(GO) tool staticcheck -tags tirage_dev ./rngd/... ./cmd/...

## vuln: govulncheck over the module, offline (the pinned golang.org/x/vulndb)
vuln:
	bash scripts/vuln.sh

## generate: protobuf and gRPC code (Debian's protoc, plugins pinned in go.mod)
generate: deps
	bash scripts/generate.sh

## generate-check: fail if generated code drifts from its sources
generate-check: generate
	@git diff --exit-code -- '*.pb.go' || { echo "generated code drifted: run make generate and commit"; exit 1; }

## run: the daemon on its embedded dev defaults (RNGD_CONFIG=FILE: other addresses), then a demo client
run: deps build
	bash scripts/run.sh

clean:
	rm -rf $(BIN)
