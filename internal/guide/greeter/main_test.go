package main

import (
	"fmt"
	"io"
	"net/http/httptest"
	"strings"
)

// The greeter's router answers a good request and a bad one.
func Example() {
	r := newGreeter()
	for _, target := range []string{"/greetings/Ada?shout=true", "/greetings/Ada?shout=maybe"} {
		w := httptest.NewRecorder()
		r.ServeHTTP(w, httptest.NewRequest("GET", target, nil))
		body, _ := io.ReadAll(w.Body)
		fmt.Println(w.Code, w.Header().Get("Content-Type"))
		fmt.Println(strings.TrimSpace(string(body)))
	}
	// Output:
	// 200 application/json
	// {"message":"HELLO, ADA!"}
	// 422 application/problem+json
	// {"type":"about:blank","title":"Unprocessable Entity","status":422,"detail":"validation failed","errors":[{"location":"query.shout","message":"expected a boolean","value":"maybe"}]}
}
