package router

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"
)

// routed serves target on r, whose handlers must record the request, and
// returns the request the handler got.
func routed(t *testing.T, r *Router, method, target string) *http.Request {
	t.Helper()
	var got *http.Request
	r.mux.notFound = http.HandlerFunc(func(http.ResponseWriter, *http.Request) { t.Fatalf("%s %s: no route", method, target) })
	capture = func(req *http.Request) { got = req }
	defer func() { capture = nil }()
	r.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(method, target, nil))
	if got == nil {
		t.Fatalf("%s %s: handler not called", method, target)
	}
	return got
}

var capture func(*http.Request)

func captureHandler(w http.ResponseWriter, req *http.Request) {
	if capture != nil {
		capture(req)
	}
}

// TestParamPositions reads every parameter of routes of up to 7
// parameters, with static text of every length between them, from both
// ends, with and without a catch-all (and a catch-all alone).
func TestParamPositions(t *testing.T) {
	for n := 0; n <= 7; n++ {
		for _, tail := range []string{"", "/", "/end", "/{rest...}"} {
			if n == 0 && tail != "/{rest...}" {
				continue
			}
			// Values of 1 to 8 bytes, and of 9 to 16 that begin with
			// '.' (one bit from '/'): scanning a word at a time crosses
			// them, in both directions.
			for _, long := range []bool{false, true} {
				paramPositions(t, n, tail, long)
			}
		}
	}
}

// paramPositions checks every value of a route of n parameters and the
// given tail.
func paramPositions(t *testing.T, n int, tail string, long bool) {
	var pat, path strings.Builder
	var want []string
	for i := range n {
		fmt.Fprintf(&pat, "/%s{p%d}", strings.Repeat("st/", i%3), i)
		v := strings.Repeat(string(rune('a'+i)), 1+(i*5)%9)
		if long {
			v = "." + v + "x-y_z.w"
		}
		fmt.Fprintf(&path, "/%s%s", strings.Repeat("st/", i%3), v)
		want = append(want, v)
	}
	pat.WriteString(tail)
	rest := ""
	switch tail {
	case "/", "/end":
		path.WriteString(tail)
	case "/{rest...}":
		rest = "x/y.z"
		path.WriteString("/" + rest)
	}
	t.Run(pat.String()+"/"+path.String(), func(t *testing.T) {
		r := New()
		r.Get(pat.String(), captureHandler)
		req := routed(t, r, "GET", path.String())
		for i, v := range want {
			if got := Param(req, fmt.Sprintf("p%d", i)); got != v {
				t.Errorf("%s: p%d = %q, want %q", path.String(), i, got, v)
			}
		}
		if tail == "/{rest...}" && Param(req, "rest") != rest {
			t.Errorf("rest = %q, want %q", Param(req, "rest"), rest)
		}
		if Param(req, "p") != "" || Param(req, "p00") != "" || Param(req, "") != "" {
			t.Error("a name the route lacks has a value")
		}
	})
}

// TestParamOutlivesRouter reads the parameters of a request kept after
// its router became unreachable and was collected.
func TestParamOutlivesRouter(t *testing.T) {
	serve := func() *http.Request {
		r := New()
		var kept *http.Request
		r.Get("/a/{x}/b/{y}", func(w http.ResponseWriter, req *http.Request) { kept = req })
		r.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/a/1/b/2", nil))
		return kept
	}
	req := serve()
	for range 3 {
		runtime.GC()
	}
	if x, y := Param(req, "x"), Param(req, "y"); x != "1" || y != "2" {
		t.Errorf("after the router was collected: x=%q y=%q, want 1 2", x, y)
	}
}

// TestParamOnCopiesAndLater reads parameters from copies of the request,
// from a goroutine after the handler returned, and after the router served
// other requests.
func TestParamOnCopiesAndLater(t *testing.T) {
	r := New()
	var kept []*http.Request
	var mu sync.Mutex
	results := make(chan string, 100)
	var wg sync.WaitGroup
	r.Get("/a/{x}/b/{y}", func(w http.ResponseWriter, req *http.Request) {
		type key struct{}
		c := req.WithContext(context.WithValue(req.Context(), key{}, 1))
		mu.Lock()
		kept = append(kept, c)
		mu.Unlock()
		want := Param(req, "x") + "," + Param(req, "y")
		wg.Add(1)
		go func() {
			defer wg.Done()
			time.Sleep(time.Millisecond)
			if got := Param(c, "x") + "," + Param(c, "y"); got != want {
				results <- got + " != " + want
			}
		}()
	})
	for i := range 50 {
		r.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", fmt.Sprintf("/a/%d/b/y%d", i, i), nil))
	}
	wg.Wait()
	close(results)
	for msg := range results {
		t.Error(msg)
	}
	for i, req := range kept {
		if Param(req, "x") != fmt.Sprint(i) || Param(req, "y") != fmt.Sprintf("y%d", i) {
			t.Errorf("kept request %d: x=%q y=%q", i, Param(req, "x"), Param(req, "y"))
		}
	}
}

// TestParamNotOurs: a pattern the router did not set is not read through
// an arena, whatever its text; ServeMux's values come from PathValue.
func TestParamNotOurs(t *testing.T) {
	r := New()
	r.Get("/u/{id}", captureHandler)
	req := routed(t, r, "GET", "/u/42")
	if Param(req, "id") != "42" {
		t.Fatalf("id = %q", Param(req, "id"))
	}
	for _, p := range []string{
		strings.Clone(req.Pattern), // same text, not the arena's
		req.Pattern[1:],            // inside the arena, not at a pattern's start
		req.Pattern[:3],            // at the start, shorter
		"",
	} {
		c := *req
		c.Pattern = p
		if got := Param(&c, "id"); got != "" {
			t.Errorf("pattern %q: id = %q, want \"\"", p, got)
		}
	}
	mux := http.NewServeMux()
	var got string
	mux.HandleFunc("GET /s/{id}", func(w http.ResponseWriter, req *http.Request) { got = Param(req, "id") })
	mux.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/s/7", nil))
	if got != "7" {
		t.Errorf("ServeMux-routed id = %q, want 7", got)
	}
	if Param(httptest.NewRequest("GET", "/u/1", nil), "id") != "" {
		t.Error("Param of an unrouted request")
	}
}

// TestParamChangedPath: a path rewritten after routing gives wrong values
// or "", never a panic, and never a byte outside the path: every value
// lies inside the path's own memory. (An out-of-range unsafe.String read
// does not panic without checkptr; the addresses show it.) Most paths are
// cut from the middle of a longer string, so that a read past either end
// would find bytes there, and not fault.
func TestParamChangedPath(t *testing.T) {
	r := New()
	r.Get("/a/{x}/{y}/{z}/end", captureHandler)
	r.Get("/f/{x}/{rest...}", captureHandler)
	r.Get("/p/{x}/{y}/{z}/{w}/{v}/{u}", captureHandler)
	paths := []string{"", "/", "/a", "/a/", "//////////", "/a/1/2/3/end/more/and/more", "x",
		"/a/1/2/3/en", "/a/1/2/3", "/a/1", "/f", "/f/", "/f/1", "/p/1/2/3/4/5/", "/p/1/2/3/4/5/6/7/8", "end"}
	const long = "xx/a/11/22/33/end/more/f/aa/bb/p/aa/bb/cc/dd/ee/ffxx"
	for i := 2; i < len(long)-2; i++ {
		for j := i; j <= len(long)-2; j++ {
			paths = append(paths, long[i:j]) // with bytes before and after it in memory
		}
	}
	for _, target := range []string{"/a/1/2/3/end", "/f/1/2/3", "/p/1/2/3/4/5/6"} {
		req := routed(t, r, "GET", target)
		for _, p := range paths {
			c := *req
			u := *req.URL
			u.Path = p
			c.URL = &u
			for _, name := range []string{"x", "y", "z", "w", "v", "u", "rest"} {
				if v := Param(&c, name); !inside(v, p) {
					t.Errorf("route %s, path changed to %q: %s = %q lies outside the path", req.Pattern, p, name, v)
				}
			}
		}
	}
}

// inside reports whether v is empty or lies within s's bytes in memory.
func inside(v, s string) bool {
	if v == "" {
		return true
	}
	vs, ss := uintptr(unsafe.Pointer(unsafe.StringData(v))), uintptr(unsafe.Pointer(unsafe.StringData(s)))
	return len(s) > 0 && vs >= ss && vs+uintptr(len(v)) <= ss+uintptr(len(s))
}

func TestParamEscaped(t *testing.T) {
	r := New()
	r.Get("/files/{dir}/{name}/raw", captureHandler)
	r.Get("/c/{x}/{rest...}", captureHandler)
	req := routed(t, r, "GET", "/files/a%2Fb/c%20d%41/raw")
	if Param(req, "dir") != "a/b" || Param(req, "name") != "c dA" {
		t.Errorf("dir %q name %q", Param(req, "dir"), Param(req, "name"))
	}
	req = routed(t, r, "GET", "/c/a%2Fb/x%2Fy/z")
	if Param(req, "x") != "a/b" || Param(req, "rest") != "x/y/z" {
		t.Errorf("x %q rest %q", Param(req, "x"), Param(req, "rest"))
	}
}

func TestParamMounted(t *testing.T) {
	inner := New()
	inner.Get("/items/{item}", func(w http.ResponseWriter, req *http.Request) {
		fmt.Fprint(w, Param(req, "tenant"), "|", Param(req, "item"), "|", Param(req, "nope"), "|", req.URL.Path)
	})
	mux := http.NewServeMux()
	mux.HandleFunc("/s/{x}", func(w http.ResponseWriter, req *http.Request) {
		fmt.Fprint(w, Param(req, "tenant"), "|", Param(req, "x"))
	})
	outer := New()
	outer.Mount("/t/{tenant}/api", inner)
	outer.Mount("/m/{tenant}", mux)
	outer.Mount("/h/{tenant}", http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		fmt.Fprint(w, Param(req, "tenant"), "|", req.Pattern, "|", req.URL.Path)
	}))
	if w := do(outer, "GET", "/h/gamma/x/y"); w.Body.String() != "gamma||/x/y" {
		t.Errorf("plain handler inside Mount: got %q", w.Body.String())
	}
	if w := do(outer, "GET", "/t/acme/api/items/9"); w.Body.String() != "acme|9||/items/9" {
		t.Errorf("got %q", w.Body.String())
	}
	if w := do(outer, "GET", "/m/beta/s/1"); w.Body.String() != "beta|1" {
		t.Errorf("ServeMux inside Mount: got %q", w.Body.String())
	}
}

func TestParamAllocations(t *testing.T) {
	r := New()
	r.Get("/repos/{owner}/{repo}/issues/{number}/comments", captureHandler)
	req := routed(t, r, "GET", "/repos/julienschmidt/httprouter/issues/12/comments")
	var v string
	n := testing.AllocsPerRun(100, func() {
		v = Param(req, "owner") + Param(req, "repo") + Param(req, "number")
	})
	_ = v
	// The concatenation allocates once; the three lookups nothing.
	if n > 1 {
		t.Errorf("%v allocations", n)
	}
	n = testing.AllocsPerRun(100, func() { v = Param(req, "repo") })
	if n != 0 || v != "httprouter" {
		t.Errorf("Param: %v allocations, value %q", n, v)
	}
}

// TestParamAcrossRouters: with several routers live, few (a search of
// the arenas) or many (the arena read last tried first), Param reads each
// request in its own router's arena, whichever router it read last, and
// allocates nothing doing so.
func TestParamAcrossRouters(t *testing.T) {
	for _, routers := range []int{3, fewArenas + 3} {
		t.Run(strconv.Itoa(routers), func(t *testing.T) { paramAcrossRouters(t, routers) })
	}
}

func paramAcrossRouters(t *testing.T, routers int) {
	shapes := []string{"/a/{x}/b/{y}", "/c/{y}/{x}", "/{x}/d/{y}/e"}
	var reqs []*http.Request
	for i := range routers {
		p := shapes[i%len(shapes)]
		r := New()
		r.Get(p, captureHandler)
		path := strings.NewReplacer("{x}", "x"+strconv.Itoa(i), "{y}", "y"+strconv.Itoa(i)).Replace(p)
		reqs = append(reqs, routed(t, r, "GET", path))
	}
	if l := arenas.Load(); l == nil || len(*l) < routers {
		t.Fatalf("fewer than %d arenas registered", routers)
	}
	for round := range 3 {
		for i, req := range reqs {
			if x, y := Param(req, "x"), Param(req, "y"); x != "x"+strconv.Itoa(i) || y != "y"+strconv.Itoa(i) {
				t.Errorf("round %d, router %d: x %q, y %q", round, i, x, y)
			}
		}
	}
	var v string
	if n := testing.AllocsPerRun(100, func() {
		for _, req := range reqs {
			v = Param(req, "y")
		}
	}); n != 0 || v != "y"+strconv.Itoa(routers-1) {
		t.Errorf("Param across routers: %v allocations, last value %q", n, v)
	}
}

// TestArenaUnregistered checks that a router's arena stays registered
// while a request holds a pattern in it, after the router became garbage,
// and leaves the list once nothing holds its text.
func TestArenaUnregistered(t *testing.T) {
	registered := func(start uintptr) bool {
		if a := newestArena.Load(); a != nil && a.start <= start && start-a.start < a.size {
			return true
		}
		if l := arenas.Load(); l != nil {
			for _, a := range *l {
				if a.start <= start && start-a.start < a.size {
					return true
				}
			}
		}
		return false
	}
	var kept *http.Request
	func() {
		r := New()
		r.Get("/g/{id}", func(w http.ResponseWriter, req *http.Request) { kept = req })
		r.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/g/5", nil))
	}()
	start := uintptr(unsafe.Pointer(unsafe.StringData(kept.Pattern)))
	for range 5 {
		runtime.GC()
		runtime.Gosched()
	}
	if !registered(start) || Param(kept, "id") != "5" || kept.Pattern != "/g/{id}" {
		t.Fatalf("a kept request's arena after its router became garbage: registered %v, id %q, pattern %q",
			registered(start), Param(kept, "id"), kept.Pattern)
	}
	kept = nil
	// The text's finalizer unregisters it after a collection finds it
	// unreachable; a few collections, each followed by the finalizers it
	// queued, are enough.
	rounds := 0
	for ; registered(start) && rounds < 10; rounds++ {
		collectAndFinalize(t)
	}
	if registered(start) {
		t.Fatalf("arena still registered after %d collections, with its router and every request holding it garbage", rounds)
	}
}

// collectAndFinalize runs a collection and returns once the finalizers it
// queued have run. The runtime runs finalizers on one goroutine, a queue
// at a time: a sentinel's finalizer queued by the next collection runs
// after every finalizer queued before. The wait for it is bounded by a
// minute, a generous limit on a loaded machine, where the finalizer
// goroutine may wait long to be scheduled.
func collectAndFinalize(t *testing.T) {
	t.Helper()
	runtime.GC()
	done := make(chan struct{})
	sentinel := new([32]byte) // not a tiny allocation, which may never be finalized
	runtime.SetFinalizer(sentinel, func(*[32]byte) { close(done) })
	sentinel = nil
	runtime.GC()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("the finalizer goroutine did not run in a minute")
	}
}

// TestParamOfAnOlderRouter reads values from requests of routers other
// than the newest, which Param tries first: through the search of the
// registered arenas (searchArenas), with few of them and with more than
// fewArenas. (Were the search to fail, paramElsewhere would still find
// the values, more slowly: the search is checked apart.)
func TestParamOfAnOlderRouter(t *testing.T) {
	other := strings.Repeat("x", 64) // a string in no arena
	var routers []*Router
	var seen []*http.Request
	for i := range fewArenas + 3 {
		r := New()
		r.Get(fmt.Sprintf("/r%d/{id}/x/{name}", i), func(w http.ResponseWriter, req *http.Request) { seen = append(seen, req) })
		r.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", fmt.Sprintf("/r%d/%d/x/n%d", i, i, i), nil))
		routers = append(routers, r)
		// After the second router and after the last: few arenas, then many.
		if i == 1 || i == fewArenas+2 {
			for j, req := range seen {
				if id, name := Param(req, "id"), Param(req, "name"); id != strconv.Itoa(j) || name != "n"+strconv.Itoa(j) {
					t.Errorf("%d routers, a request of router %d: id %q, name %q", i+1, j, id, name)
				}
				p := uintptr(unsafe.Pointer(unsafe.StringData(req.Pattern)))
				if a := searchArenas(p); a == nil || p-a.start >= a.size {
					t.Errorf("%d routers: searchArenas does not find the arena of router %d's pattern", i+1, j)
				}
			}
			if a := searchArenas(uintptr(unsafe.Pointer(unsafe.StringData(other)))); a != nil {
				t.Errorf("%d routers: searchArenas finds an arena for a string in none", i+1)
			}
		}
	}
	runtime.KeepAlive(routers)
}

// Dot segments sent escaped (%2E is ".", RFC 3986 section 2.3) are cleaned
// once and redirected to the clean path, never to themselves; an escaped
// slash is part of its segment and is not cleaned away.
func TestEscapedDotSegments(t *testing.T) {
	r := New()
	r.Get("/pets/{id}", func(w http.ResponseWriter, req *http.Request) {})
	for target, want := range map[string]string{
		"/pets/%2e%2e/1":            "/1",
		"/pets/%2E":                 "/pets",
		"/%2e%2e/%2e%2e/etc/passwd": "/etc/passwd",
		"/pets/.%2E/pets/7?x=1":     "/pets/7?x=1",
	} {
		w := httptest.NewRecorder()
		r.ServeHTTP(w, httptest.NewRequest("GET", target, nil))
		if w.Code != http.StatusMovedPermanently || w.Header().Get("Location") != want {
			t.Errorf("GET %s: %d to %q, want 301 to %q", target, w.Code, w.Header().Get("Location"), want)
		}
	}
	w := httptest.NewRecorder()
	r.ServeHTTP(w, httptest.NewRequest("GET", "/pets/a%2Fb", nil))
	if w.Code != 200 {
		t.Errorf("an escaped slash in a value: %d %v", w.Code, w.Header())
	}
}
