# vane's everyday commands. `make test` is what CI runs (.ci/run).
.PHONY: run test fuzz bench bench-e2e bench-quick

# The example service (its own module, examples/), on SQLite in
# examples/petstore-data; flags go in ARGS: make run ARGS='-addr :9000'.
# DATABASE_URL, PETSTORE_TOKEN and the other PETSTORE_ variables pass through.
run:
	cd examples && go run ./petstore $(ARGS)

# Everything CI checks: formatting, vet, the race-enabled tests of the root
# module and of the bench module (whose correctness check runs in quick mode).
test:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$unformatted" ]; then echo "gofmt needed: $$unformatted"; exit 1; fi
	go vet ./...
	go test -race ./...
	cd bench && go vet ./... && go test -race ./...
	cd conformance && go vet ./... && go test -race ./...

# A short run of every fuzz target: routing, path cleaning, parameter and
# body binding with validation, and the required-property scanner.
fuzz:
	go test -run '^$$' -fuzz FuzzRouter -fuzztime 60s .
	go test -run '^$$' -fuzz FuzzCleanPath -fuzztime 20s .
	go test -run '^$$' -fuzz FuzzEscapedPath -fuzztime 30s .
	go test -run '^$$' -fuzz FuzzParameters -fuzztime 60s .
	go test -run '^$$' -fuzz FuzzBody -fuzztime 60s .
	go test -run '^$$' -fuzz FuzzRequiredScan -fuzztime 30s ./validate

# Benchmarks (the separate bench/ module, bench/README.md):
#   bench        workloads 1-5 with -count 6 (COUNT=n to change), then BENCHMARKS.md; long, run on a quiet machine
#   bench-e2e    workload 6, end to end under wrk on loopback, then BENCHMARKS.md
#   bench-quick  CI: the correctness check and one short run of everything; report under bench/results/quick/
bench:
	cd bench && go run ./cmd/report -count $(or $(COUNT),6)

bench-e2e:
	cd bench && go run ./cmd/report -e2e -e2e-rounds $(or $(ROUNDS),3)

bench-quick:
	cd bench && go vet ./... && go test -count=1 ./... && go run ./cmd/report -quick
