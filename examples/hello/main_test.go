package main

import (
	"io"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestHello(t *testing.T) {
	srv := httptest.NewServer(newRouter())
	defer srv.Close()
	for path, want := range map[string]string{
		"/hello/gopher":         `{"message":"hello, gopher!"}`,
		"/hello/gopher?times=2": `{"message":"hello, gopher! hello, gopher!"}`,
		"/hello/gopher?times=9": `"location":"query.times"`,
		"/openapi.json":         `"/hello/{name}"`,
	} {
		res, err := srv.Client().Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if !strings.Contains(string(body), want) {
			t.Errorf("GET %s: %d %s, want %s", path, res.StatusCode, body, want)
		}
	}
}
