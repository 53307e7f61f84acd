package router

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
)

// A tableRoute is one line of a route table in testdata/routes: the method,
// the path as the table writes it (":name", "*name"), and the pattern in
// vane's syntax.
type tableRoute struct {
	method, path, pattern string
	names                 []string
}

func loadTable(tb testing.TB, name string) []tableRoute {
	tb.Helper()
	f, err := os.Open("testdata/routes/" + name + ".txt")
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var out []tableRoute
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		method, path, ok := strings.Cut(strings.TrimSpace(sc.Text()), " ")
		if !ok {
			continue
		}
		segs := strings.Split(path, "/")
		var names []string
		for i, s := range segs {
			switch {
			case strings.HasPrefix(s, ":"):
				names = append(names, s[1:])
				segs[i] = "{" + s[1:] + "}"
			case strings.HasPrefix(s, "*"):
				names = append(names, s[1:])
				segs[i] = "{" + s[1:] + "...}"
			}
		}
		out = append(out, tableRoute{method, path, strings.Join(segs, "/"), names})
	}
	return out
}

var tables = []string{"static", "github", "gplus", "parse"}

// TestRouteTablesAgree registers every route of the four real-API tables and
// requests each with its own path: the right route must answer, with the
// literal ":name" text as the value of each parameter.
func TestRouteTablesAgree(t *testing.T) {
	for _, name := range tables {
		t.Run(name, func(t *testing.T) {
			routes := loadTable(t, name)
			r := New()
			for i, rt := range routes {
				r.Handle(rt.method, rt.pattern, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
					var b strings.Builder
					b.WriteString(routes[i].pattern)
					for _, n := range routes[i].names {
						b.WriteString(" " + Param(req, n))
					}
					io.WriteString(w, b.String())
				}))
			}
			for _, rt := range routes {
				want := rt.pattern
				for _, n := range rt.names {
					want += " :" + n
				}
				w := do(r, rt.method, rt.path)
				if w.Code != 200 || w.Body.String() != want {
					t.Errorf("%s %s = %d %q, want %q", rt.method, rt.path, w.Code, w.Body.String(), want)
				}
			}
			if got := len(r.Routes()); got != len(routes) {
				t.Errorf("Routes() has %d, want %d", got, len(routes))
			}
		})
	}
}

// discard is a ResponseWriter that allocates nothing.
type discard struct{ h http.Header }

func (d *discard) Header() http.Header         { return d.h }
func (d *discard) Write(p []byte) (int, error) { return len(p), nil }
func (d *discard) WriteHeader(int)             {}

// WriteString is what io.WriteString uses, as on net/http's own writer.
func (d *discard) WriteString(s string) (int, error) { return len(s), nil }

func newDiscard() *discard { return &discard{h: http.Header{}} }

// readParams returns a handler that reads every parameter of pattern through
// Param, as the benchmarks require.
func readParams(pattern string) http.HandlerFunc {
	names, _ := ParamNames(pattern)
	return func(w http.ResponseWriter, req *http.Request) {
		for _, n := range names {
			if Param(req, n) == "" {
				panic("empty parameter " + n)
			}
		}
	}
}

func tableRouter(tb testing.TB, routes []tableRoute, opts ...Option) *Router {
	r := New(opts...)
	for _, rt := range routes {
		r.Handle(rt.method, rt.pattern, readParams(rt.pattern))
	}
	return r
}

func tableRequests(routes []tableRoute) []*http.Request {
	reqs := make([]*http.Request, len(routes))
	for i, rt := range routes {
		reqs[i] = httptest.NewRequest(rt.method, rt.path, nil)
	}
	return reqs
}

func benchRequests(b *testing.B, h http.Handler, reqs ...*http.Request) {
	w := newDiscard()
	b.ReportAllocs()
	for b.Loop() {
		for _, req := range reqs {
			h.ServeHTTP(w, req)
		}
	}
}

func benchTable(b *testing.B, table, method, path string) {
	routes := loadTable(b, table)
	r := tableRouter(b, routes)
	if path == "" {
		benchRequests(b, r, tableRequests(routes)...)
		return
	}
	benchRequests(b, r, httptest.NewRequest(method, path, nil))
}

func BenchmarkStaticAll(b *testing.B) { benchTable(b, "static", "", "") }

func BenchmarkGitHubStatic(b *testing.B) { benchTable(b, "github", "GET", "/user/repos") }
func BenchmarkGitHubParam(b *testing.B) {
	benchTable(b, "github", "GET", "/repos/julienschmidt/httprouter/stargazers")
}
func BenchmarkGitHubAll(b *testing.B) { benchTable(b, "github", "", "") }

func BenchmarkGPlusStatic(b *testing.B) { benchTable(b, "gplus", "GET", "/people") }
func BenchmarkGPlusParam(b *testing.B) {
	benchTable(b, "gplus", "GET", "/people/118051310819094153327")
}
func BenchmarkGPlus2Params(b *testing.B) {
	benchTable(b, "gplus", "GET", "/people/118051310819094153327/activities/123456789")
}
func BenchmarkGPlusAll(b *testing.B) { benchTable(b, "gplus", "", "") }

func BenchmarkParseStatic(b *testing.B)  { benchTable(b, "parse", "GET", "/1/users") }
func BenchmarkParseParam(b *testing.B)   { benchTable(b, "parse", "GET", "/1/classes/go") }
func BenchmarkParse2Params(b *testing.B) { benchTable(b, "parse", "GET", "/1/classes/go/123456789") }
func BenchmarkParseAll(b *testing.B)     { benchTable(b, "parse", "", "") }

// microRoute builds the router of a micro benchmark: one route, one request.
func microRoute(pattern, path string, h http.HandlerFunc, opts ...Option) (*Router, *http.Request) {
	r := New(opts...)
	if h == nil {
		h = readParams(pattern)
	}
	r.Get(pattern, h)
	return r, httptest.NewRequest("GET", path, nil)
}

func manyParams(n int) (pattern, path string) {
	var p, u strings.Builder
	for i := range n {
		p.WriteString("/{" + string(rune('a'+i)) + "}")
		u.WriteString("/" + string(rune('a'+i)) + "val")
	}
	return p.String(), u.String()
}

func BenchmarkParam(b *testing.B) {
	r, req := microRoute("/user/{name}", "/user/gordon", nil)
	benchRequests(b, r, req)
}

func BenchmarkParam5(b *testing.B) {
	r, req := microRoute(manyParamsRoute(5))
	benchRequests(b, r, req)
}

func BenchmarkParam20(b *testing.B) {
	r, req := microRoute(manyParamsRoute(20))
	benchRequests(b, r, req)
}

// BenchmarkDeepNesting is the bench module's DeepNesting row: four
// parameters among ten segments, every one read.
func BenchmarkDeepNesting(b *testing.B) {
	r, req := microRoute("/api/v1/orgs/{org}/teams/{team}/members/{member}/roles/{role}/permissions",
		"/api/v1/orgs/acme/teams/web/members/gordon/roles/admin/permissions", nil)
	benchRequests(b, r, req)
}

func manyParamsRoute(n int) (string, string, http.HandlerFunc) {
	p, u := manyParams(n)
	return p, u, nil
}

func BenchmarkParamWrite(b *testing.B) {
	r, req := microRoute("/user/{name}", "/user/gordon", writeName)
	benchRequests(b, r, req)
}

func writeName(w http.ResponseWriter, req *http.Request) { io.WriteString(w, Param(req, "name")) }

// BenchmarkStdPathValues is the cost of StdPathValues(true), for the figure
// in its doc comment: both sub-benchmarks serve a fresh copy of the request
// each time, as a server does, so the difference is the option's own cost.
func BenchmarkStdPathValues(b *testing.B) {
	for _, on := range []bool{false, true} {
		b.Run(fmt.Sprint(on), func(b *testing.B) {
			r, req := microRoute("/user/{name}", "/user/gordon", func(w http.ResponseWriter, req *http.Request) {
				io.WriteString(w, Param(req, "name"))
				if on {
					io.WriteString(w, req.PathValue("name"))
				}
			}, StdPathValues(on))
			w := newDiscard()
			b.ReportAllocs()
			for b.Loop() {
				fresh := *req
				r.ServeHTTP(w, &fresh)
			}
		})
	}
}

func passThrough(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) { next.ServeHTTP(w, req) })
}

func middlewareRouter(n int) (*Router, *http.Request) {
	r := New()
	for range n {
		r.Use(passThrough)
	}
	r.Get("/user/{name}", writeName)
	return r, httptest.NewRequest("GET", "/user/gordon", nil)
}

func benchMiddleware(b *testing.B, n int) {
	r, req := middlewareRouter(n)
	benchRequests(b, r, req)
}

func BenchmarkMiddleware5(b *testing.B)  { benchMiddleware(b, 5) }
func BenchmarkMiddleware10(b *testing.B) { benchMiddleware(b, 10) }
func BenchmarkMiddleware20(b *testing.B) { benchMiddleware(b, 20) }

func BenchmarkNotFound(b *testing.B) {
	r := tableRouter(b, loadTable(b, "github"))
	benchRequests(b, r, httptest.NewRequest("GET", "/not/a/route/here", nil))
}

// TestZeroAllocations asserts that routing allocates nothing: static and
// parameter routes of every table, many parameters, parameters written to
// the response, 20 middlewares, a 404 and a catch-all.
func TestZeroAllocations(t *testing.T) {
	if testing.CoverMode() != "" || raceEnabled {
		t.Skip("coverage instrumentation and the race detector's sync.Pool allocate")
	}
	w := newDiscard()
	check := func(name string, h http.Handler, reqs ...*http.Request) {
		t.Helper()
		for _, req := range reqs {
			h.ServeHTTP(w, req) // warm the pool
		}
		if n := testing.AllocsPerRun(100, func() {
			for _, req := range reqs {
				h.ServeHTTP(w, req)
			}
		}); n != 0 {
			t.Errorf("%s: %v allocations per run, want 0", name, n)
		}
	}
	for _, name := range tables {
		routes := loadTable(t, name)
		check(name+" all", tableRouter(t, routes), tableRequests(routes)...)
	}
	r, req := microRoute(manyParamsRoute(20))
	check("param20", r, req)
	r, req = microRoute("/user/{name}", "/user/gordon", writeName)
	check("param write", r, req)
	r, req = middlewareRouter(20)
	check("middleware20", r, req)
	check("not found", tableRouter(t, loadTable(t, "github")), httptest.NewRequest("GET", "/not/a/route", nil))
	check("trailing-slash probe", tableRouter(t, loadTable(t, "github"), RedirectTrailingSlash(true)), httptest.NewRequest("GET", "/nothing", nil))
	r, req = microRoute("/static/{filepath...}", "/static/css/site/main.css", nil)
	check("catch-all", r, req)
}

// BenchmarkCatchAll serves a catch-all route, whose value the clean-path
// check walks.
func BenchmarkCatchAll(b *testing.B) {
	r, req := microRoute("/static/{filepath...}", "/static/css/site/main.css", nil)
	benchRequests(b, r, req)
}
