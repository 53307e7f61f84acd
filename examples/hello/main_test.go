package main

import (
	"io"
	"net/http/httptest"
	"testing"
)

func TestHello(t *testing.T) {
	srv := httptest.NewServer(newRouter())
	defer srv.Close()
	res, err := srv.Client().Get(srv.URL + "/hello/gopher")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || string(body) != "hello, gopher\n" {
		t.Errorf("got %d %q", res.StatusCode, body)
	}
}
