# vane's Makefile. The benchmark targets run the separate bench/ module
# (bench/README.md); the lead may add targets of its own below.
#   make bench        workloads 1-5 with -count 6, then BENCHMARKS.md (takes long; run on a quiet machine)
#   make bench-e2e    workload 6 (end to end under wrk, loopback only), then BENCHMARKS.md
#   make bench-quick  CI: correctness check, one short run of everything, report under bench/results/quick/

.PHONY: bench bench-e2e bench-quick

bench:
	cd bench && go run ./cmd/report -count $(or $(COUNT),6)

bench-e2e:
	cd bench && go run ./cmd/report -e2e

bench-quick:
	cd bench && go vet ./... && go test -count=1 ./... && go run ./cmd/report -quick
