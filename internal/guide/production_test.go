package guide_test

import (
	"context"
	"log/slog"
	"net/http"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vane-http/vane"
	"github.com/vane-http/vane/middleware"
	"github.com/vane-http/vane/openapi"
	"github.com/vane-http/vane/problem"
	"github.com/vane-http/vane/vanetest"
)

// newProductionRouter puts vane's middleware in the order a request meets
// them, outermost first.
func newProductionRouter(logger *slog.Logger, trusted string) (*vane.Router, error) {
	proxies, err := middleware.ParseTrustedProxies(trusted) // "10.0.0.0/8,127.0.0.1/32"
	if err != nil {
		return nil, err
	}
	r := vane.New()
	r.Use(
		middleware.RequestID, // X-Request-Id, from the client or new
		middleware.RealIP(middleware.RealIPConfig{TrustedProxies: proxies}),
		middleware.Logger(logger), // one JSON line per request
	)
	// The API's operations: a deadline for each request's work, and at
	// most 256 at once (a short queue, then 503 with Retry-After). Both
	// say what they answer in the document.
	api := r.Group("", vane.Middleware(
		middleware.Timeout(10*time.Second),
		middleware.Throttle(256, 64, time.Second),
	))
	registerCRUD(api, newNotes())
	return r, nil
}

// serveInProduction runs the server until SIGTERM: readiness fails at
// once, the load balancer has DrainDelay to stop sending requests, then
// the listener closes and requests in flight have ShutdownTimeout to end.
func serveInProduction(ctx context.Context) error {
	logger := slog.New(slog.NewJSONHandler(os.Stderr, nil))
	r, err := newProductionRouter(logger, os.Getenv("TRUSTED_PROXIES"))
	if err != nil {
		return err
	}
	srv := &vane.Server{
		Addr:            ":8080",
		Handler:         r,
		Logger:          logger,
		DrainDelay:      5 * time.Second,
		ShutdownTimeout: 20 * time.Second,
	}
	r.Handle(http.MethodGet, "/readyz", srv.ReadinessHandler())
	if err := r.Check(); err != nil {
		return err
	}
	return srv.ListenAndServe(ctx)
}

func TestProductionRouter(t *testing.T) {
	r, err := newProductionRouter(slog.New(slog.DiscardHandler), "127.0.0.1/32")
	if err != nil {
		t.Fatal(err)
	}
	_ = serveInProduction // serves until a signal; its router is tested here
	api := vanetest.New(t, r)
	res := api.Get("/notes/1")
	if res.Code != 404 || res.Header().Get("X-Request-Id") == "" {
		t.Errorf("GET /notes/1: %d, request ID %q", res.Code, res.Header().Get("X-Request-Id"))
	}
	// The Throttle's 503 is in the document of every operation behind it.
	doc, err := vane.OpenAPI(r, openapi.Config{})
	if err != nil {
		t.Fatal(err)
	}
	for path, item := range doc.Paths {
		for _, method := range []string{"GET", "POST", "PUT", "DELETE"} {
			if op := item.Operation(method); op != nil && op.Responses["503"] == nil {
				t.Errorf("%s %s: the throttle's 503 is not documented", method, path)
			}
		}
	}
}

// readOnlyMode is a middleware of your own that answers of its own accord:
// wrapping its handler in middleware.Answering says so, and every typed
// operation behind it documents the 503.
func readOnlyMode(on *atomic.Bool) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return middleware.Answering(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			if on.Load() && req.Method != http.MethodGet && req.Method != http.MethodHead {
				w.Header().Set("Retry-After", "60")
				problem.Write(w, problem.New(http.StatusServiceUnavailable, "the service is read-only for maintenance"))
				return
			}
			next.ServeHTTP(w, req)
		}), middleware.Answer{Status: http.StatusServiceUnavailable, Description: "Read-only for maintenance: writes are refused.",
			Headers: map[string]string{"Retry-After": "Seconds to wait."}})
	}
}

func TestOwnMiddlewareAnswers(t *testing.T) {
	var on atomic.Bool
	on.Store(true)
	r := vane.New()
	api := r.Group("", vane.Middleware(readOnlyMode(&on)))
	registerCRUD(api, newNotes())
	res := vanetest.New(t, r).Post("/notes", map[string]any{"text": "x"})
	if res.Code != http.StatusServiceUnavailable || res.Header().Get("Retry-After") != "60" {
		t.Errorf("a write in read-only mode: %d", res.Code)
	}
	for _, op := range r.Operations() {
		found := false
		for _, resp := range op.Responses {
			found = found || resp.Status == http.StatusServiceUnavailable
		}
		if !found {
			t.Errorf("%s %s does not document the 503", op.Method, op.Pattern)
		}
	}
}
