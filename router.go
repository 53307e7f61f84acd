package vane

import (
	"math"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/vane-http/vane/codec"
	"github.com/vane-http/vane/operation"
	"github.com/vane-http/vane/problem"
	"github.com/vane-http/vane/respond"
	"github.com/vane-http/vane/router"
	"github.com/vane-http/vane/schema"
)

// Router is vane's router (package router: routing, middleware, groups,
// mounts, 404/405 and redirects) with typed operations on top: Register
// and its shorthands (Get, Post, Put, Patch, Delete), Stream and
// MergePatch add typed operations to it, and Docs serves their OpenAPI
// document. Handle and HandleFunc register plain net/http handlers,
// which vane neither binds nor documents. Group and Route return Routers
// that share the tree and its typed operations.
//
// A program that only routes can import package router instead and link
// nothing of the typed layer.
type Router struct {
	mux *router.Router
	api *api
	// problems are the answers that the middleware in front of this
	// group's operations declares (Use, Middleware: middleware.Answers),
	// documented on each operation registered after.
	problems []ProblemType
	// defaults are the operation options of New and of each Group this
	// router was made through, outermost first: one list a level (see
	// spec).
	defaults [][]Option
}

// api is what the typed operations of one router tree share.
type api struct {
	ops []*operation.Description // in registration order
	// byID indexes ops[:indexed] by operationId (opByID).
	byID    map[string]*operation.Description
	indexed int
	// schemas is made by registry, on first use: a router without typed
	// operations keeps none.
	schemas     *schema.Registry
	schemasOnce sync.Once
	bodyLimit   int64
	codec       codec.Codec
	unknown     UnknownPolicy
	encoders    []respond.Encoder // response encodings beside JSON (Encode)
	errorHook   func(*http.Request, *problem.Details) *problem.Details
	// middleware is each typed operation's own (Middleware given to it), by method and
	// full pattern ("GET /pets/{id}"), for MergePatch.
	middleware map[string][]func(http.Handler) http.Handler
	// typed is each operation that its own Middleware wraps, unwrapped,
	// by method and full pattern, for an engine (engine.go).
	typed map[string]http.Handler
	// maxStreams is the most event streams served at once (MaxStreams);
	// streams counts those open.
	maxStreams    int64
	streams       atomic.Int64
	streamClients streamClients // MaxStreamsPerClient
	// shapes holds, by the shape of each documented path (and by shape
	// and method), the operation that first had it (documentable).
	shapes map[string]shapeOrigin
	// checks build what a request would otherwise build first (the
	// documents of Docs), for Check.
	checks []func() error
}

// registry returns the registry of the tree's named schemas, made on first
// use with the router's unknown-member policy.
func (a *api) registry() *schema.Registry {
	a.schemasOnce.Do(func() {
		a.schemas = schema.NewRegistry("#/components/schemas/")
		a.schemas.SetClosed(a.unknown == RefuseUnknown)
	})
	return a.schemas
}

// New returns an empty router configured by opts (see Option): the
// router's own settings, and defaults for every operation registered on
// it or its groups.
func New(opts ...Option) *Router {
	a := &api{bodyLimit: defaultBodyLimit, codec: codec.JSON}
	var ropts []router.Option
	var defaults []Option
	var mw []func(http.Handler) http.Handler
	each(opts, inNew, "vane.New", func(o Option) {
		switch {
		case o.api != nil:
			o.api(a) // a router-wide setting, the default of every operation
		case o.op != nil:
			defaults = append(defaults, o)
		case o.mw != nil:
			mw = append(mw, o.mw...)
		default:
			ropts = append(ropts, o.router)
		}
	})
	switch {
	case a.maxStreams == 0:
		a.maxStreams = DefaultMaxStreams
	case a.maxStreams < 0:
		a.maxStreams = math.MaxInt64
	}
	r := &Router{mux: router.New(ropts...), api: a}
	if defaults != nil {
		r.defaults = [][]Option{defaults}
	}
	if a.errorHook != nil {
		// The router's own 404 and 405 go through the hook too.
		r.mux.NotFoundHandler(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			r.WriteError(w, req, problem.New(http.StatusNotFound, "No route matches the request path."))
		}))
		r.mux.MethodNotAllowedHandler(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			r.WriteError(w, req, problem.New(http.StatusMethodNotAllowed,
				"The request path has no route for this method; the Allow header lists the methods it has."))
		}))
	}
	if mw != nil {
		r.Use(mw...)
	}
	return r
}

// Check builds now what the router would otherwise build on a request:
// the routing tree (router.Router.Prepare) and the codec's encoder of
// each response body type, so that the first request costs what any other
// does, and the document of Docs, checked to be writable in every form,
// so that a document that cannot be built (a security scheme the
// configuration does not define, an Edit hook that fails) is an error
// before serving rather than a 500 on every request for the document.
// The forms themselves are written on their first request. vane.Serve
// and Server call Check before they listen, and refuse to start on its
// error.
func (r *Router) Check() error {
	r.mux.Prepare() // the routing tree, so that the first request does not compile it
	r.api.prepareEncoders()
	for _, c := range r.api.checks {
		if err := c(); err != nil {
			return err
		}
	}
	return nil
}

// Group returns a router that registers into the same tree, with prefix
// added to its patterns. opts are defaults for every operation registered
// through it (see Option), after r's; Middleware among them is the
// group's middleware, after r's (see router.Router.Group).
func (r *Router) Group(prefix string, opts ...Option) *Router {
	var defaults []Option
	var mw []func(http.Handler) http.Handler
	each(opts, inGroup, "Group "+strconv.Quote(prefix), func(o Option) {
		if o.op != nil {
			defaults = append(defaults, o)
		}
		mw = append(mw, o.mw...)
	})
	g := &Router{mux: r.mux.Group(prefix, mw...), api: r.api, problems: slices.Clip(r.problems), defaults: slices.Clip(r.defaults)}
	if defaults != nil {
		g.defaults = append(g.defaults, defaults)
	}
	g.problems = append(g.problems, declared(mw)...)
	return g
}

// Use adds middleware to r (see router.Router.Use): on the router New
// returned it wraps the whole router, before routing; on a group, the
// routes registered through it afterwards. The answers that a middleware
// declares (middleware.Answers: Timeout's and Throttle's 503, say) are
// documented on every typed operation registered on r or its groups
// afterwards. The Middleware option does the same where a router or
// group is made.
func (r *Router) Use(mw ...func(http.Handler) http.Handler) {
	r.mux.Use(mw...)
	r.problems = append(r.problems, declared(mw)...)
}

// UseFunc adds middleware written over http.HandlerFunc (see
// router.Router.UseFunc). Its answers are not documented: give Problems
// for them.
func (r *Router) UseFunc(mw ...func(http.HandlerFunc) http.HandlerFunc) { r.mux.UseFunc(mw...) }

// ServeHTTP serves req (see router.Router.ServeHTTP).
func (r *Router) ServeHTTP(w http.ResponseWriter, req *http.Request) { r.mux.ServeHTTP(w, req) }

// Handle registers a plain handler for requests of method (any token) and
// a path matching pattern, under r's group prefix and middleware (see
// router.Router.Handle). vane neither binds its requests nor documents
// it; Register and its shorthands add typed operations.
func (r *Router) Handle(method, pattern string, h http.Handler) { r.mux.Handle(method, pattern, h) }

// HandleFunc registers f like Handle.
func (r *Router) HandleFunc(method, pattern string, f http.HandlerFunc) {
	r.mux.HandleFunc(method, pattern, f)
}

// Mount hands every request under prefix to h, with the prefix removed
// from its path (see router.Router.Mount).
func (r *Router) Mount(prefix string, h http.Handler) { r.mux.Mount(prefix, h) }

// NotFoundHandler sets the handler for requests that match no route (see
// router.Router.NotFoundHandler).
func (r *Router) NotFoundHandler(h http.Handler) { r.mux.NotFoundHandler(h) }

// MethodNotAllowedHandler sets the handler for requests whose path
// matches routes of other methods only (see
// router.Router.MethodNotAllowedHandler).
func (r *Router) MethodNotAllowedHandler(h http.Handler) { r.mux.MethodNotAllowedHandler(h) }

// Routes lists every registered route, typed or not, in registration
// order (see router.Router.Routes).
func (r *Router) Routes() []RouteInfo { return r.mux.Routes() }

// Prefix returns r's group prefix: what Group added to the patterns
// registered through it, "" for the router New returned.
func (r *Router) Prefix() string { return r.mux.Prefix() }

// Route calls fn with a Group of r under prefix.
func (r *Router) Route(prefix string, fn func(*Router)) { fn(r.Group(prefix)) }

// Operations lists the typed operations registered on the router's tree, in
// registration order.
func (r *Router) Operations() []*operation.Description { return slices.Clone(r.api.ops) }

// Schemas returns the registry of the named schemas that the typed
// operations of r's tree refer to: the OpenAPI document's components.
func (r *Router) Schemas() *schema.Registry { return r.api.registry() }

// Param returns the value of the path parameter name of the route that
// matched req, or "" (see router.Param). It does not allocate, except
// for a path sent with escapes that change its meaning (such as %2F),
// whose value is unescaped into a new string.
func Param(req *http.Request, name string) string { return router.Param(req, name) }

// RouteInfo describes a registered route (see router.Router.Routes).
type RouteInfo = router.RouteInfo
