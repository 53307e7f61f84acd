package vane

import (
	"net/http"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/vane-http/vane/codec"
	"github.com/vane-http/vane/middleware"
	"github.com/vane-http/vane/operation"
	"github.com/vane-http/vane/problem"
	"github.com/vane-http/vane/respond"
	"github.com/vane-http/vane/router"
	"github.com/vane-http/vane/schema"
)

// Router is vane's router (package router: routing, middleware, groups,
// mounts, 404/405 and redirects) with typed operations on top: Register
// and its shorthands add operations to it, and Docs serves their OpenAPI
// document. Every method of router.Router is available on it; Group and
// Route return Routers that share the tree and its typed operations.
//
// A program that only routes can import package router instead and link
// nothing of the typed layer.
type Router struct {
	*router.Router
	api *api
	// problems are the answers of the middleware in front of this group's
	// operations (Problems, and what Use and Group learn from
	// middleware.Answers), documented on each operation registered after.
	problems []ProblemType
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
	// middleware is each typed operation's Op.Middleware, by method and
	// full pattern ("GET /pets/{id}"), for MergePatch.
	middleware map[string][]func(http.Handler) http.Handler
	// maxStreams is the most event streams served at once (MaxStreams);
	// streams counts those open.
	maxStreams    int64
	streams       atomic.Int64
	streamClients streamClients // MaxStreamsPerClient
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

// An Option configures a Router made by New: the router's own settings
// (RedirectTrailingSlash, RedirectCleanPath, AutoOptions, StdPathValues)
// and those of its typed operations (BodyLimit, Codec, UnknownProperties).
type Option struct {
	router router.Option
	api    func(*api)
}

// New returns an empty router.
func New(opts ...Option) *Router {
	a := &api{bodyLimit: defaultBodyLimit, codec: codec.JSON, maxStreams: DefaultMaxStreams}
	var ropts []router.Option
	for _, o := range opts {
		if o.api != nil {
			o.api(a)
		} else {
			ropts = append(ropts, o.router)
		}
	}
	r := &Router{Router: router.New(ropts...), api: a}
	if a.errorHook != nil {
		// The router's own 404 and 405 go through the hook too.
		r.Router.NotFoundHandler(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			r.WriteError(w, req, problem.New(http.StatusNotFound, "No route matches the request path."))
		}))
		r.Router.MethodNotAllowedHandler(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			r.WriteError(w, req, problem.New(http.StatusMethodNotAllowed,
				"The request path has no route for this method; the Allow header lists the methods it has."))
		}))
	}
	return r
}

// Check builds now what the router would otherwise build on a request:
// the routing tree (router.Router.Prepare) and the codec's encoder of
// each response body type, so that the first request costs what any other
// does, and the document of Docs, checked to be
// writable in every form, so that a registration that cannot be
// documented (two methods of one path naming its parameter differently,
// a hook that fails) is an error before serving rather than a 500 on
// every request for the document. The forms themselves are written on
// their first request. vane.Serve and Server call Check before they
// listen, and refuse to start on its error.
func (r *Router) Check() error {
	r.Router.Prepare() // the routing tree, so that the first request does not compile it
	r.api.prepareEncoders()
	for _, c := range r.api.checks {
		if err := c(); err != nil {
			return err
		}
	}
	return nil
}

// Group returns a router that registers into the same tree, with prefix
// added to its patterns and mw added after the middleware of r (see
// router.Router.Group).
func (r *Router) Group(prefix string, mw ...func(http.Handler) http.Handler) *Router {
	g := &Router{Router: r.Router.Group(prefix, mw...), api: r.api, problems: slices.Clip(r.problems)}
	g.declare(mw)
	return g
}

// Use adds middleware to r (see router.Router.Use). The answers that a
// middleware declares (middleware.Answers: Timeout's and Throttle's 503,
// say) are documented on every typed operation registered on r or its
// groups afterwards.
func (r *Router) Use(mw ...func(http.Handler) http.Handler) {
	r.Router.Use(mw...)
	r.declare(mw)
}

// Problems documents answers that middleware in front of r's operations
// sends of its own accord (an authentication check's 401, a rate limit's
// 429), on every typed operation registered on r or its groups
// afterwards, as Op.Problems does for one operation:
//
//	auth := r.Group("", requireToken)
//	auth.Problems(vane.ProblemType{Status: 401, Description: "No valid token.",
//		Headers: map[string]string{"WWW-Authenticate": "How to log in."}})
func (r *Router) Problems(types ...ProblemType) {
	r.problems = append(r.problems, types...)
}

// declare adds what mw declare of their own answers to r's problems.
func (r *Router) declare(mw []func(http.Handler) http.Handler) {
	for _, m := range mw {
		for _, a := range middleware.Answers(m) {
			r.problems = append(r.problems, ProblemType{Status: a.Status, Description: a.Description, Headers: a.Headers})
		}
	}
}

// Route calls fn with a Group of r under prefix.
func (r *Router) Route(prefix string, fn func(*Router)) { fn(r.Group(prefix)) }

// Operations lists the typed operations registered on the router's tree, in
// registration order.
func (r *Router) Operations() []*operation.Description { return slices.Clone(r.api.ops) }

// Schemas returns the registry of the named schemas that the typed
// operations of r's tree refer to: the OpenAPI document's components.
func (r *Router) Schemas() *schema.Registry { return r.api.registry() }

// Param returns the value of the path parameter name of the route that
// matched req, or "" (see router.Param). It does not allocate.
func Param(req *http.Request, name string) string { return router.Param(req, name) }

// RedirectTrailingSlash is router.RedirectTrailingSlash.
func RedirectTrailingSlash(on bool) Option { return Option{router: router.RedirectTrailingSlash(on)} }

// RedirectCleanPath is router.RedirectCleanPath.
func RedirectCleanPath(on bool) Option { return Option{router: router.RedirectCleanPath(on)} }

// AutoOptions is router.AutoOptions.
func AutoOptions(on bool) Option { return Option{router: router.AutoOptions(on)} }

// StdPathValues is router.StdPathValues.
func StdPathValues(on bool) Option { return Option{router: router.StdPathValues(on)} }

// RouteInfo describes a registered route (see router.Router.Routes).
type RouteInfo = router.RouteInfo
