package router_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/vane-http/vane/router"
)

// get serves one GET request and prints the response.
func get(h http.Handler, target string) {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("GET", target, nil))
	fmt.Printf("%d %s", w.Code, w.Body.String())
	if loc := w.Header().Get("Location"); loc != "" {
		fmt.Printf("-> %s", loc)
	}
	fmt.Println()
}

func ExampleRouter() {
	r := router.New()
	r.Get("/users/new", func(w http.ResponseWriter, req *http.Request) {
		io.WriteString(w, "the sign-up form")
	})
	r.Get("/users/{id}", func(w http.ResponseWriter, req *http.Request) {
		io.WriteString(w, "user "+router.Param(req, "id"))
	})
	r.Get("/users/{id}/files/{path...}", func(w http.ResponseWriter, req *http.Request) {
		io.WriteString(w, router.Param(req, "id")+" wants "+router.Param(req, "path"))
	})
	get(r, "/users/new")
	get(r, "/users/42")
	get(r, "/users/42/files/a/b.txt")
	get(r, "/users/42/")
	// Output:
	// 200 the sign-up form
	// 200 user 42
	// 200 42 wants a/b.txt
	// 301 -> /users/42
}

func ExampleRouter_Group() {
	r := router.New()
	tag := func(name string) func(http.Handler) http.Handler {
		return func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
				io.WriteString(w, name+" ")
				next.ServeHTTP(w, req)
			})
		}
	}
	r.Use(tag("root"))
	api := r.Group("/api", tag("api"))
	v1 := api.Group("/v1", tag("v1"))
	v1.Get("/ping", func(w http.ResponseWriter, req *http.Request) { io.WriteString(w, "pong") })
	get(r, "/api/v1/ping")
	// Output:
	// 200 root api v1 pong
}

func ExampleRouter_Mount() {
	legacy := http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		io.WriteString(w, "legacy sees "+req.URL.Path)
	})
	r := router.New()
	r.Mount("/legacy", legacy)
	get(r, "/legacy/reports/2024")
	// Output:
	// 200 legacy sees /reports/2024
}

func ExampleRouter_Routes() {
	r := router.New()
	r.Get("/a/{id}", http.NotFound)
	r.Post("/a", http.NotFound)
	for _, rt := range r.Routes() {
		fmt.Println(rt.Method, rt.Pattern, rt.Handler)
	}
	// Output:
	// GET /a/{id} net/http.NotFound
	// POST /a net/http.NotFound
}

func ExampleParam_goroutine() {
	r := router.New()
	done := make(chan string)
	r.Post("/jobs/{id}", func(w http.ResponseWriter, req *http.Request) {
		// The request stays valid after the handler returns: a goroutine
		// may keep it, and its context, as under net/http.ServeMux.
		go func() { done <- "finished job " + router.Param(req, "id") }()
		w.WriteHeader(http.StatusAccepted)
	})
	r.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("POST", "/jobs/7", strings.NewReader("")))
	fmt.Println(<-done)
	// Output:
	// finished job 7
}

func ExampleRouter_ServeHTTP_methodNotAllowed() {
	r := router.New()
	r.Post("/items", http.NotFound)
	w := httptest.NewRecorder()
	r.ServeHTTP(w, httptest.NewRequest("GET", "/items", nil))
	fmt.Println(w.Code, w.Header().Get("Allow"))
	// Output:
	// 405 POST, OPTIONS
}

// Middleware over http.HandlerFunc calls next as a func, one call a layer;
// it mixes with the standard form in one chain.
func ExampleRouter_UseFunc() {
	r := router.New()
	r.Use(func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			io.WriteString(w, "[std ")
			next.ServeHTTP(w, req)
			io.WriteString(w, "]")
		})
	})
	r.UseFunc(func(next http.HandlerFunc) http.HandlerFunc {
		return func(w http.ResponseWriter, req *http.Request) {
			io.WriteString(w, "[func ")
			next(w, req)
			io.WriteString(w, "]")
		}
	})
	r.Get("/users/{id}", func(w http.ResponseWriter, req *http.Request) {
		io.WriteString(w, "user "+router.Param(req, "id"))
	})
	get(r, "/users/7")
	// Output:
	// 200 [std [func user 7]]
}
