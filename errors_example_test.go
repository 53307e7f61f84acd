package vane_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/vane-http/vane"
	"github.com/vane-http/vane/problem"
)

// An error with a response header, through the error model.
func ExampleErrorUnauthorized() {
	r := vane.New()
	vane.Get(r, "/me", func(ctx context.Context, in *struct {
		Auth string `header:"Authorization"`
	}) (*struct{ Name string }, error) {
		if in.Auth == "" {
			return nil, vane.ErrorUnauthorized("log in first").WithHeader("WWW-Authenticate", `Bearer realm="example"`)
		}
		return &struct{ Name string }{"ann"}, nil
	})
	w := httptest.NewRecorder()
	r.ServeHTTP(w, httptest.NewRequest("GET", "/me", nil))
	fmt.Println(w.Code, w.Header().Get("WWW-Authenticate"))
	fmt.Println(w.Body.String())
	// Output:
	// 401 Bearer realm="example"
	// {"type":"about:blank","title":"Unauthorized","status":401,"detail":"log in first"}
}

// A problem type of one's own, with its extension members.
func ExampleError_problemType() {
	r := vane.New()
	vane.Post(r, "/orders", func(ctx context.Context, in *struct{ Body struct{ Total int } }) (*struct{}, error) {
		return nil, vane.Error(http.StatusForbidden, "the order costs more than your balance").
			WithType("https://example.com/probs/out-of-credit", "Out of credit").
			With("balance", 30)
	})
	w := httptest.NewRecorder()
	req := httptest.NewRequest("POST", "/orders", strings.NewReader(`{"Total": 50}`))
	req.Header.Set("Content-Type", "application/json")
	r.ServeHTTP(w, req)
	fmt.Println(w.Body.String())
	// Output:
	// {"type":"https://example.com/probs/out-of-credit","title":"Out of credit","status":403,"detail":"the order costs more than your balance","balance":30}
}

// Every error response passes through one hook, which may log it or
// change it.
func ExampleOnError() {
	r := vane.New(vane.OnError(func(req *http.Request, p *problem.Details, err error) {
		if err != nil {
			log.Printf("%s %s: %v", req.Method, req.URL.Path, err) // the handler's error
		}
		p.Instance = req.URL.Path
	}))
	vane.Get(r, "/items/{id}", func(ctx context.Context, in *struct {
		ID int `path:"id"`
	}) (*struct{}, error) {
		return nil, vane.ErrorNotFound("no such item")
	})
	w := httptest.NewRecorder()
	r.ServeHTTP(w, httptest.NewRequest("GET", "/items/x", nil))
	fmt.Println(w.Body.String())
	// Output:
	// {"type":"about:blank","title":"Unprocessable Entity","status":422,"detail":"validation failed","instance":"/items/x","errors":[{"location":"path.id","message":"expected an integer","value":"x"}]}
}

// Validation messages in the client's language.
func ExampleValidationMessages() {
	german := map[string]string{"required parameter is missing": "Pflichtparameter fehlt"}
	r := vane.New(vane.ValidationMessages(func(req *http.Request, e problem.FieldError) string {
		if req.Header.Get("Accept-Language") == "de" && german[e.Message] != "" {
			return german[e.Message]
		}
		return e.Message
	}))
	vane.Get(r, "/search", func(ctx context.Context, in *struct {
		Q string `query:"q" required:"true"`
	}) (*struct{}, error) {
		return nil, nil
	})
	w := httptest.NewRecorder()
	req := httptest.NewRequest("GET", "/search", nil)
	req.Header.Set("Accept-Language", "de")
	r.ServeHTTP(w, req)
	fmt.Println(w.Body.String())
	// Output:
	// {"type":"about:blank","title":"Unprocessable Entity","status":422,"detail":"validation failed","errors":[{"location":"query.q","message":"Pflichtparameter fehlt"}]}
}

// An operation documents the problem type of its own that it sends, with
// its extension members, and the header that comes with a 401.
func ExampleProblemType() {
	type OutOfCredit struct {
		Balance int `json:"balance"`
	}
	r := vane.New()
	vane.Post(r, "/orders", func(ctx context.Context, in *struct{ Body struct{ Total int } }) (*struct{}, error) {
		return nil, vane.ErrorForbidden("the order costs more than your balance").
			WithType("https://example.com/probs/out-of-credit").With("balance", 30)
	}, func(op *vane.Op) {
		op.Problems = []vane.ProblemType{
			{Status: 403, Type: "https://example.com/probs/out-of-credit", Extensions: OutOfCredit{}},
			{Status: 401, Headers: map[string]string{"WWW-Authenticate": "how to log in"}},
		}
	})
	d := r.Operations()[0]
	s, _ := json.Marshal(d.Response(403).Content[0].Schema)
	fmt.Println(string(s))
	fmt.Println(d.Response(401).Headers[0].Name)
	// Output:
	// {"allOf":[{"$ref":"#/components/schemas/Problem"},{"properties":{"type":{"const":"https://example.com/probs/out-of-credit"}},"required":["type"]},{"$ref":"#/components/schemas/OutOfCredit"}]}
	// WWW-Authenticate
}

// Middleware in front of typed operations answers through the same error
// model: the same problem shape, headers, and the OnError hook.
func ExampleRouter_WriteError() {
	var r *vane.Router
	requireToken := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			if req.Header.Get("Authorization") == "" {
				r.WriteError(w, req, vane.ErrorUnauthorized("a bearer token is required").
					WithHeader("WWW-Authenticate", `Bearer realm="example"`))
				return
			}
			next.ServeHTTP(w, req)
		})
	}
	r = vane.New(vane.OnError(func(req *http.Request, p *problem.Details, err error) {
		p.Instance = req.URL.Path
	}))
	vane.Get(r.Group("", requireToken), "/me", func(ctx context.Context, in *struct{}) (*struct{ Name string }, error) {
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
