package vane_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/vane-http/vane"
)

// vane.Param's comment: it does not allocate, except for a path sent with
// escapes that change its meaning, whose value is unescaped into a new
// string.
func TestParamAllocatesOnlyForEscapes(t *testing.T) {
	for _, c := range []struct {
		target, want string
		allocates    bool
	}{
		{"/files/report", "report", false},
		{"/files/a%2Fb", "a/b", true},
	} {
		r := vane.New()
		var req *http.Request
		r.HandleFunc(http.MethodGet, "/files/{name}", func(_ http.ResponseWriter, got *http.Request) { req = got })
		r.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, c.target, nil))
		if req == nil {
			t.Fatalf("%s: not routed", c.target)
		}
		var v string
		n := testing.AllocsPerRun(100, func() { v = vane.Param(req, "name") })
		if v != c.want || (n > 0) != c.allocates {
			t.Errorf("%s: Param = %q with %v allocations; want %q, allocating: %v", c.target, v, n, c.want, c.allocates)
		}
	}
}
