package peers

import (
	"encoding/json"
	"net/http"

	"github.com/uptrace/bunrouter"
	"github.com/vane-http/vane/bench/routes"
)

func bunrouterPeer() Peer {
	return Peer{
		Name:     "bunrouter",
		Module:   "github.com/uptrace/bunrouter",
		Router:   bunrouterRouter,
		Groups:   bunrouterGroups,
		JSONBind: bunrouterJSONBind,
		JSONList: bunrouterJSONList,
		Lacks: map[string]string{
			"greeting":   "skip: the hand-written greeting is shown for chi, gin and echo",
			"typedparam": "skip: the hand-written baseline is shown for vane and chi",
		},
	}
}

func bunrouterMiddleware(next bunrouter.HandlerFunc) bunrouter.HandlerFunc {
	return func(w http.ResponseWriter, req bunrouter.Request) error {
		passed()
		return next(w, req)
	}
}

func bunrouterHandler(i int, r routes.Route, write, read bool) bunrouter.HandlerFunc {
	names := r.Params()
	if !read {
		names = nil
	}
	return func(w http.ResponseWriter, req bunrouter.Request) error {
		hit(i)
		for _, n := range names {
			seen(w, write, n, req.Param(n))
		}
		return nil
	}
}

func bunrouterRouter(s Spec) (http.Handler, error) {
	return build(func() (http.Handler, error) {
		var opts []bunrouter.Option
		for i := 0; i < s.Middleware; i++ {
			opts = append(opts, bunrouter.Use(bunrouterMiddleware))
		}
		r := bunrouter.New(opts...)
		for i, rt := range s.Routes {
			r.Handle(rt.Method, rt.Colon(), bunrouterHandler(i, rt, s.Write, !s.NoRead))
		}
		return r, nil
	})
}

func bunrouterGroups() (http.Handler, error) {
	return build(func() (http.Handler, error) {
		r := bunrouter.New()
		r.GET("/api/health", bunrouterHandler(0, routes.Route{Method: "GET", Pattern: "/api/health"}, false, true))
		r.Use(bunrouterMiddleware).WithGroup("/api", func(g *bunrouter.Group) {
			g.Use(bunrouterMiddleware).WithGroup("/v1", func(g *bunrouter.Group) {
				g.GET("/users/:id", bunrouterHandler(0, routes.Route{Method: "GET", Pattern: "/users/:id"}, false, true))
				g.GET("/posts/:id", bunrouterHandler(1, routes.Route{Method: "GET", Pattern: "/posts/:id"}, false, true))
			})
		})
		return r, nil
	})
}

func bunrouterJSONBind() (http.Handler, error) {
	r := bunrouter.New()
	r.POST("/users", func(w http.ResponseWriter, req bunrouter.Request) error {
		var u User
		if err := json.NewDecoder(req.Body).Decode(&u); err != nil {
			return err
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, err := w.Write([]byte(u.Name))
		return err
	})
	return r, nil
}

func bunrouterJSONList() (http.Handler, error) {
	r := bunrouter.New()
	r.GET("/items", func(w http.ResponseWriter, req bunrouter.Request) error {
		return bunrouter.JSON(w, Items)
	})
	return r, nil
}
