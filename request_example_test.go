package vane_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/vane-http/vane"
	"github.com/vane-http/vane/problem"
)

// A typed handler reads facts of the request through a field of its input.
func ExampleRequest() {
	type Visit struct {
		Req vane.Request // set to the request; not a parameter
	}
	type Seen struct {
		Client string `json:"client"`
		Host   string `json:"host"`
	}
	r := vane.New()
	vane.Get(r, "/visit", func(ctx context.Context, in *Visit) (*Seen, error) {
		return &Seen{Client: in.Req.ClientIP().String(), Host: in.Req.Host()}, nil
	})
	req := httptest.NewRequest("GET", "http://api.example.com/visit", nil)
	req.RemoteAddr = "192.0.2.7:51234"
	req.Header.Set("X-Forwarded-For", "203.0.113.1") // not believed: no trusted proxy
	w := httptest.NewRecorder()
	r.ServeHTTP(w, req)
	fmt.Println(w.Body.String())
	// Output: {"client":"192.0.2.7","host":"api.example.com"}
}

// Tenant resolves itself from the request's host, after binding.
type Tenant struct{ Name string }

func (t *Tenant) Resolve(req *http.Request) []problem.FieldError {
	switch req.Host {
	case "acme.example.com":
		t.Name = "acme"
		return nil
	}
	return []problem.FieldError{{Location: "header.Host", Message: "no such tenant", Value: req.Host}}
}

// A field whose type is a Resolver is computed from the request; its
// errors join the other validation failures in one 422.
func ExampleResolver() {
	type ListUsers struct {
		Tenant Tenant
		Limit  int `query:"limit" maximum:"100"`
	}
	r := vane.New()
	vane.Get(r, "/users", func(ctx context.Context, in *ListUsers) (*[]string, error) {
		return &[]string{in.Tenant.Name + "/ann"}, nil
	})
	for _, target := range []string{"http://acme.example.com/users", "http://other.example.com/users?limit=500"} {
		w := httptest.NewRecorder()
		r.ServeHTTP(w, httptest.NewRequest("GET", target, nil))
		fmt.Println(w.Code, w.Body.String())
	}
	// Output:
	// 200 ["acme/ann"]
	// 422 {"type":"about:blank","title":"Unprocessable Entity","status":422,"detail":"validation failed","errors":[{"location":"header.Host","message":"no such tenant","value":"other.example.com"},{"location":"query.limit","message":"expected number <= 100","value":500}]}
}
