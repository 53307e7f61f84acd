package router

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
)

// echo registers a GET handler per pattern that writes the pattern and the
// values of the named parameters.
func echoRouter(t testing.TB, opts []Option, patterns ...string) *Router {
	t.Helper()
	r := New(opts...)
	for _, p := range patterns {
		r.Get(p, echoHandler(p))
	}
	return r
}

// echoHandler writes label and the values of the parameters of the pattern
// that ends label ("GET /a/{id}" or "/a/{id}").
func echoHandler(label string) http.HandlerFunc {
	pattern := label[strings.LastIndexByte(label, ' ')+1:]
	names, _ := ParamNames(pattern)
	return func(w http.ResponseWriter, req *http.Request) {
		var b strings.Builder
		b.WriteString(label)
		for _, n := range names {
			fmt.Fprintf(&b, " %s=%s", n, Param(req, n))
		}
		io.WriteString(w, b.String())
	}
}

func do(h http.Handler, method, target string) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(method, target, nil))
	return w
}

func TestMatchPriority(t *testing.T) {
	r := echoRouter(t, nil,
		"/",
		"/users",
		"/users/new",
		"/users/{id}",
		"/users/{id}/posts/{post...}",
		"/users/{id}/posts/latest",
		"/src/{file...}",
		"/src/{dir}/index",
		"/src/static/x",
		"/a/{x}/c/{y}",
		"/a/b/c/d",
		"/files/",
		"/files/{path...}",
		"/{top}",
		"/café/{name}",
		"/v/{a}/{b}/{c}/{d}/{e}",
	)
	tests := []struct{ path, want string }{
		{"/", "/"},
		{"/users", "/users"},
		{"/users/new", "/users/new"},
		{"/users/newer", "/users/{id} id=newer"},
		{"/users/ne", "/users/{id} id=ne"},
		{"/users/42", "/users/{id} id=42"},
		{"/users/42/posts/latest", "/users/{id}/posts/latest id=42"},
		{"/users/42/posts/2024/01", "/users/{id}/posts/{post...} id=42 post=2024/01"},
		{"/users/42/posts/", "/users/{id}/posts/{post...} id=42 post="},
		{"/users/new/posts/x", "/users/{id}/posts/{post...} id=new post=x"}, // backtrack out of static "new"
		// backtracking: static branch fails deep down, parameter branch matches
		{"/src/static/index", "/src/{dir}/index dir=static"},
		{"/src/static/x", "/src/static/x"},
		// both static and parameter branches fail: the catch-all takes it
		{"/src/static/y", "/src/{file...} file=static/y"},
		{"/src/a/b/c", "/src/{file...} file=a/b/c"},
		{"/src/", "/src/{file...} file="},
		{"/a/b/c/d", "/a/b/c/d"},
		{"/a/b/c/e", "/a/{x}/c/{y} x=b y=e"},
		{"/a/z/c/d", "/a/{x}/c/{y} x=z y=d"},
		{"/files/", "/files/"},
		{"/files/x", "/files/{path...} path=x"},
		{"/files/x/", "/files/{path...} path=x/"},
		{"/top", "/{top} top=top"},
		{"/usersx", "/{top} top=usersx"},
		{"/café/naïve", "/café/{name} name=naïve"},
		{"/caf%C3%A9/na%C3%AFve", "/café/{name} name=naïve"},
		{"/v/1/2/3/4/5", "/v/{a}/{b}/{c}/{d}/{e} a=1 b=2 c=3 d=4 e=5"},
	}
	expectRoutes(t, r, tests)
}

// TestOverlapServeMuxRefuses: /p/{x}/c and /p/b/{y} both match /p/b/c and
// neither matches only paths the other does, so ServeMux refuses to
// register the second; the router takes both and gives /p/b/c to the
// route whose static segment comes first from the left (Router's doc).
func TestOverlapServeMuxRefuses(t *testing.T) {
	func() {
		defer func() {
			if recover() == nil {
				t.Error("ServeMux accepted /p/{x}/c beside /p/b/{y}; the Router doc says it refuses")
			}
		}()
		m := http.NewServeMux()
		m.HandleFunc("/p/{x}/c", func(http.ResponseWriter, *http.Request) {})
		m.HandleFunc("/p/b/{y}", func(http.ResponseWriter, *http.Request) {})
	}()
	for _, order := range [][]string{{"/p/{x}/c", "/p/b/{y}"}, {"/p/b/{y}", "/p/{x}/c"}} {
		r := echoRouter(t, nil, order...)
		expectRoutes(t, r, []struct{ path, want string }{
			{"/p/b/c", "/p/b/{y} y=c"},
			{"/p/b/d", "/p/b/{y} y=d"},
			{"/p/a/c", "/p/{x}/c x=a"},
		})
	}
}

func TestNoMatch(t *testing.T) {
	r := echoRouter(t, []Option{RedirectTrailingSlash(false)}, "/users/{id}", "/users/{id}/posts", "/x/{p...}")
	for _, p := range []string{"/users/", "/users", "/users/1/posts/", "/users/1/post", "/x", "/y", "/usersx/1"} {
		if w := do(r, "GET", p); w.Code != 404 {
			t.Errorf("GET %s = %d %q, want 404", p, w.Code, w.Body.String())
		}
	}
	w := do(r, "GET", "/nope")
	if ct := w.Header().Get("Content-Type"); ct != "application/problem+json" {
		t.Errorf("404 Content-Type = %q", ct)
	}
	if !strings.Contains(w.Body.String(), `"status":404`) {
		t.Errorf("404 body = %s", w.Body)
	}
}

// TestParamStaticChild checks the text after a parameter value, which
// match compares where the value ends (the parameter node's one static
// child): it must equal the pattern's, however long the text and the
// rest of the path, or the route does not match.
func TestParamStaticChild(t *testing.T) {
	r := echoRouter(t, []Option{RedirectTrailingSlash(false)},
		"/a/{x}/bc/{y}", "/d/{x}/defghijkl/{y}", "/m/{x}/m", "/k/{x}/{z}/lmn")
	for _, c := range []struct{ path, want string }{
		{"/a/v/bc/qqqqq", "/a/{x}/bc/{y} x=v y=qqqqq"},
		{"/d/v/defghijkl/q", "/d/{x}/defghijkl/{y} x=v y=q"},
		{"/m/v/m", "/m/{x}/m x=v"},
		{"/k/v/w/lmn", "/k/{x}/{z}/lmn x=v z=w"},
	} {
		if w := do(r, "GET", c.path); w.Code != 200 || w.Body.String() != c.want {
			t.Errorf("GET %s = %d %q, want %q", c.path, w.Code, w.Body.String(), c.want)
		}
	}
	for _, p := range []string{
		"/a/v/zz/qqqqq", "/a/v/bd/qqqqq", "/a/v/cb/q", "/d/v/defghijkx/q", "/d/v/xefghijkl/q",
		"/m/v/n", "/m/v/mm", "/m/v/b", "/k/v/w/lmx", "/k/v/w/lmnlmnlmn",
	} {
		if w := do(r, "GET", p); w.Code != 404 {
			t.Errorf("GET %s = %d %q, want 404", p, w.Code, w.Body.String())
		}
	}
}

func TestEscapedSlashStaysInSegment(t *testing.T) {
	r := echoRouter(t, nil, "/files/{name}", "/files/{name}/meta", "/raw/{rest...}", "/lit/a/b")
	tests := []struct{ path, want string }{
		{"/files/a%2Fb", "/files/{name} name=a/b"},
		{"/files/a%2fb/meta", "/files/{name}/meta name=a/b"},
		{"/files/100%25", "/files/{name} name=100%"},
		{"/files/100%252F", "/files/{name} name=100%2F"},
		{"/files/%41%2F", "/files/{name} name=A/"},
		{"/raw/a%2Fb/c", "/raw/{rest...} rest=a/b/c"},
	}
	expectRoutes(t, r, tests)
	// An escaped slash never splits a segment, so it cannot match two literal segments.
	if w := do(r, "GET", "/lit/a%2Fb"); w.Code != 404 {
		t.Errorf("GET /lit/a%%2Fb = %d, want 404", w.Code)
	}
}

func TestLongPath(t *testing.T) {
	r := echoRouter(t, nil, "/deep/{rest...}", "/p/{a}")
	long := strings.Repeat("/seg", 20000)
	w := do(r, "GET", "/deep"+long)
	if w.Code != 200 || w.Body.String() != "/deep/{rest...} rest="+long[1:] {
		t.Errorf("long catch-all: %d, body of %d bytes", w.Code, w.Body.Len())
	}
	seg := strings.Repeat("x", 100000)
	if w := do(r, "GET", "/p/"+seg); w.Body.String() != "/p/{a} a="+seg {
		t.Errorf("long segment: %d", w.Code)
	}
}

func TestMethods(t *testing.T) {
	r := New()
	r.Get("/items", echoHandler("GET /items"))
	r.Post("/items", echoHandler("POST /items"))
	r.Put("/items/{id}", echoHandler("PUT /items/{id}"))
	r.Delete("/items/{id}", echoHandler("DELETE /items/{id}"))
	r.Patch("/items/{id}", echoHandler("PATCH /items/{id}"))
	r.Handle("PROPFIND", "/items/{id}", echoHandler("PROPFIND /items/{id}"))
	r.Head("/head", echoHandler("HEAD /head"))
	r.Options("/opt", echoHandler("OPTIONS /opt"))
	r.Post("/users/{id}", echoHandler("POST /users/{id}"))
	r.Get("/users/new", echoHandler("GET /users/new"))

	tests := []struct {
		method, path string
		code         int
		body, allow  string
	}{
		{"GET", "/items", 200, "GET /items", ""},
		{"POST", "/items", 200, "POST /items", ""},
		{"HEAD", "/items", 200, "", ""}, // served by GET; the recorder keeps the body, checked below
		{"PROPFIND", "/items/1", 200, "PROPFIND /items/{id} id=1", ""},
		{"DELETE", "/items", 405, "", "GET, HEAD, POST, OPTIONS"},
		{"GET", "/items/1", 405, "", "PUT, PATCH, DELETE, OPTIONS, PROPFIND"},
		{"OPTIONS", "/items", 204, "", "GET, HEAD, POST, OPTIONS"},
		{"OPTIONS", "/opt", 200, "OPTIONS /opt", ""},
		{"OPTIONS", "/nothing", 404, "", ""},
		{"HEAD", "/head", 200, "HEAD /head", ""},
		{"GET", "/head", 405, "", "HEAD, OPTIONS"},
		// method-specific backtracking: the static node has no POST route
		{"POST", "/users/new", 200, "POST /users/{id} id=new", ""},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			w := do(r, tt.method, tt.path)
			if w.Code != tt.code {
				t.Errorf("%s %s = %d, want %d", tt.method, tt.path, w.Code, tt.code)
			}
			if tt.body != "" && w.Body.String() != tt.body {
				t.Errorf("%s %s body = %q, want %q", tt.method, tt.path, w.Body.String(), tt.body)
			}
			if got := w.Header().Get("Allow"); got != tt.allow {
				t.Errorf("%s %s Allow = %q, want %q", tt.method, tt.path, got, tt.allow)
			}
		})
	}
	if w := do(r, "HEAD", "/items"); w.Body.String() != "GET /items" {
		t.Errorf("HEAD fell back to %q", w.Body.String())
	}
	if w := do(r, "OPTIONS", "*"); w.Code != 204 || !strings.Contains(w.Header().Get("Allow"), "PROPFIND") {
		t.Errorf("OPTIONS * = %d Allow %q", w.Code, w.Header().Get("Allow"))
	}
	// Methods with static routes only have no tree to walk; they are
	// still the router's methods.
	s := New()
	s.Get("/a", echoHandler("GET /a"))
	s.Put("/a", echoHandler("PUT /a"))
	s.Post("/b/{id}", echoHandler("POST /b/{id}"))
	if w := do(s, "OPTIONS", "*"); w.Code != 204 || w.Header().Get("Allow") != "GET, HEAD, POST, PUT, OPTIONS" {
		t.Errorf("OPTIONS * with static-only methods = %d Allow %q", w.Code, w.Header().Get("Allow"))
	}
	if w := do(s, "DELETE", "/a"); w.Code != 405 || w.Header().Get("Allow") != "GET, HEAD, PUT, OPTIONS" {
		t.Errorf("DELETE /a = %d Allow %q", w.Code, w.Header().Get("Allow"))
	}
	if w := do(s, "HEAD", "/a"); w.Code != 200 || w.Body.String() != "GET /a" {
		t.Errorf("HEAD /a = %d %q", w.Code, w.Body.String())
	}
	if w := do(New(AutoOptions(false)), "OPTIONS", "/x"); w.Code != 404 {
		t.Errorf("OPTIONS with AutoOptions(false) = %d", w.Code)
	}
}

func TestCustomNotFoundAndMethodNotAllowed(t *testing.T) {
	r := New()
	r.Get("/a", echoHandler("/a"))
	r.NotFoundHandler(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(418) }))
	r.MethodNotAllowedHandler(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(499)
		io.WriteString(w, w.Header().Get("Allow"))
	}))
	if w := do(r, "GET", "/zzz"); w.Code != 418 {
		t.Errorf("custom 404: %d", w.Code)
	}
	if w := do(r, "POST", "/a"); w.Code != 499 || w.Body.String() != "GET, HEAD, OPTIONS" {
		t.Errorf("custom 405: %d %q", w.Code, w.Body.String())
	}
}

func TestRedirects(t *testing.T) {
	r := New()
	r.Get("/users", echoHandler("/users"))
	r.Get("/docs/", echoHandler("/docs/"))
	r.Post("/submit", echoHandler("/submit"))
	r.Get("/u/{id}", echoHandler("/u/{id}"))
	tests := []struct {
		method, target string
		code           int
		location       string
	}{
		{"GET", "/users/", 301, "/users"},
		{"GET", "/users/?page=2&x=%20", 301, "/users?page=2&x=%20"},
		{"GET", "/docs", 301, "/docs/"},
		{"HEAD", "/docs", 301, "/docs/"},
		{"POST", "/submit/?a=1", 308, "/submit?a=1"},
		{"GET", "/u/7/", 301, "/u/7"},
		{"GET", "//users", 301, "/users"},
		{"GET", "/a/../users", 301, "/users"},
		{"GET", "/./users?q=1", 301, "/users?q=1"},
		{"GET", "/docs/./", 301, "/docs/"},
		{"POST", "/x/../submit", 308, "/submit"},
		{"GET", "/u/a%2Fb/../7", 301, "/u/7"},
		{"GET", "/.well-known", 404, ""}, // a dot-file segment is clean
		{"GET", "/nothing/", 404, ""},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.target, func(t *testing.T) {
			w := do(r, tt.method, tt.target)
			if w.Code != tt.code || w.Header().Get("Location") != tt.location {
				t.Errorf("%s %s = %d Location %q, want %d %q", tt.method, tt.target, w.Code, w.Header().Get("Location"), tt.code, tt.location)
			}
		})
	}
	off := New(RedirectTrailingSlash(false), RedirectCleanPath(false))
	off.Get("/users", echoHandler("/users"))
	off.Get("/f/{p...}", echoHandler("/f/{p...}"))
	if w := do(off, "GET", "/users/"); w.Code != 404 {
		t.Errorf("trailing slash redirect off: %d", w.Code)
	}
	if w := do(off, "GET", "/f/a/../b"); w.Code != 200 || w.Body.String() != "/f/{p...} p=a/../b" {
		t.Errorf("clean redirect off: %d %q", w.Code, w.Body.String())
	}
}

// tracing returns middleware that appends its name and the request's org
// parameter to *trace.
func tracing(trace *[]string) func(name string) func(http.Handler) http.Handler {
	return func(name string) func(http.Handler) http.Handler {
		return func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
				*trace = append(*trace, name+"("+Param(req, "org")+")")
				next.ServeHTTP(w, req)
			})
		}
	}
}

func TestGroupsAndMiddlewareOrder(t *testing.T) {
	var trace []string
	mw := tracing(&trace)
	r := New()
	r.Use(mw("root"))
	r.Route("/v1", func(v1 *Router) {
		v1.Use(mw("v1"))
		orgs := v1.Group("/orgs/{org}", mw("orgs"))
		teams := orgs.Group("/teams/", mw("teams"))
		teams.Get("/{team}", echoHandler("/v1/orgs/{org}/teams/{team}"))
		v1.Get("/ping", echoHandler("/v1/ping"))
	})
	w := do(r, "GET", "/v1/orgs/acme/teams/core")
	if w.Body.String() != "/v1/orgs/{org}/teams/{team} org=acme team=core" {
		t.Fatalf("body %q", w.Body.String())
	}
	// Root middleware runs before routing; group middleware after it.
	if want := []string{"root()", "v1(acme)", "orgs(acme)", "teams(acme)"}; !slices.Equal(trace, want) {
		t.Errorf("middleware order %v, want %v", trace, want)
	}
	trace = nil
	do(r, "GET", "/v1/ping")
	if want := []string{"root()", "v1()"}; !slices.Equal(trace, want) {
		t.Errorf("sibling group got %v, want %v", trace, want)
	}
	trace = nil
	do(r, "GET", "/missing")
	if want := []string{"root()"}; !slices.Equal(trace, want) {
		t.Errorf("root middleware on a 404: %v", trace)
	}
	routes := r.Routes()
	if len(routes) != 2 || routes[0].Pattern != "/v1/orgs/{org}/teams/{team}" || routes[1].Pattern != "/v1/ping" {
		t.Errorf("Routes() = %+v", routes)
	}
}

func TestGroupUseAfterRoutesPanics(t *testing.T) {
	g := New().Group("/g")
	g.Get("/a", echoHandler("/a"))
	mustPanic(t, `Use on group "/g" after its routes`, func() { g.Use(func(h http.Handler) http.Handler { return h }) })
}

func TestMount(t *testing.T) {
	sub := http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		fmt.Fprintf(w, "%s %s raw=%s q=%s tenant=%s", req.Method, req.URL.Path, req.URL.RawPath, req.URL.RawQuery, Param(req, "tenant"))
	})
	inner := New()
	inner.Get("/things/{id}", func(w http.ResponseWriter, req *http.Request) {
		fmt.Fprintf(w, "inner id=%s tenant=%s", Param(req, "id"), Param(req, "tenant"))
	})
	r := New()
	r.Get("/legacy/override", echoHandler("/legacy/override"))
	r.Mount("/legacy", sub)
	r.Group("/api").Mount("/t/{tenant}/", inner)
	tests := []struct{ method, target, want string }{
		{"GET", "/legacy/a/b?x=1", "GET /a/b raw= q=x=1 tenant="},
		{"DELETE", "/legacy", "DELETE / raw= q= tenant="},
		{"POST", "/legacy/", "POST / raw= q= tenant="},
		{"GET", "/legacy/override", "/legacy/override"},
		{"POST", "/legacy/override", "POST /override raw= q= tenant="},
		{"GET", "/legacy/a%2Fb", "GET /a/b raw=/a%2Fb q= tenant="},
		{"GET", "/api/t/a%2Fb/things/7", "inner id=7 tenant=a/b"},
		{"GET", "/api/t/a%2Fb/things/x%2Fy", "inner id=x/y tenant=a/b"},
		{"GET", "/legacy/x%2Fy/z", "GET /x/y/z raw=/x%2Fy/z q= tenant="},
		{"GET", "/api/t/acme/things/7", "inner id=7 tenant=acme"},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.target, func(t *testing.T) {
			if w := do(r, tt.method, tt.target); w.Body.String() != tt.want {
				t.Errorf("%s %s = %d %q, want %q", tt.method, tt.target, w.Code, w.Body.String(), tt.want)
			}
		})
	}
	if w := do(r, "GET", "/legacyx"); w.Code != 404 {
		t.Errorf("/legacyx = %d", w.Code)
	}
}

func mustPanic(t *testing.T, want string, f func()) {
	t.Helper()
	defer func() {
		t.Helper()
		got := fmt.Sprint(recover())
		if !strings.Contains(got, want) {
			t.Errorf("panic %q, want it to contain %q", got, want)
		}
	}()
	f()
}

func TestRegistrationErrors(t *testing.T) {
	h := echoHandler("/")
	tests := []struct {
		earlier []string
		pattern string
		want    string
	}{
		{nil, "users", `"users": must begin with '/'`},
		{nil, "", `must begin with '/'`},
		{nil, "/users/{id", `"/users/{id": unclosed '{'`},
		{nil, "/users/id}", `'}' at byte 9 has no matching '{'`},
		{nil, "/users/{}", `empty parameter name`},
		{nil, "/users/{...}", `empty parameter name`},
		{nil, "/a/{x}/b/{x}", `duplicate parameter name "x"`},
		{nil, "/a/{rest...}/b", `catch-all {rest...} must be the last segment`},
		{nil, "/a/x{id}", `must be a whole segment`},
		{nil, "/a/{id}x", `must be a whole segment`},
		{nil, "/a/{id-x}", `not a Go identifier`},
		{nil, "/a/{$}", `{$} is not supported`},
		{nil, "/a%2Fb", `escape sequence`},
		{[]string{"/users/{id}"}, "/users/{name}", `GET /users/{name} conflicts with GET /users/{id}`},
		{[]string{"/f/{a...}"}, "/f/{b...}", `GET /f/{b...} conflicts with GET /f/{a...}`},
		{[]string{"/users"}, "/users", `GET /users is already registered`},
	}
	for _, tt := range tests {
		t.Run(tt.pattern, func(t *testing.T) {
			r := New()
			for _, p := range tt.earlier {
				r.Get(p, h)
			}
			mustPanic(t, tt.want, func() { r.Get(tt.pattern, h) })
		})
	}
	mustPanic(t, `invalid method "BAD METHOD"`, func() { New().Handle("BAD METHOD", "/", h) })
	mustPanic(t, `nil handler`, func() { New().Handle("GET", "/", nil) })
	// Same shape, different methods: no conflict.
	r := New()
	r.Get("/u/{id}", h)
	r.Post("/u/{name}", h)
}

func TestRegisterAfterServingPanics(t *testing.T) {
	r := New()
	r.Get("/a", echoHandler("/a"))
	do(r, "GET", "/a")
	mustPanic(t, "GET /b registered after the router started serving", func() { r.Get("/b", echoHandler("/b")) })
}

func TestRoutesNamesHandlers(t *testing.T) {
	r := New()
	r.Get("/a", namedHandler)
	r.Handle("PUT", "/b/{x}", http.NotFoundHandler())
	r.Handle("POST", "/c", typeHandler{})
	r.Mount("/m", http.NotFoundHandler())
	do(r, "POST", "/c") // compiled: Routes reads the compiled routes
	got := r.Routes()
	want := []RouteInfo{
		{"GET", "/a", "github.com/vane-http/vane/router.namedHandler"},
		{"PUT", "/b/{x}", "net/http.NotFound"},
		{"POST", "/c", "router.typeHandler"},
		{"*", "/m", "net/http.NotFound"},
		{"*", "/m/{vanemount...}", "net/http.NotFound"},
	}
	if !slices.Equal(got, want) {
		t.Errorf("Routes() = %+v\nwant %+v", got, want)
	}
}

func namedHandler(http.ResponseWriter, *http.Request) {}

// typeHandler is a handler that is not a func: Routes names its type.
type typeHandler struct{}

func (typeHandler) ServeHTTP(http.ResponseWriter, *http.Request) {}

func TestParamThroughDerivedContext(t *testing.T) {
	type key struct{}
	r := New()
	g := r.Group("", func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			next.ServeHTTP(w, req.WithContext(context.WithValue(req.Context(), key{}, "v")))
		})
	})
	g.Get("/x/{id}", func(w http.ResponseWriter, req *http.Request) {
		fmt.Fprint(w, Param(req, "id"), req.Context().Value(key{}), Param(req, "nope") == "", req.Pattern)
	})
	if w := do(r, "GET", "/x/9"); w.Body.String() != "9vtrue/x/{id}" {
		t.Errorf("got %q", w.Body.String())
	}
	if Param(httptest.NewRequest("GET", "/", nil), "id") != "" {
		t.Error("Param on an unrouted request")
	}
}

func TestStdPathValues(t *testing.T) {
	for _, on := range []bool{false, true} {
		r := New(StdPathValues(on))
		r.Get("/u/{id}/{rest...}", func(w http.ResponseWriter, req *http.Request) {
			fmt.Fprint(w, req.PathValue("id"), "|", req.PathValue("rest"))
		})
		// A route without a catch-all takes dispatch's written-out path.
		r.Get("/v/{id}", func(w http.ResponseWriter, req *http.Request) {
			fmt.Fprint(w, req.PathValue("id"))
		})
		want, wantV := "|", ""
		if on {
			want, wantV = "7|a/b", "8"
		}
		if w := do(r, "GET", "/u/7/a/b"); w.Body.String() != want {
			t.Errorf("StdPathValues(%v): %q, want %q", on, w.Body.String(), want)
		}
		if w := do(r, "GET", "/v/8"); w.Body.String() != wantV {
			t.Errorf("StdPathValues(%v), /v/8: %q, want %q", on, w.Body.String(), wantV)
		}
	}
}

// TestSubtreeRedirectWithoutCleanPath checks that a catch-all match that
// a more specific subtree's root would match with a slash added is
// redirected there with RedirectCleanPath off too (dispatch's written-out
// path must leave such a route to serveMatch).
func TestSubtreeRedirectWithoutCleanPath(t *testing.T) {
	r := echoRouter(t, []Option{RedirectCleanPath(false)}, "/a/{rest...}", "/a/b/")
	w := do(r, "GET", "/a/b")
	if w.Code != http.StatusMovedPermanently || w.Header().Get("Location") != "/a/b/" {
		t.Errorf("GET /a/b: %d, Location %q; want 301 to /a/b/", w.Code, w.Header().Get("Location"))
	}
	if w := do(r, "GET", "/a/c"); w.Code != 200 || w.Body.String() != "/a/{rest...} rest=c" {
		t.Errorf("GET /a/c: %d %q", w.Code, w.Body.String())
	}
}

// TestRequestUntouched checks that the handler gets the request it was
// given, with its own context, and that nothing of the request changes
// after the handler returns.
func TestRequestUntouched(t *testing.T) {
	r := New()
	var kept *http.Request
	r.Get("/k/{id}", func(w http.ResponseWriter, req *http.Request) { kept = req })
	r.Get("/other/{name}/{id}", func(http.ResponseWriter, *http.Request) {})
	parent, cancel := context.WithCancel(context.Background())
	defer cancel()
	req := httptest.NewRequest("GET", "/k/1", nil).WithContext(parent)
	r.ServeHTTP(httptest.NewRecorder(), req)
	if kept != req || kept.Context() != parent {
		t.Fatalf("handler got %p with context %v, want the request itself (%p) with its own context", kept, kept.Context(), req)
	}
	for i := range 3 {
		r.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", fmt.Sprintf("/other/x%d/%d", i, i), nil))
	}
	if kept.Context() != parent || kept.Context().Err() != nil || Param(kept, "id") != "1" || kept.Pattern != "/k/{id}" {
		t.Errorf("after later requests: context %v (err %v), id %q, pattern %q", kept.Context(), kept.Context().Err(), Param(kept, "id"), kept.Pattern)
	}
}

func TestMoreParamsThanStack(t *testing.T) {
	var b strings.Builder
	for i := range stackParams + 6 {
		fmt.Fprintf(&b, "/{p%d}", i)
	}
	r := echoRouter(t, nil, b.String())
	path := strings.Repeat("/v", stackParams+6)
	w := do(r, "GET", path)
	if w.Code != 200 || !strings.HasSuffix(w.Body.String(), fmt.Sprintf("p%d=v", stackParams+5)) {
		t.Errorf("%d %q", w.Code, w.Body.String())
	}
}

func TestUncleanPatternsRejected(t *testing.T) {
	for _, p := range []string{"/a//b", "/a/./b", "/a/../b", "/a/.", "/a/..", "//"} {
		mustPanic(t, "never match", func() { New().Get(p, echoHandler("/")) })
	}
}

func TestUncleanParameterValuesRedirect(t *testing.T) {
	r := echoRouter(t, nil, "/a/{x}/b", "/f/{rest...}", "/s/{y}")
	for target, loc := range map[string]string{
		"/a/./b":    "/a/b",
		"/a/../b":   "/b",
		"/f/x/../y": "/f/y",
		"/f//y":     "/f/y",
		"/f/x//":    "/f/x/",
		"/f/.":      "/f",
		"/s/..":     "/",
		"/s/x/./":   "/s/x/",
	} {
		if w := do(r, "GET", target); w.Code != 301 || w.Header().Get("Location") != loc {
			t.Errorf("GET %s = %d %q, want 301 %q", target, w.Code, w.Header().Get("Location"), loc)
		}
	}
	for _, ok := range []string{"/f/.well-known/x", "/s/..x", "/a/.x/b", "/f/a/"} {
		if w := do(r, "GET", ok); w.Code != 200 {
			t.Errorf("GET %s = %d, want 200", ok, w.Code)
		}
	}
}

// The root's middleware and fallback handlers are set up before serving:
// changing them after the first request panics, rather than racing with
// the requests that read them.
func TestSetupAfterServingPanics(t *testing.T) {
	r := New()
	r.Get("/a", func(w http.ResponseWriter, req *http.Request) {})
	r.Use(func(next http.Handler) http.Handler { return next }) // before serving: fine
	r.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/a", nil))
	for name, call := range map[string]func(){
		"Use":                     func() { r.Use(func(next http.Handler) http.Handler { return next }) },
		"NotFoundHandler":         func() { r.NotFoundHandler(http.NotFoundHandler()) },
		"MethodNotAllowedHandler": func() { r.MethodNotAllowedHandler(http.NotFoundHandler()) },
	} {
		func() {
			defer func() {
				if msg := fmt.Sprint(recover()); !strings.Contains(msg, name+" on the root router after it started serving") {
					t.Errorf("%s after serving: panic %q", name, msg)
				}
			}()
			call()
		}()
	}
}

// expectRoutes checks that a GET of each path is answered 200 with the
// echo handler's body: the pattern and the parameters it matched.
func expectRoutes(t *testing.T, r *Router, tests []struct{ path, want string }) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			w := do(r, "GET", tt.path)
			if w.Code != 200 || w.Body.String() != tt.want {
				t.Errorf("GET %s = %d %q, want 200 %q", tt.path, w.Code, w.Body.String(), tt.want)
			}
		})
	}
}

func TestUseFuncMixesWithUse(t *testing.T) {
	var trace []string
	std := tracing(&trace)
	fn := func(name string) func(http.HandlerFunc) http.HandlerFunc {
		return func(next http.HandlerFunc) http.HandlerFunc {
			return func(w http.ResponseWriter, req *http.Request) {
				trace = append(trace, name+"("+Param(req, "org")+")")
				next(w, req)
			}
		}
	}
	r := New()
	r.UseFunc(fn("f1"))
	r.Use(std("s1"))
	r.UseFunc(fn("f2"), fn("f3"))
	orgs := r.Group("/orgs/{org}", std("gs"))
	orgs.UseFunc(fn("gf"))
	orgs.Get("/plain", echoHandler("/orgs/{org}/plain"))
	// A handler that is not an http.HandlerFunc reaches a UseFunc layer
	// as its ServeHTTP method.
	orgs.Handle("GET", "/typed", textHandler("typed"))
	for _, tt := range []struct{ target, body string }{
		{"/orgs/acme/plain", "/orgs/{org}/plain org=acme"},
		{"/orgs/acme/typed", "typed"},
	} {
		trace = nil
		if w := do(r, "GET", tt.target); w.Body.String() != tt.body {
			t.Fatalf("%s: body %q, want %q", tt.target, w.Body.String(), tt.body)
		}
		if want := []string{"f1()", "s1()", "f2()", "f3()", "gs(acme)", "gf(acme)"}; !slices.Equal(trace, want) {
			t.Errorf("%s: middleware order %v, want %v", tt.target, trace, want)
		}
	}
	trace = nil
	if w := do(r, "GET", "/missing"); w.Code != 404 {
		t.Errorf("404 through UseFunc: %d", w.Code)
	}
	if want := []string{"f1()", "s1()", "f2()", "f3()"}; !slices.Equal(trace, want) {
		t.Errorf("root middleware on a 404: %v, want %v", trace, want)
	}
}

// textHandler is an http.Handler that is not an http.HandlerFunc.
type textHandler string

func (h textHandler) ServeHTTP(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, string(h)) }

func TestMiddlewareChainChecks(t *testing.T) {
	mustPanic(t, "UseFunc: middleware 1 is nil", func() {
		New().UseFunc(func(h http.HandlerFunc) http.HandlerFunc { return h }, nil)
	})
	mustPanic(t, "Use: middleware 0 is nil", func() { New().Use(nil) })
	mustPanic(t, "middleware 0 of 1 returned a nil handler", func() {
		New().UseFunc(func(http.HandlerFunc) http.HandlerFunc { return nil })
	})
	mustPanic(t, "middleware 1 of 2 returned a nil handler", func() {
		g := New().Group("/g", func(h http.Handler) http.Handler { return h }, func(http.Handler) http.Handler { return http.HandlerFunc(nil) })
		g.Get("/a", echoHandler("/g/a"))
	})
	mustPanic(t, `UseFunc on group "/g" after its routes`, func() {
		g := New().Group("/g")
		g.Get("/a", echoHandler("/g/a"))
		g.UseFunc(func(h http.HandlerFunc) http.HandlerFunc { return h })
	})
}

func TestUseFuncChainDoesNotAllocate(t *testing.T) {
	pass := func(next http.HandlerFunc) http.HandlerFunc {
		return func(w http.ResponseWriter, req *http.Request) { next(w, req) }
	}
	r := New()
	for range 20 {
		r.UseFunc(pass)
	}
	g := r.Group("/users")
	g.UseFunc(pass)
	var got string
	g.Get("/{id}", func(w http.ResponseWriter, req *http.Request) { got = Param(req, "id") })
	req := httptest.NewRequest("GET", "/users/7", nil)
	w := httptest.NewRecorder()
	if n := testing.AllocsPerRun(100, func() { r.ServeHTTP(w, req) }); n != 0 || got != "7" {
		t.Errorf("20 UseFunc layers: %v allocs, id %q", n, got)
	}
}
