package adopt_test

import (
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"
	"github.com/go-chi/chi/v5"
	"github.com/labstack/echo/v5"

	"github.com/vane-http/vane/conformance/adopt"
	"github.com/vane-http/vane/problem"
)

// A host is an application built on another router, into which vane is
// mounted: api under adopt.Prefix, tenants under adopt.TenantPrefix. Each
// has a route of its own at / and authentication middleware in its own
// idiom, which sets X-Served-By on every answer.
type host struct {
	name string
	new  func(api, tenants http.Handler) http.Handler
}

var hosts = []host{
	{"chi", chiApp},
	{"gin", ginApp},
	{"echo", echoApp},
	{"ServeMux", muxApp},
}

// authenticate reads the user from a bearer token: the token is the
// user's name, "bad" is refused, and no token is an anonymous user.
func authenticate(req *http.Request) (user string, ok bool) {
	token, _ := strings.CutPrefix(req.Header.Get("Authorization"), "Bearer ")
	return token, token != "bad"
}

// unauthorized is the hosts' answer to a bad token: the problem that the
// vane API documents for 401.
func unauthorized(w http.ResponseWriter) {
	w.Header().Set("WWW-Authenticate", "Bearer")
	problem.Write(w, problem.New(http.StatusUnauthorized, "the bearer token is not valid"))
}

// chiApp mounts vane with chi's Mount, which hands the mounted handler
// the request with its path untouched; chi's middleware is net/http's.
func chiApp(api, tenants http.Handler) http.Handler {
	r := chi.NewRouter()
	r.Use(func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			w.Header().Set("X-Served-By", "chi")
			user, ok := authenticate(req)
			if !ok {
				unauthorized(w)
				return
			}
			next.ServeHTTP(w, req.WithContext(adopt.WithUser(req.Context(), user)))
		})
	})
	r.Get("/", func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("chi home")) })
	r.Mount("/api", api)
	r.Mount("/tenants/{tenant}/api", tenants)
	return r
}

// ginApp mounts vane with a catch-all route and gin.WrapH. gin's
// middleware puts the user in the request's context (c.Request), which is
// what vane's handlers get, rather than in gin's own (c.Set).
func ginApp(api, tenants http.Handler) http.Handler {
	gin.SetMode(gin.ReleaseMode)
	g := gin.New()
	g.Use(func(c *gin.Context) {
		c.Header("X-Served-By", "gin")
		user, ok := authenticate(c.Request)
		if !ok {
			unauthorized(c.Writer)
			c.Abort()
			return
		}
		c.Request = c.Request.WithContext(adopt.WithUser(c.Request.Context(), user))
		c.Next()
	})
	g.GET("/", func(c *gin.Context) { c.String(http.StatusOK, "gin home") })
	g.Any("/api/*rest", gin.WrapH(api))
	g.Any("/tenants/:tenant/api/*rest", gin.WrapH(tenants))
	return g
}

// echoApp mounts vane with a catch-all route and echo.WrapHandler. echo's
// middleware puts the user in the request's context (c.SetRequest).
func echoApp(api, tenants http.Handler) http.Handler {
	e := echo.New()
	e.Use(func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c *echo.Context) error {
			c.Response().Header().Set("X-Served-By", "echo")
			user, ok := authenticate(c.Request())
			if !ok {
				unauthorized(c.Response())
				return nil
			}
			c.SetRequest(c.Request().WithContext(adopt.WithUser(c.Request().Context(), user)))
			return next(c)
		}
	})
	e.GET("/", func(c *echo.Context) error { return c.String(http.StatusOK, "echo home") })
	e.Any("/api/*", echo.WrapHandler(api))
	e.Any("/tenants/:tenant/api/*", echo.WrapHandler(tenants))
	return e
}

// muxApp mounts vane on a ServeMux pattern ending in a slash, without
// http.StripPrefix, behind middleware that wraps the whole mux.
func muxApp(api, tenants http.Handler) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("ServeMux home")) })
	mux.Handle("/api/", api)
	mux.Handle("/tenants/{tenant}/api/", tenants)
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		w.Header().Set("X-Served-By", "ServeMux")
		user, ok := authenticate(req)
		if !ok {
			unauthorized(w)
			return
		}
		mux.ServeHTTP(w, req.WithContext(adopt.WithUser(req.Context(), user)))
	})
}
