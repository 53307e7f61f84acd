// Command hello is the smallest vane service: a router with standard
// net/http handlers and a path parameter.
//
//	go run ./hello                   # from examples/; serves on :8080
//	curl localhost:8080/hello/gopher
package main

import (
	"fmt"
	"log"
	"net/http"
	"os"

	"github.com/vane-http/vane"
)

func main() {
	addr := ":8080"
	if len(os.Args) > 1 {
		addr = os.Args[1]
	}
	log.Printf("listening on %s; try http://localhost%s/hello/gopher", addr, addr)
	log.Fatal(http.ListenAndServe(addr, newRouter()))
}

func newRouter() *vane.Router {
	r := vane.New()
	r.Get("/hello/{name}", func(w http.ResponseWriter, req *http.Request) {
		fmt.Fprintf(w, "hello, %s\n", vane.Param(req, "name"))
	})
	return r
}
