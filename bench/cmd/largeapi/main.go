// Command largeapi measures one configuration of the large-API workload
// (package largeapi) with the shared types, in its own process:
//
//	go run ./cmd/largeapi -framework vane -n 1000
//
// It writes the measurement as JSON. The report runs it once per
// framework, size and round (go run ./cmd/report -largeapi).
package main

import "github.com/vane-http/vane/bench/largeapi"

func main() { largeapi.Main(nil) }
