package vane

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

type patchPet struct {
	Name    string   `json:"name" minLength:"1"`
	Species string   `json:"species" enum:"cat,dog"`
	Tags    []string `json:"tags,omitempty"`
	Note    string   `json:"note,omitempty"`
}

type petID struct {
	ID int `path:"id"`
}

type petPut struct {
	Conditional
	ID   int `path:"id"`
	Body patchPet
}

type petBody struct {
	ETag string `header:"ETag"`
	Body patchPet
}

func patchRouter(pets map[int]*patchPet, puts *int) *Router {
	r := New()
	get := func(ctx context.Context, in *petID) (*petBody, error) {
		p, ok := pets[in.ID]
		if !ok {
			return nil, NotFound("no such pet")
		}
		return &petBody{ETag: fmt.Sprintf(`"%s"`, p.Name), Body: *p}, nil
	}
	put := func(ctx context.Context, in *petPut) (*petBody, error) {
		p, ok := pets[in.ID]
		if !ok {
			return nil, NotFound("no such pet")
		}
		if err := in.Check(Version{ETag: fmt.Sprintf(`"%s"`, p.Name), Exists: true}); err != nil {
			return nil, err
		}
		*puts++
		b := in.Body
		pets[in.ID] = &b
		return &petBody{ETag: fmt.Sprintf(`"%s"`, b.Name), Body: b}, nil
	}
	Get(r, "/pets/{id}", get)
	Put(r, "/pets/{id}", put)
	MergePatch(r, "/pets/{id}", get, put, func(op *Op) { op.Summary = "Update a pet in part" })
	return r
}

// A merge patch sets and removes members of the current resource, the
// result is validated by the PUT body's rules, and the PUT's answer is the
// PATCH's; a wrong media type is a 415, an unknown resource GET's 404, a
// stale If-Match a 412.
func TestMergePatch(t *testing.T) {
	pets := map[int]*patchPet{1: {Name: "Rex", Species: "dog", Tags: []string{"good"}, Note: "old"}}
	var puts int
	r := patchRouter(pets, &puts)
	cases := []struct {
		name, path, ct, body string
		headers              []string
		status               int
		want                 string // in the response body
		put                  bool
	}{
		{"set", "/pets/1", MergePatchType, `{"name":"Max"}`, nil, 200, `"name":"Max","species":"dog","tags":["good"],"note":"old"`, true},
		{"remove with null", "/pets/1", MergePatchType, `{"note":null,"tags":null}`, nil, 200, `{"name":"Max","species":"dog"}`, true},
		{"result invalid", "/pets/1", MergePatchType, `{"species":"fish"}`, nil, 422, `"location":"body.species"`, false},
		{"required removed", "/pets/1", MergePatchType, `{"name":null}`, nil, 422, `"location":"body.name"`, false},
		{"wrong media type", "/pets/1", "application/json", `{"name":"A"}`, nil, 415, MergePatchType, false},
		{"not an object", "/pets/1", MergePatchType, `["name"]`, nil, 400, "JSON object", false},
		{"missing resource", "/pets/9", MergePatchType, `{"name":"A"}`, nil, 404, "no such pet", false},
		{"stale If-Match", "/pets/1", MergePatchType, `{"name":"B"}`, []string{"If-Match", `"Rex"`}, 412, "Precondition Failed", false},
		{"current If-Match", "/pets/1", MergePatchType, `{"name":"B"}`, []string{"If-Match", `"Max"`}, 200, `"name":"B"`, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := puts
			w := serve(r, "PATCH", c.path, c.body, append([]string{"Content-Type", c.ct}, c.headers...)...)
			if w.Code != c.status || !strings.Contains(w.Body.String(), c.want) || (puts > before) != c.put {
				t.Errorf("%d %s (put called: %v), want %d with %s", w.Code, w.Body, puts > before, c.status, c.want)
			}
		})
	}
	var patch *string
	for _, d := range r.Operations() {
		if d.Method == "PATCH" {
			s := fmt.Sprintf("%s %s %s", d.ID, d.Summary, d.RequestBody.Content[0].MediaType)
			for _, resp := range d.Responses {
				s += fmt.Sprint(" ", resp.Status)
			}
			patch = &s
		}
	}
	if patch == nil || *patch != "patch-pets-by-id Update a pet in part application/merge-patch+json 200 400 406 412 413 415 422 500" {
		t.Errorf("documented PATCH: %v", *patch)
	}
}

func ExampleMergePatch() {
	pets := map[int]*patchPet{1: {Name: "Rex", Species: "dog", Note: "barks"}}
	var puts int
	r := patchRouter(pets, &puts)
	w := serve(r, "PATCH", "/pets/1", `{"name":"Max","note":null}`, "Content-Type", MergePatchType)
	fmt.Println(w.Code, w.Body)
	// Output: 200 {"name":"Max","species":"dog"}
}
