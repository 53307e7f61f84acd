# vane's everyday commands. `make test` is what CI runs (.ci/run).
.PHONY: run test fuzz

# The example service, with its docs page.
run:
	go run ./examples/hello

# Everything CI checks: formatting, vet, the race-enabled tests of the root
# module and of the bench module (whose correctness check runs in quick mode).
test:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$unformatted" ]; then echo "gofmt needed: $$unformatted"; exit 1; fi
	go vet ./...
	go test -race ./...
	cd bench && go vet ./... && go test -race ./...

# A short run of every fuzz target of the router.
fuzz:
	go test -run '^$$' -fuzz FuzzRouter -fuzztime 60s .
	go test -run '^$$' -fuzz FuzzCleanPath -fuzztime 20s .
