package vane

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/vane-http/vane/problem"
)

// The router writes its 404 and 405 by hand, since router/ links the
// standard library only (router.TestRouterOnlySize); they must be what
// package problem writes for the same problem.
func TestRouterProblemsMatchPackageProblem(t *testing.T) {
	r := New()
	r.HandleFunc(http.MethodGet, "/a", func(w http.ResponseWriter, r *http.Request) {})
	for _, tc := range []struct {
		method, path string
		status       int
	}{
		{"GET", "/nowhere", 404},
		{"DELETE", "/a", 405},
	} {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			w := httptest.NewRecorder()
			r.ServeHTTP(w, httptest.NewRequest(tc.method, tc.path, nil))
			var p problem.Details
			if err := json.Unmarshal(w.Body.Bytes(), &p); err != nil || p.Status != tc.status {
				t.Fatalf("%d %s", w.Code, w.Body)
			}
			want := httptest.NewRecorder()
			problem.Write(want, &p)
			for _, h := range []string{"Content-Type", "X-Content-Type-Options"} {
				if w.Header().Get(h) != want.Header().Get(h) {
					t.Errorf("%s: router %q, problem.Write %q", h, w.Header().Get(h), want.Header().Get(h))
				}
			}
			if w.Code != want.Code || w.Body.String() != want.Body.String() {
				t.Errorf("router wrote %d %s\nproblem.Write %d %s", w.Code, w.Body, want.Code, want.Body)
			}
		})
	}
}
