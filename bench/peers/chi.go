package peers

import (
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/go-chi/chi/v5"
	"github.com/vane-http/vane/bench/routes"
)

func chiPeer() Peer {
	return Peer{
		Name:       "chi",
		Module:     "github.com/go-chi/chi/v5",
		Router:     chiRouter,
		Groups:     chiGroups,
		JSONBind:   chiJSONBind,
		JSONList:   chiJSONList,
		Greeting:   chiGreeting,
		TypedParam: chiTypedParam,
	}
}

// chiPattern: {name} for a segment, a trailing * for the rest (read as "*").
func chiPattern(r routes.Route) string {
	return r.Convert(func(n string) string { return "{" + n + "}" }, func(string) string { return "*" })
}

func chiHandler(i int, r routes.Route, write, read bool) http.HandlerFunc {
	var names, keys []string
	for _, s := range r.Segments() {
		if !read {
			break
		}
		switch s.Kind {
		case routes.Param:
			names, keys = append(names, s.Text), append(keys, s.Text)
		case routes.CatchAll:
			names, keys = append(names, s.Text), append(keys, "*")
		}
	}
	return func(w http.ResponseWriter, req *http.Request) {
		hit(i)
		for j, k := range keys {
			seen(w, write, names[j], chi.URLParam(req, k))
		}
	}
}

func chiRouter(s Spec) (http.Handler, error) {
	return build(func() (http.Handler, error) {
		r := chi.NewRouter()
		r.Use(stdChain(s.Middleware)...)
		for i, rt := range s.Routes {
			r.MethodFunc(rt.Method, chiPattern(rt), chiHandler(i, rt, s.Write, !s.NoRead))
		}
		return r, nil
	})
}

func chiGroups() (http.Handler, error) {
	return build(func() (http.Handler, error) {
		r := chi.NewRouter()
		r.Get("/api/health", chiHandler(0, routes.Route{Method: "GET", Pattern: "/api/health"}, false, true))
		r.Route("/api", func(r chi.Router) {
			r.Use(stdMiddleware)
			r.Route("/v1", func(r chi.Router) {
				r.Use(stdMiddleware)
				r.Get("/users/{id}", chiHandler(0, routes.Route{Method: "GET", Pattern: "/users/:id"}, false, true))
				r.Get("/posts/{id}", chiHandler(1, routes.Route{Method: "GET", Pattern: "/posts/:id"}, false, true))
			})
		})
		return r, nil
	})
}

func chiJSONBind() (http.Handler, error) {
	r := chi.NewRouter()
	r.Post("/users", StdJSONBind)
	return r, nil
}

func chiJSONList() (http.Handler, error) {
	r := chi.NewRouter()
	r.Get("/items", StdJSONList)
	return r, nil
}

// chiGreeting is Huma's greeting operation written by hand in chi: read
// the path, a header and a query parameter, decode and check the body,
// set two headers, answer JSON.
func chiGreeting() (http.Handler, error) {
	r := chi.NewRouter()
	r.Post("/greeting/{id}", func(w http.ResponseWriter, req *http.Request) {
		id := chi.URLParam(req, "id")
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
		json.NewEncoder(w).Encode(Greet(id, body.Suffix, ct, num))
	})
	return r, nil
}

func chiTypedParam() (http.Handler, error) {
	r := chi.NewRouter()
	r.Get("/users/{id}", func(w http.ResponseWriter, req *http.Request) {
		id, err := strconv.ParseInt(chi.URLParam(req, "id"), 10, 64)
		if err != nil || id < 1 {
			http.Error(w, "id must be an integer >= 1", http.StatusUnprocessableEntity)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(IDReply{ID: id})
	})
	return r, nil
}
