// Package engine is what vane's packages share with a server other than
// net/http's that serves vane's routes itself (the fast engine, module
// github.com/vane-http/vane/fast): the request as such a server hands it
// over (Request), the engine forms of middleware (Describe, Native), and
// the hooks by which the root package serves a typed operation from a
// Request (Hooks). It is internal: none of it is vane's public API, and a
// fast release is built against the vane release of the same version.
//
// The contract a Request carries is net/http's: every string in it
// outlives the request (the server copies what it reads from buffers it
// reuses), its context stays valid after the handler returns, and what
// it does not keep valid (Header, Params) is scratch that no handler
// sees, which middleware that hands the request to a goroutine of its own
// detaches first (Detach).
package engine

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/url"
	"sync"
	"unsafe"

	"github.com/vane-http/vane/router"
)

// Request is a request as a server other than net/http's hands it to
// vane's native handlers, without an *http.Request.
type Request struct {
	Method     string
	Path       string // as sent; routed as it is (no escapes)
	RawQuery   string // without '?', still escaped
	RequestURI string // the request target as sent
	Proto      string // "HTTP/1.1"
	Host       string
	RemoteAddr string // the connection's peer, host:port

	// Header holds every header line but Host, by canonical name, as
	// net/http's Request.Header does. Its values outlive the request; the
	// map itself is the server's scratch, valid until the handler
	// returns, and only read.
	Header http.Header

	ContentLength int64         // -1: unknown
	Body          io.ReadCloser // never nil (http.NoBody); reads fail once the request is done

	Pattern string   // the matched route's pattern, as the router has it (router.Param reads it)
	Params  []string // the route's parameter values, in pattern order; scratch, as Header

	// Ctx is the request's context: new for each request, cancelled when
	// the handler returns, never reused. Middleware that derives one sets
	// it for what it calls and puts the old one back after.
	Ctx context.Context
}

// HTTP returns a new *http.Request of r, for what needs one on the native
// path (an input field of that type, a Resolver, an ErrorHook): every
// field a copy of r's, the header cloned, the same body and context, and
// Pattern set, so that router.Param reads the parameters from it.
func (r *Request) HTTP() *http.Request {
	major, minor := 1, 1
	if r.Proto == "HTTP/1.0" {
		minor = 0
	}
	hr := &http.Request{
		Method: r.Method, URL: &url.URL{Path: r.Path, RawQuery: r.RawQuery},
		Proto: r.Proto, ProtoMajor: major, ProtoMinor: minor,
		Header: r.Header.Clone(), Body: r.Body, ContentLength: r.ContentLength,
		Host: r.Host, RemoteAddr: r.RemoteAddr, RequestURI: r.RequestURI, Pattern: r.Pattern,
	}
	if hr.Header == nil {
		hr.Header = http.Header{}
	}
	return hr.WithContext(r.Ctx)
}

// Detach returns a copy of r that stays valid after the request is done,
// for a goroutine that may outlive it (middleware.Timeout's): its Header
// and Params are copies.
func (r *Request) Detach() *Request {
	d := *r
	d.Header = r.Header.Clone()
	d.Params = append([]string(nil), r.Params...)
	return &d
}

// Handler serves a Request natively. w is the server's ResponseWriter,
// valid until the handler returns.
type Handler func(w http.ResponseWriter, r *Request)

// Middleware is the engine form of a func(http.Handler) http.Handler: it
// does what that middleware does, for native handlers.
type Middleware func(next Handler) Handler

// natives maps a middleware value, by the address of its func value, to
// its engine form. The entry keeps the func alive, so that the address
// is never another's.
var natives sync.Map // uintptr -> native

type native struct {
	keep func(http.Handler) http.Handler
	mw   Middleware
}

// funcAddr is the address of the func value f: its closure, one per value
// a constructor returns, or the static value of a plain func.
//
// unsafe: a func value's closure address is its only identity (reflect
// gives the code pointer, shared by every closure of one constructor); no
// benchmark keeps it, correctness does.
func funcAddr(f func(http.Handler) http.Handler) uintptr {
	return uintptr(*(*unsafe.Pointer)(unsafe.Pointer(&f)))
}

// Describe records that the middleware mw has the engine form native. A
// constructor calls it for each value it returns (each closure is
// recorded, not the constructor's code, since values of one constructor
// differ in configuration); a constructor called once per service keeps
// one entry.
func Describe(mw func(http.Handler) http.Handler, form Middleware) {
	natives.Store(funcAddr(mw), native{keep: mw, mw: form})
}

// Native returns the engine form Describe recorded for mw.
func Native(mw func(http.Handler) http.Handler) (Middleware, bool) {
	if mw == nil {
		return nil, false
	}
	v, ok := natives.Load(funcAddr(mw))
	if !ok {
		return nil, false
	}
	return v.(native).mw, true
}

// Hooks are what the root package provides to an engine, set by its init.
var Hooks struct {
	// Operation returns the native form of the handler h registered for
	// method and pattern on router (a *vane.Router), and the middleware
	// given to that operation (vane.Middleware) it runs inside, innermost
	// last; or why it has none.
	Operation func(router http.Handler, method, pattern string, h http.Handler) (Handler, []func(http.Handler) http.Handler, string)

	// Mux returns the tree of routes of r (a *vane.Router), whose Lookup
	// and Layers an engine reads.
	Mux func(r http.Handler) *router.Router

	// BaseContext returns ctx with what vane's handlers read from a
	// server's base context: stop, closed when the server begins to shut
	// down (event streams end then).
	BaseContext func(ctx context.Context, stop <-chan struct{}) context.Context

	// WriteError answers with p through the ErrorHook of router (a
	// *vane.Router) when it has one, building its *http.Request with
	// req; without a hook or a router, problem.Write.
	WriteError func(router http.Handler, w http.ResponseWriter, req func() *http.Request, p error)

	// Run serves e on ln for server (a *vane.Server) as its Serve does
	// with net/http's server: the same signals, drain state, drain delay
	// and graceful shutdown.
	Run func(server any, ctx context.Context, ln net.Listener, e Server) error
}

// Server is a server an engine runs under Hooks.Run.
type Server interface {
	Serve(ln net.Listener) error        // until Shutdown or Close; nil or http.ErrServerClosed after them
	Shutdown(ctx context.Context) error // graceful: stop accepting, finish what is in flight
	Close() error                       // at once
}
