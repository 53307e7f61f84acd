package peers

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"sort"
	"strings"

	"github.com/vane-http/vane/bench/routes"
)

// Case is one row of the report: what to build on a peer, which requests
// one benchmark operation makes, and how to tell a right answer.
type Case struct {
	Category string // report section: Tables, Micro, Middleware, Data, Typed
	Name     string // row name
	Workload string // key into Peer.Lacks
	Parallel bool   // measured with b.RunParallel

	build    func(Peer) (func() (http.Handler, error), bool)
	requests []Request
	check    func(h http.Handler) error
}

// Request is one request of a benchmark operation.
type Request struct {
	Method, Path string
	Header       http.Header
	Body         string
}

// NewRequest makes the *http.Request, with a body that Rewind can reset.
func (r Request) NewRequest() *http.Request {
	req := httptest.NewRequest(r.Method, r.Path, nil)
	for k, v := range r.Header {
		req.Header[k] = v
	}
	if r.Body != "" {
		b := &Body{}
		b.Reset([]byte(r.Body))
		req.Body = b
		req.ContentLength = int64(len(r.Body))
	}
	return req
}

// Body is a request body that can be read again after Rewind.
type Body struct{ bytes.Reader }

// Close implements io.Closer.
func (*Body) Close() error { return nil }

// Rewind resets the body of a request made by NewRequest; a request
// without a body is left alone. It does not allocate.
func Rewind(req *http.Request, r Request, body *Body) {
	if r.Body != "" {
		body.Reset([]byte(r.Body))
		req.Body = body
	}
}

// Requests returns the requests of one operation, built fresh.
func (c Case) Requests() []Request { return c.requests }

// Build returns the case's handler on p, or why p cannot serve it.
func (c Case) Build(p Peer) (http.Handler, error) {
	f, ok := c.build(p)
	if !ok || f == nil {
		why := p.Lacks[c.Workload]
		if why == "" {
			why = "not supported"
		}
		return nil, ErrLacks{why}
	}
	h, err := build(f)
	if err != nil {
		return nil, err
	}
	return h, nil
}

// Check builds the case on p and verifies every answer. A non-nil
// ErrLacks means p cannot express the case; any other error means p
// answered wrongly.
func (c Case) Check(p Peer) error {
	h, err := c.Build(p)
	if err != nil {
		return err
	}
	return c.check(h)
}

func routerOf(s Spec) func(Peer) (func() (http.Handler, error), bool) {
	return func(p Peer) (func() (http.Handler, error), bool) {
		if p.Router == nil {
			return nil, false
		}
		return func() (http.Handler, error) { return p.Router(s) }, true
	}
}

// middlewareOf builds a middleware row with the peer's Middleware builder,
// or its Router when it has none.
func middlewareOf(s Spec) func(Peer) (func() (http.Handler, error), bool) {
	return func(p Peer) (func() (http.Handler, error), bool) {
		if p.Middleware != nil {
			return func() (http.Handler, error) { return p.Middleware(s) }, true
		}
		return routerOf(s)(p)
	}
}

func get(path string) Request { return Request{Method: "GET", Path: path} }

// Cases returns every in-process case, in report order.
func Cases() []Case {
	var cs []Case
	// 1. Route tables, twice: handlers that read every parameter of their
	// route, and handlers that read none.
	for _, variant := range []struct {
		category string
		noRead   bool
	}{{"TablesRead", false}, {"TablesNoRead", true}} {
		for _, tc := range routes.Cases() {
			t := routes.MustLoad(tc.Table)
			var reqs []Request
			for _, r := range tc.Requests {
				reqs = append(reqs, Request{Method: r.Method, Path: r.Path})
			}
			// The check asks every route of the table and the case's own requests.
			var all []Request
			for _, r := range t.Routes {
				all = append(all, Request{Method: r.Method, Path: r.Pattern})
			}
			all = append(all, reqs...)
			cs = append(cs, Case{
				Category: variant.category, Name: tc.Name, Workload: "router",
				build:    routerOf(Spec{Routes: t.Routes, NoRead: variant.noRead}),
				requests: reqs,
				check:    routingCheckReads(t, all, 0, false, !variant.noRead),
			})
		}
	}
	// 2. Micro.
	for _, m := range microCases() {
		t := routes.Table{Name: m.name, Routes: m.routes}
		cs = append(cs, Case{
			Category: "Micro", Name: m.name, Workload: "router",
			build:    routerOf(Spec{Routes: m.routes, Write: m.write}),
			requests: []Request{get(m.path)},
			check:    routingCheck(t, []Request{get(m.path)}, 0, m.write),
		})
	}
	// 3. Middleware, groups, parallel.
	param := routes.Table{Name: "param", Routes: []routes.Route{{Method: "GET", Pattern: "/user/:name"}}}
	for _, n := range []int{5, 10, 20} {
		cs = append(cs, Case{
			Category: "Middleware", Name: fmt.Sprintf("Middleware%d", n), Workload: "middleware",
			build:    middlewareOf(Spec{Routes: param.Routes, Middleware: n}),
			requests: []Request{get("/user/gordon")},
			check:    routingCheck(param, []Request{get("/user/gordon")}, n, false),
		})
	}
	groups := routes.Table{Name: "groups", Routes: []routes.Route{
		{Method: "GET", Pattern: "/api/v1/users/:id"}, {Method: "GET", Pattern: "/api/v1/posts/:id"}}}
	cs = append(cs, Case{
		Category: "Middleware", Name: "Groups", Workload: "groups",
		build:    func(p Peer) (func() (http.Handler, error), bool) { return p.Groups, p.Groups != nil },
		requests: []Request{get("/api/v1/users/42")},
		check:    routingCheck(groups, []Request{get("/api/v1/users/42"), get("/api/v1/posts/7")}, 2, false),
	})
	cs = append(cs, Case{
		Category: "Parallel", Name: "Param", Workload: "router", Parallel: true,
		build:    routerOf(Spec{Routes: param.Routes}),
		requests: []Request{get("/user/gordon")},
		check:    routingCheck(param, []Request{get("/user/gordon")}, 0, false),
	})
	// 4. Data handling.
	jsonHeader := http.Header{"Content-Type": {"application/json"}}
	cs = append(cs, Case{
		Category: "Data", Name: "JSONBind", Workload: "jsonbind",
		build:    func(p Peer) (func() (http.Handler, error), bool) { return p.JSONBind, p.JSONBind != nil },
		requests: []Request{{Method: "POST", Path: "/users", Header: jsonHeader, Body: UserJSON}},
		check: func(h http.Handler) error {
			return expect(h, Request{Method: "POST", Path: "/users", Header: jsonHeader, Body: UserJSON}, 200, nil, func(b []byte) error {
				if string(b) != "Gordon" {
					return fmt.Errorf("body %q, want %q", b, "Gordon")
				}
				return nil
			})
		},
	})
	cs = append(cs, Case{
		Category: "Data", Name: "JSONList100", Workload: "jsonlist",
		build:    func(p Peer) (func() (http.Handler, error), bool) { return p.JSONList, p.JSONList != nil },
		requests: []Request{get("/items")},
		check: func(h http.Handler) error {
			return expect(h, get("/items"), 200, map[string]string{"Content-Type": "application/json"}, jsonEquals(Items))
		},
	})
	// 5. Typed operations.
	greetReq := Request{Method: "POST", Path: GreetingPath, Header: jsonHeader, Body: GreetingJSON}
	cs = append(cs, Case{
		Category: "Typed", Name: "Greeting", Workload: "greeting",
		build:    func(p Peer) (func() (http.Handler, error), bool) { return p.Greeting, p.Greeting != nil },
		requests: []Request{greetReq},
		check: func(h http.Handler) error {
			err := expect(h, greetReq, 200, map[string]string{
				"Content-Type":  "application/json",
				"ETag":          GreetingETag,
				"Last-Modified": LastModifiedText,
			}, jsonEquals(Greet("123", "!", "application/json", 5)))
			if err != nil {
				return err
			}
			bad := greetReq
			bad.Body = `{"suffix":"toolong"}`
			return expectClientError(h, bad)
		},
	})
	cs = append(cs, Case{
		Category: "Typed", Name: "Param", Workload: "typedparam",
		build:    func(p Peer) (func() (http.Handler, error), bool) { return p.TypedParam, p.TypedParam != nil },
		requests: []Request{get("/users/42")},
		check: func(h http.Handler) error {
			if err := expect(h, get("/users/42"), 200, map[string]string{"Content-Type": "application/json"}, jsonEquals(IDReply{ID: 42})); err != nil {
				return err
			}
			if err := expectClientError(h, get("/users/0")); err != nil {
				return err
			}
			return expectClientError(h, get("/users/abc"))
		},
	})
	return cs
}

type micro struct {
	name   string
	routes []routes.Route
	path   string
	write  bool
}

func microCases() []micro {
	one := func(p string) []routes.Route { return []routes.Route{{Method: "GET", Pattern: p}} }
	letters := "abcdefghijklmnopqrst"
	var p20, r20 strings.Builder
	for _, c := range letters {
		p20.WriteString("/:" + string(c))
		r20.WriteString("/" + string(c))
	}
	return []micro{
		{"Static", one("/"), "/", false},
		{"Param", one("/user/:name"), "/user/gordon", false},
		{"Param5", one("/:a/:b/:c/:d/:e"), "/test/test/test/test/test", false},
		{"Param20", one(p20.String()), r20.String(), false},
		{"ParamWrite", one("/user/:name"), "/user/gordon", true},
		{"MultiParam", one("/users/:userID/posts/:postID"), "/users/42/posts/7", false},
		{"Wildcard", one("/static/*filepath"), "/static/css/site/main.css", false},
		{"DeepNesting", one("/api/v1/orgs/:org/teams/:team/members/:member/roles/:role/permissions"),
			"/api/v1/orgs/acme/teams/web/members/gordon/roles/admin/permissions", false},
		{"NotFound", routes.MustLoad("github").Routes, "/this/route/does/not/exist", false},
	}
}

// routingCheck serves every request and compares the route that ran and
// the parameter values it read with the reference answer of t.Lookup.
func routingCheck(t routes.Table, reqs []Request, middleware int, write bool) func(http.Handler) error {
	return routingCheckReads(t, reqs, middleware, write, true)
}

// routingCheckReads is routingCheck for handlers that read every parameter
// (read) or none: then the check holds them to reading nothing.
func routingCheckReads(t routes.Table, reqs []Request, middleware int, write, read bool) func(http.Handler) error {
	return func(h http.Handler) error {
		var errs []string
		for _, r := range reqs {
			want := t.Lookup(r.Method, strings.SplitN(r.Path, "?", 2)[0])
			rec := &Recorder{Route: -1, Params: map[string]string{}}
			probe = rec
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r.NewRequest())
			probe = nil
			if msg := compare(t, want, rec, w, middleware, write, read); msg != "" {
				errs = append(errs, fmt.Sprintf("%s %s: %s", r.Method, r.Path, msg))
			}
		}
		if len(errs) > 0 {
			if len(errs) > 3 {
				errs = append(errs[:3], fmt.Sprintf("and %d more", len(errs)-3))
			}
			return fmt.Errorf("%s", strings.Join(errs, "; "))
		}
		return nil
	}
}

func compare(t routes.Table, want Match, got *Recorder, w *httptest.ResponseRecorder, middleware int, write, read bool) string {
	if want.Route < 0 {
		if got.Route >= 0 {
			return fmt.Sprintf("want 404, route %s ran", t.Routes[got.Route].Pattern)
		}
		if w.Code != http.StatusNotFound {
			return fmt.Sprintf("want status 404, got %d", w.Code)
		}
		return ""
	}
	if got.Route != want.Route {
		if got.Route < 0 {
			return fmt.Sprintf("want route %s, no route ran (status %d)", t.Routes[want.Route].Pattern, w.Code)
		}
		return fmt.Sprintf("want route %s, route %s ran", t.Routes[want.Route].Pattern, t.Routes[got.Route].Pattern)
	}
	if w.Code != http.StatusOK {
		return fmt.Sprintf("status %d", w.Code)
	}
	if got.Middleware != middleware {
		return fmt.Sprintf("%d middleware ran, want %d", got.Middleware, middleware)
	}
	if !read {
		if len(got.Params) > 0 {
			return fmt.Sprintf("the handler read %d parameters, want none", len(got.Params))
		}
		return ""
	}
	kinds := map[string]routes.Kind{}
	for _, s := range t.Routes[want.Route].Segments() {
		kinds[s.Text] = s.Kind
	}
	var names []string
	for n := range want.Params {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		v, ok := got.Params[n]
		// httprouter and gin keep the leading "/" of a catch-all's value.
		if ok && kinds[n] == routes.CatchAll && v == "/"+want.Params[n] {
			v = want.Params[n]
		}
		if !ok || v != want.Params[n] {
			return fmt.Sprintf("param %s = %q, want %q", n, got.Params[n], want.Params[n])
		}
	}
	if write {
		var b strings.Builder
		for _, n := range t.Routes[want.Route].Params() {
			b.WriteString(want.Params[n])
		}
		if w.Body.String() != b.String() {
			return fmt.Sprintf("body %q, want %q", w.Body.String(), b.String())
		}
	}
	return ""
}

// Match is the reference answer (an alias kept short for compare).
type Match = routes.Match

func expect(h http.Handler, r Request, status int, headers map[string]string, body func([]byte) error) error {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r.NewRequest())
	if w.Code != status {
		return fmt.Errorf("%s %s: status %d, want %d (body %.200q)", r.Method, r.Path, w.Code, status, w.Body.String())
	}
	for k, v := range headers {
		got := w.Header().Get(k)
		if k == "Content-Type" {
			got, _, _ = strings.Cut(got, ";")
		}
		if got != v {
			return fmt.Errorf("%s %s: header %s = %q, want %q", r.Method, r.Path, k, got, v)
		}
	}
	if err := body(w.Body.Bytes()); err != nil {
		return fmt.Errorf("%s %s: %v", r.Method, r.Path, err)
	}
	return nil
}

func expectClientError(h http.Handler, r Request) error {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r.NewRequest())
	if w.Code < 400 || w.Code > 499 {
		return fmt.Errorf("%s %s body %s: status %d, want a 4xx rejection", r.Method, r.Path, r.Body, w.Code)
	}
	return nil
}

// jsonEquals compares a JSON body with v, both decoded to generic values.
func jsonEquals(v any) func([]byte) error {
	want, _ := json.Marshal(v)
	return func(b []byte) error {
		var x, y any
		if err := json.Unmarshal(b, &x); err != nil {
			return fmt.Errorf("body is not JSON: %v (%.100q)", err, b)
		}
		json.Unmarshal(want, &y)
		if !reflect.DeepEqual(x, y) {
			return fmt.Errorf("body %.200s, want %.200s", b, want)
		}
		return nil
	}
}

var _ = io.Discard
