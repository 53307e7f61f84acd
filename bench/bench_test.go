package bench_test

import (
	"errors"
	"flag"
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"testing"

	"github.com/vane-http/vane/bench/peers"
	"github.com/vane-http/vane/bench/routes"
)

// TestCorrectness is the check that runs before anything is timed: every
// peer answers every request of every case with the right route, the right
// parameter values and, for the data and typed cases, the right response.
// vane answering wrongly fails the test; so does a peer, unless the
// failure is a known defect of that peer (peers.KnownWrong), which the
// report shows instead of a time.
func TestCorrectness(t *testing.T) {
	for _, c := range peers.Cases() {
		for _, p := range peers.All() {
			t.Run(c.Category+"/"+c.Name+"/"+p.Name, func(t *testing.T) {
				err := c.Check(p)
				var lacks peers.ErrLacks
				switch {
				case err == nil:
				case errors.As(err, &lacks):
					t.Skip(lacks.Reason)
				case peers.KnownWrong(p.Name, c.Name) != "":
					t.Skipf("known defect (%s): %v", peers.KnownWrong(p.Name, c.Name), err)
				default:
					t.Error(err)
				}
			})
		}
	}
}

// TestVaneAllocatesNothing holds vane to 0 allocations per request on
// every route-table row, with handlers that read all of their parameters
// and with handlers that read none, and on the micro rows that must not
// allocate.
func TestVaneAllocatesNothing(t *testing.T) {
	vane, _ := peers.ByName("vane")
	micro := map[string]bool{"Param": true, "Param5": true, "Param20": true, "ParamWrite": true}
	for _, c := range peers.Cases() {
		if c.Category != "TablesRead" && c.Category != "TablesNoRead" && !(c.Category == "Micro" && micro[c.Name]) {
			continue
		}
		t.Run(c.Category+"/"+c.Name, func(t *testing.T) {
			h, err := c.Build(vane)
			if err != nil {
				t.Fatal(err)
			}
			if n := allocsPerOp(h, c.Requests()); n != 0 {
				t.Errorf("%v allocations per operation, want 0", n)
			}
		})
	}
}

// allocsPerOp is the allocations of one benchmark operation: every request
// of specs served once, as runCase serves them.
func allocsPerOp(h http.Handler, specs []peers.Request) float64 {
	warmUp(h, specs)
	reqs := make([]*http.Request, len(specs))
	for i, s := range specs {
		reqs[i] = s.NewRequest()
	}
	body := &peers.Body{}
	w := peers.NewWriter()
	return testing.AllocsPerRun(50, func() {
		for i, r := range reqs {
			peers.Rewind(r, specs[i], body)
			w.Reset()
			h.ServeHTTP(w, r)
		}
	})
}

// benchRound is the round of an interleaved run (cmd/report passes it):
// each round starts every case's peers at another place, so that no peer
// always runs first or right after the same neighbour.
var benchRound = flag.Int("bench.round", 1, "round of an interleaved run, from 1: rotates the order of the peers")

// benchSet selects the benchmarks of one kind: cmd/report runs those that
// use one CPU pinned to it, and those that serve from every CPU unpinned.
var benchSet = flag.String("bench.set", "all", "which benchmarks run: all, pinned (every one but BenchmarkParallel) or unpinned (BenchmarkParallel)")

// inSet skips b unless it belongs to the set being run; parallel tells
// whether b serves from every CPU at once.
func inSet(b *testing.B, parallel bool) {
	switch *benchSet {
	case "all":
	case "pinned":
		if parallel {
			b.SkipNow()
		}
	case "unpinned":
		if !parallel {
			b.SkipNow()
		}
	default:
		b.Fatalf("-bench.set %q: want all, pinned or unpinned", *benchSet)
	}
}

func BenchmarkTablesRead(b *testing.B)   { runCategory(b, "TablesRead") }
func BenchmarkTablesNoRead(b *testing.B) { runCategory(b, "TablesNoRead") }
func BenchmarkMicro(b *testing.B)        { runCategory(b, "Micro") }
func BenchmarkMiddleware(b *testing.B)   { runCategory(b, "Middleware") }
func BenchmarkData(b *testing.B)         { runCategory(b, "Data") }
func BenchmarkTyped(b *testing.B)        { runCategory(b, "Typed") }

// BenchmarkParallel serves from every CPU at once (b.RunParallel): unlike
// the others, cmd/report runs it unpinned, with GOMAXPROCS = the machine's
// cores.
func BenchmarkParallel(b *testing.B) { runCategory(b, "Parallel") }

func runCategory(b *testing.B, category string) {
	inSet(b, category == "Parallel")
	all := rotate(peers.All(), *benchRound-1)
	for _, c := range peers.Cases() {
		if c.Category != category {
			continue
		}
		b.Run(c.Name, func(b *testing.B) {
			for _, p := range all {
				b.Run(p.Name, func(b *testing.B) { runCase(b, c, p) })
			}
		})
	}
}

// rotate returns xs started at place n (modulo its length).
func rotate[T any](xs []T, n int) []T {
	if len(xs) == 0 {
		return xs
	}
	n = ((n % len(xs)) + len(xs)) % len(xs)
	return append(append([]T(nil), xs[n:]...), xs[:n]...)
}

// runCase checks the case on p and, only if p answers correctly, times it.
func runCase(b *testing.B, c peers.Case, p peers.Peer) {
	if err := c.Check(p); err != nil {
		var lacks peers.ErrLacks
		if errors.As(err, &lacks) {
			b.Skip(lacks.Reason)
		}
		b.Skipf("answers wrongly, not timed: %v", err)
	}
	h, err := c.Build(p)
	if err != nil {
		b.Fatal(err)
	}
	specs := c.Requests()
	warmUp(h, specs)
	if c.Parallel {
		b.ReportAllocs()
		b.ResetTimer()
		b.RunParallel(func(pb *testing.PB) {
			w := peers.NewWriter()
			req := specs[0].NewRequest()
			for pb.Next() {
				h.ServeHTTP(w, req)
			}
		})
		return
	}
	reqs := make([]*http.Request, len(specs))
	for i, s := range specs {
		reqs[i] = s.NewRequest()
	}
	body := &peers.Body{}
	w := peers.NewWriter()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		for i, r := range reqs {
			peers.Rewind(r, specs[i], body)
			w.Reset()
			h.ServeHTTP(w, r)
		}
	}
}

// warmUp serves every request once before timing, so that work a router
// does once, on its first request (vane compiles its tree then), is not
// counted as a cost per request.
func warmUp(h http.Handler, specs []peers.Request) {
	body := &peers.Body{}
	w := peers.NewWriter()
	for _, s := range specs {
		r := s.NewRequest()
		peers.Rewind(r, s, body)
		h.ServeHTTP(w, r)
	}
}

// BenchmarkMemory builds each route table on each router and serves one
// request: ns/op, B/op and allocs/op are the cost of that, router-B the
// heap the ready router keeps.
func BenchmarkMemory(b *testing.B) {
	inSet(b, false)
	for _, name := range routes.Names {
		t := routes.MustLoad(name)
		b.Run(tableTitle[name], func(b *testing.B) {
			for _, p := range rotate(peers.All(), *benchRound-1) {
				b.Run(p.Name, func(b *testing.B) {
					if p.Router == nil {
						b.Skip(p.Lacks["router"])
					}
					spec := peers.Spec{Routes: t.Routes}
					if _, err := p.Router(spec); err != nil {
						b.Skip(err)
					}
					// A router is measured ready to serve: built, and past its
					// first request (vane compiles its tree then).
					first := peers.Request{Method: t.Routes[0].Method, Path: t.Routes[0].Pattern}.NewRequest()
					ready := func() http.Handler {
						h, _ := p.Router(spec)
						h.ServeHTTP(peers.NewWriter(), first)
						return h
					}
					var before, after runtime.MemStats
					runtime.GC()
					runtime.ReadMemStats(&before)
					h := ready()
					runtime.GC()
					runtime.ReadMemStats(&after)
					runtime.KeepAlive(h)
					kept := float64(after.HeapAlloc) - float64(before.HeapAlloc)
					b.ReportAllocs()
					b.ResetTimer()
					for b.Loop() {
						ready()
					}
					b.ReportMetric(kept, "router-B")
				})
			}
		})
	}
}

var tableTitle = map[string]string{"static": "Static", "github": "GitHub", "gplus": "GPlus", "parse": "Parse"}

func TestRotate(t *testing.T) {
	xs := []string{"a", "b", "c"}
	for _, c := range []struct {
		n    int
		want string
	}{{0, "abc"}, {1, "bca"}, {2, "cab"}, {3, "abc"}, {4, "bca"}, {-1, "cab"}} {
		t.Run(fmt.Sprint(c.n), func(t *testing.T) {
			if got := strings.Join(rotate(xs, c.n), ""); got != c.want {
				t.Errorf("rotate by %d = %s, want %s", c.n, got, c.want)
			}
		})
	}
	if strings.Join(xs, "") != "abc" {
		t.Error("rotate changed its argument")
	}
	if got := rotate([]string(nil), 3); len(got) != 0 {
		t.Errorf("rotate of nothing = %v", got)
	}
}

// -bench.set runs the benchmarks of one kind only: cmd/report runs the
// parallel one unpinned and every other pinned.
func TestBenchSet(t *testing.T) {
	defer func(old string) { *benchSet = old }(*benchSet)
	for _, c := range []struct {
		set               string
		single, parallels bool // whether each kind runs
	}{{"all", true, true}, {"pinned", true, false}, {"unpinned", false, true}} {
		t.Run(c.set, func(t *testing.T) {
			*benchSet = c.set
			ran := func(parallel bool) bool {
				calls := 0
				testing.Benchmark(func(b *testing.B) {
					inSet(b, parallel)
					calls++ // and no loop: testing ramps b.N up at once
				})
				return calls > 0
			}
			if got := ran(false); got != c.single {
				t.Errorf("a single-CPU benchmark ran: %v, want %v", got, c.single)
			}
			if got := ran(true); got != c.parallels {
				t.Errorf("the parallel benchmark ran: %v, want %v", got, c.parallels)
			}
		})
	}
}
