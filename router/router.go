// Package router is vane's HTTP router: it sends each request to the
// standard net/http handler registered for its method and path, with
// net/http.ServeMux's patterns, standard middleware, groups and mounts,
// and without allocating. Where several routes match a path, the most
// specific from the left wins (see Router), which agrees with ServeMux
// wherever ServeMux accepts both routes.
//
// A handler gets the request as net/http gives it, with req.Pattern set to
// the matched route's pattern; [Param] reads a path parameter from it. The
// router keeps nothing of a request after the handler returns and reuses
// nothing a handler can reach, so the request and its context stay valid
// for whoever holds them (goroutines, http.Client and database/sql calls
// made with the request's context, http.TimeoutHandler).
//
// Package vane (the module's root) re-exports this router with typed
// operations and OpenAPI on top; a program that only routes imports this
// package and links nothing of those.
package router

import (
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// Router is an http.Handler that sends each request to the handler
// registered for its method and path.
//
// Patterns are paths whose segments are static text, {name} (one whole,
// non-empty segment) or, as the last segment, {name...} (the rest of the
// path, possibly empty), as net/http.ServeMux writes them. Where several
// routes match a path, the most specific wins, segment by segment from the
// left: static beats {name}, which beats {name...}, with backtracking, so
// /users/new, /users/{id} and /users/{id}/posts/{post...} coexist.
//
// That rule agrees with ServeMux's (the route that matches fewer paths
// wins) wherever one route's paths are a subset of the other's. Where
// neither is, as with /a/{x}/c and /a/b/{y} (both match /a/b/c),
// ServeMux refuses the second registration; Router accepts both and
// gives /a/b/c to /a/b/{y}, whose static segment comes first from the
// left. A route set written for ServeMux routes the same here.
//
// Routes are registered before the router serves its first request.
// Registration is not safe for concurrent use, and registering a route once
// the router has served a request panics. Serving is safe for concurrent use.
//
// A request that matches no route gets 404, or 405 with an Allow header when
// its path matches routes of other methods; OPTIONS is answered with Allow
// when no OPTIONS route matches; HEAD falls back to the GET route. By default
// a path that differs from a route only by a trailing slash, or that needs
// cleaning (//, /./, /../), is redirected to the route (301 for GET and HEAD,
// 308 otherwise, query kept).
//
// A Router returned by Group shares its parent's tree: ServeHTTP on either
// serves every route.
type Router struct {
	mux    *mux
	prefix string  // group prefix, no trailing '/'
	mws    []layer // group middleware, outermost first
	routes int     // routes registered through this router
	root   bool    // the router New returned, not a group
}

// mux is the state every router of a tree shares.
type mux struct {
	// Registration builds pointer trees (reg); the first request compiles
	// them into flat (compile.go) and drops them. Prepare compiles them
	// ahead into prepared, which the first request then takes as it is,
	// and a registration after it drops.
	reg      *trees
	flat     atomic.Pointer[flatTrees]
	prepared *flatTrees
	mu       sync.Mutex // serialises compiling

	customNames []string // methods without a tree of their own, by route.method-firstCustom
	maxParams   int

	rootMws []layer
	// chained is rootMws around dispatch, called as a func (one call rather
	// than an interface call and the func), or nil without middleware.
	chained  http.HandlerFunc
	notFound http.Handler
	notAllow http.Handler

	redirectSlash bool
	redirectClean bool
	autoOptions   bool
	stdValues     bool
}

// methodName is the method of route method number id.
func (m *mux) methodName(id uint8) string {
	switch {
	case int(id) < len(methodNames):
		return methodNames[id]
	case int(id) == anyMethodID:
		return anyMethod
	}
	return m.customNames[int(id)-firstCustom]
}

// notServing panics if the router has served a request: what call
// changes is read by every request without a lock, so it is set up
// before serving, as with net/http.Server's fields.
func (m *mux) notServing(call string) {
	if m.flat.Load() != nil {
		panic("vane: " + call + " on the root router after it started serving; set it up before the first request")
	}
}

// An Option configures a Router made by New.
type Option struct{ apply func(*mux) }

// RedirectTrailingSlash sets whether a request whose path matches no route,
// but would with a trailing slash added or removed, is redirected there.
// On by default.
func RedirectTrailingSlash(on bool) Option {
	return Option{func(m *mux) { m.redirectSlash = on }}
}

// RedirectCleanPath sets whether a request whose path contains //, /./ or
// /../ segments is redirected to the cleaned path before routing. On by
// default; when off, such paths are routed as they are, so a catch-all
// parameter may receive ".." segments.
func RedirectCleanPath(on bool) Option {
	return Option{func(m *mux) { m.redirectClean = on }}
}

// AutoOptions sets whether an OPTIONS request that matches no OPTIONS route
// is answered with 204 and an Allow header listing the path's methods. On by
// default.
func AutoOptions(on bool) Option {
	return Option{func(m *mux) { m.autoOptions = on }}
}

// StdPathValues sets whether the router also stores every parameter with
// http.Request.SetPathValue, so that req.PathValue works as it does under
// net/http.ServeMux. Off by default, because net/http keeps such values in a
// map it allocates per request: with it on, a request whose route has
// parameters costs the allocations net/http makes for it
// (BenchmarkStdPathValues measures them). Param works either way, without
// allocating.
func StdPathValues(on bool) Option {
	return Option{func(m *mux) { m.stdValues = on }}
}

// New returns an empty router.
func New(opts ...Option) *Router {
	m := &mux{reg: &trees{}, redirectSlash: true, redirectClean: true, autoOptions: true}
	for _, o := range opts {
		if o.apply != nil {
			o.apply(m)
		}
	}
	return &Router{mux: m, root: true}
}

// ServeHTTP dispatches req to the handler of the most specific matching
// route, through the middleware added with Use.
func (r *Router) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	r.mux.dispatch(w, req, false)
}

// Use appends middleware. On the root router (from New) middleware wraps the
// whole router, so it sees every request, those that match no route
// included, before routing. On a Group it wraps the routes registered
// through the group afterwards, after routing, so vane.Param already works
// in it; calling it on a group that already has routes panics. Either way
// the chain is composed once, never per request. Middleware runs in the
// order added (Use's and UseFunc's alike), outer routers' before inner
// ones'. On the root, Use panics once the router has served a request.
// A middleware that returns a nil handler panics when the chain is
// composed, naming its position.
func (r *Router) Use(mw ...func(http.Handler) http.Handler) {
	r.use("Use", stdLayers(mw))
}

// UseFunc appends middleware written over http.HandlerFunc, as Use does
// for the standard form. Such a layer calls next as a func: one call a
// layer, where the standard form makes two (the interface method
// HandlerFunc.ServeHTTP, then the func). Over deep chains the difference
// is most of what the chain costs (bench/idiom). The two forms mix freely
// in one chain; a handler that is not an http.HandlerFunc reaches a
// UseFunc layer as its ServeHTTP method.
//
//	r.UseFunc(func(next http.HandlerFunc) http.HandlerFunc {
//		return func(w http.ResponseWriter, req *http.Request) {
//			w.Header().Set("X-Frame-Options", "DENY")
//			next(w, req)
//		}
//	})
func (r *Router) UseFunc(mw ...func(http.HandlerFunc) http.HandlerFunc) {
	ls := make([]layer, len(mw))
	for i, m := range mw {
		ls[i] = layer{fn: m}
	}
	r.use("UseFunc", ls)
}

func (r *Router) use(call string, ls []layer) {
	for i, l := range ls {
		if l.std == nil && l.fn == nil {
			panic(fmt.Sprintf("vane: %s: middleware %d is nil", call, i))
		}
	}
	if r.isRoot() {
		m := r.mux
		m.notServing(call)
		m.rootMws = append(m.rootMws, ls...)
		if len(m.rootMws) > 0 { // without middleware, dispatch routes at once
			m.chained = asFunc(chain(m.rootMws, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
				m.dispatch(w, req, true)
			})))
		}
		return
	}
	if r.routes > 0 {
		panic(fmt.Sprintf("vane: %s on group %q after its routes were registered; add middleware first", call, r.prefix))
	}
	r.mws = append(r.mws, ls...)
}

func (r *Router) isRoot() bool { return r.root }

// NotFoundHandler sets the handler for requests that match no route. The
// default answers 404 with an application/problem+json body. It panics
// once the router has served a request.
func (r *Router) NotFoundHandler(h http.Handler) {
	r.mux.notServing("NotFoundHandler")
	r.mux.notFound = h
}

// MethodNotAllowedHandler sets the handler for requests whose path matches
// routes of other methods only; the Allow header is set before it runs.
// The default answers 405 with an application/problem+json body. It
// panics once the router has served a request.
func (r *Router) MethodNotAllowedHandler(h http.Handler) {
	r.mux.notServing("MethodNotAllowedHandler")
	r.mux.notAllow = h
}

// Handle registers h for requests with the given method (any token) and a
// path matching pattern, under the router's group prefix and middleware. It
// panics if the pattern is malformed or has the same shape as a route
// already registered for the method; the message names both patterns.
func (r *Router) Handle(method, pattern string, h http.Handler) {
	if method == "" || strings.ContainsAny(method, " \t/") {
		panic(fmt.Sprintf("vane: invalid method %q for pattern %q", method, pattern))
	}
	if h == nil {
		panic(fmt.Sprintf("vane: nil handler for %s %s", method, pattern))
	}
	r.register(method, r.fullPattern(pattern), h, nil)
}

// HandleFunc registers f like Handle.
func (r *Router) HandleFunc(method, pattern string, f http.HandlerFunc) {
	r.Handle(method, pattern, f)
}

// Get registers h for GET requests; a HEAD request falls back to it.
func (r *Router) Get(pattern string, h http.HandlerFunc) { r.Handle(http.MethodGet, pattern, h) }

// Head registers h for HEAD requests.
func (r *Router) Head(pattern string, h http.HandlerFunc) { r.Handle(http.MethodHead, pattern, h) }

// Post registers h for POST requests.
func (r *Router) Post(pattern string, h http.HandlerFunc) { r.Handle(http.MethodPost, pattern, h) }

// Put registers h for PUT requests.
func (r *Router) Put(pattern string, h http.HandlerFunc) { r.Handle(http.MethodPut, pattern, h) }

// Patch registers h for PATCH requests.
func (r *Router) Patch(pattern string, h http.HandlerFunc) { r.Handle(http.MethodPatch, pattern, h) }

// Delete registers h for DELETE requests.
func (r *Router) Delete(pattern string, h http.HandlerFunc) { r.Handle(http.MethodDelete, pattern, h) }

// Options registers h for OPTIONS requests.
func (r *Router) Options(pattern string, h http.HandlerFunc) {
	r.Handle(http.MethodOptions, pattern, h)
}

// Group returns a router that registers into the same tree, with prefix
// added to its patterns and mw added after the middleware of r.
func (r *Router) Group(prefix string, mw ...func(http.Handler) http.Handler) *Router {
	if prefix != "" {
		if _, _, err := parsePattern(prefix); err != nil {
			panic(err.Error())
		}
	}
	return &Router{
		mux:    r.mux,
		prefix: r.fullPattern(strings.TrimSuffix(prefix, "/")),
		mws:    append(slices.Clip(r.mws), stdLayers(mw)...),
	}
}

// Route calls fn with a Group of r under prefix.
func (r *Router) Route(prefix string, fn func(*Router)) { fn(r.Group(prefix)) }

// Mount hands every request, of any method, whose path is prefix or begins
// with prefix followed by '/' to h, with the prefix removed from the path
// (URL.Path and URL.RawPath) as http.StripPrefix does; a request for exactly
// prefix reaches h with path "/". Routes registered on r take precedence
// over the mount for the methods they have. Parameters in prefix are
// readable in h with Param. h gets a copy of the request whose Pattern is
// empty (a router inside sets its own).
func (r *Router) Mount(prefix string, h http.Handler) {
	full := r.fullPattern(strings.TrimSuffix(prefix, "/"))
	if full == "" {
		panic("vane: Mount needs a non-empty prefix; use the handler itself")
	}
	strip := len(full) // prefix length in the path, known only without parameters
	if strings.IndexByte(full, '{') >= 0 {
		strip = -1
	}
	segs := strings.Count(full, "/") // segments of the prefix, escaped or not
	sh := http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		n := strip
		if n < 0 { // the mount point has parameters: measure what they matched
			n = mountedLength(req)
		}
		// The handler gets a copy of req whose URL has the prefix removed,
		// whose Pattern is empty until a router inside sets its own, and
		// whose context remembers how this router routed it, for Param.
		c := &mountContext{Context: req.Context(), pattern: req.Pattern, url: *req.URL}
		r2 := req.WithContext(c)
		r2.Pattern = ""
		u := new(url.URL)
		*u = *req.URL
		u.Path = "/" + strings.TrimPrefix(req.URL.Path[n:], "/")
		if u.RawPath != "" {
			// An escaped '/' is no separator: skip the prefix's segments.
			u.RawPath = "/" + strings.TrimPrefix(afterSegments(req.URL.EscapedPath(), segs), "/")
		}
		r2.URL = u
		h.ServeHTTP(w, r2)
	})
	r.register(anyMethod, full, sh, h)
	r.register(anyMethod, full+"/{"+mountRest+"...}", sh, h)
}

// afterSegments returns what follows the first n segments of the path p.
func afterSegments(p string, n int) string {
	i := 0
	for ; n > 0; n-- {
		j := strings.IndexByte(p[i+1:], '/')
		if j < 0 {
			return ""
		}
		i += 1 + j
	}
	return p[i:]
}

// mountedLength returns how many bytes of req's path the mount prefix
// matched: everything but the rest parameter.
func mountedLength(req *http.Request) int {
	rest := Param(req, mountRest)
	n := len(req.URL.Path) - len(rest)
	if rest != "" {
		n-- // the '/' before the rest
	}
	return n
}

// mountRest names the rest parameter of Mount's routes.
const mountRest = "vanemount"

// RouteInfo describes a registered route.
type RouteInfo struct {
	Method  string // "*" for Mount
	Pattern string // the full pattern, group prefix included
	Handler string // the registered handler's function or type name
}

// Routes lists every registered route in registration order.
func (r *Router) Routes() []RouteInfo {
	m := r.mux
	info := func(rt *route, pattern string, inner http.Handler) RouteInfo {
		return RouteInfo{m.methodName(rt.method), pattern, handlerName(inner)}
	}
	if f := m.flat.Load(); f != nil {
		out := make([]RouteInfo, len(f.routes))
		for i := range f.routes {
			rt := &f.routes[i]
			inner, ok := f.inner[rt]
			if !ok {
				inner = rt.handler
			}
			out[i] = info(rt, rt.pattern, inner)
		}
		return out
	}
	out := make([]RouteInfo, len(m.reg.all))
	for i, reg := range m.reg.all {
		inner := reg.inner
		if inner == nil {
			inner = reg.handler
		}
		out[i] = info(&reg.route, reg.pattern, inner)
	}
	return out
}

func handlerName(h http.Handler) string {
	if f, ok := h.(http.HandlerFunc); ok {
		if fn := runtime.FuncForPC(reflect.ValueOf(f).Pointer()); fn != nil {
			return fn.Name()
		}
	}
	return fmt.Sprintf("%T", h)
}

// Prefix returns the router's group prefix: what Group added to the
// patterns registered through it, "" for the router New returned.
func (r *Router) Prefix() string { return r.prefix }

// fullPattern returns pattern with the router's group prefix.
func (r *Router) fullPattern(pattern string) string { return r.prefix + pattern }

// register adds a route serving h through the router's middleware; Routes
// reports it as inner, or as h when inner is nil.
func (r *Router) register(method, pattern string, h, inner http.Handler) {
	m := r.mux
	if m.flat.Load() != nil {
		panic(fmt.Sprintf("vane: %s %s registered after the router started serving", method, pattern))
	}
	parts, names, err := parsePattern(pattern)
	if err != nil {
		panic(err.Error())
	}
	id := methodIndex(method)
	switch {
	case method == anyMethod:
		id = anyMethodID
	case id < 0:
		id = slices.Index(m.customNames, method)
		if id < 0 {
			if len(m.customNames) >= 256-firstCustom {
				panic(fmt.Sprintf("vane: %s %s: too many custom methods", method, pattern))
			}
			id = len(m.customNames)
			m.customNames = append(m.customNames, method)
		}
		id += firstCustom
	}
	if _, fn := h.(http.HandlerFunc); inner == nil && (len(r.mws) > 0 || !fn) {
		inner = h
	}
	reg := &registration{inner: inner, mws: r.mws, route: route{
		pattern:  pattern,
		handler:  asFunc(chain(r.mws, h)),
		nparams:  uint16(len(names)),
		method:   uint8(id),
		catchAll: parts[len(parts)-1].kind == catchAllNode,
	}}
	if id <= anyMethodID && len(names) == 0 {
		// Only the static index answers it (buildStatic): a static route
		// matches one path, which no other pattern shares.
		key := staticKey{uint8(id), pattern}
		if _, dup := m.reg.static[key]; dup {
			panic(fmt.Sprintf("vane: %s %s is already registered", method, pattern))
		}
		if m.reg.static == nil {
			m.reg.static = map[staticKey]struct{}{}
		}
		m.reg.static[key] = struct{}{}
	} else if old := m.reg.tree(method, true).insert(parts, reg); old != nil {
		if old.pattern == pattern {
			panic(fmt.Sprintf("vane: %s %s is already registered", method, pattern))
		}
		panic(fmt.Sprintf("vane: %s %s conflicts with %s %s: both match the same paths", method, pattern, m.methodName(old.method), old.pattern))
	}
	m.maxParams = max(m.maxParams, len(names))
	m.reg.all = append(m.reg.all, reg)
	r.routes++
	m.prepared = nil // compiled without this route
}

// Prepare compiles the routes registered so far into the form requests
// are served from, which the first request would otherwise do, so that
// the first request costs what any other does, however many routes there
// are: call it once every route is registered (package vane's
// Router.Check does, and vane.Serve calls Check before it listens). The
// work is linear in the routes. Registering a route afterwards is still
// allowed, and discards what Prepare made; the first request then
// compiles again. Prepare is not safe to call concurrently with
// registration or serving.
func (r *Router) Prepare() {
	m := r.mux
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.flat.Load() == nil && m.prepared == nil {
		m.prepared = compile(m)
	}
}
