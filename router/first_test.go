package router

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestFirstSegmentsMayMatch(t *testing.T) {
	fs := newFirstSegments([]string{"/", "/repos/{owner}", "/users", "/files/{path...}"})
	for p, want := range map[string]bool{
		"/":            true,
		"/repos":       true,
		"/repos/x/y/z": true,
		"/users/":      true,
		"/files":       true,
		"/this/route":  false,
		"/user":        false,
		"/usersx":      false,
		"/Repos":       false,
		"":             true, // not a path a route could have: asked of the trees
		"*":            true,
	} {
		if got := fs.mayMatch(p); got != want {
			t.Errorf("mayMatch(%q) = %v, want %v", p, got, want)
		}
	}
	for _, patterns := range [][]string{{"/users", "/{tenant}/items"}, {"/users", "/v{version}/items"}} {
		if fs := newFirstSegments(patterns); !fs.mayMatch("/anything") || !fs.mayMatch("/v2") {
			t.Errorf("%q: a route whose first segment holds a parameter may match any path", patterns)
		}
	}
}

// TestMissOfAnUnknownFirstSegment: a path whose first segment begins no
// route of any method is a 404 problem, for every method, OPTIONS
// included, without an Allow header, and without allocating; a path that
// begins a route still gets its 405, OPTIONS answer and redirect.
func TestMissOfAnUnknownFirstSegment(t *testing.T) {
	r := New()
	r.Get("/users/{id}", echoHandler("user"))
	r.Post("/users", echoHandler("users"))
	for _, method := range []string{"GET", "POST", "OPTIONS", "DELETE"} {
		w := httptest.NewRecorder()
		r.ServeHTTP(w, httptest.NewRequest(method, "/this/does/not/exist", nil))
		if w.Code != 404 || w.Header().Get("Allow") != "" || w.Header().Get("Content-Type") != "application/problem+json" {
			t.Errorf("%s: %d, Allow %q, %q", method, w.Code, w.Header().Get("Allow"), w.Header().Get("Content-Type"))
		}
	}
	for _, tc := range []struct {
		method, path string
		code         int
	}{
		{"DELETE", "/users", 405},
		{"OPTIONS", "/users", 204},
		{"POST", "/users/", 308},
		{"GET", "/users/1/x", 404},
	} {
		w := httptest.NewRecorder()
		r.ServeHTTP(w, httptest.NewRequest(tc.method, tc.path, nil))
		if w.Code != tc.code {
			t.Errorf("%s %s: %d, want %d", tc.method, tc.path, w.Code, tc.code)
		}
	}
	w := &discard{h: http.Header{}}
	req := httptest.NewRequest("GET", "/this/does/not/exist", nil)
	if n := testing.AllocsPerRun(100, func() { clear(w.h); r.ServeHTTP(w, req) }); n != 0 {
		t.Errorf("a 404 allocates %.0f times", n)
	}
}
