package vane_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/vane-http/vane"
	"github.com/vane-http/vane/problem"
)

type guardedInput struct {
	ID   string `path:"id"`
	Body struct {
		Text string `json:"text"`
	}
}

func (in *guardedInput) Precondition(ctx context.Context) (string, time.Time, error) {
	if in.ID == "missing" {
		return "", time.Time{}, vane.NotFound("no such doc")
	}
	return `"v1"`, time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), nil
}

func TestPreconditionsBeforeHandler(t *testing.T) {
	r := vane.New()
	calls := 0
	vane.Put(r, "/docs/{id}", func(ctx context.Context, in *guardedInput) (*struct{}, error) {
		calls++
		return nil, nil
	})
	for _, tc := range []struct {
		name   string
		id     string
		header string
		value  string
		want   int
		calls  int
	}{
		{"no precondition", "a", "", "", 204, 1},
		{"If-Match holds", "a", "If-Match", `"v1"`, 204, 1},
		{"If-Match fails", "a", "If-Match", `"v0"`, 412, 0},
		{"If-Unmodified-Since fails", "a", "If-Unmodified-Since", "Thu, 01 Jan 2026 00:00:00 GMT", 412, 0},
		{"If-None-Match * on an existing doc", "a", "If-None-Match", "*", 412, 0},
		{"Precondition's error", "missing", "If-Match", `"v1"`, 404, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			calls = 0
			req := httptest.NewRequest("PUT", "/docs/"+tc.id, strings.NewReader(`{"text":"x"}`))
			req.Header.Set("Content-Type", "application/json")
			if tc.header != "" {
				req.Header.Set(tc.header, tc.value)
			}
			w := httptest.NewRecorder()
			r.ServeHTTP(w, req)
			if w.Code != tc.want || calls != tc.calls {
				t.Errorf("got %d with %d handler calls, want %d with %d: %s", w.Code, calls, tc.want, tc.calls, w.Body)
			}
			if w.Code >= 400 && w.Header().Get("Content-Type") != "application/problem+json" {
				t.Errorf("Content-Type %q", w.Header().Get("Content-Type"))
			}
		})
	}
	d := r.Operations()[0]
	if !d.Preconditions || d.Response(http.StatusPreconditionFailed) == nil || d.Response(http.StatusNotModified) != nil {
		t.Errorf("documented: Preconditions %v, responses %+v", d.Preconditions, d.Responses)
	}
	if d.Param("header", "If-Match") == nil || d.Param("header", "If-None-Match") == nil || d.Param("header", "If-Modified-Since") != nil {
		t.Errorf("documented parameters %+v", d.Parameters)
	}
}

func TestNotAcceptableBeforeHandler(t *testing.T) {
	r := vane.New()
	calls := 0
	vane.Get(r, "/items", func(ctx context.Context, in *struct{}) (*[]string, error) {
		calls++
		return &[]string{"a"}, nil
	})
	req := httptest.NewRequest("GET", "/items", nil)
	req.Header.Set("Accept", "text/html")
	w := httptest.NewRecorder()
	r.ServeHTTP(w, req)
	if w.Code != http.StatusNotAcceptable || calls != 0 || !strings.Contains(w.Body.String(), "application/json") {
		t.Errorf("got %d after %d calls: %s", w.Code, calls, w.Body)
	}
	if d := r.Operations()[0]; d.Response(http.StatusNotAcceptable) == nil {
		t.Errorf("406 not documented: %+v", d.Responses)
	}
}

// The router writes its 404 and 405 by hand (router/ links the standard
// library only): they must be what package problem would write.
func TestRouterProblemsMatchPackageProblem(t *testing.T) {
	r := vane.New()
	r.Get("/a", func(w http.ResponseWriter, r *http.Request) {})
	for _, tc := range []struct {
		method, path string
		status       int
	}{
		{"GET", "/nowhere", 404},
		{"DELETE", "/a", 405},
	} {
		w := httptest.NewRecorder()
		r.ServeHTTP(w, httptest.NewRequest(tc.method, tc.path, nil))
		var p problem.Details
		if err := json.Unmarshal(w.Body.Bytes(), &p); err != nil || p.Status != tc.status {
			t.Fatalf("%s %s: %d %s", tc.method, tc.path, w.Code, w.Body)
		}
		want := httptest.NewRecorder()
		problem.Write(want, &p)
		if w.Code != want.Code || w.Body.String() != want.Body.String() ||
			w.Header().Get("Content-Type") != want.Header().Get("Content-Type") ||
			w.Header().Get("X-Content-Type-Options") != want.Header().Get("X-Content-Type-Options") {
			t.Errorf("%s %s: router wrote %d %v %s, problem.Write %d %v %s", tc.method, tc.path,
				w.Code, w.Header(), w.Body, want.Code, want.Header(), want.Body)
		}
	}
}
