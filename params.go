package vane

import (
	"context"
	"net/http"
	"reflect"
	"time"
	"unsafe"
)

// How path parameters reach a handler without an allocation.
//
// The usual way, req.WithContext(context.WithValue(...)), allocates a copy of
// the request and a context for every request. vane instead keeps a pool of
// routeContext values, each a context.Context that wraps the request's own
// context and carries the matched route and its parameter values. While the
// handler runs, the request's context field points at the routeContext; when
// the handler returns, the field is restored and the routeContext goes back
// to the pool. Middleware that derives a new context keeps working: the
// routeContext is an ancestor of whatever it derives, found by Value.
//
// The rule that follows (documented on Param and Retain): the parameters,
// and the request's context, are the router's only until the handler
// returns. A goroutine that keeps using the request or its context after
// that must be covered by Retain. Breaking the rule is a data race, which the
// race detector reports (TestRetainRule shows it), and between the handler's
// return and the context's reuse the context reports itself cancelled with
// ErrContextReleased.

// ErrContextReleased is the error of a request context used after its
// handler returned without Retain.
var ErrContextReleased = errReleased{}

type errReleased struct{}

func (errReleased) Error() string {
	return "vane: request context used after its handler returned (see vane.Retain)"
}

// routeContext is the context of a routed request that has parameters.
type routeContext struct {
	context.Context          // the request's own context
	route           *route   // the matched route
	names           []string // its parameter names (route.names, kept here for Param)
	values          []string // parameter values, in the order of names
	spans           []span   // where a lookup in pooled space records the values (dispatchPooled, the trailing-slash probe)
	retained        bool     // set by Retain: never reused
	scratch         []byte   // for building a path to probe (trailing-slash redirects)
}

type routeContextKey struct{}

// ensure makes room in c for the values of routes of up to n parameters.
func (c *routeContext) ensure(n int) {
	if len(c.values) < n {
		c.values = make([]string, n)
	}
	if len(c.spans) < n {
		c.spans = make([]span, n)
	}
}

// Value returns the routeContext itself for routeContextKey; other keys go to
// the request's own context.
func (c *routeContext) Value(key any) any {
	if _, ok := key.(routeContextKey); ok {
		return c
	}
	return c.Context.Value(key)
}

func (c *routeContext) String() string { return "vane.routeContext(" + c.route.pattern + ")" }

// paramIn returns the value of the parameter name in the routeContext ctx
// is or derives from, looking into the routing of an enclosing router
// (Mount) when the innermost one has no such parameter, or "". The common
// case, ctx being the routeContext and having the name, makes no call.
// Names are short: it compares one of up to 8 bytes with two overlapping
// loads of 4, 2 or 1 bytes inside each string, longer ones a word at a
// time, never calling memequal.
func paramIn(ctx context.Context, name string) string {
	if c, ok := ctx.(*routeContext); ok {
		l := len(name)
		pb := unsafe.Pointer(unsafe.StringData(name))
		for i, n := range c.names {
			if len(n) != l {
				continue
			}
			pa := unsafe.Pointer(unsafe.StringData(n))
			var eq bool
			switch {
			case l > 8:
				eq = equalBytes(pa, pb, l)
			case l >= 4:
				eq = load32(pa) == load32(pb) && load32(unsafe.Add(pa, l-4)) == load32(unsafe.Add(pb, l-4))
			case l >= 2:
				eq = load16(pa) == load16(pb) && load16(unsafe.Add(pa, l-2)) == load16(unsafe.Add(pb, l-2))
			default:
				eq = l == 0 || *(*byte)(pa) == *(*byte)(pb)
			}
			if eq {
				return c.values[i]
			}
		}
	}
	return paramOuter(ctx, name)
}

// paramOuter is paramIn for a context that middleware derived from the
// routeContext, or a name that only an enclosing router's routing has.
func paramOuter(ctx context.Context, name string) string {
	c, ok := ctx.(*routeContext)
	if ok {
		c, ok = c.Context.Value(routeContextKey{}).(*routeContext) // the inner one lacks name
	} else {
		c, ok = ctx.Value(routeContextKey{}).(*routeContext)
	}
	for ok {
		if i := c.index(name); i >= 0 {
			return c.values[i]
		}
		c, ok = c.Context.Value(routeContextKey{}).(*routeContext)
	}
	return ""
}

// index returns the position of the parameter name in c's route, or -1.
func (c *routeContext) index(name string) int {
	for i, n := range c.names {
		if n == name {
			return i
		}
	}
	return -1
}

// releasedContext is what a routeContext wraps between its handler's return
// and its reuse: cancelled, with no values.
type releasedContext struct{}

func (releasedContext) Deadline() (time.Time, bool) { return time.Time{}, false }
func (releasedContext) Done() <-chan struct{}       { return closedChan }
func (releasedContext) Err() error                  { return ErrContextReleased }
func (releasedContext) Value(any) any               { return nil }

var closedChan = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// routeContextOf returns the routeContext of req, or nil.
func routeContextOf(req *http.Request) *routeContext {
	ctx := req.Context()
	if c, ok := ctx.(*routeContext); ok {
		return c
	}
	c, _ := ctx.Value(routeContextKey{}).(*routeContext)
	return c
}

// Param returns the value of the path parameter name of the route that
// matched req, unescaped, or "" when there is no such parameter. It does not
// allocate; for a route with n parameters it compares name with at most n
// names.
//
// The value may be kept (strings are immutable), but req's parameters are
// readable only until the handler returns: call Retain before handing req or
// its context to a goroutine that outlives the handler.
func Param(req *http.Request, name string) string { return paramIn(req.Context(), name) }

// Retain keeps the routing context of req (its parameters, and the context
// returned by req.Context()) valid after the handler returns, for a goroutine
// that outlives the handler. Call it before the handler returns, from the
// handler's goroutine. It costs the pooling of one context: the router
// allocates a new one for a later request.
//
// Without Retain, the router reuses that memory for another request once the
// handler returns; a goroutine still reading it races with that reuse, which
// the race detector reports.
func Retain(req *http.Request) {
	if c := routeContextOf(req); c != nil {
		c.retained = true
	}
}

// pathValues returns the parameter values of the route that matched req, in
// the order their names appear in its pattern (see patternParams), or nil.
// Typed operations read parameters by index through it.
func pathValues(req *http.Request) []string {
	if c := routeContextOf(req); c != nil {
		return c.values[:len(c.names)]
	}
	return nil
}

// patternParams returns the parameter names of pattern in order.
func patternParams(pattern string) ([]string, error) {
	_, names, err := parsePattern(pattern)
	return names, err
}

// The request's context lives in an unexported field; ctxOffset is its
// offset, found once by name and type. If a future Go renames the field,
// swapContext falls back to req.WithContext, which allocates but is correct.
var ctxOffset, ctxSwappable = func() (uintptr, bool) {
	f, ok := reflect.TypeFor[http.Request]().FieldByName("ctx")
	if !ok || f.Type != reflect.TypeFor[context.Context]() {
		return 0, false
	}
	return f.Offset, true
}()

func ctxField(req *http.Request) *context.Context {
	return (*context.Context)(unsafe.Add(unsafe.Pointer(req), ctxOffset))
}
