package peers

import (
	"net/http"

	"github.com/gorilla/mux"
	"github.com/vane-http/vane/bench/routes"
)

func muxPeer() Peer {
	return Peer{
		Name:     "gorilla-mux",
		Module:   "github.com/gorilla/mux",
		Router:   muxRouter,
		Groups:   muxGroups,
		JSONBind: muxJSONBind,
		JSONList: muxJSONList,
		Lacks: map[string]string{
			"greeting":   "skip: the hand-written greeting is shown for chi, gin and echo",
			"typedparam": "skip: the hand-written baseline is shown for vane and chi",
		},
	}
}

// muxPattern: {name} for a segment, {name:.*} for the rest.
func muxPattern(r routes.Route) string {
	return r.Convert(func(n string) string { return "{" + n + "}" }, func(n string) string { return "{" + n + ":.*}" })
}

func muxHandler(i int, r routes.Route, write, read bool) http.HandlerFunc {
	names := r.Params()
	if !read {
		names = nil
	}
	return func(w http.ResponseWriter, req *http.Request) {
		hit(i)
		if len(names) == 0 {
			return
		}
		vars := mux.Vars(req)
		for _, n := range names {
			seen(w, write, n, vars[n])
		}
	}
}

func muxRouter(s Spec) (http.Handler, error) {
	return build(func() (http.Handler, error) {
		r := mux.NewRouter()
		for i := 0; i < s.Middleware; i++ {
			r.Use(stdMiddleware)
		}
		for i, rt := range s.Routes {
			r.HandleFunc(muxPattern(rt), muxHandler(i, rt, s.Write, !s.NoRead)).Methods(rt.Method)
		}
		return r, nil
	})
}

func muxGroups() (http.Handler, error) {
	return build(func() (http.Handler, error) {
		r := mux.NewRouter()
		r.HandleFunc("/api/health", muxHandler(0, routes.Route{Method: "GET", Pattern: "/api/health"}, false, true)).Methods("GET")
		api := r.PathPrefix("/api").Subrouter()
		api.Use(stdMiddleware)
		v1 := api.PathPrefix("/v1").Subrouter()
		v1.Use(stdMiddleware)
		v1.HandleFunc("/users/{id}", muxHandler(0, routes.Route{Method: "GET", Pattern: "/users/:id"}, false, true)).Methods("GET")
		v1.HandleFunc("/posts/{id}", muxHandler(1, routes.Route{Method: "GET", Pattern: "/posts/:id"}, false, true)).Methods("GET")
		return r, nil
	})
}

func muxJSONBind() (http.Handler, error) {
	r := mux.NewRouter()
	r.HandleFunc("/users", StdJSONBind).Methods("POST")
	return r, nil
}

func muxJSONList() (http.Handler, error) {
	r := mux.NewRouter()
	r.HandleFunc("/items", StdJSONList).Methods("GET")
	return r, nil
}
