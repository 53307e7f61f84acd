package router

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"
)

// wideRouter has n GET routes /r<i>/items/{id} and /r<i>/owner: a root
// with many children, whose subtrees compile orders by size.
func wideRouter(n int) *Router {
	r := New()
	for i := range n {
		r.Get(fmt.Sprintf("/r%d/items/{id}", i), func(w http.ResponseWriter, req *http.Request) {
			w.Write([]byte(Param(req, "id")))
		})
		r.Get(fmt.Sprintf("/r%d/owner", i), func(http.ResponseWriter, *http.Request) {})
	}
	return r
}

// compile counts each node once: the children's order by subtree size
// reads sizes counted before, never counts again in the comparator
// (which made compile grow faster than the routes).
func TestCompileCountsEachNodeOnce(t *testing.T) {
	for _, n := range []int{10, 1000} {
		f := compile(wideRouter(n).mux)
		if f.counted != len(f.nodes) {
			t.Errorf("%d routes: compile counted %d node visits for %d nodes", 2*n, f.counted, len(f.nodes))
		}
	}
}

// After Prepare, the first request takes the compiled trees as they are:
// it allocates what any later request does, whatever the number of
// routes.
func TestPrepareLeavesTheFirstRequestNothingToCompile(t *testing.T) {
	allocs := map[int]uint64{}
	for _, n := range []int{10, 2000} {
		// The fewest of a few trials: the finalizers of the routers made
		// before (params.go) allocate when the collector frees them, on a
		// goroutine of their own.
		for trial := range 3 {
			r := wideRouter(n)
			r.Prepare()
			prepared := r.mux.prepared
			if prepared == nil {
				t.Fatal("Prepare compiled nothing")
			}
			req := httptest.NewRequest(http.MethodGet, fmt.Sprintf("/r%d/items/42", n/2), nil)
			w := newDiscard()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			r.ServeHTTP(w, req)
			runtime.ReadMemStats(&after)
			if a := after.Mallocs - before.Mallocs; trial == 0 || a < allocs[n] {
				allocs[n] = a
			}
			if r.mux.flat.Load() != prepared {
				t.Errorf("%d routes: the first request compiled again", n)
			}
			if r.mux.reg != nil {
				t.Errorf("%d routes: the registration trees are kept after the first request", n)
			}
		}
	}
	if allocs[2000] != allocs[10] {
		t.Errorf("the first request allocates %d times at 4,000 routes and %d at 20", allocs[2000], allocs[10])
	}
}

// A route registered after Prepare is served: registration drops what
// Prepare compiled, and the first request compiles again.
func TestRegisterAfterPrepare(t *testing.T) {
	r := wideRouter(3)
	r.Prepare()
	r.Get("/late/{x}", func(w http.ResponseWriter, req *http.Request) { w.Write([]byte("late " + Param(req, "x"))) })
	if r.mux.prepared != nil {
		t.Error("registration after Prepare kept the compiled trees")
	}
	for target, want := range map[string]string{"/late/1": "late 1", "/r2/items/7": "7"} {
		w := httptest.NewRecorder()
		r.ServeHTTP(w, httptest.NewRequest(http.MethodGet, target, nil))
		if w.Code != http.StatusOK || w.Body.String() != want {
			t.Errorf("GET %s: %d %q, want 200 %q", target, w.Code, w.Body, want)
		}
	}
	r.Prepare() // serving: nothing to do
	defer func() {
		if recover() == nil {
			t.Error("registering after the first request did not panic")
		}
	}()
	r.Get("/later", func(http.ResponseWriter, *http.Request) {})
}
