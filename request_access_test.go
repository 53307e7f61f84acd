package vane

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/vane-http/vane/problem"
)

type whoIn struct {
	Req    *http.Request
	Name   string `query:"name"`
	tenant string // resolved from the host
}

// Resolve takes the tenant from the host: acme.example.com is "acme".
func (in *whoIn) Resolve(ctx context.Context, req *http.Request) []problem.FieldError {
	host, _, _ := strings.Cut(req.Host, ":")
	tenant, ok := strings.CutSuffix(host, ".example.com")
	if !ok || tenant == "" {
		return []problem.FieldError{{Location: "header.Host", Message: "expected a tenant's host, <tenant>.example.com", Value: req.Host}}
	}
	in.tenant = tenant
	return nil
}

type whoOut struct {
	Body string
}

func who(ctx context.Context, in *whoIn) (*whoOut, error) {
	return &whoOut{Body: fmt.Sprintf("%s from %s for %s, tls %v", in.Name, in.Req.RemoteAddr, in.tenant, in.Req.TLS != nil)}, nil
}

// A typed handler reaches the request through an untagged *http.Request
// field, and a Resolver computes fields from it, its failures answered as
// a 422 before the handler runs.
func TestRequestAccessAndResolver(t *testing.T) {
	r := New()
	Get(r, "/who", who)
	req := httptest.NewRequest("GET", "http://acme.example.com/who?name=ann", nil)
	req.RemoteAddr = "203.0.113.7:5555"
	w := httptest.NewRecorder()
	r.ServeHTTP(w, req)
	if want := `"ann from 203.0.113.7:5555 for acme, tls false"`; w.Code != 200 || w.Body.String() != want {
		t.Errorf("%d %s, want %s", w.Code, w.Body, want)
	}
	req = httptest.NewRequest("GET", "http://other.org/who?name=ann", nil)
	w = httptest.NewRecorder()
	r.ServeHTTP(w, req)
	if w.Code != 422 || !strings.Contains(w.Body.String(), `"location":"header.Host"`) {
		t.Errorf("%d %s", w.Code, w.Body)
	}
}

func ExampleResolver() {
	r := New()
	Get(r, "/who", who)
	req := httptest.NewRequest("GET", "http://acme.example.com/who?name=ann", nil)
	req.RemoteAddr = "203.0.113.7:5555"
	w := httptest.NewRecorder()
	r.ServeHTTP(w, req)
	fmt.Println(w.Code, w.Body)
	// Output: 200 "ann from 203.0.113.7:5555 for acme, tls false"
}
