package peers

import (
	"net/http"

	"github.com/julienschmidt/httprouter"
	"github.com/vane-http/vane/bench/routes"
)

func httprouterPeer() Peer {
	return Peer{
		Name:     "httprouter",
		Module:   "github.com/julienschmidt/httprouter",
		Router:   httprouterRouter,
		JSONBind: httprouterJSONBind,
		JSONList: httprouterJSONList,
		Lacks: map[string]string{
			"groups":     "httprouter has no route groups",
			"greeting":   "skip: the hand-written greeting is shown for chi, gin and echo",
			"typedparam": "skip: the hand-written baseline is shown for vane and chi",
		},
		Notes: map[string]string{"middleware": "httprouter has no middleware API: the middleware wraps the whole router"},
	}
}

func httprouterHandler(i int, r routes.Route, write, read bool) httprouter.Handle {
	names := r.Params()
	if !read {
		names = nil
	}
	return func(w http.ResponseWriter, req *http.Request, ps httprouter.Params) {
		hit(i)
		for _, n := range names {
			seen(w, write, n, ps.ByName(n))
		}
	}
}

func httprouterRouter(s Spec) (http.Handler, error) {
	return build(func() (http.Handler, error) {
		r := httprouter.New()
		for i, rt := range s.Routes {
			r.Handle(rt.Method, rt.Colon(), httprouterHandler(i, rt, s.Write, !s.NoRead))
		}
		return wrapStd(r, s.Middleware), nil
	})
}

func httprouterJSONBind() (http.Handler, error) {
	r := httprouter.New()
	r.POST("/users", func(w http.ResponseWriter, req *http.Request, _ httprouter.Params) { StdJSONBind(w, req) })
	return r, nil
}

func httprouterJSONList() (http.Handler, error) {
	r := httprouter.New()
	r.GET("/items", func(w http.ResponseWriter, req *http.Request, _ httprouter.Params) { StdJSONList(w, req) })
	return r, nil
}
