package vane

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vane-http/vane/operation"
	"github.com/vane-http/vane/problem"
	"github.com/vane-http/vane/schema"
)

func serve(h http.Handler, method, target, body string, header ...string) *httptest.ResponseRecorder {
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req := httptest.NewRequest(method, target, rd)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	return w
}

func decodeProblem(t *testing.T, w *httptest.ResponseRecorder) problem.Details {
	t.Helper()
	if ct := w.Header().Get("Content-Type"); ct != problem.ContentType {
		t.Fatalf("Content-Type %q, body %s", ct, w.Body)
	}
	var p problem.Details
	if err := json.Unmarshal(w.Body.Bytes(), &p); err != nil {
		t.Fatalf("problem body %s: %v", w.Body, err)
	}
	if p.Status != w.Code || p.Type != "about:blank" || p.Title != http.StatusText(w.Code) {
		t.Errorf("problem %+v does not match status %d", p, w.Code)
	}
	return p
}

func TestGreeting(t *testing.T) {
	w := serve(greetingRouter(), "POST", "/foo/123?num=5", `{"suffix":"!"}`, "Content-Type", "application/json")
	if w.Code != 200 {
		t.Fatalf("status %d: %s", w.Code, w.Body)
	}
	if got := w.Header().Get("ETag"); got != "abc123" {
		t.Errorf("ETag %q", got)
	}
	if got := w.Header().Get("Last-Modified"); got != "Tue, 02 Jan 2024 03:04:05 GMT" {
		t.Errorf("Last-Modified %q", got)
	}
	if got := w.Header().Get("Content-Type"); got != "application/json" {
		t.Errorf("Content-Type %q", got)
	}
	want := `{"greeting":"Hello, 123!","suffix":"!","length":11,"content_type":"application/json","num":5}`
	if got := w.Body.String(); got != want {
		t.Errorf("body %s, want %s", got, want)
	}
}

func TestGreetingAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes allocation counts")
	}
	h := greetingRouter()
	req, body := greetingRequest()
	w := &benchWriter{h: http.Header{}}
	n := testing.AllocsPerRun(200, func() {
		body.rewind()
		w.reset()
		h.ServeHTTP(w, req)
	})
	if w.status != 200 {
		t.Fatalf("status %d", w.status)
	}
	// vane's target is at most 6; it makes 4: the input, the handler's
	// own two (its output and the greeting string) and the header values.
	// The body is encoded into a pooled buffer, and the Last-Modified
	// text, the same second as before, is remembered.
	if n > 4 {
		t.Errorf("%v allocations per request, want at most 4", n)
	}
}

func TestValidationProblem(t *testing.T) {
	r := New()
	type in struct {
		ID   int64    `path:"id" minimum:"1"`
		Tags []string `query:"tag" maxLength:"3"`
		Body struct {
			Items []struct {
				Name string `json:"name" minLength:"2"`
			} `json:"items"`
		}
	}
	Put(r, "/things/{id}", func(ctx context.Context, in *in) (*struct{}, error) {
		t.Error("handler called with invalid input")
		return nil, nil
	})
	w := serve(r, "PUT", "/things/0?tag=ok&tag=toolong", `{"items":[{"name":"ab"},{"name":"ab"},{"name":"x"}]}`, "Content-Type", "application/json")
	if w.Code != 422 {
		t.Fatalf("status %d: %s", w.Code, w.Body)
	}
	p := decodeProblem(t, w)
	want := []problem.FieldError{
		{Location: "path.id", Message: "expected number >= 1", Value: float64(0)},
		{Location: "query.tag[1]", Message: "expected length <= 3", Value: "toolong"},
		{Location: "body.items[2].name", Message: "expected length >= 2", Value: "x"},
	}
	if len(p.Errors) != len(want) {
		t.Fatalf("errors %+v", p.Errors)
	}
	for i := range want {
		if p.Errors[i] != want[i] {
			t.Errorf("error %d: %+v, want %+v", i, p.Errors[i], want[i])
		}
	}
	// The raw shape: exactly these keys.
	var raw map[string]any
	json.Unmarshal(w.Body.Bytes(), &raw)
	for _, k := range []string{"type", "title", "status", "detail", "errors"} {
		if _, ok := raw[k]; !ok {
			t.Errorf("problem body lacks %q: %s", k, w.Body)
		}
	}
	first := raw["errors"].([]any)[0].(map[string]any)
	if len(first) != 3 || first["location"] != "path.id" {
		t.Errorf("field error shape: %v", first)
	}
}

func TestParseAndValidationFailuresTogether(t *testing.T) {
	r := New()
	type in struct {
		N    int    `query:"n"`
		Name string `query:"name" minLength:"3"`
	}
	Get(r, "/x", func(ctx context.Context, in *in) (*struct{}, error) { return nil, nil })
	w := serve(r, "GET", "/x?n=abc&name=a", "")
	p := decodeProblem(t, w)
	if w.Code != 422 || len(p.Errors) != 2 || p.Errors[0].Location != "query.n" || p.Errors[1].Location != "query.name" {
		t.Errorf("%d %+v", w.Code, p.Errors)
	}
}

func TestErrorStatuses(t *testing.T) {
	type body struct {
		Body struct {
			Name string `json:"name"`
		}
	}
	type empty struct{}
	r := New(BodyLimit(64))
	Post(r, "/items", func(ctx context.Context, in *body) (*empty, error) { return &empty{}, nil })
	Get(r, "/missing", func(ctx context.Context, in *empty) (*empty, error) { return nil, NotFound("no such item") })
	Get(r, "/conflict", func(ctx context.Context, in *empty) (*empty, error) {
		return nil, Error(http.StatusConflict, "taken", problem.FieldError{Location: "body.name", Message: "exists", Value: "x"}, errors.New("plain"))
	})
	Get(r, "/boom", func(ctx context.Context, in *empty) (*empty, error) {
		return nil, errors.New("database password is hunter2")
	})
	Get(r, "/unavailable", func(ctx context.Context, in *empty) (*empty, error) { return nil, Unavailable(0, "maintenance") })
	Get(r, "/teapot", func(ctx context.Context, in *empty) (*empty, error) { return nil, teapot{} })
	Get(r, "/secret5xx", func(ctx context.Context, in *empty) (*empty, error) {
		return nil, statusErr{502, "upstream said hunter2"}
	})
	Get(r, "/wrapped", func(ctx context.Context, in *empty) (*empty, error) {
		return nil, errors.Join(errors.New("context"), Forbidden("not yours"))
	})

	cases := []struct {
		method, target, body, ct string
		status                   int
		detail                   string
	}{
		{"POST", "/items", `{"name":`, "application/json", 400, "malformed JSON at byte offset 8"},
		{"POST", "/items", `{"name":"` + strings.Repeat("x", 100) + `"}`, "application/json", 413, "limit of 64 bytes"},
		{"POST", "/items", `name=x`, "application/x-www-form-urlencoded", 415, "not supported"},
		{"POST", "/items", `{"name":1}`, "application/json", 422, "validation failed"},
		{"POST", "/items", `{}`, "application/json", 422, "validation failed"},
		{"GET", "/missing", "", "", 404, "no such item"},
		{"GET", "/conflict", "", "", 409, "taken"},
		{"GET", "/boom", "", "", 500, "the server failed to handle the request"},
		{"GET", "/unavailable", "", "", 503, "maintenance"},
		{"GET", "/teapot", "", "", 418, "short and stout"},
		{"GET", "/secret5xx", "", "", 502, "Bad Gateway"},
		{"GET", "/wrapped", "", "", 403, "not yours"},
	}
	for _, c := range cases {
		w := serve(r, c.method, c.target, c.body, "Content-Type", c.ct)
		if w.Code != c.status {
			t.Errorf("%s %s: status %d, want %d: %s", c.method, c.target, w.Code, c.status, w.Body)
			continue
		}
		p := decodeProblem(t, w)
		if !strings.Contains(p.Detail, c.detail) {
			t.Errorf("%s %s: detail %q, want %q", c.method, c.target, p.Detail, c.detail)
		}
		if strings.Contains(w.Body.String(), "hunter2") {
			t.Errorf("%s %s leaks the error: %s", c.method, c.target, w.Body)
		}
	}
	w := serve(r, "GET", "/conflict", "")
	p := decodeProblem(t, w)
	if len(p.Errors) != 2 || p.Errors[0].Location != "body.name" || p.Errors[1].Message != "plain" {
		t.Errorf("details: %+v", p.Errors)
	}
}

type teapot struct{}

func (teapot) Error() string   { return "short and stout" }
func (teapot) StatusCode() int { return http.StatusTeapot }

type statusErr struct {
	code int
	msg  string
}

func (e statusErr) Error() string   { return e.msg }
func (e statusErr) StatusCode() int { return e.code }

func TestOutputs(t *testing.T) {
	type empty struct{}
	type item struct {
		ID   int    `json:"id"`
		Name string `json:"name"`
	}
	type created struct {
		Status   int
		Location string     `header:"Location"`
		Count    int        `header:"X-Count"`
		Cache    *int       `header:"X-Cache-Age"`
		Expires  *time.Time `header:"Expires"`
		Vary     []string
		Links    []string `header:"Link"`
		Body     item
	}
	type file struct {
		ContentType string `header:"Content-Type"`
		Body        []byte
	}
	type stream struct {
		Body io.Reader
	}
	r := New()
	Get(r, "/item", func(ctx context.Context, in *empty) (*item, error) { return &item{1, "a"}, nil })
	Get(r, "/none", func(ctx context.Context, in *empty) (*item, error) { return nil, nil })
	Post(r, "/items", func(ctx context.Context, in *empty) (*created, error) {
		age := 60
		return &created{Location: "/items/2", Count: 3, Cache: &age, Links: []string{"<a>", "<b>"}, Body: item{2, "b"}}, nil
	}, Responds(201, "created"))
	Post(r, "/accept", func(ctx context.Context, in *empty) (*created, error) {
		return &created{Status: http.StatusAccepted}, nil
	})
	Get(r, "/file", func(ctx context.Context, in *empty) (*file, error) {
		return &file{ContentType: "text/csv", Body: []byte("a,b\n")}, nil
	})
	Get(r, "/stream", func(ctx context.Context, in *empty) (*stream, error) {
		return &stream{Body: strings.NewReader("streamed")}, nil
	})
	Get(r, "/list", func(ctx context.Context, in *empty) (*[]item, error) { return &[]item{{1, "a"}}, nil })

	check := func(method, target string, status int, body string, headers ...string) {
		t.Helper()
		w := serve(r, method, target, "")
		if w.Code != status || w.Body.String() != body {
			t.Errorf("%s %s: %d %q, want %d %q", method, target, w.Code, w.Body, status, body)
		}
		for i := 0; i+1 < len(headers); i += 2 {
			if got := strings.Join(w.Header().Values(headers[i]), "|"); got != headers[i+1] {
				t.Errorf("%s %s: header %s = %q, want %q", method, target, headers[i], got, headers[i+1])
			}
		}
	}
	check("GET", "/item", 200, `{"id":1,"name":"a"}`, "Content-Type", "application/json")
	check("GET", "/none", 204, "")
	check("POST", "/items", 201, `{"id":2,"name":"b"}`, "Location", "/items/2", "X-Count", "3", "Link", "<a>|<b>", "X-Cache-Age", "60", "Expires", "")
	check("POST", "/accept", 202, `{"id":0,"name":""}`, "Location", "")
	check("GET", "/file", 200, "a,b\n", "Content-Type", "text/csv")
	check("GET", "/stream", 200, "streamed", "Content-Type", "application/octet-stream")
	check("GET", "/list", 200, `[{"id":1,"name":"a"}]`)
}

func TestGroupsMiddlewareAndDescription(t *testing.T) {
	r := New()
	var trace []string
	mw := tracing(&trace)
	api := r.Group("/v1/orgs/{org}", Middleware(mw("group")))
	type in struct {
		Org   string `path:"org"`
		ID    int64  `path:"id" doc:"the item"`
		Limit int    `query:"limit" default:"20" maximum:"100"`
	}
	type out struct {
		Org string `json:"org"`
		ID  int64  `json:"id"`
	}
	Get(api, "/items/{id}", func(ctx context.Context, in *in) (*out, error) {
		trace = append(trace, "handler")
		return &out{in.Org, in.ID}, nil
	}, Summary("Get an item"), Tags("items"), Middleware(mw("op")), Responds(404, "no such item"))
	w := serve(r, "GET", "/v1/orgs/acme/items/7", "")
	if w.Code != 200 || w.Body.String() != `{"org":"acme","id":7}` {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	if strings.Join(trace, ",") != "group,op,handler" {
		t.Errorf("middleware order: %v", trace)
	}
	ops := r.Operations()
	if len(ops) != 1 {
		t.Fatalf("%d operations", len(ops))
	}
	d := ops[0]
	if d.Pattern != "/v1/orgs/{org}/items/{id}" || d.ID != "get-v1-orgs-by-org-items-by-id" || d.Status != 200 || d.Summary != "Get an item" {
		t.Errorf("description: %+v", d)
	}
	if p := d.Param(operation.InPath, "id"); p == nil || !p.Required || p.Description != "the item" {
		t.Errorf("path param: %+v", p)
	}
	if p := d.Param(operation.InQuery, "limit"); p == nil || p.Required || *p.Schema.Maximum != 100 {
		t.Errorf("query param: %+v", p)
	}
	var statuses []int
	for _, resp := range d.Responses {
		statuses = append(statuses, resp.Status)
	}
	if got := strings.Trim(strings.Join(strings.Fields(strings.Trim(strings.Replace(fmtInts(statuses), ",", " ", -1), "[]")), ","), ","); got != "200,404,406,422,500" {
		t.Errorf("responses %v", statuses)
	}
	if d.Response(404).Description != "no such item" || d.Response(404).Content[0].MediaType != problem.ContentType {
		t.Errorf("404: %+v", d.Response(404))
	}
	if d.Response(200).Content[0].Schema.Ref == "" {
		t.Errorf("200 body should reference the named output type: %+v", d.Response(200).Content[0].Schema)
	}
	if r.Schemas().Schemas()["Problem"] == nil {
		t.Error("the problem schema is not registered")
	}
}

func fmtInts(v []int) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestRegistrationFailures(t *testing.T) {
	type noField struct {
		Other string `query:"x"`
	}
	type strayPath struct {
		ID string `path:"id"`
	}
	type getBody struct {
		Body struct{ A int }
	}
	type badTag struct {
		N int `query:"n" minimum:"one"`
	}
	type empty struct{}
	h := func(in any) {}
	_ = h
	cases := []struct {
		name string
		reg  func(r *Router)
		want string
	}{
		{"pattern param without field", func(r *Router) {
			Get(r, "/a/{id}", func(context.Context, *noField) (*empty, error) { return nil, nil })
		}, "no field binds path parameter {id}"},
		{"path field without pattern param", func(r *Router) {
			Get(r, "/a", func(context.Context, *strayPath) (*empty, error) { return nil, nil })
		}, `path parameter "id" is not in the pattern`},
		{"body on GET", func(r *Router) {
			Get(r, "/a", func(context.Context, *getBody) (*empty, error) { return nil, nil })
		}, "takes no request body"},
		{"bad tag", func(r *Router) {
			Get(r, "/a", func(context.Context, *badTag) (*empty, error) { return nil, nil })
		}, `minimum:"one"`},
		{"duplicate ID", func(r *Router) {
			Get(r, "/a", func(context.Context, *empty) (*empty, error) { return nil, nil }, ID("x"))
			Get(r, "/b", func(context.Context, *empty) (*empty, error) { return nil, nil }, ID("x"))
		}, `operation ID "x" of GET /b is already used by GET /a`},
		{"input not a struct", func(r *Router) {
			Get(r, "/a", func(context.Context, *int) (*empty, error) { return nil, nil })
		}, "is not a struct"},
		{"path names differ", func(r *Router) {
			Get(r, "/a/{x}", func(context.Context, *struct {
				X string `path:"x"`
			}) (*empty, error) {
				return nil, nil
			})
			Post(r, "/a/{y}", func(context.Context, *struct {
				Y string `path:"y"`
			}) (*empty, error) {
				return nil, nil
			})
		}, "GET /a/{x} and POST /a/{y} are the same OpenAPI path (/a/{})"},
		{"catch-all beside a parameter", func(r *Router) {
			Get(r, "/f/{p}", func(context.Context, *struct {
				P string `path:"p"`
			}) (*empty, error) {
				return nil, nil
			})
			Get(r, "/f/{p...}", func(context.Context, *struct {
				P string `path:"p"`
			}) (*empty, error) {
				return nil, nil
			}, ID("rest"))
		}, "GET /f/{p} and GET /f/{p...} are the same OpenAPI operation"},
	}
	for _, c := range cases {
		func() {
			defer func() {
				msg, _ := recover().(string)
				if !strings.Contains(msg, c.want) {
					t.Errorf("%s: panic %q, want %q", c.name, msg, c.want)
				}
			}()
			c.reg(New())
		}()
	}
}

type checkedInput struct {
	From time.Time `query:"from"`
	To   time.Time `query:"to"`
}

func (in *checkedInput) Resolve(ctx context.Context, req *http.Request) []problem.FieldError {
	if !in.From.IsZero() && in.To.Before(in.From) {
		return []problem.FieldError{{Location: "query.to", Message: "must not be before from", Value: in.To}}
	}
	return nil
}

func TestCustomValidation(t *testing.T) {
	r := New()
	Get(r, "/range", func(ctx context.Context, in *checkedInput) (*struct{}, error) { return &struct{}{}, nil })
	if w := serve(r, "GET", "/range?from=2024-01-02T00:00:00Z&to=2024-01-03T00:00:00Z", ""); w.Code != 204 {
		t.Errorf("valid range: %d %s", w.Code, w.Body)
	}
	w := serve(r, "GET", "/range?from=2024-01-02T00:00:00Z&to=2024-01-01T00:00:00Z", "")
	if p := decodeProblem(t, w); w.Code != 422 || len(p.Errors) != 1 || p.Errors[0].Location != "query.to" {
		t.Errorf("%d %+v", w.Code, p)
	}
}

type oldChecker struct {
	Q string `query:"q"`
}

func (*oldChecker) Validate(context.Context) []problem.FieldError { return nil }

type oldResolver struct {
	Q string `query:"q"`
}

func (*oldResolver) Resolve(*http.Request) []problem.FieldError { return nil }

type oldResolverField struct {
	Caller oldResolver
}

// An input hook that would never run is refused at registration: a
// Resolve method that is not Resolver's, on the input or a field's type,
// and a Validate(ctx) method, which typed operations do not call.
func TestHooksThatWouldNotRunAreRefused(t *testing.T) {
	for name, c := range map[string]struct {
		reg  func(r *Router)
		want string
	}{
		"Validate(ctx)": {func(r *Router) {
			Get(r, "/a", func(context.Context, *oldChecker) (*struct{}, error) { return nil, nil })
		}, "*vane.oldChecker has a method Validate(context.Context); vane calls none"},
		"Resolve(req)": {func(r *Router) {
			Get(r, "/a", func(context.Context, *oldResolver) (*struct{}, error) { return nil, nil })
		}, "input *vane.oldResolver has a Resolve method func(*vane.oldResolver, *http.Request) []problem.FieldError"},
		"a field's Resolve(req)": {func(r *Router) {
			Get(r, "/a", func(context.Context, *oldResolverField) (*struct{}, error) { return nil, nil })
		}, "field Caller: *vane.oldResolver has a Resolve method"},
	} {
		func() {
			defer func() {
				if msg := fmt.Sprint(recover()); !strings.Contains(msg, c.want) {
					t.Errorf("%s: panic %q, want %q", name, msg, c.want)
				}
			}()
			c.reg(New())
		}()
	}
}

func TestAbsentParametersAreNotValidated(t *testing.T) {
	r := New()
	type in struct {
		Q    string `query:"q" minLength:"3"`
		Page int    `query:"page" minimum:"1"`
	}
	Get(r, "/search", func(ctx context.Context, in *in) (*struct{}, error) { return &struct{}{}, nil })
	if w := serve(r, "GET", "/search", ""); w.Code != 204 {
		t.Errorf("absent: %d %s", w.Code, w.Body)
	}
	if w := serve(r, "GET", "/search?page=0", ""); w.Code != 422 {
		t.Errorf("present zero: %d %s", w.Code, w.Body)
	}
}

// TestInputNotReused checks that a handler may keep its input, pointers
// into it and its context past its return: later requests change none of
// them.
func TestInputNotReused(t *testing.T) {
	type key struct{}
	type in struct {
		ID   int64 `path:"id"`
		Body struct {
			Name string `json:"name"`
		}
	}
	r := New()
	r.Use(func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			next.ServeHTTP(w, req.WithContext(context.WithValue(req.Context(), key{}, req.URL.Path)))
		})
	})
	type kept struct {
		in   *in
		body *struct {
			Name string `json:"name"`
		}
		ctx context.Context
	}
	var all []kept
	Post(r, "/items/{id}", func(ctx context.Context, in *in) (*struct{}, error) {
		all = append(all, kept{in, &in.Body, ctx})
		return &struct{}{}, nil
	})
	for i := range 5 {
		id := strconv.Itoa(i + 1)
		if w := serve(r, "POST", "/items/"+id, `{"name":"n`+id+`"}`, "Content-Type", "application/json"); w.Code != 204 {
			t.Fatalf("%d %s", w.Code, w.Body)
		}
	}
	for i, k := range all {
		id := strconv.Itoa(i + 1)
		if k.in.ID != int64(i+1) || k.body.Name != "n"+id || k.ctx.Value(key{}) != "/items/"+id || k.ctx.Err() != nil {
			t.Errorf("request %d kept ID %d, body %q, context value %v, err %v", i+1, k.in.ID, k.body.Name, k.ctx.Value(key{}), k.ctx.Err())
		}
	}
}

// An operation left out of the document may have a path the document
// could not describe beside another's.
func TestHiddenPathNamesMayDiffer(t *testing.T) {
	r := New()
	Get(r, "/a/{x}", func(context.Context, *struct {
		X string `path:"x"`
	}) (*struct{}, error) {
		return nil, nil
	})
	Post(r, "/a/{y}", func(context.Context, *struct {
		Y string `path:"y"`
	}) (*struct{}, error) {
		return nil, nil
	}, Hidden())
	Docs(r, DocsConfig{})
	if err := r.Check(); err != nil {
		t.Fatal(err)
	}
}

func TestDefaultsMustKeepTheirRules(t *testing.T) {
	type in struct {
		Limit int    `query:"limit" default:"500" maximum:"100"`
		Sort  string `query:"sort" default:"name" enum:"name,date"`
	}
	defer func() {
		msg, _ := recover().(string)
		if !strings.Contains(msg, "a default breaks its own rules: query.limit: expected number <= 100") {
			t.Errorf("panic %q", msg)
		}
	}()
	Get(New(), "/x", func(context.Context, *in) (*struct{}, error) { return nil, nil })
}

func TestNullBodyIsNotAnObject(t *testing.T) {
	r := New()
	type in struct {
		Body struct {
			Name string `json:"name"`
		}
	}
	Post(r, "/n", func(context.Context, *in) (*struct{}, error) { return &struct{}{}, nil })
	w := serve(r, "POST", "/n", " null ", "Content-Type", "application/json")
	if p := decodeProblem(t, w); w.Code != 422 || len(p.Errors) != 1 || p.Errors[0].Location != "body" {
		t.Errorf("%d %s", w.Code, w.Body)
	}
}

// A value of the wrong type in a body does not hide the body's other
// failures: its rules are checked on the JSON itself, in the same 422.
func TestBodyWithAMistypedValueListsEveryFailure(t *testing.T) {
	r := New()
	type in struct {
		N    int `query:"n" minimum:"5"`
		Body struct {
			Name string `json:"name" minLength:"3"`
			Age  int    `json:"age"`
		}
	}
	Post(r, "/p", func(context.Context, *in) (*struct{}, error) { return &struct{}{}, nil })
	w := serve(r, "POST", "/p?n=1", `{"name":"x","age":"old"}`, "Content-Type", "application/json")
	p := decodeProblem(t, w)
	var got []string
	for _, e := range p.Errors {
		got = append(got, e.Location)
	}
	if w.Code != 422 || strings.Join(got, ",") != "body.age,query.n,body.name" {
		t.Errorf("%d %v", w.Code, got)
	}
}

// TestConcurrentRequestsKeepTheirInputs serves many requests at once
// through one operation: reused inputs must never mix two requests.
func TestConcurrentRequestsKeepTheirInputs(t *testing.T) {
	type in struct {
		ID   int64    `path:"id"`
		Tags []string `query:"tag"`
		Body struct {
			Echo int64 `json:"echo"`
		}
	}
	type out struct {
		ID int64 `json:"id"`
	}
	r := New()
	Put(r, "/e/{id}", func(ctx context.Context, in *in) (*out, error) {
		want := strconv.FormatInt(in.ID, 10)
		if in.Body.Echo != in.ID || len(in.Tags) != 1 || in.Tags[0] != want {
			return nil, Error(http.StatusConflict, "mixed input")
		}
		return &out{ID: in.ID}, nil
	})
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				id := strconv.Itoa(g*1000 + i)
				w := serve(r, "PUT", "/e/"+id+"?tag="+id, `{"echo":`+id+`}`, "Content-Type", "application/json")
				if w.Code != 200 || w.Body.String() != `{"id":`+id+`}` {
					t.Errorf("request %s: %d %s", id, w.Code, w.Body)
					return
				}
			}
		}(g)
	}
	wg.Wait()
}

func TestMethodIsUpperCased(t *testing.T) {
	r := New()
	Register(r, "post", "/m", func(context.Context, *struct{}) (*struct{}, error) { return &struct{}{}, nil })
	if w := serve(r, "POST", "/m", ""); w.Code != 204 {
		t.Errorf("%d", w.Code)
	}
	if d := r.Operations()[0]; d.Method != "POST" || d.ID != "post-m" {
		t.Errorf("%s %s", d.Method, d.ID)
	}
}

type Paging struct {
	Limit  int    `query:"limit" default:"20" maximum:"50"`
	Cursor string `query:"cursor"`
}

type tenant struct {
	Org string `path:"org"`
}

func TestEmbeddedInputStructs(t *testing.T) {
	type in struct {
		tenant
		Paging
		Tag string `query:"tag"`
	}
	type out struct {
		Org    string `json:"org"`
		Limit  int    `json:"limit"`
		Cursor string `json:"cursor"`
		Tag    string `json:"tag"`
	}
	r := New()
	Get(r, "/orgs/{org}/items", func(ctx context.Context, in *in) (*out, error) {
		return &out{in.Org, in.Limit, in.Cursor, in.Tag}, nil
	})
	w := serve(r, "GET", "/orgs/acme/items?cursor=c1&tag=t", "")
	if w.Code != 200 || w.Body.String() != `{"org":"acme","limit":20,"cursor":"c1","tag":"t"}` {
		t.Errorf("%d %s", w.Code, w.Body)
	}
	w = serve(r, "GET", "/orgs/acme/items?limit=99", "")
	if p := decodeProblem(t, w); w.Code != 422 || p.Errors[0].Location != "query.limit" {
		t.Errorf("%d %s", w.Code, w.Body)
	}
	if d := r.Operations()[0]; len(d.Parameters) != 4 {
		t.Errorf("parameters: %+v", d.Parameters)
	}
}

func TestFormFieldsAbsentAreNotValidated(t *testing.T) {
	type in struct {
		Body struct {
			Name  string `form:"name" required:"true" minLength:"2"`
			Email string `form:"email" format:"email"`
		}
	}
	r := New()
	Post(r, "/f", func(context.Context, *in) (*struct{}, error) { return &struct{}{}, nil })
	ct := "application/x-www-form-urlencoded"
	if w := serve(r, "POST", "/f", "name=ann", "Content-Type", ct); w.Code != 204 {
		t.Errorf("absent optional field: %d %s", w.Code, w.Body)
	}
	w := serve(r, "POST", "/f", "name=a&email=nope", "Content-Type", ct)
	p := decodeProblem(t, w)
	if w.Code != 422 || len(p.Errors) != 2 || p.Errors[0].Location != "body.name" || p.Errors[1].Location != "body.email" {
		t.Errorf("%d %s", w.Code, w.Body)
	}
}

// A time.Duration response header is sent as Go duration text, and
// documented so.
func TestDurationResponseHeader(t *testing.T) {
	type out struct {
		Wait time.Duration `header:"X-Wait"`
		Body string
	}
	r := New()
	Get(r, "/wait", func(context.Context, *struct{}) (*out, error) {
		return &out{Wait: 90 * time.Second, Body: "ok"}, nil
	})
	if w := serve(r, "GET", "/wait", ""); w.Header().Get("X-Wait") != "1m30s" {
		t.Errorf("X-Wait: %q", w.Header().Get("X-Wait"))
	}
	h := r.Operations()[0].Responses[0].Headers[0]
	if h.Schema.Type != "string" || h.Schema.Pattern != schema.DurationPattern {
		t.Errorf("X-Wait schema: %+v", h.Schema)
	}
}

// Tag values of a duration parameter are Go duration text: the rules check
// the parsed value.
func TestDurationParameterRules(t *testing.T) {
	type in struct {
		Wait time.Duration `query:"wait" enum:"1m,2m" default:"1m"`
	}
	r := New()
	Get(r, "/wait", func(_ context.Context, in *in) (*string, error) {
		s := in.Wait.String()
		return &s, nil
	})
	if w := serve(r, "GET", "/wait?wait=120s", ""); w.Code != 200 || w.Body.String() != `"2m0s"` {
		t.Errorf("120s: %d %s", w.Code, w.Body)
	}
	if w := serve(r, "GET", "/wait?wait=3m", ""); w.Code != 422 {
		t.Errorf("3m: %d %s", w.Code, w.Body)
	}
}

// An output that can only be empty (struct{}, or a Body of struct{}) is
// answered 204, nil or not, and documented as the 204 alone, not beside a
// 200 with an empty object; a Status given says otherwise.
func TestEmptyOutputDocumentsNoContent(t *testing.T) {
	r := New()
	nilOut := true
	Post(r, "/ping", func(context.Context, *struct{}) (*struct{}, error) {
		if nilOut {
			return nil, nil
		}
		return &struct{}{}, nil
	})
	type withBody struct{ Body struct{} }
	Delete(r, "/things/{id}", func(context.Context, *struct {
		ID string `path:"id"`
	}) (*withBody, error) {
		return nil, nil
	})
	Put(r, "/done", func(context.Context, *struct{}) (*struct{}, error) { return &struct{}{}, nil },
		Status(204))
	Get(r, "/thing", func(context.Context, *struct{}) (*struct {
		Name string `json:"name"`
	}, error) {
		return nil, nil
	})
	if w := serve(r, "POST", "/ping", ""); w.Code != 204 || w.Body.Len() != 0 {
		t.Errorf("nil: %d %q", w.Code, w.Body)
	}
	nilOut = false
	if w := serve(r, "POST", "/ping", ""); w.Code != 204 || w.Body.Len() != 0 || w.Header().Get("Content-Type") != "" {
		t.Errorf("not nil: %d %q", w.Code, w.Body)
	}
	if w := serve(r, "DELETE", "/things/1", ""); w.Code != 204 || w.Body.Len() != 0 {
		t.Errorf("DELETE: %d %q", w.Code, w.Body)
	}
	// Status 204 asked for: no body and no Content-Type, even for a non-nil output.
	if w := serve(r, "PUT", "/done", ""); w.Code != 204 || w.Body.Len() != 0 || w.Header().Get("Content-Type") != "" {
		t.Errorf("PUT 204: %d %q %q", w.Code, w.Header().Get("Content-Type"), w.Body)
	}
	ops := r.Operations()
	for _, d := range ops[:3] {
		if nc := d.Response(204); d.Responses[0].Status != 204 || nc == nil || len(nc.Content) != 0 || nc.Description != "No Content" || d.Response(200) != nil {
			t.Errorf("%s %s: responses %+v", d.Method, d.Pattern, d.Responses)
		}
	}
	// An output with something in it is documented by its content alone.
	if d := ops[3]; d.Response(204) != nil || d.Response(200) == nil {
		t.Errorf("GET /thing: %+v", d.Responses)
	}
	// A status given wins: an empty object, as asked.
	r2 := New()
	Get(r2, "/empty", func(context.Context, *struct{}) (*struct{}, error) { return &struct{}{}, nil }, Status(200))
	if w := serve(r2, "GET", "/empty", ""); w.Code != 200 || w.Body.String() != "{}" {
		t.Errorf("Status(200): %d %q", w.Code, w.Body)
	}
}
