package respond_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"time"

	"github.com/vane-http/vane/respond"
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
