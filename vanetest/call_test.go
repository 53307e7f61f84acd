package vanetest_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/vane-http/vane"
	"github.com/vane-http/vane/vanetest"
)

type Animal struct {
	ID   int64    `json:"id" readOnly:"true"`
	Name string   `json:"name" minLength:"1"`
	Tags []string `json:"tags,omitempty"`
}

type UpdateAnimal struct {
	ID      int64             `path:"id" minimum:"1"`
	IDs     []string          `query:"ids" explode:"false"`
	Tags    []string          `query:"tag"`
	Words   []string          `query:"words" style:"spaceDelimited"`
	Filter  map[string]string `query:"filter"`
	Since   *time.Time        `query:"since"`
	Wait    time.Duration     `query:"wait"`
	Trace   string            `header:"X-Trace" required:"true"`
	Langs   []string          `header:"Accept-Language"`
	Session *http.Cookie      `cookie:"session"`
	Theme   string            `cookie:"theme"`
	Body    Animal
}

type Updated struct {
	Status   int
	Location string    `header:"Location"`
	Modified time.Time `header:"Last-Modified"`
	Count    int       `header:"X-Count"`
	Body     Animal
}

func animalRouter(seen *UpdateAnimal) *vane.Router {
	r := vane.New()
	vane.Put(r, "/animals/{id}", func(_ context.Context, in *UpdateAnimal) (*Updated, error) {
		*seen = *in
		if in.ID == 404 {
			p := vane.NotFound("no such animal").With("id", in.ID)
			p.Type = "https://example.com/probs/no-animal"
			return nil, p
		}
		a := in.Body
		a.ID = in.ID
		return &Updated{Location: fmt.Sprintf("/animals/%d", in.ID), Modified: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Count: 3, Body: a}, nil
	}, vane.ID("updateAnimal"), vane.Responds(404, "no such animal"))
	return r
}

// Call makes the request from the input as the operation binds it, and
// decodes the output as vane writes it.
func TestCallRoundTrip(t *testing.T) {
	var seen UpdateAnimal
	api := vanetest.New(t, animalRouter(&seen))
	since := time.Date(2026, 5, 6, 7, 8, 9, 0, time.UTC)
	in := &UpdateAnimal{
		ID: 7, IDs: []string{"a,b", "c"}, Tags: []string{"x", "y z"}, Words: []string{"one", "two"},
		Filter: map[string]string{"color": "red"}, Since: &since, Wait: 90 * time.Second,
		Trace: "t-1", Langs: []string{"fr", "de"}, Session: &http.Cookie{Value: "s3"}, Theme: "dark",
		Body: Animal{Name: "Rex", Tags: []string{"dog"}},
	}
	out, p := vanetest.Call[UpdateAnimal, Updated](api, "updateAnimal", in)
	if p != nil {
		t.Fatalf("problem %+v", p)
	}
	want := Updated{Status: 200, Location: "/animals/7", Modified: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Count: 3, Body: Animal{ID: 7, Name: "Rex", Tags: []string{"dog"}}}
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
	var seen UpdateAnimal
	api := vanetest.New(t, animalRouter(&seen))
	out, p := vanetest.Call[UpdateAnimal, Updated](api, "updateAnimal", &UpdateAnimal{ID: 404, Trace: "t", Body: Animal{Name: "x"}})
	if out != nil || p == nil || p.Status != 404 || p.Type != "https://example.com/probs/no-animal" || p.Extensions["id"] != float64(404) {
		t.Errorf("%+v %+v", out, p)
	}
	_, p = vanetest.Call[UpdateAnimal, Updated](api, "updateAnimal", &UpdateAnimal{ID: 0, Body: Animal{Name: ""}})
	if p == nil || p.Status != 422 || len(p.Errors) != 2 { // path.id, body.name (X-Trace is required: sent, empty)
		t.Errorf("%+v", p)
	}
}

func TestCallChecksTheOperation(t *testing.T) {
	var seen UpdateAnimal
	for _, c := range []struct {
		name string
		call func(api *vanetest.API)
		want string
	}{
		{"unknown ID", func(api *vanetest.API) { vanetest.Call[UpdateAnimal, Updated](api, "nope", &UpdateAnimal{}) }, `no operation has the ID "nope"`},
		{"other types", func(api *vanetest.API) { vanetest.Call[UpdateAnimal, Animal](api, "updateAnimal", &UpdateAnimal{}) }, "not vanetest_test.UpdateAnimal and vanetest_test.Animal"},
	} {
		t.Run(c.name, func(t *testing.T) {
			rec := &recorder{TB: t}
			c.call(vanetest.New(rec, animalRouter(&seen)))
			if len(rec.errs) != 1 || !strings.Contains(rec.errs[0], c.want) {
				t.Errorf("%q, want %q", rec.errs, c.want)
			}
		})
	}
}

// A form body and a raw body are made from the input too.
func TestCallBodies(t *testing.T) {
	r := vane.New()
	vane.Post(r, "/form", func(_ context.Context, in *struct {
		Body struct {
			Name string   `form:"name"`
			Tags []string `form:"tag"`
		}
	}) (*[]string, error) {
		out := append([]string{in.Body.Name}, in.Body.Tags...)
		return &out, nil
	}, vane.ID("form"))
	vane.Post(r, "/raw", func(_ context.Context, in *struct{ Body []byte }) (*[]byte, error) {
		return &in.Body, nil
	}, vane.ID("raw"))
	api := vanetest.New(t, r)
	type formIn = struct {
		Body struct {
			Name string   `form:"name"`
			Tags []string `form:"tag"`
		}
	}
	in := &formIn{}
	in.Body.Name, in.Body.Tags = "a b", []string{"x", "y&z"}
	out, p := vanetest.Call[formIn, []string](api, "form", in)
	if p != nil || fmt.Sprint(*out) != "[a b x y&z]" {
		t.Errorf("%v %+v", out, p)
	}
	type rawIn = struct{ Body []byte }
	raw, p := vanetest.Call[rawIn, []byte](api, "raw", &rawIn{Body: []byte("\x00bytes")})
	if p != nil || string(*raw) != "\x00bytes" {
		t.Errorf("%q %+v", raw, p)
	}
}

func ExampleCall() {
	type GetGreeting struct {
		Name string `path:"name" maxLength:"10"`
		Lang string `query:"lang" default:"en"`
	}
	type Greeting struct {
		Message string `json:"message"`
	}
	r := vane.New()
	vane.Get(r, "/greetings/{name}", func(ctx context.Context, in *GetGreeting) (*Greeting, error) {
		if in.Name == "nobody" {
			return nil, vane.NotFound("nobody is here")
		}
		return &Greeting{Message: "Hello, " + in.Name + " (" + in.Lang + ")"}, nil
	}, vane.ID("getGreeting"), vane.Responds(404, "nobody by that name"))

	var t testing.TB = &recorder{} // in a test: t *testing.T
	api := vanetest.New(t, r)

	out, p := vanetest.Call[GetGreeting, Greeting](api, "getGreeting", &GetGreeting{Name: "Ann", Lang: "fr"})
	fmt.Println(out.Message, p)
	_, p = vanetest.Call[GetGreeting, Greeting](api, "getGreeting", &GetGreeting{Name: "nobody"})
	fmt.Println(p.Status, p.Detail)
	// Output:
	// Hello, Ann (fr) <nil>
	// 404 nobody is here
}
