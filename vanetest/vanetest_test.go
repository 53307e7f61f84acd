package vanetest_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/vane-http/vane"
	"github.com/vane-http/vane/problem"
	"github.com/vane-http/vane/schema"
	"github.com/vane-http/vane/vanetest"
)

type Pet struct {
	ID   int64    `json:"id" readOnly:"true"`
	Name string   `json:"name" minLength:"1"`
	Tags []string `json:"tags,omitempty"`
}

type UpdatePet struct {
	ID      int64             `path:"id" minimum:"1"`
	IDs     []string          `query:"ids" explode:"false"`
	Tags    []string          `query:"tag"`
	Words   []string          `query:"words" style:"spaceDelimited"`
	Filter  map[string]string `query:"filter"`
	Since   *time.Time        `query:"since"`
	Wait    time.Duration     `query:"wait"`
	Trace   string            `header:"X-Trace" required:"true"`
	Accept  []string          `header:"Accept-Language"`
	Session *http.Cookie      `cookie:"session"`
	Theme   string            `cookie:"theme"`
	Body    Pet
}

type Updated struct {
	Status   int
	Location string    `header:"Location"`
	Modified time.Time `header:"Last-Modified"`
	Count    int       `header:"X-Count"`
	Body     Pet
}

func petRouter(seen *UpdatePet) *vane.Router {
	r := vane.New()
	vane.Put(r, "/pets/{id}", func(_ context.Context, in *UpdatePet) (*Updated, error) {
		*seen = *in
		if in.ID == 404 {
			return nil, vane.ErrorNotFound("no such pet").WithType("https://example.com/probs/no-pet").With("id", in.ID)
		}
		p := in.Body
		p.ID = in.ID
		return &Updated{Location: fmt.Sprintf("/pets/%d", in.ID), Modified: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Count: 3, Body: p}, nil
	}, func(op *vane.Op) { op.ID = "updatePet"; op.Responses = map[int]string{404: "no such pet"} })
	return r
}

func TestCallMakesTheRequestFromTheInput(t *testing.T) {
	var seen UpdatePet
	api := vanetest.New(t, petRouter(&seen))
	since := time.Date(2026, 5, 6, 7, 8, 9, 0, time.UTC)
	in := &UpdatePet{
		ID: 7, IDs: []string{"a,b", "c"}, Tags: []string{"x", "y z"}, Words: []string{"one", "two"},
		Filter: map[string]string{"color": "red"}, Since: &since, Wait: 90 * time.Second,
		Trace: "t-1", Accept: []string{"fr", "de"}, Session: &http.Cookie{Value: "s3"}, Theme: "dark",
		Body: Pet{Name: "Rex", Tags: []string{"dog"}},
	}
	out, p := vanetest.Call[UpdatePet, Updated](api, "updatePet", in)
	if p != nil {
		t.Fatalf("problem %+v", p)
	}
	want := Updated{Status: 200, Location: "/pets/7", Modified: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Count: 3, Body: Pet{ID: 7, Name: "Rex", Tags: []string{"dog"}}}
	if fmt.Sprint(*out) != fmt.Sprint(want) {
		t.Errorf("output\n%+v\nwant\n%+v", *out, want)
	}
	got := seen
	got.Session, in.Session = nil, nil
	if seen.Session == nil || seen.Session.Value != "s3" || fmt.Sprint(got) != fmt.Sprint(*in) {
		t.Errorf("the handler saw\n%+v\nsent\n%+v", got, *in)
	}
}

func TestCallReturnsTheProblem(t *testing.T) {
	var seen UpdatePet
	api := vanetest.New(t, petRouter(&seen))
	out, p := vanetest.Call[UpdatePet, Updated](api, "updatePet", &UpdatePet{ID: 404, Trace: "t", Body: Pet{Name: "x"}})
	if out != nil || p == nil || p.Status != 404 || p.Type != "https://example.com/probs/no-pet" || p.Extensions["id"] != float64(404) {
		t.Errorf("%+v %+v", out, p)
	}
	_, p = vanetest.Call[UpdatePet, Updated](api.BadRequests(), "updatePet", &UpdatePet{ID: 0, Trace: "t", Body: Pet{Name: ""}})
	if p == nil || p.Status != 422 || len(p.Errors) != 2 {
		t.Errorf("%+v", p)
	}
}

// recorder is a testing.TB that keeps what is reported to it.
type recorder struct {
	testing.TB
	msgs []string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.msgs = append(r.msgs, fmt.Sprintf(format, args...))
}

func (r *recorder) Fatalf(format string, args ...any) {
	r.msgs = append(r.msgs, fmt.Sprintf(format, args...))
	panic(r)
}

// Liar documents itself as an integer and is sent as a string.
type Liar struct{}

func (Liar) JSONSchema(*schema.Registry) *schema.Schema {
	return &schema.Schema{Type: schema.TypeInteger}
}
func (Liar) MarshalJSON() ([]byte, error) { return []byte(`"x"`), nil }

type liarOut struct {
	N Liar `json:"n"`
}

func TestDoFindsWhatTheDocumentDoesNotSay(t *testing.T) {
	r := vane.New()
	vane.Get(r, "/liar", func(context.Context, *struct{}) (*liarOut, error) { return &liarOut{}, nil })
	vane.Get(r, "/teapot", func(context.Context, *struct{}) (*struct{}, error) {
		return nil, vane.Error(http.StatusTeapot, "short and stout")
	})
	type credit struct {
		Balance int `json:"balance"`
	}
	vane.Get(r, "/orders/{n}", func(_ context.Context, in *struct {
		N int `path:"n"`
	}) (*struct{}, error) {
		p := vane.ErrorForbidden("no credit").WithType("https://example.com/probs/out-of-credit")
		if in.N == 1 {
			return nil, p.With("balance", 30)
		}
		if in.N == 2 {
			return nil, p.With("balance", "thirty")
		}
		return nil, vane.ErrorForbidden("another type")
	}, func(op *vane.Op) {
		op.Problems = []vane.ProblemType{{Status: 403, Type: "https://example.com/probs/out-of-credit", Extensions: credit{}}}
	})
	vane.Get(r, "/pets/{id}", func(_ context.Context, in *struct {
		ID    int64 `path:"id" minimum:"1"`
		Limit int   `query:"limit"`
	}) (*Pet, error) {
		return &Pet{ID: in.ID, Name: "a"}, nil
	})
	vane.Get(r, "/raw", func(context.Context, *struct{}) (*[]byte, error) { b := []byte("x"); return &b, nil })
	vane.Post(r, "/pets", func(_ context.Context, in *struct {
		Key  string `header:"X-Key" required:"true"`
		Body Pet
	}) (*Pet, error) {
		return &in.Body, nil
	})
	for _, c := range []struct {
		name string
		do   func(api *vanetest.API)
		want []string
	}{
		{"body against its schema", func(api *vanetest.API) { api.Get("/liar") }, []string{`response 200: body.n: expected integer, got string "x"`}},
		{"undocumented status", func(api *vanetest.API) { api.Get("/teapot") }, []string{"response 418: status 418 is not documented"}},
		{"missing required header", func(api *vanetest.API) { api.Post("/pets", Pet{Name: "a"}) }, []string{`request: required header parameter "X-Key" is missing`}},
		{"request body against its schema", func(api *vanetest.API) { api.Post("/pets", map[string]any{"name": 3}, "X-Key: k") }, []string{"request: body.name: expected string, got number 3"}},
		{"undocumented media type", func(api *vanetest.API) { api.Post("/pets", `{"name":"a"}`, "X-Key: k", "Content-Type: text/plain") }, []string{"request: Content-Type text/plain is not documented"}},
		{"parameter against its schema", func(api *vanetest.API) { api.Get("/pets/0?limit=x") }, []string{"request: path.id: 0 < minimum 1", `request: query.limit: "x" is not a number`}},
		{"bad request allowed", func(api *vanetest.API) { api.BadRequests().Get("/pets/0?limit=x") }, nil},
		{"documented problem type", func(api *vanetest.API) { api.Get("/orders/1") }, nil},
		{"problem member against its type", func(api *vanetest.API) { api.Get("/orders/2") }, []string{`response 403: body.balance: expected integer, got string "thirty"`}},
		{"problem of another type", func(api *vanetest.API) { api.Get("/orders/3") }, []string{`response 403: body.type: "about:blank" is not the const https://example.com/probs/out-of-credit`, `response 403: body: required property "balance" is missing`}},
		{"all good", func(api *vanetest.API) { api.Post("/pets", Pet{Name: "a"}, "X-Key: k"); api.Get("/raw") }, nil},
		{"no operation", func(api *vanetest.API) { api.Get("/nowhere") }, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			rec := &recorder{TB: t}
			c.do(vanetest.New(rec, r))
			if len(rec.msgs) != len(c.want) {
				t.Fatalf("reported %q, want %q", rec.msgs, c.want)
			}
			for i, w := range c.want {
				if !strings.Contains(rec.msgs[i], w) {
					t.Errorf("reported %q, want %q", rec.msgs[i], w)
				}
			}
		})
	}
}

func TestCallChecksTheTypes(t *testing.T) {
	var seen UpdatePet
	rec := &recorder{TB: t}
	api := vanetest.New(rec, petRouter(&seen))
	for _, call := range []func(){
		func() { vanetest.Call[UpdatePet, Updated](api, "nope", &UpdatePet{}) },
		func() { vanetest.Call[UpdatePet, Pet](api, "updatePet", &UpdatePet{}) },
	} {
		func() {
			defer func() { recover() }()
			call()
		}()
	}
	if len(rec.msgs) != 2 || !strings.Contains(rec.msgs[0], `no operation has the ID "nope"`) || !strings.Contains(rec.msgs[1], "not vanetest_test.UpdatePet and vanetest_test.Pet") {
		t.Errorf("%q", rec.msgs)
	}
}

var _ = problem.ContentType
