package vane

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/vane-http/vane/problem"
)

// Every 503 vane writes carries Retry-After: Unavailable's, a plain 503
// problem's, a StatusError's, one an ErrorHook makes, the readiness
// probe's.
func TestEvery503HasRetryAfter(t *testing.T) {
	r := New(ErrorHook(func(req *http.Request, p *problem.Details) *problem.Details {
		if req.URL.Path == "/hooked" {
			return problem.New(503, "hooked")
		}
		return p
	}))
	for path, err := range map[string]error{
		"/unavailable":  Unavailable(3*time.Second, "down"),
		"/plain":        Unavailable(0, "down"),
		"/problem":      problem.New(503, "down"),
		"/status-error": statusErr{503, "down"},
		"/hooked":       errors.New("x"),
		"/unknown":      OutcomeUnknown(0, "lost"),
	} {
		Get(r, path, func(context.Context, *struct{}) (*struct{}, error) { return nil, err })
	}
	for _, path := range []string{"/unavailable", "/plain", "/problem", "/status-error", "/hooked", "/unknown"} {
		w := send(r, "GET", path, "")
		if w.Code != 503 || w.Header().Get("Retry-After") == "" {
			t.Errorf("%s: %d, Retry-After %q", path, w.Code, w.Header().Get("Retry-After"))
		}
	}
	if w := send(r, "GET", "/unavailable", ""); w.Header().Get("Retry-After") != "3" {
		t.Errorf("Unavailable's own Retry-After replaced: %q", w.Header().Get("Retry-After"))
	}
	srv := &Server{}
	ready := srv.ReadinessHandler(ReadinessCheck{Name: "db", Check: func(context.Context) error { return errors.New("down") }})
	if w := send(ready, "GET", "/readyz", ""); w.Code != 503 || w.Header().Get("Retry-After") == "" {
		t.Errorf("readiness: %d, Retry-After %q", w.Code, w.Header().Get("Retry-After"))
	}
	// OutcomeUnknown says what it is, and never that nothing changed.
	p := OutcomeUnknown(2*time.Second, "lost")
	if p.Status != 503 || p.Type != OutcomeUnknownType || p.Title != "Outcome Unknown" || p.Header.Get("Retry-After") != "2" {
		t.Errorf("OutcomeUnknown: %+v", p)
	}
}

// send serves a request of method, path and JSON body (if any) with h;
// headers are name, value pairs, added.
func send(h http.Handler, method, path, body string, headers ...string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Add(headers[i], headers[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	return w
}
