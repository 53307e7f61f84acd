package vane

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
)

// A request whose Accept takes nothing the operation can send is refused
// before the handler runs, so that nothing has changed; a response without
// a body is never refused for its media type.
func TestNotAcceptableBeforeHandler(t *testing.T) {
	type in struct {
		Body struct {
			A int `json:"a"`
		}
	}
	type created struct {
		Body struct {
			B int `json:"b"`
		}
	}
	type withStatus struct {
		Status int
		Body   struct {
			B int `json:"b"`
		}
	}
	r := New()
	calls := 0
	Post(r, "/items", func(ctx context.Context, _ *in) (*created, error) {
		calls++
		return &created{}, nil
	})
	Put(r, "/items/1", func(ctx context.Context, _ *in) (*struct{}, error) {
		calls++
		return &struct{}{}, nil
	}, Status(204))
	Put(r, "/items/2", func(ctx context.Context, _ *in) (*withStatus, error) {
		calls++
		return &withStatus{Status: 204}, nil
	})
	for _, tc := range []struct {
		name, method, path, accept string
		status, calls              int
	}{
		{"refused before the handler", "POST", "/items", "text/html", 406, 0},
		{"accepted", "POST", "/items", "text/html, application/json;q=0.1", 200, 1},
		{"no body: never refused", "PUT", "/items/1", "text/html", 204, 1},
		{"a Status field may give a body: refused", "PUT", "/items/2", "text/html", 406, 0},
		{"a Status field that gives none", "PUT", "/items/2", "application/json", 204, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			calls = 0
			req := httptest.NewRequest(tc.method, tc.path, strings.NewReader(`{"a":1}`))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", tc.accept)
			w := httptest.NewRecorder()
			r.ServeHTTP(w, req)
			if w.Code != tc.status || calls != tc.calls {
				t.Errorf("%d after %d handler calls, want %d after %d: %s", w.Code, calls, tc.status, tc.calls, w.Body)
			}
		})
	}
	for i, want := range []bool{true, false, true} {
		if got := r.Operations()[i].Response(406) != nil; got != want {
			t.Errorf("%s %s documents 406: %v, want %v", r.Operations()[i].Method, r.Operations()[i].Pattern, got, want)
		}
	}
}
