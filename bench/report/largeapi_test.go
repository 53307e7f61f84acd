package report

import (
	"strings"
	"testing"

	"github.com/vane-http/vane/bench/largeapi"
)

// largeProcesses makes the processes of a run in which every cost of framework at n operations
// is cost(n) nanoseconds (bytes for the memory), in each of rounds rounds.
func largeProcesses(framework string, types int, sizes []int, rounds int, cost func(n int) float64, first func(n int) float64) []largeapi.Process {
	var out []largeapi.Process
	for round := 1; round <= rounds; round++ {
		for _, n := range sizes {
			c := largeapi.Cost{CPU: int64(cost(n))}
			forms := map[string]largeapi.FormResult{}
			for _, f := range largeapi.Forms {
				forms[f.Name] = largeapi.FormResult{First: c, Second: largeapi.Cost{CPU: 1000}, Bytes: n * 100}
			}
			res := &largeapi.Result{Framework: framework, N: n, Types: types, Register: c, First: largeapi.Cost{CPU: int64(first(n))},
				Second: largeapi.Cost{CPU: 500}, Forms: forms, Heap: uint64(cost(n)), PeakRSS: uint64(cost(n))}
			if framework == "vane" {
				res.Check = &c
			}
			out = append(out, largeapi.Process{Framework: framework, N: n, Types: types, Round: round, Status: "ok", Result: res})
		}
	}
	return out
}

func TestRenderLargeAPI(t *testing.T) {
	sizes := []int{100, 5000, 20000}
	linear := func(n int) float64 { return float64(n) * 1000 }
	quadratic := func(n int) float64 { return float64(n) * float64(n) }
	constant := func(int) float64 { return 50_000 }
	l := &LargeAPI{Date: "2026-11-27", Stamp: "20261127-000000", Rounds: 3, Sizes: sizes, Variants: []int{0, 512},
		ProcessCommand: "GOMAXPROCS=1 BINARY -framework FRAMEWORK -n N"}
	l.Processes = append(l.Processes, largeProcesses("vane", 0, sizes, 3, linear, constant)...)
	l.Processes = append(l.Processes, largeProcesses("huma", 0, sizes, 3, quadratic, constant)...)
	// With 512 types, vane's costs grow as N² and pass Huma's; its first
	// request grows too.
	l.Processes = append(l.Processes, largeProcesses("vane", 512, sizes, 3, quadratic, linear)...)
	l.Processes = append(l.Processes, largeProcesses("huma", 512, sizes[:2], 3, linear, constant)...)
	l.Processes = append(l.Processes, largeapi.Process{Framework: "huma", N: 20000, Types: 512, Round: 1, Status: "failed", Reason: "no result within 30m0s"})
	md := render(t, &Report{Data: &Data{Samples: map[Key]map[string][]float64{}}, Meta: metaFor("vane", "huma"), LargeAPI: l})
	sec := section(md, "## An API of 100 to 20,000 operations")
	wantAll(t, sec,
		"### Every operation sharing its types",
		"| 20,000 | 20.0 ms / 400 ms (0.05×) | 50.0 µs / 50.0 µs (1.00×) |",
		"### Outputs of 512 distinct types (1,024 component schemas and the problem's)",
		"| 5,000 | 25.0 ms / 5.00 ms (**5.00×**) |",
		"| 20,000 | 400 ms / ✗[^",
		"| shared types | 1.00 / 2.00 |",
		"| 512 distinct types | 2.00 / — |",
		"Met: at 20,000 operations, vane's",
		"**Growing faster than N^1.1**: register, 512 distinct types (2.00)",
		"vane's first request costs 1.00× at 20,000 operations what it costs at 100 (shared types)",
		"**vane's first request costs 200.00× at 20,000 operations what it costs at 100 (512 distinct types)**: more than 2×.",
	)
	wantAll(t, md, "huma, 20000 operations, 512 distinct types: round 1: no result within 30m0s")
	if strings.Contains(sec, "**Above Huma's**") {
		t.Errorf("a cost above Huma's is reported where Huma has no number:\n%s", sec)
	}
	// Huma measured at 20,000 with 512 types: vane's costs are above.
	l.Processes = append(l.Processes, largeProcesses("huma", 512, sizes[2:], 1, linear, constant)...)
	md = render(t, &Report{Data: &Data{Samples: map[Key]map[string][]float64{}}, Meta: metaFor("vane", "huma"), LargeAPI: l})
	wantAll(t, section(md, "## An API of 100 to 20,000 operations"),
		"**Above Huma's**: register at 20,000 operations, 512 distinct types (20.00×)")
}
