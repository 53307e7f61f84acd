package peers

import (
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/vane-http/vane"
	"github.com/vane-http/vane/bench/routes"
)

func vanePeer() Peer {
	return Peer{
		Name:   "vane",
		Module: "github.com/vane-http/vane",
		Router: vaneRouter,
		Groups: vaneGroups,
		// The data and typed workloads are vane's typed operations: typed_vane.go.
		JSONBind:   vaneJSONBind,
		JSONList:   vaneJSONList,
		Greeting:   vaneGreeting,
		TypedParam: vaneTypedParam,
		Notes: map[string]string{
			"Middleware5":  vaneMiddlewareNote,
			"Middleware10": vaneMiddlewareNote,
			"Middleware20": vaneMiddlewareNote,
			"NotFound":     "vane looks up the path under its method, checks that it is clean (else a redirect is due), and looks under the other methods (404 or 405) unless no route's first segment begins the path, as here (a 256-bit filter of first segments); it answers an RFC 9457 problem+json body with Content-Type and X-Content-Type-Options: nosniff; the other routers answer a line of text, echo a small JSON object.",
			"DeepNesting":  "vane refuses \".\" and \"..\" as parameter values (the request is redirected to the clean path, as ServeMux does), and Param derives each value from req.Pattern and the path when it is called, storing nothing per request.",
		},
	}
}

func vaneHandler(i int, r routes.Route, write, read bool) http.HandlerFunc {
	names := r.Params()
	if !read {
		names = nil
	}
	return func(w http.ResponseWriter, req *http.Request) {
		hit(i)
		for _, n := range names {
			seen(w, write, n, vane.Param(req, n))
		}
	}
}

// vaneMiddlewareNote is the footnote on vane's middleware cells.
const vaneMiddlewareNote = "vane's middleware over http.HandlerFunc (UseFunc), one call a layer as echo's and bunrouter's; the standard func(http.Handler) http.Handler form (Use) is the vane-std column."

func vaneRouter(s Spec) (http.Handler, error) {
	return build(func() (http.Handler, error) {
		r := vane.New()
		for range s.Middleware {
			r.UseFunc(funcMiddleware)
		}
		for i, rt := range s.Routes {
			r.Handle(rt.Method, rt.Braces(), vaneHandler(i, rt, s.Write, !s.NoRead))
		}
		return r, nil
	})
}

func vaneGroups() (http.Handler, error) {
	return build(func() (http.Handler, error) {
		r := vane.New()
		r.HandleFunc(http.MethodGet, "/api/health", vaneHandler(0, routes.Route{Method: "GET", Pattern: "/api/health"}, false, true))
		api := r.Group("/api", vane.Middleware(stdMiddleware))
		v1 := api.Group("/v1", vane.Middleware(stdMiddleware))
		v1.HandleFunc(http.MethodGet, "/users/{id}", vaneHandler(0, routes.Route{Method: "GET", Pattern: "/users/:id"}, false, true))
		v1.HandleFunc(http.MethodGet, "/posts/{id}", vaneHandler(1, routes.Route{Method: "GET", Pattern: "/posts/:id"}, false, true))
		return r, nil
	})
}

func vaneHandJSONBind() (http.Handler, error) {
	r := vane.New()
	r.HandleFunc(http.MethodPost, "/users", StdJSONBind)
	return r, nil
}

func vaneHandJSONList() (http.Handler, error) {
	r := vane.New()
	r.HandleFunc(http.MethodGet, "/items", StdJSONList)
	return r, nil
}

// handNosniff is the typed answers' X-Content-Type-Options, which the
// by-hand baselines store as vane does, without Set's allocation, so that
// sending the same header costs them no more than it costs vane.
var handNosniff = []string{"nosniff"}

// vaneByHandParam is TypedParam written by hand on vane's router: the
// baseline of the "schema overhead" row, answering with the typed
// answer's header fields (TestVaneHandAnswersAsTyped).
func vaneByHandParam() (http.Handler, error) {
	r := vane.New()
	r.HandleFunc(http.MethodGet, "/users/{id}", func(w http.ResponseWriter, req *http.Request) {
		id, err := strconv.ParseInt(vane.Param(req, "id"), 10, 64)
		if err != nil || id < 1 {
			http.Error(w, "id must be an integer >= 1", http.StatusUnprocessableEntity)
			return
		}
		h := w.Header()
		h.Set("Content-Type", "application/json")
		h["X-Content-Type-Options"] = handNosniff // as the typed answer: the same work
		json.NewEncoder(w).Encode(IDReply{ID: id})
	})
	return r, nil
}

// vaneStdPeer is vane with the middleware rows' chains in the standard
// form, func(http.Handler) http.Handler (Use), as chi's and httprouter's.
func vaneStdPeer() Peer {
	const why = "skip: vane-std is vane's standard middleware form, shown in the middleware rows only"
	return Peer{
		Name:   "vane-std",
		Module: "github.com/vane-http/vane",
		Middleware: func(s Spec) (http.Handler, error) {
			return build(func() (http.Handler, error) {
				r := vane.New()
				r.Use(stdChain(s.Middleware)...)
				for i, rt := range s.Routes {
					r.Handle(rt.Method, rt.Braces(), vaneHandler(i, rt, s.Write, !s.NoRead))
				}
				return r, nil
			})
		},
		Lacks: map[string]string{"router": why, "groups": why, "jsonbind": why, "jsonlist": why, "greeting": why, "typedparam": why},
	}
}

// vaneHandPeer is vane's router with the data and typed cases written by
// hand: the baseline that vane's typed operations are held to (at most 1.3x).
func vaneHandPeer() Peer {
	const why = "skip: vane-hand is the hand-written baseline of the data and typed rows only"
	return Peer{
		Name:       "vane-hand",
		Module:     "github.com/vane-http/vane",
		JSONBind:   vaneHandJSONBind,
		JSONList:   vaneHandJSONList,
		Greeting:   vaneHandGreeting,
		TypedParam: vaneByHandParam,
		Lacks:      map[string]string{"router": why, "groups": why, "middleware": why},
	}
}

// vaneHandGreeting is Huma's greeting operation written by hand on vane's
// router, answering with the typed answer's header fields
// (TestVaneHandAnswersAsTyped).
func vaneHandGreeting() (http.Handler, error) {
	r := vane.New()
	r.HandleFunc(http.MethodPost, "/greeting/{id}", func(w http.ResponseWriter, req *http.Request) {
		id := vane.Param(req, "id")
		ct := req.Header.Get("Content-Type")
		num, err := strconv.Atoi(req.URL.Query().Get("num"))
		if err != nil {
			http.Error(w, "num must be an integer", http.StatusUnprocessableEntity)
			return
		}
		var body GreetingBody
		if err := json.NewDecoder(req.Body).Decode(&body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if len(body.Suffix) > GreetingMaxSufx {
			http.Error(w, "suffix is longer than 5", http.StatusUnprocessableEntity)
			return
		}
		h := w.Header()
		h.Set("ETag", GreetingETag)
		h.Set("Last-Modified", LastModified.Format(http.TimeFormat))
		h.Set("Content-Type", "application/json")
		h["X-Content-Type-Options"] = handNosniff // as the typed answer: the same work
		json.NewEncoder(w).Encode(Greet(id, body.Suffix, ct, num))
	})
	return r, nil
}
