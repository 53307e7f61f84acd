# vane's everyday commands. `make test` is what CI runs (.ci/run).
.PHONY: run test fuzz bench bench-e2e bench-quick million million-quick

# The repository's Go modules: the root and each directory with a go.mod of
# its own (bench, codec/measure, conformance, examples, ...).
SUBMODULES := $(patsubst %/go.mod,%,$(sort $(shell git ls-files "*/go.mod")))
MODULES := . $(SUBMODULES)

# The example service (its own module, examples/), on SQLite in
# examples/petstore-data; flags go in ARGS: make run ARGS='-addr :9000'.
# DATABASE_URL, PETSTORE_TOKEN and the other PETSTORE_ variables pass through.
run:
	cd examples && go run ./petstore $(ARGS)

# Everything CI checks: the tools the tests use (scripts/setup: Chromium,
# the Python validators, PostgreSQL, wrk), formatting, then vet and the
# race-enabled tests of every module.
test:
	scripts/setup
	@unformatted=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$unformatted" ]; then echo "gofmt needed: $$unformatted"; exit 1; fi
	go vet ./...
	go test -race -timeout 20m ./...
	@set -e; for m in $(SUBMODULES); do echo "== module $$m"; (cd $$m && go vet ./... && go test -race -timeout 20m ./...); done

# A short run of every fuzz target of every module (scripts/fuzz finds them
# in the sources): FUZZTIME=d per target, 20s by default.
fuzz:
	FUZZTIME=$(or $(FUZZTIME),20s) scripts/fuzz

# Benchmarks (the separate bench/ module, bench/README.md):
#   bench        the in-process workloads, pinned to one CPU: 60 rounds (COUNT=n) of
#                -benchtime 50ms (BENCHTIME=d), then the large-API workload (vane and Huma at
#                100 to 20,000 operations, a process each, LARGE_ROUNDS=n rounds, default 3), then
#                BENCHMARKS.md; about 30 minutes on 2 cores, plus the large-API workload's
#                (about an hour, most of it Huma registering 20,000 operations; its programs
#                with 512 and 4,096 types build once, then come from the Go build cache)
#   bench-e2e    bench/setup (wrk, FastAPI), then end to end under wrk, the servers on CPU 0
#                and wrk on CPU 1: 6 rounds (ROUNDS=n), each server measured in 5 slices
#                (SLICES=n; 1: one run per server, the servers in turn) interleaved with
#                the others', then BENCHMARKS.md; about 16 minutes
#   bench-quick  CI: the correctness check and one short round of everything (the large-API
#                workload at 100 and 1,000 operations); report under bench/results/quick/
bench:
	cd bench && VANE_BENCH_VIA="make bench COUNT=$(or $(COUNT),60) BENCHTIME=$(or $(BENCHTIME),50ms) LARGE_ROUNDS=$(or $(LARGE_ROUNDS),3)" \
		go run ./cmd/report -count $(or $(COUNT),60) -benchtime $(or $(BENCHTIME),50ms) -largeapi -largeapi-rounds $(or $(LARGE_ROUNDS),3)

bench-e2e:
	bench/setup
	cd bench && VANE_BENCH_VIA="make bench-e2e ROUNDS=$(or $(ROUNDS),6) SLICES=$(or $(SLICES),5)" \
		go run ./cmd/report -e2e -e2e-rounds $(or $(ROUNDS),6) -e2e-slices $(or $(SLICES),5)

bench-quick:
	cd bench && go vet ./... && go test -count=1 ./... && go run ./cmd/report -quick

# The example at a million pets (conformance/million): seeded in bulk, then
# each kind of request alone and a mixed load (50 connections, a tenth
# writing) under wrk, on SQLite and on PostgreSQL; about 10 minutes.
# million-quick (CI) does the same with 20,000 pets and 2 s loads.
million:
	scripts/setup
	cd conformance && VANE_MILLION_PETS=$(or $(PETS),1000000) VANE_MILLION_SECONDS=$(or $(SECONDS),20) \
		go test -count=1 -v -timeout 60m -run TestMillion ./million/

million-quick:
	scripts/setup
	cd conformance && VANE_MILLION_PETS=20000 VANE_MILLION_SECONDS=2 go test -count=1 -v -run TestMillion ./million/
