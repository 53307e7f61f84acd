package bench_test

import (
	"errors"
	"net/http"
	"runtime"
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

func BenchmarkTables(b *testing.B)     { runCategory(b, "Tables") }
func BenchmarkMicro(b *testing.B)      { runCategory(b, "Micro") }
func BenchmarkMiddleware(b *testing.B) { runCategory(b, "Middleware") }
func BenchmarkData(b *testing.B)       { runCategory(b, "Data") }
func BenchmarkTyped(b *testing.B)      { runCategory(b, "Typed") }

func runCategory(b *testing.B, category string) {
	for _, c := range peers.Cases() {
		if c.Category != category {
			continue
		}
		b.Run(c.Name, func(b *testing.B) {
			for _, p := range peers.All() {
				b.Run(p.Name, func(b *testing.B) { runCase(b, c, p) })
			}
		})
	}
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
	for _, name := range routes.Names {
		t := routes.MustLoad(name)
		b.Run(tableTitle[name], func(b *testing.B) {
			for _, p := range peers.All() {
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
