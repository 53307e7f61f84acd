// Package peers builds the same workloads on vane and on every router or
// framework vane is compared with, each through its own public API, and
// checks that each build answers every request correctly before anything
// is timed.
//
// Every route handler does the same work in each framework's idiom: it
// reads every path parameter of its route through the framework's own
// accessor (vane.Param for vane) and, for ParamWrite, writes the value to
// the response. The route tables are also built with handlers that read
// none of their parameters (Spec.NoRead), to show what routing alone costs.
package peers

import (
	"fmt"
	"io"
	"net/http"
	"sync/atomic"

	"github.com/vane-http/vane/bench/routes"
)

// Spec is a set of routes to serve and what their handlers do.
type Spec struct {
	Routes     []routes.Route
	Middleware int  // pass-through middleware in front of every route
	Write      bool // handlers write each parameter's value to the response
	NoRead     bool // handlers read none of their parameters (only report that they ran)
}

// Peer is one router or framework.
type Peer struct {
	Name   string // column name in the report
	Module string // Go module whose version the report shows ("" for the standard library)

	// Router serves a Spec. Nil when the peer has no raw routing of its own.
	Router func(Spec) (http.Handler, error)
	// Middleware serves the middleware rows' Specs when the peer has a
	// builder for those rows alone; nil means Router serves them.
	Middleware func(Spec) (http.Handler, error)
	// Groups serves GET /api/v1/users/{id} inside a group /api with one
	// middleware and a nested group /v1 with another.
	Groups func() (http.Handler, error)
	// JSONBind serves POST /users: decode the small JSON user, answer its name.
	JSONBind func() (http.Handler, error)
	// JSONList serves GET /items: 100 items as JSON.
	JSONList func() (http.Handler, error)
	// Greeting serves Huma's greeting operation, POST /greeting/{id}?num=5.
	Greeting func() (http.Handler, error)
	// TypedParam serves GET /users/{id}: id is an integer >= 1, answered as JSON.
	TypedParam func() (http.Handler, error)

	// Lacks explains, by workload ("router", "groups", "jsonbind", ...), why
	// a nil builder above is nil. It is the footnote the report prints. A
	// reason starting "pending:" marks work not done yet; one starting
	// "skip:" keeps the peer out of that workload's table altogether.
	Lacks map[string]string
	// Notes are footnotes on cells that are measured, by case name or,
	// for every case of a workload, by workload.
	Notes map[string]string
}

// All returns every peer, vane first.
func All() []Peer {
	return []Peer{vanePeer(), vaneHandPeer(), vaneStdPeer(), httprouterPeer(), chiPeer(), ginPeer(), echoPeer(), muxPeer(), serveMuxPeer(), bunrouterPeer(), humaPeer()}
}

// ByName returns the peer called name.
func ByName(name string) (Peer, bool) {
	for _, p := range All() {
		if p.Name == name {
			return p, true
		}
	}
	return Peer{}, false
}

// ErrLacks is returned by a builder for a case the peer cannot express.
type ErrLacks struct{ Reason string }

func (e ErrLacks) Error() string { return "cannot express: " + e.Reason }

// build runs f and turns a panic at registration (how several routers
// report a conflict) into an error.
func build(f func() (http.Handler, error)) (h http.Handler, err error) {
	defer func() {
		if v := recover(); v != nil {
			h, err = nil, ErrLacks{fmt.Sprint("registration panics: ", v)}
		}
	}()
	return f()
}

// Recorder is what handlers report while a correctness check runs.
type Recorder struct {
	Route      int               // index of the route that ran; -1 if none
	Params     map[string]string // values read through the framework's accessor
	Middleware int               // middleware layers passed
}

// probe is non-nil only while Check runs (never concurrently with a
// benchmark); handlers test it with one load.
var probe *Recorder

var emptyParams atomic.Int64

// hit is called first by the handler of route i.
func hit(i int) {
	if p := probe; p != nil {
		p.Route = i
	}
}

// seen is called with every parameter a handler read.
func seen(w io.Writer, write bool, name, value string) {
	if p := probe; p != nil {
		p.Params[name] = value
	}
	if write {
		io.WriteString(w, value)
	} else if len(value) == 0 {
		emptyParams.Add(1)
	}
}

// passed is called by every middleware layer.
func passed() {
	if p := probe; p != nil {
		p.Middleware++
	}
}

// Writer is the response writer of the benchmarks: it keeps no body.
type Writer struct {
	H      http.Header
	Status int
}

// NewWriter returns a Writer with an empty header map.
func NewWriter() *Writer { return &Writer{H: http.Header{}} }

func (w *Writer) Header() http.Header         { return w.H }
func (w *Writer) Write(p []byte) (int, error) { return len(p), nil }
func (w *Writer) WriteString(s string) (int, error) {
	return len(s), nil
}
func (w *Writer) WriteHeader(code int) { w.Status = code }

// Reset clears the header map and status between requests.
func (w *Writer) Reset() {
	clear(w.H)
	w.Status = 0
}

// stdMiddleware is a pass-through middleware in the net/http idiom.
func stdMiddleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		passed()
		next.ServeHTTP(w, r)
	})
}

// funcMiddleware is a pass-through middleware over http.HandlerFunc
// (vane's UseFunc).
func funcMiddleware(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		passed()
		next(w, r)
	}
}

func stdChain(n int) []func(http.Handler) http.Handler {
	mw := make([]func(http.Handler) http.Handler, n)
	for i := range mw {
		mw[i] = stdMiddleware
	}
	return mw
}

// wrapStd puts n pass-through middleware in front of h, for routers that
// have no middleware API of their own.
func wrapStd(h http.Handler, n int) http.Handler {
	for i := 0; i < n; i++ {
		h = stdMiddleware(h)
	}
	return h
}

// knownWrong lists, by peer and case, defects of a peer itself that the
// correctness check found; such a peer is reported, not timed.
var knownWrong = map[[2]string]string{}

// KnownWrong returns why peer is known to answer case wrongly, or "".
func KnownWrong(peer, caseName string) string { return knownWrong[[2]string{peer, caseName}] }
