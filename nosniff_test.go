package vane

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/vane-http/vane/middleware"
)

type nosniffJSON struct {
	ETag string `header:"ETag"`
	Body struct {
		Name string `json:"name"`
	}
}

// Every answer vane writes carries X-Content-Type-Options: nosniff: a
// typed operation's JSON (200, 201, 304), its nil output (204), []byte
// and io.Reader bodies, its problems, an event stream (GET and HEAD), the
// router's 404, 405, OPTIONS and redirects, middleware's 503s and the
// readiness probe's answers.
func TestNosniffOnEveryAnswer(t *testing.T) {
	r := New()
	Get(r, "/json", func(ctx context.Context, _ *struct{}) (*nosniffJSON, error) {
		out := &nosniffJSON{ETag: `"v1"`}
		out.Body.Name = "Rex"
		return out, nil
	})
	Post(r, "/created", func(ctx context.Context, _ *struct{}) (*struct {
		Status int
		Body   struct{ ID int }
	}, error) {
		return &struct {
			Status int
			Body   struct{ ID int }
		}{Status: 201}, nil
	})
	Delete(r, "/nil", func(ctx context.Context, _ *struct{}) (*struct{}, error) { return nil, nil })
	Get(r, "/bytes", func(ctx context.Context, _ *struct{}) (*struct{ Body []byte }, error) {
		return &struct{ Body []byte }{[]byte("<html>")}, nil
	})
	Get(r, "/reader", func(ctx context.Context, _ *struct{}) (*struct{ Body io.Reader }, error) {
		return &struct{ Body io.Reader }{strings.NewReader("<html>")}, nil
	})
	Get(r, "/fails", func(ctx context.Context, _ *struct{}) (*nosniffJSON, error) {
		return nil, errors.New("boom")
	})
	Get(r, "/items/{id}", func(ctx context.Context, in *struct {
		ID int `path:"id"`
	}) (*nosniffJSON, error) {
		return &nosniffJSON{}, nil
	})
	Stream(r, "/events", map[string]any{"created": petEvent{}}, func(ctx context.Context, _ *struct{}, send Sender) error {
		return nil
	}, Heartbeat(Off))
	holding, late := make(chan struct{}), make(chan struct{})
	slow := r.Group("/slow", Middleware(middleware.Timeout(time.Nanosecond)))
	slow.HandleFunc(http.MethodGet, "/", func(w http.ResponseWriter, req *http.Request) { <-req.Context().Done() })
	busy := r.Group("/busy", Middleware(middleware.Throttle(1, 0, 0)))
	busy.HandleFunc(http.MethodGet, "/", func(w http.ResponseWriter, req *http.Request) {
		close(holding)
		<-late
	})
	s := &Server{}
	r.Handle("GET", "/readyz", s.ReadinessHandler())

	cases := []struct {
		method, target string
		header         []string
		status         int
	}{
		{"GET", "/json", nil, 200},
		{"GET", "/json", []string{"If-None-Match", `"v1"`}, 304},
		{"POST", "/created", nil, 201},
		{"DELETE", "/nil", nil, 204},
		{"GET", "/bytes", nil, 200},
		{"GET", "/reader", nil, 200},
		{"GET", "/fails", nil, 500},
		{"GET", "/items/x", nil, 422},
		{"GET", "/json", []string{"Accept", "text/html"}, 406},
		{"GET", "/events", nil, 200},
		{"HEAD", "/events", nil, 200},
		{"GET", "/nowhere", nil, 404},
		{"PUT", "/json", nil, 405},
		{"OPTIONS", "/json", nil, 204},
		{"GET", "/json/", nil, 301},
		{"GET", "/a/../json", nil, 301},
		{"GET", "*", nil, 400},
		{"GET", "/slow/", nil, 503},
		{"GET", "/readyz", nil, 200},
	}
	for _, c := range cases {
		w := serve(r, c.method, c.target, "", c.header...)
		if w.Code != c.status || w.Header().Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s %s: %d %v", c.method, c.target, w.Code, w.Header())
		}
	}

	// Throttle's 503: one request holds the only slot.
	held := make(chan struct{})
	go func() {
		defer close(held)
		serve(r, "GET", "/busy/", "")
	}()
	<-holding
	if w := serve(r, "GET", "/busy/", ""); w.Code != 503 || w.Header().Get("X-Content-Type-Options") != "nosniff" {
		t.Errorf("Throttle's 503: %d %v", w.Code, w.Header())
	}
	close(late)
	<-held

	s.draining.Store(true)
	if w := serve(r, "GET", "/readyz", ""); w.Code != 503 || w.Header().Get("X-Content-Type-Options") != "nosniff" {
		t.Errorf("draining readiness: %d %v", w.Code, w.Header())
	}
}
