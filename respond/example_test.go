package respond_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"time"

	"github.com/vane-http/vane/operation"
	"github.com/vane-http/vane/respond"
	"github.com/vane-http/vane/schema"
)

type Item struct {
	Name string `json:"name"`
}

type GetItemOutput struct {
	ETag         string    `header:"ETag"`
	LastModified time.Time `header:"Last-Modified"`
	Body         Item
}

func ExampleCompile() {
	w, err := respond.Compile(reflect.TypeFor[GetItemOutput](), respond.Config{})
	if err != nil {
		panic(err)
	}
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodGet, "/items/1", nil)
	out := &GetItemOutput{ETag: `"v1"`, LastModified: time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC), Body: Item{Name: "kite"}}
	if err := w.Write(rec, req, out); err != nil {
		panic(err)
	}
	fmt.Println(rec.Code, rec.Header().Get("Content-Type"), rec.Header().Get("ETag"), rec.Header().Get("Last-Modified"))
	fmt.Println(rec.Body.String())
	// Output:
	// 200 application/json "v1" Tue, 24 Nov 2026 12:00:00 GMT
	// {"name":"kite"}
}

type LoginOutput struct {
	Session http.Cookie `cookie:"session"`
	Body    Item
}

func ExampleCompile_cookies() {
	w, err := respond.Compile(reflect.TypeFor[LoginOutput](), respond.Config{})
	if err != nil {
		panic(err)
	}
	rec := httptest.NewRecorder()
	out := &LoginOutput{Session: http.Cookie{Value: "s3cr3t", Path: "/", HttpOnly: true, SameSite: http.SameSiteLaxMode}, Body: Item{Name: "ada"}}
	if err := w.Write(rec, httptest.NewRequest(http.MethodPost, "/login", nil), out); err != nil {
		panic(err)
	}
	fmt.Println(rec.Header().Get("Set-Cookie"))
	fmt.Println(w.Response().Headers[0].Name+":", w.Response().Headers[0].Description)
	// Output:
	// session=s3cr3t; Path=/; HttpOnly; SameSite=Lax
	// Set-Cookie: Sets the cookie session.
}

func ExampleEvaluate() {
	modified := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	get := httptest.NewRequest(http.MethodGet, "/items/1", nil)
	get.Header.Set("If-None-Match", `W/"v1", "v2"`)
	put := httptest.NewRequest(http.MethodPut, "/items/1", nil)
	put.Header.Set("If-Match", `"v1"`)
	fmt.Println(respond.Evaluate(get, `"v2"`, modified))
	fmt.Println(respond.Evaluate(put, `"v2"`, modified))
	fmt.Println(respond.Evaluate(put, `"v1"`, modified))
	// Output:
	// 304
	// 412
	// 0
}

type RenameItem struct {
	ID   string `path:"id"`
	Body Item
}

// Precondition looks the item up and returns its validators.
func (in *RenameItem) Precondition(ctx context.Context) (string, time.Time, error) {
	return `"v2"`, time.Time{}, nil
}

func ExampleCheckPreconditions() {
	req := httptest.NewRequest(http.MethodPut, "/items/1", nil)
	req.Header.Set("If-Match", `"v1"`)
	rec := httptest.NewRecorder()
	done, err := respond.CheckPreconditions(rec, req, &RenameItem{ID: "1"})
	fmt.Println(done, err, rec.Code)
	// Output: true <nil> 412
}

func ExampleWriter_Negotiate() {
	w, err := respond.Compile(reflect.TypeFor[Item](), respond.Config{})
	if err != nil {
		panic(err)
	}
	for _, accept := range []string{"application/*", "text/html"} {
		req := httptest.NewRequest(http.MethodGet, "/items/1", nil)
		req.Header.Set("Accept", accept)
		rec := httptest.NewRecorder()
		_, ok := w.Negotiate(rec, req)
		fmt.Println(accept, ok, rec.Code)
	}
	// Output:
	// application/* true 200
	// text/html false 406
}

func ExampleResponses() {
	reg := schema.NewRegistry("#/components/schemas/")
	w, err := respond.Compile(reflect.TypeFor[GetItemOutput](), respond.Config{Registry: reg})
	if err != nil {
		panic(err)
	}
	d := &operation.Description{Method: http.MethodGet, Pattern: "/items/{id}", Status: 200,
		Parameters: []operation.Parameter{{Name: "id", In: operation.InPath}},
		Validators: w.Validators(), MediaTypes: w.MediaTypes()}
	list, err := respond.Responses(d, w, map[int]string{404: "no such item"}, reg)
	if err != nil {
		panic(err)
	}
	for _, r := range list {
		fmt.Println(r.Status, r.Description)
	}
	for _, p := range respond.ConditionalParameters(d) {
		fmt.Println(p.In, p.Name)
	}
	// Output:
	// 200 OK
	// 304 Not Modified
	// 404 no such item
	// 406 Not Acceptable
	// 412 Precondition Failed
	// 422 Unprocessable Entity
	// 500 Internal Server Error
	// header If-Match
	// header If-None-Match
	// header If-Unmodified-Since
	// header If-Modified-Since
}
