package report

import (
	"reflect"
	"strings"
	"testing"
)

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
	// Every round is a permutation; with two rounds or more, no server is
	// first in every round, nor last in every round.
	for n := 2; n <= 10; n++ {
		for rounds := 2; rounds <= 6; rounds++ {
			list := make([]string, n)
			for i := range list {
				list[i] = string(rune('a' + i))
			}
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
		}
	}
}

func TestAggregateE2E(t *testing.T) {
	rounds := []E2ERound{
		{Round: 1, Status: "ok", ReqPerSec: 300, AvgMs: 3, P99Ms: 30, TransferMB: 3, Requests: 3000, Errors: 1},
		{Round: 2, Status: "ok", ReqPerSec: 100, AvgMs: 1, P99Ms: 10, TransferMB: 1, Requests: 1000, Errors: 2},
		{Round: 3, Status: "ok", ReqPerSec: 200, AvgMs: 9, P99Ms: 20, TransferMB: 2, Requests: 2000},
	}
	t.Run("odd rounds", func(t *testing.T) {
		r := AggregateE2E("vane", rounds)
		if r.Status != "ok" || r.Reason != "" || r.ReqPerSec != 200 || r.AvgMs != 3 || r.P99Ms != 20 || r.TransferMB != 2 || r.Requests != 6000 || r.Errors != 3 {
			t.Errorf("%+v", r)
		}
		if s := r.Stat(); s != (E2EStat{N: 3, Median: 200, Min: 100, Max: 300}) {
			t.Errorf("stat %+v", s)
		}
	})
	t.Run("a failed round", func(t *testing.T) {
		// The mean of the middle two; the failed round counts for nothing but is named.
		rs := append(append([]E2ERound(nil), rounds[1:]...), E2ERound{Round: 4, Status: "failed", Reason: "did not answer"})
		r := AggregateE2E("vane", rs)
		if r.Status != "ok" || r.ReqPerSec != 150 || r.Errors != 2 || !strings.Contains(r.Reason, "2 of 3 rounds; round 4: failed: did not answer") {
			t.Errorf("%+v", r)
		}
	})
	t.Run("no round measured", func(t *testing.T) {
		r := AggregateE2E("vane", []E2ERound{{Round: 1, Status: "failed", Reason: "did not answer"}})
		if r.Status != "failed" || r.Reason != "did not answer" || r.Stat().N != 0 {
			t.Errorf("%+v", r)
		}
	})
}

// e2eRun is six rounds in which the machine's load moves every server's
// requests per second by up to 60% from round to round; within a round,
// each server serves base·load·(its own ±0.5%).
func e2eRun(bases map[string]float64) *E2E {
	e := &E2E{Date: "2026-11-22 10:00", Stamp: "20261122-100000", Tool: "wrk 4.2.0", Threads: 1, Conns: 10, Duration: "10s", Warmup: "3s", Rounds: 6,
		ReportCommand: "make bench-e2e", ServerCommand: "taskset -c 0 env GOMAXPROCS=1 bin/serve -impl NAME -addr 127.0.0.1:PORT",
		Command: "taskset -c 1 wrk -t 1 -c 10 -d 10s --latency http://127.0.0.1:PORT/items/123", Pinning: "Each server ran on CPU 0 alone, and wrk on CPU 1 alone"}
	seed := 0
	for _, name := range []string{"net/http", "vane", "vane-fast", "vane-router", "gin", "echo", "chi", "huma", "humafiber", "fiber", "fastapi"} {
		base, ok := bases[name]
		if !ok {
			continue
		}
		seed++
		ns := steady(base, seed)
		var rs []E2ERound
		for r := 1; r <= e.Rounds; r++ {
			rs = append(rs, E2ERound{Round: r, Status: "ok", ReqPerSec: ns(r), AvgMs: 0.2, P99Ms: 1, TransferMB: 9, RawFile: "results/e2e-20261122-100000-r1-x.txt"})
		}
		e.Results = append(e.Results, AggregateE2E(name, rs))
	}
	return e
}

func renderE2E(t *testing.T, e *E2E) string {
	t.Helper()
	return render(t, &Report{Data: parseString(t, ""), E2E: e})
}

func TestE2EPaired(t *testing.T) {
	t.Run("vane ahead of every net/http peer", func(t *testing.T) {
		e := e2eRun(map[string]float64{"net/http": 50000, "vane": 52000, "gin": 48000, "echo": 47000, "chi": 49000, "huma": 40000, "fiber": 90000})
		e.Results = append(e.Results, E2EResult{Name: "fastapi", Status: StateAbsent, Reason: "FastAPI is not installed in .tools/fastapi-venv: run bench/setup (make bench-e2e runs it)"})
		md := renderE2E(t, e)
		wantAll(t, md,
			"| Implementation | Req/s (median) | min–max | Avg (ms) | p99 (ms) | Transfer | vane ÷ it [95% CI] | verdict | Errors |",
			"| vane | 59,995 | 46,706–82,950 | 0.200 | 1.000 | 9.00 MB/s | 1 |  | 0 |",
			"| net/http | 57,698 | 44,820–79,600 | 0.200 | 1.000 | 9.00 MB/s | 1.04× [1.03–1.04] | vane faster | 0 |",
			"| fiber | **103,959** |",
			"0.58× [0.57–0.58] | **fiber faster** |",
			"| fastapi | absent[^1] | | | | | | | |",
			"[^1]: fastapi: FastAPI is not installed in .tools/fastapi-venv: run bench/setup (make bench-e2e runs it)",
			"> By the paired ratios vane ÷ server: **serve more than vane**: fiber (0.58× [0.57–0.58]); serve less than vane: net/http (1.04× [1.03–1.04]),",
			"Each server ran on CPU 0 alone, and wrk on CPU 1 alone.",
			"Figures made by `make bench-e2e`, which in each round, for each server, runs `taskset -c 0 env GOMAXPROCS=1 bin/serve -impl NAME -addr 127.0.0.1:PORT`, then wrk twice",
			"`bench/results/e2e-20261122-100000-r<round>-<server>.txt`",
			"| End to end: at least bare net/http's requests/s | vane ÷ net/http 1.04× [1.03–1.04] | met |",
			"| End to end: more requests/s than every net/http-based peer (gin, echo, chi, huma); fiber (fasthttp) shown for reference | vane ÷ gin 1.08× [1.08–1.09], echo 1.10× [1.10–1.11], chi 1.06× [1.05–1.07], huma 1.30× [1.29–1.30]; for reference, fiber 0.58× [0.57–0.58] | met |",
		)
	})
	t.Run("the fast engine", func(t *testing.T) {
		// vane-fast 5% ahead of fiber, far ahead of Huma on fiber.
		md := renderE2E(t, e2eRun(map[string]float64{"net/http": 50000, "vane": 52000, "vane-fast": 94500, "gin": 48000, "echo": 47000, "chi": 49000, "huma": 40000, "humafiber": 60000, "fiber": 90000}))
		wantAll(t, md,
			"| vane ÷ it [95% CI] | verdict | vane-fast ÷ it [95% CI] | Errors |",
			"| vane-fast | **",
			" 1 | 0 |",
			"> By the paired ratios vane-fast ÷ server: serve less than vane-fast:",
			"fiber (1.05× [",
			"| End to end on the fast engine (opt in): at least fiber's requests/s (vane-fast ÷ fiber: median ≥ 1, interval not below 0.9), more than Huma on fiber's | vane-fast ÷ fiber 1.05× [",
			"humafiber 1.58× [",
		)
		if l := line(md, "| End to end on the fast engine"); !strings.HasSuffix(l, "| met |") {
			t.Errorf("the fast engine's target is not met: %s", l)
		}
		// 3% behind fiber: missed, though the interval is above 0.9.
		md = renderE2E(t, e2eRun(map[string]float64{"vane": 52000, "vane-fast": 87300, "humafiber": 60000, "fiber": 90000}))
		wantAll(t, md, "vane-fast ÷ fiber 0.97× [")
		if l := line(md, "| End to end on the fast engine"); !strings.HasSuffix(l, "| **missed** |") {
			t.Errorf("vane-fast 3%% behind fiber is not missed: %s", l)
		}
	})
	t.Run("a tie and a loss", func(t *testing.T) {
		// vane as fast as net/http; chi 2% ahead in every round.
		md := renderE2E(t, e2eRun(map[string]float64{"net/http": 50000, "vane": 50000, "gin": 45000, "echo": 45000, "chi": 51000, "huma": 40000}))
		wantAll(t, md,
			"| End to end: at least bare net/http's requests/s | vane ÷ net/http 1.00× [0.99–1.00] | **not shown**: the 95% interval contains the bound |",
			"chi 0.98× [0.97–0.99],",
			"| **missed** |",
			"**serve more than vane**: chi (0.98× [0.97–0.99]); tie with vane: net/http (1.00× [0.99–1.00])",
		)
	})
	t.Run("too few rounds", func(t *testing.T) {
		e := e2eRun(map[string]float64{"net/http": 50000, "vane": 60000, "gin": 45000})
		for i := range e.Results {
			e.Results[i] = AggregateE2E(e.Results[i].Name, e.Results[i].Rounds[:3])
		}
		e.Rounds = 3
		md := renderE2E(t, e)
		wantAll(t, md,
			"vane ÷ net/http 1.20× (3 rounds: no 95% interval below 6) | no verdict: fewer than 6 rounds |",
			"no verdict (fewer than 6 paired rounds): net/http, gin.",
		)
	})
}

// line returns the line of md that begins with prefix, or "".
func line(md, prefix string) string {
	for l := range strings.Lines(md) {
		if strings.HasPrefix(l, prefix) {
			return strings.TrimSuffix(l, "\n")
		}
	}
	return ""
}
