package vane_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/vane-http/vane"
	"github.com/vane-http/vane/problem"
)

type Item struct {
	ID    int64    `json:"id" readOnly:"true"`
	Name  string   `json:"name" minLength:"1" maxLength:"40" example:"lamp"`
	Price float64  `json:"price" minimum:"0"`
	Tags  []string `json:"tags,omitempty" maxItems:"5"`
}

type GetItem struct {
	ID int64 `path:"id" minimum:"1" doc:"the item's ID"`
}

type CreateItem struct {
	DryRun bool `query:"dry_run"`
	Body   Item
}

type Created struct {
	Location string `header:"Location"`
	Body     Item
}

func ExampleRegister() {
	r := vane.New()
	vane.Register(r, http.MethodGet, "/items/{id}", func(ctx context.Context, in *GetItem) (*Item, error) {
		if in.ID != 1 {
			return nil, vane.NotFound("no item with that ID")
		}
		return &Item{ID: 1, Name: "lamp", Price: 12.5}, nil
	}, vane.ID("getItem"), vane.Summary("Get an item"))

	for _, path := range []string{"/items/1", "/items/2", "/items/0"} {
		w := httptest.NewRecorder()
		r.ServeHTTP(w, httptest.NewRequest("GET", path, nil))
		fmt.Println(w.Code, strings.TrimSpace(w.Body.String()))
	}
	// Output:
	// 200 {"id":1,"name":"lamp","price":12.5}
	// 404 {"type":"about:blank","title":"Not Found","status":404,"detail":"no item with that ID"}
	// 422 {"type":"about:blank","title":"Unprocessable Entity","status":422,"detail":"validation failed","errors":[{"location":"path.id","message":"expected number >= 1","value":0}]}
}

func ExamplePost() {
	r := vane.New()
	api := r.Group("/v1")
	vane.Post(api, "/items", func(ctx context.Context, in *CreateItem) (*Created, error) {
		in.Body.ID = 7
		return &Created{Location: "/v1/items/7", Body: in.Body}, nil
	}, vane.Tags("items"), vane.Responds(http.StatusCreated, "the new item")) // so POST answers 201

	w := httptest.NewRecorder()
	req := httptest.NewRequest("POST", "/v1/items", strings.NewReader(`{"name":"desk","price":80}`))
	req.Header.Set("Content-Type", "application/json")
	r.ServeHTTP(w, req)
	fmt.Println(w.Code, w.Header().Get("Location"), w.Body.String())

	w = httptest.NewRecorder()
	req = httptest.NewRequest("POST", "/v1/items", strings.NewReader(`{"name":"","price":-1}`))
	req.Header.Set("Content-Type", "application/json")
	r.ServeHTTP(w, req)
	fmt.Println(w.Code, w.Body.String())

	d := r.Operations()[0]
	fmt.Println(d.ID, d.Status, d.RequestBody.Content[0].Schema.Ref)
	// Output:
	// 201 /v1/items/7 {"id":7,"name":"desk","price":80}
	// 422 {"type":"about:blank","title":"Unprocessable Entity","status":422,"detail":"validation failed","errors":[{"location":"body.name","message":"expected length >= 1","value":""},{"location":"body.price","message":"expected number >= 0","value":-1}]}
	// post-v1-items 201 #/components/schemas/Item
}

func ExampleGet() {
	type ListItems struct {
		Limit int        `query:"limit" default:"20" maximum:"100"`
		Tags  []string   `query:"tag"`
		Since *time.Time `query:"since"`
	}
	type Page struct {
		Limit int      `json:"limit"`
		Tags  []string `json:"tags"`
		Since string   `json:"since,omitempty"`
	}
	r := vane.New()
	vane.Get(r, "/items", func(ctx context.Context, in *ListItems) (*Page, error) {
		p := &Page{Limit: in.Limit, Tags: in.Tags}
		if in.Since != nil {
			p.Since = in.Since.Format(time.DateOnly)
		}
		return p, nil
	})
	for _, target := range []string{"/items", "/items?tag=a&tag=b&tag=c&limit=5&since=2024-05-01T00:00:00Z", "/items?limit=500"} {
		w := httptest.NewRecorder()
		r.ServeHTTP(w, httptest.NewRequest("GET", target, nil))
		fmt.Println(w.Code, w.Body.String())
	}
	// Output:
	// 200 {"limit":20,"tags":null}
	// 200 {"limit":5,"tags":["a","b","c"],"since":"2024-05-01"}
	// 422 {"type":"about:blank","title":"Unprocessable Entity","status":422,"detail":"validation failed","errors":[{"location":"query.limit","message":"expected number <= 100","value":500}]}
}

func ExampleError() {
	r := vane.New()
	vane.Put(r, "/names/{name}", func(ctx context.Context, in *struct {
		Name string `path:"name"`
	}) (*struct{}, error) {
		return nil, vane.Error(http.StatusConflict, "the name is taken",
			problem.FieldError{Location: "path.name", Message: "already registered", Value: in.Name})
	})
	vane.Delete(r, "/names/{name}", func(ctx context.Context, in *struct {
		Name string `path:"name"`
	}) (*struct{}, error) {
		return nil, errors.New("db: connection refused") // never shown to the client
	})
	for _, method := range []string{"PUT", "DELETE"} {
		w := httptest.NewRecorder()
		r.ServeHTTP(w, httptest.NewRequest(method, "/names/ann", nil))
		fmt.Println(w.Code, w.Body.String())
	}
	// Output:
	// 409 {"type":"about:blank","title":"Conflict","status":409,"detail":"the name is taken","errors":[{"location":"path.name","message":"already registered","value":"ann"}]}
	// 500 {"type":"about:blank","title":"Internal Server Error","status":500,"detail":"the server failed to handle the request"}
}
