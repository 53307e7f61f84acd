package vane

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"
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
		{TooManyRequests("x"), 429}, {ServiceUnavailable("x"), 503}, {Error(418, "x"), 418},
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
