package main

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humachi"
	"github.com/gin-gonic/gin"
	"github.com/go-chi/chi/v5"
	"github.com/gofiber/fiber/v3"
	"github.com/labstack/echo/v5"
	"github.com/vane-http/vane"
	"github.com/vane-http/vane/bench/e2e"
)

func init() {
	impls["net/http"] = netHTTP
	impls["vane-router"] = vaneRouter
	impls["chi"] = chiService
	impls["gin"] = ginService
	impls["echo"] = echoService
	impls["huma"] = humaService
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

// itemHandler is the service as a plain net/http handler, shared by the
// routers that serve net/http handlers; id reads the path parameter through
// each router's own accessor.
func itemHandler(id func(*http.Request) string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") == "" {
			http.Error(w, "missing Authorization", http.StatusUnauthorized)
			return
		}
		writeJSON(w, e2e.NewItem(id(r), r.URL.Query().Get("verbose") == "true"))
	}
}

// netHTTP is the bare standard library: http.ServeMux and a HandlerFunc.
func netHTTP() http.Handler {
	m := http.NewServeMux()
	m.HandleFunc("GET /items/{id}", itemHandler(func(r *http.Request) string { return r.PathValue("id") }))
	return m
}

// vaneRouter is the service written by hand on vane's router.
func vaneRouter() http.Handler {
	r := vane.New()
	r.HandleFunc(http.MethodGet, "/items/{id}", itemHandler(func(r *http.Request) string { return vane.Param(r, "id") }))
	return r
}

func chiService() http.Handler {
	r := chi.NewRouter()
	r.Get("/items/{id}", itemHandler(func(r *http.Request) string { return chi.URLParam(r, "id") }))
	return r
}

func ginService() http.Handler {
	gin.SetMode(gin.ReleaseMode)
	e := gin.New()
	e.GET("/items/:id", func(c *gin.Context) {
		if c.GetHeader("Authorization") == "" {
			c.String(http.StatusUnauthorized, "missing Authorization")
			return
		}
		c.JSON(http.StatusOK, e2e.NewItem(c.Param("id"), c.Query("verbose") == "true"))
	})
	return e
}

func echoService() http.Handler {
	e := echo.New()
	e.GET("/items/:id", func(c *echo.Context) error {
		if c.Request().Header.Get("Authorization") == "" {
			return c.String(http.StatusUnauthorized, "missing Authorization")
		}
		return c.JSON(http.StatusOK, e2e.NewItem(c.Param("id"), c.QueryParam("verbose") == "true"))
	})
	return e
}

type humaItemIn struct {
	ID            string `path:"id"`
	Verbose       bool   `query:"verbose"`
	Authorization string `header:"Authorization" required:"true"`
}

type humaItemOut struct {
	Body e2e.Item
}

// humaService is huma on its chi adapter, without the schema-link hook
// (so that its body is the same as everyone else's).
func humaService() http.Handler {
	r := chi.NewRouter()
	config := huma.DefaultConfig("bench", "1.0.0")
	config.CreateHooks = nil
	api := humachi.New(r, config)
	huma.Get(api, "/items/{id}", func(ctx context.Context, in *humaItemIn) (*humaItemOut, error) {
		return &humaItemOut{Body: e2e.NewItem(in.ID, in.Verbose)}, nil
	})
	return r
}

// serveFiber runs fiber's own (fasthttp) server.
func serveFiber(ctx context.Context, addr string) error {
	app := fiber.New()
	app.Get("/items/:id", func(c fiber.Ctx) error {
		if c.Get("Authorization") == "" {
			return c.Status(http.StatusUnauthorized).SendString("missing Authorization")
		}
		return c.JSON(e2e.NewItem(c.Params("id"), c.Query("verbose") == "true"))
	})
	go func() {
		<-ctx.Done()
		app.ShutdownWithTimeout(5 * time.Second)
	}()
	return app.Listen(addr, fiber.ListenConfig{DisableStartupMessage: true})
}
