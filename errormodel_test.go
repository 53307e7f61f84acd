package vane

import (
	"context"
	"errors"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/vane-http/vane/openapi"
	"github.com/vane-http/vane/problem"
)

var errNoAuth = Unauthorized("log in first")

type emptyIn struct{}

type emptyOut struct {
	Body struct {
		OK bool `json:"ok"`
	}
}

// A shared problem value used with WithHeader from many requests sends
// one header line each time and is never changed; the hook gets a copy.
func TestProblemValuesAreNotChanged(t *testing.T) {
	r := New(ErrorHook(func(req *http.Request, p *problem.Details) *problem.Details {
		p.Detail += " (seen)"
		return p.WithHeader("X-Seen", "1")
	}))
	Get(r, "/me", func(ctx context.Context, _ *emptyIn) (*emptyOut, error) {
		return nil, errNoAuth.WithHeader("WWW-Authenticate", `Bearer realm="x"`)
	})
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 20 {
				w := serve(r, "GET", "/me", "")
				if n := len(w.Header().Values("WWW-Authenticate")); n != 1 || w.Code != 401 ||
					strings.Count(w.Body.String(), "(seen)") != 1 || w.Header().Get("X-Seen") != "1" {
					t.Errorf("%d, %d WWW-Authenticate lines, %s", w.Code, n, w.Body)
					return
				}
			}
		}()
	}
	wg.Wait()
	if errNoAuth.Header != nil || errNoAuth.Detail != "log in first" {
		t.Errorf("the shared problem changed: %+v", errNoAuth)
	}
}

// A problem is never a success or a redirect: a status outside 400–599
// is a 500.
func TestErrorStatusesChecked(t *testing.T) {
	for _, status := range []int{200, 302, 0, 600} {
		r := New()
		Get(r, "/x", func(ctx context.Context, _ *emptyIn) (*emptyOut, error) {
			return nil, Error(status, "no")
		})
		if w := serve(r, "GET", "/x", ""); w.Code != 500 || w.Header().Get("Location") != "" {
			t.Errorf("Error(%d): answered %d", status, w.Code)
		}
		w := httptest.NewRecorder()
		problem.Write(w, &problem.Details{Status: status})
		if w.Code != 500 {
			t.Errorf("problem.Write of status %d: %d", status, w.Code)
		}
	}
}

// The router's 404 and 405, Server's 413 and the docs' 500 go through the
// ErrorHook as a typed operation's problems do.
func TestErrorHookSeesEveryProblem(t *testing.T) {
	hook := ErrorHook(func(req *http.Request, p *problem.Details) *problem.Details {
		return p.WithHeader("X-Hooked", "1")
	})
	r := New(hook)
	Get(r, "/a/{x}", func(ctx context.Context, in *struct {
		X string `path:"x"`
	}) (*emptyOut, error) {
		return &emptyOut{}, nil
	})
	Docs(r, DocsConfig{Config: openapi.Config{Edit: []func(*openapi.Document) error{
		func(*openapi.Document) error { return errors.New("a hook that fails") },
	}}})
	for _, c := range []struct{ method, path string }{{"GET", "/nothing"}, {"DELETE", "/a/1"}, {"GET", "/openapi.json"}} {
		w := serve(r, c.method, c.path, "")
		if w.Header().Get("X-Hooked") != "1" || w.Header().Get("Content-Type") != problem.ContentType {
			t.Errorf("%s %s: %d %v, not through the hook", c.method, c.path, w.Code, w.Header())
		}
	}
	// The document that cannot be built is found before serving.
	if err := r.Check(); err == nil || !strings.Contains(err.Error(), "OpenAPI document") {
		t.Errorf("Check: %v", err)
	}
	s := &Server{Handler: r}
	if err := s.Serve(context.Background(), nil); err == nil || !strings.Contains(err.Error(), "OpenAPI document") {
		t.Errorf("Serve started a router whose document cannot be built: %v", err)
	}
}

type badBody struct {
	X float64 `json:"x"`
}

type secretOut struct {
	Session *http.Cookie
	ETag    string `header:"ETag"`
	Body    badBody
}

// An answer that turns into an error (its body cannot be encoded) sends
// none of the headers the output set: no session cookie on the 500.
func TestFailedAnswerDropsItsHeaders(t *testing.T) {
	r := New()
	Get(r, "/login", func(ctx context.Context, _ *emptyIn) (*secretOut, error) {
		return &secretOut{Session: &http.Cookie{Name: "session", Value: "s3cret"}, ETag: `"1"`, Body: badBody{X: math.NaN()}}, nil
	})
	w := serve(r, "GET", "/login", "")
	if w.Code != 500 || w.Header().Get("Set-Cookie") != "" || w.Header().Get("ETag") != "" {
		t.Errorf("%d %v", w.Code, w.Header())
	}
}
