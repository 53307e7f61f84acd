package vane

import (
	"context"
	"net/http"
	"testing"

	"github.com/vane-http/vane/problem"
)

type unavailableErr struct{}

func (unavailableErr) Error() string   { return "the database is down" }
func (unavailableErr) StatusCode() int { return http.StatusServiceUnavailable }

// Every 503 vane writes carries Retry-After: a handler's
// Unavailable problem, a StatusError of 503, one an ErrorHook
// makes, and the readiness probe's (draining or a failed check).
func TestEvery503CarriesRetryAfter(t *testing.T) {
	r := New(ErrorHook(func(req *http.Request, p *problem.Details) *problem.Details {
		if req.URL.Path == "/hooked" {
			return Unavailable(0, "maintenance")
		}
		return p
	}))
	Get(r, "/down", func(ctx context.Context, _ *struct{}) (*struct{}, error) {
		return nil, Unavailable(0, "the database is down")
	})
	Get(r, "/status", func(ctx context.Context, _ *struct{}) (*struct{}, error) { return nil, unavailableErr{} })
	Get(r, "/hooked", func(ctx context.Context, _ *struct{}) (*struct{}, error) { return nil, NotFound("no") })
	s := &Server{}
	r.Handle("GET", "/readyz", s.ReadinessHandler(ReadinessCheck{Name: "database", Check: func(context.Context) error { return unavailableErr{} }}))
	for _, path := range []string{"/down", "/status", "/hooked", "/readyz"} {
		if w := serve(r, "GET", path, ""); w.Code != 503 || w.Header().Get("Retry-After") == "" {
			t.Errorf("%s: %d %v", path, w.Code, w.Header())
		}
	}
}
