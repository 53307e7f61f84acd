package vane

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"
)

type idEvent struct {
	N int `json:"n"`
}

// The operationId index sees the operations that other registrations
// (Stream, MergePatch) add: a typed operation that reuses a stream's ID
// is refused, naming both.
func TestDuplicateIDAfterStream(t *testing.T) {
	r := New()
	Get(r, "/a", func(context.Context, *struct{}) (*struct{}, error) { return nil, nil }, ID("first"))
	Stream(r, "/events", map[string]any{"e": idEvent{}}, func(context.Context, *struct{}, Sender) error { return nil },
		ID("events"))
	defer func() {
		msg, _ := recover().(string)
		if want := `operation ID "events" of GET /b is already used by GET /events`; !strings.Contains(msg, want) {
			t.Errorf("panic %q, want %q", msg, want)
		}
	}()
	Get(r, "/b", func(context.Context, *struct{}) (*struct{}, error) { return nil, nil }, ID("events"))
}

type firstIn struct {
	ID    int64  `path:"id" minimum:"1"`
	Limit int    `query:"limit" maximum:"100" default:"20"`
	Trace string `header:"X-Trace"`
}

type firstOwner struct {
	Name string `json:"name"`
}

type firstItem struct {
	ID      int64      `json:"id"`
	Tags    []string   `json:"tags"`
	Owner   firstOwner `json:"owner"`
	Created time.Time  `json:"created"`
}

type firstOut struct {
	Body firstItem
}

// firstRouter has n typed operations and the documents.
func firstRouter(n int) *Router {
	r := New()
	for i := range n {
		Get(r, fmt.Sprintf("/r%d/items/{id}", i), func(_ context.Context, in *firstIn) (*firstOut, error) {
			return &firstOut{Body: firstItem{ID: in.ID, Tags: []string{in.Trace}, Owner: firstOwner{Name: "o"}}}, nil
		})
	}
	Docs(r, DocsConfig{})
	return r
}

// mallocs returns how many allocations f made.
func mallocs(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.Mallocs - before.Mallocs
}

// After Check, the first request to a typed operation allocates what it
// allocates with 10 operations or with 2,000: the routing tree is
// compiled and the body's encoder made, and nothing on the request path
// grows with the API. (Two collections just before it empty the pools, so
// that both start alike: what their first use allocates does not depend
// on the collections registration happened to run.)
func TestFirstRequestAfterCheckCostsWhatAnyDoes(t *testing.T) {
	first := map[int]uint64{}
	for _, n := range []int{2000, 10} {
		// The fewest of a few trials: other goroutines (finalizers, the
		// collector) allocate now and then.
		for trial := range 3 {
			r := firstRouter(n)
			if err := r.Check(); err != nil {
				t.Fatal(err)
			}
			req := httptest.NewRequest(http.MethodGet, fmt.Sprintf("/r%d/items/7?limit=5", n/2), nil)
			req.Header.Set("X-Trace", "t")
			w := httptest.NewRecorder()
			w.Body.Grow(512)
			runtime.GC()
			runtime.GC() // and the pools' victim caches
			a := mallocs(func() { r.ServeHTTP(w, req) })
			if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), `"id":7`) {
				t.Fatalf("%d %s", w.Code, w.Body)
			}
			if trial == 0 || a < first[n] {
				first[n] = a
			}
		}
	}
	if first[2000] != first[10] {
		t.Errorf("the first request allocates %d times after 2,000 operations, %d after 10", first[2000], first[10])
	}
}

type preparedItem struct {
	ID    int64      `json:"id"`
	Tags  []string   `json:"tags"`
	Owner firstOwner `json:"owner"`
	When  time.Time  `json:"when"`
}

// Check has the codec make the encoder of each response body type, which
// codec.JSON otherwise makes on the type's first request: after Check, the
// first request allocates what the second does.
func TestCheckPreparesTheBodyEncoder(t *testing.T) {
	r := New()
	Get(r, "/p/{id}", func(_ context.Context, in *firstIn) (*struct{ Body preparedItem }, error) {
		return &struct{ Body preparedItem }{Body: preparedItem{ID: in.ID, Tags: []string{"a"}}}, nil
	})
	if err := r.Check(); err != nil {
		t.Fatal(err)
	}
	var allocs [2]uint64
	for i := range allocs {
		req := httptest.NewRequest(http.MethodGet, "/p/7", nil)
		w := httptest.NewRecorder()
		w.Body.Grow(512)
		runtime.GC()
		runtime.GC()
		allocs[i] = mallocs(func() { r.ServeHTTP(w, req) })
		if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), `"id":7`) {
			t.Fatalf("%d %s", w.Code, w.Body)
		}
	}
	if allocs[0] > allocs[1]+2 {
		t.Errorf("the first request allocates %d times, the second %d", allocs[0], allocs[1])
	}
}
