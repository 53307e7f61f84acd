package vane

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/vane-http/vane/problem"
)

func TestUnknownErrorsAreLoggedNotShown(t *testing.T) {
	var logs bytes.Buffer
	old := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&logs, nil)))
	defer slog.SetDefault(old)

	r := New()
	Get(r, "/boom", func(context.Context, *struct{}) (*struct{}, error) {
		return nil, errors.New("disk full at /var/secret")
	})
	w := serve(r, "GET", "/boom", "")
	if w.Code != http.StatusInternalServerError || strings.Contains(w.Body.String(), "secret") {
		t.Errorf("%d %s", w.Code, w.Body)
	}
	if !strings.Contains(logs.String(), "disk full at /var/secret") || !strings.Contains(logs.String(), "get-boom") {
		t.Errorf("log: %s", logs.String())
	}
}

func TestErrorHelpers(t *testing.T) {
	cases := []struct {
		err    StatusError
		status int
	}{
		{BadRequest("x"), 400}, {Unauthorized("x"), 401}, {Forbidden("x"), 403}, {NotFound("x"), 404},
		{Conflict("x"), 409}, {PreconditionFailed("x"), 412}, {UnprocessableEntity("x"), 422},
		{TooManyRequests("x"), 429}, {Unavailable(0, "x"), 503}, {Error(418, "x"), 418},
	}
	for _, c := range cases {
		if c.err.StatusCode() != c.status {
			t.Errorf("%v: status %d, want %d", c.err, c.err.StatusCode(), c.status)
		}
		var p *problem.Details
		if !errors.As(c.err, &p) || p.Detail != "x" || p.Title != http.StatusText(c.status) {
			t.Errorf("%v: problem %+v", c.err, p)
		}
	}
	e := Error(409, "taken", problem.FieldError{Location: "body.name", Message: "exists"}, nil, errors.New("more"))
	if got := e.Error(); got != "409 taken: body.name: exists; more" {
		t.Errorf("Error() = %q", got)
	}
}

func TestWriteErrorGoesThroughTheErrorModel(t *testing.T) {
	var hooked []int
	r := New(ErrorHook(func(req *http.Request, p *problem.Details) *problem.Details {
		hooked = append(hooked, p.Status)
		q := *p
		q.Instance = req.URL.Path
		return &q
	}))
	shared := Unauthorized("log in").WithHeader("WWW-Authenticate", "Bearer")
	auth := r.Group("", Middleware(func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			if req.Header.Get("Authorization") == "" {
				r.WriteError(w, req, shared)
				return
			}
			next.ServeHTTP(w, req)
		})
	}))
	Get(auth, "/me", func(context.Context, *struct{}) (*struct{}, error) { return nil, nil })
	w := serve(r, "GET", "/me", "")
	if w.Code != 401 || w.Header().Get("WWW-Authenticate") != "Bearer" || !strings.Contains(w.Body.String(), `"instance":"/me"`) || len(hooked) != 1 {
		t.Errorf("%d %v %s; hook saw %v", w.Code, w.Header(), w.Body, hooked)
	}
	for _, c := range []struct {
		name   string
		err    error
		status int
	}{
		{"nil", nil, 500},
		{"status error", teapot{}, 418},
		{"plain error", errors.New("secret"), 500},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := httptest.NewRecorder()
			r.WriteError(w, httptest.NewRequest("GET", "/", nil), c.err)
			if w.Code != c.status || strings.Contains(w.Body.String(), "secret") {
				t.Errorf("%d %s", w.Code, w.Body)
			}
		})
	}
}
