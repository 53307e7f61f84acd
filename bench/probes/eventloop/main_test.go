package main

import (
	"strings"
	"testing"
)

// Every whole request is answered, in order; a partial one waits; the
// route, the 401 and the JSON are the e2e service's.
func TestAnswer(t *testing.T) {
	req := "GET /items/123?verbose=true HTTP/1.1\r\nHost: x\r\nAuthorization: bearer 123\r\n\r\n"
	noAuth := "GET /items/7 HTTP/1.1\r\nHost: x\r\n\r\n"
	partial := "GET /items/9 HTTP/1.1\r\nHost: x\r\n"
	out, used := answer(nil, []byte(req+noAuth+partial), "D")
	if used != len(req+noAuth) {
		t.Fatalf("used %d bytes, want %d", used, len(req+noAuth))
	}
	body := `{"id":"123","name":"Item 123","price":9.99,"tags":["a","b"],"verbose":true}`
	want := "HTTP/1.1 200 OK\r\nServer: eventloop\r\nDate: D\r\nContent-Type: application/json\r\nContent-Length: 75\r\n\r\n" + body + unauthorized
	if string(out) != want {
		t.Fatalf("answers\n%q\nwant\n%q", out, want)
	}
	if len(body) != 75 || !strings.HasSuffix(unauthorized, "\r\n\r\n"+"missing Authorization") || len("missing Authorization") != 21 {
		t.Fatal("the fixed lengths are wrong")
	}
	lower := "GET /items/5 HTTP/1.1\r\nhost: x\r\nauthorization: b\r\n\r\n"
	if out, _ := answer(nil, []byte(lower), "D"); !strings.HasPrefix(string(out), "HTTP/1.1 200 ") {
		t.Fatalf("a lower-case authorization field answered %q", out)
	}
	other := "GET /items/5 HTTP/1.1\r\nHost: x\r\nX-Authorization: b\r\nAccept: authorization:\r\n\r\n"
	if out, _ := answer(nil, []byte(other), "D"); string(out) != unauthorized {
		t.Fatalf("fields that only contain the name answered %q", out)
	}
	if out, _ := answer(nil, []byte("POST /items/1 HTTP/1.1\r\nAuthorization: x\r\n\r\n"), "D"); string(out) != notFound {
		t.Fatalf("POST answered %q", out)
	}
}
