// Command hello is the smallest typed vane service: one operation whose
// input is bound and validated from a plain Go type, its OpenAPI document
// and docs page, served with timeouts and graceful shutdown.
//
//	go run ./hello              # from examples/; serves on :8080
//	curl localhost:8080/hello/gopher
//	curl 'localhost:8080/hello/x?times=9'   # 422: a problem naming query.times
//	open http://localhost:8080/docs
package main

import (
	"context"
	"log"
	"os"
	"strings"

	"github.com/vane-http/vane"
)

// Hello is the input: a path parameter and a query parameter, with their
// rules.
type Hello struct {
	Name  string `path:"name" minLength:"1" maxLength:"40"`
	Times int    `query:"times" default:"1" minimum:"1" maximum:"3"`
}

// Greeting is the output, sent as JSON.
type Greeting struct {
	Message string `json:"message" example:"hello, gopher"`
}

func hello(ctx context.Context, in *Hello) (*Greeting, error) {
	parts := make([]string, in.Times)
	for i := range parts {
		parts[i] = "hello, " + in.Name + "!"
	}
	return &Greeting{Message: strings.Join(parts, " ")}, nil
}

func newRouter() *vane.Router {
	r := vane.New()
	vane.Get(r, "/hello/{name}", hello)
	vane.Docs(r, vane.DocsConfig{}) // /openapi.json, /openapi.yaml, /docs
	return r
}

func main() {
	addr := ":8080"
	if len(os.Args) > 1 {
		addr = os.Args[1]
	}
	log.Printf("try http://localhost%s/hello/gopher and http://localhost%s/docs", addr, addr)
	if err := vane.Serve(context.Background(), addr, newRouter()); err != nil {
		log.Fatal(err) // nil after a graceful shutdown (Ctrl-C)
	}
}
