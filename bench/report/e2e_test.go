package report

import (
	"math"
	"reflect"
	"strings"
	"testing"
)

func readE2E(t *testing.T, name string) *E2E {
	t.Helper()
	e := &E2E{}
	if err := ReadJSON(name, e); err != nil {
		t.Fatal(err)
	}
	return e
}

func renderE2E(t *testing.T, e *E2E) string {
	t.Helper()
	rep := &Report{Data: parseString(t, ""), E2E: e, ChartDir: t.TempDir(), ChartRel: "charts"}
	var b strings.Builder
	if err := rep.Render(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func wantAll(t *testing.T, md string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(md, w) {
			t.Errorf("report lacks %q", w)
		}
	}
	if t.Failed() {
		t.Log(md[strings.Index(md, "## End to end"):])
	}
}

func TestRoundOrder(t *testing.T) {
	names := []string{"net/http", "vane", "vane-router", "gin", "echo", "chi", "huma", "fiber", "fastapi"}
	want := [][]string{
		names,
		{"gin", "echo", "chi", "huma", "fiber", "fastapi", "net/http", "vane", "vane-router"},
		{"huma", "fiber", "fastapi", "net/http", "vane", "vane-router", "gin", "echo", "chi"},
	}
	for r, w := range want {
		if got := RoundOrder(names, r, 3); !reflect.DeepEqual(got, w) {
			t.Errorf("round %d: %v, want %v", r, got, w)
		}
	}
	if got := RoundOrder([]string{"net/http", "vane"}, 1, 2); !reflect.DeepEqual(got, []string{"vane", "net/http"}) {
		t.Errorf("two servers, round 2: %v", got)
	}
	// Every round is a permutation; with two rounds or more, no server is
	// first in every round, nor last in every round.
	for n := 1; n <= 10; n++ {
		list := make([]string, n)
		for i := range list {
			list[i] = string(rune('a' + i))
		}
		for rounds := 1; rounds <= 6; rounds++ {
			firsts, lasts := map[string]int{}, map[string]int{}
			for r := 0; r < rounds; r++ {
				o := RoundOrder(list, r, rounds)
				seen := map[string]bool{}
				for _, x := range o {
					seen[x] = true
				}
				if len(o) != n || len(seen) != n {
					t.Fatalf("n=%d rounds=%d round %d: %v is not a permutation", n, rounds, r, o)
				}
				firsts[o[0]]++
				lasts[o[n-1]]++
			}
			if n < 2 || rounds < 2 {
				continue
			}
			for x, c := range firsts {
				if c == rounds {
					t.Errorf("n=%d rounds=%d: %s is first in every round", n, rounds, x)
				}
			}
			for x, c := range lasts {
				if c == rounds {
					t.Errorf("n=%d rounds=%d: %s is last in every round", n, rounds, x)
				}
			}
			if rounds == n && len(firsts) != n {
				t.Errorf("n=rounds=%d: firsts %v, want each server first once", n, firsts)
			}
		}
	}
}

func TestAggregateE2E(t *testing.T) {
	rounds := []E2ERound{
		{Round: 1, Status: "ok", ReqPerSec: 300, AvgMs: 3, P99Ms: 30, TransferMB: 3, Requests: 3000, Errors: 1},
		{Round: 2, Status: "ok", ReqPerSec: 100, AvgMs: 1, P99Ms: 10, TransferMB: 1, Requests: 1000, Errors: 2},
		{Round: 3, Status: "ok", ReqPerSec: 200, AvgMs: 9, P99Ms: 20, TransferMB: 2, Requests: 2000},
	}
	r := AggregateE2E("vane", rounds)
	if r.Status != "ok" || r.Reason != "" || r.ReqPerSec != 200 || r.AvgMs != 3 || r.P99Ms != 20 || r.TransferMB != 2 || r.Requests != 6000 || r.Errors != 3 {
		t.Errorf("odd rounds: %+v", r)
	}
	if s := r.Stat(); s != (E2EStat{N: 3, Median: 200, Min: 100, Max: 300}) || math.Abs(s.Spread()-0.5) > 1e-12 {
		t.Errorf("stat %+v spread %v", s, s.Spread())
	}
	// An even number of measured rounds: the mean of the middle two; a
	// failed round counts for nothing but is named.
	rounds = append(rounds, E2ERound{Round: 4, Status: "failed", Reason: "did not answer"})
	r = AggregateE2E("vane", rounds[1:])
	if r.Status != "ok" || r.ReqPerSec != 150 || r.Errors != 2 || !strings.Contains(r.Reason, "2 of 3 rounds; round 4: failed: did not answer") {
		t.Errorf("even rounds: %+v", r)
	}
	if r := AggregateE2E("vane", rounds[3:]); r.Status != "failed" || r.Reason != "did not answer" || r.Stat().N != 0 {
		t.Errorf("no round measured: %+v", r)
	}
	a := E2EStat{N: 3, Median: 10, Min: 9, Max: 11}
	if !a.Overlaps(E2EStat{N: 3, Median: 12, Min: 11, Max: 13}) || a.Overlaps(E2EStat{N: 3, Median: 12, Min: 11.5, Max: 13}) {
		t.Error("overlap of ranges")
	}
	if (E2EStat{N: 1, Median: 10, Min: 10, Max: 10}).Overlaps(E2EStat{N: 1, Median: 10, Min: 10, Max: 10}) {
		t.Error("single rounds have no spread to be within")
	}
}

// e2e-rounds.json is a three-round run in the format cmd/report writes,
// written by hand around the numbers of a recorded single-round run (its
// top-level numbers are AggregateE2E of its rounds; echo's second round
// failed). fiber is clearly ahead of vane, gin and fastapi clearly behind,
// and net/http, vane-router, echo, chi and huma within the spread.
func TestE2ERoundsRecorded(t *testing.T) {
	e := readE2E(t, "testdata/e2e-rounds.json")
	for _, res := range e.Results {
		if got := AggregateE2E(res.Name, res.Rounds); !reflect.DeepEqual(got, res) {
			t.Errorf("%s: stored %+v, aggregated %+v", res.Name, res, got)
		}
	}
	for r, o := range e.Orders {
		if want := RoundOrder(e.Orders[0], r, e.Rounds); !reflect.DeepEqual(o, want) {
			t.Errorf("round %d order %v, want %v", r+1, o, want)
		}
	}
	md := renderE2E(t, e)
	wantAll(t, md,
		"| Implementation | Req/s (median) | min–max | Avg (ms) | p99 (ms) | Transfer | vs net/http | Errors |",
		"| vane | 59,500 ± 4% | 57,000–61,895 | 0.605 | 5.100 | 10.44 MB/s | 106% | 1 |",
		"| net/http | 55,918 ± 7% | 52,000–58,000 |",
		"| fiber | **99,500 ± 2%** | 98,000–101,478 |",
		"| echo[^1] | 59,084 ± 2% | 58,067–60,100 (2 of 3 rounds) |",
		"[^1]: echo: measured in 2 of 3 rounds; round 2: failed: did not answer: connection refused",
		"> **vane loses this row**: fiber serves 67.2% more requests per second (medians of 3 rounds; the ranges do not overlap).",
		"> Against vane: ahead (ranges apart): fiber; ≈, within the spread of 3 rounds: huma, echo, vane-router, chi, net/http; behind (ranges apart): gin, fastapi.",
		"> vane serves 106.4% of bare net/http's requests per second (medians of 3 rounds; ≈, within the spread of 3 rounds; the brief's bound: within 5%).",
		"Order of the rounds: 1. net/http → vane → vane-router → gin → echo → chi → huma → fiber → fastapi. 2. gin → echo",
		", 3 times per server (one per round)",
		"| end to end: more requests/s than gin, echo, chi, huma and fiber | ahead of vane: fiber; ≈ vane, within the spread of 3 rounds: echo, chi, huma (medians of 3 rounds) | **missed** |",
		"| end to end: within 5% of bare net/http | 106.4% of net/http's requests/s (medians of 3 rounds; range 98.3%–119.0%) | met |",
	)
	if strings.Contains(md, "ahead of vane: huma") {
		t.Error("huma is declared ahead though within the spread")
	}

	// Without fiber the highest median is huma's, within vane's spread:
	// no winner is declared, and the target is "≈", not missed.
	var noFiber []E2EResult
	for _, res := range e.Results {
		if res.Name != "fiber" {
			noFiber = append(noFiber, res)
		}
	}
	e.Results = noFiber
	md = renderE2E(t, e)
	wantAll(t, md,
		"> vane ≈ huma, the highest median, within the spread of 3 rounds: huma's median is 4.2% higher but the ranges overlap.",
		"| end to end: more requests/s than gin, echo, chi, huma and fiber | ≈ vane, within the spread of 3 rounds: echo, chi, huma (medians of 3 rounds) | ≈ (within the spread of 3 rounds) |",
	)
	if strings.Contains(md, "vane loses this row") {
		t.Error("a loss is declared within the spread")
	}

	// vane on top, the runner-up within the spread; then clearly on top.
	set := func(name string, rps ...float64) {
		for i, res := range e.Results {
			if res.Name != name {
				continue
			}
			var rs []E2ERound
			for j, v := range rps {
				rs = append(rs, E2ERound{Round: j + 1, Status: "ok", ReqPerSec: v})
			}
			e.Results[i] = AggregateE2E(name, rs)
		}
	}
	set("vane", 61000, 63000, 64000)
	md = renderE2E(t, e)
	wantAll(t, md, "> vane has the highest median, but ≈ huma, within the spread of 3 rounds: huma's median is 1.6% lower and the ranges overlap.")
	set("vane", 70000, 71000, 72000)
	md = renderE2E(t, e)
	wantAll(t, md,
		"> vane serves the most requests per second (medians of 3 rounds; its range overlaps no other's).",
		"| end to end: more requests/s than gin, echo, chi, huma and fiber | vane serves the most (medians of 3 rounds) | met |",
	)
	// Below 95% of net/http by medians: missed when the ranges are apart,
	// "≈" when vane's best round reaches 95% of net/http's worst.
	set("net/http", 80000, 81000, 82000)
	wantAll(t, renderE2E(t, e), "| end to end: within 5% of bare net/http | 87.7% of net/http's requests/s (medians of 3 rounds; range 85.4%–90.0%) | **missed** |")
	set("net/http", 70000, 75000, 76000)
	wantAll(t, renderE2E(t, e), "| end to end: within 5% of bare net/http | 94.7% of net/http's requests/s (medians of 3 rounds; range 92.1%–102.9%) | ≈ (within the spread of 3 rounds) |")
}

// e2e-single-round.json is a recorded end-to-end run from before rounds
// existed: it still renders, as one round with no spread.
func TestE2ESingleRoundRecorded(t *testing.T) {
	e := readE2E(t, "testdata/e2e-single-round.json")
	if e.Rounds != 0 || len(e.Results[0].Rounds) != 0 {
		t.Fatal("the recorded file is not of the old format")
	}
	md := renderE2E(t, e)
	wantAll(t, md,
		"One round: a single pass per server, so no spread is known",
		"| Implementation | Req/s | Avg (ms) | p99 (ms) | Transfer | vs net/http | Errors |",
		"| net/http | 55,918 | 0.628 | 5.870 | 9.81 MB/s | 100% | 0 |",
		"| fiber | **101,478** | 0.379 | 4.290 | 19.16 MB/s | 181% | 0 |",
		"> **vane loses this row**: fiber serves 64.0% more requests per second (one round: no spread known).",
		"> vane serves 110.7% of bare net/http's requests per second (one round: no spread known; the brief's bound: within 5%).",
		"| end to end: more requests/s than gin, echo, chi, huma and fiber | ahead of vane: huma, fiber | **missed** |",
		"Command: `wrk -t 2 -c 10 -d 10s --latency -H 'Authorization: bearer 123' http://127.0.0.1:PORT/items/123?verbose=true`\n",
	)
	if strings.Contains(md, "Order of the rounds") || strings.Contains(md, "min–max") {
		t.Error("a single-round file shows rounds")
	}
}
