package vane

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/vane-http/vane/problem"
)

type creditIn struct {
	Amount int `query:"amount" minimum:"1"`
}

// A handler's problem carries its own type, extension members and
// response headers to the client.
func TestErrorsUsersOwn(t *testing.T) {
	r := New()
	Get(r, "/buy", func(ctx context.Context, in *creditIn) (*struct{}, error) {
		if in.Amount > 30 {
			p := Forbidden("your balance is too low").With("balance", 30).With("accounts", []string{"/account/12345"})
			p.Type = "https://example.com/probs/out-of-credit"
			return nil, p
		}
		return nil, Unauthorized("a valid bearer token is required").WithHeader("WWW-Authenticate", `Bearer realm="pets"`)
	})
	w := serve(r, "GET", "/buy?amount=50", "")
	want := `{"type":"https://example.com/probs/out-of-credit","title":"Forbidden","status":403,"detail":"your balance is too low","accounts":["/account/12345"],"balance":30}`
	if w.Code != 403 || w.Body.String() != want {
		t.Errorf("%d %s\nwant %s", w.Code, w.Body, want)
	}
	w = serve(r, "GET", "/buy?amount=5", "")
	if w.Code != 401 || w.Header().Get("WWW-Authenticate") != `Bearer realm="pets"` || w.Header().Get("Content-Type") != problem.ContentType {
		t.Errorf("%d %v %s", w.Code, w.Header(), w.Body)
	}
}

// The router's ErrorHook sees every problem a typed operation answers
// with, bad input and handler errors alike, and writes what it returns.
func TestErrorHook(t *testing.T) {
	var seen []int
	r := New(ErrorHook(func(req *http.Request, p *problem.Details) *problem.Details {
		seen = append(seen, p.Status)
		q := *p
		q.Instance = req.URL.Path
		q.Errors = nil
		for _, e := range p.Errors {
			if strings.HasPrefix(e.Message, "expected number >= ") {
				e.Message = "doit être au moins " + strings.TrimPrefix(e.Message, "expected number >= ")
			}
			q.Errors = append(q.Errors, e)
		}
		return q.WithHeader("X-Error-Seen", "1")
	}))
	Get(r, "/buy", func(ctx context.Context, in *creditIn) (*struct{}, error) {
		return nil, fmt.Errorf("the database is down")
	})
	cases := []struct{ query, want string }{
		{"?amount=0", `"location":"query.amount","message":"doit être au moins 1"`},
		{"?amount=x", `"location":"query.amount"`},
		{"?amount=5", `"status":500`},
	}
	for _, c := range cases {
		w := serve(r, "GET", "/buy"+c.query, "")
		if !strings.Contains(w.Body.String(), c.want) || !strings.Contains(w.Body.String(), `"instance":"/buy"`) || w.Header().Get("X-Error-Seen") != "1" {
			t.Errorf("%s: %d %s", c.query, w.Code, w.Body)
		}
	}
	if fmt.Sprint(seen) != "[422 422 500]" {
		t.Errorf("the hook saw %v", seen)
	}
}

func ExampleErrorHook() {
	r := New(ErrorHook(func(req *http.Request, p *problem.Details) *problem.Details {
		q := *p // a copy: p may be a value the handler shares
		q.Instance = req.URL.Path
		return &q
	}))
	Get(r, "/items/{id}", func(ctx context.Context, in *struct {
		ID int `path:"id"`
	}) (*struct{}, error) {
		return nil, NotFound("no such item").With("id", in.ID)
	})
	w := httptest.NewRecorder()
	r.ServeHTTP(w, httptest.NewRequest("GET", "/items/7", nil))
	var body map[string]any
	json.Unmarshal(w.Body.Bytes(), &body)
	fmt.Println(w.Code, body["instance"], body["id"])
	// Output: 404 /items/7 7
}
