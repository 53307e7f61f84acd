package vane_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/vane-http/vane"
	"github.com/vane-http/vane/problem"
)

// An operation documents the problem type of its own that it sends, with
// its extension members, and the header that comes with a 401.
func ExampleProblemType() {
	type OutOfCredit struct {
		Balance int `json:"balance"`
	}
	r := vane.New()
	vane.Post(r, "/orders", func(ctx context.Context, in *struct{ Body struct{ Total int } }) (*struct{}, error) {
		p := vane.Forbidden("the order costs more than your balance").With("balance", 30)
		p.Type = "https://example.com/probs/out-of-credit"
		return nil, p
	}, vane.Problems(
		vane.ProblemType{Status: 403, Type: "https://example.com/probs/out-of-credit", Extensions: OutOfCredit{}},
		vane.ProblemType{Status: 401, Headers: map[string]string{"WWW-Authenticate": "how to log in"}},
	))
	d := r.Operations()[0]
	s, _ := json.Marshal(d.Response(403).Content[0].Schema)
	fmt.Println(string(s))
	fmt.Println(d.Response(401).Headers[0].Name)
	// Output:
	// {"allOf":[{"$ref":"#/components/schemas/Problem"},{"properties":{"type":{"const":"https://example.com/probs/out-of-credit"}},"required":["type"]},{"$ref":"#/components/schemas/OutOfCredit"}]}
	// WWW-Authenticate
}

// Middleware in front of typed operations answers through the same error
// model: the same problem shape, its headers, and the ErrorHook.
func ExampleRouter_WriteError() {
	var r *vane.Router
	requireToken := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			if req.Header.Get("Authorization") == "" {
				r.WriteError(w, req, vane.Unauthorized("a bearer token is required").
					WithHeader("WWW-Authenticate", `Bearer realm="example"`))
				return
			}
			next.ServeHTTP(w, req)
		})
	}
	r = vane.New(vane.ErrorHook(func(req *http.Request, p *problem.Details) *problem.Details {
		q := *p
		q.Instance = req.URL.Path
		return &q
	}))
	vane.Get(r.Group("", vane.Middleware(requireToken)), "/me", func(ctx context.Context, in *struct{}) (*struct{ Name string }, error) {
		return &struct{ Name string }{"ann"}, nil
	})
	w := httptest.NewRecorder()
	r.ServeHTTP(w, httptest.NewRequest("GET", "/me", nil))
	fmt.Println(w.Code, w.Header().Get("WWW-Authenticate"))
	fmt.Println(w.Body.String())
	// Output:
	// 401 Bearer realm="example"
	// {"type":"about:blank","title":"Unauthorized","status":401,"detail":"a bearer token is required","instance":"/me"}
}

// Caller is resolved from the request wherever an input holds one.
type Caller struct{ Name string }

func (c *Caller) Resolve(ctx context.Context, req *http.Request) []problem.FieldError {
	if req.Header.Get("X-User") == "" {
		return []problem.FieldError{{Location: "header.X-User", Message: "who is calling?"}}
	}
	c.Name = req.Header.Get("X-User")
	return nil
}

// A field whose type is a Resolver is resolved as the input is: the same
// part reused by many inputs.
func ExampleResolver_field() {
	type ListOrders struct {
		Caller Caller
		Limit  int `query:"limit" default:"10"`
	}
	r := vane.New()
	vane.Get(r, "/orders", func(ctx context.Context, in *ListOrders) (*[]string, error) {
		return &[]string{in.Caller.Name + "'s first order"}, nil
	})
	for _, user := range []string{"ann", ""} {
		req := httptest.NewRequest("GET", "/orders", nil)
		req.Header.Set("X-User", user)
		w := httptest.NewRecorder()
		r.ServeHTTP(w, req)
		fmt.Println(w.Code, w.Body.String())
	}
	// Output:
	// 200 ["ann's first order"]
	// 422 {"type":"about:blank","title":"Unprocessable Entity","status":422,"detail":"validation failed","errors":[{"location":"header.X-User","message":"who is calling?"}]}
}
