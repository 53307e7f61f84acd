package peers

import (
	"net/http"
	"strings"

	"github.com/vane-http/vane/bench/routes"
)

func serveMuxPeer() Peer {
	return Peer{
		Name:     "ServeMux",
		Router:   serveMuxRouter,
		JSONBind: serveMuxJSONBind,
		JSONList: serveMuxJSONList,
		Lacks: map[string]string{
			"groups":     "net/http.ServeMux has no route groups",
			"greeting":   "skip: the hand-written greeting is shown for chi, gin and echo",
			"typedparam": "skip: the hand-written baseline is shown for vane and chi",
		},
		Notes: map[string]string{"middleware": "net/http.ServeMux has no middleware API: the middleware wraps the whole mux"},
	}
}

// serveMuxPattern is "METHOD /path" with {name} and {name...}; a pattern
// ending in "/" gets {$} so that it matches only itself, as in the tables.
func serveMuxPattern(r routes.Route) string {
	p := r.Braces()
	if strings.HasSuffix(p, "/") {
		p += "{$}"
	}
	return r.Method + " " + p
}

func serveMuxHandler(i int, r routes.Route, write, read bool) http.HandlerFunc {
	names := r.Params()
	if !read {
		names = nil
	}
	return func(w http.ResponseWriter, req *http.Request) {
		hit(i)
		for _, n := range names {
			seen(w, write, n, req.PathValue(n))
		}
	}
}

func serveMuxRouter(s Spec) (http.Handler, error) {
	return build(func() (http.Handler, error) {
		m := http.NewServeMux()
		for i, rt := range s.Routes {
			m.HandleFunc(serveMuxPattern(rt), serveMuxHandler(i, rt, s.Write, !s.NoRead))
		}
		return wrapStd(m, s.Middleware), nil
	})
}

func serveMuxJSONBind() (http.Handler, error) {
	m := http.NewServeMux()
	m.HandleFunc("POST /users", StdJSONBind)
	return m, nil
}

func serveMuxJSONList() (http.Handler, error) {
	m := http.NewServeMux()
	m.HandleFunc("GET /items", StdJSONList)
	return m, nil
}
