package peers

import (
	"net/http"
	"strconv"

	"github.com/labstack/echo/v5"
	"github.com/vane-http/vane/bench/routes"
)

func echoPeer() Peer {
	return Peer{
		Name:       "echo",
		Module:     "github.com/labstack/echo/v5",
		Router:     echoRouter,
		Groups:     echoGroups,
		JSONBind:   echoJSONBind,
		JSONList:   echoJSONList,
		Greeting:   echoGreeting,
		TypedParam: echoTypedParam,
	}
}

func echoMiddleware(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c *echo.Context) error {
		passed()
		return next(c)
	}
}

// echoPattern: :name for a segment, a trailing * for the rest (read as "*").
func echoPattern(r routes.Route) string {
	return r.Convert(func(n string) string { return ":" + n }, func(string) string { return "*" })
}

func echoHandler(i int, r routes.Route, write, read bool) echo.HandlerFunc {
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
	return func(c *echo.Context) error {
		hit(i)
		for j, k := range keys {
			seen(c.Response(), write, names[j], c.Param(k))
		}
		return nil
	}
}

func echoRouter(s Spec) (http.Handler, error) {
	return build(func() (http.Handler, error) {
		e := echo.New()
		for i := 0; i < s.Middleware; i++ {
			e.Use(echoMiddleware)
		}
		for i, rt := range s.Routes {
			e.Add(rt.Method, echoPattern(rt), echoHandler(i, rt, s.Write, !s.NoRead))
		}
		return e, nil
	})
}

func echoGroups() (http.Handler, error) {
	return build(func() (http.Handler, error) {
		e := echo.New()
		e.GET("/api/health", echoHandler(0, routes.Route{Method: "GET", Pattern: "/api/health"}, false, true))
		api := e.Group("/api", echoMiddleware)
		v1 := api.Group("/v1", echoMiddleware)
		v1.GET("/users/:id", echoHandler(0, routes.Route{Method: "GET", Pattern: "/users/:id"}, false, true))
		v1.GET("/posts/:id", echoHandler(1, routes.Route{Method: "GET", Pattern: "/posts/:id"}, false, true))
		return e, nil
	})
}

func echoJSONBind() (http.Handler, error) {
	e := echo.New()
	e.POST("/users", func(c *echo.Context) error {
		var u User
		if err := c.Bind(&u); err != nil {
			return err
		}
		return c.String(http.StatusOK, u.Name)
	})
	return e, nil
}

func echoJSONList() (http.Handler, error) {
	e := echo.New()
	e.GET("/items", func(c *echo.Context) error { return c.JSON(http.StatusOK, Items) })
	return e, nil
}

// echoGreeting is Huma's greeting operation written by hand in echo (echo
// ships no validator, so the rule is checked by hand).
func echoGreeting() (http.Handler, error) {
	e := echo.New()
	e.POST("/greeting/:id", func(c *echo.Context) error {
		id := c.Param("id")
		ct := c.Request().Header.Get("Content-Type")
		num, err := strconv.Atoi(c.QueryParam("num"))
		if err != nil {
			return c.String(http.StatusUnprocessableEntity, "num must be an integer")
		}
		var body GreetingBody
		if err := c.Bind(&body); err != nil {
			return err
		}
		if len(body.Suffix) > GreetingMaxSufx {
			return c.String(http.StatusUnprocessableEntity, "suffix is longer than 5")
		}
		h := c.Response().Header()
		h.Set("ETag", GreetingETag)
		h.Set("Last-Modified", LastModified.Format(http.TimeFormat))
		return c.JSON(http.StatusOK, Greet(id, body.Suffix, ct, num))
	})
	return e, nil
}

func echoTypedParam() (http.Handler, error) {
	e := echo.New()
	e.GET("/users/:id", func(c *echo.Context) error {
		id, err := strconv.ParseInt(c.Param("id"), 10, 64)
		if err != nil || id < 1 {
			return c.String(http.StatusUnprocessableEntity, "id must be an integer >= 1")
		}
		return c.JSON(http.StatusOK, IDReply{ID: id})
	})
	return e, nil
}
