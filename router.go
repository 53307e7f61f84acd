// Package vane is a schema-first HTTP framework: a zero-allocation router
// for standard net/http handlers, typed operations bound and validated from
// plain Go types, and an OpenAPI 3.1 document generated from the same types.
package vane

import "net/http"

// Router is an http.Handler that dispatches requests to the handler
// registered for the request's method and path. (API skeleton: the
// implementation lands in the next commit.)
type Router struct{}

// New returns an empty router.
func New(opts ...Option) *Router { return &Router{} }

// Option configures a Router.
type Option func(*Router)

func (r *Router) ServeHTTP(w http.ResponseWriter, req *http.Request) { http.NotFound(w, req) }

// Use appends middleware to the router's chain.
func (r *Router) Use(mw ...func(http.Handler) http.Handler) {}

// Handle registers h for method and pattern.
func (r *Router) Handle(method, pattern string, h http.Handler) {}

// HandleFunc registers f for method and pattern.
func (r *Router) HandleFunc(method, pattern string, f http.HandlerFunc) {}

func (r *Router) Get(pattern string, h http.HandlerFunc)     {}
func (r *Router) Head(pattern string, h http.HandlerFunc)    {}
func (r *Router) Post(pattern string, h http.HandlerFunc)    {}
func (r *Router) Put(pattern string, h http.HandlerFunc)     {}
func (r *Router) Patch(pattern string, h http.HandlerFunc)   {}
func (r *Router) Delete(pattern string, h http.HandlerFunc)  {}
func (r *Router) Options(pattern string, h http.HandlerFunc) {}

// Group returns a router registering into the same tree under prefix.
func (r *Router) Group(prefix string, mw ...func(http.Handler) http.Handler) *Router { return r }

// Route calls fn with a group under prefix.
func (r *Router) Route(prefix string, fn func(*Router)) { fn(r.Group(prefix)) }

// Mount hands every request under prefix to h, with the prefix stripped.
func (r *Router) Mount(prefix string, h http.Handler) {}

// Param returns the value of the path parameter name.
func Param(req *http.Request, name string) string { return "" }
