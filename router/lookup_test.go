package router

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// lookupRouter has a route of every shape: static, parameters, catch-alls,
// trailing slashes, a custom method, a group with middleware, a Mount, and
// a route of more parameters than Lookup keeps on its stack. Each handler
// records its pattern and the values Param reads.
func lookupRouter(got *served) *Router {
	r := New()
	record := func(names ...string) http.HandlerFunc {
		return func(w http.ResponseWriter, req *http.Request) {
			got.pattern = req.Pattern
			got.vals = got.vals[:0]
			for _, n := range names {
				got.vals = append(got.vals, Param(req, n))
			}
			got.calls++
		}
	}
	for _, p := range []string{"/", "/users", "/users/new", "/users/{id}", "/users/{id}/posts/{post...}",
		"/files/{path...}", "/files/static/", "/a/{b}/c/{d}/e", "/docs/", "/docs/{page}/"} {
		names, _ := ParamNames(p)
		r.Get(p, record(names...))
	}
	r.Post("/users/{id}", record("id"))
	r.Handle("PURGE", "/cache/{key}", record("key"))
	g := r.Group("/v1", func(next http.Handler) http.Handler { return next })
	g.Get("/items/{id}", record("id"))
	r.Mount("/legacy", record())
	many := "/m"
	var names []string
	for i := range 10 {
		n := string(rune('a' + i))
		many += "/{" + n + "}"
		names = append(names, n)
	}
	r.Get(many, record(names...))
	return r
}

type served struct {
	pattern string
	vals    []string
	calls   int
}

// checkLookup requires Lookup to agree with ServeHTTP on method and path:
// ok exactly when ServeHTTP calls a route's handler (not a Mount's), with
// its pattern and the values Param reads.
func checkLookup(t *testing.T, r *Router, got *served, method, path string) {
	t.Helper()
	if u := (&url.URL{Path: path}); u.EscapedPath() != path || strings.IndexByte(path, '%') >= 0 {
		return // not a path Lookup is given
	}
	*got = served{}
	req := httptest.NewRequest(method, "http://x"+path, nil)
	req.RequestURI = path
	r.ServeHTTP(httptest.NewRecorder(), req)
	vals := make([]string, r.MaxParams())
	m, ok := r.Lookup(method, path, vals)
	mounted := got.calls == 1 && got.pattern == "" && strings.HasPrefix(path, "/legacy") // a Mount is ServeHTTP's
	switch {
	case ok && got.calls == 0:
		t.Errorf("%s %s: Lookup found %q, ServeHTTP served no route", method, path, m.Pattern)
	case ok && (m.Pattern != got.pattern || !slices.Equal(vals[:m.Params], got.vals)):
		t.Errorf("%s %s: Lookup %q %q, ServeHTTP %q %q", method, path, m.Pattern, vals[:m.Params], got.pattern, got.vals)
	case !ok && got.calls == 1 && !mounted:
		t.Errorf("%s %s: Lookup found nothing, ServeHTTP served %q %q", method, path, got.pattern, got.vals)
	}
	if ok {
		if rs := r.Routes(); rs[m.Route].Pattern != m.Pattern {
			t.Errorf("%s %s: route %d is %q, not %q", method, path, m.Route, rs[m.Route].Pattern, m.Pattern)
		}
	}
}

func TestLookupIsServeHTTP(t *testing.T) {
	var got served
	r := lookupRouter(&got)
	paths := []string{"/", "/users", "/users/", "/users/new", "/users/7", "/users/7/", "/users/7/posts", "/users/7/posts/",
		"/users/7/posts/a/b", "/users/./x", "/users/../x", "/users/7/posts/../x", "/users/7/posts/a//b", "/users/..",
		"/files", "/files/", "/files/static", "/files/static/", "/files/a/b", "/files/a/./b", "/a/1/c/2/e", "/a/1/c/2",
		"/docs", "/docs/", "/docs/x", "/docs/x/", "//users", "/users//7", "/cache/k", "/v1/items/3", "/v1/items/",
		"/legacy", "/legacy/x", "/m/1/2/3/4/5/6/7/8/9/10", "/m/1/2/3/4/5/6/7/8/9/10/", "/nope", "/users/7/posts/a/.", "/users/a:b@c"}
	for _, method := range []string{"GET", "HEAD", "POST", "PUT", "OPTIONS", "PURGE", "DELETE"} {
		for _, p := range paths {
			checkLookup(t, r, &got, method, p)
		}
	}
}

func FuzzLookup(f *testing.F) {
	for _, s := range []string{"/users/7", "/users/7/posts/a/b", "/files/a/./b", "/docs/x", "/m/1/2/3/4/5/6/7/8/9/10", "/legacy/x", "/users/.."} {
		f.Add("GET", s)
	}
	var got served
	r := lookupRouter(&got)
	f.Fuzz(func(t *testing.T, method, path string) {
		if method == "" || strings.ContainsAny(method, " \t/\r\n") || !strings.HasPrefix(path, "/") || len(path) > 200 {
			return
		}
		switch method {
		case "GET", "HEAD", "POST", "PURGE", "OPTIONS":
		default:
			method = "GET"
		}
		checkLookup(t, r, &got, method, path)
	})
}

func TestLayers(t *testing.T) {
	var order []string
	mw := func(name string) func(http.Handler) http.Handler {
		return func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) { order = append(order, name); next.ServeHTTP(w, req) })
		}
	}
	fn := func(next http.HandlerFunc) http.HandlerFunc {
		return func(w http.ResponseWriter, req *http.Request) { order = append(order, "func"); next(w, req) }
	}
	r := New()
	root1, group1, group2 := mw("root"), mw("g1"), mw("g2")
	r.Use(root1)
	r.UseFunc(fn)
	g := r.Group("/g", group1, group2)
	h := http.HandlerFunc(func(http.ResponseWriter, *http.Request) { order = append(order, "handler") })
	g.Get("/x", h)
	r.Get("/plain", h)
	vals := make([]string, r.MaxParams())
	m, ok := r.Lookup("GET", "/g/x", vals)
	if !ok {
		t.Fatal("no match")
	}
	layers, inner := r.Layers(m.Route)
	ptr := func(v any) uintptr { return reflect.ValueOf(v).Pointer() }
	if len(layers) != 4 || ptr(layers[0].Std) != ptr(root1) || ptr(layers[1].Func) != ptr(fn) ||
		ptr(layers[2].Std) != ptr(group1) || ptr(layers[3].Std) != ptr(group2) || ptr(inner) != ptr(h) {
		t.Fatalf("layers %+v, handler %v", layers, inner)
	}
	// Running them in that order is what ServeHTTP does.
	var hh http.Handler = inner
	for i := len(layers) - 1; i >= 0; i-- {
		if layers[i].Std != nil {
			hh = layers[i].Std(hh)
		} else {
			hh = layers[i].Func(hh.ServeHTTP)
		}
	}
	hh.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/g/x", nil))
	direct := slices.Clone(order)
	order = nil
	r.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/g/x", nil))
	if !slices.Equal(direct, order) {
		t.Fatalf("Layers ran %v, ServeHTTP %v", direct, order)
	}
	m, _ = r.Lookup("GET", "/plain", vals)
	if layers, inner := r.Layers(m.Route); len(layers) != 2 || ptr(inner) != ptr(h) {
		t.Fatalf("/plain: %d layers, handler %v", len(layers), inner)
	}
}

func TestLookupAllocatesNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("sync.Pool drops items at random under the race detector")
	}
	var got served
	r := lookupRouter(&got)
	vals := make([]string, r.MaxParams())
	for _, p := range []string{"/users/7/posts/a/b", "/m/1/2/3/4/5/6/7/8/9/10", "/nope"} {
		if n := testing.AllocsPerRun(100, func() { r.Lookup("GET", p, vals) }); n != 0 {
			t.Errorf("%s: %v allocations", p, n)
		}
	}
}
