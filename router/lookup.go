package router

import (
	"net/http"
	"strings"
	"unsafe"
)

// A Match is the route Lookup found.
type Match struct {
	Route   int    // the route's index, in the order Routes lists them
	Pattern string // its full pattern, as ServeHTTP sets it on the request (req.Pattern), which Param reads
	Params  int    // how many parameter values Lookup wrote
}

// Lookup finds the route whose handler ServeHTTP would call, as it is, for
// a request with method and path, for a server of its own that serves
// some routes without net/http (vane's fast engine) and leaves the others
// to ServeHTTP. path is the request's path as sent, which must need no
// unescaping and be what net/http keeps as URL.Path with an empty
// RawPath: a path with a '%', or with a byte a URL path escapes, is the
// caller's to hand to ServeHTTP.
//
// It reports false whenever ServeHTTP would do anything else: answer the
// request itself (404, 405, OPTIONS), redirect it (a trailing slash, a
// path to clean), or hand it to a Mount's handler (with the prefix
// stripped). On true, vals[:Params] hold the route's parameter
// values, in pattern order, as substrings of path; vals must have room
// for as many as the router's routes have (MaxParams). Lookup runs no
// middleware (see Layers) and allocates nothing.
//
// unsafe: the route's index is its distance from the first route, not a
// field that would grow route from 32 to 40 bytes on every match
// (BenchmarkGitHubAll).
func (r *Router) Lookup(method, path string, vals []string) (Match, bool) {
	m := r.mux
	if path == "" || path[0] != '/' || strings.IndexByte(path, '%') >= 0 {
		return Match{}, false
	}
	f := m.compiled()
	var buf [stackParams]span
	spans := buf[:]
	if m.maxParams > stackParams {
		s := m.getScratch()
		defer scratchPool.Put(s)
		spans = s.spans
	}
	rt := f.lookup(method, path, spans)
	switch {
	case rt == nil, int(rt.method) == anyMethodID: // Mount's routes strip their prefix: ServeHTTP's
		return Match{}, false
	case rt.nparams == 0:
	case m.redirectClean && !cleanValues(rt, path, spans):
		return Match{}, false
	case rt.slashProbe && m.subtreeRoot(method, path, rt, spans):
		return Match{}, false
	}
	n := int(rt.nparams)
	for i := range n {
		vals[i] = path[spans[i].start:spans[i].end]
	}
	i := int((uintptr(unsafe.Pointer(rt)) - uintptr(unsafe.Pointer(&f.routes[0]))) / unsafe.Sizeof(route{}))
	return Match{Route: i, Pattern: rt.pattern, Params: n}, true
}

// MaxParams is the most parameters a route of the router has: the room
// Lookup needs for their values.
func (r *Router) MaxParams() int { return r.mux.maxParams }

// A Layer is one middleware of a route's chain, as it was given to Use
// (Std) or UseFunc (Func): exactly one of the two is set.
type Layer struct {
	Std  func(http.Handler) http.Handler
	Func func(http.HandlerFunc) http.HandlerFunc
}

// Layers returns the middleware that route i (its index in Routes' order)
// is served through, outermost first: the root router's (Use, UseFunc),
// which run before routing, then those of the group it was registered
// on; and the handler as it was registered. A server that serves the
// route without ServeHTTP runs these, in this order, around it.
func (r *Router) Layers(i int) ([]Layer, http.Handler) {
	m := r.mux
	f := m.compiled()
	rt := &f.routes[i]
	var out []Layer
	for _, l := range m.rootMws {
		out = append(out, Layer{Std: l.std, Func: l.fn})
	}
	for _, l := range f.mws[rt] {
		out = append(out, Layer{Std: l.std, Func: l.fn})
	}
	h, ok := f.inner[rt]
	if !ok {
		h = rt.handler
	}
	return out, h
}
