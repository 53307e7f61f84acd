package vanetest_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/vane-http/vane"
	"github.com/vane-http/vane/vanetest"
)

type Pet struct {
	ID   int64  `json:"id"`
	Name string `json:"name" minLength:"1"`
}

type createPet struct {
	Body struct {
		Name string `json:"name" minLength:"1"`
	}
}

type petOut struct {
	Status int
	Body   Pet
}

func petRouter(lie bool) *vane.Router {
	r := vane.New()
	vane.Post(r, "/pets", func(ctx context.Context, in *createPet) (*petOut, error) {
		return &petOut{Body: Pet{ID: 1, Name: in.Body.Name}}, nil
	}, vane.Responds(201, "Created"))
	vane.Get(r, "/pets/{id}", func(ctx context.Context, in *struct {
		ID int64 `path:"id"`
	}) (*petOut, error) {
		return nil, vane.NotFound("no such pet")
	})
	r.HandleFunc(http.MethodGet, "/raw", func(w http.ResponseWriter, req *http.Request) { w.WriteHeader(299) })
	if lie {
		// Operations whose handlers answer what their documents do not say.
		vane.Get(r, "/bad", func(ctx context.Context, _ *struct{}) (*petOut, error) {
			return &petOut{Body: Pet{ID: 1}}, nil // an empty name, which the document forbids
		})
		vane.Get(r, "/accepted", func(ctx context.Context, _ *struct{}) (*petOut, error) {
			return &petOut{Status: http.StatusAccepted, Body: Pet{ID: 1, Name: "x"}}, nil
		})
	}
	return r
}

func ExampleNew() {
	t := &testing.T{} // in a test, the test's own
	api := vanetest.New(t, petRouter(false))
	res := api.Post("/pets", map[string]any{"name": "Rex"})
	pet := vanetest.Decode[Pet](t, res)
	fmt.Println(res.Code, pet.Name, res.Operation.ID)
	p := vanetest.Problem(t, api.Get("/pets/9"))
	fmt.Println(p.Status, p.Detail)
	// Output:
	// 201 Rex post-pets
	// 404 no such pet
}

// recorder is a testing.TB that keeps the errors instead of failing.
type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Helper()                      {}
func (r *recorder) Errorf(f string, args ...any) { r.errs = append(r.errs, fmt.Sprintf(f, args...)) }
func (r *recorder) Fatalf(f string, args ...any) { r.errs = append(r.errs, fmt.Sprintf(f, args...)) }

// A response the document does not allow fails the test; documented ones
// and routes that are not typed operations do not.
func TestChecksAgainstTheDocument(t *testing.T) {
	rec := &recorder{TB: t}
	api := vanetest.New(rec, petRouter(true))
	api.Post("/pets", map[string]any{"name": "Rex"})
	api.Post("/pets", map[string]any{"name": ""}) // a 422, documented
	api.Get("/pets/9")                            // a 404, documented as default
	api.Get("/raw")
	if len(rec.errs) != 0 {
		t.Fatalf("documented answers reported: %v", rec.errs)
	}
	api.Get("/bad")
	api.Get("/accepted")
	if len(rec.errs) != 2 || !strings.Contains(rec.errs[0], "response.name: expected length >= 1") ||
		!strings.Contains(rec.errs[1], "status 202 is not documented") {
		t.Errorf("undocumented answers: %q", rec.errs)
	}
}

// With ExplicitStatuses, an answer whose status only the document's
// default covers fails the test, also when the router is served over
// real HTTP through Handler.
func TestExplicitStatuses(t *testing.T) {
	rec := &recorder{TB: t}
	api := vanetest.New(rec, petRouter(false), vanetest.ExplicitStatuses())
	api.Post("/pets", map[string]any{"name": "Rex"})
	if len(rec.errs) != 0 {
		t.Fatalf("a documented answer reported: %v", rec.errs)
	}
	api.Get("/pets/9") // 404, which only default covers
	if len(rec.errs) != 1 || !strings.Contains(rec.errs[0], "status 404 is covered only by the document's default") {
		t.Fatalf("errors %q", rec.errs)
	}
	srv := httptest.NewServer(api.Handler())
	defer srv.Close()
	res, err := http.Post(srv.URL+"/pets", "application/json", strings.NewReader(`{"name":"Rex"}`))
	if err != nil || res.StatusCode != 201 {
		t.Fatalf("%v %v", res, err)
	}
	res.Body.Close()
	if res, err = http.Get(srv.URL + "/pets/9"); err != nil || res.StatusCode != 404 {
		t.Fatalf("%v %v", res, err)
	}
	res.Body.Close()
	if len(rec.errs) != 2 || !strings.Contains(rec.errs[1], "status 404 is covered only") {
		t.Errorf("through Handler: %q", rec.errs)
	}
}
