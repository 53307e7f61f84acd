package peers

import (
	"io"
	"net/http"
	"strconv"

	"github.com/gin-gonic/gin"
	"github.com/vane-http/vane/bench/routes"
)

func init() { gin.SetMode(gin.ReleaseMode) }

func ginPeer() Peer {
	return Peer{
		Name:       "gin",
		Module:     "github.com/gin-gonic/gin",
		Router:     ginRouter,
		Groups:     ginGroups,
		JSONBind:   ginJSONBind,
		JSONList:   ginJSONList,
		Greeting:   ginGreeting,
		TypedParam: ginTypedParam,
		Notes: map[string]string{
			"NotFound":    "gin is measured with its defaults: HandleMethodNotAllowed is off, so on a miss it looks at no other method's routes and never answers 405 (vane, httprouter and echo look for a route of another method to choose between 404 and 405), and its 404 is the text \"404 page not found\" with one header, Content-Type.",
			"DeepNesting": "gin with its defaults matches \"..\" and \".\" as parameter values: GET /api/v1/orgs/../teams/. reaches the handler with org \"..\" and team \".\". gin stores the values in its pooled context while matching, and c.Param reads them from there.",
		},
	}
}

func ginMiddleware(c *gin.Context) {
	passed()
	c.Next()
}

func ginHandler(i int, r routes.Route, write, read bool) gin.HandlerFunc {
	names := r.Params()
	if !read {
		names = nil
	}
	return func(c *gin.Context) {
		hit(i)
		for _, n := range names {
			seen(c.Writer, write, n, c.Param(n))
		}
	}
}

func ginRouter(s Spec) (http.Handler, error) {
	return build(func() (http.Handler, error) {
		e := gin.New()
		for i := 0; i < s.Middleware; i++ {
			e.Use(ginMiddleware)
		}
		for i, rt := range s.Routes {
			e.Handle(rt.Method, rt.Colon(), ginHandler(i, rt, s.Write, !s.NoRead))
		}
		return e, nil
	})
}

func ginGroups() (http.Handler, error) {
	return build(func() (http.Handler, error) {
		e := gin.New()
		e.GET("/api/health", ginHandler(0, routes.Route{Method: "GET", Pattern: "/api/health"}, false, true))
		api := e.Group("/api", ginMiddleware)
		v1 := api.Group("/v1", ginMiddleware)
		v1.GET("/users/:id", ginHandler(0, routes.Route{Method: "GET", Pattern: "/users/:id"}, false, true))
		v1.GET("/posts/:id", ginHandler(1, routes.Route{Method: "GET", Pattern: "/posts/:id"}, false, true))
		return e, nil
	})
}

func ginJSONBind() (http.Handler, error) {
	e := gin.New()
	e.POST("/users", func(c *gin.Context) {
		var u User
		if err := c.ShouldBindJSON(&u); err != nil {
			c.String(http.StatusBadRequest, err.Error())
			return
		}
		c.String(http.StatusOK, u.Name)
	})
	return e, nil
}

func ginJSONList() (http.Handler, error) {
	e := gin.New()
	e.GET("/items", func(c *gin.Context) { c.JSON(http.StatusOK, Items) })
	return e, nil
}

// ginGreetingBody carries the maxLength rule the gin way, as a validator tag.
type ginGreetingBody struct {
	Suffix string `json:"suffix" binding:"max=5"`
}

// ginGreeting is Huma's greeting operation written by hand in gin.
func ginGreeting() (http.Handler, error) {
	e := gin.New()
	e.POST("/greeting/:id", func(c *gin.Context) {
		id := c.Param("id")
		ct := c.GetHeader("Content-Type")
		num, err := strconv.Atoi(c.Query("num"))
		if err != nil {
			c.String(http.StatusUnprocessableEntity, "num must be an integer")
			return
		}
		var body ginGreetingBody
		if err := c.ShouldBindJSON(&body); err != nil {
			c.String(http.StatusUnprocessableEntity, err.Error())
			return
		}
		c.Header("ETag", GreetingETag)
		c.Header("Last-Modified", LastModified.Format(http.TimeFormat))
		c.JSON(http.StatusOK, Greet(id, body.Suffix, ct, num))
	})
	return e, nil
}

func ginTypedParam() (http.Handler, error) {
	e := gin.New()
	e.GET("/users/:id", func(c *gin.Context) {
		id, err := strconv.ParseInt(c.Param("id"), 10, 64)
		if err != nil || id < 1 {
			c.String(http.StatusUnprocessableEntity, "id must be an integer >= 1")
			return
		}
		c.JSON(http.StatusOK, IDReply{ID: id})
	})
	return e, nil
}

var _ io.Writer = gin.ResponseWriter(nil)
