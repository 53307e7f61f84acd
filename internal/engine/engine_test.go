package engine

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
)

func TestDescribe(t *testing.T) {
	mk := func() func(http.Handler) http.Handler {
		n := 0
		return func(next http.Handler) http.Handler { n++; return next }
	}
	a, b := mk(), mk() // two values of one constructor
	var got []string
	Describe(a, func(next Handler) Handler {
		return func(w http.ResponseWriter, r *Request) { got = append(got, "a"); next(w, r) }
	})
	if _, ok := Native(b); ok {
		t.Fatal("a value not described has an engine form")
	}
	form, ok := Native(a)
	if !ok {
		t.Fatal("no engine form for the value described")
	}
	form(func(http.ResponseWriter, *Request) {})(nil, &Request{})
	if len(got) != 1 {
		t.Fatalf("the form ran %d times", len(got))
	}
	if _, ok := Native(nil); ok {
		t.Fatal("nil has an engine form")
	}
}

type key struct{}

func TestRequestHTTPAndDetach(t *testing.T) {
	ctx := context.WithValue(context.Background(), key{}, "v")
	r := &Request{
		Method: "POST", Path: "/a/b", RawQuery: "x=1", RequestURI: "/a/b?x=1", Proto: "HTTP/1.0",
		Host: "example.com", RemoteAddr: "10.0.0.1:5", Header: http.Header{"X-A": {"1"}},
		ContentLength: 3, Body: io.NopCloser(strings.NewReader("abc")), Pattern: "/a/{b}",
		Params: []string{"b"}, Ctx: ctx,
	}
	hr := r.HTTP()
	if hr.Method != "POST" || hr.URL.Path != "/a/b" || hr.URL.RawQuery != "x=1" || hr.RequestURI != "/a/b?x=1" ||
		hr.ProtoMinor != 0 || hr.Host != "example.com" || hr.RemoteAddr != "10.0.0.1:5" || hr.Header.Get("X-A") != "1" ||
		hr.ContentLength != 3 || hr.Pattern != "/a/{b}" || hr.Context().Value(key{}) != "v" {
		t.Fatalf("HTTP: %+v", hr)
	}
	hr.Header.Set("X-A", "2")
	if r.Header.Get("X-A") != "1" {
		t.Fatal("HTTP shares the engine's header map")
	}
	d := r.Detach()
	r.Header.Set("X-A", "3")
	r.Params[0] = "c"
	if d.Header.Get("X-A") != "1" || d.Params[0] != "b" || d.Ctx != ctx {
		t.Fatalf("Detach: %+v", d)
	}
}
