package vane

import (
	"bytes"
	"context"
	"errors"
	"fmt"
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
		{ErrorBadRequest("x"), 400}, {ErrorUnauthorized("x"), 401}, {ErrorForbidden("x"), 403}, {ErrorNotFound("x"), 404},
		{ErrorConflict("x"), 409}, {ErrorPreconditionFailed("x"), 412}, {ErrorUnprocessableEntity("x"), 422},
		{ErrorTooManyRequests("x"), 429}, {ErrorServiceUnavailable("x"), 503},
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

// retryLater is a user's error type: a 503 with a Retry-After header.
type retryLater struct{}

func (retryLater) Error() string   { return "maintenance" }
func (retryLater) StatusCode() int { return http.StatusServiceUnavailable }
func (retryLater) ResponseHeaders() http.Header {
	return http.Header{"Retry-After": {"120"}}
}

// headersOnly carries headers but no status: a 500, with its headers.
type headersOnly struct{}

func (headersOnly) Error() string                { return "x" }
func (headersOnly) ResponseHeaders() http.Header { return http.Header{"Retry-After": {"5"}} }

func TestErrorsCarryHeadersAndExtensions(t *testing.T) {
	shared := ErrorUnauthorized("log in first").WithHeader("WWW-Authenticate", `Bearer realm="api"`)
	cases := []struct {
		name   string
		err    error
		status int
		header string // "Name: value" expected
		body   string // a fragment of the body
	}{
		{"problem with header", shared, 401, `Www-Authenticate: Bearer realm="api"`, `"detail":"log in first"`},
		{"wrapped problem", fmt.Errorf("auth: %w", shared), 401, `Www-Authenticate: Bearer realm="api"`, `"status":401`},
		{"status error with headers", retryLater{}, 503, "Retry-After: 120", `"title":"Service Unavailable"`},
		{"plain error with headers", headersOnly{}, 500, "Retry-After: 5", `"status":500`},
		{"own type and members", ErrorForbidden("no credit").WithType("https://example.com/probs/out-of-credit").With("balance", 30),
			403, "", `"type":"https://example.com/probs/out-of-credit","title":"Forbidden","status":403,"detail":"no credit","balance":30}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := New()
			Get(r, "/x", func(context.Context, *struct{}) (*struct{}, error) { return nil, c.err })
			w := serve(r, "GET", "/x", "")
			if w.Code != c.status || !strings.Contains(w.Body.String(), c.body) {
				t.Errorf("%d %s", w.Code, w.Body)
			}
			if c.header != "" {
				name, value, _ := strings.Cut(c.header, ": ")
				if got := w.Header().Get(name); got != value {
					t.Errorf("%s = %q, want %q", name, got, value)
				}
			}
		})
	}
	if len(shared.Headers) != 1 {
		t.Errorf("the shared problem changed: %v", shared.Headers)
	}
}

func TestOnErrorSeesEveryErrorResponse(t *testing.T) {
	type in struct {
		N int `query:"n" minimum:"1"`
	}
	type seen struct {
		status int
		err    error
	}
	var got []seen
	template := ErrorNotFound("gone")
	r := New(OnError(func(req *http.Request, p *problem.Details, err error) {
		got = append(got, seen{p.Status, err})
		p.Instance = req.URL.Path
		p.Extensions = map[string]any{"trace": "t-1"}
		p.Headers = http.Header{"X-Trace": {"t-1"}}
	}))
	Get(r, "/x", func(_ context.Context, in *in) (*struct{}, error) {
		if in.N == 2 {
			return nil, template
		}
		return nil, errors.New("boom")
	})
	Post(r, "/y", func(context.Context, *struct{ Body struct{ A int } }) (*struct{}, error) { return nil, nil })
	for _, c := range []struct {
		method, target, body string
		status               int
		handlerErr           bool
	}{
		{"GET", "/x?n=0", "", 422, false},
		{"GET", "/x?n=a", "", 422, false},
		{"GET", "/x?n=2", "", 404, true},
		{"GET", "/x?n=3", "", 500, true},
		{"POST", "/y", "{", 400, false},
	} {
		t.Run(c.method+c.target, func(t *testing.T) {
			got = nil
			w := serve(r, c.method, c.target, c.body, "Content-Type", "application/json")
			if w.Code != c.status || len(got) != 1 || got[0].status != c.status || (got[0].err != nil) != c.handlerErr {
				t.Fatalf("%d %s; hook saw %v", w.Code, w.Body, got)
			}
			p, err := problem.Parse(w.Body.Bytes())
			if err != nil || p.Instance != c.target[:2] || p.Extensions["trace"] != "t-1" || w.Header().Get("X-Trace") != "t-1" {
				t.Errorf("the hook's changes were not sent: %s %v", w.Body, w.Header())
			}
		})
	}
	if template.Instance != "" || template.Extensions != nil || template.Headers != nil {
		t.Errorf("the handler's problem changed: %+v", template)
	}
}

func TestValidationMessages(t *testing.T) {
	type in struct {
		N    int    `query:"n" minimum:"1"`
		Name string `query:"name" required:"true"`
	}
	french := func(req *http.Request, e problem.FieldError) string {
		if req.Header.Get("Accept-Language") != "fr" {
			return e.Message
		}
		return "valeur refusée (" + e.Location + ")"
	}
	r := New(ValidationMessages(french))
	Get(r, "/x", func(_ context.Context, in *in) (*struct{}, error) {
		return nil, ErrorBadRequest("own", problem.FieldError{Location: "query.n", Message: "handler's"})
	})
	w := serve(r, "GET", "/x?n=0", "", "Accept-Language", "fr")
	p := decodeProblem(t, w)
	if w.Code != 422 || len(p.Errors) != 2 {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	for _, e := range p.Errors {
		if e.Message != "valeur refusée ("+e.Location+")" {
			t.Errorf("%s: %q", e.Location, e.Message)
		}
	}
	w = serve(r, "GET", "/x?n=0", "")
	if p := decodeProblem(t, w); strings.Contains(p.Errors[0].Message, "valeur") {
		t.Errorf("not asked for French: %s", w.Body)
	}
	w = serve(r, "GET", "/x?n=1&name=a", "", "Accept-Language", "fr")
	if p := decodeProblem(t, w); w.Code != 400 || p.Errors[0].Message != "handler's" {
		t.Errorf("a handler's message was replaced: %s", w.Body)
	}
}

func TestWriteErrorGoesThroughTheErrorModel(t *testing.T) {
	var hooked []int
	r := New(OnError(func(req *http.Request, p *problem.Details, err error) { hooked = append(hooked, p.Status) }))
	auth := r.Group("", func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			if req.Header.Get("Authorization") == "" {
				r.WriteError(w, req, ErrorUnauthorized("log in").WithHeader("WWW-Authenticate", "Bearer"))
				return
			}
			next.ServeHTTP(w, req)
		})
	})
	Get(auth, "/me", func(context.Context, *struct{}) (*struct{}, error) { return nil, nil })
	w := serve(r, "GET", "/me", "")
	if w.Code != 401 || w.Header().Get("WWW-Authenticate") != "Bearer" || len(hooked) != 1 || hooked[0] != 401 {
		t.Errorf("%d %v %s; hook saw %v", w.Code, w.Header(), w.Body, hooked)
	}
	w = httptest.NewRecorder()
	r.WriteError(w, httptest.NewRequest("GET", "/", nil), nil)
	if w.Code != 500 {
		t.Errorf("nil error: %d", w.Code)
	}
}
