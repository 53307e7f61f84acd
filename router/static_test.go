package router

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestStaticRoutesOnlyInIndex checks, on the four real-API tables, that
// the index finds every static route and nothing for the paths of
// parameter routes, that the walked trees hold no static route (and no
// node that leads to no route), and that lookup answers every route's path
// with that route.
func TestStaticRoutesOnlyInIndex(t *testing.T) {
	for _, table := range tables {
		routes := loadTable(t, table)
		f := tableRouter(t, routes).mux.compiled()
		if len(f.static.slots)+len(f.static.short) == 0 {
			t.Fatalf("%s: no static index", table)
		}
		vals := make([]span, 32)
		for _, rt := range routes {
			id := uint8(methodIndex(rt.method))
			indexed, _, _ := f.findStatic(id, rt.path)
			switch {
			case len(rt.names) == 0 && (indexed == nil || indexed.pattern != rt.path):
				t.Errorf("%s %s %s: index %v", table, rt.method, rt.path, indexed)
			case len(rt.names) != 0 && indexed != nil:
				t.Errorf("%s %s %s: index found %q for a parameter route", table, rt.method, rt.path, indexed.pattern)
			}
			if got := f.lookup(rt.method, rt.path, vals); got == nil || got.pattern != rt.pattern {
				t.Errorf("%s %s %s: lookup found %v, want %s", table, rt.method, rt.path, got, rt.pattern)
			}
		}
		for i, root := range f.roots {
			if root != 0 {
				if n := walkedRoutes(t, f, root-1); n == 0 {
					t.Errorf("%s: tree of method %d has no route", table, i)
				}
			}
		}
	}
}

// walkedRoutes returns how many routes the tree below node i holds, and
// fails t if one of them has no parameters or a node leads to none.
func walkedRoutes(t *testing.T, f *flatTrees, i uint32) int {
	n := &f.nodes[i]
	routes := 0
	if r := n.route & routeMask; r != 0 {
		if rt := &f.routes[r-1]; rt.nparams == 0 {
			t.Errorf("walked tree holds static route %s", rt.pattern)
		}
		routes++
	}
	kids := uint32(n.n)
	if n.route&hasParam != 0 {
		kids++
	}
	if n.route&hasCatchAll != 0 {
		kids++
	}
	if n.route&slashParam != 0 {
		kids = 1 // first is the parameter node below "/"
	}
	for k := range kids {
		routes += walkedRoutes(t, f, n.first+k)
	}
	if routes == 0 {
		t.Errorf("node %d of prefix %q leads to no route", i, f.text[n.text:n.text+uint32(n.plen)])
	}
	return routes
}

// TestStaticIndexMany registers thousands of static routes that differ in
// one byte at various places and checks every one is found, by method, and
// that near misses are not.
func TestStaticIndexMany(t *testing.T) {
	r := New()
	var paths []string
	for i := range 3000 {
		p := fmt.Sprintf("/v%d/items/%04d/detail", i%7, i)
		paths = append(paths, p)
		r.Get(p, echoHandler(p))
		if i%3 == 0 {
			r.Post(p, echoHandler("POST "+p))
		}
	}
	r.Get("/v0/items/{id}/detail", echoHandler("/v0/items/{id}/detail"))
	f := r.mux.compiled()
	if size := len(f.static.slots); 2*size < 3*(3000+1000) {
		t.Fatalf("table of %d slots for 4000 routes: more than two thirds full", size)
	}
	for i, p := range paths {
		if rt, _, _ := f.findStatic(0, p); rt == nil || rt.pattern != p {
			t.Fatalf("GET %s: found %v", p, rt)
		}
		rt, _, _ := f.findStatic(2, p)
		if (i%3 == 0) != (rt != nil) {
			t.Fatalf("POST %s: found %v", p, rt)
		}
		for _, miss := range []string{p + "/", p[:len(p)-1], strings.Replace(p, "items", "itemz", 1)} {
			if rt, _, _ := f.findStatic(0, miss); rt != nil {
				t.Fatalf("GET %s: found %q", miss, rt.pattern)
			}
		}
	}
	// A path that is no static route goes on to the tree.
	w := httptest.NewRecorder()
	r.ServeHTTP(w, httptest.NewRequest("GET", "/v0/items/x/detail", nil))
	if w.Body.String() != "/v0/items/{id}/detail id=x" {
		t.Fatalf("GET /v0/items/x/detail = %q", w.Body.String())
	}
}

// TestStaticIndexShort checks the table of patterns of fewer than 8 bytes,
// whose keys are compared instead of the text: every path of up to 7 bytes
// over "/ab" (no empty segment) that is a route of GET, of POST or of
// both is found for exactly those methods, with its own pattern, and no
// other path is; an 8-byte path that begins with a short route is not it.
func TestStaticIndexShort(t *testing.T) {
	var all []string
	var grow func(p string)
	grow = func(p string) {
		all = append(all, p)
		if len(p) == 7 {
			return
		}
		for _, c := range "ab/" {
			if c == '/' && p[len(p)-1] == '/' {
				continue
			}
			grow(p + string(c))
		}
	}
	grow("/")
	r := New()
	get := map[string]bool{}
	post := map[string]bool{}
	for i, p := range all {
		if len(p) > 1 && p[len(p)-1] == '/' && i%2 == 0 {
			continue // left out, so that some paths are no route at all
		}
		if i%3 != 2 {
			get[p] = true
			r.Get(p, echoHandler(p))
		}
		if i%3 != 0 {
			post[p] = true
			r.Post(p, echoHandler("POST "+p))
		}
	}
	r.Get("/aaaaaaab", echoHandler("/aaaaaaab"))
	f := r.mux.compiled()
	for _, p := range append(all, "/aaaaaaaa", "/aaaaaaab") {
		for _, m := range []struct {
			id     uint8
			routes map[string]bool
		}{{0, get}, {2, post}} {
			rt, _, _ := f.findStatic(m.id, p)
			switch want := m.routes[p] || m.id == 0 && p == "/aaaaaaab"; {
			case want && (rt == nil || rt.pattern != p || rt.method != m.id):
				t.Fatalf("method %d %s: found %v", m.id, p, rt)
			case !want && rt != nil:
				t.Fatalf("method %d %s: found %q of method %d", m.id, p, rt.pattern, rt.method)
			}
		}
	}
}

// TestStaticIndexMethods checks the order of a lookup with the index: the
// method's static route, then its tree, then GET's for HEAD, then Mount's.
func TestStaticIndexMethods(t *testing.T) {
	label := func(s string) http.HandlerFunc {
		return func(w http.ResponseWriter, req *http.Request) { fmt.Fprint(w, s, " ", Param(req, "x")) }
	}
	r := New()
	r.Get("/a", label("get"))
	r.Head("/{x}", label("head"))
	r.Handle("PURGE", "/a", label("purge"))
	r.Mount("/m", label("mount"))
	for _, c := range []struct{ method, path, want string }{
		{"GET", "/a", "get "},
		{"HEAD", "/a", "head a"}, // HEAD's own tree before GET's static route
		{"HEAD", "/b", "head b"},
		{"PURGE", "/a", "purge "},
		{"GET", "/m", "mount "},
		{"DELETE", "/m", "mount "},
	} {
		w := httptest.NewRecorder()
		r.ServeHTTP(w, httptest.NewRequest(c.method, c.path, nil))
		if got := w.Body.String(); got != c.want {
			t.Errorf("%s %s = %q, want %q", c.method, c.path, got, c.want)
		}
	}
}

// TestDeepBacktracking needs more backtracking points than match keeps in
// its frame (maxBacktrack), so that match recurses, both where the points
// are static children taken before a parameter and where they are
// parameters taken before a catch-all, and checks the answers against the
// reference matcher.
func TestDeepBacktracking(t *testing.T) {
	const depth = 3 * maxBacktrack
	r := New(RedirectTrailingSlash(false), RedirectCleanPath(false))
	var pats []refPattern
	add := func(p string) {
		r.Get(p, echoHandler(p))
		pats = append(pats, refPattern{p, strings.Split(p[1:], "/")})
	}
	// Static children before parameters.
	add(strings.Repeat("/a", depth) + "/x")
	for k := range depth {
		add(strings.Repeat("/a", k) + "/{p}" + strings.Repeat("/a", depth-k-1) + fmt.Sprintf("/y%d", k))
		if k%3 == 0 {
			add(strings.Repeat("/a", k) + "/{q...}")
		}
	}
	// Parameters before catch-alls, under /p.
	var params strings.Builder
	for k := range depth {
		add("/p" + params.String() + "/{rest...}")
		fmt.Fprintf(&params, "/{v%d}", k)
	}
	add("/p" + params.String() + "/x")
	// A parameter child passed together with the value after it
	// (slashParam) where the stack is full, under /sD: every level has a
	// catch-all, and one of the depths D fills the stack exactly there.
	var deep []string
	for d := maxBacktrack - 2; d <= 2*maxBacktrack+2; d++ {
		s := fmt.Sprintf("/s%d", d)
		for k := range d + 1 {
			add(s + strings.Repeat("/a", k) + "/{c...}")
		}
		add(s + strings.Repeat("/a", d) + "/{x}/{y}/end")
		deep = append(deep, s+strings.Repeat("/a", d)+"/1/2/end", s+strings.Repeat("/a", d)+"/1/2/nope")
	}
	for _, path := range append(deep,
		strings.Repeat("/a", depth)+"/x",
		strings.Repeat("/a", depth)+"/y0",
		strings.Repeat("/a", depth)+"/y3",
		strings.Repeat("/a", depth)+fmt.Sprintf("/y%d", depth-3),
		strings.Repeat("/a", depth)+"/zz",
		strings.Repeat("/a", depth-1)+"/b/y0",
		"/p"+strings.Repeat("/v", depth)+"/x",
		"/p"+strings.Repeat("/v", depth)+"/y",
		"/p"+strings.Repeat("/v", depth-1)+"/y/z",
		"/p"+strings.Repeat("/v", 3),
	) {
		wantPat, wantVals := refMatch(pats, path)
		want := wantPat
		names, _ := ParamNames(wantPat)
		for i, n := range names {
			want += fmt.Sprintf(" %s=%s", n, wantVals[i])
		}
		w := httptest.NewRecorder()
		r.ServeHTTP(w, httptest.NewRequest("GET", path, nil))
		if w.Code != http.StatusOK || w.Body.String() != want {
			t.Errorf("GET %s = %d %q, want %q", path, w.Code, w.Body.String(), want)
		}
	}
}

// TestCleanSegmentsExhaustive compares cleanSegments with a plain walk of
// the segments on every string of up to 11 bytes over 'a', '.' and '/',
// and of up to 9 bytes (one word and its overlap) over '/', '.' and the
// bytes one bit away from them ('-', 'o', 0xAF), which a word test that
// marks '/' and '.' by their common bits would take for either.
func TestCleanSegmentsExhaustive(t *testing.T) {
	plain := func(s string) bool {
		segs := strings.Split(s, "/")
		for i, seg := range segs {
			if seg == "." || seg == ".." || seg == "" && i < len(segs)-1 {
				return false
			}
		}
		return true
	}
	var walk func(s string, alphabet string, max int)
	walk = func(s string, alphabet string, max int) {
		if got, want := cleanSegments(s), plain(s); got != want {
			t.Fatalf("cleanSegments(%q) = %v, want %v", s, got, want)
		}
		if len(s) < max {
			for i := range len(alphabet) {
				walk(s+alphabet[i:i+1], alphabet, max)
			}
		}
	}
	walk("", "a./", 11)
	walk("", "/.-o\xaf", 9)
}

// TestSlashParams: a parameter passed together with the value after it
// (slashParam) needs that value whole and non-empty; otherwise the walk
// goes on as the tree says (here, to the catch-all), and dispatch sees
// the unclean path.
func TestSlashParams(t *testing.T) {
	r := New()
	r.Get("/r/{o}/{r}/x", echoHandler("/r/{o}/{r}/x"))
	r.Get("/r/{o}/{r}/{n}/{m}", echoHandler("/r/{o}/{r}/{n}/{m}"))
	r.Get("/r/{rest...}", echoHandler("/r/{rest...}"))
	flagged := 0
	for _, n := range r.mux.compiled().nodes {
		if n.route&slashParam != 0 {
			flagged++
		}
	}
	if flagged != 2 { // {o}, and {n} below "/r/{o}/{r}/"
		t.Errorf("%d parameter nodes flagged, want 2", flagged)
	}
	for _, tt := range []struct{ path, want string }{
		{"/r/a/b/x", "/r/{o}/{r}/x o=a r=b"},
		{"/r/a/b/c/d", "/r/{o}/{r}/{n}/{m} o=a r=b n=c m=d"},
		{"/r/a/b/c", "/r/{rest...} rest=a/b/c"},
		{"/r/a/b/c/", "/r/{rest...} rest=a/b/c/"},
		{"/r/a", "/r/{rest...} rest=a"},
		{"/r/a/", "/r/{rest...} rest=a/"},
	} {
		if w := do(r, "GET", tt.path); w.Code != http.StatusOK || w.Body.String() != tt.want {
			t.Errorf("GET %s = %d %q, want %q", tt.path, w.Code, w.Body.String(), tt.want)
		}
	}
	// An empty value is no value: the catch-all matches, and its value
	// is unclean.
	for _, path := range []string{"/r/a//x", "/r/a/b//d"} {
		if w := do(r, "GET", path); w.Code != http.StatusMovedPermanently {
			t.Errorf("GET %s = %d %q, want a redirect to the clean path", path, w.Code, w.Body.String())
		}
	}
}
