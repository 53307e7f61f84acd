// Package idiom measures middleware chains alone, without a router: the
// net/http idiom, func(http.Handler) http.Handler, which vane's Use takes,
// against the func-typed idiom of echo and bunrouter, func(next) next,
// written here with net/http's types as vane's UseFunc takes it.
// BENCHMARKS.md's middleware rows show vane in both forms (vane: UseFunc;
// vane-std: Use); this shows what the idiom itself costs, without any
// router around it.
//
//	cd bench && taskset -c 1 go test -run '^$' -bench . -count 6 -cpu 1 ./idiom/
package idiom

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
)

// probe, when set, counts the layers a request passed (TestChainsPass).
var probe *int

// passed is what every layer and the handler do, as in the benchmarks'
// peers: count the request when a test asks.
func passed() {
	if p := probe; p != nil {
		*p++
	}
}

// handlerLayer is a pass-through middleware in the net/http idiom: the
// next layer is called through the http.Handler interface, whose
// HandlerFunc method then calls the func, two calls a layer.
func handlerLayer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		passed()
		next.ServeHTTP(w, r)
	})
}

// funcLayer is the same middleware in the func-typed idiom: the next
// layer is a func, called directly, one call a layer.
func funcLayer(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		passed()
		next(w, r)
	}
}

func handler(http.ResponseWriter, *http.Request) { passed() }

// chain returns n layers of the idiom around handler.
func chain(idiom string, n int) http.Handler {
	if idiom == "func" {
		f := http.HandlerFunc(handler)
		for range n {
			f = funcLayer(f)
		}
		return f
	}
	var h http.Handler = http.HandlerFunc(handler)
	for range n {
		h = handlerLayer(h)
	}
	return h
}

func BenchmarkChain(b *testing.B) {
	w, r := httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/", nil)
	for _, idiom := range []string{"net-http", "func"} {
		for _, n := range []int{5, 10, 20} {
			h := chain(idiom, n)
			b.Run(fmt.Sprintf("%s/%d", idiom, n), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					h.ServeHTTP(w, r)
				}
			})
		}
	}
}

// TestChainsPass: every layer of either idiom passes the request on.
func TestChainsPass(t *testing.T) {
	w, r := httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/", nil)
	defer func() { probe = nil }()
	for _, idiom := range []string{"net-http", "func"} {
		passes := 0
		probe = &passes
		chain(idiom, 20).ServeHTTP(w, r)
		if passes != 21 {
			t.Errorf("%s: %d passes through 20 layers and the handler, want 21", idiom, passes)
		}
	}
}
