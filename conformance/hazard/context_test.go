package hazard

import (
	"context"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/vane-http/vane"
)

// Overlap cases over plain net/http handlers. Each handler checks, while it
// runs, that it sees its own user and parameters; the first request of a
// round leaves a reader behind, which must later read its own.

// rounds and later size every overlap case: rounds×(later+2) requests.
const (
	rounds = 60
	later  = 2
)

// testBackground: background work keeps context.WithoutCancel(req.Context())
// and reads the user that router-wide middleware put there, after later
// requests with other users were served and while another is in flight.
func testBackground(t *testing.T, e engine) {
	rg := newRig(t, e)
	r := vane.New()
	r.Use(withUser)
	r.HandleFunc(http.MethodGet, "/orders/{id}", func(w http.ResponseWriter, req *http.Request) {
		id := req.Header.Get(hdrID)
		rg.expect(id, "the user", userOf(req.Context()), userFor(id))
		rg.expect(id, "vane.Param(id)", vane.Param(req, "id"), id)
		bg := context.WithoutCancel(req.Context())
		rg.act(role(req.Header.Get(hdrRole)), id, func() string { return userOf(bg) })
		io.WriteString(w, id)
	})
	rg.start(r, false)
	rg.runOverlap(overlap{
		rounds: rounds, later: later,
		send: func(r role, id string) error { return rg.get("/orders/"+id, r, id, 200, id) },
		judge: func(id, got string) error {
			return own(userFor(id))(got)
		},
	})
}

// testParamAfterReturn: a goroutine reads vane.Param after its handler
// returned: its own value or "", never another request's. The handler's
// request is read as the handler got it, directly on the route and under
// group middleware that derives the request's context (as tracing and
// logging middleware do).
func testParamAfterReturn(t *testing.T, e engine) {
	for _, where := range []string{"direct", "derived"} {
		t.Run(where, func(t *testing.T) {
			rg := newRig(t, e)
			r := vane.New()
			r.Use(withUser)
			h := func(w http.ResponseWriter, req *http.Request) {
				id := req.Header.Get(hdrID)
				rg.expect(id, "vane.Param(id)", vane.Param(req, "id"), id)
				rg.expect(id, "vane.Param(kind)", vane.Param(req, "kind"), "k"+id)
				rg.act(role(req.Header.Get(hdrRole)), id, func() string { return paramAfter(req, "id", "kind") })
				io.WriteString(w, id)
			}
			if where == "direct" {
				r.HandleFunc(http.MethodGet, "/things/{kind}/{id}", h)
			} else {
				r.Group("/things", vane.Middleware(withTrace)).HandleFunc(http.MethodGet, "/{kind}/{id}", h)
			}
			rg.start(r, false)
			rg.runOverlap(overlap{
				rounds: rounds, later: later,
				send: func(r role, id string) error {
					return rg.get("/things/k"+id+"/"+id, r, id, 200, id)
				},
				judge: func(id, got string) error { return own("?"+id, "?k"+id)(got) },
			})
		})
	}
}

// testTimeoutHandler: http.TimeoutHandler as group middleware answers 503
// while the handler still runs; the handler then reads its parameter and
// its user, after later requests (of other routes of the same router) were
// served and while another is in flight.
func testTimeoutHandler(t *testing.T, e engine) {
	rg := newRig(t, e)
	r := vane.New()
	r.Use(withUser)
	slow := r.Group("/slow", vane.Middleware(func(h http.Handler) http.Handler {
		return http.TimeoutHandler(h, time.Millisecond, "")
	}))
	slow.HandleFunc(http.MethodGet, "/{id}", func(w http.ResponseWriter, req *http.Request) {
		id := req.Header.Get(hdrID)
		rg.expect(id, "vane.Param(id)", vane.Param(req, "id"), id)
		// Still running after the timeout answered: read when told.
		rg.readWhenTold(func() string { return userOf(req.Context()) + "|" + vane.Param(req, "id") })
	})
	r.HandleFunc(http.MethodGet, "/fast/{id}", func(w http.ResponseWriter, req *http.Request) {
		id := req.Header.Get(hdrID)
		rg.expect(id, "vane.Param(id)", vane.Param(req, "id"), id)
		if role(req.Header.Get(hdrRole)) == roleHeld {
			rg.hold(id)
		}
		io.WriteString(w, id)
	})
	rg.start(r, false)
	rg.runOverlap(overlap{
		rounds: rounds, later: later,
		send: func(r role, id string) error {
			if r == roleFirst {
				return rg.get("/slow/"+id, r, id, http.StatusServiceUnavailable, "")
			}
			return rg.get("/fast/"+id, r, id, 200, id)
		},
		judge: func(id, got string) error { return own(userFor(id), "?"+id)(got) },
	})
}

// testMount: an inner vane router mounted on an outer one under a prefix
// with a parameter. The handler reads both routers' parameters and the
// user; its reader reads them again, through a request that keeps
// context.WithoutCancel of the handler's context.
func testMount(t *testing.T, e engine) {
	rg := newRig(t, e)
	inner := vane.New()
	inner.HandleFunc(http.MethodGet, "/repos/{repo}", func(w http.ResponseWriter, req *http.Request) {
		id := req.Header.Get(hdrID)
		rg.expect(id, "the user", userOf(req.Context()), userFor(id))
		rg.expect(id, "vane.Param(org)", vane.Param(req, "org"), "o"+id)
		rg.expect(id, "vane.Param(repo)", vane.Param(req, "repo"), "p"+id)
		kept := req.WithContext(context.WithoutCancel(req.Context()))
		rg.act(role(req.Header.Get(hdrRole)), id, func() string {
			return userOf(kept.Context()) + "|" + paramAfter(kept, "org", "repo") + "|" + paramAfter(req, "org", "repo")
		})
		io.WriteString(w, id)
	})
	outer := vane.New()
	outer.Use(withUser)
	outer.Mount("/orgs/{org}", inner)
	rg.start(outer, false)
	rg.runOverlap(overlap{
		rounds: rounds, later: later,
		send: func(r role, id string) error {
			return rg.get("/orgs/o"+id+"/repos/p"+id, r, id, 200, id)
		},
		judge: func(id, got string) error {
			return own(userFor(id), "?o"+id, "?p"+id, "?o"+id, "?p"+id)(got)
		},
	})
}

// testHTTP2: the background case over HTTP/2 (TLS), every request of a
// round multiplexed on one connection.
func testHTTP2(t *testing.T, e engine) {
	rg := newRig(t, e)
	r := vane.New()
	r.Use(withUser)
	r.HandleFunc(http.MethodGet, "/streams/{id}", func(w http.ResponseWriter, req *http.Request) {
		id := req.Header.Get(hdrID)
		rg.expect(id, "the user", userOf(req.Context()), userFor(id))
		rg.expect(id, "vane.Param(id)", vane.Param(req, "id"), id)
		kept := req.WithContext(context.WithoutCancel(req.Context()))
		rg.act(role(req.Header.Get(hdrRole)), id, func() string { return userOf(kept.Context()) + "|" + vane.Param(kept, "id") })
		io.WriteString(w, id)
	})
	rg.start(r, true)
	rg.runOverlap(overlap{
		rounds: rounds, later: later,
		send:  func(r role, id string) error { return rg.get("/streams/"+id, r, id, 200, id) },
		judge: func(id, got string) error { return own(userFor(id), "?"+id)(got) },
	})
}

// testPanic: a handler leaves a reader behind and panics; middleware
// recovers, router-wide or in a group. Later requests must see their own
// user and parameters, and the reader its own.
func testPanic(t *testing.T, e engine) {
	handler := func(rg *rig) http.HandlerFunc {
		return func(w http.ResponseWriter, req *http.Request) {
			id := req.Header.Get(hdrID)
			rg.expect(id, "the user", userOf(req.Context()), userFor(id))
			rg.expect(id, "vane.Param(id)", vane.Param(req, "id"), id)
			bg := context.WithoutCancel(req.Context())
			kept := req.WithContext(bg)
			if rg.act(role(req.Header.Get(hdrRole)), id, func() string { return userOf(bg) + "|" + vane.Param(kept, "id") }) {
				panic("the handler of " + id + " fails")
			}
			io.WriteString(w, id)
		}
	}
	for _, where := range []string{"router", "group"} {
		t.Run("recovered_in_"+where, func(t *testing.T) {
			rg := newRig(t, e)
			r := vane.New()
			if where == "router" {
				r.Use(recoverer, withUser)
				r.HandleFunc(http.MethodGet, "/jobs/{id}", handler(rg))
			} else {
				r.Use(withUser)
				r.Group("", vane.Middleware(recoverer)).HandleFunc(http.MethodGet, "/jobs/{id}", handler(rg))
			}
			rg.start(r, false)
			rg.runOverlap(overlap{
				rounds: rounds, later: later,
				send: func(r role, id string) error {
					status, body := 200, id
					if r == roleFirst {
						status, body = 500, ""
					}
					return rg.get("/jobs/"+id, r, id, status, body)
				},
				judge: func(id, got string) error { return own(userFor(id), "?"+id)(got) },
			})
		})
	}
	t.Run("typed", func(t *testing.T) { testTypedPanic(t, e) })
}
